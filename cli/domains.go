package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"

	"github.com/nats-io/nats.go"
	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/cluster"
	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/search"
)

// A domain is what the commands need of a problem domain, with its state
// type hidden behind the methods.
type domain interface {
	// solve attempts each problem once; test runs the Bootstrap test.
	solve(ctx context.Context, cfg *searchConfig, files []string, stdout, stderr io.Writer) error
	test(ctx context.Context, cfg *testConfig, files []string, stdout, stderr io.Writer) error
	// train runs or resumes (resume) a Bootstrap training run.
	train(ctx context.Context, cfg *trainConfig, resume bool, stderr io.Writer) error
	// work joins a training run over NATS as a worker, with the problem
	// files of the run.
	work(ctx context.Context, nc *nats.Conn, spec cluster.Spec, files []cluster.File, opts cluster.WorkerOptions) error
	// initialBudget is the paper's initial budget for the domain, that of
	// the Bootstrap process and of its test.
	initialBudget() int64
	// prunesDeadlocks reports whether the domain has deadlock pruning
	// (-prune-deadlocks).
	prunesDeadlocks() bool
}

// A domainOf reads the problem files of one domain whose state type is S,
// from a path (read) or from a reader (parse).
type domainOf[S comparable] struct {
	read   func(path string) ([]search.Task[S], error)
	parse  func(r io.Reader, name string) ([]search.Task[S], error)
	budget int64
	// prune returns a problem of the domain with its deadlocks pruned;
	// nil for a domain without deadlock pruning.
	prune func(search.Problem[S]) search.Problem[S]
}

func (d domainOf[S]) initialBudget() int64 { return d.budget }

func (d domainOf[S]) prunesDeadlocks() bool { return d.prune != nil }

// load reads the tasks of files, and warns of IDs that more than one task
// has.
func (d domainOf[S]) load(files []string, log *slog.Logger) ([]search.Task[S], error) {
	var tasks []search.Task[S]
	var from []string // the file of each task
	for _, f := range files {
		t, err := d.read(f)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t...)
		for range t {
			from = append(from, f)
		}
	}
	warnDuplicates(tasks, from, log)
	return tasks, nil
}

// loadFirst is load, then the first cfg.first tasks (all for 0), with
// their deadlocks pruned for cfg.pruneDeadlocks.
func (d domainOf[S]) loadFirst(files []string, cfg *searchConfig) ([]search.Task[S], error) {
	tasks, err := d.load(files, cfg.log)
	if err != nil {
		return nil, err
	}
	if cfg.first > 0 && cfg.first < len(tasks) {
		tasks = tasks[:cfg.first]
	}
	if cfg.pruneDeadlocks {
		d.pruneAll(tasks)
	}
	return tasks, nil
}

// pruneAll replaces the problem of every task by the same with its
// deadlocks pruned; the domain must have deadlock pruning.
func (d domainOf[S]) pruneAll(tasks []search.Task[S]) {
	for i := range tasks {
		tasks[i].Problem = d.prune(tasks[i].Problem)
	}
}

func (d domainOf[S]) solve(ctx context.Context, cfg *searchConfig, files []string, stdout, stderr io.Writer) error {
	tasks, err := d.loadFirst(files, cfg)
	if err != nil {
		return err
	}
	return solveTasks(ctx, cfg, tasks, stdout, stderr)
}

func (d domainOf[S]) test(ctx context.Context, cfg *testConfig, files []string, stdout, stderr io.Writer) error {
	tasks, err := d.loadFirst(files, &cfg.searchConfig)
	if err != nil {
		return err
	}
	return testTasks(ctx, cfg, tasks, stdout, stderr)
}

func (d domainOf[S]) train(ctx context.Context, cfg *trainConfig, resume bool, stderr io.Writer) error {
	tasks, err := d.load(cfg.Files, cfg.log)
	if err != nil {
		return err
	}
	if cfg.PruneDeadlocks { // checked by trainConfig.check
		d.pruneAll(tasks)
	}
	return trainTasks(ctx, cfg, tasks, resume, stderr)
}

