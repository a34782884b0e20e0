// Command cmprune writes a context model without the rows whose
// parameters spread by at most -tol (cm.Table.Prune), to ship a smaller
// model:
//
//	cmprune [-flush [-threads N]] [-compact [-bits 8]] -tol 0.1 -out model.safetensors RUN
//
// RUN is a context model's table file, or a run or checkpoint directory
// that holds one (table.safetensors, compressed or not). An -out that
// ends in .gz is compressed (cm.GzipSuffix). With -flush, RUN is a training run
// or checkpoint directory of a context model's learner, and the table
// pruned is the learner's after cm.Learner.Flush, which optimises over
// the solutions that the run's last updates left pending (the run's
// files are left as they were); the learner's solutions are rebuilt from
// the run's problems, which its run.json names (domain, files and
// valid_files, relative to the run directory). It prints the rows and
// bytes before and after. -out may not be an input (the table; with
// -flush, the learner's files, run.json and the problems), by any name
// or link: that, and the other errors of the command line, exit with
// status 2.
//
// It writes the table as cm.WriteTable does (β as float32, 4A + 12 bytes
// a row of A actions), or with -compact in the compact form of
// cm.WriteCompactTable (β quantised to -bits bits, 8 to 16, its rows
// sorted by context, about A + 2 bytes a row for 8 bits, 2A + 2 above):
// -tol 0 -compact converts a table to the compact form, dropping only the
// rows that change no policy. RUN may be in either form.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/domain/rubiks"
	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/lab/internal/paths"
	"github.com/phs-go/phs/search"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "cmprune:", err)
		var u usageError
		if errors.As(err, &u) || errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("cmprune", flag.ContinueOnError)
	tol := fs.Float64("tol", 0, "drop the rows whose parameters spread by at most this (≥ 0)")
	out := fs.String("out", "", "the pruned table's file (required)")
	flush := fs.Bool("flush", false, "optimise over the run's pending solutions first (RUN: a run or checkpoint directory)")
	threads := fs.Int("threads", 1, fmt.Sprintf("-flush: the optimisation's threads, 1 to %d", cm.MaxThreads))
	compact := fs.Bool("compact", false, "write the compact form (cm.WriteCompactTable: β in -bits bits) instead of float32")
	bits := fs.Int("bits", 8, "-compact: the bits of each parameter, 8 to 16")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	switch {
	case fs.NArg() != 1:
		return usageError{errors.New("want one model")}
	case *out == "":
		return usageError{errors.New("-out: required")}
	case !(*tol >= 0):
		return usageError{fmt.Errorf("-tol %g: want a number ≥ 0", *tol)}
	case *bits < 8 || *bits > 16:
		return usageError{fmt.Errorf("-bits %d: want 8 to 16", *bits)}
	case *threads < 1 || *threads > cm.MaxThreads:
		return usageError{fmt.Errorf("-threads %d: want 1 to %d", *threads, cm.MaxThreads)}
	}
	in, ok := cm.FindTable(fs.Arg(0))
	if !ok {
		return fmt.Errorf("%s: no context model: not a table file, nor a directory or run with one", fs.Arg(0))
	}
	inputs := []string{in}
	if *flush {
		if in == fs.Arg(0) {
			return usageError{fmt.Errorf("-flush: %s is a table file; want a run or checkpoint directory", in)}
		}
		dir := filepath.Dir(in)
		inputs = append(inputs, filepath.Join(dir, cm.LearnerFile), filepath.Join(dir, cm.TrajectoriesFile), filepath.Join(dir, cm.TrajectoriesFile+cm.GzipSuffix),
			filepath.Join(dir, "run.json"), filepath.Join(filepath.Dir(dir), "run.json"))
		if _, files, err := runProblems(dir); err == nil {
			inputs = append(inputs, files...)
		}
	}
	for _, f := range inputs {
		if paths.Same(*out, f) {
			return usageError{fmt.Errorf("-out %s is an input, %s: write the table to another file", *out, f)}
		}
	}
	var t *cm.Table
	var err error
	if *flush {
		if t, err = flushed(filepath.Dir(in), *threads, stdout); err != nil {
			return err
		}
	} else if t, err = cm.ReadTable(in); err != nil {
		return err
	}
	p := t.Prune(*tol)
	write, form := cm.WriteTable, "float32"
	if *compact {
		write = func(name string, t *cm.Table) error { return cm.WriteCompactTable(name, t, *bits) }
		form = fmt.Sprintf("compact, %d bits", *bits)
	}
	if err := write(*out, p); err != nil {
		return err
	}
	a, _ := os.Stat(in)
	b, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d rows, %d bytes\n%s: %d rows, %d bytes (-tol %g, %s)\n", in, t.Rows(), a.Size(), *out, p.Rows(), b.Size(), *tol, form)
	return nil
}

// flushed returns the table of the learner saved in dir after Flush.
func flushed(dir string, threads int, stdout io.Writer) (*cm.Table, error) {
	if _, err := os.Stat(filepath.Join(dir, cm.LearnerFile)); err != nil {
		return nil, fmt.Errorf("-flush: %s is no learner's directory: %w", dir, err)
	}
	domain, files, err := runProblems(dir)
	if err != nil {
		return nil, fmt.Errorf("-flush: %w", err)
	}
	switch domain {
	case "witness":
		return flushTasks(dir, files, witness.ReadFile, threads, stdout)
	case "sokoban":
		return flushTasks(dir, files, sokoban.ReadFile, threads, stdout)
	case "stp":
		return flushTasks(dir, files, stp.ReadFile[stp.State], threads, stdout)
	case "rubiks":
		return flushTasks(dir, files, rubiks.ReadFile, threads, stdout)
	}
	return nil, fmt.Errorf("-flush: %s: domain %q; want witness, sokoban, stp or rubiks", dir, domain)
}

// runProblems returns the domain and the problem files, training then
// validation, of the training run whose checkpoint or run directory is
// dir, as its run.json (in dir or its parent) names them, each relative
// to the run directory unless absolute.
func runProblems(dir string) (domain string, files []string, err error) {
	run := dir
	name := filepath.Join(run, "run.json")
	if _, err := os.Stat(name); err != nil {
		run = filepath.Dir(dir)
		name = filepath.Join(run, "run.json")
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return "", nil, err
	}
	var cfg struct {
		Domain     string   `json:"domain"`
		Files      []string `json:"files"`
		ValidFiles []string `json:"valid_files"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return "", nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(cfg.Files) == 0 {
		return "", nil, fmt.Errorf("%s: no problem files", name)
	}
	for _, f := range append(cfg.Files, cfg.ValidFiles...) {
		if !filepath.IsAbs(f) {
			f = filepath.Join(run, f)
		}
		files = append(files, f)
	}
	return cfg.Domain, files, nil
}

// flushTasks returns the table of the learner saved in dir after Flush,
// its solutions rebuilt from the problems of files, which read parses.
func flushTasks[S comparable, P search.Problem[S]](dir string, files []string, read func(string) ([]P, error), threads int, stdout io.Writer) (*cm.Table, error) {
	var tasks []search.Task[S]
	for _, f := range files {
		ps, err := read(f)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			tasks = append(tasks, search.Task[S]{Problem: p})
		}
	}
	l, err := cm.LoadLearner(dir, threads, tasks...)
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

// A usageError is an error of the command line: main exits with status 2
// for it, 1 for the others.
type usageError struct{ error }
