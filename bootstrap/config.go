package bootstrap

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"time"

	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// Config sets up a Bootstrap training run. The zero values of the numeric
// fields select the paper's procedure; Train and Resume reject values out
// of range.
type Config struct {
	// Algorithm is the search algorithm whose network is trained.
	Algorithm search.Algorithm
	// Options are the search options, but for the budget: Options.Budget
	// must be 0, the budget being Budget and what the Bootstrap schedule
	// makes of it.
	Options search.Options
	// Budget is the initial expansion budget per problem (the domains'
	// InitialBudget: 2,000 for Sokoban and The Witness, 7,000 for the
	// sliding-tile puzzle in the paper). It must be positive.
	Budget int64
	// BudgetGrowth multiplies the budget after an iteration that solved no
	// new problem: a finite number > 1, or 0 for 2 (doubling, the paper).
	// A smaller factor such as 1.5 gives a smoother schedule.
	BudgetGrowth float64
	// ProblemsPerUpdate is the number of problems attempted between two
	// parameter updates; 0 means 32.
	ProblemsPerUpdate int
	// Passes is the number of passes over an update's trajectories; 0
	// means 10.
	Passes int
	// StepTrajectories is the number of trajectories of one optimiser
	// step: the loss is their mean, over one pass of the network on all
	// their states; 0 means 1, one step per trajectory (the paper).
	StepTrajectories int
	// SkipSolvedAfter, if positive, skips a problem in an iteration once it
	// was solved in each of the last SkipSolvedAfter iterations in which it
	// was attempted. 0 attempts every problem in every iteration (the paper).
	SkipSolvedAfter int
	// Workers is the number of searches run in parallel; 0 means
	// runtime.NumCPU(). Synchronous results do not depend on it. With a
	// Pool, it is the number of searches the pool runs at once, which
	// bounds how far the jobs submitted run ahead of the learner.
	Workers int
	// LearnerThreads is the number of goroutines of the learner's steps
	// (model.TrainConfig.Threads); 0 means 1. It pays with several
	// trajectories per step, and changes the results by float rounding.
	LearnerThreads int
	// Async trains asynchronously (see Train): the workers search on
	// without waiting for the learner, with the weights it last published.
	// False is the paper's synchronous procedure, whose results do not
	// depend on the number of workers.
	Async bool
	// Pool, if not nil, runs the searches of an asynchronous run instead of
	// Workers goroutines of the learner's process; it needs Async.
	Pool Pool
	// Seed seeds the shuffling of trajectories in updates.
	Seed uint64
	// LearningRate is Adam's, finite and ≥ 0; 0 means 1e-4. L2 adds
	// L2·Σw² over the weights to the loss (model.TrainConfig).
	LearningRate, L2 float64
	// MaxIterations stops training after this many iterations; 0: no limit.
	MaxIterations int
	// TimeLimit stops training once the run's total wall time, summed over
	// resumptions, exceeds it; 0: no limit.
	TimeLimit time.Duration
	// Dir is the run's directory: checkpoints and metrics go there.
	Dir string
	// CheckpointEvery is the longest time between two checkpoints; 0 means
	// 5 minutes. A checkpoint is also written after every iteration and
	// when training stops.
	CheckpointEvery time.Duration
	// Logger, if not nil, receives a progress record every LogEvery (0
	// means 30 seconds) and one per iteration.
	Logger   *slog.Logger
	LogEvery time.Duration

	// afterChunk, if not nil, is called after each update and checkpoint
	// decision; tests use it to interrupt runs.
	afterChunk func(st *state, checkpointed bool)
}

// Validate returns an error that names the first field of c out of range;
// Train and Resume validate their Config too.
func (c Config) Validate() error {
	if err := c.check(); err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	if _, err := search.NewSolver[struct{}](c.Algorithm, search.Uniform[struct{}]{}, c.Options); err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	return nil
}

// check returns an error if a field of c is out of range, and otherwise
// fills in the defaults.
func (c *Config) check() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case c.Budget <= 0:
		return fmt.Errorf("budget %d; want > 0", c.Budget)
	case c.Options.Budget != 0:
		return errors.New("Options.Budget is set; the budget is Config.Budget")
	case c.BudgetGrowth != 0 && !(c.BudgetGrowth > 1 && finite(c.BudgetGrowth)):
		return fmt.Errorf("budget growth %g; want a finite number > 1", c.BudgetGrowth)
	case c.ProblemsPerUpdate < 0:
		return fmt.Errorf("problems per update %d; want > 0", c.ProblemsPerUpdate)
	case c.Passes < 0:
		return fmt.Errorf("passes %d; want > 0", c.Passes)
	case c.StepTrajectories < 0:
		return fmt.Errorf("trajectories per step %d; want > 0", c.StepTrajectories)
	case c.SkipSolvedAfter < 0:
		return fmt.Errorf("skip solved after %d; want >= 0", c.SkipSolvedAfter)
	case c.Workers < 0:
		return fmt.Errorf("workers %d; want >= 0", c.Workers)
	case c.LearnerThreads < 0 || c.LearnerThreads > model.MaxThreads:
		return fmt.Errorf("learner threads %d; want 0 to %d", c.LearnerThreads, model.MaxThreads)
	case !(c.LearningRate >= 0 && finite(c.LearningRate)):
		return fmt.Errorf("learning rate %g; want a finite number >= 0", c.LearningRate)
	case !(c.L2 >= 0 && finite(c.L2)):
		return fmt.Errorf("L2 %g; want a finite number >= 0", c.L2)
	case c.MaxIterations < 0:
		return fmt.Errorf("max iterations %d; want >= 0", c.MaxIterations)
	case c.TimeLimit < 0 || c.CheckpointEvery < 0 || c.LogEvery < 0:
		return errors.New("negative duration")
	case c.Pool != nil && !c.Async:
		return errors.New("a pool without Async")
	case c.Dir == "":
		return errors.New("no run directory")
	}
	if c.BudgetGrowth == 0 {
		c.BudgetGrowth = 2
	}
	if c.ProblemsPerUpdate == 0 {
		c.ProblemsPerUpdate = 32
	}
	if c.Passes == 0 {
		c.Passes = 10
	}
	if c.StepTrajectories == 0 {
		c.StepTrajectories = 1
	}
	if c.Workers == 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.CheckpointEvery == 0 {
		c.CheckpointEvery = 5 * time.Minute
	}
	if c.LogEvery == 0 {
		c.LogEvery = 30 * time.Second
	}
	return nil
}

// optimizer returns the trainer's configuration.
func (c *Config) optimizer() model.TrainConfig {
	return model.TrainConfig{LearningRate: c.LearningRate, L2: c.L2, Threads: c.LearnerThreads}
}
