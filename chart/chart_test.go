package chart_test

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/chart"
)

func TestChartSave(t *testing.T) {
	logY := chart.Chart{Title: "t", XLabel: "x", YLabel: "y", LogY: true, Series: []chart.Series{
		{Name: "a", X: []float64{1, 2, 3}, Y: []float64{1, 10, 100}},
		{Name: "b", X: []float64{1, 2}, Y: []float64{0, 5}},
		// Nothing to draw on a log scale.
		{Name: "c", X: []float64{1}, Y: []float64{-1}},
	}}
	linear := chart.Chart{Title: "t", Series: []chart.Series{
		{Name: "a", X: []float64{0, 1, 2}, Y: []float64{0, -1, 4}},
		{Name: "empty"},
	}}
	tests := []struct {
		name  string
		chart chart.Chart
		file  string
		magic string
	}{
		{"png", logY, "c.png", "\x89PNG"},
		{"svg", logY, "c.svg", "<?xml"},
		{"pdf", logY, "c.pdf", "%PDF"},
		{"upper case extension", logY, "c.PNG", "\x89PNG"},
		{"linear", linear, "c.svg", "<?xml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			if err := tc.chart.Save(path); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(b, []byte(tc.magic)) {
				t.Errorf("%s starts with %q, want %q", tc.file, b[:min(8, len(b))], tc.magic)
			}
		})
	}
}

func TestChartSaveErrors(t *testing.T) {
	good := []chart.Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}}}
	tests := []struct {
		name  string
		chart chart.Chart
		file  string
		// msg is in the error message.
		msg string
	}{
		{"gif", chart.Chart{Series: good}, "c.gif", `unknown image format "gif"`},
		{"no extension", chart.Chart{Series: good}, "c", `unknown image format ""`},
		{"mismatched series", chart.Chart{Series: []chart.Series{{Name: "bad", X: []float64{1}}}},
			"c.png", `series "bad" has 1 x and 0 y values`},
		{"NaN", chart.Chart{Series: []chart.Series{{Name: "nan", X: []float64{1, 2}, Y: []float64{1, math.NaN()}}}},
			"c.png", `series "nan"`},
		{"no such directory", chart.Chart{Series: good}, filepath.Join("missing", "c.png"), "no such file or directory"},
		{"infinity", chart.Chart{LogY: true, Series: []chart.Series{{Name: "inf", X: []float64{math.Inf(1)}, Y: []float64{1}}}},
			"c.png", `series "inf"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			err := tc.chart.Save(path)
			if err == nil || !strings.HasPrefix(err.Error(), "chart: ") || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("Save(%s) = %v, want an error starting with \"chart: \" containing %q", tc.file, err, tc.msg)
			}
			if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Save(%s) failed but left a file (stat: %v)", tc.file, err)
			}
		})
	}
}

// TestChartSaveKeepsFile checks that a failed Save leaves an existing image as
// it was, and that no Save leaves a temporary file behind.
func TestChartSaveKeepsFile(t *testing.T) {
	good := chart.Chart{Series: []chart.Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}}}}
	tests := []struct {
		name  string
		chart chart.Chart
		// msg is in the error message; "" for success.
		msg string
	}{
		{"replaced", good, ""},
		{"log scale, nothing solved", chart.Chart{LogY: true, Series: []chart.Series{{Name: "none", X: []float64{1, 2}, Y: []float64{0, 0}}}},
			"no point with y > 0"},
		{"log scale, no series", chart.Chart{LogY: true}, "no point with y > 0"},
		{"NaN", chart.Chart{Series: []chart.Series{{Name: "nan", X: []float64{1}, Y: []float64{math.NaN()}}}}, `series "nan"`},
		{"mismatched series", chart.Chart{Series: []chart.Series{{Name: "bad", X: []float64{1}}}}, `series "bad"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "c.png")
			const old = "old image"
			if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			err := tc.chart.Save(path)
			b, rerr := os.ReadFile(path)
			if rerr != nil {
				t.Fatal(rerr)
			}
			switch {
			case tc.msg == "" && err != nil:
				t.Fatalf("Save: %v", err)
			case tc.msg == "" && !bytes.HasPrefix(b, []byte("\x89PNG")):
				t.Errorf("Save left %q, want a PNG image", b[:min(8, len(b))])
			case tc.msg != "" && (err == nil || !strings.Contains(err.Error(), tc.msg)):
				t.Errorf("Save = %v, want an error containing %q", err, tc.msg)
			case tc.msg != "" && string(b) != old:
				t.Errorf("failed Save changed the file to %q", b[:min(8, len(b))])
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("directory holds %q, want only c.png", names)
			}
		})
	}
}
