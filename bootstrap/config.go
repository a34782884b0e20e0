package bootstrap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"time"

	"github.com/phs-go/phs/search"
)

// Config is the whole description of a Bootstrap training run, but for
// its learner, which saves its own settings (Learner.Save): everything
// that changes its results, and its limits. Train saves it in the run's
// checkpoint, from which Resume reads it back; encoding/json writes it
// with the names of its tags (durations in nanoseconds). The zero values
// of the numeric fields select the paper's procedure; Train rejects
// values out of range.
type Config struct {
	// Algorithm is the search algorithm, with its parameter.
	Algorithm search.Algorithm `json:"algorithm"`
	// Options are the search options; Options.Budget is the initial
	// expansion budget per problem, which must be positive (the domains'
	// InitialBudget: 2,000 for Sokoban and The Witness, 7,000 for the
	// sliding-tile puzzle in the paper), and which Schedule then changes.
	Options search.Options `json:"options"`
	// Schedule changes the budget after each iteration: the zero
	// Schedule doubles it after an iteration that solved no new problem
	// (Double(2), the paper); Double(1.5) gives a smoother schedule;
	// LTSCM and LTSCMRef are those of LTS+CM and its successors.
	Schedule Schedule `json:"schedule"`
	// ProblemsPerUpdate is the number of problems attempted between two
	// updates of the learner; 0 means 32.
	ProblemsPerUpdate int `json:"problems_per_update"`
	// SkipSolvedAfter, if positive, skips a problem in an iteration once it
	// was solved in each of the last SkipSolvedAfter iterations in which it
	// was attempted. 0 attempts every problem in every iteration (the paper).
	SkipSolvedAfter int `json:"skip_solved_after,omitempty"`
	// Validation holds back problems to decide when training stops, as
	// libpolicyts does; the zero Validation holds back none.
	Validation Validation `json:"validation,omitzero"`
	// ShortenLimit, if positive, makes the learner learn from each
	// solution shortened by its problem, which must be a Shortener, with
	// at most ShortenLimit nodes: the learner's targets come closer to the
	// optimum than the searches' solutions. The searches, their counts
	// and the checkpoints keep the solutions as found. 0 learns from the
	// solutions as found (the paper).
	ShortenLimit int `json:"shorten_limit,omitempty"`
	// Async trains asynchronously (see Train): the workers search on
	// without waiting for the learner, with the snapshot it last
	// published. False is the paper's synchronous procedure, whose
	// results do not depend on the number of workers.
	Async bool `json:"async,omitempty"`
	// Limits stop training.
	Limits
}

// Limits stop a training run; the first reached stops it.
type Limits struct {
	// MaxIterations stops training after this many iterations; 0: no limit.
	MaxIterations int `json:"max_iterations,omitempty"`
	// TimeLimit stops training once the run's total wall time, summed over
	// resumptions, exceeds it: the searches under way stop at once (the
	// checkpoint keeps those that ended), and so does an update under
	// way, whose Learn gets a context done at the limit (the checkpoint
	// then holds the learner and the state before the update, with the
	// group's searches, and a resumed run takes the update again); 0: no
	// limit.
	TimeLimit time.Duration `json:"time_limit,omitempty"`
}

// Validation holds back the last Problems of a run's tasks as validation
// problems, and stops the run once they are solved (Tuero et al.'s
// setting, SIIRLTS). The learner never learns from them: after the
// training pass of each iteration, the validation problems never solved
// so far are searched with the pass's budget and the learner as it is
// then; once at least ⌊Target·Problems⌋ of them were solved, in that
// iteration or an earlier one, the run does one more iteration without
// validation, with the budget unchanged, and stops. A run with
// validation goes on when every training problem is solved (at the same
// budget): the validation target, or a limit, stops it.
type Validation struct {
	// Problems is the number of validation problems; 0: no validation.
	Problems int `json:"problems"`
	// Target is the fraction of them to solve, in (0, 1]; 0.95 in
	// libpolicyts.
	Target float64 `json:"target"`
}

// Needed returns the number of validation problems whose solving reaches
// the target, ⌊Target·Problems⌋ (libpolicyts's rounding); 0 without
// validation.
func (v Validation) Needed() int { return int(math.Floor(v.Target * float64(v.Problems))) }

