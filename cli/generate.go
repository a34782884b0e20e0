package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/phs-go/phs/domain/rubiks"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/internal/atomicfile"
)

func runGenerate(ctx context.Context, e *env, args []string) error {
	var gens []string // the domains with a generator
	for _, n := range e.names {
		if e.domains[n].caps().gen != nil {
			gens = append(gens, n)
		}
	}
	list := strings.Join(gens, "|")
	if len(args) == 0 {
		return usagef("generate: want a domain: %s", list)
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		fmt.Fprintf(e.stdout, "usage: phs generate %s [flags]\n\nRun \"phs generate DOMAIN -h\" for the flags of a domain's generator.\n", list)
		return flag.ErrHelp
	}
	d, ok := e.domains[name]
	if !ok || d.caps().gen == nil {
		return usagef("generate: unknown domain %q, or one without a generator (want %s)", name, list)
	}
	g := d.caps().gen
	fs := newFlagSet("generate "+name, "", e.stdout)
	n := fs.Int("n", 100, "number of problems")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("out", "", "write to this file instead of standard output")
	g.Flags(fs)
	rest, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("generate %s: unexpected arguments %q", name, rest)
	}
	if *n < 1 || *n > maxGenerate {
		return usagef("generate %s: -n %d: want 1 to %d", name, *n, maxGenerate)
	}
	rng := rand.New(rand.NewPCG(*seed, 0x9e3779b97f4a7c15))
	next, err := g.New(rng)
	if err != nil {
		return usagef("generate %s: %v", name, err)
	}
	return writeOutput(ctx, *out, e.stdout, func(w *bufio.Writer) error {
		for range *n {
			if err := ctx.Err(); err != nil {
				return err
			}
			w.WriteString(next())
			if err := w.WriteByte('\n'); err != nil {
				return err
			}
		}
		return nil
	})
}

// witnessGenerator generates Witness puzzles as the paper's data sets
// were (witness.NewSetGenerator), a blank line between two.
type witnessGenerator struct{ size string }

func (g *witnessGenerator) Flags(fs *flag.FlagSet) {
	fs.StringVar(&g.size, "size", "4x4", "puzzle size ROWSxCOLS, in cells")
}

func (g *witnessGenerator) New(rng *rand.Rand) (func() string, error) {
	rows, cols, err := parseSize(g.size)
	if err != nil {
		return nil, err
	}
	if err := witness.CheckSize(rows, cols); err != nil {
		return nil, fmt.Errorf("-size: %v", err)
	}
	if rows*cols < 2 {
		return nil, errors.New("-size: a puzzle needs at least 2 cells")
	}
	set := witness.NewSetGenerator(rng, rows, cols)
	first := true
	return func() string {
		sep := "\n"
		if first {
			sep, first = "", false
		}
		return sep + set.Next().String()
	}, nil
}

// stpGenerator generates sliding-tile puzzles: uniformly random solvable
// ones, or random walks from the goal.
type stpGenerator struct{ size, walk string }

// maxWalk bounds the length of the walks of "phs generate stp -walk": a
// walk of this length takes some milliseconds.
const maxWalk = 1_000_000

func (g *stpGenerator) Flags(fs *flag.FlagSet) {
	fs.StringVar(&g.size, "size", "5x5", "puzzle size ROWSxCOLS, in tiles")
	fs.StringVar(&g.walk, "walk", "", fmt.Sprintf("random walks from the goal with a length in MIN:MAX, MAX up to %d (default: uniformly random solvable puzzles)", maxWalk))
}

func (g *stpGenerator) New(rng *rand.Rand) (func() string, error) {
	rows, cols, err := parseSize(g.size)
	if err != nil {
		return nil, err
	}
	if err := stp.CheckSize[stp.LargeState](rows, cols); err != nil {
		return nil, fmt.Errorf("-size: %v", err)
	}
	walk := g.walk != ""
	var lo, hi int
	if walk {
		if lo, hi, err = parseRange(g.walk); err != nil {
			return nil, err
		}
		if hi > maxWalk {
			return nil, fmt.Errorf("-walk %s: want MAX <= %d", g.walk, maxWalk)
		}
	}
	if rows*cols > stp.MaxCells {
		return stpPuzzles[stp.LargeState](rng, rows, cols, walk, lo, hi), nil
	}
	return stpPuzzles[stp.State](rng, rows, cols, walk, lo, hi), nil
}

// stpPuzzles returns a generator of rows×cols puzzles with state type S, in
// the file format: random walks from the goal with a length in [lo, hi] if
// walk, uniformly random solvable puzzles if not.
func stpPuzzles[S stp.Arrangement[S]](rng *rand.Rand, rows, cols int, walk bool, lo, hi int) func() string {
	if walk {
		return func() string { return stp.GenerateWalk[S](rng, rows, cols, lo, hi).String() }
	}
	return func() string { return stp.GenerateRandom[S](rng, rows, cols).String() }
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

// parseSize parses "ROWSxCOLS".
func parseSize(s string) (rows, cols int, err error) {
	r, c, ok := strings.Cut(s, "x")
	rows, err1 := strconv.Atoi(r)
	cols, err2 := strconv.Atoi(c)
	if !ok || err1 != nil || err2 != nil || rows < 1 || cols < 1 {
		return 0, 0, fmt.Errorf("bad -size %q: want ROWSxCOLS, e.g. 4x4", s)
	}
	return rows, cols, nil
}

// parseRange parses "MIN:MAX" with 0 <= MIN <= MAX.
func parseRange(s string) (lo, hi int, err error) {
	a, b, ok := strings.Cut(s, ":")
	lo, err1 := strconv.Atoi(a)
	hi, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || lo < 0 || hi < lo {
		return 0, 0, fmt.Errorf("bad range %q: want MIN:MAX with 0 <= MIN <= MAX", s)
	}
	return lo, hi, nil
}

// rubiksGenerator generates Rubik's cubes: uniformly random legal ones, or
// scrambles of random quarter turns from the solved cube.
type rubiksGenerator struct{ scramble string }

// maxScramble bounds the length of the scrambles of "phs generate rubiks
// -scramble": a scramble of this length takes some milliseconds.
const maxScramble = 1_000_000

func (g *rubiksGenerator) Flags(fs *flag.FlagSet) {
	fs.StringVar(&g.scramble, "scramble", "", fmt.Sprintf("scrambles of random quarter turns from the solved cube, none undoing the last, with a length in MIN:MAX, MAX up to %d (default: uniformly random cubes)", maxScramble))
}

func (g *rubiksGenerator) New(rng *rand.Rand) (func() string, error) {
	if g.scramble == "" {
		return func() string { return rubiks.GenerateRandom(rng).String() }, nil
	}
	lo, hi, err := parseRange(g.scramble)
	if err != nil {
		return nil, err
	}
	if hi > maxScramble {
		return nil, fmt.Errorf("-scramble %s: want MAX <= %d", g.scramble, maxScramble)
	}
	return func() string { return rubiks.GenerateScramble(rng, lo, hi).String() }, nil
}
