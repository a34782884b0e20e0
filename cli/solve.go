package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/models"
	"github.com/phs-go/phs/report"
	"github.com/phs-go/phs/search"
)

// searchConfig is the configuration of "phs solve" and "phs test": their
// flags, and what setup makes of them.
type searchConfig struct {
	runFlags

	// opts are the search options that the flags set, to which setup
	// adds the model's defaults and the memory bound.
	opts search.Options

	// Set by setup.
	d         domain
	log       *slog.Logger
	algorithm search.Algorithm
	model     *model.Model
	table     *cm.Table // a context model, instead of model
	modelName string
	// flagOpts are opts as the flags set them, before the model's
	// defaults: the options of a search without the model.
	flagOpts   search.Options
	workers    int
	expansions atomic.Int64 // of all the searches, for progress
}

const searchGroups = searchFlags | outFlags | workerFlags

func runSolve(ctx context.Context, e *env, args []string) error {
	var cfg searchConfig
	fs := newFlagSet("solve", "FILES...", e.stdout)
	cfg.register(fs, searchGroups, e.names, &cfg.opts)
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := cfg.setup("solve", e, fs, files); err != nil {
		return err
	}
	return cfg.d.solve(ctx, &cfg, files, e.stdout, e.stderr)
}

// setup checks the flags and the files, loads the model and sets the
// algorithm, with -w and -c, and the defaults of the options that the
// flags left to the model (-temperature, -mix, -batch) and the memory
// bound (-memory). Without -model, it takes the domain's default model,
// a network or a context model, if it has the outputs the algorithm reads
// (a context model: a policy alone), and otherwise says on stderr that it
// goes without.
func (cfg *searchConfig) setup(cmd string, e *env, fs *flag.FlagSet, files []string) error {
	if err := cfg.check(cmd, searchGroups, false); err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("%s: no problem files", cmd)
	}
	if cfg.out != "" {
		for _, f := range files {
			if sameFile(cfg.out, f) {
				return usagef("%s: -out %s is the problem file %s", cmd, cfg.out, f)
			}
		}
	}
	log, err := newLogger(cfg.logFormat, e.stderr)
	if err != nil {
		return usagef("%s: %v", cmd, err)
	}
	cfg.log = log
	d, err := e.domain(cmd, cfg.domain)
	if err != nil {
		return err
	}
	// A domain of several state types (the sliding-tile puzzle's) takes
	// that of the files' problems, with its own default model.
	if p, ok := d.(interface{ pickFiles([]string, int) domain }); ok {
		d = p.pickFiles(files, cfg.first)
	}
	cfg.d = d
	caps := d.caps()
	if cfg.pruneDeadlocks && !caps.prunes {
		return usagef("%s: -prune-deadlocks: the %s domain has no deadlock pruning", cmd, cfg.domain)
	}
	if cfg.reorder && !caps.reorders {
		return usagef("%s: -reorder: the %s domain does not reorder solutions", cmd, cfg.domain)
	}
	if cfg.shortenFound > 0 && !caps.shortens {
		return usagef("%s: -shorten-found: the %s domain does not shorten solutions", cmd, cfg.domain)
	}
	switch cfg.modelPath {
	case "none":
	case "":
		if caps.defaultModel != nil {
			m, err := caps.defaultModel()
			switch {
			case errors.Is(err, models.ErrNoModel):
			case err != nil:
				return fmt.Errorf("%s: the %s domain's shipped model: %w", cmd, cfg.domain, err)
			default:
				if err := cfg.useShipped(m, "shipped "+cfg.domain); err != nil {
					return fmt.Errorf("%s: the %s domain's shipped model: %w", cmd, cfg.domain, err)
				}
			}
		}
	default:
		if _, err := os.Stat(cfg.modelPath); errors.Is(err, os.ErrNotExist) && slices.Contains(models.Names(), cfg.modelPath) {
			m, err := models.Named(cfg.modelPath)
			if err != nil {
				return fmt.Errorf("%s: %w", cmd, err)
			}
			if err := cfg.useShipped(m, "shipped "+cfg.modelPath); err != nil {
				return fmt.Errorf("%s: -model %s: %w", cmd, cfg.modelPath, err)
			}
			break
		}
		if file, ok := cm.FindTable(cfg.modelPath); ok {
			if !caps.contexts {
				return usagef("%s: -model %s is a context model, and the %s domain has no contexts (cm.Contexter)", cmd, cfg.modelPath, cfg.domain)
			}
			t, err := cm.ReadTable(file)
			if err != nil {
				return err
			}
			cfg.table, cfg.modelName = t, "context model "+cfg.modelPath
			break
		}
		m, err := loadModel(cfg.modelPath)
		if err != nil {
			return err
		}
		cfg.model, cfg.modelName = m, cfg.modelPath
	}
	switch {
	case cfg.model != nil:
		warnNoDigest(cfg.log, cfg.modelName, cfg.model.NoDigest())
	case cfg.table != nil:
		warnNoDigest(cfg.log, cfg.modelName, cfg.table.NoDigest())
	}
	if cfg.model != nil && cfg.model.Config().Domain != cfg.domain {
		return fmt.Errorf("%s: %s is a %s model, not a %s one", cmd, cfg.modelName, cfg.model.Config().Domain, cfg.domain)
	}
	if cfg.model != nil && cfg.model.Config().PruneDeadlocks {
		// A network trained with deadlocks pruned searches with them
		// pruned.
		if !caps.prunes {
			return fmt.Errorf("%s: %s was trained with deadlocks pruned, which the %s domain cannot", cmd, cfg.modelName, cfg.domain)
		}
		cfg.pruneDeadlocks = true
	}
	if cfg.noFloor {
		if cfg.model == nil || !cfg.model.Config().Floor {
			return usagef("%s: -no-floor: no network that floors its heuristic (phs train -floor)", cmd)
		}
		c := cfg.model.Config()
		c.Floor = false
		if cfg.model, err = withConfig(cfg.model, c); err != nil {
			return fmt.Errorf("%s: %s: %w", cmd, cfg.modelName, err)
		}
	}
	var alg search.Algorithm
	switch {
	case cfg.alg != "":
		a, err := search.Parse(cfg.alg)
		if err != nil {
			return usagef("%s: -alg: %v", cmd, err)
		}
		alg = a
	case cfg.model != nil:
		alg = cfg.model.Config().Algorithm
	case cfg.table != nil:
		alg = search.LevinTS()
	default:
		alg = caps.noModelAlg
	}
	valid := func(c *searchConfig) error {
		_, err := search.NewSolver[struct{}](withParams(alg, c.w, c.c), search.Uniform[struct{}]{}, c.opts)
		return err
	}
	fresh := func(fs *flag.FlagSet) *searchConfig {
		c := new(searchConfig)
		c.register(fs, searchGroups, e.names, &c.opts)
		return c
	}
	if err := blame(fs, cfg, fresh, valid); err != nil {
		return usagef("%s: %v", cmd, err)
	}
	cfg.algorithm = withParams(alg, cfg.w, cfg.c)
	if err := checkParams(cmd, fs, cfg.algorithm); err != nil {
		return err
	}
	alg = cfg.algorithm
	if cfg.model != nil {
		missing := model.HeadsFor(alg) &^ cfg.model.Config().Heads
		if missing != 0 && cfg.modelPath == "" {
			cfg.log.Warn(fmt.Sprintf("the %s lacks the %s output that %s reads; using a uniform policy and the domain's heuristic", cfg.modelName, missing, alg.Name()))
			cfg.model, cfg.modelName, missing = nil, "", 0
		}
		switch {
		case missing&model.Policy != 0:
			return fmt.Errorf("%s: %s needs a policy, and %s has none", cmd, alg.Name(), cfg.modelName)
		case missing&model.Heuristic != 0:
			return fmt.Errorf("%s: %s needs a heuristic, and %s has none", cmd, alg.Name(), cfg.modelName)
		}
	}
	if cfg.table != nil {
		// A context model is a policy alone: a shipped one is left out
		// for an algorithm that reads a heuristic, or no policy; one
		// given by -model is an error.
		reads, gives := "", ""
		switch {
		case model.HeadsFor(alg)&model.Heuristic != 0:
			reads, gives = "a heuristic", "has none"
		case !alg.NeedsPolicy():
			reads, gives = "no policy", "gives nothing else"
		}
		switch {
		case reads == "":
		case cfg.modelPath == "":
			cfg.log.Warn(fmt.Sprintf("the %s is a policy alone, and %s reads %s; using a uniform policy and the domain's heuristic", cfg.modelName, alg.Name(), reads))
			cfg.table, cfg.modelName = nil, ""
		default:
			return usagef("%s: -alg %s: %s reads %s, and the %s %s (levints reads its policy alone)", cmd, alg, alg.Name(), reads, cfg.modelName, gives)
		}
	}
	if cfg.model == nil && cfg.table == nil && model.HeadsFor(alg)&model.Heuristic != 0 && !caps.heuristic && !cfg.noHeuristic && (cfg.alg != "" || !caps.noModelH) {
		return usagef("%s: %s reads a heuristic, and the %s domain has none (-no-heuristic searches with h = 0)", cmd, alg.Name(), cfg.domain)
	}
	if n := cfg.shortenNodes(); n > 0 && !caps.shortens {
		return fmt.Errorf("%s: the %s shortens its solutions (shorten_found %d), and the %s domain does not", cmd, cfg.modelName, n, cfg.domain)
	}
	cfg.flagOpts = cfg.opts
	if cfg.opts.Temperature == 0 && cfg.model != nil && alg.NeedsPolicy() {
		cfg.opts.Temperature = cfg.model.Config().Search.Temperature // 0 (1) if it has none
	}
	if cfg.opts.Mix == 0 && cfg.model != nil && alg.NeedsPolicy() {
		cfg.opts.Mix = cfg.model.Config().Search.Mix
	}
	if cfg.opts.BatchSize == 0 && cfg.model != nil {
		cfg.opts.BatchSize = cfg.model.Config().Search.BatchSize // 0 (32) if it has none
	}
	if cfg.opts.BatchSize == 0 && cfg.table != nil {
		// A context model's evaluation is a few look-ups: batches
		// would only cost expansions (LevinTS evaluates a node when it
		// expands it at batch size 1).
		cfg.opts.BatchSize = 1
	}
	cfg.workers = cfg.workerCount()
	cfg.opts.MaxMemory = cfg.memoryBytes(cfg.workers)
	return nil
}

