package bootstrap

import (
	"context"
	"encoding"
	"errors"
	"fmt"
	"sync"

	"github.com/phs-go/phs/search"
)

// A Job asks for the search of one problem of an iteration.
type Job struct {
	// Run identifies the learner's process: reports of searches that an
	// earlier process of the same run asked for are dropped.
	Run string `json:"run"`
	// Iteration is the Bootstrap iteration, Pos the job's position in its
	// order of problems, Problem the index of the task and Budget the
	// expansion budget.
	Iteration int   `json:"iteration"`
	Pos       int   `json:"pos"`
	Problem   int   `json:"problem"`
	Budget    int64 `json:"budget"`
}

// A Report is the outcome of a Job.
type Report struct {
	Job
	// Version is the version of the snapshot the search used.
	Version int64 `json:"version"`
	Solved  bool  `json:"solved"`
	// Expansions and Evaluations are those of the search.
	Expansions  int64 `json:"expansions"`
	Evaluations int64 `json:"evaluations"`
	// Actions is the solution, if solved.
	Actions []int `json:"actions,omitempty"`
	// Stop says why an unsolved search ended (search.Result.Stop).
	Stop string `json:"stop,omitempty"`
	// Err, if not empty, says why the search failed; the run then stops
	// with it.
	Err string `json:"error,omitempty"`
	// Worker names the worker, for messages.
	Worker string `json:"worker,omitempty"`
}

// A Pool carries out the searches of an asynchronous run (Config.Async):
// the learner's process has one of Env.Workers goroutines; Env.Pool may
// run them elsewhere, such as on the worker processes of package cluster.
//
// A Pool must deliver a report of each submitted job at least once;
// the learner counts one report per job and drops the others: reports of
// another Job.Run, of an iteration other than the current one, and of
// positions already reported.
type Pool interface {
	// Publish makes snap, at version v, the learner of the searches that
	// start from now on. snap is the learner's Snapshot[S], for the S of
	// the run's problems; nothing changes it. A pool of other processes
	// sends snap.MarshalBinary() to workers that decode it.
	Publish(ctx context.Context, v int64, snap encoding.BinaryMarshaler) error
	// Submit asks for the search of j. It may block until a worker can
	// take it.
	Submit(ctx context.Context, j Job) error
	// Reports delivers the outcomes of the jobs.
	Reports() <-chan Report
}

// localWorkers are the Pool of the learner's process: goroutines that
// search with the snapshot published last, which they share.
type localWorkers[S comparable] struct {
	tasks   []search.Task[S]
	jobs    chan Job
	reports chan Report

	mu      sync.Mutex
	latest  Snapshot[S] // the snapshot published last
	version int64

	wg sync.WaitGroup // of the goroutines
}

// startLocal starts n local workers that search tasks with alg and opts,
// until ctx is done; the snapshot is snap until the first Publish.
// Up to queued reports wait for the learner without holding up a worker:
// the learner reads none while it learns, so queued should be at least
// the number of jobs that may be under way at once. wait waits for the
// workers to stop.
func startLocal[S comparable](ctx context.Context, tasks []search.Task[S], n, queued int, alg search.Algorithm, opts search.Options, snap Snapshot[S]) (*localWorkers[S], error) {
	lw := &localWorkers[S]{
		tasks:   tasks,
		jobs:    make(chan Job),
		reports: make(chan Report, queued),
		latest:  snap,
	}
	evs := make([]*Evaluator[S], n)
	solvers := make([]*search.Solver[S], n)
	for i := range n {
		evs[i] = NewEvaluator(snap)
		s, err := search.NewSolver[S](alg, evs[i], opts)
		if err != nil {
			return nil, fmt.Errorf("bootstrap: %w", err)
		}
		solvers[i] = s
	}
	for i := range n {
		lw.wg.Go(func() { lw.work(ctx, solvers[i], evs[i]) })
	}
	return lw, nil
}

