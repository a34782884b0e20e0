package main

import (
	"context"
	"io"
	"log/slog"
	"slices"

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
	// initialBudget is the paper's initial budget for the domain, that of
	// the Bootstrap process and of its test.
	initialBudget() int64
}

// A domainOf reads the problem files of one domain whose state type is S.
type domainOf[S comparable] struct {
	read   func(path string) ([]search.Task[S], error)
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

func (d domainOf[S]) solve(ctx context.Context, cfg *searchConfig, files []string, stdout, stderr io.Writer) error {
	tasks, err := d.load(files, cfg.log)
	if err != nil {
		return err
	}
	return solveTasks(ctx, cfg, tasks, stdout, stderr)
}

func (d domainOf[S]) test(ctx context.Context, cfg *testConfig, files []string, stdout, stderr io.Writer) error {
	tasks, err := d.load(files, cfg.log)
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

// reader adapts a domain's ReadFile to a reader of tasks.
func reader[S comparable, P search.Problem[S]](readFile func(string) ([]P, error), id func(P) string) func(string) ([]search.Task[S], error) {
	return func(path string) ([]search.Task[S], error) {
		ps, err := readFile(path)
		if err != nil {
			return nil, err
		}
		tasks := make([]search.Task[S], len(ps))
		for i, p := range ps {
			tasks[i] = search.Task[S]{ID: id(p), Problem: p}
		}
		return tasks, nil
	}
}

var domains = map[string]domain{
	"sokoban": domainOf[sokoban.State]{reader[sokoban.State](sokoban.ReadFile, func(p *sokoban.Problem) string { return p.ID }), sokoban.InitialBudget},
	"stp":     domainOf[stp.State]{reader[stp.State](stp.ReadFile, func(p *stp.Problem) string { return p.ID }), stp.InitialBudget},
	"witness": domainOf[witness.State]{reader[witness.State](witness.ReadFile, func(p *witness.Problem) string { return p.ID }), witness.InitialBudget},
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
