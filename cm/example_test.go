package cm_test

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"os"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/search"
)

// Train a context model on 8-puzzles with the Bootstrap process, its
// searches mixing the uniform policy into the model's as the reference's
// do, then search a new puzzle with it, without mixing, and with the
// uniform policy.
func Example() {
	rng := rand.New(rand.NewPCG(1, 1))
	var tasks []search.Task[stp.State]
	for range 40 {
		tasks = append(tasks, search.Task[stp.State]{Problem: stp.GenerateWalk[stp.State](rng, 3, 3, 15, 30)})
	}
	layout, err := cm.LayoutOf(tasks[0].Problem)
	if err != nil {
		log.Fatal(err)
	}
	learner, err := cm.NewLearner[stp.State](layout, cm.LearnerConfig{})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "cm-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := bootstrap.Config{
		Algorithm:         search.LevinTS(),
		Options:           search.Options{Budget: 500, BatchSize: 1, Mix: cm.DefaultTrainMix},
		ProblemsPerUpdate: 20,
		Limits:            bootstrap.Limits{MaxIterations: 4},
	}
	if _, err := bootstrap.Train(context.Background(), dir, tasks, learner, cfg, bootstrap.Env{Workers: 2}); err != nil {
		log.Fatal(err)
	}

	p := stp.GenerateWalk[stp.State](rng, 3, 3, 30, 30)
	model := cm.NewEvaluator[stp.State](learner.Table())
	var expansions [2]int64
	for i, ev := range []search.Evaluator[stp.State]{model, search.Uniform[stp.State]{}} {
		s, err := search.NewSolver[stp.State](search.LevinTS(), ev, search.Options{BatchSize: 1})
		if err != nil {
			log.Fatal(err)
		}
		r, err := s.Solve(context.Background(), p)
		if err != nil || !r.Solved {
			log.Fatal(r, err)
		}
		expansions[i] = r.Expansions
	}
	fmt.Println("the context model expands fewer nodes:", expansions[0] < expansions[1])
	// Output: the context model expands fewer nodes: true
}
