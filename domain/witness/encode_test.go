package witness

import (
	"strings"
	"testing"
)

// planes returns the planes of dst as rows of '1' and '.', lowest row
// first, one string per plane.
func planes(dst []float32, c, h, w int) []string {
	out := make([]string, c)
	for k := range c {
		var b strings.Builder
		for y := range h {
			if y > 0 {
				b.WriteByte('/')
			}
			for x := range w {
				switch dst[(k*h+y)*w+x] {
				case 0:
					b.WriteByte('.')
				case 1:
					b.WriteByte('1')
				default:
					b.WriteByte('?')
				}
			}
		}
		out[k] = b.String()
	}
	return out
}

func TestEncode(t *testing.T) {
	p := mustParse(t, "Size: 1 2\nInit: 0 0\nGoal: 1 2\nColors: |0 0 1|0 1 2\n")
	q := mustParse(t, "Size: 2 1\nInit: 1 1\nGoal: 0 0\nColors: |1 0 4\n")
	for _, tc := range []struct {
		p     *Problem
		moves string
		want  [NumPlanes]string
	}{
		{p, "RUR", [NumPlanes]string{
			".....|.....|.....",
			".....|.1...|.....",
			".....|...1.|.....",
			".....|.....|.....",
			".....|.....|.....",
			"111..|..1..|..111", // the line
			".....|.....|....1", // its tip
			".....|.....|....1", // the exit
			"1....|.....|.....", // the entrance
		}},
		{p, "", [NumPlanes]string{
			".....|.....|.....",
			".....|.1...|.....",
			".....|...1.|.....",
			".....|.....|.....",
			".....|.....|.....",
			"1....|.....|.....",
			"1....|.....|.....",
			".....|.....|....1",
			"1....|.....|.....",
		}},
		{q, "LD", [NumPlanes]string{
			"...|.1.|...|...|...",
			"...|...|...|...|...",
			"...|...|...|...|...",
			"...|...|...|...|...",
			"...|...|...|.1.|...",
			"1..|1..|111|...|...",
			"1..|...|...|...|...",
			"1..|...|...|...|...",
			"...|...|..1|...|...",
		}},
	} {
		s, ok := play(tc.p, tc.moves)
		if !ok {
			t.Fatalf("%q: illegal", tc.moves)
		}
		c, h, w := tc.p.InputShape()
		if c != NumPlanes || h != 2*tc.p.Rows+1 || w != 2*tc.p.Cols+1 {
			t.Fatalf("InputShape = %d %d %d", c, h, w)
		}
		dst := make([]float32, c*h*w)
		for i := range dst {
			dst[i] = 7 // Encode overwrites everything
		}
		tc.p.Encode(s, dst)
		got := planes(dst, c, h, w)
		for k := range got {
			if want := strings.ReplaceAll(tc.want[k], "|", "/"); got[k] != want {
				t.Errorf("%s %q plane %d: %s, want %s", tc.p.ID, tc.moves, k, got[k], want)
			}
		}
	}
}

func TestRender(t *testing.T) {
	p := mustParse(t, "Size: 1 2\nInit: 0 0\nGoal: 1 2\nColors: |0 0 1|0 1 2\n")
	for _, tc := range []struct{ moves, want string }{
		{"", "+ + E\n 1 2\nS + +"},
		{"RUR", "+ o-@\n 1|2\nS-o +"},
		{"URR", "o-o-@\n|1 2\nS + +"},
		{"RU", "+ @ E\n 1|2\nS-o +"},
	} {
		s, _ := play(p, tc.moves)
		if got := p.Render(s); got != tc.want {
			t.Errorf("%q: Render =\n%s\nwant\n%s", tc.moves, got, tc.want)
		}
	}
}
