package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/cluster"
	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/domain/rubiks"
	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/models"
	"github.com/phs-go/phs/search"
)

// A Domain is a problem domain of the command: its name (the value of
// -domain), how to read its problem files, and what its problems can do.
// Build one with NewDomain; Shipped returns the domains of the module.
// The zero Domain is no domain: Run refuses it.
type Domain struct{ d domain }

// Name returns the domain's name.
func (d Domain) Name() string {
	if d.d == nil {
		return ""
	}
	return d.d.caps().name
}

// An Option sets an optional part of a domain built by NewDomain.
type Option struct{ apply func(o *options) }

// options are the settings of NewDomain's options, before they are
// checked against the problem type.
type options struct {
	id           any // func(P) string
	parseFirst   any // func(io.Reader, string, int) ([]P, error)
	budget       int64
	gen          Generator
	noModelAlg   *search.Algorithm
	noModelH     any // func(P, S) float64
	defaultModel func() (models.Model, error)
	learners     []any // Learner[S]
}

// ProblemID gives the ID of each problem read, such as "<file base
// name>#<index>", which names it in the records and the logs. Without it,
// a problem's ID is "<file base name>#<index>", the index counting the
// problems of the file from 0. NewDomain panics unless P is the domain's
// problem type.
func ProblemID[P any](id func(P) string) Option {
	return Option{func(o *options) { o.id = id }}
}

// ParseFirst gives the domain a parser of the first n problems of a file
// (n ≥ 1), which reads no more of it than they take, as
// sokoban.ParseFirst: "phs solve -first N" and "phs test -first N" then
// read only the problems they attempt, and every command stops reading
// past the most problems it reads (MaxProblems). Without it, a domain's
// files are read whole with NewDomain's parse. NewDomain panics unless P
// is the domain's problem type.
func ParseFirst[P any](parse func(r io.Reader, file string, n int) ([]P, error)) Option {
	return Option{func(o *options) { o.parseFirst = parse }}
}

// InitialBudget sets the domain's initial expansion budget, that of the
// first Bootstrap iteration of "phs train" and of the first round of "phs
// test": n > 0. Without it, it is 2,000 (the paper's for Sokoban and The
// Witness).
func InitialBudget(n int64) Option {
	return Option{func(o *options) { o.budget = n }}
}

// WithGenerator gives the domain a generator of random problems, "phs
// generate NAME".
func WithGenerator(g Generator) Option {
	return Option{func(o *options) { o.gen = g }}
}

// NoModelAlgorithm sets the algorithm of "phs solve" and "phs test" when
// no model is used (no -model and no shipped one, or -model none) and
// -alg is not given. Without it, it is GBFS if the problems have a
// heuristic (search.Heuristic, or NoModelHeuristic), and LevinTS (breadth-first search under
// the uniform policy) if not. NewDomain panics if alg reads a heuristic
// that the problems lack.
func NoModelAlgorithm(alg search.Algorithm) Option {
	return Option{func(o *options) { o.noModelAlg = &alg }}
}

// NoModelHeuristic gives the heuristic of the domain's default search
// without a model (no model, no -alg and no -no-heuristic): h(p, s), an
// estimate of the cost from state s of problem p to the goal, in place of
// the problems' own (search.Heuristic), which -alg ALG without a model
// still reads. It suits an estimate that guides a search well but is
// not admissible. NewDomain panics unless h is a func(P, S) float64 of
// the domain's problem and state types.
func NoModelHeuristic[P, S any](h func(p P, s S) float64) Option {
	return Option{func(o *options) { o.noModelH = h }}
}

// DefaultModel gives the model that "phs solve" and "phs test" use without
// -model: load returns it, a network or a context model (exactly one of
// the fields of models.Model), or an error that wraps models.ErrNoModel
// for none. A network searches with the algorithm it was trained for, a
// context model with LevinTS, as with -model; a context model needs
// problems with contexts (cm.Contexter). "phs solve" and "phs test" call
// load once, before any search, and stop on its other errors.
func DefaultModel(load func() (models.Model, error)) Option {
	return Option{func(o *options) { o.defaultModel = load }}
}