// Env is the environment of a training run: what cannot be saved with
// it, or may differ from one resumption to the next without changing the
// results of a synchronous run.
type Env struct {
	// Workers is the number of searches run in parallel; 0 means
	// runtime.NumCPU(). Synchronous results do not depend on it. With a
	// Pool, it is the number of searches the pool runs at once, which
	// bounds how far the jobs submitted run ahead of the learner.
	Workers int
	// Pool, if not nil, runs the searches of an asynchronous run instead of
	// Workers goroutines of the learner's process; it needs Config.Async.
	Pool Pool
	// CheckpointEvery is the longest time between two checkpoints; 0 means
	// 5 minutes. A checkpoint is also written after every iteration and
	// when training stops.
	CheckpointEvery time.Duration
	// Logger, if not nil, receives a progress record every LogEvery (0
	// means 30 seconds), checked as each search ends and after each
	// update, and one per iteration; their times are in seconds
	// (elapsed_s).
	Logger   *slog.Logger
	LogEvery time.Duration
	// Limits, if not nil, replace the limits of the run that Resume
	// continues (to raise them); the checkpoints then record them. Train
	// ignores it.
	Limits *Limits

	// afterChunk, if not nil, is called after each update and checkpoint
	// decision; tests use it to interrupt runs.
	afterChunk func(st *state, checkpointed bool)
	// afterSearch, if not nil, is called after each search that ends,
	// with the number of those not yet learned from; tests use it to
	// interrupt groups.
	afterSearch func(st *state, ended int)
}

// Validate returns an error that names the first field of c out of range;
// Train and Resume validate their Config too.
func (c Config) Validate() error {
	if err := c.check(); err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	return nil
}

// UnmarshalJSON sets c from its JSON encoding, as encoding/json does
// without this method, and refuses unknown fields. It also reads the
// configuration of a checkpoint of an earlier phs, whose budget_growth G
// (0: 2) stands for the schedule Double(G).
func (c *Config) UnmarshalJSON(b []byte) error {
	type config Config // without this method
	var v struct {
		config
		BudgetGrowth *float64 `json:"budget_growth"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if g := v.BudgetGrowth; g != nil {
		if v.Schedule != (Schedule{}) {
			return errors.New("both a schedule and an earlier phs's budget_growth")
		}
		if *g != 0 {
			v.Schedule = Double(*g)
		}
	}
	*c = Config(v.config)
	return nil
}

// check returns an error if a field of c is out of range, and otherwise
// fills in the defaults.
func (c *Config) check() error {
	switch {
	case c.Options.Budget <= 0:
		return fmt.Errorf("budget %d; want > 0", c.Options.Budget)
	case c.ProblemsPerUpdate < 0:
		return fmt.Errorf("problems per update %d; want > 0", c.ProblemsPerUpdate)
	case c.SkipSolvedAfter < 0:
		return fmt.Errorf("skip solved after %d; want >= 0", c.SkipSolvedAfter)
	case c.ShortenLimit < 0:
		return fmt.Errorf("shorten limit %d; want >= 0", c.ShortenLimit)
	case c.MaxIterations < 0:
		return fmt.Errorf("max iterations %d; want >= 0", c.MaxIterations)
	case c.TimeLimit < 0:
		return fmt.Errorf("time limit %v; want >= 0", c.TimeLimit)
	case c.Validation.Problems < 0:
		return fmt.Errorf("validation problems %d; want >= 0", c.Validation.Problems)
	case c.Validation.Problems > 0 && !(c.Validation.Target > 0 && c.Validation.Target <= 1):
		return fmt.Errorf("validation target %g; want a fraction in (0, 1]", c.Validation.Target)
	case c.Validation.Problems == 0 && c.Validation.Target != 0:
		return fmt.Errorf("validation target %g without validation problems", c.Validation.Target)
	}
	if err := c.Schedule.check(); err != nil {
		return err
	}
	if c.Schedule.attemptsAll() && c.SkipSolvedAfter > 0 {
		return fmt.Errorf("schedule %s counts the problems solved again in each iteration; want skip solved after 0, not %d", c.Schedule, c.SkipSolvedAfter)
	}
	if _, err := search.NewSolver[struct{}](c.Algorithm, search.Uniform[struct{}]{}, c.Options); err != nil {
		return err
	}
	c.Schedule = c.Schedule.norm()
	if c.ProblemsPerUpdate == 0 {
		c.ProblemsPerUpdate = 32
	}
	return nil
}

// check returns an error if a field of e is out of range for a run of
// cfg, and otherwise fills in the defaults.
func (e *Env) check(cfg *Config) error {
	switch {
	case e.Workers < 0:
		return fmt.Errorf("workers %d; want >= 0", e.Workers)
	case e.CheckpointEvery < 0 || e.LogEvery < 0:
		return errors.New("negative duration")
	case e.Pool != nil && !cfg.Async:
		return errors.New("a pool without Async")
	case e.Limits != nil && (e.Limits.MaxIterations < 0 || e.Limits.TimeLimit < 0):
		return errors.New("negative limit")
	}
	if e.Workers == 0 {
		e.Workers = runtime.NumCPU()
	}
	if e.CheckpointEvery == 0 {
		e.CheckpointEvery = 5 * time.Minute
	}
	if e.LogEvery == 0 {
		e.LogEvery = 30 * time.Second
	}
	return nil
}
