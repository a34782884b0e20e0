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
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/models"
	"github.com/phs-go/phs/report"
	"github.com/phs-go/phs/search"
)

// searchConfig holds the flags shared by "phs solve" and "phs test".
type searchConfig struct {
	domain, alg   string
	modelPath     string
	w, c          paramFlag
	budget        int64
	timeout       time.Duration
	first         int
	batch         int
	workers       int
	out           string
	render        bool
	renormalize   bool
	noHeuristic   bool
	progressEvery time.Duration
	memoryMiB     int64
	logFormat     string
	// pruneDeadlocks: search the problems with their deadlocks pruned.
	pruneDeadlocks bool
	// temperature of the policy; 0 until resolve: the model's, or 1.
	temperature float64
	goalTest    search.GoalTest

	// Set by check and resolve.
	log        *slog.Logger
	expansions atomic.Int64 // of all the searches, for progress
	algorithm  search.Algorithm
	model      *model.Model
	modelName  string
}

func (cfg *searchConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&cfg.domain, "domain", "", "problem domain: "+strings.Join(domainNames(), ", "))
	fs.StringVar(&cfg.alg, "alg", "", "algorithm: "+strings.Join(search.AlgorithmNames(), ", ")+"; wastar:W and puct:C give the parameter (default: the model's, with its parameter, or phsstar)")
	fs.StringVar(&cfg.modelPath, "model", "", `trained model directory; "none" for a uniform policy and the domain's heuristic (default: the domain's shipped model, if any)`)
	fs.Var(&cfg.w, "w", "weight of h for wastar (default: the model's, or 1.5)")
	fs.Var(&cfg.c, "c", "exploration constant of puct (default: the model's, or 1)")
	fs.DurationVar(&cfg.timeout, "timeout", 0, "wall-clock limit per search (0: none)")
	fs.IntVar(&cfg.first, "first", 0, "attempt only the first N problems of FILES, in order (0: all); every problem is still read and checked")
	fs.IntVar(&cfg.batch, "batch", 32, "states evaluated per evaluator call")
	fs.IntVar(&cfg.workers, "workers", 0, "problems solved in parallel (0: all cores)")
	fs.StringVar(&cfg.out, "out", "", "write JSON lines to this file instead of standard output")
	fs.BoolVar(&cfg.render, "render", false, "draw each solution step by step")
	fs.BoolVar(&cfg.renormalize, "renormalize", false, "renormalise the policy over legal actions")
	fs.Float64Var(&cfg.temperature, "temperature", 0, "temperature T of the policy: the search uses pi^(1/T), normalised; T > 1 gives the heuristic and the path cost more weight (0: the model's, or 1)")
	fs.TextVar(&cfg.goalTest, "goal-test", search.GoalTestDefault, "when the best-first algorithms test a node for the goal: generation, expansion, or default (expansion for astar, which then returns optimal solutions with an admissible heuristic; generation for the others, as the paper's experiments, its A* included)")
	fs.BoolVar(&cfg.pruneDeadlocks, "prune-deadlocks", false, "sokoban: refuse pushes into simple deadlocks (dead squares, frozen 2x2 blocks); the same solutions, shorter searches (always on with a model trained with it)")
	fs.BoolVar(&cfg.noHeuristic, "no-heuristic", false, "without a model: use a zero heuristic instead of the domain's")
	fs.DurationVar(&cfg.progressEvery, "progress", 10*time.Second, "interval of progress records on standard error (0: none)")
	fs.Int64Var(&cfg.memoryMiB, "memory", -1, "memory bound of each search in MiB, after which it ends unsolved (0: none; -1: half the physical memory shared among the workers)")
	logFlag(fs, &cfg.logFormat)
}

