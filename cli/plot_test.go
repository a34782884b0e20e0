package cli

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/phs-go/phs/bootstrap"
)

// writeRun writes a run directory, named name in a new temporary
// directory, whose metrics.jsonl holds rows, and returns its path.
func writeRun(t *testing.T, name string, rows ...bootstrap.Iteration) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := bootstrap.WriteMetricsJSONL(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, bootstrap.MetricsJSONL), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeState writes the state.json of a checkpoint of a run over problems
// problems to run directory dir, in subdirectory checkpoint.
func writeState(t *testing.T, dir, checkpoint string, problems int) {
	t.Helper()
	cp := filepath.Join(dir, checkpoint)
	if err := os.Mkdir(cp, 0o755); err != nil {
		t.Fatal(err)
	}
	state := `{"iteration":1,"next":32,"budget":2000,"problems":` + strconv.Itoa(problems) + `}`
	if err := os.WriteFile(filepath.Join(cp, "state.json"), []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
}

const (
	// solvedResults has two solved problems and an unsolved one.
	solvedResults = `{"problem":"p.txt#0","domain":"witness","algorithm":"levints","solved":true,"length":3,"expansions":40,"generated":80,"time_s":0.1,"budget":100,"solution":"UUR"}
{"problem":"p.txt#1","domain":"witness","algorithm":"levints","solved":false,"length":0,"expansions":100,"generated":150,"time_s":0.2,"budget":100,"solution":""}
{"problem":"p.txt#2","domain":"witness","algorithm":"levints","solved":true,"length":5,"expansions":7,"generated":20,"time_s":0.01,"budget":100,"solution":"UURRD"}
`
	unsolvedResults = `{"problem":"p.txt#0","domain":"witness","algorithm":"levints","solved":false,"length":0,"expansions":100,"generated":150,"time_s":0.2,"budget":100,"solution":""}

{"problem":"p.txt#1","domain":"witness","algorithm":"levints","solved":false,"length":0,"expansions":100,"generated":150,"time_s":0.2,"budget":100,"solution":""}
`
)

// TestPlotNothingSolved checks that a test profile of a file with nothing
// solved is an error that leaves an existing image alone.
func TestPlotNothingSolved(t *testing.T) {
	solved := writeFile(t, "solved.jsonl", solvedResults)
	unsolved := writeFile(t, "unsolved.jsonl", unsolvedResults)
	empty := writeFile(t, "empty.jsonl", "")
	for _, tc := range []struct {
		name  string
		files []string
		msg   string
	}{
		{"unsolved", []string{unsolved}, "nothing solved in " + unsolved + " (2 results)"},
		{"unsolved second", []string{solved, unsolved}, "nothing solved in " + unsolved},
		{"empty", []string{empty}, "nothing solved in " + empty + " (0 results)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "p.png")
			const old = "old image"
			if err := os.WriteFile(img, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := runPHS(t, append([]string{"plot", "-profile", "-out", img}, tc.files...)...)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("plot = %v, want an error containing %q", err, tc.msg)
			}
			if b, err := os.ReadFile(img); err != nil || string(b) != old {
				t.Errorf("the image holds %q (%v), want %q", b, err, old)
			}
		})
	}
	img := filepath.Join(t.TempDir(), "p.png")
	if _, _, err := runPHS(t, "plot", "-profile", "-out", img, solved); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(img); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("plot -profile wrote no PNG image (%v)", err)
	}
}

// TestPlotFileKinds checks that the error for a results file plotted as
// a learning curve, and for a run plotted as a test profile, says what to
// do.
func TestPlotFileKinds(t *testing.T) {
	res := writeFile(t, "test.jsonl", solvedResults)
	run := writeRun(t, "run", bootstrap.Iteration{Iteration: 1, Attempted: 4, Solved: 1, TotalSolved: 1, WallS: 10})
	metrics := filepath.Join(run, bootstrap.MetricsJSONL)
	empty := t.TempDir()
	bad := writeFile(t, "bad.jsonl", `{"frobs": 1}`+"\n")
	for _, tc := range []struct {
		args  []string
		usage bool
		msg   string
	}{
		{[]string{res}, true, res + " holds search results, not a training run's metrics; plot them with -profile"},
		{[]string{run, res}, true, "plot them with -profile"},
		{[]string{"-profile", metrics}, true, metrics + " is a training run's metrics, not search results; plot it without -profile"},
		{[]string{"-profile", run}, true, run + " is a training run's directory; plot its learning curve without -profile"},
		{[]string{"-profile", res, run}, true, "without -profile"},
		{[]string{"-profile", empty}, true, empty + " is a directory, not a results file"},
		{[]string{empty}, false, empty + " is not a training run's directory: it has no metrics.jsonl"},
		{[]string{bad}, false, `unknown field "frobs"`},
		{[]string{"-profile", bad}, false, `unknown field "frobs"`},
		{[]string{"-profile", "-fraction", res}, true, "-fraction applies to learning curves"},
		{[]string{"-profile", "-x", "iteration", res}, true, "-x applies to learning curves"},
	} {
		img := filepath.Join(t.TempDir(), "c.png")
		_, _, err := runPHS(t, append([]string{"plot", "-out", img}, tc.args...)...)
		var u usageError
		if err == nil || !strings.Contains(err.Error(), tc.msg) || errors.As(err, &u) != tc.usage {
			t.Errorf("plot %q = %v (usage error: %v), want %q (usage error: %v)", tc.args, err, errors.As(err, &u), tc.msg, tc.usage)
		}
		if _, err := os.Stat(img); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("plot %q failed but wrote an image (stat: %v)", tc.args, err)
		}
	}
}