// A Generator makes the random problems of "phs generate DOMAIN". The
// command registers -n, -seed and -out; the generator its own flags, such
// as -size.
type Generator interface {
	// Flags registers the generator's flags on fs.
	Flags(fs *flag.FlagSet)
	// New checks the flags, once parsed, and returns the function that
	// returns the text of a new random problem drawn from rng, as the
	// domain's parser reads it. The command writes the texts one after
	// the other, each followed by a newline. An error of New is a usage
	// error. next is called once per problem, up to a million times; it
	// should take well under a second (the command looks for Ctrl-C
	// between two problems).
	New(rng *rand.Rand) (next func() string, err error)
}

// NewDomain returns the domain called name whose problem files parse
// reads: parse reads the problems of the file called file from r, and
// returns an error that names the file and the line for bad input. name
// is made of lower-case letters, digits and '-'. The problem type P is
// the domain's (such as *pancake.Problem), S its state type.
//
// What the problems can do is read from P:
//
//   - search.Heuristic: "phs solve" and "phs test" without a model search
//     with it, by GBFS by default;
//   - search.Encoder: "phs train" trains networks for the domain, which
//     then guide its searches (the paper's needs inputs of at least 3x3);
//   - cm.Contexter: "phs train -learner context" trains context models;
//   - search.ActionNamer: records spell solutions with the action names;
//   - Render(S) string: -render draws solutions with it;
//   - PruneDeadlocks() P, the problem without dead ends: -prune-deadlocks;
//   - Reorder(actions []int, limit int) ([]int, int, error), as
//     sokoban.Problem.Reorder: -reorder;
//   - bootstrap.Shortener: "phs train -shorten-learned", "phs solve|test
//     -shorten-found", after PrepareShorten() if P has it (rubiks.Problem);
//
// The options add the rest: ProblemID, ParseFirst, InitialBudget,
// WithGenerator, NoModelAlgorithm, NoModelHeuristic, DefaultModel,
// WithLearner. NewDomain panics, at the start of the program, for a bad
// name, a nil parse or an option that does not fit.
func NewDomain[S comparable, P search.Problem[S]](name string, parse func(r io.Reader, file string) ([]P, error), opts ...Option) Domain {
	if !domainName.MatchString(name) {
		panic(fmt.Sprintf("cli: NewDomain(%q): want a name of lower-case letters, digits and '-'", name))
	}
	if parse == nil {
		panic(fmt.Sprintf("cli: NewDomain(%q): no parse function", name))
	}
	o := options{budget: 2000}
	for _, opt := range opts {
		opt.apply(&o)
	}
	var zero P
	var caps capabilities
	caps.name = name
	_, caps.heuristic = any(zero).(search.Heuristic[S])
	_, caps.encoder = any(zero).(search.Encoder[S])
	_, caps.contexts = any(zero).(cm.Contexter[S])
	_, caps.namer = any(zero).(search.ActionNamer[S])
	_, caps.prunes = any(zero).(interface{ PruneDeadlocks() P })
	_, caps.reorders = any(zero).(reorderer)
	_, caps.shortens = any(zero).(bootstrap.Shortener)
	caps.budget = o.budget
	caps.gen = o.gen
	caps.defaultModel = o.defaultModel
	if o.budget <= 0 {
		panic(fmt.Sprintf("cli: NewDomain(%q): InitialBudget(%d): want > 0", name, o.budget))
	}
	var noModelEval func() search.Evaluator[S]
	if o.noModelH != nil {
		h, ok := o.noModelH.(func(P, S) float64)
		if !ok {
			panic(fmt.Sprintf("cli: NewDomain(%q): NoModelHeuristic takes a %T, want a func(%T, %T) float64", name, o.noModelH, zero, *new(S)))
		}
		caps.noModelH = true
		noModelEval = func() search.Evaluator[S] { return heuristicEvaluator[P, S]{h} }
	}
	switch {
	case o.noModelAlg != nil:
		caps.noModelAlg = *o.noModelAlg
	case caps.heuristic || caps.noModelH:
		caps.noModelAlg = search.GBFS()
	default:
		caps.noModelAlg = search.LevinTS()
	}
	if model.HeadsFor(caps.noModelAlg)&model.Heuristic != 0 && !caps.heuristic && !caps.noModelH {
		panic(fmt.Sprintf("cli: NewDomain(%q): NoModelAlgorithm(%s) reads a heuristic, and %T has none", name, caps.noModelAlg.Name(), zero))
	}
	id := func(_ P, file string, i int) string { return filepath.Base(file) + "#" + strconv.Itoa(i) }
	if o.id != nil {
		f, ok := o.id.(func(P) string)
		if !ok {
			panic(fmt.Sprintf("cli: NewDomain(%q): ProblemID takes a %T, want a func(%T) string", name, o.id, zero))
		}
		id = func(p P, _ string, _ int) string { return f(p) }
	}
	first := func(r io.Reader, file string, n int) ([]P, error) {
		ps, err := parse(r, file)
		if n > 0 && len(ps) > n {
			ps = ps[:n]
		}
		return ps, err
	}
	if o.parseFirst != nil {
		f, ok := o.parseFirst.(func(io.Reader, string, int) ([]P, error))
		if !ok {
			panic(fmt.Sprintf("cli: NewDomain(%q): ParseFirst takes a %T, want a func(io.Reader, string, int) ([]%T, error)", name, o.parseFirst, zero))
		}
		first = f
	}
	learners := shippedLearners[S]()
	for _, l := range o.learners {
		k, ok := l.(Learner[S])
		if !ok {
			panic(fmt.Sprintf("cli: NewDomain(%q): WithLearner takes a %T, want a Learner of the states of %T", name, l, zero))
		}
		kind := k.Kind()
		for _, other := range learners {
			if other.Kind().Name == kind.Name {
				panic(fmt.Sprintf("cli: NewDomain(%q): two learners called %q", name, kind.Name))
			}
		}
		if !domainName.MatchString(kind.Name) || kind.Flags == nil {
			panic(fmt.Sprintf("cli: NewDomain(%q): WithLearner(%q): want a name of lower-case letters, digits and '-', and Flags", name, kind.Name))
		}
		learners = append(learners, k)
	}
	for _, l := range learners {
		caps.learners = append(caps.learners, l.Kind())
	}
	d := &domainOf[S]{c: caps, learners: learners, zero: zero, noModelEval: noModelEval}
	d.parse = func(r io.Reader, file string, n int) ([]search.Task[S], error) {
		ps, err := first(r, file, n)
		if err != nil {
			return nil, err
		}
		ts := make([]search.Task[S], len(ps))
		for i, p := range ps {
			ts[i] = search.Task[S]{ID: id(p, file, i), Problem: p}
		}
		return ts, nil
	}
	if caps.prunes {
		d.prune = func(p search.Problem[S]) search.Problem[S] {
			return any(p).(interface{ PruneDeadlocks() P }).PruneDeadlocks()
		}
	}
	return Domain{d}
}

