// Package chart draws line charts, such as the learning curves and test
// profiles of the paper, to PNG, SVG or PDF files with gonum/plot.
package chart

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/phs-go/phs/internal/atomicfile"
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
	// IntegerX puts the ticks of the x axis at whole numbers only, as for
	// an axis that counts iterations.
	IntegerX bool
	// Series are drawn in order, each in a color of its own (the eighth
	// and later ones in the colors of the first ones again, dashed), and
	// named in the legend; a series without points to draw is left out.
	Series []Series
}

const (
	width  = 16 * vg.Centimeter
	height = 10 * vg.Centimeter
	// margin separates the legend from the edges of the plot area and
	// from the lines.
	margin = 2 * vg.Millimeter
)

// Save draws c, 16 cm wide and 10 cm high, to the file path, replacing it
// if it exists; the format follows the extension: .png, .svg or .pdf, in
// any case. The legend goes in the first corner of the plot area, of top
// left, top right, bottom right and bottom left, that no line passes
// through, or right of the plot area if every corner has a line.
//
// Save returns an error, and leaves any file at path as it was, for any
// other extension, a series whose X and Y differ in length, a point that
// cannot be drawn (an infinite or NaN coordinate), a log scale with no
// point to draw (no y > 0), or an error writing the file: the image is
// written to a new file in path's directory that is renamed to path only
// once complete (internal/atomicfile), with permissions 0644 less the
// umask.
func (c Chart) Save(path string) error {
	format := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	switch format {
	case "png", "svg", "pdf":
	default:
		return fmt.Errorf("chart: %s: unknown image format %q (want .png, .svg or .pdf)", path, format)
	}
	b, err := c.render(format)
	if err != nil {
		return fmt.Errorf("chart: %s: %w", path, err)
	}
	if err := atomicfile.WriteFile(path, b); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	return nil
}

// render draws c and returns the image file's content in format.
func (c Chart) render(format string) (b []byte, err error) {
	f, err := c.figure()
	if err != nil {
		return nil, err
	}
	// gonum/plot panics on some inputs that figure does not foresee.
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("cannot draw the chart: %v", r)
		}
	}()
	cw, err := draw.NewFormattedCanvas(width, height, format)
	if err != nil {
		return nil, err
	}
	f.draw(draw.New(cw))
	var buf bytes.Buffer
	if _, err := cw.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// A figure is a chart ready to draw: the plot with its lines, and the
// legend kept apart so that figure.draw can place it.
type figure struct {
	plot   *plot.Plot
	legend plot.Legend
	// names are the legend's entries; lines the points of the lines drawn.
	names []string
	lines []plotter.XYs
}

// figure returns the figure of c, or an error if a series cannot be drawn.
func (c Chart) figure() (*figure, error) {
	p := plot.New()
	p.Title.Text = c.Title
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	p.X.Tick.Marker, p.Y.Tick.Marker = readableTicks{}, readableTicks{}
	if c.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if c.IntegerX {
		p.X.Tick.Marker = integerTicks{}
	}
	p.Add(plotter.NewGrid())
	f := &figure{plot: p, legend: plot.NewLegend()}
	f.legend.TextStyle.Color = color.Black
	for i, s := range c.Series {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("series %q has %d x and %d y values", s.Name, len(s.X), len(s.Y))
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
			return nil, fmt.Errorf("series %q: %w", s.Name, err)
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i / len(plotutil.DefaultColors))
		l.Width = vg.Points(1.5)
		p.Add(l)
		f.legend.Add(s.Name, l)
		f.names = append(f.names, s.Name)
		f.lines = append(f.lines, xy)
	}
	if c.LogY && len(f.lines) == 0 {
		return nil, errors.New("nothing to draw: no point with y > 0 for the log scale")
	}
	return f, nil
}

// draw draws f on dc.
func (f *figure) draw(dc draw.Canvas) {
	l := f.layout(dc)
	f.plot.Draw(l.area)
	if len(f.names) > 0 {
		f.legend.Draw(l.legend)
	}
}

// A layout says where the parts of a figure go.
type layout struct {
	// area is the canvas of the plot, axes included; data is the part of
	// it that the lines are drawn in.
	area, data draw.Canvas
	// legend is the canvas of the legend and legendBox the rectangle it
	// covers.
	legend    draw.Canvas
	legendBox vg.Rectangle
	// outside reports that the legend is right of the plot area.
	outside bool
}

// layout places the plot and the legend on dc, as Save documents, and sets
// f.legend.Top and f.legend.Left accordingly.
func (f *figure) layout(dc draw.Canvas) layout {
	l := layout{area: dc, data: f.plot.DataCanvas(dc)}
	if len(f.names) == 0 {
		return l
	}
	inner := draw.Crop(l.data, margin, -margin, margin, -margin)
	for _, corner := range []struct{ top, left bool }{{true, true}, {true, false}, {false, false}, {false, true}} {
		f.legend.Top, f.legend.Left = corner.top, corner.left
		box := f.legendBox(inner)
		if !f.crosses(l.data, grow(box, margin)) {
			l.legend, l.legendBox = inner, box
			return l
		}
	}
	// Every corner has a line: shrink the plot to make room on its right.
	f.legend.Top, f.legend.Left = true, true
	w, _ := f.legendSize()
	l.area = draw.Crop(dc, 0, -(w + 2*margin), 0, 0)
	l.data = f.plot.DataCanvas(l.area)
	l.legend = draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: l.area.Max.X + margin, Y: l.data.Min.Y},
		Max: vg.Point{X: dc.Max.X, Y: l.data.Max.Y},
	}}
	l.legendBox = f.legendBox(l.legend)
	l.outside = true
	return l
}

