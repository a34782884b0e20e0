// Package bootstrap implements the Bootstrap process of Orseau & Lelis
// (AAAI 2021), which trains a learner on the problems that the search
// guided by it solves (Train, Resume), and the Bootstrap test procedure of
// the paper's Table 1 (BootstrapTest). The learner is any Learner: the
// paper's network (Network) or one of the caller's own. Runs are written
// to a directory: checkpoints, which hold the run's whole Config and from
// which an interrupted run resumes exactly with nothing but the directory,
// and the learning curve in metrics.csv and metrics.jsonl.
package bootstrap

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/phs-go/phs/search"
)

// Train runs the Bootstrap process of Orseau & Lelis (2021) on tasks from
// scratch in run directory dir, training l for cfg.Algorithm, until a
// stopping condition of cfg holds or ctx is done. It returns the metrics
// of the finished iterations. It writes a checkpoint (cfg, the learner,
// the run's state) and the metrics to dir after every iteration, at least
// every env.CheckpointEvery, and when it stops; Resume continues the run
// from there with nothing but the directory and the environment. It
// returns ctx.Err() if interrupted, after writing the checkpoint.
//
// Train refuses a configuration out of range, a learner that cannot guide
// the algorithm (AlgorithmChecker), tasks that the learner's evaluator
// cannot evaluate (search.Checker), a directory that already holds a
// checkpoint and one that another training uses (ErrLocked), before it
// starts; it then writes a first checkpoint, before any search.
//
// Every iteration attempts the problems in input order (skipping, with
// SkipSolvedAfter, the long-solved ones), in consecutive groups of
// ProblemsPerUpdate. The searches of a group run in parallel on
// env.Workers workers against the same snapshot of the learner; when the
// whole group is done, the solved problems' trajectories, taken in input
// order, update the learner (Learner.Learn). Because a group's searches
// all see the learner left by the previous group, and a search is
// deterministic given its evaluator, the run does not depend on the
// number of workers or on the order in which searches finish. After each
// iteration, cfg.Schedule sets the budget of the next (Solver.SetBudget).
//
// With cfg.Async, the workers do not wait for the updates: they take the
// iteration's problems in order, as many as two groups and one per worker
// ahead of the learner, and search each with the snapshot the learner
// published last (it publishes after each group's update). The groups,
// their updates and the schedule are as above; the snapshot a search used
// may be a few updates old (its staleness, in the metrics), so the run
// depends on the timing of the searches. An interruption or a checkpoint
// keeps only the groups already learned from; searches under way are lost.
// The searches run on env.Workers goroutines, or on env.Pool: the learner
// counts one report per problem and iteration, checks each solution by
// replaying it, and counts one that does not reach the goal as unsolved.
func Train[S comparable](ctx context.Context, dir string, tasks []search.Task[S], l Learner[S], cfg Config, env Env) ([]Iteration, error) {
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("bootstrap: train: %w", err)
	}
	if err := env.check(&cfg); err != nil {
		return nil, fmt.Errorf("bootstrap: train: %w", err)
	}
	if dir == "" {
		return nil, errors.New("bootstrap: train: no run directory")
	}
	r, err := newRun(dir, tasks, l, env, newState(cfg, len(tasks), ProblemsHash(tasks)))
	if err != nil {
		return nil, err
	}
	unlock, err := lockRun(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	for _, name := range []string{checkpointDir, checkpointDir + ".old"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return nil, fmt.Errorf("bootstrap: train: %s already holds a run; resume it or choose another directory", dir)
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

// Resume continues the run in directory dir on the same tasks, from its
// last checkpoint, which holds the run's Config; load reads the learner
// that Learner.Save wrote to the directory it is given (such as
// LoadNetwork). It returns the learner being trained and the metrics of
// the finished iterations so far. env is the environment of the run from
// now on; its Limits, if not nil, replace the run's. The checkpoint's
// problems must be those of tasks (the same IDs and start states, in the
// same order). It returns ErrTrainingDone, with the learner and the
// metrics, if the run had already finished within its limits. Resume
// takes the run directory's lock, as Train does: it fails with ErrLocked
// while another training uses the directory.
func Resume[S comparable](ctx context.Context, dir string, tasks []search.Task[S], load func(dir string) (Learner[S], error), env Env) (Learner[S], []Iteration, error) {
	unlock, err := lockRun(dir)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	cp, st, err := loadState(dir, len(tasks))
	if err != nil {
		return nil, nil, err
	}
	if env.Limits != nil {
		st.Config.Limits = *env.Limits
	}
	if err := env.check(&st.Config); err != nil {
		return nil, nil, fmt.Errorf("bootstrap: resume: %w", err)
	}
	if st.ProblemsSHA256 != ProblemsHash(tasks) {
		return nil, nil, fmt.Errorf("bootstrap: resume %s: the checkpoint is for other problems (their IDs or start states differ)", dir)
	}
	l, err := load(cp)
	if err != nil {
		return nil, nil, fmt.Errorf("bootstrap: resume %s: %w", dir, err)
	}
	if st.Done && st.finished(st.ElapsedS) {
		return l, st.Metrics, ErrTrainingDone
	}
	st.Done = false // the limits were raised
	r, err := newRun(dir, tasks, l, env, st)
	if err != nil {
		return nil, nil, err
	}
	err = r.loop(ctx)
	return l, st.Metrics, err
}

// ReadConfig returns the configuration of the run in directory dir, as
// its last checkpoint holds it.
func ReadConfig(dir string) (Config, error) {
	_, st, err := loadState(dir, -1)
	if err != nil {
		return Config{}, err
	}
	return st.Config, nil
}

// A run is a training run under way.
type run[S comparable] struct {
	dir   string
	tasks []search.Task[S]
	cfg   *Config // st.Config
	env   Env
	l     Learner[S]
	st    *state
	// solvers run the searches of a synchronous run, one per worker,
	// with the evaluators evs of the learner's last snapshot.
	solvers []*search.Solver[S]
	evs     []*Evaluator[S]
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

// newRun checks that the learner fits the algorithm and the tasks, and
// returns a run of them in dir from state st, whose Config is checked.
// It writes nothing.
func newRun[S comparable](dir string, tasks []search.Task[S], l Learner[S], env Env, st *state) (*run[S], error) {
	cfg := &st.Config
	if c, ok := l.(AlgorithmChecker); ok {
		if err := c.CheckAlgorithm(cfg.Algorithm); err != nil {
			return nil, fmt.Errorf("bootstrap: %w", err)
		}
	}
	r := &run[S]{dir: dir, tasks: tasks, cfg: cfg, env: env, l: l, st: st, id: crand.Text(), clock: newClock(st)}
	snap := l.Snapshot()
	for range env.Workers {
		ev := NewEvaluator(snap)
		s, err := search.NewSolver[S](cfg.Algorithm, ev, cfg.Options)
		if err != nil {
			return nil, fmt.Errorf("bootstrap: %w", err)
		}
		r.solvers, r.evs = append(r.solvers, s), append(r.evs, ev)
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
	pool := r.env.Pool
	if r.cfg.Async && pool == nil {
		ctx, cancel := context.WithCancel(ctx)
		lw, err := startLocal(ctx, r.tasks, r.env.Workers, r.window(), r.cfg.Algorithm, r.cfg.Options, r.l.Snapshot())
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
			err = r.learn(ctx, group, results, nil)
		}
		if err == nil {
			snap := r.l.Snapshot()
			for _, ev := range r.evs {
				ev.Set(snap)
			}
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
		var lf learnerFailed
		if ctx.Err() == nil || errors.As(err, &lf) {
			return err // the learner may be half updated: no checkpoint
		}
		// The group is lost; the state is still that of its start.
		if cerr := r.checkpoint(); cerr != nil {
			return cerr
		}
		return ctx.Err()
	}
	checkpointed := false
	if time.Since(r.lastCheckpoint) >= r.env.CheckpointEvery {
		if err := r.checkpoint(); err != nil {
			return err
		}
		checkpointed = true
	}
	if r.env.Logger != nil && time.Since(r.lastLog) >= r.env.LogEvery {
		r.lastLog = time.Now()
		st.logProgress(r.env.Logger, n, r.clock.iteration(), r.clock.elapsed())
	}
	if r.env.afterChunk != nil {
		r.env.afterChunk(st, checkpointed)
	}
	if err := ctx.Err(); err != nil {
		if cerr := r.checkpoint(); cerr != nil {
			return cerr
		}
		return err
	}
	return nil
}

// learn updates the learner on the solutions of the searches of group
// (indices into the tasks), counts their results and moves st.Next past
// the group. versions, if not nil, holds the version of the snapshot each
// search used, for the staleness. If the learner fails, the state is as
// it was.
func (r *run[S]) learn(ctx context.Context, group []int, results []search.Result[S], versions []int64) error {
	st := r.st
	var batch []Solution[S]
	for i, res := range results {
		if res.Solved {
			batch = append(batch, Solution[S]{Index: group[i], Problem: r.tasks[group[i]].Problem, Trajectory: res.Trajectory})
		}
	}
	cur := &st.Current
	if len(batch) > 0 {
		u, err := r.l.Learn(ctx, batch)
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) && !errors.Is(err, ErrUpdateInterrupted) {
				return err // the learner is as it was
			}
			return learnerFailed{err}
		}
		cur.Updates += u.Steps
		cur.PolicyLoss += u.PolicyLoss
		cur.HeuristicLoss += u.HeuristicLoss
	}
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
		cur.SolvedExpansions += res.Expansions
		st.SolvedNow[k] = 1
		if st.Solved[k] == 0 {
			st.Solved[k] = 1
			cur.New++
		}
	}
	r.version++
	st.Next += len(group)
	return nil
}

// learnerFailed is the error of a Learner's Learn, after which the
// learner may be half updated.
type learnerFailed struct{ err error }

func (e learnerFailed) Error() string { return "bootstrap: learn: " + e.err.Error() }
func (e learnerFailed) Unwrap() error { return e.err }

// endIteration closes the iteration that attempted order: it records its
// metrics, updates the streaks and the budget, starts the next iteration,
// decides whether training is over and writes a checkpoint.
func (r *run[S]) endIteration(order []int) error {
	st := r.st
	st.Current.IterationS = r.clock.iteration()
	it := st.summary(r.clock.elapsed())
	p := st.lastPass(it)
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
	st.Budget = r.cfg.Schedule.next(st.Budget, r.cfg.Options.Budget, p)
	st.Iteration++
	st.Next = 0
	st.Current = Iteration{}
	r.clock.nextIteration()
	if r.env.Logger != nil {
		r.env.Logger.Info("iteration done", "iteration", it.Iteration, "budget", it.Budget,
			"attempted", it.Attempted, "solved", it.Solved, "new", it.New, "solved_so_far", it.TotalSolved,
			"problems", len(r.tasks), "expansions", it.Expansions, "elapsed_s", math.Round(it.WallS))
	}
	st.Done = st.finished(r.clock.elapsed())
	return r.checkpoint()
}

// lastPass returns what the schedule knows of the iteration that just
// ended, whose metrics are it, before they join st.Metrics.
func (st *state) lastPass(it Iteration) pass {
	best := 0
	for _, m := range st.Metrics {
		best = max(best, m.Solved)
	}
	return pass{
		problems:     len(st.Solved),
		solvedBefore: it.TotalSolved - it.New,
		solvedAfter:  it.TotalSolved,
		solved:       it.Solved,
		unsolved:     it.Attempted - it.Solved,
		expansions:   it.SolvedExpansions,
		bestSolved:   best,
	}
}

// checkpoint writes the state, with the configuration, the learner and
// the metrics to the run directory.
func (r *run[S]) checkpoint() error {
	st := r.st
	st.ElapsedS = r.clock.elapsed()
	st.Current.IterationS = r.clock.iteration()
	r.lastCheckpoint = time.Now()
	return writeCheckpoint(r.dir, r.l, st)
}

// logProgress logs the progress of the iteration under way, which attempts
// n problems, after iterS seconds of it and elapsed seconds of the run.
func (st *state) logProgress(l *slog.Logger, n int, iterS, elapsed float64) {
	l.Info("progress", "iteration", st.Iteration, "attempted", st.Next, "of", n,
		"solved", st.Current.Solved, "new", st.Current.New, "solved_so_far", st.totalSolved(), "budget", st.Budget,
		"expansions_per_s", math.Round(float64(st.Current.Expansions)/max(iterS, 1e-9)), "elapsed_s", math.Round(elapsed))
}
