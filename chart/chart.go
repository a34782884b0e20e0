// Package chart draws line charts, such as the learning curves and test
// profiles of the paper, to PNG, SVG or PDF files with gonum/plot.
package chart

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// A Series is one line of a chart: the points (X[i], Y[i]), joined in
// order. X and Y must have the same length.
type Series struct {
	// Name labels the line in the legend.
	Name string
	X, Y []float64
}

// A Chart describes a line chart.
type Chart struct {
	Title, XLabel, YLabel string
	// LogY draws the y axis on a log scale; points with y ≤ 0 are left out.
	LogY bool
	// Series are drawn in order, each in a color of its own, and named in
	// the legend; a series without points to draw is left out.
	Series []Series
}

// Save draws c, 16 cm wide and 10 cm high, to the file path, replacing it
// if it exists; the format follows the extension: .png, .svg or .pdf, in
// any case. It returns an error for any other extension, a series whose X
// and Y differ in length, or a point that cannot be drawn (an infinite or
// NaN coordinate), and then writes no file; errors writing the file are
// returned too.
func (c Chart) Save(path string) error {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	switch ext {
	case "png", "svg", "pdf":
	default:
		return fmt.Errorf("chart: %s: unknown image format %q (want .png, .svg or .pdf)", path, ext)
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
			return fmt.Errorf("chart: series %q has %d x and %d y values", s.Name, len(s.X), len(s.Y))
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
			return fmt.Errorf("chart: series %q: %w", s.Name, err)
		}
		l.Color = plotutil.Color(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.Name, l)
	}
	p.Legend.TextStyle.Color = color.Black
	if err := p.Save(16*vg.Centimeter, 10*vg.Centimeter, path); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	return nil
}
