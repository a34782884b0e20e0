package cli

import (
	"context"
	"io"
	"time"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/search"
)

// testConfig holds the flags of "phs test".
type testConfig struct {
	searchConfig
	fixed     bool
	timeLimit time.Duration
	rounds    int
}

func runTest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg testConfig
	fs := newFlagSet("test", "FILES...", stdout)
	cfg.register(fs)
	fs.Int64Var(&cfg.budget, "budget", 0, "expansion budget of the first round, doubled every round (0: the paper's for the domain); with -fixed, of every search (0: none)")
	fs.BoolVar(&cfg.fixed, "fixed", false, "fixed-limit test: attempt each problem once with -budget and -timeout")
	fs.DurationVar(&cfg.timeLimit, "time", 0, "Bootstrap test: start no round after this much time (0: no limit)")
	fs.IntVar(&cfg.rounds, "rounds", 0, "Bootstrap test: at most this many rounds (0: no limit)")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := cfg.check("test", files, stderr); err != nil {
		return err
	}
	switch {
	case cfg.timeLimit < 0:
		return usagef("test: -time %v: want >= 0 (0: no limit)", cfg.timeLimit)
	case cfg.rounds < 0:
		return usagef("test: -rounds %d: want >= 0 (0: no limit)", cfg.rounds)
	}
	d, err := cfg.resolve("test", stderr)
	if err != nil {
		return err
	}
	if cfg.fixed {
		return d.solve(ctx, &cfg.searchConfig, files, stdout, stderr)
	}
	if cfg.budget == 0 {
		cfg.budget = d.initialBudget()
	}
	return d.test(ctx, &cfg, files, stdout, stderr)
}

// testTasks runs the Bootstrap test procedure on tasks and writes one
// record per problem: those solved in a round when the round ends, the
// unsolved ones at the end.
func testTasks[S comparable](ctx context.Context, cfg *testConfig, tasks []search.Task[S], stdout, stderr io.Writer) error {
	solvers, err := newSolvers[S](&cfg.searchConfig, cfg.budget)
	if err != nil {
		return err
	}
	if err := checkTasks(&cfg.searchConfig, solvers, tasks); err != nil {
		return err
	}
	out, err := newResults(&cfg.searchConfig, stdout, stderr)
	if err != nil {
		return err
	}
	tc := bootstrap.TestConfig{TimeLimit: cfg.timeLimit, MaxRounds: cfg.rounds, Logger: cfg.log}
	err = bootstrap.BootstrapTest(ctx, tasks, solvers, tc, func(o bootstrap.Outcome[S]) error {
		return writeResult(out, &cfg.searchConfig, tasks[o.Index], o.Result, o.Budget)
	})
	return out.close(err)
}