var domainName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// Shipped returns the domains of the module: Sokoban (Boxoban levels), the
// sliding-tile puzzle, The Witness and the Rubik's cube, each with its
// shipped model (package models: a network of PHS* for Sokoban, of WA*
// for 5x5 puzzles, of beam search for the cube, a context model searched
// with LevinTS for The Witness); a file of larger sliding-tile boards
// takes the shipped model of its first one's size
// (models.Named("stp-6x6"), models.Named("stp-7x7")), if any.
// Without a model (or for problems their model cannot take) they search
// with WA*, w = 5, for Sokoban; WA*, w = 8, for the
// sliding-tile puzzle; A* for The Witness; and WA*, w = 10, with
// rubiks.Problem.Estimate for the cube. On validation problems, one core:
// 200 Boxoban levels, 34.5 moves (optimum 30.7, GBFS 43.5), 10,022
// expansions; random puzzles: 4x4 91.8 moves (GBFS 146), 5x5 210 (GBFS
// 632), 6x6 49 of 50 within 20 s, 387 moves (GBFS 5,490), 0.6 M
// expansions; 20 random cubes, 17 within 60 s, 74.1 quarter turns (GBFS
// thousands), 1.7 M expansions. README.md has the commands.
func Shipped() []Domain {
	shipped := func(name string) Option {
		return DefaultModel(func() (models.Model, error) { return models.Default(name) })
	}
	return []Domain{
		NewDomain[sokoban.State]("sokoban", sokoban.Parse, ParseFirst(sokoban.ParseFirst),
			ProblemID(func(p *sokoban.Problem) string { return p.ID }),
			InitialBudget(sokoban.InitialBudget), shipped("sokoban"),
			NoModelAlgorithm(search.WAStar(sokobanNoModelW))),
		{&stpDomain{
			small: stpDomainOf[stp.State](InitialBudget(stp.InitialBudget), WithGenerator(&stpGenerator{}), shipped("stp"),
				NoModelAlgorithm(search.WAStar(stpNoModelW))),
			large: func(rows, cols int) *domainOf[stp.LargeState] {
				name := fmt.Sprintf("stp-%dx%d", rows, cols)
				return stpDomainOf[stp.LargeState](InitialBudget(stp.InitialBudget), NoModelAlgorithm(search.WAStar(stpNoModelW)),
					DefaultModel(func() (models.Model, error) { return models.Named(name) }))
			},
		}},
		NewDomain[witness.State]("witness", witness.Parse, ParseFirst(witness.ParseFirst),
			ProblemID(func(p *witness.Problem) string { return p.ID }),
			InitialBudget(witness.InitialBudget), WithGenerator(&witnessGenerator{}), shipped("witness"),
			// Without a model, A* solved 50 random 4x4 puzzles with 8,891
			// expansions on average, PHS* 9,042, GBFS 19,540.
			NoModelAlgorithm(search.AStar())),
		NewDomain[rubiks.State]("rubiks", rubiks.Parse, ParseFirst(rubiks.ParseFirst),
			ProblemID(func(p *rubiks.Problem) string { return p.ID }),
			InitialBudget(rubiks.InitialBudget), WithGenerator(&rubiksGenerator{}), shipped("rubiks"),
			NoModelAlgorithm(search.WAStar(rubiksNoModelW)), NoModelHeuristic((*rubiks.Problem).Estimate)),
	}
}

