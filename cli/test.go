package cli

import (
	"context"
	"flag"
	"io"
	"math"
	"sync/atomic"
	"time"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/search"
)

// testConfig is the configuration of "phs test".
type testConfig struct {
	searchConfig
	timeLimit time.Duration
	rounds    int
}

// defaultRounds is the default round limit of "phs test": with the budget
// doubled every round, the last round's budget is 512 times the first's
// (about a million expansions for the paper's budgets).
const defaultRounds = 10

func runTest(ctx context.Context, e *env, args []string) error {
	var cfg testConfig
	fs := newFlagSet("test", "FILES...", e.stdout)
	cfg.register(fs, searchGroups, e.names, &cfg.opts)
	fs.DurationVar(&cfg.timeLimit, "time", 0, "start no round after this much time (0: no limit)")
	fs.IntVar(&cfg.rounds, "rounds", defaultRounds, "at most this many rounds (0: no limit)")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := cfg.setup(e, fs, files); err != nil {
		return err
	}
	return cfg.d.test(ctx, &cfg, files, e.stdout, e.stderr)
}

// setup is searchConfig.setup, then the test's own flags.
func (cfg *testConfig) setup(e *env, fs *flag.FlagSet, files []string) error {
	if err := cfg.searchConfig.setup("test", e, fs, files); err != nil {
		return err
	}
	switch {
	case cfg.timeLimit < 0:
		return usagef("test: -time %v: want >= 0 (0: no limit)", cfg.timeLimit)
	case cfg.rounds < 0:
		return usagef("test: -rounds %d: want >= 0 (0: no limit)", cfg.rounds)
	}
	return nil
}

// bootstrapTestConfig returns the library's configuration of the test;
// the first round's budget is that of the solvers (newSolvers).
func (cfg *testConfig) bootstrapTestConfig() bootstrap.TestConfig {
	return bootstrap.TestConfig{TimeLimit: cfg.timeLimit, MaxRounds: cfg.rounds, Logger: cfg.log}
}

// testTasks runs the Bootstrap test procedure on tasks and writes one
// record per problem: those solved in a round when the round ends, the
// unsolved ones at the end. It logs progress every -progress. noModel is
// as newSolvers says.
func testTasks[S comparable](ctx context.Context, cfg *testConfig, noModel func() search.Evaluator[S], tasks []search.Task[S], stdout, stderr io.Writer) error {
	if err := fitDefaultModel(&cfg.searchConfig, tasks); err != nil {
		return err
	}
	if cfg.opts.Budget == 0 {
		cfg.opts.Budget = cfg.tunedBudget()
	}
	solvers, err := newSolvers(&cfg.searchConfig, noModel)
	if err != nil {
		return err
	}
	if err := checkTasks(&cfg.searchConfig, solvers, tasks); err != nil {
		return err
	}
	prepareShorten(&cfg.searchConfig, tasks)
	out, err := newResults(&cfg.searchConfig, len(tasks), stdout, stderr)
	if err != nil {
		return err
	}
	var solved atomic.Int64
	start := time.Now()
	stopProgress := progress(cfg.log, cfg.progress, func() []any {
		e := cfg.expansions.Load()
		el := time.Since(start).Seconds()
		return []any{"solved", solved.Load(), "problems", len(tasks),
			"expansions", e, "expansions_per_s", math.Round(float64(e) / el), "elapsed_s", math.Round(el)}
	})
	fin := newFinisher(cfg.workers)
	err = bootstrap.Test(ctx, tasks, solvers, cfg.bootstrapTestConfig(), func(o bootstrap.Outcome[S]) error {
		if o.Result.Solved {
			solved.Add(1)
		}
		return fin.add(func() func() error {
			return finishResult(out, &cfg.searchConfig, tasks[o.Index], o.Result, o.Algorithm, o.Budget)
		})
	})
	err = fin.close(err)
	stopProgress()
	return out.close(err)
}
