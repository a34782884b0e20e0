package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// A snapshot is a version of the weights that the learner published. Its
// model is never changed once published; workers copy it.
type snapshot struct {
	version int64
	model   *model.Model
}

// An asyncWorker searches with its own copy of the published weights.
type asyncWorker[S comparable] struct {
	local   *model.Model
	version int64 // of the weights in local
	solver  *search.Solver[S]
}

// A found is the result of the search of the problem at position pos of an
// iteration's order, with the version of the weights it used.
type found[S comparable] struct {
	pos     int
	res     search.Result[S]
	version int64
	err     error
}

// errStopped ends the searches of an asynchronous iteration that stops
// before its end.
var errStopped = errors.New("bootstrap: iteration stopped")

// iterationAsync attempts the problems of order from st.Next on, as
// iteration does, but the workers search on while the learner learns: a
// dispatcher hands them the problems in order, at most a group and a
// problem per worker ahead of the learner; each searches with the weights
// published last; the learner takes the results of each group, in order,
// learns from them and publishes the new weights.
func (r *run[S]) iterationAsync(ctx context.Context, order []int) error {
	st := r.st
	workers, err := r.asyncWorkers()
	if err != nil {
		return err
	}
	r.publish()
	ctx, cancel := context.WithCancelCause(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel(errStopped)
		wg.Wait() // no goroutine outlives the iteration
	}()

	// ahead holds a token for each problem dispatched and not yet learned
	// from.
	ahead := make(chan struct{}, r.cfg.ProblemsPerUpdate+len(workers))
	jobs := make(chan int)
	results := make(chan found[S], len(workers))
	go func() {
		defer close(jobs)
		for pos := st.Next; pos < len(order); pos++ {
			select {
			case ahead <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- pos:
			case <-ctx.Done():
				return
			}
		}
	}()
	for _, w := range workers {
		wg.Go(func() {
			for pos := range jobs {
				v := w.refresh(r.published.Load())
				res, err := w.solver.Solve(ctx, r.tasks[order[pos]].Problem)
				if err != nil {
					err = fmt.Errorf("%s: %w", r.tasks[order[pos]].ID, err)
				}
				select {
				case results <- found[S]{pos, res, v, err}:
				case <-ctx.Done():
					return
				}
			}
		})
	}

	held := make(map[int]found[S])
	for st.Next < len(order) {
		if r.timeUp() {
			return r.checkpoint()
		}
		group := order[st.Next:min(st.Next+r.cfg.ProblemsPerUpdate, len(order))]
		res := make([]search.Result[S], len(group))
		versions := make([]int64, len(group))
		err := r.collect(ctx, results, held, st.Next, res, versions)
		if err == nil {
			err = r.learn(group, res, versions)
			for range group {
				<-ahead
			}
			r.publish()
		}
		if err := r.afterGroup(ctx, len(order), err); err != nil {
			return err
		}
	}
	return nil
}

// collect fills res and versions with the results of the problems at
// positions from on, taking them from held or from results and holding
// those that come early.
func (r *run[S]) collect(ctx context.Context, results <-chan found[S], held map[int]found[S], from int, res []search.Result[S], versions []int64) error {
	for i := range res {
		f, ok := held[from+i]
		for !ok {
			select {
			case f = <-results:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
			if f.err != nil {
				return f.err
			}
			if f.pos != from+i {
				held[f.pos] = f
			} else {
				ok = true
			}
		}
		delete(held, from+i)
		res[i], versions[i] = f.res, f.version
	}
	return nil
}

// asyncWorkers returns the workers of an asynchronous iteration, each with
// its copy of the model and a solver that reads it; they are made once per
// run.
func (r *run[S]) asyncWorkers() ([]*asyncWorker[S], error) {
	if r.workers != nil {
		for _, w := range r.workers {
			w.solver.SetBudget(r.st.Budget)
		}
		return r.workers, nil
	}
	for range r.cfg.Workers {
		local := r.tr.Model().Clone()
		s, err := search.NewSolver[S](r.cfg.Algorithm, model.NewEvaluator[S](local), r.cfg.Options)
		if err != nil {
			return nil, fmt.Errorf("bootstrap: %w", err)
		}
		s.SetBudget(r.st.Budget)
		r.workers = append(r.workers, &asyncWorker[S]{local: local, version: r.version, solver: s})
	}
	return r.workers, nil
}

// publish makes the trainer's current weights the ones the workers use.
func (r *run[S]) publish() {
	if p := r.published.Load(); p != nil && p.version == r.version {
		return
	}
	r.published.Store(&snapshot{version: r.version, model: r.tr.Model().Clone()})
}

// refresh copies the weights of p into w's model if they are newer, and
// returns the version w searches with.
func (w *asyncWorker[S]) refresh(p *snapshot) int64 {
	if p.version != w.version {
		w.local.CopyWeightsFrom(p.model)
		w.version = p.version
	}
	return w.version
}
