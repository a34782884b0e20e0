package chart

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

func TestChartIntegerTicks(t *testing.T) {
	tests := []struct {
		min, max float64
		// labels are the labelled ticks; nil: only check the properties.
		labels []string
	}{
		{0, 6, []string{"0", "1", "2", "3", "4", "5", "6"}},
		{0, 1, []string{"0", "1"}},
		{0.5, 6.5, []string{"1", "2", "3", "4", "5", "6"}},
		{0, 20, []string{"0", "5", "10", "15", "20"}},
		{1, 14, []string{"2", "4", "6", "8", "10", "12", "14"}},
		{-3, 3, []string{"-3", "-2", "-1", "0", "1", "2", "3"}},
		{3.5, 4.5, []string{"4"}},
		{0.2, 0.8, []string{}},
		{0, 137, nil},
		{0, 1e6, nil},
		{1e6, 1e6 + 9, nil},
	}
	for _, tc := range tests {
		ticks := integerTicks{}.Ticks(tc.min, tc.max)
		labels := []string{}
		for _, tk := range ticks {
			if tk.Value != math.Trunc(tk.Value) || tk.Value < tc.min || tk.Value > tc.max {
				t.Errorf("Ticks(%g, %g): tick at %g, want whole numbers in range", tc.min, tc.max, tk.Value)
			}
			if tk.Label != "" {
				if tk.Label != strconv.FormatFloat(tk.Value, 'f', 0, 64) {
					t.Errorf("Ticks(%g, %g): tick at %g labelled %q", tc.min, tc.max, tk.Value, tk.Label)
				}
				labels = append(labels, tk.Label)
			}
		}
		if tc.labels != nil && !slices.Equal(labels, tc.labels) {
			t.Errorf("Ticks(%g, %g) labels %q, want %q", tc.min, tc.max, labels, tc.labels)
		}
		if len(labels) > maxLabels || (tc.max-tc.min >= 1 && len(labels) < 1) {
			t.Errorf("Ticks(%g, %g): %d labels, want 1 to %d", tc.min, tc.max, len(labels), maxLabels)
		}
	}
}

// profiles returns test profiles of 8 result files: series of n points,
// for n from 500 to 1000, that rise to the right from 10 at x = 1 to 8000
// at x = n, with log(y/10) = log(800)·(x/n)^e. The first one also has a
// spike at the left.
func profiles(e float64) []Series {
	var ss []Series
	for k, n := range []int{500, 700, 800, 900, 1000, 1000, 1000, 1000} {
		s := Series{Name: "test-" + strconv.Itoa(k) + ".jsonl"}
		for i := 1; i <= n; i++ {
			s.X = append(s.X, float64(i))
			s.Y = append(s.Y, 10*math.Pow(800, math.Pow(float64(i)/float64(n), e)))
		}
		ss = append(ss, s)
	}
	ss[0].Y[100] = 7000
	return ss
}

