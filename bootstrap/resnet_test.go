package bootstrap_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/network"
	"github.com/phs-go/phs/search"
)

// TestResNetSTP trains the fully connected residual network, through a
// Network, with the Bootstrap process and PHS* on sliding-tile puzzles:
// random 2x3 ones, whose 6x2x3 encoding is too small for the paper's
// convolutions, and 3x3 ones. Training solves every puzzle; then the
// trained network solves at least 95% of them again (solutions replayed)
// within the last budget of training, with fewer expansions on average
// than PHS* without a network; and the run's checkpoint loads back as the
// same ResNet. With -short, on two thirds of the puzzles.
func TestResNetSTP(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n          int
		generate   func(*rand.Rand) *stp.Problem[stp.State]
		iterations int
	}{
		{"2x3", 160, func(rng *rand.Rand) *stp.Problem[stp.State] { return stp.GenerateRandom[stp.State](rng, 2, 3) }, 20},
		{"3x3", 100, func(rng *rand.Rand) *stp.Problem[stp.State] { return stp.GenerateWalk[stp.State](rng, 3, 3, 10, 30) }, 40},
	} {
		if testing.Short() {
			tc.n = tc.n * 2 / 3
		}
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(5, 6))
			var tasks []search.Task[stp.State]
			for len(tasks) < tc.n {
				if p := tc.generate(rng); !p.IsGoal(p.Root()) {
					tasks = append(tasks, search.Task[stp.State]{ID: fmt.Sprintf("%s#%d", tc.name, len(tasks)), Problem: p})
				}
			}
			alg := search.PHSStar()
			cfg := model.ConfigFor("stp", alg, tasks[0].Problem.(*stp.Problem[stp.State]))
			cfg.Arch, cfg.Units, cfg.Blocks, cfg.Hidden = model.ResNet, 32, 2, 32
			m, err := model.New(cfg, 1)
			if err != nil {
				t.Fatal(err)
			}
			net, err := network.NewLearner[stp.State](m, network.LearnerConfig{LearningRate: 3e-3, Seed: 2}, 1)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			run := bootstrap.Config{Algorithm: alg, Options: search.Options{Budget: 16}, ProblemsPerUpdate: 16, Limits: bootstrap.Limits{MaxIterations: tc.iterations}}
			metrics, err := bootstrap.Train(ctx, dir, tasks, net, run, bootstrap.Env{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			last := metrics[len(metrics)-1]
			if last.TotalSolved != len(tasks) || last.Updates == 0 {
				t.Fatalf("after %d iterations: %d of %d puzzles solved, %d updates", len(metrics), last.TotalSolved, len(tasks), last.Updates)
			}

			// solve returns how many tasks PHS* solves with ev within
			// budget, each solution replayed, and its mean expansions.
			solve := func(ev func() search.Evaluator[stp.State], budget int64) (int, float64) {
				solved, total := 0, int64(0)
				for _, task := range tasks {
					s, err := search.NewSolver(alg, ev(), search.Options{Budget: budget})
					if err != nil {
						t.Fatal(err)
					}
					res, err := s.Solve(ctx, task.Problem)
					if err != nil {
						t.Fatal(err)
					}
					total += res.Expansions
					if !res.Solved {
						continue
					}
					if err := search.Replay(task.Problem, res.Actions); err != nil {
						t.Fatalf("%s: %v", task.ID, err)
					}
					solved++
				}
				return solved, float64(total) / float64(len(tasks))
			}
			solved, learned := solve(func() search.Evaluator[stp.State] { return model.NewEvaluator[stp.State](m) }, last.Budget)
			usolved, uniform := solve(func() search.Evaluator[stp.State] { return search.Uniform[stp.State]{} }, last.Budget)
			t.Logf("%d iterations; within the last budget, %d, of %d puzzles: %d solved with the network, %d without; mean expansions %.1f with it, %.1f without",
				len(metrics), last.Budget, len(tasks), solved, usolved, learned, uniform)
			if solved < len(tasks)*95/100 || learned >= uniform {
				t.Errorf("the trained network solves %d of %d puzzles within %d expansions, with %.1f expansions on average (%.1f without a network)",
					solved, len(tasks), last.Budget, learned, uniform)
			}

			back, err := network.LoadLearner[stp.State](filepath.Join(dir, "checkpoint"), 1)
			if err != nil {
				t.Fatal(err)
			}
			if got := back.Model().Config(); got.Arch != model.ResNet || got.Units != 32 || got.Blocks != 2 {
				t.Errorf("the checkpoint's network: %+v", got)
			}
		})
	}
}
