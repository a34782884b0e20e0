package bootstrap

import (
	"context"
	"fmt"

	"github.com/phs-go/phs/search"
)

// iterationAsync attempts the problems of order from st.Next on, as
// iteration does, but the pool's workers search on while the learner
// learns: a dispatcher submits the problems in order, at most two groups
// and a problem per worker (Env.Workers) ahead of the learner; each
// search uses the snapshot published last; the learner takes the reports
// of each group, in order, learns from them and publishes the new snapshot.
func (r *run[S]) iterationAsync(ctx context.Context, pool Pool, order []int) error {
	st := r.st
	if err := pool.Publish(ctx, r.version, r.l.Snapshot()); err != nil {
		return fmt.Errorf("bootstrap: publish: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	// ahead holds a token for each problem submitted and not yet learned
	// from.
	ahead := make(chan struct{}, r.window())
	d := &dispatch{done: make(chan struct{})}
	go d.submit(ctx, pool, ahead, Job{Run: r.id, Iteration: st.Iteration, Budget: st.Budget}, order, st.Next)
	defer func() {
		cancel()
		<-d.done // the dispatcher does not outlive the iteration
	}()

	held := make(map[int]Report)
	for st.Next < len(order) {
		if r.timeUp() {
			return r.checkpoint()
		}
		group := order[st.Next:min(st.Next+r.cfg.ProblemsPerUpdate, len(order))]
		res := make([]search.Result[S], len(group))
		versions := make([]int64, len(group))
		err := r.collect(ctx, pool.Reports(), d, held, order, res, versions)
		if err == nil {
			err = r.learn(ctx, group, res, versions)
			for range group {
				<-ahead
			}
		}
		if err == nil {
			if perr := pool.Publish(ctx, r.version, r.l.Snapshot()); perr != nil {
				err = fmt.Errorf("bootstrap: publish: %w", perr)
			}
		}
		if err := r.afterGroup(ctx, len(order), err); err != nil {
			return err
		}
	}
	return nil
}

// window returns how many problems an asynchronous run submits ahead of
// the learner: two groups and one per worker.
func (r *run[S]) window() int { return 2*r.cfg.ProblemsPerUpdate + r.env.Workers }

// A dispatch submits the jobs of an iteration; done is closed when it
// stops, and err then says why, if it failed.
type dispatch struct {
	done chan struct{}
	err  error
}

// submit submits to pool the jobs of order from position from on, like
// j but for their positions and problems, taking a token of ahead for each.
func (d *dispatch) submit(ctx context.Context, pool Pool, ahead chan<- struct{}, j Job, order []int, from int) {
	defer close(d.done)
	for pos := from; pos < len(order); pos++ {
		select {
		case ahead <- struct{}{}:
		case <-ctx.Done():
			return
		}
		j.Pos, j.Problem = pos, order[pos]
		if err := pool.Submit(ctx, j); err != nil {
			if ctx.Err() == nil {
				d.err = fmt.Errorf("bootstrap: submit: %w", err)
			}
			return
		}
	}
}

// collect fills res and versions with the results of the group that
// starts at st.Next in order, taking them from held or from reports and
// holding those that come early. It drops the reports of other runs and
// iterations and those of positions already reported; it counts a report
// whose counts are out of bounds or whose solution does not replay to the
// goal as unsolved (result), with a warning. It fails if d does.
func (r *run[S]) collect(ctx context.Context, reports <-chan Report, d *dispatch, held map[int]Report, order []int, res []search.Result[S], versions []int64) error {
	st := r.st
	from := st.Next
	dispatching := d.done
	for i := range res {
		rep, ok := held[from+i]
		for !ok {
			select {
			case rep = <-reports:
			case <-dispatching:
				if d.err != nil {
					return d.err
				}
				dispatching = nil
				continue
			case <-ctx.Done():
				return context.Cause(ctx)
			}
			_, dup := held[rep.Pos]
			switch {
			case rep.Run != r.id || rep.Iteration != st.Iteration || rep.Pos < from+i || rep.Pos >= len(order) || dup:
				continue
			case rep.Problem != order[rep.Pos]:
				r.warn("report dropped: wrong problem", "worker", rep.Worker, "pos", rep.Pos, "problem", rep.Problem)
				continue
			case rep.Err != "":
				return fmt.Errorf("bootstrap: %s: worker %s: %s", r.tasks[rep.Problem].ID, rep.Worker, rep.Err)
			}
			if rep.Pos != from+i {
				held[rep.Pos] = rep
			} else {
				ok = true
			}
		}
		delete(held, from+i)
		p := r.tasks[rep.Problem]
		var err error
		if res[i], err = result(p.Problem, &rep, st.Budget, r.nodeLoss); err != nil {
			r.warn("report rejected, counted as unsolved", "problem", p.ID, "worker", rep.Worker, "err", err)
		}
		versions[i] = min(max(rep.Version, 0), r.version)
	}
	return nil
}

// warn logs a warning, if the run has a logger.
func (r *run[S]) warn(msg string, args ...any) {
	if r.env.Logger != nil {
		r.env.Logger.Warn(msg, args...)
	}
}
