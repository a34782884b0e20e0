package search

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// A Solver runs one algorithm with one evaluator and one set of options on
// problem after problem. NewSolver checks them when it builds the Solver;
// Solve checks each problem against the evaluator before it searches it.
// A Solver keeps its memory from one search to the next, so that a worker
// solving many problems allocates little but the solutions once its memory
// has grown to the size of its largest search. A Solver must not be used by
// two goroutines at once: give each its own, with its own evaluator.
type Solver[S comparable] struct {
	alg   Algorithm
	ev    Evaluator[S]
	check Checker[S] // ev, if it is a Checker
	opts  Options    // with the defaults filled in
	bf    bestFirst[S]
	pt    puctTree[S]
	// progress, if not nil, counts the expansions (SetProgress).
	progress *atomic.Int64
}

// NewSolver returns a Solver that runs alg with the policy and heuristic of
// ev within the limits of opts. It returns an error if alg's parameter or a
// field of opts is out of range, or if opts asks for what alg does not do.
func NewSolver[S comparable](alg Algorithm, ev Evaluator[S], opts Options) (*Solver[S], error) {
	if err := alg.check(); err != nil {
		return nil, err
	}
	if ev == nil {
		return nil, fmt.Errorf("search: %s: no evaluator", alg.Name())
	}
	if err := opts.Validate(alg); err != nil {
		return nil, err
	}
	s := &Solver[S]{alg: alg, ev: ev, opts: opts.withDefaults()}
	s.check, _ = ev.(Checker[S])
	return s, nil
}

// Algorithm returns the solver's algorithm.
func (s *Solver[S]) Algorithm() Algorithm { return s.alg }

// Options returns the solver's options, with the defaults filled in.
func (s *Solver[S]) Options() Options { return s.opts }

// SetBudget sets the expansion budget of the next searches (Options.Budget):
// n ≥ 0, 0 for no limit. It is how a schedule changes the budget between
// searches. It panics if n is negative.
func (s *Solver[S]) SetBudget(n int64) {
	if n < 0 {
		panic(fmt.Sprintf("search: SetBudget(%d)", n))
	}
	s.opts.Budget = n
}

// SetBeamWidth sets the width of the next searches of a beam search
// solver (Beam, PolicyBeam) to w. It is how a schedule widens a beam
// between searches (bootstrap.Test). It panics if the solver's algorithm
// is not a beam search or w is not 1 to MaxBeamWidth.
func (s *Solver[S]) SetBeamWidth(w int) {
	if !s.alg.isBeam() || w < 1 || w > MaxBeamWidth {
		panic(fmt.Sprintf("search: SetBeamWidth(%d) of %v", w, s.alg))
	}
	s.alg = s.alg.withBeamWidth(w)
}

// SetProgress makes the next searches count their expansions in c as
// they go, for progress reports from another goroutine: a search adds to
// c every few hundred expansions and when it ends. Solvers that run in
// parallel may share one counter; nil counts nothing. The counter does
// not change the results.
func (s *Solver[S]) SetProgress(c *atomic.Int64) { s.progress = c }

// Check returns an error unless s can search p: p has 1 to 255 actions, is
// Rerooting if the algorithm is √LTS with DomainRerooter, and, if the
// evaluator is a Checker, the evaluator accepts p.
func (s *Solver[S]) Check(p Problem[S]) error {
	if A := p.NumActions(); A < 1 || A > 255 {
		return fmt.Errorf("search: %d actions; want 1 to 255", A)
	}
	if _, ok := p.(Rerooting[S]); !ok && s.alg.Rerooter() == DomainRerooter {
		return fmt.Errorf("search: %s: the problem gives no rerooting weights (search.Rerooting)", s.alg)
	}
	if s.check != nil {
		return s.check.Check(p)
	}
	return nil
}

