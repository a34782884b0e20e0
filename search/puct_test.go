package search_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

func TestPUCTMazes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 40 {
		m, opt := randomMaze(rng, 3+rng.IntN(4), 3+rng.IntN(4))
		for _, batch := range []int{1, 32} {
			for _, ev := range []search.Evaluator[int32]{search.Uniform[int32]{}, search.DomainHeuristic[int32]{}} {
				name := fmt.Sprintf("maze %d batch %d %T", i, batch, ev)
				res, err := search.PUCT[int32](context.Background(), m, ev, search.PUCTOptions{Options: search.Options{BatchSize: batch, Budget: 200000}})
				if err != nil || !res.Solved {
					t.Fatalf("%s: solved %v, %v\n%s", name, res.Solved, err, m)
				}
				if err := searchtest.Replay[int32](m, res.Actions); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(res.Actions) < opt || res.Cost != float64(len(res.Actions)) {
					t.Fatalf("%s: length %d, cost %g, optimum %d", name, len(res.Actions), res.Cost, opt)
				}
				checkTrajectory(t, name, m, res)
			}
		}
	}
}

func TestPUCTLimits(t *testing.T) {
	ctx := context.Background()
	for _, budget := range []int64{1, 5, 100} {
		res, err := search.PUCT[int64](ctx, counter{}, search.Uniform[int64]{}, search.PUCTOptions{Options: search.Options{Budget: budget}})
		if err != nil || res.Solved || res.Expansions != budget {
			t.Errorf("budget %d: %d expansions, %v", budget, res.Expansions, err)
		}
	}
	walled := searchtest.ParseMaze("S.#.", "..#G")
	res, err := search.PUCT[int32](ctx, walled, search.Uniform[int32]{}, search.PUCTOptions{Options: search.Options{Budget: 500}})
	if err != nil || res.Solved || res.Expansions != 500 {
		t.Errorf("unsolvable maze: %+v, %v", res, err)
	}
	lres, err := search.PUCT[int64](ctx, line{}, search.Uniform[int64]{}, search.PUCTOptions{})
	if err != nil || lres.Solved || !lres.Exhausted || lres.Expansions != 4 {
		t.Errorf("finite tree without a goal: %+v, %v", lres, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := search.PUCT[int64](cctx, counter{}, search.Uniform[int64]{}, search.PUCTOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	boom := errors.New("boom")
	if _, err := search.PUCT[int32](ctx, walled, failing{boom}, search.PUCTOptions{}); !errors.Is(err, boom) {
		t.Errorf("failing evaluator: %v", err)
	}
}

// TestPUCTGuided checks that a good policy makes PUCT find the goal of the
// chain tree much faster than a uniform one.
func TestPUCTGuided(t *testing.T) {
	c := chain{[]int{3, 1, 2, 0, 3, 3, 1, 2}}
	res, err := search.PUCT[path](context.Background(), c, guide{c, 0.97}, search.PUCTOptions{Options: search.Options{BatchSize: 1}})
	if err != nil || !res.Solved {
		t.Fatal(res, err)
	}
	ures, err := search.PUCT[path](context.Background(), c, search.Uniform[path]{}, search.PUCTOptions{Options: search.Options{BatchSize: 1, Budget: 1e6}})
	if err != nil {
		t.Fatal(err)
	}
	if 4*res.Expansions > ures.Expansions {
		t.Errorf("%d expansions with a near-perfect policy, %d with a uniform one", res.Expansions, ures.Expansions)
	}
}

func BenchmarkPUCTMaze(b *testing.B) {
	m, _ := randomMaze(rand.New(rand.NewPCG(7, 7)), 8, 8)
	var exp int64
	for b.Loop() {
		res, err := search.PUCT[int32](context.Background(), m, search.DomainHeuristic[int32]{}, search.PUCTOptions{})
		if err != nil || !res.Solved {
			b.Fatal(err)
		}
		exp += res.Expansions
	}
	b.ReportMetric(float64(exp)/b.Elapsed().Seconds(), "exp/s")
}

// line is a finite problem without a goal: 0 → 1 → 2 → 3.
type line struct{}

func (line) Root() int64       { return 0 }
func (line) NumActions() int   { return 2 }
func (line) IsGoal(int64) bool { return false }
func (line) Apply(s int64, a int) (int64, bool) {
	return s + 1, a == 1 && s < 3
}
