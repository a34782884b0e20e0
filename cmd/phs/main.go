// Command phs solves search problems with Policy-Guided Heuristic Search and
// its peers, generates problem sets, and trains and tests models.
//
// Usage:
//
//	phs solve    -domain D [-alg A] [flags] FILES...   attempt each problem once, one JSON line per problem
//	phs test     -domain D [-model M] [flags] FILES... the paper's Bootstrap test (or -fixed)
//	phs train    -domain D -alg A -dir RUN FILES...    Bootstrap training; -resume RUN continues
//	phs plot     -o IMAGE RUN...                       learning curves; -profile for test profiles
//	phs generate witness|stp [flags]                   random problem sets
//
// Run "phs COMMAND -h" for the flags of a command.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

var commands = []struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}{
	{"solve", "solve problem files, one JSON line per problem", runSolve},
	{"test", "test a model: the Bootstrap test or a fixed-limit test", runTest},
	{"train", "train a model with the Bootstrap process", runTrain},
	{"plot", "draw learning curves and test profiles", runPlot},
	{"generate", "write random Witness or sliding-tile problems", runGenerate},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		switch {
		case errors.Is(err, context.Canceled) && !errors.As(err, new(interruptedError)):
			fmt.Fprintln(os.Stderr, "phs: interrupted")
		case !errors.Is(err, flag.ErrHelp):
			fmt.Fprintln(os.Stderr, "phs:", err)
		}
		os.Exit(exitCode(err))
	}
}

// exitCode is 2 for usage errors, 130 for an interruption, 1 otherwise.
func exitCode(err error) int {
	var u usageError
	switch {
	case errors.Is(err, flag.ErrHelp), errors.As(err, &u):
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

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return usagef("no command")
		}
		return nil
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	usage(stderr)
	return usagef("unknown command %q", args[0])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: phs COMMAND [flags] [args]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"phs COMMAND -h\" for the flags of a command.")
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name, args string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: phs %s [flags] %s\n\nflags:\n", name, args)
		fs.PrintDefaults()
	}
	return fs
}
