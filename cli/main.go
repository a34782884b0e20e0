// Package cli is the phs command, for the shipped domains or for any
// other: it solves search problems with Policy-Guided Heuristic Search and
// its peers, generates problem sets, and trains and tests models.
//
// A program builds the command from a list of domains. cmd/phs is
//
//	func main() { cli.Main(cli.Shipped()...) }
//
// and a domain of one's own, whose problem type P implements
// search.Problem[S] and whose files parse reads, takes a main of a few
// lines (examples/pancake):
//
//	var pancakes = cli.NewDomain[State]("pancake", Parse, cli.WithGenerator(&generator{}))
//
//	func main() { cli.Main(append(cli.Shipped(), pancakes)...) }
//
// Every command then works with -domain pancake: JSONL records, summary
// tables, progress records, training with checkpoints and -resume, NATS
// workers, plots. NewDomain reads what the problems can do from P (a
// heuristic, a network encoding, contexts for a context model, action
// names, rendering, deadlock pruning) and takes the rest as options; Run runs a command line with
// injected output streams, for tests and for programs that embed the
// command.
//
// Usage:
//
//	phs solve    -domain D [flags] FILES...      attempt each problem once, one JSON line per problem
//	phs test     -domain D [flags] FILES...      the paper's Bootstrap test: rounds with a doubling budget
//	phs train    -domain D -dir RUN [flags] FILES... Bootstrap training of a network or (-learner context) a context model; -resume RUN [FILES...] continues
//	phs worker   -connect nats://HOST:4222 -nkey RUN/nats/worker.nk   search for a training run that listens (-listen)
//	phs plot     -out IMAGE RUN...               learning curves; -profile for test profiles
//	phs generate DOMAIN [flags]                  random problems, for the domains with a generator
//	phs data fetch [SET]...                      the data sets of the paper
//
// solve, test, train and worker share one set of flags, with the same
// names, defaults and checks: -domain, -alg, -w, -c, -model (every model
// read: the network or context model to search with, or the network
// train starts from),
// -budget, -timeout, -batch, -renormalize, -temperature, -mix,
// -prune-deadlocks, -memory, -progress, -workers, -log; -out names every
// output file. A flag's 0 selects the library's default; the library's
// checks of search.NewSolver and bootstrap.Config.Validate are reported
// as usage errors under the flag's name. Records go to standard output
// (or -out); progress, logs and the summary table to standard error; the
// usage text to standard output, and only on -h. Log records give times
// in seconds (elapsed_s).
//
// Run "phs COMMAND -h" for the flags of a command.
package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/phs-go/phs/nn"
)

// A command is a subcommand of phs.
type command struct {
	name, summary string
	run           func(ctx context.Context, e *env, args []string) error
}

var commands = []command{
	{"solve", "solve problem files, one JSON line per problem", runSolve},
	{"test", "test a model with the paper's Bootstrap test", runTest},
	{"train", "train a model with the Bootstrap process", runTrain},
	{"worker", "search for a training run over NATS (phs train -listen)", runWorker},
	{"plot", "draw learning curves and test profiles", runPlot},
	{"generate", "write random problems of a domain", runGenerate},
	{"data", "fetch the data sets the paper used", runData},
}

// An env is what a command runs with: the domains, their kinds of
// learner and the output streams.
type env struct {
	domains        map[string]domain
	names          []string      // of the domains, in the order given
	kinds          []LearnerKind // of the domains, the first of each name
	stdout, stderr io.Writer
}

// domain returns the domain called name, or a usage error of cmd.
func (e *env) domain(cmd, name string) (domain, error) {
	if name == "" {
		return nil, usagef("%s: -domain is required (%s)", cmd, strings.Join(e.names, ", "))
	}
	d, ok := e.domains[name]
	if !ok {
		return nil, usagef("%s: unknown domain %q (want %s)", cmd, name, strings.Join(e.names, ", "))
	}
	return d, nil
}