// shortenNodes is the most nodes of the domain's pass that shortens each
// solution found: -shorten-found, or for -1 the model's
// (model.Config.ShortenFound), or 0.
func (cfg *searchConfig) shortenNodes() int {
	switch {
	case cfg.shortenFound >= 0:
		return cfg.shortenFound
	case cfg.model != nil:
		return cfg.model.Config().ShortenFound
	}
	return 0
}

// tunedBudget is the budget of the model (model.Config.Search.Budget), the
// one it was trained or tuned with, or else the domain's initial budget.
func (cfg *searchConfig) tunedBudget() int64 {
	if cfg.model != nil && cfg.model.Config().Search.Budget > 0 {
		return cfg.model.Config().Search.Budget
	}
	return cfg.d.caps().budget
}

// useShipped makes shipped model m cfg's model, called name followed by
// its kind ("shipped sokoban network").
func (cfg *searchConfig) useShipped(m models.Model, name string) error {
	switch {
	case m.Network != nil && m.Table == nil:
		cfg.model, cfg.modelName = m.Network, name+" network"
	case m.Table != nil && m.Network == nil:
		if !cfg.d.caps().contexts {
			return fmt.Errorf("a context model, and the %s domain has no contexts (cm.Contexter)", cfg.domain)
		}
		cfg.table, cfg.modelName = m.Table, name+" context model"
	default:
		return errors.New("want exactly one of a network and a context model")
	}
	return nil
}

