package bootstrap

import (
	"context"
	"fmt"
)

// iterationAsync attempts the problems of order from st.Next on, as
// iteration does, but the pool's workers search on while the learner
// learns: a dispatcher submits the problems in order, at most two groups
// and a problem per worker (Env.Workers) ahead of the learner, but for
// those whose searches r.done holds already (from the checkpoint the run
// resumed from); each search uses the snapshot published last; the
// learner takes the reports into r.done as they come, learns from each
// group's, in order, and publishes the new snapshot.
func (r *run[S]) iterationAsync(ctx context.Context, pool Pool, order []int) error {
	st := r.st
	if err := pool.Publish(ctx, r.version, r.l.Snapshot()); err != nil {
		return fmt.Errorf("bootstrap: publish: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	// ahead holds a token for each problem submitted (or kept) and not
	// yet learned from.
	ahead := make(chan struct{}, r.window())
	d := &dispatch{done: make(chan struct{})}
	kept := make(map[int]bool, len(r.done))
	for pos := range r.done {
		kept[pos] = true
	}
	go d.submit(ctx, pool, ahead, Job{Run: r.id, Iteration: st.Iteration, Budget: st.Budget}, order, st.Next, kept)
	defer func() {
		cancel()
		<-d.done // the dispatcher does not outlive the iteration
	}()

	for st.Next < len(order) {
		if r.timeUp() {
			return r.checkpoint()
		}
		group := order[st.Next:min(st.Next+r.cfg.ProblemsPerUpdate, len(order))]
		gctx, stop := r.withTimeLimit(ctx)
		err := r.collect(gctx, pool.Reports(), d, order, len(group))
		if err == nil {
			err = r.learn(gctx, group, true)
			for range group {
				<-ahead
			}
		}
		if err == nil {
			if perr := pool.Publish(ctx, r.version, r.l.Snapshot()); perr != nil {
				err = fmt.Errorf("bootstrap: publish: %w", perr)
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
// j but for their positions and problems, taking a token of ahead for each,
// but only takes the token of a position of kept.
func (d *dispatch) submit(ctx context.Context, pool Pool, ahead chan<- struct{}, j Job, order []int, from int, kept map[int]bool) {
	defer close(d.done)
	for pos := from; pos < len(order); pos++ {
		select {
		case ahead <- struct{}{}:
		case <-ctx.Done():
			return
		}
		if kept[pos] {
			continue
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

// collect waits until r.done holds the searches of the n positions of
// order from st.Next on, taking each report of reports into r.done as it
// comes (accept). It fails if d does, or a report carries an error.
func (r *run[S]) collect(ctx context.Context, reports <-chan Report, d *dispatch, order []int, n int) error {
	st := r.st
	dispatching := d.done
	for pos := st.Next; pos < st.Next+n; pos++ {
		for r.done[pos] == nil {
			var rep Report
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
			ok, err := r.accept(&rep, order)
			if err != nil {
				return err
			}
			if ok {
				if err := r.searchEnded(len(order)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// accept takes rep, a report of a search of the iteration whose problems
// are order, into r.done, and reports whether it did. It drops the reports
// of other runs and iterations, of positions learned from or already
// reported, and of the wrong problem (with a warning); it counts a report
// whose counts are out of bounds or whose solution does not replay to the
// goal as unsolved (result), with a warning. It fails with the error of a
// report that carries one.
func (r *run[S]) accept(rep *Report, order []int) (bool, error) {
	st := r.st
	switch {
	case rep.Run != r.id || rep.Iteration != st.Iteration || rep.Pos < st.Next || rep.Pos >= len(order) || r.done[rep.Pos] != nil:
		return false, nil
	case rep.Problem != order[rep.Pos]:
		r.warn("report dropped: wrong problem", "worker", rep.Worker, "pos", rep.Pos, "problem", rep.Problem)
		return false, nil
	case rep.Err != "":
		return false, fmt.Errorf("bootstrap: %s: worker %s: %s", r.tasks[rep.Problem].ID, rep.Worker, rep.Err)
	}
	p := r.tasks[rep.Problem]
	res, err := result(p.Problem, rep, st.Budget, r.nodeLoss)
	if err != nil {
		r.warn("report rejected, counted as unsolved", "problem", p.ID, "worker", rep.Worker, "err", err)
	}
	r.done[rep.Pos] = &finished[S]{problem: rep.Problem, res: res, version: min(max(rep.Version, 0), r.version)}
	return true, nil
}

// warn logs a warning, if the run has a logger.
func (r *run[S]) warn(msg string, args ...any) {
	if r.env.Logger != nil {
		r.env.Logger.Warn(msg, args...)
	}
}
