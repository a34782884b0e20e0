package search_test

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// scatter is an evaluator of mazes with a uniform policy and an h that
// hashes the state into a few values: many ties, in no order of the maze.
type scatter struct{}

func (scatter) Evaluate(_ search.Problem[int32], states []int32, logPi, h []float64) error {
	for i, s := range states {
		h[i] = float64(uint32(s) * 2654435761 >> 29)
	}
	for i := range logPi {
		logPi[i] = -1.3862943611198906 // log 1/4
	}
	return nil
}

// beamOutcome is what refBeam and the engine are compared on.
type beamOutcome struct {
	solved, exhausted bool
	length            int
	expansions        int64
}

// refBeam is beam search as Beam's contract states it, written apart from
// the engine with a map and a stable sort: it returns the outcome of a
// search of width w within budget expansions (0: none), h the heuristic.
func refBeam(p search.Problem[int32], h func(int32) float64, w int, budget int64) beamOutcome {
	root := p.Root()
	if p.IsGoal(root) {
		return beamOutcome{solved: true}
	}
	type item struct {
		s int32
		h float64
	}
	seen := map[int32]bool{root: true}
	layer := []item{{s: root}}
	var out beamOutcome
	for depth := 1; ; depth++ {
		var kids []item
		for _, it := range layer {
			if budget > 0 && out.expansions >= budget {
				return out
			}
			out.expansions++
			for a := range p.NumActions() {
				t, ok := p.Apply(it.s, a)
				if !ok || seen[t] {
					continue
				}
				seen[t] = true
				if p.IsGoal(t) {
					out.solved, out.length = true, depth
					return out
				}
				kids = append(kids, item{t, h(t)})
			}
		}
		if len(kids) == 0 {
			out.exhausted = true
			return out
		}
		slices.SortStableFunc(kids, func(a, b item) int {
			switch {
			case a.h < b.h:
				return -1
			case a.h > b.h:
				return 1
			}
			return 0
		})
		layer = kids[:min(w, len(kids))]
	}
}

// TestBeamMazes checks beam search against refBeam on random mazes, for
// widths from 1 (a greedy descent) to wider than the maze (breadth-first
// search, which finds shortest solutions), in batches of 1, 3 and 32,
// with the maze's Manhattan distance and with a scattered h, and within a
// small budget; every solution is replayed.
func TestBeamMazes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var solved, exhausted, spent int
	for i := range 80 {
		m, opt := randomMaze(rng, 3+rng.IntN(9), 3+rng.IntN(9))
		for _, ev := range []search.Evaluator[int32]{search.DomainHeuristic[int32]{}, scatter{}} {
			h := func(s int32) float64 {
				logPi, hs := make([]float64, 4), make([]float64, 1)
				if err := ev.Evaluate(m, []int32{s}, logPi, hs); err != nil {
					t.Fatal(err)
				}
				return hs[0]
			}
			for _, w := range []int{1, 2, 3, 8, 200} {
				for _, batch := range []int{1, 3, 32} {
					for _, budget := range []int64{0, 6} {
						name := fmt.Sprintf("maze %d, %T, width %d, batch %d, budget %d", i, ev, w, batch, budget)
						res, err := searchtest.Solve[int32](context.Background(), m, ev, search.Beam(w), search.Options{BatchSize: batch, Budget: budget})
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						got := beamOutcome{res.Solved, res.Exhausted, len(res.Actions), res.Expansions}
						if want := refBeam(m, h, w, budget); got != want {
							t.Fatalf("%s: %+v, want %+v\n%s", name, got, want, m)
						}
						switch {
						case res.Solved:
							solved++
							if err := search.Replay[int32](m, res.Actions); err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							if res.Cost != float64(len(res.Actions)) || w == 200 && len(res.Actions) != opt {
								t.Fatalf("%s: length %d, cost %g, optimum %d", name, len(res.Actions), res.Cost, opt)
							}
							if ev == (search.DomainHeuristic[int32]{}) {
								checkTrajectory(t, name, m, res)
							}
						case res.Exhausted:
							exhausted++
						default:
							spent++
						}
					}
				}
			}
		}
	}
	// The comparisons cover every way a beam ends.
	if solved == 0 || exhausted == 0 || spent == 0 {
		t.Errorf("%d solved, %d exhausted, %d out of budget", solved, exhausted, spent)
	}
}

// hashedPolicy is an evaluator of mazes with a policy that hashes the state
// and the action into a few probabilities (ties among a state's actions
// and across states) and h = 0.
type hashedPolicy struct{}

