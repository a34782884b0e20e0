package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"

	"github.com/nats-io/nats.go"
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
}

// A domainOf reads the problem files of one domain whose state type is S,
// from a path (read) or from a reader (parse).
type domainOf[S comparable] struct {
	read   func(path string) ([]search.Task[S], error)
	parse  func(r io.Reader, name string) ([]search.Task[S], error)
	budget int64
}

func (d domainOf[S]) initialBudget() int64 { return d.budget }

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

// loadFirst is load, then the first cfg.first tasks (all for 0).
func (d domainOf[S]) loadFirst(files []string, cfg *searchConfig) ([]search.Task[S], error) {
	tasks, err := d.load(files, cfg.log)
	if err != nil || cfg.first == 0 || cfg.first >= len(tasks) {
		return tasks, err
	}
	return tasks[:cfg.first], nil
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
	return cluster.Work(ctx, nc, spec, tasks, opts)
}

// newDomain returns the domain whose problems ReadFile and Parse read
// (the functions of its package), id giving their IDs.
func newDomain[S comparable, P search.Problem[S]](readFile func(string) ([]P, error), parse func(io.Reader, string) ([]P, error), id func(P) string, budget int64) domainOf[S] {
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
	return domainOf[S]{
		read:   func(path string) ([]search.Task[S], error) { return tasks(readFile(path)) },
		parse:  func(r io.Reader, name string) ([]search.Task[S], error) { return tasks(parse(r, name)) },
		budget: budget,
	}
}

var domains = map[string]domain{
	"sokoban": newDomain[sokoban.State](sokoban.ReadFile, sokoban.Parse, func(p *sokoban.Problem) string { return p.ID }, sokoban.InitialBudget),
	"stp":     newDomain[stp.State](stp.ReadFile, stp.Parse, func(p *stp.Problem) string { return p.ID }, stp.InitialBudget),
	"witness": newDomain[witness.State](witness.ReadFile, witness.Parse, func(p *witness.Problem) string { return p.ID }, witness.InitialBudget),
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