// Main runs the command line of the process, os.Args, with domains (as
// Run does) and exits with its status: 0, 1 for an error, 2 for a usage
// error, 130 for an interruption (SIGINT or SIGTERM). An error is printed
// once to standard error. cmd/phs is
//
//	func main() { cli.Main(cli.Shipped()...) }
//
// With OpenBLAS as the BLAS (package nn), Main runs Go code on one more
// thread than GOMAXPROCS says, unless the GOMAXPROCS environment variable
// sets it, so that the BLAS's own threads do not take the Go code's.
// Unless the GOMEMLIMIT environment variable sets it, Main sets the Go
// runtime's soft memory limit to 90% of the memory of the machine or of
// its cgroup (none under a lower ulimit -v or -d).
func Main(domains ...Domain) {
	if nn.UseEnv() == nil { // Run reports the error
		runtime.GOMAXPROCS(procsFor(nn.Backend(), os.Getenv("GOMAXPROCS"), runtime.GOMAXPROCS(0)))
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		if l := softMemoryLimit(); l > 0 {
			debug.SetMemoryLimit(l)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(finish(Run(ctx, os.Args[1:], os.Stdout, os.Stderr, domains...), os.Stderr))
}

// procsFor returns the GOMAXPROCS for a process whose BLAS is backend,
// whose GOMAXPROCS environment variable is env and whose GOMAXPROCS is now
// procs: procs+1 for OpenBLAS unless env sets it, else procs. A goroutine
// in a call of OpenBLAS (a call into C) loses its P to another thread
// after 20µs; with as many Ps as cores, it then waits for one when the
// call returns, and the searches of 2 workers on 2 cores ran 1.5x as fast
// as 1 worker's instead of 1.9x (docs/BENCHMARKS.md).
func procsFor(backend, env string, procs int) int {
	if backend == "openblas" && env == "" {
		return procs + 1
	}
	return procs
}

// Run runs the phs command line args (without the program name) with
// domains, writing records and help to stdout and logs to stderr, and
// returns its error: nil after "phs help", "phs CMD -h" or "phs -version";
// an error for which errors.Is(err, context.Canceled) holds when ctx ends
// the command. Run panics if domains is empty, holds a zero Domain or two
// of one name: programmer errors.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, domains ...Domain) error {
	e := &env{domains: make(map[string]domain, len(domains)), stdout: stdout, stderr: stderr}
	if len(domains) == 0 {
		panic("cli: Run without domains")
	}
	for _, d := range domains {
		switch {
		case d.d == nil:
			panic("cli: Run: a zero Domain")
		case e.domains[d.Name()] != nil:
			panic(fmt.Sprintf("cli: Run: two domains called %q", d.Name()))
		}
		e.domains[d.Name()] = d.d
		e.names = append(e.names, d.Name())
		for _, k := range d.d.caps().learners {
			if _, ok := e.kind(k.Name); !ok {
				e.kinds = append(e.kinds, k)
			}
		}
	}
	return e.run(ctx, args)
}

// finish prints err, if any, once to stderr and returns the exit status:
// 0 for none, 2 for a usage error, 130 for an interruption (one line,
// "interrupted", unless the error says what was kept and how to go on), 1
// otherwise.
func finish(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, context.Canceled) && !errors.As(err, new(interruptedError)) {
		fmt.Fprintln(stderr, "phs: interrupted")
	} else {
		fmt.Fprintln(stderr, "phs:", err)
	}
	return exitCode(err)
}

// exitCode is 2 for usage errors, 130 for an interruption, 1 otherwise.
func exitCode(err error) int {
	var u usageError
	switch {
	case errors.As(err, &u):
		return 2
	case errors.Is(err, context.Canceled):
		return 130
	}
	return 1
}

// An interruptedError reports a command stopped by a signal, and what was
// kept of its work.
type interruptedError struct{ msg string }

func (e interruptedError) Error() string { return e.msg }
func (e interruptedError) Unwrap() error { return context.Canceled }

// A usageError is a mistake in the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// run runs the command line args. "phs help CMD" and "phs CMD -h" print
// the command's usage to stdout and return nil; a mistake prints no usage,
// only the error.
func (e *env) run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usagef("no command (run \"phs help\" for the commands)")
	}
	if err := nn.UseEnv(); err != nil {
		return usageError{err.Error()}
	}
	switch args[0] {
	case "-h", "-help", "--help":
		e.usage(e.stdout)
		return nil
	case "help":
		if len(args) == 1 {
			e.usage(e.stdout)
			return nil
		}
		args = []string{args[1], "-h"}
	case "-version", "--version", "version":
		fmt.Fprintln(e.stdout, "phs", version())
		fmt.Fprintln(e.stdout, "blas:", nn.BackendInfo())
		return nil
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(ctx, e, args[1:])
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return err
		}
	}
	return usagef("unknown command %q (run \"phs help\" for the commands)", args[0])
}

// version returns the module version and VCS revision the binary was built
// from, as far as the build info knows them.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown version)"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v += " " + s.Value
		case "vcs.modified":
			if s.Value == "true" {
				v += " (modified)"
			}
		}
	}
	return v + " " + bi.GoVersion
}

func (e *env) usage(w io.Writer) {
	fmt.Fprintln(w, "usage: phs COMMAND [flags] [args]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\ndomains: %s\n", strings.Join(e.names, ", "))
	fmt.Fprintln(w, "\nRun \"phs help COMMAND\" or \"phs COMMAND -h\" for the flags of a command, \"phs -version\" for the version and the BLAS in use.")
}

// newFlagSet returns a flag set that reports errors instead of exiting
// and prints nothing itself; parseFlags prints the usage, to help, on -h
// only.
func newFlagSet(name, args string, help io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(&usageBuffer{help: help})
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: phs %s [flags] %s\n\nflags:\n", name, args)
		fs.PrintDefaults()
	}
	return fs
}

// A usageBuffer is the output of a flag set: what the flag package writes
// there (its error messages and the usage) goes to help on -h only.
type usageBuffer struct {
	help io.Writer
	buf  bytes.Buffer
}

func (b *usageBuffer) Write(p []byte) (int, error) { return b.buf.Write(p) }

// parseFlags parses args with fs and returns the other arguments. Flags may
// follow them ("phs solve f.txt -budget 10"); "--" ends the flags. On -h it
// prints the usage and returns flag.ErrHelp; a bad flag is a usage error.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	out, _ := fs.Output().(*usageBuffer)
	for {
		err := fs.Parse(args)
		if out != nil {
			if errors.Is(err, flag.ErrHelp) {
				out.help.Write(out.buf.Bytes())
			}
			out.buf.Reset()
		}
		switch {
		case errors.Is(err, flag.ErrHelp):
			return nil, err
		case err != nil:
			return nil, usagef("%s: %v (see phs %s -h)", fs.Name(), err, fs.Name())
		}
		left := fs.Args()
		if consumed := len(args) - len(left); consumed > 0 && args[consumed-1] == "--" {
			return append(rest, left...), nil
		}
		if len(left) == 0 {
			return rest, nil
		}
		rest = append(rest, left[0])
		args = left[1:]
	}
}