// TestPlotAxes checks the x axes of learning curves: the unit of time
// that the longest run calls for, and whole iterations.
func TestPlotAxes(t *testing.T) {
	rows := func(wallS ...float64) []bootstrap.Iteration {
		var its []bootstrap.Iteration
		for i, w := range wallS {
			its = append(its, bootstrap.Iteration{Iteration: i + 1, Attempted: 10, TotalSolved: i + 1, TotalExpansions: int64(100 * (i + 1)), WallS: w})
		}
		return its
	}
	short := writeRun(t, "short", rows(30, 90)...)
	medium := writeRun(t, "medium", rows(600, 7000)...)
	long := writeRun(t, "long", rows(3600, 7300)...)
	for _, tc := range []struct {
		x        string
		runs     []string
		label    string
		integerX bool
		// last is the last x of each series.
		last []float64
	}{
		{"time", []string{short}, "training time (s)", false, []float64{90}},
		{"time", []string{short, medium}, "training time (min)", false, []float64{1.5, 7000.0 / 60}},
		{"time", []string{long, short}, "training time (h)", false, []float64{7300.0 / 3600, 90.0 / 3600}},
		{"expansions", []string{short}, "expansions", false, []float64{200}},
		{"iteration", []string{long, short}, "Bootstrap iteration", true, []float64{2, 2}},
	} {
		c, err := learningChart(tc.runs, seriesNames(tc.runs), tc.x, false, false)
		if err != nil {
			t.Fatal(err)
		}
		if c.XLabel != tc.label || c.IntegerX != tc.integerX {
			t.Errorf("-x %s of %d runs: x label %q, integer ticks %v; want %q, %v", tc.x, len(tc.runs), c.XLabel, c.IntegerX, tc.label, tc.integerX)
		}
		for i, s := range c.Series {
			if got := s.X[len(s.X)-1]; math.Abs(got-tc.last[i]) > 1e-9 {
				t.Errorf("-x %s: series %s ends at x = %g, want %g", tc.x, s.Name, got, tc.last[i])
			}
		}
	}
}

// TestPlotFraction checks -fraction: where the number of problems comes
// from, and the errors when it cannot be known.
func TestPlotFraction(t *testing.T) {
	first := bootstrap.Iteration{Iteration: 1, Attempted: 40, Solved: 10, New: 10, TotalSolved: 10, WallS: 60}
	second := bootstrap.Iteration{Iteration: 2, Attempted: 40, Solved: 20, New: 10, TotalSolved: 20, WallS: 120}
	partial := bootstrap.Iteration{Iteration: 1, Attempted: 32, Solved: 8, New: 8, TotalSolved: 8, WallS: 30, Partial: true}
	// With -skip-solved, later iterations attempt fewer problems.
	skipped := bootstrap.Iteration{Iteration: 2, Attempted: 30, Solved: 5, New: 5, TotalSolved: 15, WallS: 120}

	finished := writeRun(t, "finished", first, second)
	skipping := writeRun(t, "skipping", first, skipped)
	// The checkpoint does not override a finished first iteration.
	both := writeRun(t, "both", first, second)
	writeState(t, both, "checkpoint", 40)
	stopped := writeRun(t, "stopped", partial)
	writeState(t, stopped, "checkpoint", 80)
	crashed := writeRun(t, "crashed", partial)
	writeState(t, crashed, "checkpoint.old", 64)
	unknown := writeRun(t, "unknown", partial)
	none := writeRun(t, "none")
	tooMany := writeRun(t, "toomany", first, bootstrap.Iteration{Iteration: 2, Attempted: 40, TotalSolved: 41})

	for _, tc := range []struct {
		run string
		// y is the series' y values, for a run without error.
		y   []float64
		msg string
	}{
		{finished, []float64{0, 0.25, 0.5}, ""},
		{skipping, []float64{0, 0.25, 0.375}, ""},
		{both, []float64{0, 0.25, 0.5}, ""},
		{stopped, []float64{0, 0.1}, ""},
		{crashed, []float64{0, 0.125}, ""},
		{filepath.Join(stopped, bootstrap.MetricsJSONL), []float64{0, 0.1}, ""},
		{unknown, nil, "cannot tell how many problems " + unknown + " trains on"},
		{none, nil, "cannot tell how many problems"},
		{tooMany, nil, "iteration 2 solved 41 problems in all, of 40"},
	} {
		c, err := learningChart([]string{tc.run}, []string{"run"}, "time", true, false)
		if tc.msg != "" {
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%s: %v, want an error containing %q", filepath.Base(tc.run), err, tc.msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(tc.run), err)
			continue
		}
		if c.YLabel != "fraction of problems solved" {
			t.Errorf("%s: y label %q", filepath.Base(tc.run), c.YLabel)
		}
		if got := c.Series[0].Y; !equalFloats(got, tc.y) {
			t.Errorf("%s: y = %v, want %v", filepath.Base(tc.run), got, tc.y)
		}
	}

	img := filepath.Join(t.TempDir(), "f.png")
	if _, _, err := runPHS(t, "plot", "-fraction", "-x", "iteration", "-out", img, finished, stopped); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(img); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("plot -fraction wrote no PNG image (%v)", err)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			return false
		}
	}
	return true
}