// loadModel loads a model directory, or the checkpoint of a training run's
// directory.
func loadModel(path string) (*model.Model, error) {
	if fi, err := os.Stat(filepath.Join(path, "checkpoint")); err == nil && fi.IsDir() {
		path = filepath.Join(path, "checkpoint")
	}
	return model.Load(path)
}

// withConfig returns a copy of m's weights in a network of c, which must
// have m's layers: how a network takes other settings (-no-floor, the
// run's settings for -model).
func withConfig(m *model.Model, c model.Config) (*model.Model, error) {
	n, err := model.New(c, 0)
	if err != nil {
		return nil, err
	}
	n.CopyWeightsFrom(m)
	return n, nil
}

// newSolvers returns one solver per worker with the algorithm, the model
// or the domain's heuristic, and the options of cfg, its budget included.
// noModel, if not nil, returns the evaluator of the domain's default
// search without a model (NoModelHeuristic).
func newSolvers[S comparable](cfg *searchConfig, noModel func() search.Evaluator[S]) ([]*search.Solver[S], error) {
	solvers := make([]*search.Solver[S], cfg.workers)
	for i := range solvers {
		var ev search.Evaluator[S]
		switch {
		case cfg.model != nil:
			ev = model.NewEvaluator[S](cfg.model)
		case cfg.table != nil:
			ev = cm.NewEvaluator[S](cfg.table)
		case cfg.noHeuristic:
			ev = search.Uniform[S]{}
		case noModel != nil && cfg.alg == "":
			ev = noModel()
		case !cfg.d.caps().heuristic:
			ev = search.Uniform[S]{}
		default:
			ev = search.DomainHeuristic[S]{}
		}
		s, err := search.NewSolver(cfg.algorithm, ev, cfg.opts)
		if err != nil {
			return nil, err
		}
		s.SetProgress(&cfg.expansions)
		solvers[i] = s
	}
	return solvers, nil
}