func (hashedPolicy) Evaluate(_ search.Problem[int32], states []int32, logPi, h []float64) error {
	for i, s := range states {
		w := [4]float64{}
		sum := 0.0
		for a := range w {
			w[a] = float64(1 + (uint32(s)*2654435761+uint32(a)*40503)>>30)
			sum += w[a]
		}
		for a := range w {
			logPi[4*i+a] = math.Log(w[a] / sum)
		}
		h[i] = 0
	}
	return nil
}

// refPolicyBeam is policy beam search as PolicyBeam's contract states
// it, written apart from the engine with a map and a stable sort: it
// returns the outcome of a search of width w within budget expansions
// (0: none), pol the policy (rounded to float32, as the engine keeps it).
func refPolicyBeam(p search.Problem[int32], pol func(int32) []float64, w int, budget int64) beamOutcome {
	root := p.Root()
	if p.IsGoal(root) {
		return beamOutcome{solved: true}
	}
	type item struct {
		s  int32
		lp float64
	}
	type cand struct {
		lp   float64
		i, a int
	}
	seen := map[int32]bool{root: true}
	layer := []item{{s: root}}
	var out beamOutcome
	for depth := 1; ; depth++ {
		var cands []cand
		for i, it := range layer {
			if budget > 0 && out.expansions >= budget {
				return out
			}
			out.expansions++
			for a, lp := range pol(it.s) {
				cands = append(cands, cand{it.lp + float64(float32(lp)), i, a})
			}
		}
		slices.SortStableFunc(cands, func(x, y cand) int { return cmp.Compare(y.lp, x.lp) })
		var next []item
		for _, c := range cands {
			if len(next) == w {
				break
			}
			t, ok := p.Apply(layer[c.i].s, c.a)
			if !ok || seen[t] {
				continue
			}
			seen[t] = true
			if p.IsGoal(t) {
				out.solved, out.length = true, depth
				return out
			}
			next = append(next, item{t, c.lp})
		}
		if len(next) == 0 {
			out.exhausted = true
			return out
		}
		layer = next
	}
}

// TestPolicyBeamMazes checks policy beam search against refPolicyBeam on
// random mazes, for widths from 1 to wider than the maze (with a uniform
// policy, breadth-first search, which finds shortest solutions), in
// batches of 1, 3 and 32, with a uniform and a hashedPolicy policy, and within
// a small budget; every solution is replayed, and only the nodes of the
// beam are evaluated.
func TestPolicyBeamMazes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var solved, exhausted, spent int
	for i := range 80 {
		m, opt := randomMaze(rng, 3+rng.IntN(9), 3+rng.IntN(9))
		for _, ev := range []search.Evaluator[int32]{search.Uniform[int32]{}, hashedPolicy{}} {
			pol := func(s int32) []float64 {
				logPi, hs := make([]float64, 4), make([]float64, 1)
				if err := ev.Evaluate(m, []int32{s}, logPi, hs); err != nil {
					t.Fatal(err)
				}
				return logPi
			}
			for _, w := range []int{1, 2, 3, 8, 200} {
				for _, batch := range []int{1, 3, 32} {
					for _, budget := range []int64{0, 6} {
						name := fmt.Sprintf("maze %d, %T, width %d, batch %d, budget %d", i, ev, w, batch, budget)
						res, err := searchtest.Solve[int32](context.Background(), m, ev, search.PolicyBeam(w), search.Options{BatchSize: batch, Budget: budget})
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						got := beamOutcome{res.Solved, res.Exhausted, len(res.Actions), res.Expansions}
						if want := refPolicyBeam(m, pol, w, budget); got != want {
							t.Fatalf("%s: %+v, want %+v\n%s", name, got, want, m)
						}
						// The root, the layers expanded, and the last.
						if res.Evaluations > 1+res.Expansions+int64(w) {
							t.Fatalf("%s: %d evaluations of %d expansions", name, res.Evaluations, res.Expansions)
						}
						switch {
						case res.Solved:
							solved++
							if err := search.Replay[int32](m, res.Actions); err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							if res.Cost != float64(len(res.Actions)) || w == 200 && ev == (search.Uniform[int32]{}) && len(res.Actions) != opt {
								t.Fatalf("%s: length %d, cost %g, optimum %d", name, len(res.Actions), res.Cost, opt)
							}
							if ev == (search.Uniform[int32]{}) {
								checkTrajectory(t, name, m, res)
							}
						case res.Exhausted:
							exhausted++
						default:
							spent++
						}
					}
				}
			}
		}
	}
	if solved == 0 || exhausted == 0 || spent == 0 {
		t.Errorf("%d solved, %d exhausted, %d out of budget", solved, exhausted, spent)
	}
}