// The weights of WA*, the shipped domains' search without a model; see
// Shipped.
const (
	sokobanNoModelW = 5
	stpNoModelW     = 8
	rubiksNoModelW  = 10
)

// capabilities are what a domain's problems can do, and its settings.
type capabilities struct {
	name                              string
	heuristic, encoder, namer, prunes bool
	reorders                          bool // reorderer
	shortens                          bool // bootstrap.Shortener
	contexts                          bool // cm.Contexter
	budget                            int64
	gen                               Generator
	noModelAlg                        search.Algorithm
	noModelH                          bool // NoModelHeuristic
	defaultModel                      func() (models.Model, error)
	learners                          []LearnerKind // of domainOf.learners
}

// A domain is what the commands need of a problem domain, with its state
// type hidden behind the methods.
type domain interface {
	caps() *capabilities
	// solve attempts each problem once; test runs the Bootstrap test.
	solve(ctx context.Context, cfg *searchConfig, files []string, stdout, stderr io.Writer) error
	test(ctx context.Context, cfg *testConfig, files []string, stdout, stderr io.Writer) error
	// train runs or resumes (resume) a Bootstrap training run.
	train(ctx context.Context, cfg *trainConfig, resume bool, stderr io.Writer) error
	// checkLearner returns an error if the domain has no kind of learner
	// called name, or one that cannot learn its problems.
	checkLearner(name string) error
	// work joins a training run over NATS as a worker, with the problem
	// files of the run.
	work(ctx context.Context, nc *nats.Conn, spec cluster.Spec, files []cluster.File, opts cluster.WorkerOptions) error
}

// A domainOf reads the problem files of one domain whose state type is S.
type domainOf[S comparable] struct {
	c capabilities
	// parse reads the first n tasks of r, the file called file (all for
	// n ≤ 0).
	parse func(r io.Reader, file string, n int) ([]search.Task[S], error)
	// prune returns a problem of the domain with its deadlocks pruned;
	// nil for a domain without deadlock pruning.
	prune func(search.Problem[S]) search.Problem[S]
	// learners are the domain's kinds of learner, and zero the zero
	// value of its problem type, which they check (Learner.Check).
	learners []Learner[S]
	zero     search.Problem[S]
	// noModelEval returns the evaluator of the default search without a
	// model (NoModelHeuristic); nil for the problems' heuristic.
	noModelEval func() search.Evaluator[S]
}

func (d *domainOf[S]) caps() *capabilities { return &d.c }

// read reads the first n tasks of the file path (all for n ≤ 0).
func (d *domainOf[S]) read(path string, n int) ([]search.Task[S], error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.c.name, err)
	}
	defer f.Close()
	return d.parse(f, path, n)
}

