package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/chart"
	"github.com/phs-go/phs/report"
)

func runPlot(ctx context.Context, e *env, args []string) error {
	stdout := e.stdout
	fs := newFlagSet("plot", "RUN_DIRS... | -profile RESULTS.jsonl...", stdout)
	out := fs.String("out", "", "output image: .png, .svg or .pdf (required)")
	x := fs.String("x", "time", "learning curves: x axis: time, expansions or iteration")
	fraction := fs.Bool("fraction", false, "learning curves: plot the fraction of the training problems solved, to compare runs on problem sets of different sizes")
	valid := fs.Bool("valid", false, "learning curves: plot the validation problems solved so far (phs train -valid) instead of the training problems")
	profile := fs.Bool("profile", false, "plot test profiles (expansions per solved problem, sorted) of result files instead of learning curves")
	title := fs.String("title", "", "chart title")
	legend := fs.String("names", "", "legend names of the series, comma-separated, one per argument (default: the arguments' paths, shortened)")
	paths, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *out == "" {
		return usagef("plot: -out is required")
	}
	if len(paths) == 0 {
		return usagef("plot: nothing to plot")
	}
	names := seriesNames(paths)
	if *legend != "" {
		names = strings.Split(*legend, ",")
		if len(names) != len(paths) {
			return usagef("plot: -names has %d names for %d series", len(names), len(paths))
		}
		if i := slices.IndexFunc(names, func(n string) bool { return strings.TrimSpace(n) == "" }); i >= 0 {
			return usagef("plot: -names: name %d of %q is empty", i+1, *legend)
		}
	}
	var c chart.Chart
	if *profile {
		var bad []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "x" || f.Name == "fraction" || f.Name == "valid" {
				bad = append(bad, "-"+f.Name)
			}
		})
		if len(bad) > 0 {
			return usagef("plot: %s applies to learning curves, not to -profile", bad[0])
		}
		c, err = profileChart(paths, names)
	} else {
		c, err = learningChart(paths, names, *x, *fraction, *valid)
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

// A trainingRun is what learningChart reads of a run.
type trainingRun struct {
	// path is the run directory or metrics file named on the command
	// line, file the metrics file.
	path, file string
	metrics    []bootstrap.Iteration
}

// learningChart plots the training problems solved so far, or with valid
// the validation problems, or with fraction their fraction of the run's
// (problemCount), against x (time, expansions or iteration) for each run
// directory (or metrics.jsonl file) of paths, named in the legend by
// names. Time is in seconds, minutes or hours, as the longest run lasted
// under 2 minutes, under 2 hours, or longer. The expansions are the
// training searches'.
func learningChart(paths, names []string, x string, fraction, valid bool) (chart.Chart, error) {
	c := chart.Chart{Title: "Learning curves", YLabel: "problems solved"}
	switch {
	case fraction && valid:
		c.YLabel = "fraction of the validation problems solved"
	case fraction:
		c.YLabel = "fraction of problems solved"
	case valid:
		c.YLabel = "validation problems solved"
	}
	switch x {
	case "time", "expansions":
	case "iteration":
		c.XLabel = "Bootstrap iteration"
		c.IntegerX = true
	default:
		return c, usagef("plot: -x must be time, expansions or iteration")
	}
	runs := make([]trainingRun, len(paths))
	longest := 0.0
	for i, p := range paths {
		r, err := readRun(p)
		if err != nil {
			return c, err
		}
		runs[i] = r
		for _, m := range r.metrics {
			longest = max(longest, m.WallS)
		}
	}
	unit, seconds := timeUnit(longest)
	switch x {
	case "time":
		c.XLabel = fmt.Sprintf("training time (%s)", unit)
	case "expansions":
		c.XLabel = "expansions"
	}
	for i, r := range runs {
		scale := 1.0
		if fraction {
			n, err := problemCount(r, valid)
			if err != nil {
				return c, err
			}
			scale = 1 / float64(n)
		}
		s := chart.Series{Name: names[i]}
		s.X, s.Y = []float64{0}, []float64{0}
		for _, m := range r.metrics {
			switch x {
			case "time":
				s.X = append(s.X, m.WallS/seconds)
			case "expansions":
				s.X = append(s.X, float64(m.TotalExpansions))
			case "iteration":
				s.X = append(s.X, float64(m.Iteration))
			}
			y := m.TotalSolved
			if valid {
				y = m.ValidTotalSolved
			}
			s.Y = append(s.Y, float64(y)*scale)
		}
		c.Series = append(c.Series, s)
	}
	if valid && !slices.ContainsFunc(runs, func(r trainingRun) bool {
		return slices.ContainsFunc(r.metrics, func(m bootstrap.Iteration) bool { return m.ValidAttempted > 0 })
	}) {
		return c, usagef("plot: -valid: no run has validation searches (phs train -valid)")
	}
	return c, nil
}

// timeUnit returns the unit of a time axis whose longest run lasted
// longest seconds, and the unit's length in seconds.
func timeUnit(longest float64) (unit string, seconds float64) {
	switch {
	case longest < 2*60:
		return "s", 1
	case longest < 2*3600:
		return "min", 60
	default:
		return "h", 3600
	}
}

// readRun reads the metrics of the run directory, or metrics.jsonl file,
// path. It tells a results file or a directory without metrics from a run.
func readRun(path string) (trainingRun, error) {
	r := trainingRun{path: path, file: path}
	dir := false
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		dir = true
		r.file = filepath.Join(path, bootstrap.MetricsJSONL)
	}
	f, err := os.Open(r.file)
	if dir && errors.Is(err, os.ErrNotExist) {
		return r, fmt.Errorf("plot: %s is not a training run's directory: it has no %s", path, bootstrap.MetricsJSONL)
	}
	if err != nil {
		return r, fmt.Errorf("plot: %w", err)
	}
	defer f.Close()
	r.metrics, err = bootstrap.ReadMetricsJSONL(f, r.file)
	if err != nil {
		if jsonlKind(r.file) == resultsKind {
			return r, usagef("plot: %s holds search results, not a training run's metrics; plot them with -profile", r.file)
		}
		return r, fmt.Errorf("plot: %w", err)
	}
	return r, nil
}

