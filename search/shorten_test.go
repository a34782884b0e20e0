package search_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// expandRecorder is a Problem that records the states its Apply is called on:
// the states a search expands (with Renormalize off).
type expandRecorder[S comparable] struct {
	p        search.Heuristic[S]
	expanded map[S]bool
}

func (r *expandRecorder[S]) Root() S               { return r.p.Root() }
func (r *expandRecorder[S]) NumActions() int       { return r.p.NumActions() }
func (r *expandRecorder[S]) IsGoal(s S) bool       { return r.p.IsGoal(s) }
func (r *expandRecorder[S]) Heuristic(s S) float64 { return r.p.Heuristic(s) }

func (r *expandRecorder[S]) Apply(s S, a int) (S, bool) {
	r.expanded[s] = true
	return r.p.Apply(s, a)
}

// graphBFS returns the length of a shortest path from p's root to goal
// that leaves only expanded states: the shortest path over the edges a
// search generated. It returns -1 if there is none.
func graphBFS[S comparable](p search.Problem[S], expanded map[S]bool, goal S) int {
	dist := map[S]int{p.Root(): 0}
	queue := []S{p.Root()}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if s == goal {
			return dist[s]
		}
		if !expanded[s] {
			continue
		}
		for a := range p.NumActions() {
			t, ok := p.Apply(s, a)
			if _, dup := dist[t]; ok && !dup {
				dist[t] = dist[s] + 1
				queue = append(queue, t)
			}
		}
	}
	return -1
}

// TestShorten checks on random mazes, against a breadth-first search of
// the edges the search generated, that Options.Shorten returns a shortest
// path over them, which solves the maze, and that it changes nothing else
// of the search.
func TestShorten(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	algs := []search.Algorithm{search.GBFS(), search.WAStar(3), search.PHSStar(), search.PHSh(), search.LevinTS(), search.AStar()}
	for _, name := range []string{"sqrtlts", "sqrtlts:h:10"} {
		alg, err := search.Parse(name)
		if err != nil {
			t.Fatal(err)
		}
		algs = append(algs, alg)
	}
	shorter := 0
	for trial := range 60 {
		m, _ := randomMaze(rng, 14, 14)
		for _, alg := range algs {
			for _, batch := range []int{1, 32} {
				opts := search.Options{BatchSize: batch}
				plain, err := searchtest.Solve[int32](context.Background(), m, search.DomainHeuristic[int32]{}, alg, opts)
				if err != nil {
					t.Fatal(err)
				}
				rec := &expandRecorder[int32]{p: m, expanded: map[int32]bool{}}
				opts.Shorten = true
				res, err := searchtest.Solve[int32](context.Background(), rec, search.DomainHeuristic[int32]{}, alg, opts)
				if err != nil {
					t.Fatal(err)
				}
				if !res.Solved || res.Expansions != plain.Expansions || res.Generated != plain.Generated || res.Evaluations != plain.Evaluations {
					t.Fatalf("maze %d, %v: %+v; without shorten %+v", trial, alg, res, plain)
				}
				if err := search.Replay[int32](m, res.Actions); err != nil {
					t.Fatalf("maze %d, %v: %v", trial, alg, err)
				}
				tr := res.Trajectory
				if len(tr.States) != len(res.Actions) || tr.States[0] != m.Root() || res.Cost != float64(len(res.Actions)) {
					t.Fatalf("maze %d, %v: trajectory %+v", trial, alg, tr)
				}
				for i, s := range tr.States[1:] {
					if next, _ := m.Apply(tr.States[i], tr.Actions[i]); next != s {
						t.Fatalf("maze %d, %v: trajectory step %d", trial, alg, i)
					}
				}
				goal, _ := m.Apply(tr.States[len(tr.States)-1], tr.Actions[len(tr.Actions)-1])
				want := graphBFS[int32](m, rec.expanded, goal)
				if len(res.Actions) != want || want > len(plain.Actions) {
					t.Fatalf("maze %d, %v, batch %d: %d moves, %d without shorten; shortest over the edges generated %d",
						trial, alg, batch, len(res.Actions), len(plain.Actions), want)
				}
				if want < len(plain.Actions) {
					shorter++
				}
			}
		}
	}
	if shorter == 0 {
		t.Error("no solution was shortened")
	}
	t.Logf("%d solutions shortened", shorter)
}

func TestShortenOptions(t *testing.T) {
	for _, alg := range []search.Algorithm{search.PHSSafe(), search.PUCT(1)} {
		if _, err := search.NewSolver[int32](alg, search.Uniform[int32]{}, search.Options{Shorten: true}); err == nil {
			t.Errorf("%v with Shorten: no error", alg)
		}
	}
}
