package bootstrap

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// A shortestMaze is a maze that shortens a solution to a shortest one,
// found by A* (the Manhattan distance is admissible), or fails with err.
type shortestMaze struct {
	*searchtest.Maze
	err error
}

func (m shortestMaze) Shorten(actions []int, limit int) ([]int, int, error) {
	if m.err != nil {
		return nil, 0, m.err
	}
	r, err := searchtest.Solve[int32](context.Background(), m.Maze, search.DomainHeuristic[int32]{}, search.AStar(), search.Options{})
	if err != nil || !r.Solved || len(r.Actions) > len(actions) {
		return nil, 0, errors.New("no shorter solution")
	}
	return r.Actions, int(r.Expansions), nil
}

// lengths is a learner that records the lengths of the trajectories it
// learns from, by problem.
type lengths struct {
	counts
	learned map[int]int
}

func (l *lengths) Learn(ctx context.Context, batch []Solution[int32]) (Update, error) {
	for _, s := range batch {
		l.learned[s.Index] = len(s.Trajectory.Actions)
		if len(s.Trajectory.States) != len(s.Trajectory.Actions) {
			return Update{}, errors.New("states and actions differ in number")
		}
	}
	return l.counts.Learn(ctx, batch)
}

// TestShortenLimit checks that with a shorten limit the learner learns
// from the shortened solutions, which the metrics count, and that a run
// refuses problems that do not shorten and stops at a Shortener's error.
func TestShortenLimit(t *testing.T) {
	mazes := mazes(24, 3)
	tasks := make([]search.Task[int32], len(mazes))
	for i, m := range mazes {
		tasks[i] = search.Task[int32]{ID: m.ID, Problem: shortestMaze{Maze: m.Problem.(*searchtest.Maze)}}
	}
	cfg := Config{Algorithm: search.Beam(1), Options: search.Options{Budget: 200}, ProblemsPerUpdate: 8, ShortenLimit: 1000, Limits: Limits{MaxIterations: 1}}
	l := &lengths{counts: counts{table: map[int32][]int64{}}, learned: map[int]int{}}
	metrics, err := Train(context.Background(), t.TempDir(), tasks, l, cfg, Env{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	it := metrics[0]
	if it.Solved == 0 || len(l.learned) != it.Solved {
		t.Fatalf("%d solved, %d learned", it.Solved, len(l.learned))
	}
	var sum int64
	for k, n := range l.learned {
		if want := searchtest.BFS[int32](tasks[k].Problem); n != want {
			t.Errorf("%s: learned from %d steps; shortest %d", tasks[k].ID, n, want)
		}
		sum += int64(n)
	}
	if it.LearnedSteps != sum || it.SolvedSteps <= it.LearnedSteps {
		t.Errorf("solved %d steps, learned %d; want the learned %d, fewer than the solved", it.SolvedSteps, it.LearnedSteps, sum)
	}

	cfg.ShortenLimit = 0
	metrics, err = Train(context.Background(), t.TempDir(), tasks, &counts{table: map[int32][]int64{}}, cfg, Env{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if it := metrics[0]; it.SolvedSteps != it.LearnedSteps || it.SolvedSteps == 0 {
		t.Errorf("without a limit: solved %d steps, learned %d; want the same", it.SolvedSteps, it.LearnedSteps)
	}

	cfg.ShortenLimit = 1000
	if _, err := Train(context.Background(), t.TempDir(), mazes, &counts{table: map[int32][]int64{}}, cfg, Env{Workers: 1}); err == nil || !strings.Contains(err.Error(), "not a Shortener") {
		t.Errorf("mazes that do not shorten: %v", err)
	}
	broken := make([]search.Task[int32], len(tasks))
	for i, m := range mazes {
		broken[i] = search.Task[int32]{ID: m.ID, Problem: shortestMaze{Maze: m.Problem.(*searchtest.Maze), err: errors.New("broken")}}
	}
	if _, err := Train(context.Background(), t.TempDir(), broken, &counts{table: map[int32][]int64{}}, cfg, Env{Workers: 1}); err == nil || !strings.Contains(err.Error(), "shorten: broken") {
		t.Errorf("a Shortener that fails: %v", err)
	}
	cfg.ShortenLimit = -1
	if err := cfg.Validate(); err == nil {
		t.Error("a negative shorten limit: no error")
	}
}