// fitDefaultModel makes cfg search without the domain's default model (no
// -model), as -model none does, if that model takes none of the tasks (a
// board of a size it was not trained for), and says so on the log. A model
// that takes some of them stays: checkTasks then names the first it cannot
// take.
func fitDefaultModel[S comparable](cfg *searchConfig, tasks []search.Task[S]) error {
	if cfg.modelPath != "" {
		return nil
	}
	var ev interface{ Check(search.Problem[S]) error }
	switch {
	case cfg.model != nil:
		ev = model.NewEvaluator[S](cfg.model)
	case cfg.table != nil:
		ev = cm.NewEvaluator[S](cfg.table)
	default:
		return nil
	}
	var first error
	for _, t := range tasks {
		err := ev.Check(t.Problem)
		if err == nil {
			return nil
		}
		if first == nil {
			first = fmt.Errorf("%s: %w", t.ID, err)
		}
	}
	if first == nil {
		return nil
	}
	cfg.log.Warn(fmt.Sprintf("the %s takes none of the problems (%v); searching without a model, as -model none", cfg.modelName, first))
	return cfg.dropModel()
}

// dropModel makes cfg search without its model: with the options as the
// flags set them, and with the domain's no-model algorithm unless -alg
// is given.
func (cfg *searchConfig) dropModel() error {
	cfg.model, cfg.table, cfg.modelName = nil, nil, ""
	cfg.opts.Temperature, cfg.opts.Mix, cfg.opts.BatchSize = cfg.flagOpts.Temperature, cfg.flagOpts.Mix, cfg.flagOpts.BatchSize
	caps := cfg.d.caps()
	if cfg.alg == "" {
		alg := withParams(caps.noModelAlg, cfg.w, cfg.c)
		switch {
		case cfg.w.set && alg.Name() != search.WAStar(1).Name():
			return usagef("-w %s: %s, the %s domain's algorithm without a model, has no weight (wastar has)", cfg.w.String(), alg.Name(), cfg.domain)
		case cfg.c.set && !alg.IsPUCT():
			return usagef("-c %s: %s, the %s domain's algorithm without a model, has no exploration constant (puct has)", cfg.c.String(), alg.Name(), cfg.domain)
		}
		cfg.algorithm = alg
	}
	if model.HeadsFor(cfg.algorithm)&model.Heuristic != 0 && !caps.heuristic && !cfg.noHeuristic && (cfg.alg != "" || !caps.noModelH) {
		return usagef("%s reads a heuristic, and the %s domain has none (-no-heuristic searches with h = 0)", cfg.algorithm.Name(), cfg.domain)
	}
	return nil
}