// Solve runs the solver's algorithm on p, after Check, and returns its
// result. A search that ends with a solution, an exhausted space, a spent
// budget, the timeout or the memory bound is not an error (Result says
// which); a done context or an evaluator's error ends it with that error.
//
// The best-first algorithms share one engine: the open list is ordered by
// the algorithm's evaluation (see its constructor), ties going to the
// larger g and then to the node generated first; the goal is tested when
// Options.GoalTest says; a child of a state generated before is dropped
// (but for A*'s reopening with the goal tested at expansion, and PHSSafe's
// pruning); children are evaluated in batches of Options.BatchSize; the
// budget counts expansions. A* with the goal tested at expansion returns a
// least-cost solution under an admissible heuristic; PHS_h, PHS* and
// LevinTS with BatchSize 1 keep the paper's bounds on expansions; WA* and
// GBFS guarantee nothing. PUCT and beam search run as PUCT and Beam say. docs/ALGORITHMS.md gives the rules in full.
//
// An expansion costs O(log n) for the open list besides the evaluator's
// calls; the context and the clock are read every 1,024 expansions. The
// memory a node takes is as Options.MaxMemory says.
func (s *Solver[S]) Solve(ctx context.Context, p Problem[S]) (res Result[S], err error) {
	start := time.Now()
	defer func() { res.Time = time.Since(start) }()
	if err := s.Check(p); err != nil {
		return res, err
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	lim := limits{ctx: ctx, budget: s.opts.Budget, memory: s.opts.MaxMemory, progress: s.progress}
	if s.opts.Timeout > 0 {
		lim.deadline = start.Add(s.opts.Timeout)
	}
	switch {
	case s.alg.IsPUCT():
		err = s.pt.search(p, s.ev, s.alg.param, &s.opts, &lim, &res)
	case s.alg.isBeam():
		err = s.bf.beam(p, s.ev, s.alg, &s.opts, &lim, &res)
	default:
		err = s.bf.search(p, s.ev, s.alg, &s.opts, &lim, &res)
	}
	lim.report(res.Expansions)
	return res, err
}

// limits are the budget, the deadline, the memory bound and the context of
// a search, and where it reports its progress.
type limits struct {
	ctx      context.Context
	budget   int64     // 0: none
	deadline time.Time // zero: none
	memory   int64     // bytes; 0: none
	progress *atomic.Int64
	reported int64 // expansions added to progress
}

// spent reports whether the budget allows no more than expansions.
func (l *limits) spent(expansions int64) bool { return l.budget > 0 && expansions >= l.budget }

// maxNodes returns the number of nodes of nodeBytes bytes each that the
// memory bound allows, or MaxInt if there is none.
func (l *limits) maxNodes(nodeBytes int) int {
	if l.memory == 0 {
		return math.MaxInt
	}
	return int(l.memory / int64(nodeBytes))
}

// check reports the expansions so far, and returns the context's error or
// reports whether the deadline has passed.
func (l *limits) check(expansions int64) (timedOut bool, err error) {
	l.report(expansions)
	if err := l.ctx.Err(); err != nil {
		return false, err
	}
	return !l.deadline.IsZero() && time.Now().After(l.deadline), nil
}

// report adds the expansions not yet reported to the progress counter.
func (l *limits) report(expansions int64) {
	if l.progress != nil && expansions > l.reported {
		l.progress.Add(expansions - l.reported)
		l.reported = expansions
	}
}

// A Task is one problem of a set, with its id, such as "<file base
// name>#<index>".
type Task[S comparable] struct {
	ID      string
	Problem Problem[S]
}

// SolveAll checks every task with solvers[0].Check, then solves them on
// len(solvers) goroutines, one per solver, and calls emit with each result
// in input order, from the calling goroutine. It returns the first
// problem that fails the check before any search starts; it stops at the
// first error of a search or of emit, or when ctx is done, and the results
// emitted by then are exactly those of a prefix of tasks. Errors name the
// task's ID. It panics if there is no solver.
func SolveAll[S comparable](ctx context.Context, tasks []Task[S], solvers []*Solver[S],
	emit func(i int, r Result[S]) error) error {
	// Emit in input order: hold the results that arrive early.
	pending := make(map[int]Result[S])
	emitted := 0
	return SolveEach(ctx, tasks, solvers, func(i int, r Result[S]) error {
		pending[i] = r
		for {
			r, ok := pending[emitted]
			if !ok {
				return nil
			}
			delete(pending, emitted)
			if err := emit(emitted, r); err != nil {
				return err
			}
			emitted++
		}
	})
}

// SolveEach is SolveAll but for the order of the results: it calls emit
// with the result of each task i as soon as its search ends, in no
// particular order, from the calling goroutine. It stops at the first
// error of a search or of emit, or when ctx is done (it then returns ctx's
// error, or that of a search it interrupted), and the results emitted by
// then are those of searches that ended, each emitted once; the searches
// under way are cancelled and their results dropped.
func SolveEach[S comparable](ctx context.Context, tasks []Task[S], solvers []*Solver[S],
	emit func(i int, r Result[S]) error) error {
	if len(solvers) == 0 {
		panic("search: SolveEach without solvers")
	}
	for _, t := range tasks {
		if err := solvers[0].Check(t.Problem); err != nil {
			return fmt.Errorf("%s: %w", t.ID, err)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type done struct {
		i   int
		r   Result[S]
		err error
	}
	next := make(chan int)
	results := make(chan done, len(solvers))
	var wg sync.WaitGroup
	for _, s := range solvers[:min(len(solvers), len(tasks))] {
		wg.Go(func() {
			for i := range next {
				r, err := s.Solve(ctx, tasks[i].Problem)
				if err != nil {
					err = fmt.Errorf("%s: %w", tasks[i].ID, err)
				}
				select {
				case results <- done{i, r, err}:
				case <-ctx.Done():
					return
				}
			}
		})
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

	emitted := 0
	var firstErr error
	for d := range results {
		if firstErr != nil {
			continue // drain
		}
		if d.err == nil {
			d.err = emit(d.i, d.r)
			emitted++
		}
		if d.err != nil {
			firstErr = d.err
			cancel()
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
