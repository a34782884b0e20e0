// Command sokopt finds the optimal solution lengths of Sokoban levels and
// measures how far the solutions of phs solve or phs test are from them.
//
// Usage:
//
//	sokopt [-n N] [-limit STATES] [-workers W] [-o OPTIMA.jsonl] LEVELS [RESULTS.jsonl...]
//
// sokopt solves the first N levels of LEVELS (all with -n 0) with
// sokoban.Optimal, the fewest moves (player steps, the domain's actions),
// each within -limit states, and writes one JSON object per level, in the
// order of the file, to -o (standard output by default when no results
// file is given):
//
//	{"problem":"000.txt#3","optimal":30,"pushes":14,"states":29061,"time_s":0.02,"solution":"UULD…"}
//	{"problem":"000.txt#4","error":"state limit reached","states":4000000,"time_s":3.1}
//	{"problem":"000.txt#5","error":"no solution","states":5949,"time_s":0.004}
//
// It reports its progress on standard error. With results files (JSONL
// records of phs solve or phs test on LEVELS) it then prints one row per
// file (gzipped if its name ends in ".gz") over the levels that have an optimum: the levels solved, their
// mean solution length and mean optimum, the mean and largest gap (length
// minus optimum), and the number solved optimally. Every solution is
// replayed; a record of a level not in LEVELS, a solution that does not
// solve its level or is shorter than the optimum is an error. Levels
// beyond -n and those without an optimum are left out.
package main

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/report"
	"github.com/phs-go/phs/search"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "sokopt:", err)
		os.Exit(1)
	}
}