// load reads the first n tasks of files (all for n ≤ 0), in order, and
// warns of IDs that more than one task has. The files after the first n
// tasks are not read, but must exist. Reading more than most tasks is an
// error that names the file past the bound (MaxProblems).
func (d *domainOf[S]) load(files []string, n, most int, log *slog.Logger) ([]search.Task[S], error) {
	var tasks []search.Task[S]
	var from []string // the file of each task
	for i, f := range files {
		if n > 0 && len(tasks) >= n {
			for _, rest := range files[i:] {
				if _, err := os.Stat(rest); err != nil {
					return nil, fmt.Errorf("%s: %w", d.c.name, err)
				}
			}
			break
		}
		want := most - len(tasks) + 1 // one past the bound, to find it
		if n > 0 && n <= most {
			want = n - len(tasks)
		}
		t, err := d.read(f, want)
		if err != nil {
			return nil, err
		}
		if len(t) == 0 {
			return nil, fmt.Errorf("%s: %s: no problems", d.c.name, f)
		}
		if len(tasks)+len(t) > most {
			return nil, fmt.Errorf("%s: %s: more than %d problems in the files, the most a command reads (solve and test -first N read the first N)", d.c.name, f, most)
		}
		tasks = append(tasks, t...)
		for range t {
			from = append(from, f)
		}
	}
	warnDuplicates(tasks, from, log)
	return tasks, nil
}

// loadFirst is load of at most maxProblems tasks, with their deadlocks
// pruned for prune.
func (d *domainOf[S]) loadFirst(files []string, n int, prune bool, log *slog.Logger) ([]search.Task[S], error) {
	return d.loadAtMost(files, n, maxProblems, prune, log)
}

// loadAtMost is load, with the tasks' deadlocks pruned for prune.
func (d *domainOf[S]) loadAtMost(files []string, n, most int, prune bool, log *slog.Logger) ([]search.Task[S], error) {
	tasks, err := d.load(files, n, most, log)
	if err != nil {
		return nil, err
	}
	if prune {
		d.pruneAll(tasks)
	}
	return tasks, nil
}

// pruneAll replaces the problem of every task by the same with its
// deadlocks pruned; the domain must have deadlock pruning.
func (d *domainOf[S]) pruneAll(tasks []search.Task[S]) {
	for i := range tasks {
		tasks[i].Problem = d.prune(tasks[i].Problem)
	}
}

func (d *domainOf[S]) solve(ctx context.Context, cfg *searchConfig, files []string, stdout, stderr io.Writer) error {
	tasks, err := d.loadFirst(files, cfg.first, cfg.pruneDeadlocks, cfg.log)
	if err != nil {
		return err
	}
	return solveTasks(ctx, cfg, d.noModelEval, tasks, stdout, stderr)
}

func (d *domainOf[S]) test(ctx context.Context, cfg *testConfig, files []string, stdout, stderr io.Writer) error {
	tasks, err := d.loadFirst(files, cfg.first, cfg.pruneDeadlocks, cfg.log)
	if err != nil {
		return err
	}
	return testTasks(ctx, cfg, d.noModelEval, tasks, stdout, stderr)
}

func (d *domainOf[S]) train(ctx context.Context, cfg *trainConfig, resume bool, stderr io.Writer) error {
	l, err := d.learner(cfg.learner)
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	tasks, err := d.loadFirst(cfg.files, 0, cfg.flags.pruneDeadlocks, cfg.log)
	if err != nil {
		return err
	}
	if len(cfg.validFiles) > 0 {
		valid, err := d.loadAtMost(cfg.validFiles, 0, maxProblems-len(tasks), cfg.flags.pruneDeadlocks, cfg.log)
		if err != nil {
			return err
		}
		cfg.validProblems = len(valid)
		tasks = append(tasks, valid...)
	}
	return trainTasks(ctx, cfg, l, tasks, resume, stderr)
}

func (d *domainOf[S]) work(ctx context.Context, nc *nats.Conn, spec cluster.Spec, files []cluster.File, opts cluster.WorkerOptions) error {
	var tasks []search.Task[S]
	for _, f := range files {
		t, err := d.parse(bytes.NewReader(f.Data), f.Name, 0)
		if err != nil {
			return fmt.Errorf("the run's problems: %w", err)
		}
		tasks = append(tasks, t...)
	}
	if spec.PruneDeadlocks {
		if d.prune == nil {
			return fmt.Errorf("the run prunes deadlocks, which the %s domain has not", spec.Domain)
		}
		d.pruneAll(tasks)
	}
	l, err := d.learner(spec.Learner)
	if err != nil {
		return fmt.Errorf("the run's learner is %q: %w", spec.Learner, err)
	}
	if err := l.Check(spec.Domain, d.zero); err != nil {
		return err
	}
	opts.Learner = spec.Learner
	return cluster.Work(ctx, nc, spec, tasks, l.Decode, opts)
}

