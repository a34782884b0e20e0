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

// A mazeEvaluator is an evaluator of checkBeamMazes, and whether its
// policy is uniform, the one checkTrajectory expects.
type mazeEvaluator struct {
	ev      search.Evaluator[int32]
	uniform bool
}

// evaluate1 returns ev's policy and h of state s of m.
func evaluate1(t *testing.T, ev search.Evaluator[int32], m *searchtest.Maze, s int32) ([]float64, float64) {
	logPi, h := make([]float64, 4), make([]float64, 1)
	if err := ev.Evaluate(m, []int32{s}, logPi, h); err != nil {
		t.Fatal(err)
	}
	return logPi, h[0]
}

// checkBeamMazes checks the beam search alg(w) with each of evs against
// ref on 80 random mazes made from seed, for widths from 1 (a greedy
// descent) to wider than the maze (breadth-first search, which finds
// shortest solutions), in batches of 1, 3 and 32, and within a small
// budget; every solution is replayed, its trajectory checked if the
// policy is uniform, and extra, if not nil, checks each result.
func checkBeamMazes(t *testing.T, seed uint64, alg func(int) search.Algorithm, evs []mazeEvaluator,
	ref func(m *searchtest.Maze, ev search.Evaluator[int32], w int, budget int64) beamOutcome,
	extra func(name string, res search.Result[int32], w int)) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	var solved, exhausted, spent int
	for i := range 80 {
		m, opt := randomMaze(rng, 3+rng.IntN(9), 3+rng.IntN(9))
		for _, me := range evs {
			for _, w := range []int{1, 2, 3, 8, 200} {
				for _, batch := range []int{1, 3, 32} {
					for _, budget := range []int64{0, 6} {
						name := fmt.Sprintf("maze %d, %T, %v, batch %d, budget %d", i, me.ev, alg(w), batch, budget)
						res, err := searchtest.Solve[int32](context.Background(), m, me.ev, alg(w), search.Options{BatchSize: batch, Budget: budget})
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						got := beamOutcome{res.Solved, res.Exhausted, len(res.Actions), res.Expansions}
						if want := ref(m, me.ev, w, budget); got != want {
							t.Fatalf("%s: %+v, want %+v\n%s", name, got, want, m)
						}
						if extra != nil {
							extra(name, res, w)
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
							if me.uniform {
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

// TestBeamMazes checks beam search against refBeam on random mazes
// (checkBeamMazes), with the maze's Manhattan distance and with a
// scattered h.
func TestBeamMazes(t *testing.T) {
	checkBeamMazes(t, 5, search.Beam, []mazeEvaluator{{search.DomainHeuristic[int32]{}, true}, {scatter{}, true}},
		func(m *searchtest.Maze, ev search.Evaluator[int32], w int, budget int64) beamOutcome {
			h := func(s int32) float64 {
				_, h := evaluate1(t, ev, m, s)
				return h
			}
			return refBeam(m, h, w, budget)
		}, nil)
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
// random mazes (checkBeamMazes), with a uniform and a hashed policy; only
// the nodes of the beam are evaluated.
func TestPolicyBeamMazes(t *testing.T) {
	checkBeamMazes(t, 7, search.PolicyBeam, []mazeEvaluator{{search.Uniform[int32]{}, true}, {hashedPolicy{}, false}},
		func(m *searchtest.Maze, ev search.Evaluator[int32], w int, budget int64) beamOutcome {
			pol := func(s int32) []float64 {
				logPi, _ := evaluate1(t, ev, m, s)
				return logPi
			}
			return refPolicyBeam(m, pol, w, budget)
		},
		func(name string, res search.Result[int32], w int) {
			// The root, the layers expanded, and the last.
			if res.Evaluations > 1+res.Expansions+int64(w) {
				t.Fatalf("%s: %d evaluations of %d expansions", name, res.Evaluations, res.Expansions)
			}
		})
}