// legendSize returns the width and height of the legend, as
// plot.Legend.Draw lays it out.
func (f *figure) legendSize() (w, h vg.Length) {
	sty := f.legend.TextStyle
	var text, entry vg.Length
	for _, name := range f.names {
		r := sty.Rectangle(name)
		text = max(text, r.Max.X)
		entry = max(entry, r.Max.Y)
	}
	n := vg.Length(len(f.names))
	w = f.legend.ThumbnailWidth + sty.Rectangle(" ").Max.X + text
	h = n*entry + (n-1)*f.legend.Padding + sty.FontExtents().Descent
	return w, h
}

// legendBox returns the rectangle that the legend covers when drawn on c
// in the corner that f.legend.Top and f.legend.Left select.
func (f *figure) legendBox(c draw.Canvas) vg.Rectangle {
	w, h := f.legendSize()
	r := c.Rectangle
	if f.legend.Left {
		r.Max.X = r.Min.X + w
	} else {
		r.Min.X = r.Max.X - w
	}
	if f.legend.Top {
		r.Min.Y = r.Max.Y - h
	} else {
		r.Max.Y = r.Min.Y + h
	}
	return r
}

// crosses reports whether a line of f, drawn on data, passes through r.
func (f *figure) crosses(data draw.Canvas, r vg.Rectangle) bool {
	tx, ty := f.plot.Transforms(&data)
	for _, xy := range f.lines {
		prev := vg.Point{X: tx(xy[0].X), Y: ty(xy[0].Y)}
		for _, q := range xy {
			p := vg.Point{X: tx(q.X), Y: ty(q.Y)}
			if segmentCrosses(r, prev, p) {
				return true
			}
			prev = p
		}
	}
	return false
}

// segmentCrosses reports whether the segment from a to b has a point in r
// (the Liang–Barsky clipping test).
func segmentCrosses(r vg.Rectangle, a, b vg.Point) bool {
	t0, t1 := 0.0, 1.0
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	// For each edge, the segment is inside where p·t ≤ q.
	for _, e := range [4]struct{ p, q float64 }{
		{-dx, float64(a.X - r.Min.X)},
		{dx, float64(r.Max.X - a.X)},
		{-dy, float64(a.Y - r.Min.Y)},
		{dy, float64(r.Max.Y - a.Y)},
	} {
		switch {
		case e.p == 0:
			if e.q < 0 {
				return false
			}
		case e.p < 0:
			t0 = max(t0, e.q/e.p)
		default:
			t1 = min(t1, e.q/e.p)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

// grow returns r enlarged by d on every side.
func grow(r vg.Rectangle, d vg.Length) vg.Rectangle {
	r.Min.X -= d
	r.Min.Y -= d
	r.Max.X += d
	r.Max.Y += d
	return r
}

// readableTicks is a plot.Ticker that puts ticks where plot.DefaultTicks
// does, labelled with at most 6 significant digits and no trailing zeros
// ("50000", not "50000.00"), and from a million on in millions or
// billions ("500M", "1.5G", not "5e+08"). A tick within a billionth of
// the range of 0 is labelled "0".
type readableTicks struct{}

// Ticks returns the ticks between min and max.
func (readableTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i, tk := range ticks {
		if tk.Label != "" {
			ticks[i].Label = readableLabel(tk.Value, 1e-9*(max-min))
		}
	}
	return ticks
}

// readableLabel formats v for readableTicks, as 0 if |v| <= zero.
func readableLabel(v, zero float64) string {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	switch a := math.Abs(v); {
	case a <= zero:
		return "0"
	case a >= 1e9:
		return g(v/1e9) + "G"
	case a >= 1e6:
		return g(v/1e6) + "M"
	}
	return g(v)
}

// integerTicks is a plot.Ticker that puts ticks at whole numbers only:
// labelled ones at the multiples of the smallest step of 1, 2 or 5 times a
// power of ten that gives fewer than maxLabels steps over the range, and
// unlabelled ones between them at the whole multiples of a fifth or a half
// of the step. A range without a whole number gets no ticks.
type integerTicks struct{}

const maxLabels = 8

// Ticks returns the ticks between min and max.
func (integerTicks) Ticks(min, max float64) []plot.Tick {
	lo, hi := math.Ceil(min), math.Floor(max)
	if lo > hi {
		return nil
	}
	step, minor := 1.0, 0.0
	for mag := 1.0; ; mag *= 10 {
		if (hi-lo)/step < maxLabels {
			break
		}
		step, minor = 2*mag, mag
		if (hi-lo)/step < maxLabels {
			break
		}
		step, minor = 5*mag, mag
		if (hi-lo)/step < maxLabels {
			break
		}
		step, minor = 10*mag, 2*mag
	}
	var ticks []plot.Tick
	first := math.Ceil(lo/step) * step
	for v := first; v <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	if minor > 0 {
		for v := math.Ceil(lo/minor) * minor; v <= hi; v += minor {
			if math.Mod(v, step) != 0 {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	return ticks
}