// TestChartLegendPlacement checks that the legend covers no line, on charts
// whose lines pass through the top left corner (test profiles), the
// bottom right one (learning curves) or every corner (the legend then
// goes right of the plot).
func TestChartLegendPlacement(t *testing.T) {
	learning := []Series{
		{Name: "run-a", X: []float64{0, 0.5, 1, 2}, Y: []float64{0, 35000, 48000, 50000}},
		{Name: "run-b", X: []float64{0, 0.8, 1.2, 2}, Y: []float64{0, 30000, 46000, 50000}},
	}
	box := []Series{{Name: "around", X: []float64{0, 1, 1, 0, 0}, Y: []float64{0, 0, 1, 1, 0}}}
	tests := []struct {
		name    string
		chart   Chart
		outside bool
	}{
		{"profiles", Chart{Title: "Test profiles", LogY: true, Series: profiles(0.5)}, false},
		// Lines along the bottom, and up to the top left and top right.
		{"crowded profiles", Chart{Title: "Test profiles", LogY: true, Series: profiles(8)}, true},
		{"learning curves", Chart{Title: "Learning curves", Series: learning}, false},
		{"every corner", Chart{Series: box}, true},
		{"no title", Chart{Series: learning}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tc.chart.figure()
			if err != nil {
				t.Fatal(err)
			}
			cw, err := draw.NewFormattedCanvas(width, height, "png")
			if err != nil {
				t.Fatal(err)
			}
			dc := draw.New(cw)
			l := f.layout(dc)
			if l.outside != tc.outside {
				t.Errorf("legend outside: %v, want %v", l.outside, tc.outside)
			}
			r := l.legendBox
			if !within(r, l.legend.Rectangle) || !within(r, dc.Rectangle) {
				t.Errorf("legend box %v is not within its canvas %v and the image %v", r, l.legend.Rectangle, dc.Rectangle)
			}
			if tc.outside && r.Min.X <= l.data.Max.X {
				t.Errorf("legend box %v overlaps the plot area %v", r, l.data.Rectangle)
			}
			if !tc.outside && !within(r, l.data.Rectangle) {
				t.Errorf("legend box %v is not within the plot area %v", r, l.data.Rectangle)
			}
			// Sample every line densely.
			tx, ty := f.plot.Transforms(&l.data)
			for _, s := range tc.chart.Series {
				for i := 1; i < len(s.X); i++ {
					for k := range 101 {
						a := float64(k) / 100
						x := s.X[i-1] + a*(s.X[i]-s.X[i-1])
						y := s.Y[i-1] + a*(s.Y[i]-s.Y[i-1])
						p := vg.Point{X: tx(x), Y: ty(y)}
						if p.X >= r.Min.X && p.X <= r.Max.X && p.Y >= r.Min.Y && p.Y <= r.Max.Y {
							t.Fatalf("the legend at %v covers point (%g, %g) of %s", r, x, y, s.Name)
						}
					}
				}
			}
		})
	}
}

// within reports whether r lies in outer.
func within(r, outer vg.Rectangle) bool {
	return r.Min.X >= outer.Min.X && r.Min.Y >= outer.Min.Y && r.Max.X <= outer.Max.X && r.Max.Y <= outer.Max.Y
}

func TestChartSegmentCrosses(t *testing.T) {
	r := vg.Rectangle{Min: vg.Point{X: 10, Y: 10}, Max: vg.Point{X: 20, Y: 20}}
	pt := func(x, y vg.Length) vg.Point { return vg.Point{X: x, Y: y} }
	tests := []struct {
		a, b vg.Point
		want bool
	}{
		{pt(0, 0), pt(30, 30), true},   // through
		{pt(15, 15), pt(15, 15), true}, // a point inside
		{pt(0, 0), pt(5, 5), false},    // short of it
		{pt(0, 15), pt(30, 15), true},  // horizontal
		{pt(0, 25), pt(30, 25), false}, // above
		{pt(0, 11), pt(12, 23), false}, // past the corner
		{pt(0, 9), pt(12, 21), true},   // clipping the corner
		{pt(25, 0), pt(25, 30), false}, // right of it
		{pt(20, 0), pt(20, 30), true},  // along the edge
	}
	for _, tc := range tests {
		if got := segmentCrosses(r, tc.a, tc.b); got != tc.want {
			t.Errorf("segmentCrosses(%v, %v, %v) = %v, want %v", r, tc.a, tc.b, got, tc.want)
		}
		if got := segmentCrosses(r, tc.b, tc.a); got != tc.want {
			t.Errorf("segmentCrosses(%v, %v, %v) = %v, want %v", r, tc.b, tc.a, got, tc.want)
		}
	}
}

// TestChartReadableTicks checks the labels of the linear axes: no trailing
// zeros, millions and billions with a suffix.
func TestChartReadableTicks(t *testing.T) {
	tests := []struct {
		min, max float64
		labels   []string
	}{
		{0, 50000, []string{"0", "25000", "50000"}},
		{0, 2.1e9, []string{"0", "1G", "2G"}},
		{0, 1, []string{"0", "0.5", "1"}},
		{0.1, 0.7, []string{"0.2", "0.4", "0.6"}},
		{-0.3, 0.3, []string{"-0.25", "0", "0.25"}},
		{0, 7e6, []string{"0", "3M", "6M"}},
		{0, 1.5e9, []string{"0", "500M", "1G", "1.5G"}},
		{0, 137, []string{"0", "40", "80", "120"}},
	}
	for _, tc := range tests {
		var labels []string
		for _, tk := range (readableTicks{}).Ticks(tc.min, tc.max) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if !slices.Equal(labels, tc.labels) {
			t.Errorf("Ticks(%g, %g) labels %q, want %q", tc.min, tc.max, labels, tc.labels)
		}
	}
}
