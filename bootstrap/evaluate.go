package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/phs-go/phs/search"
)

// TestConfig sets up the Bootstrap test procedure of the paper's Table 1;
// the budget of the first round is the solvers' (search.Options.Budget).
type TestConfig struct {
	// TimeLimit ends the test when the next round would start after it
	// (0: none); MaxRounds after that many rounds (0: no limit). A round
	// in progress is not cut short by TimeLimit; set a per-search Timeout
	// in the solvers' options for that.
	TimeLimit time.Duration
	MaxRounds int
	// Logger, if not nil, receives one record per round, its time in
	// seconds (elapsed_s).
	Logger *slog.Logger
}

// An Outcome is the result of a test for one problem: the result of the
// round that solved it, or of the last round that attempted it.
type Outcome[S comparable] struct {
	// Index is the problem's position in the tasks.
	Index  int
	Result search.Result[S]
	// Round (from 1) and Budget are those of the search in Result.
	Round  int
	Budget int64
}

// Test runs the paper's test procedure with solvers, one per
// worker: no learning; every still-unsolved problem is attempted again in
// each round, with the budget doubled each round, until every problem is
// solved or a limit of cfg is reached. The first round's budget is that
// of the solvers' options, which must be positive and the same for all;
// Test sets their budget for each round (Solver.SetBudget). At the end of each round, emit receives the problems that round
// solved, in input order; when the test ends, it receives the unsolved
// ones with their last attempt. Every problem is checked against the
// solvers before the first search (search.SolveAll). If ctx is cancelled,
// the rounds already emitted stay emitted and Test returns
// ctx.Err().
func Test[S comparable](ctx context.Context, tasks []search.Task[S], solvers []*search.Solver[S], cfg TestConfig,
	emit func(Outcome[S]) error) error {
	if len(solvers) == 0 {
		panic("bootstrap: Test without solvers")
	}
	budget := solvers[0].Options().Budget
	switch {
	case budget <= 0:
		return fmt.Errorf("bootstrap: test: budget %d; want > 0", budget)
	case cfg.TimeLimit < 0 || cfg.MaxRounds < 0:
		return errors.New("bootstrap: test: negative limit")
	}
	for _, s := range solvers {
		if b := s.Options().Budget; b != budget {
			return fmt.Errorf("bootstrap: test: solvers of budgets %d and %d", budget, b)
		}
	}
	start := time.Now()
	remaining := make([]int, len(tasks))
	for i := range remaining {
		remaining[i] = i
	}
	last := make([]Outcome[S], len(tasks))
	for round := 1; len(remaining) > 0; round++ {
		if (cfg.MaxRounds > 0 && round > cfg.MaxRounds) || (cfg.TimeLimit > 0 && time.Since(start) >= cfg.TimeLimit) {
			break
		}
		for _, s := range solvers {
			s.SetBudget(budget)
		}
		rt := make([]search.Task[S], len(remaining))
		for i, k := range remaining {
			rt[i] = tasks[k]
		}
		var solved []int
		err := search.SolveAll(ctx, rt, solvers, func(i int, r search.Result[S]) error {
			k := remaining[i]
			last[k] = Outcome[S]{Index: k, Result: r, Round: round, Budget: budget}
			if r.Solved {
				solved = append(solved, k)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range solved {
			if err := emit(last[k]); err != nil {
				return err
			}
		}
		next := remaining[:0]
		for _, k := range remaining {
			if !last[k].Result.Solved {
				next = append(next, k)
			}
		}
		remaining = next
		if cfg.Logger != nil {
			cfg.Logger.Info("round done", "round", round, "budget", budget, "solved", len(solved),
				"left", len(remaining), "problems", len(tasks), "elapsed_s", math.Round(time.Since(start).Seconds()))
		}
		if budget > math.MaxInt64/2 {
			break
		}
		budget *= 2
	}
	for _, k := range remaining {
		if last[k].Round == 0 {
			last[k] = Outcome[S]{Index: k}
		}
		if err := emit(last[k]); err != nil {
			return err
		}
	}
	return nil
}
