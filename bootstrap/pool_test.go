package bootstrap

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// A relayPool delivers what relay makes of each report of its local
// workers, until ctx is done.
type relayPool struct {
	*localWorkers[int32]
	out chan Report
}

func (p *relayPool) Reports() <-chan Report { return p.out }

func newRelayPool(ctx context.Context, t *testing.T, tasks []search.Task[int32], cfg *Config, m *model.Model, relay func(Report) []Report) *relayPool {
	lw, err := startLocal(ctx, tasks, 2, 2*cfg.ProblemsPerUpdate+2, cfg.Algorithm, cfg.Options, TestNetworkSnapshot(m.Clone()))
	if err != nil {
		t.Fatal(err)
	}
	p := &relayPool{lw, make(chan Report)}
	go func() {
		for {
			select {
			case rep := <-lw.Reports():
				for _, r := range relay(rep) {
					select {
					case p.out <- r:
					case <-ctx.Done():
						return
					}
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return p
}

// noisy returns, around rep, the reports a learner must drop or reject:
// of another run, of another iteration, of another problem, duplicates,
// and, for every third position, a solution that does not reach the goal
// first.
func noisy(rep Report) []Report {
	other, later, wrong, bad := rep, rep, rep, rep
	other.Run += "x"
	later.Iteration++
	wrong.Problem++
	bad.Solved, bad.Actions = true, []int{0}
	reps := []Report{other, later, wrong}
	if rep.Pos%3 == 0 {
		reps = append(reps, bad)
	}
	return append(reps, rep, rep)
}

// TestPoolReports checks that the learner counts one report per problem
// and iteration whatever else the pool delivers, and counts a solution
// that does not replay to the goal as unsolved, with a warning.
func TestPoolReports(t *testing.T) {
	tasks := mazes(40, 8)
	s := newSetup(t, "levints")
	s.cfg.Async, s.cfg.MaxIterations = true, 2
	var log bytes.Buffer
	s.env.Logger = slog.New(slog.NewTextHandler(&log, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.env.Pool = newRelayPool(ctx, t, tasks, &s.cfg, newModel(t, "levints"), noisy)
	_, metrics, err := s.train(t, context.Background(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range metrics {
		if it.Attempted != len(tasks) {
			t.Errorf("iteration %d: %d attempted, want %d", it.Iteration, it.Attempted, len(tasks))
		}
		if max := len(tasks) - (len(tasks)+2)/3; it.Solved > max {
			t.Errorf("iteration %d: %d solved; at most %d can be, a third of the problems having a bad solution", it.Iteration, it.Solved, max)
		}
	}
	for _, want := range []string{"report rejected", "report dropped: wrong problem"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q", want)
		}
	}
}

// TestPoolForgedCounts checks that reports whose counts cannot be those of
// a search within the budget are counted as unsolved, with counts within
// bounds, and that a forged snapshot version gives no staleness beyond
// the run's updates.
func TestPoolForgedCounts(t *testing.T) {
	tasks := mazes(24, 8)
	s := newSetup(t, "levints")
	s.cfg.Async, s.cfg.MaxIterations = true, 1
	var log bytes.Buffer
	s.env.Logger = slog.New(slog.NewTextHandler(&log, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.env.Pool = newRelayPool(ctx, t, tasks, &s.cfg, newModel(t, "levints"), func(rep Report) []Report {
		switch rep.Pos % 4 {
		case 0:
			rep.Solved, rep.Actions, rep.Expansions, rep.Evaluations = false, nil, 9e18, 9e18
		case 1:
			rep.Evaluations = 1e15
		case 2:
			rep.Version = -9e18
		}
		return []Report{rep}
	})
	_, metrics, err := s.train(t, context.Background(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	it := metrics[0]
	budget := s.cfg.Options.Budget
	if max := int64(len(tasks)) * budget; it.Expansions > max || it.Evaluations > (max+int64(len(tasks)))*4 {
		t.Errorf("%d expansions and %d evaluations, beyond %d problems of a budget of %d", it.Expansions, it.Evaluations, len(tasks), budget)
	}
	if it.MaxStaleness > len(tasks)/s.cfg.ProblemsPerUpdate {
		t.Errorf("staleness %d with %d updates", it.MaxStaleness, len(tasks)/s.cfg.ProblemsPerUpdate)
	}
	for _, want := range []string{"expansions for a budget of", "evaluations in"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q", want)
		}
	}
}

// TestPoolError checks that a search that fails in a pool stops the run
// with its error.
func TestPoolError(t *testing.T) {
	tasks := mazes(8, 8)
	s := newSetup(t, "levints")
	s.cfg.Async = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.env.Pool = newRelayPool(ctx, t, tasks, &s.cfg, newModel(t, "levints"), func(rep Report) []Report {
		rep.Err, rep.Worker = "out of luck", "w1"
		return []Report{rep}
	})
	if _, _, err := s.train(t, ctx, tasks); err == nil || !strings.Contains(err.Error(), "worker w1: out of luck") {
		t.Errorf("Train: %v, want the worker's error", err)
	}
}

// TestLocalQueue checks that the local workers go on searching while the
// learner reads no reports, as it does while it learns: a whole window of
// jobs is taken and searched without a report read.
func TestLocalQueue(t *testing.T) {
	tasks := mazes(8, 8)
	m := newModel(t, "levints")
	s := newSetup(t, "levints")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	window := 2*s.cfg.ProblemsPerUpdate + 2
	lw, err := startLocal(ctx, tasks, 2, window, s.cfg.Algorithm, s.cfg.Options, TestNetworkSnapshot(m))
	if err != nil {
		t.Fatal(err)
	}
	defer lw.wait()
	defer cancel()
	for pos := range window {
		if err := lw.Submit(ctx, Job{Pos: pos, Problem: pos % len(tasks), Budget: 1000}); err != nil {
			t.Fatalf("job %d of a window of %d: %v (the workers wait for the learner)", pos, window, err)
		}
	}
	for range window {
		<-lw.Reports()
	}
}
