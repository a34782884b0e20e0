package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/chart"
	"github.com/phs-go/phs/report"
)

func runPlot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plot", "RUN_DIRS... | -profile RESULTS.jsonl...", stderr)
	out := fs.String("o", "", "output image: .png, .svg or .pdf (required)")
	x := fs.String("x", "time", "learning curves: x axis: time, expansions or iteration")
	profile := fs.Bool("profile", false, "plot test profiles (expansions per solved problem, sorted) of result files instead of learning curves")
	title := fs.String("title", "", "chart title")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return usagef("plot: -o is required")
	}
	if fs.NArg() == 0 {
		return usagef("plot: nothing to plot")
	}
	var c chart.Chart
	var err error
	if *profile {
		c, err = profileChart(fs.Args())
	} else {
		c, err = learningChart(fs.Args(), *x)
	}
	if err != nil {
		return err
	}
	if *title != "" {
		c.Title = *title
	}
	if err := c.Save(*out); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "phs: wrote", *out)
	return nil
}

// learningChart plots the problems solved so far against x for each run
// directory (or metrics.jsonl file).
func learningChart(paths []string, x string) (chart.Chart, error) {
	c := chart.Chart{Title: "Learning curves", YLabel: "problems solved"}
	switch x {
	case "time":
		c.XLabel = "training time (h)"
	case "expansions":
		c.XLabel = "expansions"
	case "iteration":
		c.XLabel = "Bootstrap iteration"
	default:
		return c, usagef("plot: -x must be time, expansions or iteration")
	}
	names := seriesNames(paths)
	for i, p := range paths {
		file := p
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			file = filepath.Join(p, bootstrap.MetricsJSONL)
		}
		f, err := os.Open(file)
		if err != nil {
			return c, err
		}
		ms, err := bootstrap.ReadMetricsJSONL(f, file)
		f.Close()
		if err != nil {
			return c, err
		}
		s := chart.Series{Name: names[i]}
		s.X, s.Y = []float64{0}, []float64{0}
		for _, m := range ms {
			switch x {
			case "time":
				s.X = append(s.X, m.WallS/3600)
			case "expansions":
				s.X = append(s.X, float64(m.TotalExpansions))
			case "iteration":
				s.X = append(s.X, float64(m.Iteration))
			}
			s.Y = append(s.Y, float64(m.TotalSolved))
		}
		c.Series = append(c.Series, s)
	}
	return c, nil
}

// profileChart plots, for each result file, the expansions of its solved
// problems in increasing order.
func profileChart(paths []string) (chart.Chart, error) {
	c := chart.Chart{Title: "Test profiles", XLabel: "problems solved", YLabel: "expansions", LogY: true}
	names := seriesNames(paths)
	for i, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return c, err
		}
		recs, err := report.ReadJSONL(f, p)
		f.Close()
		if err != nil {
			return c, err
		}
		var exp []float64
		for _, r := range recs {
			if r.Solved {
				exp = append(exp, float64(r.Expansions))
			}
		}
		slices.Sort(exp)
		s := chart.Series{Name: names[i], Y: exp, X: make([]float64, len(exp))}
		for j := range s.X {
			s.X[j] = float64(j + 1)
		}
		c.Series = append(c.Series, s)
	}
	return c, nil
}

// seriesNames returns the legend names of the series plotted from paths:
// their base names, or the whole paths if two base names are the same (as
// for run1/test.jsonl and run2/test.jsonl).
func seriesNames(paths []string) []string {
	names := make([]string, len(paths))
	seen := make(map[string]bool)
	unique := true
	for i, p := range paths {
		names[i] = filepath.Base(filepath.Clean(p))
		unique = unique && !seen[names[i]]
		seen[names[i]] = true
	}
	if !unique {
		for i, p := range paths {
			names[i] = filepath.Clean(p)
		}
	}
	return names
}
