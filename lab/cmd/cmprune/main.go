// Command cmprune writes a context model without the rows whose
// parameters spread by at most -tol (cm.Table.Prune), to ship a smaller
// model:
//
//	cmprune [-flush [-threads N]] -tol 0.1 -out model.safetensors RUN
//
// RUN is a context model's table file, or a run or checkpoint directory
// that holds one (table.safetensors). With -flush, RUN is a training run
// or checkpoint directory of a context model's learner, and the table
// pruned is the learner's after cm.Learner.Flush, which optimises over
// the solutions that the run's last updates left pending (the run's
// files are left as they were). It prints the rows and bytes before and
// after.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/phs-go/phs/cm"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "cmprune:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("cmprune", flag.ContinueOnError)
	tol := fs.Float64("tol", 0, "drop the rows whose parameters spread by at most this (≥ 0)")
	out := fs.String("out", "", "the pruned table's file (required)")
	flush := fs.Bool("flush", false, "optimise over the run's pending solutions first (RUN: a run or checkpoint directory)")
	threads := fs.Int("threads", 1, fmt.Sprintf("-flush: the optimisation's threads, 1 to %d", cm.MaxThreads))
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 1:
		return errors.New("want one model")
	case *out == "":
		return errors.New("-out: required")
	case !(*tol >= 0):
		return fmt.Errorf("-tol %g: want a number ≥ 0", *tol)
	case *threads < 1 || *threads > cm.MaxThreads:
		return fmt.Errorf("-threads %d: want 1 to %d", *threads, cm.MaxThreads)
	}
	in, ok := cm.FindTable(fs.Arg(0))
	if !ok {
		return fmt.Errorf("%s: no context model: not a table file, nor a directory or run with one", fs.Arg(0))
	}
	var t *cm.Table
	var err error
	if *flush {
		if in == fs.Arg(0) {
			return fmt.Errorf("-flush: %s is a table file; want a run or checkpoint directory", in)
		}
		if t, err = flushed(filepath.Dir(in), *threads, stdout); err != nil {
			return err
		}
	} else if t, err = cm.ReadTable(in); err != nil {
		return err
	}
	p := t.Prune(*tol)
	if err := cm.WriteTable(*out, p); err != nil {
		return err
	}
	a, _ := os.Stat(in)
	b, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d rows, %d bytes\n%s: %d rows, %d bytes (-tol %g)\n", in, t.Rows(), a.Size(), *out, p.Rows(), b.Size(), *tol)
	return nil
}

// flushed returns the table of the learner saved in dir after Flush.
func flushed(dir string, threads int, stdout io.Writer) (*cm.Table, error) {
	if _, err := os.Stat(filepath.Join(dir, cm.LearnerFile)); err != nil {
		return nil, fmt.Errorf("-flush: %s is no learner's directory: %w", dir, err)
	}
	// The state type plays no part in loading or optimising.
	l, err := cm.LoadLearner[int](dir, threads)
	if err != nil {
		return nil, err
	}
	before := l.Loss()
	u, err := l.Flush(context.Background())
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "flushed: %d solutions, %d optimiser steps, log F %.6g before, %.6g after\n", l.Solutions(), u.Steps, before, l.Loss())
	return l.Table(), nil
}
