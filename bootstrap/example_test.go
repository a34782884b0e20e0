package bootstrap_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/network"
	"github.com/phs-go/phs/search"
)

// room is a domain of the user's own: an agent walks in a 8x8 room with
// walls to a goal. A state is the agent's cell, which is also its key.
type room struct {
	walls       uint64 // bit r*8+c is set for a wall
	start, goal int8
}

const side = 8

func (p *room) Root() int8      { return p.start }
func (p *room) NumActions() int { return 4 } // U, D, L, R

// ActionName names the actions in solutions: "U", "D", "L", "R".
func (p *room) ActionName(a int) string { return "UDLR"[a : a+1] }
func (p *room) IsGoal(s int8) bool {
	return s == p.goal
}

func (p *room) Apply(s int8, a int) (int8, bool) {
	r, c := int(s)/side, int(s)%side
	switch a {
	case 0:
		r--
	case 1:
		r++
	case 2:
		c--
	default:
		c++
	}
	if r < 0 || r >= side || c < 0 || c >= side || p.walls&(1<<(r*side+c)) != 0 {
		return 0, false
	}
	return int8(r*side + c), true
}

// InputShape and Encode make room a search.Encoder: three planes of 8x8
// (walls, agent, goal), so that a network can learn it.
func (p *room) InputShape() (c, h, w int) { return 3, side, side }

func (p *room) Encode(s int8, dst []float32) {
	clear(dst)
	for i := range side * side {
		if p.walls&(1<<i) != 0 {
			dst[i] = 1
		}
	}
	dst[side*side+int(s)] = 1
	dst[2*side*side+int(p.goal)] = 1
}

// rooms returns n rooms whose goal can be reached.
func rooms(n int, rng *rand.Rand) []search.Task[int8] {
	bfs, err := search.NewSolver[int8](search.AStar(), search.Uniform[int8]{}, search.Options{})
	if err != nil {
		panic(err)
	}
	var tasks []search.Task[int8]
	for len(tasks) < n {
		p := &room{start: int8(rng.IntN(side * side)), goal: int8(rng.IntN(side * side))}
		for i := range side * side {
			if rng.IntN(4) == 0 && i != int(p.start) && i != int(p.goal) {
				p.walls |= 1 << i
			}
		}
		res, _ := bfs.Solve(context.Background(), p)
		if res.Solved && len(res.Actions) >= 4 {
			tasks = append(tasks, search.Task[int8]{ID: fmt.Sprintf("room#%d", len(tasks)), Problem: p})
		}
	}
	return tasks
}

// Example trains a heuristic network for A* on a domain defined outside
// phs, with the paper's Bootstrap process, and compares A* with the learned
// heuristic to A* without one.
func Example() {
	ctx := context.Background()
	tasks := rooms(64, rand.New(rand.NewPCG(1, 2)))
	alg := search.AStar()

	// The paper's network for A* (a heuristic head) on the rooms' encoding.
	net, err := model.New(model.ConfigFor("room", alg, tasks[0].Problem.(*room)), 1)
	if err != nil {
		panic(err)
	}
	// meanExpansions solves every task with A* and evaluator ev.
	meanExpansions := func(ev search.Evaluator[int8]) float64 {
		solver, err := search.NewSolver(alg, ev, search.Options{})
		if err != nil {
			panic(err)
		}
		var total int64
		err = search.SolveAll(ctx, tasks, []*search.Solver[int8]{solver}, func(i int, r search.Result[int8]) error {
			total += r.Expansions
			return nil
		})
		if err != nil {
			panic(err)
		}
		return float64(total) / float64(len(tasks))
	}
	uninformed := meanExpansions(search.Uniform[int8]{}) // h = 0

	dir, err := os.MkdirTemp("", "phs-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	learner, err := network.NewLearner[int8](net, network.LearnerConfig{LearningRate: 1e-3}, 1)
	if err != nil {
		panic(err)
	}
	cfg := bootstrap.Config{Algorithm: alg, Options: search.Options{Budget: 16}, Limits: bootstrap.Limits{MaxIterations: 20}}
	metrics, err := bootstrap.Train(ctx, dir, tasks, learner, cfg, bootstrap.Env{Workers: 1})
	if err != nil {
		panic(err)
	}
	last := metrics[len(metrics)-1]
	fmt.Println("every room solved within", cfg.MaxIterations, "iterations:", last.TotalSolved == len(tasks))
	learned := meanExpansions(model.NewEvaluator[int8](net))
	fmt.Println("fewer expansions with the learned h:", learned < uninformed)
	// Output:
	// every room solved within 20 iterations: true
	// fewer expansions with the learned h: true
}