// checkTasks checks every task against the solvers before anything is
// written: a problem that the model cannot evaluate, or that lacks the
// heuristic, is an error that names it.
func checkTasks[S comparable](cfg *searchConfig, solvers []*search.Solver[S], tasks []search.Task[S]) error {
	for _, t := range tasks {
		if err := solvers[0].Check(t.Problem); err != nil {
			if (cfg.model != nil || cfg.table != nil) && cfg.modelPath == "" {
				return fmt.Errorf("%s: %s: %w (-model none goes without it)", t.ID, cfg.modelName, err)
			}
			if cfg.model != nil || cfg.table != nil {
				return fmt.Errorf("%s: %s: %w", t.ID, cfg.modelName, err)
			}
			return fmt.Errorf("%s: %w", t.ID, err)
		}
	}
	return nil
}

// A shortenPreparer is a bootstrap.Shortener whose first pass pays a
// one-time cost, such as building tables (rubiks.Problem).
type shortenPreparer interface {
	PrepareShorten()
}

// prepareShorten pays the one-time cost of the pass after the search
// (-shorten-found) before any search starts, so that no problem's time
// counts it, and logs its time.
func prepareShorten[S comparable](cfg *searchConfig, tasks []search.Task[S]) {
	if cfg.shortenNodes() == 0 || len(tasks) == 0 {
		return
	}
	if p, ok := tasks[0].Problem.(shortenPreparer); ok {
		start := time.Now()
		p.PrepareShorten()
		cfg.log.Info("prepared the pass after the search", "time_s", math.Round(100*time.Since(start).Seconds())/100)
	}
}

// heuristicEvaluator is an Evaluator with a uniform policy and the
// heuristic h of the problems, of type P.
type heuristicEvaluator[P any, S comparable] struct {
	h func(P, S) float64
}

func (e heuristicEvaluator[P, S]) Evaluate(p search.Problem[S], states []S, logPi, h []float64) error {
	q, ok := p.(P)
	if !ok {
		return fmt.Errorf("NoModelHeuristic: the problem is a %T, not a %T", p, *new(P))
	}
	A := p.NumActions()
	l := -math.Log(float64(A))
	for i := range logPi[:len(states)*A] {
		logPi[i] = l
	}
	for i, s := range states {
		h[i] = e.h(q, s)
	}
	return nil
}

// sameFile reports whether paths a and b name the same existing file, or
// the same path.
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// solveTasks solves every task once and writes the records, the renderings
// and the summary table; noModel is as newSolvers says.
func solveTasks[S comparable](ctx context.Context, cfg *searchConfig, noModel func() search.Evaluator[S], tasks []search.Task[S], stdout, stderr io.Writer) error {
	if err := fitDefaultModel(cfg, tasks); err != nil {
		return err
	}
	if cfg.opts.Budget == 0 && cfg.algorithm.BeamWidth() > 0 {
		// Without a budget, a beam that misses the goal would go on as
		// long as its layers do.
		cfg.opts.Budget = cfg.tunedBudget()
	}
	solvers, err := newSolvers(cfg, noModel)
	if err != nil {
		return err
	}
	if err := checkTasks(cfg, solvers, tasks); err != nil {
		return err
	}
	prepareShorten(cfg, tasks)
	out, err := newResults(cfg, len(tasks), stdout, stderr)
	if err != nil {
		return err
	}
	var done, solved atomic.Int64
	start := time.Now()
	stopProgress := progress(cfg.log, cfg.progress, func() []any {
		d, e := done.Load(), cfg.expansions.Load()
		el := time.Since(start).Seconds()
		return []any{"done", d, "problems", len(tasks), "solved", solved.Load(),
			"problems_per_s", math.Round(10*float64(d)/el) / 10,
			"expansions", e, "expansions_per_s", math.Round(float64(e) / el),
			"elapsed_s", math.Round(el)}
	})
	fin := newFinisher(cfg.workers)
	err = search.SolveAll(ctx, tasks, solvers, func(i int, r search.Result[S]) error {
		done.Add(1)
		if r.Solved {
			solved.Add(1)
		}
		return fin.add(func() func() error {
			return finishResult(out, cfg, tasks[i], r, cfg.algorithm, cfg.opts.Budget)
		})
	})
	err = fin.close(err)
	stopProgress()
	return out.close(err)
}

