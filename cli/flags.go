package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// runFlags are the flags that solve, test, train and worker share. Each is
// registered once, by register, with one name, default and meaning for
// every command that has it; the defaults are the library's (0 for its
// default where it has one). The flags of the search options write into
// the command's search.Options; the others into runFlags. Each value is
// checked once: the settings of the library by the library
// (search.NewSolver, bootstrap.Config.Validate, a learner's own) whose
// errors blame turns into usage errors under the flag's name, the others
// (-workers, -memory, -progress, -first, -log) by check.
type runFlags struct {
	domain, alg, modelPath string
	w, c                   paramFlag
	pruneDeadlocks         bool
	memoryMiB              int64
	workers                int
	progress               time.Duration
	logFormat              string
	// solve and test only.
	out          string
	first        int
	noHeuristic  bool
	noFloor      bool
	render       bool
	reorder      bool
	shortenFound int
}

// A flagGroup selects the flags of runFlags that a command has.
type flagGroup uint8

const (
	// searchFlags are those of the searches: solve, test, train.
	searchFlags flagGroup = 1 << iota
	// outFlags are those of the records: solve, test.
	outFlags
	// workerFlags are those of any command that searches: -workers, -log.
	workerFlags
)

// defaultProgress is the default interval of progress records.
const defaultProgress = 30 * time.Second

// register registers the flags of groups on fs, those of the search
// options bound into opts (nil without searchFlags and outFlags).
func (f *runFlags) register(fs *flag.FlagSet, groups flagGroup, domainNames []string, opts *search.Options) {
	if groups&searchFlags != 0 {
		fs.StringVar(&f.domain, "domain", "", "problem domain: "+strings.Join(domainNames, ", "))
		fs.StringVar(&f.alg, "alg", "", "algorithm: "+strings.Join(search.AlgorithmNames(), ", ")+"; wastar:W and puct:C give the parameter, beam:W and policybeam:W the beam's width, sqrtlts:c|h|l|lh[:N][:levin] the rerooter of √LTS and its weight or temperature (default: the model's, with its parameter; levints with a context model; without a model, the domain's for solve and test (sokoban: wastar:5, stp: wastar:8, witness: astar, rubiks: wastar:10 with an estimate stronger than its heuristic; gbfs for a domain of one's own with a heuristic) and phsh for train)")
		fs.Var(&f.w, "w", "weight of h for wastar (default: the algorithm's, or 1.5)")
		fs.Var(&f.c, "c", "exploration constant of puct (default: the algorithm's, or 1)")
		fs.StringVar(&f.modelPath, "model", "", `model or training-run directory, a context model's table file, or the name of a shipped model (sokoban-hard) when no such file exists: solve and test search with it (default: the domain's shipped model, if any, unless it takes none of the problems, such as a 6x6 puzzle; "none": no model), train starts from it, a network with the heads and losses of the run's algorithm (default: a fresh network)`)
		fs.Int64Var(&opts.Budget, "budget", 0, "expansion budget: solve: of every search (0: none; for a beam search, the model's, or else the domain's); test: of the first round, then grown (0: the model's, or else the domain's); train: of the first iteration, then grown (0: the domain's)")
		fs.DurationVar(&opts.Timeout, "timeout", 0, "wall-clock limit of each search (0: none)")
		fs.TextVar(&opts.GoalTest, "goal-test", search.GoalTestDefault, "when the best-first algorithms test a node for the goal: generation, expansion, or default (expansion for astar, which then returns optimal solutions with an admissible heuristic; generation for the others, as the paper's experiments, its A* included)")
		fs.IntVar(&opts.BatchSize, "batch", 0, fmt.Sprintf("states evaluated per evaluator call, 1 to %d (0: solve and test: 1 with a context model, else the library's 32; train: the library's)", search.MaxBatchSize))
		fs.BoolVar(&opts.Renormalize, "renormalize", false, "renormalise the policy over legal actions")
		fs.Float64Var(&opts.Temperature, "temperature", 0, "temperature T of the policy: the search uses pi^(1/T), normalised; T > 1 gives the heuristic and the path cost more weight (0: the model's, or 1); train records it in the network")
		fs.Float64Var(&opts.Mix, "mix", 0, "weight e of the uniform policy mixed into the policy, in [0, 1): the search uses (1-e)*pi + e/A, after -temperature (0: the model's, or none; in train, a context model's 0.001, the reference's); train records it in the network")
		fs.BoolVar(&f.pruneDeadlocks, "prune-deadlocks", false, "refuse moves into dead ends the domain can see (sokoban: dead squares, frozen 2x2 blocks, boxes with too few goals, up to three boxes stuck even alone): the same solutions, shorter searches (always on with a model trained with it)")
		fs.Int64Var(&f.memoryMiB, "memory", -1, "memory bound of each search in MiB, after which it ends unsolved (0: none; -1: half the memory the process may use (the least of the machine's, its cgroup's limit, RLIMIT_AS and RLIMIT_DATA) shared among the workers)")
		fs.DurationVar(&f.progress, "progress", defaultProgress, "interval of progress records on standard error (0: none)")
	}
	if groups&outFlags != 0 {
		fs.StringVar(&f.out, "out", "", "write the JSON lines to this file instead of standard output")
		fs.IntVar(&f.first, "first", 0, "read and attempt only the first N problems of FILES, in order (0: all); the rest of the files is not read")
		fs.BoolVar(&f.render, "render", false, "draw each solution step by step")
		fs.BoolVar(&opts.Shorten, "shorten", false, "return a shortest path to the goal found over every edge the search generated, duplicates included (search.Options.Shorten): no more expansions, often shorter solutions")
		fs.BoolVar(&f.reorder, "reorder", false, fmt.Sprintf("after the search, reorder the solution (sokoban: the shortest interleaving of its runs of pushes, sokoban.Problem.Reorder, up to %d expansions, counted in the record's expansions and reorder_expansions)", reorderLimit))
		fs.IntVar(&f.shortenFound, "shorten-found", -1, "after the search, shorten each solution found by the domain's own pass with at most this many nodes (stp and rubiks: windows of moves replaced by shortest paths, stp.Problem.Shorten, rubiks.Problem.Shorten), counted in the record's shorten_nodes, not in its expansions (-1: the model's, or none; 0: none)")
		fs.BoolVar(&f.noHeuristic, "no-heuristic", false, "without a model: search with a zero heuristic instead of the domain's")
		fs.BoolVar(&f.noFloor, "no-floor", false, "with a network trained with -floor, whose heuristic is the larger of its own and the problem's: search with the network's alone")
	}
	if groups&workerFlags != 0 {
		fs.IntVar(&f.workers, "workers", 0, fmt.Sprintf("searches in parallel, up to %d (0: all cores)", maxWorkers(false)))
		logFlag(fs, &f.logFormat)
	}
}