// resolve checks the flags and loads the model. Without -model, it takes
// the domain's shipped model if it has the outputs the algorithm reads, and
// otherwise says on stderr that it goes without.
func (cfg *searchConfig) resolve(cmd string, stderr io.Writer) (domain, error) {
	if cfg.domain == "" {
		return nil, usagef("%s: -domain is required (%s)", cmd, strings.Join(domainNames(), ", "))
	}
	d, ok := domains[cfg.domain]
	if !ok {
		return nil, usagef("%s: unknown domain %q (want %s)", cmd, cfg.domain, strings.Join(domainNames(), ", "))
	}
	if cfg.pruneDeadlocks && !d.prunesDeadlocks() {
		return nil, usagef("%s: -prune-deadlocks: the %s domain has no deadlock pruning", cmd, cfg.domain)
	}
	switch cfg.modelPath {
	case "none":
	case "":
		m, err := models.Default(cfg.domain)
		switch {
		case err == nil:
			cfg.model, cfg.modelName = m, "shipped "+cfg.domain+" model"
		case !errors.Is(err, models.ErrNoModel):
			return nil, err
		}
	default:
		m, err := loadModel(cfg.modelPath)
		if err != nil {
			return nil, err
		}
		cfg.model, cfg.modelName = m, cfg.modelPath
	}
	if cfg.model != nil && cfg.model.Config().Domain != cfg.domain {
		return nil, fmt.Errorf("%s: %s is a %s model, not a %s one", cmd, cfg.modelName, cfg.model.Config().Domain, cfg.domain)
	}
	if cfg.model != nil && cfg.model.Config().PruneDeadlocks {
		// A network trained with deadlocks pruned searches with them
		// pruned.
		if !d.prunesDeadlocks() {
			return nil, fmt.Errorf("%s: %s was trained with deadlocks pruned, which the %s domain cannot", cmd, cfg.modelName, cfg.domain)
		}
		cfg.pruneDeadlocks = true
	}
	alg := search.PHSStar()
	switch {
	case cfg.alg != "":
		a, err := search.Parse(cfg.alg)
		if err != nil {
			return nil, usagef("%s: -alg: %v", cmd, err)
		}
		alg = a
	case cfg.model != nil:
		alg = cfg.model.Config().Algorithm
	}
	alg, err := withParams(alg, cfg.w, cfg.c)
	if err != nil {
		return nil, usagef("%s: %v", cmd, err)
	}
	cfg.algorithm = alg
	if cfg.goalTest != search.GoalTestDefault && alg.IsPUCT() {
		return nil, usagef("%s: -goal-test %s: puct tests the goal when a descent first reaches a node", cmd, cfg.goalTest)
	}
	if cfg.temperature != 0 && cfg.temperature != 1 && !alg.NeedsPolicy() {
		return nil, usagef("%s: -temperature %g: %s reads no policy", cmd, cfg.temperature, alg.Name())
	}
	if cfg.model != nil {
		missing := model.HeadsFor(alg) &^ cfg.model.Config().Heads
		if missing != 0 && cfg.modelPath == "" {
			cfg.log.Warn(fmt.Sprintf("the %s lacks the %s output that %s reads; using a uniform policy and the domain's heuristic", cfg.modelName, missing, alg.Name()))
			cfg.model, cfg.modelName, missing = nil, "", 0
		}
		switch {
		case missing&model.Policy != 0:
			return nil, fmt.Errorf("%s: %s needs a policy, and %s has none", cmd, alg.Name(), cfg.modelName)
		case missing&model.Heuristic != 0:
			return nil, fmt.Errorf("%s: %s needs a heuristic, and %s has none", cmd, alg.Name(), cfg.modelName)
		}
	}
	if cfg.temperature == 0 && cfg.model != nil && alg.NeedsPolicy() {
		cfg.temperature = cfg.model.Config().Temperature // 0 (1) if it has none
	}
	return d, nil
}

// loadModel loads a model directory, or the checkpoint of a training run's
// directory.
func loadModel(path string) (*model.Model, error) {
	if fi, err := os.Stat(filepath.Join(path, "checkpoint")); err == nil && fi.IsDir() {
		path = filepath.Join(path, "checkpoint")
	}
	return model.Load(path)
}

// options returns the search options of cfg with the given budget.
func (cfg *searchConfig) options(budget int64) search.Options {
	return search.Options{
		Budget:      budget,
		Timeout:     cfg.timeout,
		BatchSize:   cfg.batch,
		Renormalize: cfg.renormalize,
		Temperature: cfg.temperature,
		GoalTest:    cfg.goalTest,
		MaxMemory:   cfg.memoryMiB << 20,
	}
}

