// Package bootstrap implements the Bootstrap process of Orseau & Lelis
// (AAAI 2021), which trains a learner on the problems that the search
// guided by it solves (Train, Resume), and the Bootstrap test procedure of
// the paper's Table 1 (Test). The learner is any Learner: the
// paper's network (package network) or one of the caller's own. Runs are written
// to a directory: checkpoints, which hold the run's whole Config and from
// which an interrupted run resumes exactly with nothing but the directory,
// and the learning curve in metrics.csv and metrics.jsonl.
package bootstrap

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/phs-go/phs/search"
)

// Train runs the Bootstrap process of Orseau & Lelis (2021) on tasks from
// scratch in run directory dir, training l for cfg.Algorithm, until a
// stopping condition of cfg holds or ctx is done, and returns the metrics
// of the finished iterations. Every iteration attempts the problems in
// input order, in groups of cfg.ProblemsPerUpdate searched in parallel (on
// env.Workers goroutines or env.Pool) with one snapshot of l; the solved
// problems' trajectories, in input order, then update l, and cfg.Schedule
// sets the next iteration's budget. The run does not depend on the number
// of workers, unless cfg.Async lets the searches use the snapshot
// published last.
//
// Before it starts, Train refuses a configuration out of range, a learner
// that cannot guide the algorithm (AlgorithmChecker), tasks its evaluator
// cannot evaluate, and a directory that holds a checkpoint or that another
// training uses (ErrLocked). It writes a checkpoint (cfg, l, the run's
// state with the searches that ended since the last update) and the
// metrics before the first search, after every iteration, every
// env.CheckpointEvery and when it stops; Resume continues from there with
// the directory alone. When ctx is done or the time limit passes, the
// searches and the update under way stop at once, and Train returns
// ctx.Err() after the checkpoint. A pool's reports are checked, and a
// solution that does not replay counts as unsolved. docs/ALGORITHMS.md
// says more.
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
	if v := cfg.Validation.Problems; v >= len(tasks) {
		return nil, fmt.Errorf("bootstrap: train: %d validation problems of %d tasks; want fewer", v, len(tasks))
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
// network.LoadLearner). It returns the learner being trained and the metrics of
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
	if err := r.restore(); err != nil {
		return nil, nil, fmt.Errorf("bootstrap: resume: %s: %w", filepath.Join(cp, stateFile), err)
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
	// done holds, by position in the iteration's order, the searches
	// that ended and that the learner has not learned from yet: the
	// group's under way and, in an asynchronous run, some of the next
	// groups'. The checkpoints keep them (state.Group).
	done map[int]*finished[S]
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
	r := &run[S]{dir: dir, tasks: tasks, cfg: cfg, env: env, l: l, st: st, id: crand.Text(), clock: newClock(st), done: map[int]*finished[S]{}}
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
		if _, ok := t.Problem.(Shortener); cfg.ShortenLimit > 0 && !ok {
			return nil, fmt.Errorf("bootstrap: %s: a shorten limit, but the problem is not a Shortener", t.ID)
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
		if err := r.validate(ctx); err != nil || st.Done {
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
// the model on their solutions. The searches of the group that ended
// before a checkpoint that the run resumed from are not run again. It
// returns when the iteration is done, or with st.Done at the time limit,
// or with ctx's error, after a checkpoint.
func (r *run[S]) iteration(ctx context.Context, order []int) error {
	st := r.st
	for st.Next < len(order) {
		if r.timeUp() {
			return r.checkpoint()
		}
		from := st.Next
		group := order[from:min(from+r.cfg.ProblemsPerUpdate, len(order))]
		var todo []int // the positions in group of the searches to run
		var gt []search.Task[S]
		for i, k := range group {
			if r.done[from+i] == nil {
				todo = append(todo, i)
				gt = append(gt, r.tasks[k])
			}
		}
		gctx, stop := r.withTimeLimit(ctx)
		err := search.SolveEach(gctx, gt, r.solvers, func(j int, res search.Result[S]) error {
			i := todo[j]
			r.done[from+i] = &finished[S]{problem: group[i], res: res, version: r.version}
			return r.searchEnded(len(order))
		})
		if err == nil {
			err = r.learn(gctx, group, false)
		}
		if err == nil {
			snap := r.l.Snapshot()
			for _, ev := range r.evs {
				ev.Set(snap)
			}
		}
		err = r.afterGroup(ctx, gctx, len(order), err)
		stop()
		if err != nil || st.Done {
			return err
		}
	}
	return nil
}

// validate runs the validation pass of the iteration whose training pass
// ended (Config.Validation): it searches, with the learner as it is, the
// validation problems never solved and not yet searched in the
// iteration, recording each result as its search ends. It returns with
// st.Done at the time limit, or with ctx's error, after a checkpoint.
func (r *run[S]) validate(ctx context.Context) error {
	st := r.st
	if len(st.ValidSolved) == 0 || st.ValidReached > 0 {
		return nil
	}
	first := len(st.Solved) // the index of the first validation task
	var todo []int
	var vt []search.Task[S]
	for j, solved := range st.ValidSolved {
		if solved == 0 && st.ValidTried[j] == 0 {
			todo = append(todo, j)
			vt = append(vt, r.tasks[first+j])
		}
	}
	if len(todo) == 0 {
		return nil
	}
	snap := r.l.Snapshot() // an asynchronous run does not update r.evs
	for _, ev := range r.evs {
		ev.Set(snap)
	}
	cur := &st.Current
	of := cur.ValidAttempted + len(todo) // the pass's searches, before a resumption included
	gctx, stop := r.withTimeLimit(ctx)
	defer stop()
	last := time.Now()
	err := search.SolveEach(gctx, vt, r.solvers, func(i int, res search.Result[S]) error {
		j := todo[i]
		st.ValidTried[j] = 1
		cur.ValidAttempted++
		cur.ValidExpansions += res.Expansions
		if res.Solved {
			st.ValidSolved[j] = 1
			cur.ValidSolved++
		}
		cur.ValidS += time.Since(last).Seconds()
		last = time.Now()
		if time.Since(r.lastCheckpoint) >= r.env.CheckpointEvery {
			if err := r.checkpoint(); err != nil {
				return err
			}
		}
		if r.env.Logger != nil && time.Since(r.lastLog) >= r.env.LogEvery {
			r.lastLog = time.Now()
			r.env.Logger.Info("validation", "iteration", st.Iteration, "attempted", cur.ValidAttempted, "of", of,
				"solved", cur.ValidSolved, "solved_so_far", count(st.ValidSolved), "problems", len(st.ValidSolved),
				"budget", st.Budget, "elapsed_s", math.Round(r.clock.elapsed()))
		}
		return nil
	})
	if err != nil && gctx.Err() != nil {
		if ctx.Err() == nil {
			st.Done = true // the time limit stopped the searches
		}
		if cerr := r.checkpoint(); cerr != nil {
			return cerr
		}
		return ctx.Err()
	}
	return err
}

// A finished search is one that ended, and that the learner has not
// learned from yet.
type finished[S comparable] struct {
	problem int // its index in the tasks
	res     search.Result[S]
	// version is that of the snapshot the search used, in the count of
	// run.version: negative if it was before the run's process started.
	version int64
}

// errTimeUp is the cause of the cancellation of the searches under way at
// the run's time limit.
var errTimeUp = errors.New("bootstrap: time limit reached")

// withTimeLimit returns ctx, cancelled with the cause errTimeUp at the
// run's time limit, if it has one, and the function that releases it.
func (r *run[S]) withTimeLimit(ctx context.Context) (context.Context, context.CancelFunc) {
	if r.cfg.TimeLimit <= 0 {
		return context.WithCancel(ctx)
	}
	left := r.cfg.TimeLimit - time.Duration(r.clock.elapsed()*float64(time.Second))
	return context.WithTimeoutCause(ctx, left, errTimeUp)
}

// timeUp reports whether the run's time limit has passed, and then marks
// the run done.
func (r *run[S]) timeUp() bool {
	if r.cfg.TimeLimit > 0 && r.clock.elapsed() >= r.cfg.TimeLimit.Seconds() {
		r.st.Done = true
	}
	return r.st.Done
}

// searchEnded follows the end of a search of an iteration of n problems,
// which joined r.done: it logs progress and writes a checkpoint, when
// they are due.
func (r *run[S]) searchEnded(n int) error {
	if time.Since(r.lastCheckpoint) >= r.env.CheckpointEvery {
		if err := r.checkpoint(); err != nil {
			return err
		}
	}
	r.logProgress(n)
	if r.env.afterSearch != nil {
		r.env.afterSearch(r.st, len(r.done))
	}
	return nil
}

// afterGroup ends the attempt of a group, of an iteration of n problems,
// that ended with err; gctx is the context of its searches and of its
// update. If gctx was done first (an interruption or the time limit
// stopped the searches or the update), it writes the checkpoint of the
// state before the group and of the group's searches that ended, marks
// the run done at the time limit, and returns ctx's error. Otherwise it
// writes a checkpoint if it is time, logs progress, and returns ctx's
// error after a checkpoint if ctx is done.
func (r *run[S]) afterGroup(ctx, gctx context.Context, n int, err error) error {
	st := r.st
	if err != nil {
		var lf learnerFailed
		if gctx.Err() == nil || errors.As(err, &lf) {
			return err // the learner may be half updated: no checkpoint
		}
		if ctx.Err() == nil {
			st.Done = true // the time limit stopped the searches or the update
		}
		// The state is still that of the group's start; r.done holds
		// the searches that ended.
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
	r.logProgress(n)
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
// (indices into the tasks), the problems of r.done from position st.Next
// on, counts their results and moves st.Next past the group. With
// stale, it counts the staleness of their snapshots. If the learner
// fails, the state is as it was, and r.done still holds the searches; if
// it returns ctx's error (ctx done: an interruption or the time limit),
// the learner is as it was too, and the error is ctx's, not a
// learnerFailed.
func (r *run[S]) learn(ctx context.Context, group []int, stale bool) error {
	st := r.st
	from := st.Next
	var batch []Solution[S]
	for i, k := range group {
		if res := &r.done[from+i].res; res.Solved {
			// The same trajectory whether the search ran now, in a
			// pool or before a resumption (Solution).
			tr := *res.Trajectory
			tr.LogPi = nil
			batch = append(batch, Solution[S]{Index: k, Problem: r.tasks[k].Problem, Trajectory: &tr})
		}
	}
	cur := &st.Current
	if len(batch) > 0 {
		start := time.Now()
		if err := r.shorten(batch); err != nil {
			return learnerFailed{err}
		}
		u, err := r.l.Learn(ctx, batch)
		if err != nil {
			if ctx.Err() != nil && (errors.Is(err, ctx.Err()) || errors.Is(err, context.Cause(ctx))) && !errors.Is(err, ErrUpdateInterrupted) {
				return err // the learner is as it was
			}
			return learnerFailed{err}
		}
		cur.LearnS += time.Since(start).Seconds()
		cur.Updates += u.Steps
		cur.PolicyLoss += u.PolicyLoss
		cur.HeuristicLoss += u.HeuristicLoss
	}
	for _, s := range batch {
		cur.LearnedSteps += int64(len(s.Trajectory.Actions))
	}
	for i, k := range group {
		f := r.done[from+i]
		delete(r.done, from+i)
		res := &f.res
		cur.Attempted++
		cur.Expansions += res.Expansions
		cur.Evaluations += res.Evaluations
		if stale {
			stale := int(max(r.version-f.version, 0))
			cur.MeanStaleness += float64(stale)
			cur.MaxStaleness = max(cur.MaxStaleness, stale)
		}
		if !res.Solved {
			continue
		}
		cur.Solved++
		cur.SolvedSteps += int64(len(res.Actions))
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

// shorten replaces the trajectories of batch by those of their solutions
// shortened by their problems (Config.ShortenLimit), on env.Workers
// goroutines; without a limit it does nothing.
func (r *run[S]) shorten(batch []Solution[S]) error {
	limit := r.cfg.ShortenLimit
	if limit == 0 {
		return nil
	}
	errs := make([]error, len(batch))
	var wg sync.WaitGroup
	sem := make(chan struct{}, r.env.Workers)
	for i := range batch {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			s := &batch[i]
			t := s.Trajectory
			actions, _, err := s.Problem.(Shortener).Shorten(t.Actions, limit)
			if err == nil {
				t, err = replay(s.Problem, actions, t.Expansions, t.NodeLoss)
			}
			if err != nil {
				errs[i] = fmt.Errorf("%s: shorten: %w", r.tasks[s.Index].ID, err)
				return
			}
			s.Trajectory = t
		})
	}
	wg.Wait()
	return errors.Join(errs...)
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
	clear(st.ValidTried)
	v := r.cfg.Validation
	switch {
	case st.ValidReached > 0: // the last iteration
	case v.Problems > 0 && it.ValidTotalSolved >= v.Needed():
		st.ValidReached = it.Iteration // one more iteration, at the same budget
	default:
		st.Budget = r.cfg.Schedule.next(st.Budget, r.cfg.Options.Budget, p)
	}
	st.Iteration++
	st.Next = 0
	st.Current = Iteration{}
	r.clock.nextIteration()
	if r.env.Logger != nil {
		r.env.Logger.Info("iteration done", "iteration", it.Iteration, "budget", it.Budget,
			"attempted", it.Attempted, "solved", it.Solved, "new", it.New, "solved_so_far", it.TotalSolved,
			"problems", len(st.Solved), "expansions", it.Expansions, "elapsed_s", math.Round(it.WallS))
		if v.Problems > 0 {
			r.env.Logger.Info("validation done", "iteration", it.Iteration, "attempted", it.ValidAttempted, "solved", it.ValidSolved,
				"solved_so_far", it.ValidTotalSolved, "problems", v.Problems, "target_reached", st.ValidReached > 0, "expansions", it.ValidExpansions)
		}
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
	st.Group = st.Group[:0]
	for _, pos := range slices.Sorted(maps.Keys(r.done)) {
		f := r.done[pos]
		st.Group = append(st.Group, searchRecord{
			Pos: pos, Problem: f.problem, Solved: f.res.Solved,
			Expansions: f.res.Expansions, Evaluations: f.res.Evaluations, Actions: f.res.Actions,
			Staleness: max(r.version-f.version, 0),
		})
	}
	r.lastCheckpoint = time.Now()
	return writeCheckpoint(r.dir, r.l, st)
}

// restore takes into r.done the searches that st.Group holds, their
// solutions replayed from their problems' start states; it fails on a
// record that is not a search of the run's within its budget.
func (r *run[S]) restore() error {
	st := r.st
	for _, g := range st.Group {
		p := r.tasks[g.Problem]
		rep := Report{
			Job:    Job{Pos: g.Pos, Problem: g.Problem, Budget: st.Budget},
			Solved: g.Solved, Expansions: g.Expansions, Evaluations: g.Evaluations, Actions: g.Actions,
		}
		res, err := result(p.Problem, &rep, st.Budget, r.nodeLoss)
		if err != nil {
			return fmt.Errorf("group: position %d (%s): %w", g.Pos, p.ID, err)
		}
		r.done[g.Pos] = &finished[S]{problem: g.Problem, res: res, version: -g.Staleness}
	}
	st.Group = nil
	return nil
}

// logProgress logs, if the run has a logger and LogEvery has passed since
// the last time, the progress of the iteration under way, which attempts
// n problems: the searches that ended count, learned from or not.
func (r *run[S]) logProgress(n int) {
	if r.env.Logger == nil || time.Since(r.lastLog) < r.env.LogEvery {
		return
	}
	r.lastLog = time.Now()
	st := r.st
	// pending counts the problems first solved by the searches not yet
	// learned from, which st does not count yet.
	solved, pending, expansions := st.Current.Solved, 0, st.Current.Expansions
	for _, f := range r.done {
		expansions += f.res.Expansions
		if f.res.Solved {
			solved++
			if st.Solved[f.problem] == 0 {
				pending++
			}
		}
	}
	r.env.Logger.Info("progress", "iteration", st.Iteration, "attempted", st.Next+len(r.done), "of", n,
		"solved", solved, "new", st.Current.New+pending, "solved_so_far", st.totalSolved()+pending, "budget", st.Budget,
		"expansions_per_s", math.Round(float64(expansions)/max(r.clock.iteration(), 1e-9)), "elapsed_s", math.Round(r.clock.elapsed()))
}