// maxWorkers bounds -workers: 16 searches per thread the Go runtime runs,
// or, for searches over NATS (nats) where -workers counts the searches of
// all the workers, 65,536.
func maxWorkers(nats bool) int {
	if nats {
		return 1 << 16
	}
	return 16 * runtime.GOMAXPROCS(0)
}

// check returns a usage error of cmd that names the first flag of the
// command's own (not the library's) out of range.
func (f *runFlags) check(cmd string, groups flagGroup, nats bool) error {
	if groups&searchFlags != 0 {
		switch {
		case f.memoryMiB < -1 || f.memoryMiB > math.MaxInt64>>20:
			return usagef("%s: -memory %d: want a number of MiB >= 0, or -1", cmd, f.memoryMiB)
		case f.progress < 0:
			return usagef("%s: -progress %v: want >= 0 (0: none)", cmd, f.progress)
		}
	}
	if groups&outFlags != 0 {
		switch {
		case f.first < 0:
			return usagef("%s: -first %d: want >= 0 (0: all)", cmd, f.first)
		case f.shortenFound < -1 || f.shortenFound > model.MaxShortenFound:
			return usagef("%s: -shorten-found %d: want 0 to %d nodes, or -1 (the model's)", cmd, f.shortenFound, model.MaxShortenFound)
		}
	}
	if groups&workerFlags != 0 {
		if n := maxWorkers(nats); f.workers < 0 || f.workers > n {
			return usagef("%s: -workers %d: want 0 to %d (0: all cores)", cmd, f.workers, n)
		}
	}
	return nil
}

// memoryBytes returns the memory bound of each of n searches in bytes:
// -memory, or for -1 half the memory the process may use (memoryLimit)
// shared among them.
func (f *runFlags) memoryBytes(n int) int64 {
	if f.memoryMiB == -1 {
		return memoryLimit() / 2 / int64(max(n, 1))
	}
	return f.memoryMiB << 20
}

// workerCount returns the number of searches in parallel: -workers, or the
// cores for 0.
func (f *runFlags) workerCount() int {
	if f.workers == 0 {
		return runtime.NumCPU()
	}
	return f.workers
}

// blame checks v, the value that the command line of fs set, with valid,
// the library's validation. If it fails, blame returns a usage error that
// names the first flag of the command line (in the order of fs.Visit)
// whose value alone makes valid fail on the value that fresh binds to a
// new flag set, with the command line's values of the flags base, or one
// with the library's error if no flag alone does. fresh binds the flags
// as the command does; its value with the flags base must pass valid. The
// error is for the caller to prefix with the command's name.
func blame[T any](fs *flag.FlagSet, v *T, fresh func(*flag.FlagSet) *T, valid func(*T) error, base ...string) error {
	err := valid(v)
	if err == nil {
		return nil
	}
	var blamed error
	fs.Visit(func(f *flag.Flag) {
		if blamed != nil || slices.Contains(base, f.Name) {
			return
		}
		one := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
		one.SetOutput(io.Discard)
		w := fresh(one)
		if one.Lookup(f.Name) == nil {
			return
		}
		for _, name := range append([]string{f.Name}, base...) {
			if g := fs.Lookup(name); g != nil && isSet(fs, name) {
				one.Set(name, g.Value.String()) // parsed once already
			}
		}
		if e := valid(w); e != nil {
			blamed = usagef("-%s %s: %v", f.Name, f.Value, e)
		}
	})
	if blamed != nil {
		return blamed
	}
	return usageError{err.Error()}
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
// search.NewSolver checks their range.
func withParams(alg search.Algorithm, w, c paramFlag) search.Algorithm {
	switch {
	case w.set && alg.Name() == search.WAStar(1).Name():
		return search.WAStar(w.v)
	case c.set && alg.IsPUCT():
		return search.PUCT(c.v)
	}
	return alg
}

// checkParams returns a usage error of cmd if fs sets -w and alg is not
// wastar, or -c and alg is not puct: those algorithms alone read them.
func checkParams(cmd string, fs *flag.FlagSet, alg search.Algorithm) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		switch {
		case err != nil:
		case f.Name == "w" && alg.Name() != search.WAStar(1).Name():
			err = usagef("%s: -w %s: %s has no weight (wastar has)", cmd, f.Value, alg.Name())
		case f.Name == "c" && !alg.IsPUCT():
			err = usagef("%s: -c %s: %s has no exploration constant (puct has)", cmd, f.Value, alg.Name())
		}
	})
	return err
}

// isSet reports whether the command line of fs sets the flag called name.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