// TestPlotNames checks that -names names the series in the legend, one
// name per argument, and that a wrong count or an empty name is a usage
// error that leaves the image alone.
func TestPlotNames(t *testing.T) {
	a := writeFile(t, "a.jsonl", solvedResults)
	b := writeFile(t, "b.jsonl", solvedResults)
	dir := t.TempDir()
	img := filepath.Join(dir, "p.svg")
	if _, _, err := runPHS(t, "plot", "-profile", "-names", "PHS*,LevinTS (fixed)", "-out", img, a, b); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PHS*", "LevinTS (fixed)"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("the legend lacks %q", want)
		}
	}
	if bytes.Contains(svg, []byte("a.jsonl")) {
		t.Error("the legend names a file despite -names")
	}
	run := writeRun(t, "run", bootstrap.Iteration{Iteration: 1, Attempted: 10, TotalSolved: 3, TotalExpansions: 100, WallS: 5})
	if _, _, err := runPHS(t, "plot", "-names", "PHS* from scratch", "-out", img, run); err != nil {
		t.Fatal(err)
	}
	if svg, err := os.ReadFile(img); err != nil || !bytes.Contains(svg, []byte("PHS* from scratch")) {
		t.Errorf("the learning curve's legend lacks its -names name (%v)", err)
	}
	before, _ := os.ReadFile(img)
	for _, tc := range []struct {
		names, msg string
	}{
		{"one", "-names has 1 names for 2 series"},
		{"one,two,three", "-names has 3 names for 2 series"},
		{"one, ", "name 2 of"},
	} {
		_, _, err := runPHS(t, "plot", "-profile", "-names", tc.names, "-out", img, a, b)
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("-names %q: %v, want a usage error containing %q", tc.names, err, tc.msg)
		}
	}
	if after, _ := os.ReadFile(img); !bytes.Equal(after, before) {
		t.Error("a bad -names changed the image")
	}
}

func TestPlotSeriesNames(t *testing.T) {
	for _, tc := range []struct {
		paths, want []string
	}{
		{[]string{"runs/a", "runs/b/"}, []string{"a", "b"}},
		{[]string{"r1/test.jsonl", "r2/test.jsonl"}, []string{"r1/test.jsonl", "r2/test.jsonl"}},
		{[]string{"x.jsonl"}, []string{"x.jsonl"}},
		{[]string{"/res/phsh/test-astar.jsonl", "/res/phsh/test.jsonl", "/res/levints/test.jsonl"},
			[]string{"test-astar.jsonl", "phsh/test.jsonl", "levints/test.jsonl"}},
		{[]string{"x/r/test.jsonl", "y/r/test.jsonl", "z/test.jsonl"}, []string{"x/r/test.jsonl", "y/r/test.jsonl", "z/test.jsonl"}},
		{[]string{"r/test.jsonl", "test.jsonl"}, []string{"r/test.jsonl", "test.jsonl"}},
		{[]string{"/a/test.jsonl", "/b/test.jsonl"}, []string{"a/test.jsonl", "b/test.jsonl"}},
		{[]string{"/r/test.jsonl", "r/test.jsonl"}, []string{"/r/test.jsonl", "r/test.jsonl"}},
		{[]string{"a.jsonl", "./a.jsonl"}, []string{"a.jsonl", "a.jsonl"}},
	} {
		if got := seriesNames(tc.paths); !slices.Equal(got, tc.want) {
			t.Errorf("seriesNames(%q) = %q, want %q", tc.paths, got, tc.want)
		}
	}
}
