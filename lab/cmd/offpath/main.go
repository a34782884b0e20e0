// Command offpath writes, as new Sokoban levels, states that a search with
// a network expanded off the path of the solution it returned: the states
// on which a network that imitates optimal solutions has never been
// trained, but which its searches reach (the data of DAgger, Ross et al.
// 2011, for a search):
//
//	offpath -model DIR -o OUT.txt [-per 4] [-seed 1] [-temperature T] [-budget N] LEVELS...
//
// Each level of the files LEVELS is searched with PHS* and the network of
// -model (its deadlocks pruned and its temperature, as phs solve does);
// of the states it expanded, not counting those on the path it returned,
// -per are drawn uniformly at random, and each is written to OUT.txt as a
// level that starts there, labelled FILE-LABEL-K (FILE the base name of
// its file, LABEL the level's, K from 1). sokopt then solves them, and
// imitate learns their optimal solutions, and with -dead the states
// without one as dead ends. A level the search does not solve within
// -budget expansions gives its states all the same. The file is written
// whole at the end: an interrupted run leaves none.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/internal/atomicfile"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "offpath:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("offpath", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("model", "", "the network's model directory (required)")
	out := fs.String("o", "", "the file of the levels written (required)")
	per := fs.Int("per", 4, "states drawn from each level's search (> 0)")
	seed := fs.Uint64("seed", 1, "the seed of the draws")
	temp := fs.Float64("temperature", 0, "the policy's temperature (0: the model's)")
	budget := fs.Int64("budget", 0, "the most expansions of a search (0: no limit)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *dir == "" || *out == "":
		return errors.New("-model and -o are required")
	case *per < 1:
		return fmt.Errorf("-per %d; want > 0", *per)
	case *temp < 0:
		return fmt.Errorf("-temperature %g; want >= 0", *temp)
	case *budget < 0:
		return fmt.Errorf("-budget %d; want >= 0", *budget)
	case fs.NArg() == 0:
		return errors.New("no level files")
	}
	m, err := model.Load(*dir)
	if err != nil {
		return err
	}
	if d := m.Config().Domain; d != "sokoban" {
		return fmt.Errorf("%s: a %s network; want sokoban", *dir, d)
	}
	opts := search.Options{Budget: *budget, Temperature: *temp}
	if opts.Temperature == 0 {
		opts.Temperature = m.Config().Search.Temperature
	}
	solver, err := search.NewSolver(search.PHSStar(), search.Evaluator[sokoban.State](model.NewEvaluator[sokoban.State](m)), opts)
	if err != nil {
		return err
	}
	var files [][]*sokoban.Problem
	for _, name := range fs.Args() {
		ps, err := sokoban.ReadFile(name)
		if err != nil {
			return err
		}
		files = append(files, ps)
	}
	// The levels go to a temporary file, renamed to -o at the end: an
	// interrupted run leaves no partial file.
	f, err := atomicfile.Create(*out)
	if err != nil {
		return err
	}
	defer f.Abort()
	w := bufio.NewWriter(f)
	rng := rand.New(rand.NewPCG(*seed, 0))
	var levels, written int
	var expansions int64
	for i, ps := range files {
		base := strings.TrimSuffix(filepath.Base(fs.Arg(i)), filepath.Ext(fs.Arg(i)))
		for _, p := range ps {
			states, n, err := offPath(ctx, solver, p, m.Config().PruneDeadlocks)
			if err != nil {
				return fmt.Errorf("%s: %w", p.ID, err)
			}
			levels, expansions = levels+1, expansions+n
			_, label, _ := strings.Cut(p.ID, "#")
			for k, j := range rng.Perm(len(states))[:min(*per, len(states))] {
				writeLevel(w, p, states[j], fmt.Sprintf("%s-%s-%d", base, label, k+1))
				written++
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "offpath: %d levels searched, %.1f expansions a level, %d states written to %s\n",
		levels, float64(expansions)/float64(max(levels, 1)), written, *out)
	return nil
}

// A recorder is a level that records the states the search expands: those
// it applies actions to, in the order of their first expansion.
type recorder struct {
	*sokoban.Problem
	seen     map[sokoban.State]bool
	expanded []sokoban.State
}

func (r *recorder) Apply(s sokoban.State, a int) (sokoban.State, bool) {
	if !r.seen[s] {
		r.seen[s] = true
		r.expanded = append(r.expanded, s)
	}
	return r.Problem.Apply(s, a)
}

// offPath searches p with solver (its deadlocks pruned if prune) and
// returns the states it expanded that are not on the path of the solution
// it returned (all of them if it found none), and its expansions.
func offPath(ctx context.Context, solver *search.Solver[sokoban.State], p *sokoban.Problem, prune bool) ([]sokoban.State, int64, error) {
	if prune {
		p = p.PruneDeadlocks()
	}
	r := &recorder{Problem: p, seen: make(map[sokoban.State]bool)}
	res, err := solver.Solve(ctx, r)
	if err != nil {
		return nil, 0, err
	}
	if res.Solved {
		for _, s := range res.Trajectory.States {
			r.seen[s] = false
		}
	}
	var off []sokoban.State
	for _, s := range r.expanded {
		if r.seen[s] {
			off = append(off, s)
		}
	}
	return off, res.Expansions, nil
}

// writeLevel writes the level of p that starts at s, labelled label
// (sokoban.Problem.Format), a blank line after it.
func writeLevel(w io.Writer, p *sokoban.Problem, s sokoban.State, label string) {
	fmt.Fprintf(w, "%s\n\n", p.Format(s, label))
}
