package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// A Series is one line of a plot.
type Series struct {
	Name string
	X, Y []float64
}

// A Chart describes a line chart.
type Chart struct {
	Title, XLabel, YLabel string
	// LogY draws the y axis on a log scale; values ≤ 0 are left out.
	LogY   bool
	Series []Series
}

// Save draws c to path; the format follows the extension: .png, .svg or
// .pdf.
func (c Chart) Save(path string) error {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	switch ext {
	case "png", "svg", "pdf":
	default:
		return fmt.Errorf("report: %s: unknown image format %q (want .png, .svg or .pdf)", path, ext)
	}
	p := plot.New()
	p.Title.Text = c.Title
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	if c.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	for i, s := range c.Series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("report: series %q has %d x and %d y values", s.Name, len(s.X), len(s.Y))
		}
		xy := make(plotter.XYs, 0, len(s.X))
		for j := range s.X {
			if c.LogY && s.Y[j] <= 0 {
				continue
			}
			xy = append(xy, plotter.XY{X: s.X[j], Y: s.Y[j]})
		}
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("report: series %q: %w", s.Name, err)
		}
		l.Color = plotutil.Color(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.Name, l)
	}
	p.Legend.TextStyle.Color = color.Black
	if err := p.Save(16*vg.Centimeter, 10*vg.Centimeter, path); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// ReadJSONL reads the records of a JSONL file; name is used in errors.
func ReadJSONL(r io.Reader, name string) ([]Record, error) {
	var recs []Record
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, fmt.Errorf("report: %s:%d: %w", name, line, err)
		}
		if rec.Problem == "" {
			return nil, fmt.Errorf("report: %s:%d: not a result record (no \"problem\")", name, line)
		}
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("report: %s: %w", name, err)
	}
	return recs, nil
}
