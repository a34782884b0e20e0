package stp

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/phs-go/phs/search"
)

// TestAStarOptimal checks that A* with the Manhattan distance, with the
// search package's default options, returns shortest solutions, against
// breadth-first search from the goal: every arrangement of the 2x3 puzzle,
// and 3,000 random 8-puzzles (300 of them also with LargeState; with
// -short, 300 and 100), one node at a time and in batches of 32.
func TestAStarOptimal(t *testing.T) {
	g23, _ := New[State](2, 3, identity(6), "")
	g33, _ := New[State](3, 3, identity(9), "")
	dist23, dist33 := reach(g23), reach(g33)
	var small []*Problem[State]
	for s := range dist23 {
		p, err := New[State](2, 3, g23.Tiles(s), "")
		if err != nil {
			t.Fatal(err)
		}
		small = append(small, p)
	}
	if len(small) != 360 {
		t.Fatalf("%d arrangements of 2x3, want 360", len(small))
	}
	rng := rand.New(rand.NewPCG(33, 3))
	n, nLarge := 3000, 300
	if testing.Short() {
		n, nLarge = 300, 100
	}
	var large []*Problem[LargeState]
	for i := range n {
		p := GenerateRandom[State](rng, 3, 3)
		small = append(small, p)
		if i < nLarge {
			q, err := New[LargeState](3, 3, p.Tiles(p.Root()), "")
			if err != nil {
				t.Fatal(err)
			}
			large = append(large, q)
		}
	}
	for _, batch := range []int{1, 32} {
		opts := search.Options{BatchSize: batch}
		s, err := search.NewSolver[State](search.AStar(), search.DomainHeuristic[State]{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		bad := 0
		for _, p := range small {
			want, ok := dist23[p.Root()]
			if p.Rows == 3 {
				want, ok = dist33[p.Root()]
			}
			res, err := s.Solve(context.Background(), p)
			if err != nil || !ok || !res.Solved || search.Replay[State](p, res.Actions) != nil || len(res.Actions) != want {
				if bad++; bad <= 5 {
					t.Errorf("batch %d: %s: solved %v in %d moves (%v); want %d", batch, p, res.Solved, len(res.Actions), err, want)
				}
			}
		}
		ls, err := search.NewSolver[LargeState](search.AStar(), search.DomainHeuristic[LargeState]{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range large {
			want := dist33[pack(p.Tiles(p.Root()))]
			res, err := ls.Solve(context.Background(), p)
			if err != nil || !res.Solved || search.Replay[LargeState](p, res.Actions) != nil || len(res.Actions) != want {
				if bad++; bad <= 5 {
					t.Errorf("batch %d: large %s: solved %v in %d moves (%v); want %d", batch, p, res.Solved, len(res.Actions), err, want)
				}
			}
		}
		if bad > 0 {
			t.Errorf("batch %d: %d of %d puzzles wrong", batch, bad, len(small)+len(large))
		}
	}
}
