package cm_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/domain/rubiks"
	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/search"
)

// The domains' context sets.
var (
	_ cm.Contexter[stp.State]      = (*stp.Problem[stp.State])(nil)
	_ cm.Contexter[stp.LargeState] = (*stp.Problem[stp.LargeState])(nil)
	_ cm.Contexter[witness.State]  = (*witness.Problem)(nil)
	_ cm.Contexter[sokoban.State]  = (*sokoban.Problem)(nil)
	_ cm.Contexter[rubiks.State]   = (*rubiks.Problem)(nil)
)

// stpTasks returns n 3x3 puzzles from random walks of 15 to 30 moves.
func stpTasks(n int, seed uint64) []search.Task[stp.State] {
	rng := rand.New(rand.NewPCG(seed, 1))
	ts := make([]search.Task[stp.State], n)
	for i := range ts {
		ts[i] = search.Task[stp.State]{ID: "walk", Problem: stp.GenerateWalk[stp.State](rng, 3, 3, 15, 30)}
	}
	return ts
}

// totalExpansions returns the expansions of LevinTS with ev on tasks,
// at most 20,000 per problem, and the number solved.
func totalExpansions[S comparable](t *testing.T, tasks []search.Task[S], ev search.Evaluator[S]) (int64, int) {
	s, err := search.NewSolver[S](search.LevinTS(), ev, search.Options{Budget: 20000, BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	solved := 0
	err = search.SolveAll(context.Background(), tasks, []*search.Solver[S]{s}, func(i int, r search.Result[S]) error {
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
// expansions than the uniform policy. With -short, it trains on 30
// puzzles, 10 per update, and tests on 10.
func TestSlidingTile(t *testing.T) {
	train, test, perUpdate := stpTasks(60, 1), stpTasks(30, 2), 20
	if testing.Short() {
		train, test, perUpdate = train[:30], test[:10], 10
	}
	l, err := cm.LayoutOf(train[0].Problem)
	if err != nil {
		t.Fatal(err)
	}
	lr, err := cm.NewLearner[stp.State](l, cm.LearnerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := bootstrap.Config{Algorithm: search.LevinTS(), Options: search.Options{Budget: 500, BatchSize: 1}, ProblemsPerUpdate: perUpdate, Limits: bootstrap.Limits{MaxIterations: 6}}
	metrics, err := bootstrap.Train(context.Background(), t.TempDir(), train, lr, cfg, bootstrap.Env{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ev := cm.NewEvaluator[stp.State](lr.Table())
	learned, ls := totalExpansions(t, test, ev)
	uniform, us := totalExpansions(t, test, search.Uniform[stp.State]{})
	t.Logf("%d iterations, %d of %d solved, %d rows; test: %d solved in %d expansions, uniform %d in %d",
		len(metrics), metrics[len(metrics)-1].TotalSolved, len(train), lr.Table().Rows(), ls, learned, us, uniform)
	if ls < us || ls == us && learned >= uniform {
		t.Errorf("the context model (%d solved, %d expansions) is no better than the uniform policy (%d, %d)", ls, learned, us, uniform)
	}
}

// train trains a context model on tasks through bootstrap.Train with
// budget b, and returns its learner and the expansions and solved counts
// of the model (without mixing) and of the uniform policy on test.
func train[S comparable](t *testing.T, tasks, test []search.Task[S], b int64) (*cm.Learner[S], [2]int64, [2]int) {
	l, err := cm.LayoutOf(tasks[0].Problem)
	if err != nil {
		t.Fatal(err)
	}
	lr, err := cm.NewLearner[S](l, cm.LearnerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := bootstrap.Config{Algorithm: search.LevinTS(), Options: search.Options{Budget: b, BatchSize: 1}, ProblemsPerUpdate: 20, Limits: bootstrap.Limits{MaxIterations: 6}}
	metrics, err := bootstrap.Train(context.Background(), t.TempDir(), tasks, lr, cfg, bootstrap.Env{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d iterations, %d of %d solved, %d rows", len(metrics), metrics[len(metrics)-1].TotalSolved, len(tasks), lr.Table().Rows())
	ev := cm.NewEvaluator[S](lr.Table())
	var exp [2]int64
	var solved [2]int
	exp[0], solved[0] = totalExpansions(t, test, ev)
	exp[1], solved[1] = totalExpansions(t, test, search.Uniform[S]{})
	return lr, exp, solved
}

// TestWitness trains a context model on generated 3x3 puzzles and tests
// it on others: it solves them with a third fewer expansions than the
// uniform policy, or more of them. On 100 puzzles and 50, half as many
// with -short.
func TestWitness(t *testing.T) {
	n := 100
	if testing.Short() {
		n = 50
	}
	tasks := func(n int, seed uint64) []search.Task[witness.State] {
		var ts []search.Task[witness.State]
		for _, p := range witness.GenerateSet(rand.New(rand.NewPCG(seed, 1)), n, 3, 3) {
			ts = append(ts, search.Task[witness.State]{ID: p.ID, Problem: p})
		}
		return ts
	}
	_, exp, solved := train(t, tasks(n, 1), tasks(n/2, 2), 200)
	t.Logf("test: %d solved in %d expansions, uniform %d in %d", solved[0], exp[0], solved[1], exp[1])
	if solved[0] < solved[1] || solved[0] == solved[1] && 3*exp[0] > 2*exp[1] {
		t.Errorf("the context model is no better than the uniform policy")
	}
}

// TestRubiks trains a context model on scrambles of 1 to 5 turns and
// tests it on others: it solves them with a third fewer expansions than
// the uniform policy, or more of them. On 60 scrambles and 30, half as
// many with -short.
func TestRubiks(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 30
	}
	tasks := func(n int, seed uint64) []search.Task[rubiks.State] {
		rng := rand.New(rand.NewPCG(seed, 1))
		ts := make([]search.Task[rubiks.State], n)
		for i := range ts {
			ts[i] = search.Task[rubiks.State]{ID: "scramble", Problem: rubiks.GenerateScramble(rng, 1, 5)}
		}
		return ts
	}
	_, exp, solved := train(t, tasks(n, 1), tasks(n/2, 2), 2000)
	t.Logf("test: %d solved in %d expansions, uniform %d in %d", solved[0], exp[0], solved[1], exp[1])
	if solved[0] < solved[1] || solved[0] == solved[1] && 3*exp[0] > 2*exp[1] {
		t.Errorf("the context model is no better than the uniform policy")
	}
}

// BenchmarkEvaluateSlidingTile measures the policy of a context model
// on 5x5 puzzles (102 contexts per state, all known) at batch 32.
func BenchmarkEvaluateSlidingTile(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	p := stp.GenerateRandom[stp.State](rng, 5, 5)
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
