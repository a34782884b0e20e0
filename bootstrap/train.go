// Package bootstrap implements the Bootstrap process of Orseau & Lelis
// (AAAI 2021), which trains a network on the problems that the search
// guided by it solves (Train, Resume), and the Bootstrap test procedure of
// the paper's Table 1 (BootstrapTest). Runs are written to a directory:
// checkpoints, from which an interrupted run resumes exactly, and the
// learning curve in metrics.csv and metrics.jsonl.
package bootstrap

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// Train runs the Bootstrap process of Orseau & Lelis (2021) on tasks from
// scratch, training m in place for cfg.Algorithm, until a stopping
// condition of cfg holds or ctx is done. It returns the metrics of the
// finished iterations. It writes a checkpoint and the metrics to cfg.Dir
// after every iteration, at least every cfg.CheckpointEvery, and when it
// stops; Resume continues the run from there. It returns ctx.Err() if
// interrupted, after writing the checkpoint.
//
// Train refuses a configuration out of range, a model that lacks a head
// the algorithm reads, tasks that the model cannot evaluate, a directory
// that already holds a checkpoint and one that another training uses
// (ErrLocked), before it starts; it then writes a first checkpoint, before
// any search.
//
// Every iteration attempts the problems in input order (skipping, with
// SkipSolvedAfter, the long-solved ones), in consecutive groups of
// ProblemsPerUpdate. The searches of a group run in parallel on
// cfg.Workers workers against the same weights; when the whole group is done,
// the solved problems' trajectories, taken in input order and shuffled
// with the seeded generator at each of the Passes passes, update the model,
// one optimiser step per trajectory (or per StepTrajectories of them),
// with the losses of the model's configuration. Because a group's searches all see the weights left by
// the previous group, and a search is deterministic given its weights, the
// run does not depend on the number of workers or on the order in which
// searches finish. If an iteration solves no problem that was never solved
// before, the budget grows by BudgetGrowth.
//
// With cfg.Async, the workers do not wait for the updates: they take the
// iteration's problems in order, as many as two groups and one per worker
// ahead of the learner, and search each with the weights the learner
// published last (it publishes after each group's update). The groups,
// their updates and the schedule are as above; the weights a search used
// may be a few updates old (its staleness, in the metrics), so the run
// depends on the timing of the searches. An interruption or a checkpoint
// keeps only the groups already learned from; searches under way are lost.
// The searches run on cfg.Workers goroutines, or on cfg.Pool: the learner
// counts one report per problem and iteration, checks each solution by
// replaying it, and counts one that does not reach the goal as unsolved.
func Train[S comparable](ctx context.Context, tasks []search.Task[S], m *model.Model, cfg Config) ([]Iteration, error) {
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("bootstrap: train: %w", err)
	}
	r, err := newRun(tasks, model.NewTrainer(m, cfg.optimizer()), cfg, newState(&cfg, len(tasks), ProblemsHash(tasks)))
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
// Logger, LogEvery). The checkpoint's algorithm must be cfg's, and its
// problems those of tasks (the same IDs and start states, in the same
// order). It returns ErrTrainingDone, with the model and the metrics, if
// the run had already finished within cfg's limits. Resume takes the run
// directory's lock, as Train does: it fails with ErrLocked while another
// training uses the directory.
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
	if st.ProblemsSHA256 != ProblemsHash(tasks) {
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
	// version counts the updates of the run under way (one per group).
	version int64
	// id tells the jobs of this process from those of earlier ones.
	id string
	// nodeLoss is the loss of a node in the searches.
	nodeLoss float64
	clock    clock
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
	r := &run[S]{tasks: tasks, cfg: cfg, tr: tr, st: st, id: crand.Text(), clock: newClock(st)}
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
	r.nodeLoss = r.solvers[0].Options().NodeLoss
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
	pool := r.cfg.Pool
	if r.cfg.Async && pool == nil {
		ctx, cancel := context.WithCancel(ctx)
		lw, err := startLocal(ctx, r.tasks, r.cfg.Workers, r.cfg.window(), r.cfg.Algorithm, r.cfg.Options, r.tr.Model())
		if err != nil {
			cancel()
			return err
		}
		defer func() {
			cancel()
			lw.wait() // no worker outlives the run
		}()
		pool = lw
	}
	for {
		order := st.attemptOrder(r.cfg.SkipSolvedAfter)
		for _, s := range r.solvers {
			s.SetBudget(st.Budget)
		}
		var err error
		if pool != nil {
			err = r.iterationAsync(ctx, pool, order)
		} else {
			err = r.iteration(ctx, order)
		}
		if err != nil || st.Done {
			return err
		}
		if err := r.endIteration(order); err != nil || st.Done {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// iteration attempts the problems of order from st.Next on, a group at a
// time: the searches of a group run in parallel, then the learner updates
// the model on their solutions. It returns when the iteration is done, or
// with st.Done at the time limit, or with ctx's error after a checkpoint.
func (r *run[S]) iteration(ctx context.Context, order []int) error {
	st := r.st
	for st.Next < len(order) {
		if r.timeUp() {
			return r.checkpoint()
		}
		group := order[st.Next:min(st.Next+r.cfg.ProblemsPerUpdate, len(order))]
		gt := r.groupTasks(group)
		results := make([]search.Result[S], len(group))
		err := search.SolveAll(ctx, gt, r.solvers, func(i int, res search.Result[S]) error {
			results[i] = res
			return nil
		})
		if err == nil {
			err = r.learn(group, results, nil)
		}
		if err := r.afterGroup(ctx, len(order), err); err != nil {
			return err
		}
	}
	return nil
}

// timeUp reports whether the run's time limit has passed, and then marks
// the run done.
func (r *run[S]) timeUp() bool {
	if r.cfg.TimeLimit > 0 && r.clock.elapsed() >= r.cfg.TimeLimit.Seconds() {
		r.st.Done = true
	}
	return r.st.Done
}

// groupTasks returns the tasks of group.
func (r *run[S]) groupTasks(group []int) []search.Task[S] {
	gt := make([]search.Task[S], len(group))
	for i, k := range group {
		gt[i] = r.tasks[k]
	}
	return gt
}

// afterGroup ends the attempt of a group, of an iteration of n problems,
// that ended with err: on an interruption it writes the checkpoint of the
// state before the group; otherwise it writes one if it is time, logs
// progress, and returns ctx's error after a checkpoint if ctx is done.
func (r *run[S]) afterGroup(ctx context.Context, n int, err error) error {
	st := r.st
	if err != nil {
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
		st.logProgress(r.cfg.Logger, n, r.clock.iteration(), r.clock.elapsed())
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
	return nil
}

// learn counts the results of the searches of group (indices into the
// tasks), updates the model on their solutions and moves st.Next past the
// group. versions, if not nil, holds the version of the weights each
// search used, for the staleness.
func (r *run[S]) learn(group []int, results []search.Result[S], versions []int64) error {
	st := r.st
	r.samples = r.samples[:0]
	cur := &st.Current
	for i, res := range results {
		k := group[i]
		cur.Attempted++
		cur.Expansions += res.Expansions
		cur.Evaluations += res.Evaluations
		if versions != nil {
			stale := int(max(r.version-versions[i], 0))
			cur.MeanStaleness += float64(stale)
			cur.MaxStaleness = max(cur.MaxStaleness, stale)
		}
		if !res.Solved {
			continue
		}
		cur.Solved++
		st.SolvedNow[k] = 1
		if st.Solved[k] == 0 {
			st.Solved[k] = 1
			cur.New++
		}
		s, err := sample(r.tasks[k].Problem, res.Trajectory)
		if err != nil {
			return fmt.Errorf("bootstrap: %s: %w", r.tasks[k].ID, err)
		}
		r.samples = append(r.samples, s)
	}
	for range r.cfg.Passes {
		r.shuffle.Shuffle(len(r.samples), func(i, j int) { r.samples[i], r.samples[j] = r.samples[j], r.samples[i] })
		for batch := range slices.Chunk(r.samples, r.cfg.StepTrajectories) {
			l, err := r.tr.StepBatch(batch)
			if err != nil {
				return fmt.Errorf("bootstrap: %w", err)
			}
			cur.Updates++
			cur.PolicyLoss += l.Policy
			cur.HeuristicLoss += l.Heuristic
		}
	}
	r.version++
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
