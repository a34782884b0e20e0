// Command stpbound measures how far sliding-tile solutions can be from
// optimal. It reads a puzzle file and the results of phs solve or phs test
// on it (JSONL), replays every solution, and prints one row per results
// file: the solved puzzles, their mean solution length, the mean of an
// admissible lower bound on their optimal lengths (stp.LowerBound: the
// Manhattan distance plus linear conflicts), the mean and maximum of
// length/bound over the solved puzzles, and how many solutions are as short
// as the bound, hence optimal. The optimum of a puzzle lies between its
// bound and its solution's length.
//
// Usage:
//
//	stpbound PUZZLES RESULTS.jsonl...
//
// Every record must name a puzzle of PUZZLES ("<base name of PUZZLES>#<index>");
// a record of another file, a solution that does not reach the goal, or a
// length that differs from the solution's is an error.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/report"
	"github.com/phs-go/phs/search"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "stpbound:", err)
		os.Exit(1)
	}
}

// A row is the measure of one results file.
type row struct {
	name                 string
	solved, optimal      int
	length, bound, ratio float64 // sums
	maxRatio             float64
}

func run(args []string, stdout io.Writer) error {
	if len(args) < 2 {
		return errors.New("usage: stpbound PUZZLES RESULTS.jsonl [MORE.jsonl]")
	}
	puzzles, err := stp.ReadFile[stp.State](args[0])
	if err != nil {
		return err
	}
	base := filepath.Base(args[0])
	var rows []row
	for _, name := range args[1:] {
		r, err := measure(name, base, puzzles)
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "results\tsolved\tlength\tlower bound\tlength/bound\tmax\toptimal\t")
	for _, r := range rows {
		if r.solved == 0 {
			fmt.Fprintf(tw, "%s\t0\t-\t-\t-\t-\t-\t\n", r.name)
			continue
		}
		n := float64(r.solved)
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.3f\t%.3f\t%d\t\n",
			r.name, r.solved, r.length/n, r.bound/n, r.ratio/n, r.maxRatio, r.optimal)
	}
	return tw.Flush()
}

// measure replays the solved records of the results file name, whose
// problems are puzzles of the file base.
func measure(name, base string, puzzles []*stp.Problem[stp.State]) (row, error) {
	f, err := os.Open(name)
	if err != nil {
		return row{}, err
	}
	defer f.Close()
	recs, err := report.ReadJSONL(f, name)
	if err != nil {
		return row{}, err
	}
	r := row{name: name}
	for line, rec := range recs {
		file, index, _ := strings.Cut(rec.Problem, "#")
		i, err := strconv.Atoi(index)
		if file != base || err != nil || i < 0 || i >= len(puzzles) {
			return row{}, fmt.Errorf("%s: record %d: problem %q is not one of the %d puzzles of %s", name, line+1, rec.Problem, len(puzzles), base)
		}
		if !rec.Solved {
			continue
		}
		p := puzzles[i]
		actions, err := search.ParseActions(p, rec.Solution)
		if err == nil {
			err = search.Replay(p, actions)
		}
		if err != nil {
			return row{}, fmt.Errorf("%s: record %d: %s: %w", name, line+1, rec.Problem, err)
		}
		if len(actions) != rec.Length {
			return row{}, fmt.Errorf("%s: record %d: %s: length %d, but a solution of %d moves", name, line+1, rec.Problem, rec.Length, len(actions))
		}
		b := p.LowerBound(p.Root())
		ratio := 1.0 // the goal itself: length 0, bound 0
		if b > 0 {
			ratio = float64(len(actions)) / float64(b)
		}
		r.solved++
		r.length += float64(len(actions))
		r.bound += float64(b)
		r.ratio += ratio
		r.maxRatio = max(r.maxRatio, ratio)
		if len(actions) == b {
			r.optimal++
		}
	}
	return r, nil
}
