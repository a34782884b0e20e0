package cm_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/search"
)

// The domains' context sets.
var (
	_ cm.Contexter[stp.State]      = (*stp.Problem)(nil)
	_ cm.Contexter[stp.LargeState] = (*stp.LargeProblem)(nil)
)

// stpTasks returns n 3x3 puzzles from random walks of 15 to 30 moves.
func stpTasks(n int, seed uint64) []search.Task[stp.State] {
	rng := rand.New(rand.NewPCG(seed, 1))
	ts := make([]search.Task[stp.State], n)
	for i := range ts {
		ts[i] = search.Task[stp.State]{ID: "walk", Problem: stp.GenerateWalk(rng, 3, 3, 15, 30)}
	}
	return ts
}

func totalExpansions(t *testing.T, tasks []search.Task[stp.State], ev search.Evaluator[stp.State]) (int64, int) {
	s, err := search.NewSolver[stp.State](search.LevinTS(), ev, search.Options{Budget: 20000, BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	solved := 0
	err = search.SolveAll(context.Background(), tasks, []*search.Solver[stp.State]{s}, func(i int, r search.Result[stp.State]) error {
		n += r.Expansions
		if r.Solved {
			solved++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n, solved
}

// TestSlidingTile trains a context model on 3x3 puzzles through
// bootstrap.Train and tests it on others: it solves them with fewer
// expansions than the uniform policy.
func TestSlidingTile(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for a few seconds")
	}
	train, test := stpTasks(60, 1), stpTasks(30, 2)
	l, err := cm.LayoutOf(train[0].Problem)
	if err != nil {
		t.Fatal(err)
	}
	lr, err := cm.NewLearner[stp.State](l, cm.LearnerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := bootstrap.Config{Algorithm: search.LevinTS(), Options: search.Options{Budget: 500, BatchSize: 1}, ProblemsPerUpdate: 20, Limits: bootstrap.Limits{MaxIterations: 6}}
	metrics, err := bootstrap.Train(context.Background(), t.TempDir(), train, lr, cfg, bootstrap.Env{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := cm.NewEvaluator[stp.State](lr.Table(), 0)
	if err != nil {
		t.Fatal(err)
	}
	learned, ls := totalExpansions(t, test, ev)
	uniform, us := totalExpansions(t, test, search.Uniform[stp.State]{})
	t.Logf("%d iterations, %d of %d solved, %d rows; test: %d solved in %d expansions, uniform %d in %d",
		len(metrics), metrics[len(metrics)-1].TotalSolved, len(train), lr.Table().Rows(), ls, learned, us, uniform)
	if ls < us || ls == us && learned >= uniform {
		t.Errorf("the context model (%d solved, %d expansions) is no better than the uniform policy (%d, %d)", ls, learned, us, uniform)
	}
}

// BenchmarkEvaluateSlidingTile measures the policy of a context model
// on 5x5 puzzles (101 contexts per state, all known) at batch 32.
func BenchmarkEvaluateSlidingTile(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	p := stp.GenerateRandom(rng, 5, 5)
	l, _ := cm.LayoutOf[stp.State](p)
	lr, _ := cm.NewLearner[stp.State](l, cm.LearnerConfig{OptimizerConfig: cm.OptimizerConfig{MaxSteps: 1}})
	states := []stp.State{p.Root()}
	for len(states) < 32 {
		if s, ok := p.Apply(states[len(states)-1], rng.IntN(4)); ok {
			states = append(states, s)
		}
	}
	tr := &search.Trajectory[stp.State]{States: states, Actions: make([]int, len(states))}
	if _, err := lr.Learn(context.Background(), []bootstrap.Solution[stp.State]{{Problem: p, Trajectory: tr}}); err != nil {
		b.Fatal(err)
	}
	ev := lr.Snapshot().NewEvaluator()
	logPi, h := make([]float64, 4*len(states)), make([]float64, len(states))
	for b.Loop() {
		if err := ev.Evaluate(p, states, logPi, h); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(states)*b.N)/b.Elapsed().Seconds(), "states/s")
}
