package search_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// skewed is an evaluator of mazes with an uneven policy that depends on the
// cell (one action of some cells has probability 0) and the Manhattan
// distance as heuristic.
type skewed struct{}

func (skewed) Evaluate(p search.Problem[int32], states []int32, logPi, h []float64) error {
	for i, s := range states {
		row := logPi[i*4 : (i+1)*4]
		sum := 0.0
		for a := range row {
			w := float64((int(s)*7 + a*3) % 5) // 0 to 4
			row[a], sum = w, sum+w
		}
		for a, w := range row {
			row[a] = math.Log(w / sum)
		}
		h[i] = p.(*searchtest.Maze).Heuristic(s)
	}
	return nil
}

// tempered gives the policy of skewed at temperature t mixed with weight
// mix, computed from the probabilities: q = pi^(1/t) over its sum, then
// (1−mix)·q + mix/4.
type tempered struct{ t, mix float64 }

func (e tempered) Evaluate(p search.Problem[int32], states []int32, logPi, h []float64) error {
	skewed{}.Evaluate(p, states, logPi, h)
	for i := range states {
		row := logPi[i*4 : (i+1)*4]
		sum := 0.0
		for a, l := range row {
			row[a] = math.Pow(math.Exp(l), 1/e.t)
			sum += row[a]
		}
		for a, q := range row {
			row[a] = math.Log((1-e.mix)*q/sum + e.mix/4)
		}
	}
	return nil
}

// TestTemperature checks that a search with Options.Temperature t and
// Options.Mix ε behaves as the same search at temperature 1 without a mix
// with an evaluator whose policy is pi^(1/t) normalised and mixed: the
// same solution, the same expansions, and the same log-probabilities along
// it, for every algorithm that reads a policy. On 40 random mazes, 15
// with -short.
func TestTemperature(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	sq, err := search.Parse("sqrtlts:h:1")
	if err != nil {
		t.Fatal(err)
	}
	algs := []search.Algorithm{search.PHSStar(), search.PHSh(), search.LevinTS(), search.PHSSafe(), search.PUCT(1), sq}
	mazes := 40
	if testing.Short() {
		mazes = 15
	}
	for i := range mazes {
		m, _ := randomMaze(rng, 3+rng.IntN(8), 3+rng.IntN(8))
		for _, alg := range algs {
			for _, e := range []tempered{{0.5, 0}, {3, 0}, {1, 0.01}, {3, 0.3}} {
				temp := e.t
				for _, renorm := range []bool{false, true} {
					got, err := searchtest.Solve[int32](context.Background(), m, skewed{}, alg,
						search.Options{Temperature: temp, Mix: e.mix, Renormalize: renorm, BatchSize: 4, Budget: 5000})
					if err != nil {
						t.Fatal(err)
					}
					want, err := searchtest.Solve[int32](context.Background(), m, e, alg,
						search.Options{Renormalize: renorm, BatchSize: 4, Budget: 5000})
					if err != nil {
						t.Fatal(err)
					}
					name := func() string { return alg.String() + "\n" + m.String() }
					if got.Solved != want.Solved || !slices.Equal(got.Actions, want.Actions) ||
						got.Expansions != want.Expansions || got.Generated != want.Generated {
						t.Fatalf("maze %d, %s, T %g, mix %g, renormalize %v: solved %v %v, expansions %d, generated %d; want %v %v, %d, %d",
							i, name(), temp, e.mix, renorm, got.Solved, got.Actions, got.Expansions, got.Generated,
							want.Solved, want.Actions, want.Expansions, want.Generated)
					}
					if !got.Solved {
						continue
					}
					for k, l := range got.Trajectory.LogPi {
						if w := want.Trajectory.LogPi[k]; math.Abs(l-w) > 1e-9 {
							t.Errorf("maze %d, %s, T %g, mix %g: step %d: log pi %g, want %g", i, name(), temp, e.mix, k, l, w)
						}
					}
				}
			}
		}
	}
}

// TestTemperatureOptions checks which temperatures and mixes NewSolver
// takes.
func TestTemperatureOptions(t *testing.T) {
	for _, alg := range append(algorithms, search.PUCT(1)) {
		for _, temp := range []float64{-1, math.NaN(), math.Inf(1)} {
			if _, err := search.NewSolver[int32](alg, skewed{}, search.Options{Temperature: temp}); err == nil {
				t.Errorf("%v, temperature %g: no error", alg, temp)
			}
		}
		for _, temp := range []float64{0, 1} {
			if _, err := search.NewSolver[int32](alg, skewed{}, search.Options{Temperature: temp}); err != nil {
				t.Errorf("%v, temperature %g: %v", alg, temp, err)
			}
		}
		s, err := search.NewSolver[int32](alg, skewed{}, search.Options{Temperature: 2})
		if (err == nil) != alg.NeedsPolicy() {
			t.Errorf("%v, temperature 2: error %v", alg, err)
		}
		if err == nil && s.Options().Temperature != 2 {
			t.Errorf("%v: temperature %g, want 2", alg, s.Options().Temperature)
		}
	}
	for _, alg := range append(algorithms, search.PUCT(1)) {
		for _, mix := range []float64{-0.1, 1, math.NaN()} {
			if _, err := search.NewSolver[int32](alg, skewed{}, search.Options{Mix: mix}); err == nil {
				t.Errorf("%v, mix %g: no error", alg, mix)
			}
		}
		if _, err := search.NewSolver[int32](alg, skewed{}, search.Options{Mix: 0.01}); (err == nil) != alg.NeedsPolicy() {
			t.Errorf("%v, mix 0.01: error %v", alg, err)
		}
	}
	s, err := search.NewSolver[int32](search.PHSStar(), skewed{}, search.Options{})
	if err != nil || s.Options().Temperature != 1 {
		t.Errorf("default temperature %v, %v; want 1", s.Options().Temperature, err)
	}
}
