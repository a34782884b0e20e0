package cli

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
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
	switch d {
	case "-h", "-help", "--help":
		fmt.Fprintln(stdout, "usage: phs generate witness|stp [flags]\n\nRun \"phs generate witness -h\" or \"phs generate stp -h\" for the flags.")
		return flag.ErrHelp
	}
	fs := newFlagSet("generate "+d, "", stdout)
	n := fs.Int("n", 100, "number of problems")
	size := fs.String("size", "", "problem size ROWSxCOLS (witness: cells, default 4x4; stp: tiles, default 5x5)")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("out", "", "write to this file instead of standard output")
	var walk string
	if d == "stp" {
		fs.StringVar(&walk, "walk", "", "random walks from the goal with a length in MIN:MAX (default: uniformly random solvable states)")
	}
	rest, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("generate %s: unexpected arguments %q", d, rest)
	}
	if *n < 1 || *n > maxGenerate {
		return usagef("generate %s: -n %d: want 1 to %d", d, *n, maxGenerate)
	}
	rng := rand.New(rand.NewPCG(*seed, 0x9e3779b97f4a7c15))

	// next returns the text of the next problem.
	var next func() string
	sep := "" // between two problems
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
		g := witness.NewSetGenerator(rng, rows, cols)
		next = func() string { return g.Next().String() }
		sep = "\n" // a blank line between two puzzles
	case "stp":
		rows, cols, err := parseSize(*size, 5, 5)
		if err != nil {
			return err
		}
		if err := stp.CheckLargeSize(rows, cols); err != nil {
			return usagef("generate stp: -size: %v", err)
		}
		large := rows*cols > stp.MaxCells
		next = func() string { return stp.GenerateRandom(rng, rows, cols).String() }
		if large {
			next = func() string { return stp.GenerateRandomLarge(rng, rows, cols).String() }
		}
		if walk != "" {
			lo, hi, err := parseRange(walk)
			if err != nil {
				return err
			}
			next = func() string { return stp.GenerateWalk(rng, rows, cols, lo, hi).String() }
			if large {
				next = func() string { return stp.GenerateWalkLarge(rng, rows, cols, lo, hi).String() }
			}
		}
	default:
		return usagef("generate: unknown domain %q (want witness or stp)", d)
	}
	return writeOutput(ctx, *out, stdout, func(w *bufio.Writer) error {
		for i := range *n {
			if i%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if i > 0 {
				w.WriteString(sep)
			}
			w.WriteString(next())
			if err := w.WriteByte('\n'); err != nil {
				return err
			}
		}
		return nil
	})
}

// maxGenerate bounds generate's -n: the memory of the Witness generator,
// which remembers every puzzle, stays below 100 MB.
const maxGenerate = 1_000_000

// writeOutput streams what write writes to stdout, or, if out is not
// empty, to a temporary file that replaces out when write succeeds; out
// must then be absent or a regular file (not a link or a device). An
// error or a done ctx leaves out as it was.
func writeOutput(ctx context.Context, out string, stdout io.Writer, write func(*bufio.Writer) error) error {
	if out == "" {
		bw := bufio.NewWriter(stdout)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if fi, err := os.Lstat(out); err == nil && !fi.Mode().IsRegular() {
		return usagef("generate: -out %s is not a regular file (%v); phs replaces only regular files", out, fi.Mode().Type())
	}
	f, err := atomicfile.Create(out)
	if err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	defer f.Abort()
	bw := bufio.NewWriter(f)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Commit()
	}
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("generate: %s: %w", out, err)
	}
	return err
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