// newSolvers returns one solver per worker with the algorithm, the model
// or the domain's heuristic, and the options of cfg with the given budget.
func newSolvers[S comparable](cfg *searchConfig, budget int64) ([]*search.Solver[S], error) {
	solvers := make([]*search.Solver[S], cfg.workers)
	for i := range solvers {
		var ev search.Evaluator[S]
		switch {
		case cfg.model != nil:
			ev = model.NewEvaluator[S](cfg.model)
		case cfg.noHeuristic:
			ev = search.Uniform[S]{}
		default:
			ev = search.DomainHeuristic[S]{}
		}
		s, err := search.NewSolver(cfg.algorithm, ev, cfg.options(budget))
		if err != nil {
			return nil, err
		}
		s.SetProgress(&cfg.expansions)
		solvers[i] = s
	}
	return solvers, nil
}

// checkTasks checks every task against the solvers before anything is
// written: a problem that the model cannot evaluate, or that lacks the
// heuristic, is an error that names it.
func checkTasks[S comparable](cfg *searchConfig, solvers []*search.Solver[S], tasks []search.Task[S]) error {
	for _, t := range tasks {
		if err := solvers[0].Check(t.Problem); err != nil {
			if cfg.model != nil && cfg.modelPath == "" {
				return fmt.Errorf("%s: %s: %w (-model none goes without it)", t.ID, cfg.modelName, err)
			}
			if cfg.model != nil {
				return fmt.Errorf("%s: %s: %w", t.ID, cfg.modelName, err)
			}
			return fmt.Errorf("%s: %w", t.ID, err)
		}
	}
	return nil
}

func runSolve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg searchConfig
	fs := newFlagSet("solve", "FILES...", stdout)
	cfg.register(fs)
	fs.Int64Var(&cfg.budget, "budget", 0, "maximum expansions per problem (0: no limit)")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := cfg.check("solve", files, stderr); err != nil {
		return err
	}
	d, err := cfg.resolve("solve", stderr)
	if err != nil {
		return err
	}
	return d.solve(ctx, &cfg, files, stdout, stderr)
}

// check returns a usage error that names the first flag of cfg out of
// range, or says that files is empty or names the -out file; then it sets
// the defaults that depend on the machine and the logger to stderr.
func (cfg *searchConfig) check(cmd string, files []string, stderr io.Writer) error {
	if _, err := withParams(search.PHSStar(), cfg.w, cfg.c); err != nil {
		return usagef("%s: %v", cmd, err)
	}
	switch {
	case cfg.budget < 0:
		return usagef("%s: -budget %d: want >= 0", cmd, cfg.budget)
	case cfg.first < 0:
		return usagef("%s: -first %d: want >= 0 (0: all)", cmd, cfg.first)
	case cfg.batch < 1 || cfg.batch > search.MaxBatchSize:
		return usagef("%s: -batch %d: want 1 to %d", cmd, cfg.batch, search.MaxBatchSize)
	case cfg.timeout < 0:
		return usagef("%s: -timeout %v: want >= 0 (0: none)", cmd, cfg.timeout)
	case cfg.workers < 0:
		return usagef("%s: -workers %d: want >= 0 (0: all cores)", cmd, cfg.workers)
	case cfg.progressEvery < 0:
		return usagef("%s: -progress %v: want >= 0 (0: none)", cmd, cfg.progressEvery)
	case !(cfg.temperature >= 0 && finite(cfg.temperature)):
		return usagef("%s: -temperature %g: want a finite number > 0 (0: the model's, or 1)", cmd, cfg.temperature)
	case cfg.memoryMiB < -1 || cfg.memoryMiB > math.MaxInt64>>20:
		return usagef("%s: -memory %d: want a number of MiB >= 0, or -1", cmd, cfg.memoryMiB)
	case len(files) == 0:
		return usagef("%s: no problem files", cmd)
	}
	log, err := newLogger(cfg.logFormat, stderr)
	if err != nil {
		return usagef("%s: %v", cmd, err)
	}
	cfg.log = log
	if cfg.workers == 0 {
		cfg.workers = runtime.NumCPU()
	}
	if cfg.memoryMiB == -1 {
		cfg.memoryMiB = physicalMemory() / 2 / int64(cfg.workers) >> 20
	}
	if cfg.out != "" {
		for _, f := range files {
			if sameFile(cfg.out, f) {
				return usagef("%s: -out %s is the problem file %s", cmd, cfg.out, f)
			}
		}
	}
	return nil
}

// A paramFlag is the value of -w or -c: a number, and whether the
// command line set it.
type paramFlag struct {
	v   float64
	set bool
}

