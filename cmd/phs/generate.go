package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/internal/atomicfile"
)

func runGenerate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("generate: want a domain: witness or stp")
	}
	d := args[0]
	fs := newFlagSet("generate "+d, "", stderr)
	n := fs.Int("n", 100, "number of problems")
	size := fs.String("size", "", "problem size ROWSxCOLS (witness: cells, default 4x4; stp: tiles, default 5x5)")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("out", "", "write to this file instead of standard output")
	var walk string
	if d == "stp" {
		fs.StringVar(&walk, "walk", "", "random walks from the goal with a length in MIN:MAX (default: uniformly random solvable states)")
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("generate %s: unexpected arguments %q", d, fs.Args())
	}
	if *n < 1 {
		return usagef("generate %s: -n must be at least 1", d)
	}
	rng := rand.New(rand.NewPCG(*seed, 0x9e3779b97f4a7c15))

	var write func(w io.Writer) error
	switch d {
	case "witness":
		rows, cols, err := parseSize(*size, 4, 4)
		if err != nil {
			return err
		}
		if err := witness.CheckSize(rows, cols); err != nil {
			return usagef("generate witness: -size: %v", err)
		}
		if rows*cols < 2 {
			return usagef("generate witness: -size: a puzzle needs at least 2 cells")
		}
		write = func(w io.Writer) error { return witness.Write(w, witness.GenerateSet(rng, *n, rows, cols)) }
	case "stp":
		rows, cols, err := parseSize(*size, 5, 5)
		if err != nil {
			return err
		}
		if err := stp.CheckSize(rows, cols); err != nil {
			return usagef("generate stp: -size: %v", err)
		}
		gen := func() *stp.Problem { return stp.GenerateRandom(rng, rows, cols) }
		if walk != "" {
			lo, hi, err := parseRange(walk)
			if err != nil {
				return err
			}
			gen = func() *stp.Problem { return stp.GenerateWalk(rng, rows, cols, lo, hi) }
		}
		write = func(w io.Writer) error {
			ps := make([]*stp.Problem, *n)
			for i := range ps {
				ps[i] = gen()
			}
			return stp.Write(w, ps)
		}
	default:
		return usagef("generate: unknown domain %q (want witness or stp)", d)
	}
	return writeOutput(*out, stdout, write)
}

// writeOutput calls write on stdout, or, if out is not empty, writes what
// it writes to the file out, atomically.
func writeOutput(out string, stdout io.Writer, write func(io.Writer) error) error {
	if out == "" {
		bw := bufio.NewWriter(stdout)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	return atomicfile.WriteFile(out, buf.Bytes())
}

// parseSize parses "ROWSxCOLS", or returns the defaults for "".
func parseSize(s string, defRows, defCols int) (rows, cols int, err error) {
	if s == "" {
		return defRows, defCols, nil
	}
	r, c, ok := strings.Cut(s, "x")
	rows, err1 := strconv.Atoi(r)
	cols, err2 := strconv.Atoi(c)
	if !ok || err1 != nil || err2 != nil || rows < 1 || cols < 1 {
		return 0, 0, usagef("bad -size %q: want ROWSxCOLS, e.g. 4x4", s)
	}
	return rows, cols, nil
}

// parseRange parses "MIN:MAX" with 0 <= MIN <= MAX.
func parseRange(s string) (lo, hi int, err error) {
	a, b, ok := strings.Cut(s, ":")
	lo, err1 := strconv.Atoi(a)
	hi, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || lo < 0 || hi < lo {
		return 0, 0, usagef("bad range %q: want MIN:MAX with 0 <= MIN <= MAX", s)
	}
	return lo, hi, nil
}