// problemCount returns the number of training problems of run r, or with
// valid of validation problems, for -fraction, and checks that no
// iteration solved more.
//
// The first iteration attempts every problem (-skip-solved skips only
// problems solved in earlier iterations, and there are none), so a
// finished first iteration's "attempted" is the number of problems, in the
// metrics file itself. A run stopped during its first iteration has no
// such row; the number is then the "problems" of the checkpoint's
// state.json in the metrics file's directory, which the trainer checks
// against the problems on every resumption. run.json is no help: it names
// the problem files, but they may have changed or moved since, and
// counting their problems would mean parsing them.
func problemCount(r trainingRun, valid bool) (int, error) {
	n := 0
	if len(r.metrics) > 0 && r.metrics[0].Iteration == 1 && !r.metrics[0].Partial {
		n = r.metrics[0].Attempted
		if valid {
			n = r.metrics[0].ValidAttempted
		}
	} else {
		train, v, err := checkpointProblems(filepath.Dir(r.file))
		if err != nil {
			return 0, err
		}
		n = train
		if valid {
			n = v
		}
	}
	what, of := "problems", "trains on"
	if valid {
		what, of = "validation problems", "has"
	}
	if n <= 0 {
		return 0, fmt.Errorf("plot: -fraction: cannot tell how many %s %s %s: it has neither a finished first iteration in %s nor a checkpoint", what, r.path, of, r.file)
	}
	for _, m := range r.metrics {
		solved := m.TotalSolved
		if valid {
			solved = m.ValidTotalSolved
		}
		if solved > n {
			return 0, fmt.Errorf("plot: -fraction: %s: iteration %d solved %d %s in all, of %d", r.file, m.Iteration, solved, what, n)
		}
	}
	return n, nil
}