func (d domainOf[S]) work(ctx context.Context, nc *nats.Conn, spec cluster.Spec, files []cluster.File, opts cluster.WorkerOptions) error {
	var tasks []search.Task[S]
	for _, f := range files {
		t, err := d.parse(bytes.NewReader(f.Data), f.Name)
		if err != nil {
			return fmt.Errorf("the run's problems: %w", err)
		}
		tasks = append(tasks, t...)
	}
	if spec.PruneDeadlocks {
		if !d.prunesDeadlocks() {
			return fmt.Errorf("the run prunes deadlocks, which the %s domain has not", spec.Domain)
		}
		d.pruneAll(tasks)
	}
	return cluster.Work(ctx, nc, spec, tasks, bootstrap.DecodeNetwork[S], opts)
}

// newDomain returns the domain whose problems ReadFile and Parse read
// (the functions of its package), id giving their IDs, and prune, if not
// nil, pruning their deadlocks.
func newDomain[S comparable, P search.Problem[S]](readFile func(string) ([]P, error), parse func(io.Reader, string) ([]P, error), id func(P) string, budget int64, prune func(P) P) domainOf[S] {
	tasks := func(ps []P, err error) ([]search.Task[S], error) {
		if err != nil {
			return nil, err
		}
		ts := make([]search.Task[S], len(ps))
		for i, p := range ps {
			ts[i] = search.Task[S]{ID: id(p), Problem: p}
		}
		return ts, nil
	}
	d := domainOf[S]{
		read:   func(path string) ([]search.Task[S], error) { return tasks(readFile(path)) },
		parse:  func(r io.Reader, name string) ([]search.Task[S], error) { return tasks(parse(r, name)) },
		budget: budget,
	}
	if prune != nil {
		d.prune = func(p search.Problem[S]) search.Problem[S] { return prune(p.(P)) }
	}
	return d
}

var domains = map[string]domain{
	"sokoban": newDomain[sokoban.State](sokoban.ReadFile, sokoban.Parse, func(p *sokoban.Problem) string { return p.ID }, sokoban.InitialBudget, (*sokoban.Problem).PruneDeadlocks),
	"stp": stpDomain{
		newDomain[stp.State](stp.ReadFile, stp.Parse, func(p *stp.Problem) string { return p.ID }, stp.InitialBudget, nil),
		newDomain[stp.LargeState](stp.ReadFileLarge, stp.ParseLarge, func(p *stp.LargeProblem) string { return p.ID }, stp.InitialBudget, nil),
	},
	"witness": newDomain[witness.State](witness.ReadFile, witness.Parse, func(p *witness.Problem) string { return p.ID }, witness.InitialBudget, nil),
}

// stpDomain is the sliding-tile puzzle: its puzzles are stp.Problems, or
// stp.LargeProblems when a file has a board of more than stp.MaxCells
// cells.
type stpDomain struct {
	domainOf[stp.State]
	large domainOf[stp.LargeState]
}

// pick returns the domain of stp.LargeProblems if parse, called with
// each file index from 0 to n-1, says that a file has a board too large
// for a stp.Problem, and otherwise that of stp.Problems.
func (d stpDomain) pick(n int, parse func(i int) error) domain {
	for i := range n {
		if err := parse(i); errors.Is(err, stp.ErrLarge) {
			return d.large
		}
	}
	return d.domainOf
}

func (d stpDomain) pickFiles(files []string) domain {
	return d.pick(len(files), func(i int) error { _, err := stp.ReadFile(files[i]); return err })
}

func (d stpDomain) solve(ctx context.Context, cfg *searchConfig, files []string, stdout, stderr io.Writer) error {
	return d.pickFiles(files).solve(ctx, cfg, files, stdout, stderr)
}

func (d stpDomain) test(ctx context.Context, cfg *testConfig, files []string, stdout, stderr io.Writer) error {
	return d.pickFiles(files).test(ctx, cfg, files, stdout, stderr)
}

func (d stpDomain) train(ctx context.Context, cfg *trainConfig, resume bool, stderr io.Writer) error {
	return d.pickFiles(cfg.Files).train(ctx, cfg, resume, stderr)
}

func (d stpDomain) work(ctx context.Context, nc *nats.Conn, spec cluster.Spec, files []cluster.File, opts cluster.WorkerOptions) error {
	parse := func(i int) error { _, err := stp.Parse(bytes.NewReader(files[i].Data), files[i].Name); return err }
	return d.pick(len(files), parse).work(ctx, nc, spec, files, opts)
}

// domainNames returns the names of the domains in sorted order.
func domainNames() []string {
	names := make([]string, 0, len(domains))
	for n := range domains {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