// Publish makes snap, a Snapshot[S], the snapshot of the searches that
// start from now on; the searches under way keep theirs.
func (lw *localWorkers[S]) Publish(_ context.Context, v int64, snap encoding.BinaryMarshaler) error {
	s, ok := snap.(Snapshot[S])
	if !ok {
		return fmt.Errorf("bootstrap: publish: a %T is not a snapshot of the run's learner", snap)
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if v != lw.version {
		lw.latest = s
		lw.version = v
	}
	return nil
}

func (lw *localWorkers[S]) Submit(ctx context.Context, j Job) error {
	select {
	case lw.jobs <- j:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (lw *localWorkers[S]) Reports() <-chan Report { return lw.reports }

func (lw *localWorkers[S]) wait() { lw.wg.Wait() }

// work runs the jobs with solver s, whose evaluator is ev, until ctx is
// done.
func (lw *localWorkers[S]) work(ctx context.Context, s *search.Solver[S], ev *Evaluator[S]) {
	version := int64(0)
	for {
		var j Job
		select {
		case j = <-lw.jobs:
		case <-ctx.Done():
			return
		}
		lw.mu.Lock()
		if lw.version != version {
			ev.Set(lw.latest)
			version = lw.version
		}
		rep := Report{Job: j, Version: version}
		lw.mu.Unlock()
		s.SetBudget(j.Budget)
		res, err := s.Solve(ctx, lw.tasks[j.Problem].Problem)
		if err != nil {
			rep.Err = err.Error()
		}
		rep.Solved, rep.Actions, rep.Stop = res.Solved, res.Actions, res.Stop(j.Budget)
		rep.Expansions, rep.Evaluations = res.Expansions, res.Evaluations
		select {
		case lw.reports <- rep:
		case <-ctx.Done():
			return
		}
	}
}

// result turns the report of a search of p into its result: the solution,
// replayed from p's root, must reach the goal. nodeLoss is the loss of a
// node in the search.
//
// The counts must be those of a search within budget: at most budget
// expansions, at most as many evaluations as the children of the
// expansions and the root, a solution of at most one action more than the
// expansions. A report that fails a check gives the result of an unsolved
// search whose counts are those of the report brought within these bounds.
func result[S comparable](p search.Problem[S], rep *Report, budget int64, nodeLoss float64) (search.Result[S], error) {
	res := search.Result[S]{Solved: rep.Solved, Expansions: rep.Expansions, Evaluations: rep.Evaluations}
	fail := func(err error) (search.Result[S], error) {
		a := int64(max(p.NumActions(), 1))
		exp := min(max(rep.Expansions, 0), budget)
		return search.Result[S]{Expansions: exp, Evaluations: min(max(rep.Evaluations, 0), (exp+1)*a)}, err
	}
	a := int64(max(p.NumActions(), 1))
	switch {
	case rep.Budget != budget:
		return fail(fmt.Errorf("budget %d; the iteration's is %d", rep.Budget, budget))
	case rep.Expansions < 0 || rep.Evaluations < 0:
		return fail(errors.New("negative counts"))
	case rep.Expansions > budget:
		return fail(fmt.Errorf("%d expansions for a budget of %d", rep.Expansions, budget))
	case rep.Evaluations > (rep.Expansions+1)*a:
		return fail(fmt.Errorf("%d evaluations in %d expansions", rep.Evaluations, rep.Expansions))
	case !rep.Solved && len(rep.Actions) > 0:
		return fail(errors.New("actions without a solution"))
	case int64(len(rep.Actions)) > rep.Expansions+1:
		return fail(fmt.Errorf("a solution of %d actions in %d expansions", len(rep.Actions), rep.Expansions))
	case !rep.Solved:
		return res, nil
	}
	t, err := replay(p, rep.Actions, rep.Expansions, nodeLoss)
	if err != nil {
		return fail(err)
	}
	res.Actions, res.Cost, res.Trajectory = rep.Actions, float64(len(rep.Actions))*nodeLoss, t
	return res, nil
}

// replay returns the trajectory of actions from p's root, which must reach
// the goal, found in expansions with node loss nodeLoss; its LogPi is nil.
func replay[S comparable](p search.Problem[S], actions []int, expansions int64, nodeLoss float64) (*search.Trajectory[S], error) {
	t := &search.Trajectory[S]{Actions: actions, Expansions: expansions, NodeLoss: nodeLoss}
	s, n := p.Root(), p.NumActions()
	for i, a := range actions {
		if a < 0 || a >= n {
			return nil, fmt.Errorf("step %d: action %d out of range", i+1, a)
		}
		next, ok := p.Apply(s, a)
		if !ok {
			return nil, fmt.Errorf("step %d: action %d not legal", i+1, a)
		}
		t.States = append(t.States, s)
		s = next
	}
	if !p.IsGoal(s) {
		return nil, errors.New("the solution does not reach the goal")
	}
	return t, nil
}
