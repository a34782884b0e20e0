// Package bootstrap implements the Bootstrap process of Orseau & Lelis
// (AAAI 2021), which trains a network on the problems that the search
// guided by it solves (Train, Resume), and the Bootstrap test procedure of
// the paper's Table 1 (BootstrapTest). Runs are written to a directory:
// checkpoints, from which an interrupted run resumes exactly, and the
// learning curve in metrics.csv and metrics.jsonl.
package bootstrap

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/phs-go/phs/internal/atomicfile"
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
	// Passes is the number of passes over an update's trajectories, one
	// optimiser step per trajectory and pass; 0 means 10.
	Passes int
	// SkipSolvedAfter, if positive, skips a problem in an iteration once it
	// was solved in each of the last SkipSolvedAfter iterations in which it
	// was attempted. 0 attempts every problem in every iteration (the paper).
	SkipSolvedAfter int
	// Workers is the number of searches run in parallel; 0 means
	// runtime.NumCPU(). The results do not depend on it.
	Workers int
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
	case c.SkipSolvedAfter < 0:
		return fmt.Errorf("skip solved after %d; want >= 0", c.SkipSolvedAfter)
	case c.Workers < 0:
		return fmt.Errorf("workers %d; want >= 0", c.Workers)
	case !(c.LearningRate >= 0 && finite(c.LearningRate)):
		return fmt.Errorf("learning rate %g; want a finite number >= 0", c.LearningRate)
	case !(c.L2 >= 0 && finite(c.L2)):
		return fmt.Errorf("L2 %g; want a finite number >= 0", c.L2)
	case c.MaxIterations < 0:
		return fmt.Errorf("max iterations %d; want >= 0", c.MaxIterations)
	case c.TimeLimit < 0 || c.CheckpointEvery < 0 || c.LogEvery < 0:
		return errors.New("negative duration")
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
	return model.TrainConfig{LearningRate: c.LearningRate, L2: c.L2}
}

// Iteration holds the metrics of one Bootstrap iteration: one row of a
// learning curve.
type Iteration struct {
	Iteration int   `json:"iteration"`
	Budget    int64 `json:"budget"`
	// Attempted, Solved and New count the problems attempted, solved and
	// solved for the first time in this iteration; TotalSolved counts those
	// solved at least once so far.
	Attempted   int `json:"attempted"`
	Solved      int `json:"solved"`
	New         int `json:"new"`
	TotalSolved int `json:"total_solved"`
	// Expansions and Evaluations sum over the iteration's searches;
	// TotalExpansions over the whole run.
	Expansions      int64 `json:"expansions"`
	TotalExpansions int64 `json:"total_expansions"`
	Evaluations     int64 `json:"evaluations"`
	// Updates counts optimiser steps; the losses are their means.
	Updates       int     `json:"updates"`
	PolicyLoss    float64 `json:"policy_loss"`
	HeuristicLoss float64 `json:"heuristic_loss"`
	// IterationS is the iteration's wall time, WallS the run's total wall
	// time at its end, both in seconds.
	IterationS float64 `json:"iteration_s"`
	WallS      float64 `json:"wall_s"`
	// Partial marks the iteration under way when the metrics were
	// written: the last row of a run's metrics files until it ends.
	Partial bool `json:"partial,omitempty"`
}

// state is everything a training run needs to go on after a restart,
// besides the model and the optimiser: the checkpoint's state.json.
type state struct {
	// Iteration is the current iteration, from 1; Next is the position in
	// its list of problems of the next one to attempt.
	Iteration int   `json:"iteration"`
	Next      int   `json:"next"`
	Budget    int64 `json:"budget"`
	// Solved[i] is 1 if problem i was ever solved; SolvedNow[i] if it was
	// solved in the current iteration; Streak[i] counts the consecutive
	// attempted iterations, up to 255, that solved it.
	Solved    []byte `json:"solved"`
	SolvedNow []byte `json:"solved_now"`
	Streak    []byte `json:"streak"`
	// Current accumulates the metrics of the current iteration; the loss
	// fields hold sums until the iteration ends.
	Current Iteration `json:"current"`
	// Metrics are the finished iterations.
	Metrics []Iteration `json:"metrics"`
	// ElapsedS is the run's wall time so far in seconds.
	ElapsedS float64 `json:"elapsed_s"`
	// RNG is the state of the update shuffler.
	RNG []byte `json:"rng"`
	// Done reports that training reached a stopping condition.
	Done bool `json:"done"`
	// Problems is the number of training problems and ProblemsSHA256 the
	// fingerprint of the problems (problemsHash), checked on resume.
	Problems       int    `json:"problems"`
	ProblemsSHA256 string `json:"problems_sha256"`
}