func (f *paramFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.FormatFloat(f.v, 'g', -1, 64)
}

func (f *paramFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("not a number")
	}
	f.v, f.set = v, true
	return nil
}

// withParams returns alg with the weight -w if it is WA* and the
// exploration constant -c if it is PUCT, when the command line set them;
// the other algorithms ignore them. It returns a usage error for a value
// out of range.
func withParams(alg search.Algorithm, w, c paramFlag) (search.Algorithm, error) {
	switch {
	case w.set && !(w.v >= 0 && finite(w.v)):
		return alg, usagef("-w %g: want a finite number >= 0", w.v)
	case c.set && !(c.v > 0 && finite(c.v)):
		return alg, usagef("-c %g: want a finite number > 0", c.v)
	case w.set && alg.Name() == "wastar":
		return search.WAStar(w.v), nil
	case c.set && alg.IsPUCT():
		return search.PUCT(c.v), nil
	}
	return alg, nil
}

// finite reports whether x is neither infinite nor NaN.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

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
// and the summary table.
func solveTasks[S comparable](ctx context.Context, cfg *searchConfig, tasks []search.Task[S], stdout, stderr io.Writer) error {
	solvers, err := newSolvers[S](cfg, cfg.budget)
	if err != nil {
		return err
	}
	if err := checkTasks(cfg, solvers, tasks); err != nil {
		return err
	}
	out, err := newResults(cfg, stdout, stderr)
	if err != nil {
		return err
	}
	var done, solved atomic.Int64
	stopProgress := progress(cfg.log, cfg.progressEvery, len(tasks), &done, &solved, &cfg.expansions)
	err = search.SolveAll(ctx, tasks, solvers, func(i int, r search.Result[S]) error {
		done.Add(1)
		if r.Solved {
			solved.Add(1)
		}
		return writeResult(out, cfg, tasks[i], r, cfg.budget)
	})
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
}

// newResults opens the output of cfg: the -out file, or stdout. Human
// output (renderings, the table) goes to stdout if records go to a file,
// else to stderr.
func newResults(cfg *searchConfig, stdout, stderr io.Writer) (*results, error) {
	r := &results{human: stderr, sum: report.Summary{Name: cfg.algorithm.Name()}}
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

// writeResult writes the record of r, flushed so that nothing is lost on
// interruption, and its rendering if asked. A solution that does not
// replay to the goal is an error (a defect of the search or the domain).
func writeResult[S comparable](out *results, cfg *searchConfig, t search.Task[S], r search.Result[S], budget int64) error {
	if r.Solved {
		if err := search.Replay(t.Problem, r.Actions); err != nil {
			return fmt.Errorf("%s: the solution found does not replay: %w", t.ID, err)
		}
	}
	rec := report.Record{
		Problem:    t.ID,
		Domain:     cfg.domain,
		Algorithm:  cfg.algorithm.Name(),
		Solved:     r.Solved,
		Length:     len(r.Actions),
		Expansions: r.Expansions,
		Generated:  r.Generated,
		TimeS:      r.Time.Seconds(),
		Budget:     budget,
		Solution:   search.FormatActions(t.Problem, r.Actions),
		Stop:       stopReasonOf(r, budget),
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

// stopReasonOf returns the Stop of the record of r, a search with the
// given budget.
func stopReasonOf[S comparable](r search.Result[S], budget int64) string {
	switch {
	case r.Solved:
		return ""
	case r.Exhausted:
		return "exhausted"
	case r.TimedOut:
		return "timeout"
	case r.OutOfMemory:
		return "memory"
	case budget > 0 && r.Expansions >= budget:
		return "budget"
	}
	return ""
}

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

// progress logs a progress record every interval, with the problems done
// and solved out of total and the expansions of the searches so far, until
// the returned function is called (more than once is fine).
func progress(log *slog.Logger, every time.Duration, total int, done, solved, expansions *atomic.Int64) (stop func()) {
	if every <= 0 {
		return func() {}
	}
	quit := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				d, e := done.Load(), expansions.Load()
				el := time.Since(start)
				log.Info("progress", "done", d, "problems", total, "solved", solved.Load(),
					"problems_per_s", math.Round(10*float64(d)/el.Seconds())/10,
					"expansions", e, "expansions_per_s", math.Round(float64(e)/el.Seconds()),
					"elapsed", el.Round(time.Second))
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