// stpDomain is the sliding-tile puzzle: its puzzles are
// stp.Problem[stp.State]s, or stp.Problem[stp.LargeState]s when a file has
// a board of more than stp.MaxCells cells. Each size of the latter has its
// domain, whose default model is the shipped model of that size, if any
// (models.Named("stp-6x6"), models.Named("stp-7x7")).
type stpDomain struct {
	small *domainOf[stp.State]
	// large returns the domain of stp.LargeState puzzles whose first large
	// board has rows×cols cells.
	large func(rows, cols int) *domainOf[stp.LargeState]
}

// stpDomainOf returns the sliding-tile domain of puzzles with state type S.
func stpDomainOf[S stp.Arrangement[S]](opts ...Option) *domainOf[S] {
	opts = append([]Option{ParseFirst(stp.ParseFirst[S]), ProblemID(func(p *stp.Problem[S]) string { return p.ID })}, opts...)
	return NewDomain[S]("stp", stp.Parse[S], opts...).d.(*domainOf[S])
}

func (d *stpDomain) caps() *capabilities { return d.small.caps() }

func (d *stpDomain) checkLearner(name string) error { return d.small.checkLearner(name) }

// pick returns the domain of stp.LargeState puzzles of the size that
// parse, called with each file index from 0 to n-1, returns for the first
// file with a board too large for a stp.State (large), and otherwise that
// of stp.State puzzles.
func (d *stpDomain) pick(n int, parse func(i int) (rows, cols int, large bool)) domain {
	for i := range n {
		if rows, cols, large := parse(i); large {
			return d.large(rows, cols)
		}
	}
	return d.small
}

// largeSize reads the first n puzzles of r, the file called name (all for
// n ≤ 0), and returns how many it read and, if one of them is too large
// for a stp.State (large), the size of the first such; 0x0 if the file
// has an error (load reports it).
func largeSize(r io.ReadSeeker, name string, n int) (rows, cols, read int, large bool) {
	small, err := stp.ParseFirst[stp.State](r, name, n)
	if !errors.Is(err, stp.ErrLarge) {
		return 0, 0, len(small), false
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return 0, 0, 0, true
	}
	ps, err := stp.ParseFirst[stp.LargeState](r, name, n)
	if err != nil {
		return 0, 0, 0, true
	}
	for _, p := range ps {
		if p.Rows*p.Cols > stp.MaxCells {
			return p.Rows, p.Cols, len(ps), true
		}
	}
	return 0, 0, len(ps), true // not reached: stp.State took them all
}

// pickFiles is pick of the first n puzzles of files (all for n ≤ 0; at
// most maxProblems + 1, as load reads them).
func (d *stpDomain) pickFiles(files []string, n int) domain {
	left := maxProblems + 1
	if n > 0 && n <= maxProblems {
		left = n
	}
	return d.pick(len(files), func(i int) (rows, cols int, large bool) {
		if left <= 0 {
			return 0, 0, false
		}
		f, err := os.Open(files[i])
		if err != nil {
			return 0, 0, false // load reports it
		}
		defer f.Close()
		rows, cols, read, large := largeSize(f, files[i], left)
		left -= read
		return rows, cols, large
	})
}

func (d *stpDomain) solve(ctx context.Context, cfg *searchConfig, files []string, stdout, stderr io.Writer) error {
	return d.pickFiles(files, cfg.first).solve(ctx, cfg, files, stdout, stderr)
}

func (d *stpDomain) test(ctx context.Context, cfg *testConfig, files []string, stdout, stderr io.Writer) error {
	return d.pickFiles(files, cfg.first).test(ctx, cfg, files, stdout, stderr)
}

func (d *stpDomain) train(ctx context.Context, cfg *trainConfig, resume bool, stderr io.Writer) error {
	return d.pickFiles(cfg.problemFiles(), 0).train(ctx, cfg, resume, stderr)
}

func (d *stpDomain) work(ctx context.Context, nc *nats.Conn, spec cluster.Spec, files []cluster.File, opts cluster.WorkerOptions) error {
	parse := func(i int) (rows, cols int, large bool) {
		rows, cols, _, large = largeSize(bytes.NewReader(files[i].Data), files[i].Name, 0)
		return rows, cols, large
	}
	return d.pick(len(files), parse).work(ctx, nc, spec, files, opts)
}