// An optimum is the record of one level.
type optimum struct {
	Problem  string  `json:"problem"`
	Optimal  int     `json:"optimal,omitempty"`
	Pushes   int     `json:"pushes,omitempty"`
	Error    string  `json:"error,omitempty"`
	States   int     `json:"states"`
	TimeS    float64 `json:"time_s"`
	Solution string  `json:"solution,omitempty"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sokopt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 0, "solve the first `N` levels (0: all)")
	limit := fs.Int("limit", 4_000_000, "the most `states` a level may store (about 40 bytes each)")
	workers := fs.Int("workers", 1, "levels solved in parallel")
	out := fs.String("o", "", "write the optima to `file` (default: standard output, without results files)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() < 1:
		return errors.New("usage: sokopt [-n N] [-limit STATES] [-workers W] [-o OPTIMA.jsonl] LEVELS [RESULTS.jsonl...]")
	case *n < 0:
		return fmt.Errorf("-n %d; want >= 0 (0: all)", *n)
	case *limit < 1:
		return fmt.Errorf("-limit %d; want >= 1", *limit)
	case *workers < 1 || *workers > runtime.NumCPU()*4:
		return fmt.Errorf("-workers %d; want 1 to %d", *workers, runtime.NumCPU()*4)
	}
	levels, err := sokoban.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	byID := make(map[string]*sokoban.Problem, len(levels))
	for _, p := range levels {
		byID[p.ID] = p
	}
	if *n > 0 && *n < len(levels) {
		levels = levels[:*n]
	}
	results := fs.Args()[1:]
	var w io.Writer
	switch {
	case *out != "":
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	case len(results) == 0:
		w = stdout
	}
	opt, err := solveAll(ctx, levels, *limit, *workers, w, stderr)
	if err != nil {
		return err
	}
	if f, ok := w.(*os.File); ok && f != os.Stdout {
		if err := f.Close(); err != nil {
			return err
		}
	}
	if len(results) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "results\tlevels\tsolved\tlength\toptimum\tgap\tmax gap\toptimal\t")
	for _, name := range results {
		r, err := measure(name, byID, opt)
		if err != nil {
			return err
		}
		if r.solved == 0 {
			fmt.Fprintf(tw, "%s\t%d\t0\t-\t-\t-\t-\t-\t\n", name, r.levels)
			continue
		}
		k := float64(r.solved)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.2f\t%.2f\t%d\t%d\t\n", name, r.levels, r.solved,
			float64(r.length)/k, float64(r.optimum)/k, float64(r.length-r.optimum)/k, r.maxGap, r.optimal)
	}
	return tw.Flush()
}

// solveAll solves levels on workers goroutines, writes their records to
// w (if not nil) in order, reports progress to stderr, and returns the
// optimum of each level solved by ID.
func solveAll(ctx context.Context, levels []*sokoban.Problem, limit, workers int, w, stderr io.Writer) (map[string]int, error) {
	recs := make([]*optimum, len(levels))
	ready := make([]chan struct{}, len(levels))
	for i := range ready {
		ready[i] = make(chan struct{})
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(levels) || ctx.Err() != nil {
					return
				}
				p := levels[i]
				start := time.Now()
				r, err := sokoban.Optimal(p, limit)
				rec := &optimum{Problem: p.ID, States: r.States, TimeS: time.Since(start).Seconds()}
				switch {
				case errors.Is(err, sokoban.ErrLimit):
					rec.Error = "state limit reached"
				case errors.Is(err, sokoban.ErrNoSolution):
					rec.Error = "no solution"
				case err != nil:
					rec.Error = err.Error()
				default:
					rec.Optimal, rec.Pushes = len(r.Actions), r.Pushes
					rec.Solution = search.FormatActions[sokoban.State](p, r.Actions)
				}
				recs[i] = rec
				close(ready[i])
			}
		})
	}
	defer wg.Wait()
	opt := make(map[string]int, len(levels))
	enc := json.NewEncoder(io.Discard)
	if w != nil {
		enc = json.NewEncoder(w)
	}
	start, last := time.Now(), time.Now()
	solved, sum := 0, 0
	for i := range levels {
		select {
		case <-ready[i]:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		rec := recs[i]
		if err := enc.Encode(rec); err != nil {
			return nil, err
		}
		if rec.Error == "" {
			opt[rec.Problem] = rec.Optimal
			solved++
			sum += rec.Optimal
		}
		if now := time.Now(); now.Sub(last) >= 2*time.Second || i == len(levels)-1 {
			last = now
			mean := 0.0
			if solved > 0 {
				mean = float64(sum) / float64(solved)
			}
			fmt.Fprintf(stderr, "sokopt: %d/%d levels, %d solved, mean optimum %.2f, %s\n",
				i+1, len(levels), solved, mean, now.Sub(start).Round(time.Second))
		}
	}
	return opt, nil
}

// A row is the measure of one results file.
type row struct {
	levels, solved, optimal int
	length, optimum, maxGap int
}

// measure replays the records of the results file name, records of the
// levels of byID, and compares them with the optima opt.
func measure(name string, byID map[string]*sokoban.Problem, opt map[string]int) (row, error) {
	f, err := os.Open(name)
	if err != nil {
		return row{}, err
	}
	defer f.Close()
	var rd io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return row{}, fmt.Errorf("%s: %w", name, err)
		}
		defer z.Close()
		rd = z
	}
	recs, err := report.ReadJSONL(rd, name)
	if err != nil {
		return row{}, err
	}
	var r row
	for line, rec := range recs {
		p, ok := byID[rec.Problem]
		if !ok {
			return row{}, fmt.Errorf("%s: record %d: problem %q is no level of the file", name, line+1, rec.Problem)
		}
		o, ok := opt[rec.Problem]
		if !ok {
			continue // beyond -n, or without an optimum
		}
		r.levels++
		if !rec.Solved {
			continue
		}
		actions, err := search.ParseActions[sokoban.State](p, rec.Solution)
		if err == nil {
			err = search.Replay[sokoban.State](p, actions)
		}
		if err != nil {
			return row{}, fmt.Errorf("%s: record %d: %s: %w", name, line+1, rec.Problem, err)
		}
		if len(actions) != rec.Length || len(actions) < o {
			return row{}, fmt.Errorf("%s: record %d: %s: length %d, a solution of %d moves, optimum %d", name, line+1, rec.Problem, rec.Length, len(actions), o)
		}
		r.solved++
		r.length += len(actions)
		r.optimum += o
		r.maxGap = max(r.maxGap, len(actions)-o)
		if len(actions) == o {
			r.optimal++
		}
	}
	return r, nil
}