// problemsHash returns the hexadecimal SHA-256 of the tasks, in order: of
// each ID and of the network encoding of each start state.
func problemsHash[S comparable](tasks []search.Task[S]) string {
	h := sha256.New()
	var x []float32
	var b []byte
	for _, t := range tasks {
		fmt.Fprintf(h, "%d:%s;", len(t.ID), t.ID)
		enc, ok := t.Problem.(search.Encoder[S])
		if !ok {
			continue
		}
		c, hh, w := enc.InputShape()
		x = slices.Grow(x[:0], c*hh*w)[:c*hh*w]
		enc.Encode(enc.Root(), x)
		b = b[:0]
		for _, v := range x {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

const (
	checkpointDir = "checkpoint"
	stateFile     = "state.json"
)

// ErrLocked is the error of Train and Resume for a run directory that
// another training run is using.
var ErrLocked = errors.New("another training run is using the directory")

// ErrTrainingDone is the error of Resume for a run that has already
// finished: every problem solved, or a limit of its Config reached.
var ErrTrainingDone = errors.New("bootstrap: training already finished")

// newState returns the state of a fresh run over n problems of
// fingerprint hash.
func newState(cfg *Config, n int, hash string) *state {
	rng := rand.NewPCG(cfg.Seed, 0x5eed)
	b, _ := rng.MarshalBinary()
	return &state{
		Iteration:      1,
		Budget:         cfg.Budget,
		Solved:         make([]byte, n),
		SolvedNow:      make([]byte, n),
		Streak:         make([]byte, n),
		RNG:            b,
		Problems:       n,
		ProblemsSHA256: hash,
	}
}

// check returns an error naming the first field of st that cannot be the
// state of a run over n problems.
func (st *state) check(n int) error {
	flags := func(name string, b []byte) error {
		if len(b) != n {
			return fmt.Errorf("%s has %d entries for %d problems", name, len(b), n)
		}
		return nil
	}
	switch {
	case st.Problems != n:
		return fmt.Errorf("problems: the checkpoint is for %d problems, got %d", st.Problems, n)
	case st.Iteration < 1:
		return fmt.Errorf("iteration %d; want >= 1", st.Iteration)
	case st.Next < 0 || st.Next > n:
		return fmt.Errorf("next %d; want 0 to %d", st.Next, n)
	case st.Budget <= 0:
		return fmt.Errorf("budget %d; want > 0", st.Budget)
	case st.ElapsedS < 0 || math.IsNaN(st.ElapsedS):
		return fmt.Errorf("elapsed_s %g; want >= 0", st.ElapsedS)
	}
	for _, f := range []struct {
		name string
		b    []byte
	}{{"solved", st.Solved}, {"solved_now", st.SolvedNow}, {"streak", st.Streak}} {
		if err := flags(f.name, f.b); err != nil {
			return err
		}
	}
	for i := range n {
		if st.Solved[i] > 1 || st.SolvedNow[i] > 1 || (st.SolvedNow[i] == 1 && st.Solved[i] == 0) {
			return fmt.Errorf("solved/solved_now: bad flags %d/%d for problem %d", st.Solved[i], st.SolvedNow[i], i)
		}
	}
	return nil
}

// loadCheckpoint reads the checkpoint in run directory dir: the trainer
// (model and optimiser) and the state, checked for a run over n problems.
func loadCheckpoint(dir string, lc model.TrainConfig, n int) (*model.Trainer, *state, error) {
	cp := filepath.Join(dir, checkpointDir)
	if _, err := os.Stat(cp); errors.Is(err, os.ErrNotExist) {
		// A crash between the two renames of writeCheckpoint leaves the
		// previous checkpoint under its old name.
		if _, err := os.Stat(cp + ".old"); err == nil {
			cp += ".old"
		}
	}
	tr, err := model.LoadTrainer(cp, lc)
	if err != nil {
		return nil, nil, fmt.Errorf("bootstrap: resume %s: %w", dir, err)
	}
	name := filepath.Join(cp, stateFile)
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, nil, fmt.Errorf("bootstrap: resume %s: %w", dir, err)
	}
	var st state
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return nil, nil, fmt.Errorf("bootstrap: resume: %s: %w", name, err)
	}
	if err := st.check(n); err != nil {
		return nil, nil, fmt.Errorf("bootstrap: resume: %s: %w", name, err)
	}
	return tr, &st, nil
}

// Train runs the Bootstrap process of Orseau & Lelis (2021) on tasks from
// scratch, training m in place for cfg.Algorithm, until a stopping
// condition of cfg holds or ctx is done. It returns the metrics of the
// finished iterations. It writes a checkpoint and the metrics to cfg.Dir
// after every iteration, at least every cfg.CheckpointEvery, and when it
// stops; Resume continues the run from there. It returns ctx.Err() if
// interrupted, after writing the checkpoint.
//
// Train refuses a directory that already holds a checkpoint, a
// configuration out of range, a model that lacks a head the algorithm
// reads, and tasks that the model cannot evaluate, before it starts.
//
// Every iteration attempts the problems in input order (skipping, with
// SkipSolvedAfter, the long-solved ones), in consecutive groups of
// ProblemsPerUpdate. The searches of a group run in parallel on
// cfg.Workers workers against the same weights; when the whole group is done,
// the solved problems' trajectories, taken in input order and shuffled
// with the seeded generator at each of the Passes passes, update the model,
// one optimiser step per trajectory, with the losses of the model's
// configuration. Because a group's searches all see the weights left by
// the previous group, and a search is deterministic given its weights, the
// run does not depend on the number of workers or on the order in which
// searches finish. If an iteration solves no problem that was never solved
// before, the budget grows by BudgetGrowth.
func Train[S comparable](ctx context.Context, tasks []search.Task[S], m *model.Model, cfg Config) ([]Iteration, error) {
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("bootstrap: train: %w", err)
	}
	r, err := newRun(tasks, model.NewTrainer(m, cfg.optimizer()), cfg, newState(&cfg, len(tasks), problemsHash(tasks)))
	if err != nil {
		return nil, err
	}
	unlock, err := lockRun(cfg.Dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	for _, name := range []string{checkpointDir, checkpointDir + ".old"} {
		if _, err := os.Stat(filepath.Join(cfg.Dir, name)); err == nil {
			return nil, fmt.Errorf("bootstrap: train: %s already holds a run; resume it or choose another directory", cfg.Dir)
		}
	}
	// A first checkpoint: the directory is writable, and a run killed
	// before its first update can be resumed.
	if err := r.checkpoint(); err != nil {
		return nil, err
	}
	err = r.loop(ctx)
	return r.st.Metrics, err
}

// Resume continues the run in cfg.Dir on the same tasks, from its last
// checkpoint, and returns the model being trained and the metrics of the
// finished iterations so far. cfg must be the run's configuration, but
// for the limits (MaxIterations, TimeLimit), which it may raise, and the
// settings that do not change the results (Workers, CheckpointEvery,
// Logger, LogEvery); the checkpoint's algorithm and problems (their IDs, in order)
// must be those of cfg and tasks (their IDs and start states, in order). It returns ErrTrainingDone, with the
// model and the metrics, if the run had already finished within cfg's
// limits.
func Resume[S comparable](ctx context.Context, tasks []search.Task[S], cfg Config) (*model.Model, []Iteration, error) {
	if err := cfg.check(); err != nil {
		return nil, nil, fmt.Errorf("bootstrap: resume: %w", err)
	}
	unlock, err := lockRun(cfg.Dir)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	tr, st, err := loadCheckpoint(cfg.Dir, cfg.optimizer(), len(tasks))
	if err != nil {
		return nil, nil, err
	}
	if a := tr.Model().Config().Algorithm; a != cfg.Algorithm.Name() {
		return nil, nil, fmt.Errorf("bootstrap: resume %s: the checkpoint's model was made for %s, not %s", cfg.Dir, a, cfg.Algorithm.Name())
	}
	if st.ProblemsSHA256 != problemsHash(tasks) {
		return nil, nil, fmt.Errorf("bootstrap: resume %s: the checkpoint is for other problems (their IDs or start states differ)", cfg.Dir)
	}
	if st.Done && st.finished(&cfg, st.ElapsedS) {
		return tr.Model(), st.Metrics, ErrTrainingDone
	}
	st.Done = false // the limits were raised
	r, err := newRun(tasks, tr, cfg, st)
	if err != nil {
		return nil, nil, err
	}
	err = r.loop(ctx)
	return tr.Model(), st.Metrics, err
}

// A run is a training run under way.
type run[S comparable] struct {
	tasks   []search.Task[S]
	cfg     Config
	tr      *model.Trainer
	st      *state
	rng     rand.PCG
	shuffle *rand.Rand
	// solvers run the searches, one per worker; their evaluators read the
	// trainer's weights directly, since searches run only while the
	// learner waits.
	solvers []*search.Solver[S]
	samples []model.Sample
	clock   clock
	// When the last checkpoint and the last progress line were written.
	lastCheckpoint, lastLog time.Time
}

// newRun checks that the model fits the algorithm and the tasks, and
// returns a run of them from state st. It writes nothing.
func newRun[S comparable](tasks []search.Task[S], tr *model.Trainer, cfg Config, st *state) (*run[S], error) {
	mc := tr.Model().Config()
	if missing := model.HeadsFor(cfg.Algorithm) &^ mc.Heads; missing != 0 {
		return nil, fmt.Errorf("bootstrap: %s reads a %v output, which the %s model lacks", cfg.Algorithm.Name(), missing, mc.Heads)
	}
	r := &run[S]{tasks: tasks, cfg: cfg, tr: tr, st: st, clock: newClock(st)}
	if err := r.rng.UnmarshalBinary(st.RNG); err != nil {
		return nil, fmt.Errorf("bootstrap: rng state: %w", err)
	}
	r.shuffle = rand.New(&r.rng)
	for range cfg.Workers {
		s, err := search.NewSolver[S](cfg.Algorithm, model.NewEvaluator[S](tr.Model()), cfg.Options)
		if err != nil {
			return nil, fmt.Errorf("bootstrap: %w", err)
		}
		r.solvers = append(r.solvers, s)
	}
	for _, t := range tasks {
		if err := r.solvers[0].Check(t.Problem); err != nil {
			return nil, fmt.Errorf("bootstrap: %s: %w", t.ID, err)
		}
	}
	r.lastCheckpoint, r.lastLog = time.Now(), time.Now()
	return r, nil
}

// A clock measures the wall time of a run and of its current iteration,
// adding the times before a resumption.
type clock struct {
	start, iterStart time.Time
	base, iterBase   float64 // seconds before start and iterStart
}

func newClock(st *state) clock {
	now := time.Now()
	return clock{start: now, iterStart: now, base: st.ElapsedS, iterBase: st.Current.IterationS}
}

// elapsed returns the run's wall time in seconds.
func (c *clock) elapsed() float64 { return c.base + time.Since(c.start).Seconds() }

// iteration returns the current iteration's wall time in seconds.
func (c *clock) iteration() float64 { return c.iterBase + time.Since(c.iterStart).Seconds() }

// nextIteration starts the clock of a new iteration.
func (c *clock) nextIteration() { c.iterStart, c.iterBase = time.Now(), 0 }

// loop runs iterations until training is over or ctx is done.
func (r *run[S]) loop(ctx context.Context) error {
	st := r.st
	for {
		order := st.attemptOrder(r.cfg.SkipSolvedAfter)
		for _, s := range r.solvers {
			s.SetBudget(st.Budget)
		}
		for st.Next < len(order) {
			if r.cfg.TimeLimit > 0 && r.clock.elapsed() >= r.cfg.TimeLimit.Seconds() {
				st.Done = true
				return r.checkpoint()
			}
			group := order[st.Next:min(st.Next+r.cfg.ProblemsPerUpdate, len(order))]
			if err := r.group(ctx, group); err != nil {
				if ctx.Err() == nil {
					return err
				}
				// The group is lost; the state is still that of its start.
				if cerr := r.checkpoint(); cerr != nil {
					return cerr
				}
				return ctx.Err()
			}
			checkpointed := false
			if time.Since(r.lastCheckpoint) >= r.cfg.CheckpointEvery {
				if err := r.checkpoint(); err != nil {
					return err
				}
				checkpointed = true
			}
			if r.cfg.Logger != nil && time.Since(r.lastLog) >= r.cfg.LogEvery {
				r.lastLog = time.Now()
				st.logProgress(r.cfg.Logger, len(order), r.clock.iteration(), r.clock.elapsed())
			}
			if r.cfg.afterChunk != nil {
				r.cfg.afterChunk(st, checkpointed)
			}
			if err := ctx.Err(); err != nil {
				if cerr := r.checkpoint(); cerr != nil {
					return cerr
				}
				return err
			}
		}
		if err := r.endIteration(order); err != nil || st.Done {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// group attempts the problems of group (indices into the tasks) in
// parallel, counts the results, and updates the model on the solutions.
func (r *run[S]) group(ctx context.Context, group []int) error {
	st := r.st
	gt := make([]search.Task[S], len(group))
	for i, k := range group {
		gt[i] = r.tasks[k]
	}
	results := make([]search.Result[S], len(group))
	err := search.SolveAll(ctx, gt, r.solvers, func(i int, res search.Result[S]) error {
		results[i] = res
		return nil
	})
	if err != nil {
		return err
	}
	r.samples = r.samples[:0]
	cur := &st.Current
	for i, res := range results {
		k := group[i]
		cur.Attempted++
		cur.Expansions += res.Expansions
		cur.Evaluations += res.Evaluations
		if !res.Solved {
			continue
		}
		cur.Solved++
		st.SolvedNow[k] = 1
		if st.Solved[k] == 0 {
			st.Solved[k] = 1
			cur.New++
		}
		s, err := sample(gt[i].Problem, res.Trajectory)
		if err != nil {
			return fmt.Errorf("bootstrap: %s: %w", gt[i].ID, err)
		}
		r.samples = append(r.samples, s)
	}
	for range r.cfg.Passes {
		r.shuffle.Shuffle(len(r.samples), func(i, j int) { r.samples[i], r.samples[j] = r.samples[j], r.samples[i] })
		for _, s := range r.samples {
			l, err := r.tr.Step(s)
			if err != nil {
				return fmt.Errorf("bootstrap: %w", err)
			}
			cur.Updates++
			cur.PolicyLoss += l.Policy
			cur.HeuristicLoss += l.Heuristic
		}
	}
	st.Next += len(group)
	return nil
}

// endIteration closes the iteration that attempted order: it records its
// metrics, updates the streaks and the budget, starts the next iteration,
// decides whether training is over and writes a checkpoint.
func (r *run[S]) endIteration(order []int) error {
	st := r.st
	st.Current.IterationS = r.clock.iteration()
	it := st.summary(r.clock.elapsed())
	st.Metrics = append(st.Metrics, it)
	for _, k := range order {
		switch {
		case st.SolvedNow[k] == 0:
			st.Streak[k] = 0
		case st.Streak[k] < math.MaxUint8:
			st.Streak[k]++
		}
	}
	clear(st.SolvedNow)
	if it.New == 0 {
		st.Budget = int64(math.Ceil(float64(st.Budget) * r.cfg.BudgetGrowth))
	}
	st.Iteration++
	st.Next = 0
	st.Current = Iteration{}
	r.clock.nextIteration()
	if r.cfg.Logger != nil {
		r.cfg.Logger.Info("iteration done", "iteration", it.Iteration, "budget", it.Budget,
			"attempted", it.Attempted, "solved", it.Solved, "new", it.New, "solved_so_far", it.TotalSolved,
			"problems", len(r.tasks), "expansions", it.Expansions, "elapsed", seconds(it.WallS))
	}
	st.Done = st.finished(&r.cfg, r.clock.elapsed())
	return r.checkpoint()
}

// checkpoint writes the state, the trainer and the metrics to the run
// directory.
func (r *run[S]) checkpoint() error {
	st := r.st
	st.ElapsedS = r.clock.elapsed()
	st.Current.IterationS = r.clock.iteration()
	b, err := r.rng.MarshalBinary()
	if err != nil {
		return fmt.Errorf("bootstrap: checkpoint: rng state: %w", err)
	}
	st.RNG = b
	r.lastCheckpoint = time.Now()
	return writeCheckpoint(r.cfg.Dir, r.tr, st)
}

// finished reports whether training is over, after elapsed seconds: every
// problem solved, or a limit of cfg reached.
func (st *state) finished(cfg *Config, elapsed float64) bool {
	return st.totalSolved() == len(st.Solved) ||
		(cfg.MaxIterations > 0 && len(st.Metrics) >= cfg.MaxIterations) ||
		(cfg.TimeLimit > 0 && elapsed >= cfg.TimeLimit.Seconds())
}

// attemptOrder returns the problems the current iteration attempts, in order.
func (st *state) attemptOrder(skipAfter int) []int {
	order := make([]int, 0, len(st.Solved))
	for k := range st.Solved {
		if skipAfter > 0 && int(st.Streak[k]) >= skipAfter {
			continue
		}
		order = append(order, k)
	}
	return order
}

// summary returns the metrics of the current iteration as it stands after
// elapsed seconds of training.
func (st *state) summary(elapsed float64) Iteration {
	it := st.Current
	it.Iteration = st.Iteration
	it.Budget = st.Budget
	it.TotalSolved = st.totalSolved()
	it.TotalExpansions = it.Expansions
	if len(st.Metrics) > 0 {
		it.TotalExpansions += st.Metrics[len(st.Metrics)-1].TotalExpansions
	}
	if it.Updates > 0 {
		it.PolicyLoss /= float64(it.Updates)
		it.HeuristicLoss /= float64(it.Updates)
	}
	it.WallS = elapsed
	return it
}

func (st *state) totalSolved() int {
	n := 0
	for _, s := range st.Solved {
		n += int(s)
	}
	return n
}

// logProgress logs the progress of the iteration under way, which attempts
// n problems, after iterS seconds of it and elapsed seconds of the run.
func (st *state) logProgress(l *slog.Logger, n int, iterS, elapsed float64) {
	l.Info("progress", "iteration", st.Iteration, "attempted", st.Next, "of", n,
		"solved", st.Current.Solved, "new", st.Current.New, "solved_so_far", st.totalSolved(), "budget", st.Budget,
		"expansions_per_s", math.Round(float64(st.Current.Expansions)/max(iterS, 1e-9)), "elapsed", seconds(elapsed))
}

// seconds returns s seconds as a duration rounded to the second.
func seconds(s float64) time.Duration {
	return time.Duration(s * float64(time.Second)).Round(time.Second)
}

// sample turns a solution trajectory into a training sample.
func sample[S comparable](p search.Problem[S], t *search.Trajectory[S]) (model.Sample, error) {
	enc, ok := p.(search.Encoder[S])
	if !ok {
		return model.Sample{}, errors.New("the problem has no network encoding")
	}
	c, h, w := enc.InputShape()
	size := c * h * w
	n := len(t.States)
	s := model.Sample{
		Inputs:     make([]float32, n*size),
		Actions:    t.Actions,
		CostToGo:   make([]float32, n),
		Expansions: t.Expansions,
	}
	for i, x := range t.States {
		enc.Encode(x, s.Inputs[i*size:(i+1)*size])
		s.CostToGo[i] = float32(t.CostToGo(i))
	}
	return s, nil
}

// writeCheckpoint writes the trainer and the state to dir/checkpoint and the
// metrics to dir/metrics.csv and dir/metrics.jsonl. The checkpoint is
// written to a new directory that then replaces the old one, so that a
// crash at any moment leaves a complete checkpoint.
func writeCheckpoint(dir string, tr *model.Trainer, st *state) error {
	wrap := func(err error) error { return fmt.Errorf("bootstrap: checkpoint of %s: %w", dir, err) }
	cp := filepath.Join(dir, checkpointDir)
	tmp, old := cp+".new", cp+".old"
	if err := os.RemoveAll(tmp); err != nil {
		return wrap(err)
	}
	if err := tr.Save(tmp); err != nil {
		return wrap(err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		return wrap(err)
	}
	if err := atomicfile.WriteFile(filepath.Join(tmp, stateFile), b); err != nil {
		return wrap(err)
	}
	if err := os.RemoveAll(old); err != nil {
		return wrap(err)
	}
	if err := os.Rename(cp, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return wrap(err)
	}
	if err := os.Rename(tmp, cp); err != nil {
		return wrap(err)
	}
	if err := os.RemoveAll(old); err != nil {
		return wrap(err)
	}
	metrics := st.Metrics
	if st.Current.Attempted > 0 {
		it := st.summary(st.ElapsedS)
		it.Partial = true
		metrics = append(metrics[:len(metrics):len(metrics)], it)
	}
	if err := writeMetrics(dir, metrics); err != nil {
		return wrap(err)
	}
	return nil
}