// checkpointProblems returns the number of training and of validation
// problems of the checkpoint of run directory dir (its previous one, if a
// crash left only that), or 0 if there is none.
func checkpointProblems(dir string) (train, valid int, err error) {
	for _, cp := range []string{"checkpoint", "checkpoint.old"} {
		name := filepath.Join(dir, cp, "state.json")
		b, err := os.ReadFile(name)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, 0, fmt.Errorf("plot: %w", err)
		}
		var st struct {
			Problems int `json:"problems"`
			Config   struct {
				Validation bootstrap.Validation `json:"validation"`
			} `json:"config"`
		}
		if err := json.Unmarshal(b, &st); err != nil {
			return 0, 0, fmt.Errorf("plot: %s: %w", name, err)
		}
		v := st.Config.Validation.Problems
		return st.Problems - v, v, nil
	}
	return 0, 0, nil
}

// profileChart plots, for each result file, the expansions of its solved
// problems in increasing order, named in the legend by names. A file with
// nothing solved, a training run's directory or metrics are errors.
func profileChart(paths, names []string) (chart.Chart, error) {
	c := chart.Chart{Title: "Test profiles", XLabel: "problems solved", YLabel: "expansions", LogY: true}
	for i, p := range paths {
		recs, err := readResults(p)
		if err != nil {
			return c, err
		}
		var exp []float64
		for _, r := range recs {
			if r.Solved {
				exp = append(exp, float64(r.Expansions))
			}
		}
		if len(exp) == 0 {
			return c, fmt.Errorf("plot: nothing solved in %s (%d results); a test profile shows solved problems only", p, len(recs))
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

// readResults reads the result records of file path. It tells a training
// run's directory or metrics from results.
func readResults(path string) ([]report.Record, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		if _, err := os.Stat(filepath.Join(path, bootstrap.MetricsJSONL)); err == nil {
			return nil, usagef("plot: %s is a training run's directory; plot its learning curve without -profile", path)
		}
		return nil, usagef("plot: %s is a directory, not a results file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	defer f.Close()
	recs, err := report.ReadJSONL(f, path)
	if err != nil {
		if jsonlKind(path) == metricsKind {
			return nil, usagef("plot: %s is a training run's metrics, not search results; plot it without -profile", path)
		}
		return nil, fmt.Errorf("plot: %w", err)
	}
	return recs, nil
}

// A fileKind is what a JSONL file holds.
type fileKind int

const (
	unknownKind fileKind = iota
	metricsKind          // a training run's metrics
	resultsKind          // search results
)

// jsonlKind tells the kind of the JSONL file name by its first non-blank
// line: an object with an "iteration" is a metrics row, one with a
// "problem" a result record. It returns unknownKind if it cannot tell.
func jsonlKind(name string) fileKind {
	f, err := os.Open(name)
	if err != nil {
		return unknownKind
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(sc.Bytes(), &obj) != nil {
			return unknownKind
		}
		_, iteration := obj["iteration"]
		_, problem := obj["problem"]
		switch {
		case iteration && !problem:
			return metricsKind
		case problem && !iteration:
			return resultsKind
		}
		return unknownKind
	}
	return unknownKind
}

// seriesNames returns the legend names of the series plotted from paths:
// their base names, lengthened by as many parent directories as it takes
// to tell apart the paths whose base names are the same (run1/test.jsonl
// and run2/test.jsonl, but test-astar.jsonl). Only the same path named
// twice gets the same name twice.
func seriesNames(paths []string) []string {
	parts := make([][]string, len(paths))
	keep := make([]int, len(paths)) // the number of trailing parts named
	for i, p := range paths {
		parts[i] = strings.Split(filepath.ToSlash(filepath.Clean(p)), "/")
		keep[i] = 1
	}
	names := make([]string, len(paths))
	for {
		count := make(map[string]int)
		for i, ps := range parts {
			names[i] = filepath.FromSlash(strings.Join(ps[len(ps)-keep[i]:], "/"))
			count[names[i]]++
		}
		grew := false
		for i, ps := range parts {
			if count[names[i]] > 1 && keep[i] < len(ps) {
				keep[i]++
				grew = true
			}
		}
		if !grew {
			return names
		}
	}
}
