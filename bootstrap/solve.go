// Package bootstrap runs searches over sets of problems: in parallel with
// results in input order (Solve), the Bootstrap test procedures, and the
// Bootstrap training loop of Orseau & Lelis (AAAI 2021) that trains a model
// on the problems the search solves.
package bootstrap

import (
	"context"
	"fmt"
	"sync"

	"github.com/phs-go/phs/search"
)

// A Task is one problem to solve, with its id ("<file base name>#<index>").
type Task[S comparable] struct {
	ID      string
	Problem search.Problem[S]
}

// A Solver searches one problem. Each Solver is used by one goroutine at a
// time, so it may own scratch state: an engine, an evaluator and its buffers.
type Solver[S comparable] func(ctx context.Context, p search.Problem[S]) (search.Result[S], error)

// Solve runs every task on len(solvers) goroutines, one per solver, and calls
// emit with each result in input order, from one goroutine at a time. It
// stops at the first error of a search or of emit, or when ctx is done; the
// results emitted by then are exactly those of a prefix of tasks.
func Solve[S comparable](ctx context.Context, tasks []Task[S], solvers []Solver[S],
	emit func(i int, r search.Result[S]) error) error {
	if len(solvers) == 0 {
		panic("bootstrap: Solve without solvers")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type done struct {
		i   int
		r   search.Result[S]
		err error
	}
	next := make(chan int)
	results := make(chan done, len(solvers))
	var wg sync.WaitGroup
	for _, solve := range solvers[:min(len(solvers), len(tasks))] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := solve(ctx, tasks[i].Problem)
				if err != nil {
					err = fmt.Errorf("%s: %w", tasks[i].ID, err)
				}
				select {
				case results <- done{i, r, err}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range tasks {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()

	// Emit in input order: hold results that arrive early.
	pending := make(map[int]search.Result[S])
	emitted := 0
	var firstErr error
	for d := range results {
		if firstErr != nil {
			continue // drain
		}
		if d.err != nil {
			firstErr = d.err
			cancel()
			continue
		}
		pending[d.i] = d.r
		for {
			r, ok := pending[emitted]
			if !ok {
				break
			}
			delete(pending, emitted)
			if err := emit(emitted, r); err != nil {
				firstErr = err
				cancel()
				break
			}
			emitted++
		}
	}
	if firstErr != nil {
		return firstErr
	}
	if emitted < len(tasks) {
		return ctx.Err()
	}
	return nil
}