// results writes JSONL records and keeps their summary.
type results struct {
	file  *os.File // nil when writing to standard output
	buf   *bufio.Writer
	jsonl *report.JSONLWriter
	human io.Writer
	sum   report.Summary
	asked int // the number of problems
}

// newResults opens the output of cfg for asked problems: the -out file, or
// stdout. Human output (renderings, the table) goes to stdout if records
// go to a file, else to stderr.
func newResults(cfg *searchConfig, asked int, stdout, stderr io.Writer) (*results, error) {
	r := &results{human: stderr, sum: report.Summary{Name: cfg.algorithm.Name()}, asked: asked}
	w := stdout
	if cfg.out != "" {
		f, err := os.Create(cfg.out)
		if err != nil {
			return nil, err
		}
		r.file, w, r.human = f, f, stdout
	}
	r.buf = bufio.NewWriter(w)
	r.jsonl = report.NewJSONLWriter(r.buf)
	return r, nil
}

// finishResult runs the passes after the search on r, a search of t by alg
// within budget (-reorder, then -shorten-found), replays its solution and
// returns the function that writes its record, flushed so that nothing is
// lost on interruption, and its rendering if asked. A solution that does
// not replay to the goal is an error (a defect of the search, the pass or
// the domain), returned by the writer. finishResult may run on any
// goroutine; the writers must run on one at a time.
func finishResult[S comparable](out *results, cfg *searchConfig, t search.Task[S], r search.Result[S], alg search.Algorithm, budget int64) func() error {
	var reordered, shortened int64
	err := func() error {
		if !r.Solved {
			return nil
		}
		start := time.Now()
		if cfg.reorder {
			actions, n, err := t.Problem.(reorderer).Reorder(r.Actions, reorderLimit)
			if err != nil {
				return fmt.Errorf("%s: -reorder: %w", t.ID, err)
			}
			r.Actions, reordered = actions, int64(n)
			r.Expansions += reordered
		}
		if limit := cfg.shortenNodes(); limit > 0 {
			actions, n, err := t.Problem.(bootstrap.Shortener).Shorten(r.Actions, limit)
			if err != nil {
				return fmt.Errorf("%s: -shorten-found: %w", t.ID, err)
			}
			r.Actions, shortened = actions, int64(n)
		}
		r.Time += time.Since(start)
		if err := search.Replay(t.Problem, r.Actions); err != nil {
			return fmt.Errorf("%s: the solution found does not replay: %w", t.ID, err)
		}
		return nil
	}()
	if err != nil {
		return func() error { return err }
	}
	return func() error {
		rec := report.Record{
			Problem:    t.ID,
			Domain:     cfg.domain,
			Algorithm:  alg.Name(),
			BeamWidth:  alg.BeamWidth(),
			Solved:     r.Solved,
			Length:     len(r.Actions),
			Expansions: r.Expansions,
			Generated:  r.Generated,
			TimeS:      r.Time.Seconds(),
			Budget:     budget,
			Solution:   search.FormatActions(t.Problem, r.Actions),
			Stop:       r.Stop(budget),

			ReorderExpansions: reordered,
			ShortenNodes:      shortened,
		}
		out.sum.Add(rec)
		if cfg.render && r.Solved {
			if rd, ok := t.Problem.(renderer[S]); ok {
				renderSolution(out.human, t.ID, t.Problem, rd, r.Actions)
			}
		}
		if err := out.jsonl.Write(rec); err != nil {
			return err
		}
		return out.buf.Flush()
	}
}

