package witness

import (
	"strings"
)

// Planes of the encoding, the paper's nine features.
const (
	PlaneEmpty = 0 // cells without a bullet
	// Planes 1 to MaxColors mark the cells with a bullet of that colour.
	PlaneLine     = MaxColors + 1 // the line: its vertices, the entrance included, and its segments
	PlaneTip      = MaxColors + 2 // the tip of the line
	PlaneExit     = MaxColors + 3 // the exit
	PlaneEntrance = MaxColors + 4 // the entrance
	NumPlanes     = MaxColors + 5
)

// InputShape returns NumPlanes (9) planes of (2R+1)×(2C+1) pixels.
func (p *Problem) InputShape() (c, h, w int) { return NumPlanes, 2*p.Rows + 1, 2*p.Cols + 1 }

// Encode writes the planes of s to dst, which has the length of
// InputShape, in CHW order: vertex (l, c) is pixel (2l, 2c), cell (r, c)
// pixel (2r+1, 2c+1) and a segment the pixel between its two vertices.
// Pixels are 1 where the feature is present and 0 elsewhere.
func (p *Problem) Encode(s State, dst []float32) {
	_, H, W := p.InputShape()
	n := H * W
	dst = dst[:NumPlanes*n]
	clear(dst)
	for k, m := range p.color {
		plane := dst[k*n : (k+1)*n]
		for ; m != 0; m &= m - 1 {
			plane[p.pixel(m&-m, W)+W+1] = 1
		}
	}
	line := dst[PlaneLine*n : (PlaneLine+1)*n]
	for m := p.visited(s); m != 0; m &= m - 1 {
		line[p.pixel(m&-m, W)] = 1
	}
	for m := s.h; m != 0; m &= m - 1 {
		line[p.pixel(m&-m, W)+1] = 1
	}
	for m := s.v; m != 0; m &= m - 1 {
		line[p.pixel(m&-m, W)+W] = 1
	}
	dst[PlaneTip*n+p.pixel(p.tip(s), W)] = 1
	dst[PlaneExit*n+p.pixel(p.exit, W)] = 1
	dst[PlaneEntrance*n+p.pixel(p.init, W)] = 1
}

// pixel returns the pixel index of the vertex of bit b in an image w wide:
// vertex (l, c) is pixel (2l, 2c); cell (l, c) is pixel w+1 further.
func (p *Problem) pixel(b uint64, w int) int {
	l, c := p.coords(b)
	return 2*l*w + 2*c
}

// Render draws the puzzle and the line s as text, l growing upwards, one
// character per pixel of the encoding: '+' a free vertex, 'S' the
// entrance, 'E' the exit, 'o' a vertex of the line, '@' its tip (unless
// the line is empty), '-' and '|' its segments, digits the bullets and
// spaces the empty cells. Trailing spaces are cut.
func (p *Problem) Render(s State) string {
	_, H, W := p.InputShape()
	pic := make([][]byte, H)
	for y := range pic {
		pic[y] = []byte(strings.Repeat(" ", W))
	}
	on := p.visited(s)
	tip := p.tip(s)
	for l := 0; l <= p.Rows; l++ {
		for c := 0; c <= p.Cols; c++ {
			b := p.bit(l, c)
			y, x := 2*l, 2*c
			switch {
			case b == tip && s != State{}:
				pic[y][x] = '@'
			case b == p.init:
				pic[y][x] = 'S'
			case b == p.exit:
				pic[y][x] = 'E'
			case on&b != 0:
				pic[y][x] = 'o'
			default:
				pic[y][x] = '+'
			}
			if s.h&b != 0 {
				pic[y][x+1] = '-'
			}
			if s.v&b != 0 {
				pic[y+1][x] = '|'
			}
			if l < p.Rows && c < p.Cols {
				if k := p.Color(l, c); k != 0 {
					pic[y+1][x+1] = byte('0' + k)
				}
			}
		}
	}
	var b strings.Builder
	for y := H - 1; y >= 0; y-- {
		b.WriteString(strings.TrimRight(string(pic[y]), " "))
		if y > 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
