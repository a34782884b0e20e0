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
	// Round (from 1), Budget and Algorithm are those of the search in
	// Result: the algorithm of the solvers, a beam search widened.
	Round     int
	Budget    int64
	Algorithm search.Algorithm
}

// Test runs the paper's test procedure with solvers, one per
// worker: no learning; every still-unsolved problem is attempted again in
// each round, with the budget doubled each round, until every problem is
// solved or a limit of cfg is reached. A beam search's width doubles
// with the budget: a wider beam, as deep, where a beam that misses the
// goal has pruned its way there (of 10 validation cubes a beam 512 wide
// missed, twice the width solved 7, twice the depth 4).
// The first round's budget and algorithm are those of the solvers, which
// must be the same for all, the budget positive; Test sets the budget
// (Solver.SetBudget) and a beam's width (Solver.SetBeamWidth) for each
// round. At the end of each round, emit receives the problems that round
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
		if a, b := solvers[0].Algorithm(), s.Algorithm(); a != b {
			return fmt.Errorf("bootstrap: test: solvers of algorithms %v and %v", a, b)
		}
	}
	first := solvers[0].Algorithm()
	width := first.BeamWidth() // 0 but for a beam
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
			if width > 0 {
				s.SetBeamWidth(width)
			}
		}
		alg := solvers[0].Algorithm()
		rt := make([]search.Task[S], len(remaining))
		for i, k := range remaining {
			rt[i] = tasks[k]
		}
		var solved []int
		err := search.SolveAll(ctx, rt, solvers, func(i int, r search.Result[S]) error {
			k := remaining[i]
			last[k] = Outcome[S]{Index: k, Result: r, Round: round, Budget: budget, Algorithm: alg}
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
		width = min(2*width, search.MaxBeamWidth)
	}
	for _, k := range remaining {
		if last[k].Round == 0 {
			last[k] = Outcome[S]{Index: k, Algorithm: first}
		}
		if err := emit(last[k]); err != nil {
			return err
		}
	}
	return nil
}