// A finisher writes the records of searches in the order they are added,
// after their passes (finishResult), which run on up to n goroutines at
// once, apart from the searches and the writing: the pass that shortens
// the solutions of the shipped 48-puzzle network takes about as long as
// its search.
type finisher struct {
	sem     chan struct{}
	pending chan chan func() error // the writers, in order
	done    chan error             // the first writer's error, at the end
	failed  atomic.Bool
}

// errFinished is what add returns once a writer has failed; close returns
// the writer's error.
var errFinished = errors.New("cli: a record could not be written")

// newFinisher returns a finisher that runs up to n passes at once.
func newFinisher(n int) *finisher {
	f := &finisher{sem: make(chan struct{}, max(n, 1)), pending: make(chan chan func() error, max(n, 1)), done: make(chan error, 1)}
	go func() {
		var err error
		for c := range f.pending {
			write := <-c
			if err == nil {
				if err = write(); err != nil {
					f.failed.Store(true)
				}
			}
		}
		f.done <- err
	}()
	return f
}

// add runs pass on a goroutine of its own once fewer than n run, and
// queues the writer it returns after those added before. It returns
// errFinished once a writer has failed.
func (f *finisher) add(pass func() func() error) error {
	if f.failed.Load() {
		return errFinished
	}
	c := make(chan func() error, 1)
	f.sem <- struct{}{}
	go func() {
		defer func() { <-f.sem }()
		c <- pass()
	}()
	f.pending <- c
	return nil
}

// close waits for every writer and returns err, or the first writer's
// error in place of errFinished or nil.
func (f *finisher) close(err error) error {
	close(f.pending)
	if werr := <-f.done; werr != nil && (err == nil || errors.Is(err, errFinished)) {
		return werr
	}
	return err
}

// A reorderer is a problem that reorders a solution: -reorder. Reorder
// returns a solution at most as long as actions, a solution of the
// problem, and the states it expanded, at most limit; see
// sokoban.Problem.Reorder.
type reorderer interface {
	Reorder(actions []int, limit int) ([]int, int, error)
}

// reorderLimit is the most expansions of the pass of -reorder; a pass
// that reaches it keeps the solution of the search.
const reorderLimit = 100_000

// close flushes and closes the output and prints the summary table; it
// returns err or the first error of its own.
func (out *results) close(err error) error {
	if ferr := out.buf.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if out.file != nil {
		if cerr := out.file.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}
	if terr := report.WriteTable(out.human, out.sum); err == nil && terr != nil {
		err = terr
	}
	if out.sum.Problems < out.asked {
		// The table's solved/attempted must not read as solved/asked.
		fmt.Fprintf(out.human, "attempted %d of the %d problems asked\n", out.sum.Problems, out.asked)
	}
	return err
}

// A renderer draws a state of its problem.
type renderer[S comparable] interface {
	Render(s S) string
}

// renderSolution draws every state along a solution.
func renderSolution[S comparable](w io.Writer, id string, p search.Problem[S], rd renderer[S], actions []int) {
	s := p.Root()
	fmt.Fprintf(w, "%s: %d steps\nstep 0:\n%s\n", id, len(actions), rd.Render(s))
	for i, a := range actions {
		s, _ = p.Apply(s, a)
		fmt.Fprintf(w, "step %d: %s\n%s\n", i+1, search.FormatActions(p, actions[i:i+1]), rd.Render(s))
	}
}

// progress logs a progress record with the attributes that attrs returns
// every interval, until the returned function is called (more than once is
// fine).
func progress(log *slog.Logger, every time.Duration, attrs func() []any) (stop func()) {
	if every <= 0 {
		return func() {}
	}
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				log.Info("progress", attrs()...)
			}
		}
	}()
	var stopped bool
	return func() {
		if !stopped {
			stopped = true
			close(quit)
			<-finished
		}
	}
}
