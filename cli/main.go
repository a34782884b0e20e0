// Package cli is the phs command: it solves search problems with
// Policy-Guided Heuristic Search and its peers, generates problem sets, and
// trains and tests models. Main runs it; cmd/phs is a main package that
// calls it.
//
// Usage:
//
//	phs solve    -domain D [-alg A] [flags] FILES...   attempt each problem once, one JSON line per problem
//	phs test     -domain D [-model M] [flags] FILES... the paper's Bootstrap test (or -fixed)
//	phs train    -domain D -alg A -dir RUN FILES...    Bootstrap training; -resume RUN continues
//	phs worker   -connect nats://HOST:4222             search for a training run that listens (-listen)
//	phs plot     -o IMAGE RUN...                       learning curves; -profile for test profiles
//	phs generate witness|stp [flags]                   random problem sets
//
// Run "phs COMMAND -h" for the flags of a command.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/phs-go/phs/nn"
)

var commands = []struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}{
	{"solve", "solve problem files, one JSON line per problem", runSolve},
	{"test", "test a model: the Bootstrap test or a fixed-limit test", runTest},
	{"train", "train a model with the Bootstrap process", runTrain},
	{"worker", "search for a training run over NATS (phs train -listen)", runWorker},
	{"plot", "draw learning curves and test profiles", runPlot},
	{"generate", "write random Witness or sliding-tile problems", runGenerate},
	{"data", "fetch the data sets the paper used", runData},
}

// Main runs the command line of the process, os.Args, and exits with its
// status: 0, 1 for an error, 2 for a usage error, 130 for an interruption.
func Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(finish(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
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
// the command's usage to stdout and return nil.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		usage(stderr)
		return usagef("no command")
	}
	if err := nn.UseEnv(); err != nil {
		return usageError{err.Error()}
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return nil
	case "help":
		if len(args) == 1 {
			usage(stdout)
			return nil
		}
		args = []string{args[1], "-h"}
	case "-version", "--version", "version":
		fmt.Fprintln(stdout, "phs", version())
		fmt.Fprintln(stdout, "blas:", nn.BackendInfo())
		return nil
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(ctx, args[1:], stdout, stderr)
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return err
		}
	}
	usage(stderr)
	return usagef("unknown command %q", args[0])
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

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: phs COMMAND [flags] [args]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"phs help COMMAND\" or \"phs COMMAND -h\" for the flags of a command, \"phs -version\" for the version and the BLAS in use.")
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints nothing itself; parseFlags prints the usage, to help, on -h.
func newFlagSet(name, args string, help io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(help, "usage: phs %s [flags] %s\n\nflags:\n", name, args)
		fs.SetOutput(help)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parseFlags parses args with fs and returns the other arguments. Flags may
// follow them ("phs solve f.txt -budget 10"); "--" ends the flags. On -h it
// prints the usage and returns flag.ErrHelp; a bad flag is a usage error.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		err := fs.Parse(args)
		switch {
		case errors.Is(err, flag.ErrHelp): // fs.Parse printed the usage
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
