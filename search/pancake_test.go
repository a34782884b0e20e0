package search_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/phs-go/phs/search"
)

// pancakes is the pancake puzzle of 8 pancakes: a stack is the sizes 0 to
// 7 from the top down, and action a flips the top a+2 pancakes. The goal
// is the sorted stack 0, 1, ..., 7.
type pancakes struct{ start stack }

type stack [8]uint8

var sorted = stack{0, 1, 2, 3, 4, 5, 6, 7}

func (p pancakes) Root() stack         { return p.start }
func (p pancakes) NumActions() int     { return 7 }
func (p pancakes) IsGoal(s stack) bool { return s == sorted }

func (p pancakes) Apply(s stack, a int) (stack, bool) {
	for i, j := 0, a+1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
	return s, true
}

// Heuristic returns the gap heuristic (Helmert, 2010): the number of
// neighbours, the plate below the bottom pancake counting as a pancake of
// size 8, whose sizes differ by more than 1. A flip changes one pair of
// neighbours, so the heuristic is consistent.
func (p pancakes) Heuristic(s stack) float64 {
	gaps := 0
	for i := range s {
		below := uint8(len(s))
		if i+1 < len(s) {
			below = s[i+1]
		}
		if d := int(s[i]) - int(below); d > 1 || d < -1 {
			gaps++
		}
	}
	return float64(gaps)
}

// stacks calls f with every stack of 8 pancakes and its distance to the
// sorted stack, from a breadth-first search from the sorted stack (a flip
// undoes itself).
func stacks(f func(s stack, dist int)) {
	dist := map[stack]int{sorted: 0}
	frontier := []stack{sorted}
	for len(frontier) > 0 {
		var next []stack
		for _, s := range frontier {
			f(s, dist[s])
			for a := range 7 {
				t, _ := pancakes{}.Apply(s, a)
				if _, ok := dist[t]; !ok {
					dist[t] = dist[s] + 1
					next = append(next, t)
				}
			}
		}
		frontier = next
	}
}

// TestAStarPancakeDuplicate is a stack where A* that drops every child
// whose state was generated before returns 8 flips: a node of a state on
// the 7-flip path is generated late on a longer path first.
func TestAStarPancakeDuplicate(t *testing.T) {
	p := pancakes{stack{3, 2, 5, 4, 0, 7, 1, 6}}
	for _, gt := range []search.GoalTest{search.GoalTestDefault, search.GoalTestExpansion} {
		for _, batch := range []int{1, 32} {
			s, err := search.NewSolver[stack](search.AStar(), search.DomainHeuristic[stack]{}, search.Options{BatchSize: batch, GoalTest: gt})
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Solve(context.Background(), p)
			if err != nil || !res.Solved || search.Replay[stack](p, res.Actions) != nil || len(res.Actions) != 7 {
				t.Errorf("goal test %v, batch %d: %v flips %v, %v; want 7", gt, batch, res.Solved, res.Actions, err)
			}
		}
	}
}

// TestAStarPancakesOptimal checks that A* with the gap heuristic, a
// consistent one, finds a shortest solution of every stack of 8 pancakes
// by default, one node at a time and in batches. With -short, of every
// eighth stack and of the one 9 flips from the sorted one.
func TestAStarPancakesOptimal(t *testing.T) {
	t.Parallel()
	for _, batch := range []int{1, 32} {
		s, err := search.NewSolver[stack](search.AStar(), search.DomainHeuristic[stack]{}, search.Options{BatchSize: batch})
		if err != nil {
			t.Fatal(err)
		}
		n, bad := 0, 0
		stacks(func(st stack, dist int) {
			n++
			if testing.Short() && n%8 != 0 && dist < 9 {
				return
			}
			p := pancakes{st}
			res, err := s.Solve(context.Background(), p)
			if err == nil && !res.Solved {
				err = fmt.Errorf("not solved")
			}
			if err == nil {
				err = search.Replay[stack](p, res.Actions)
			}
			if err == nil && (len(res.Actions) != dist || res.Cost != float64(dist)) {
				err = fmt.Errorf("%d flips, cost %g; want %d", len(res.Actions), res.Cost, dist)
			}
			if err != nil {
				if bad++; bad <= 5 {
					t.Errorf("batch %d: %v: %v", batch, st, err)
				}
			}
		})
		if n != 40320 || bad > 0 {
			t.Errorf("batch %d: %d of %d stacks wrong", batch, bad, n)
		}
	}
}
