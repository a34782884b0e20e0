// Package witness implements the path-drawing puzzles of The Witness used by
// Orseau & Lelis (2021): a line is drawn from an entrance vertex of a grid to
// an exit vertex without visiting a vertex twice, and the puzzle is solved
// when every region of cells that the line cuts out holds bullets of at
// most one colour.
//
// Coordinates follow the puzzle files: a puzzle of R×C cells has (R+1)×(C+1)
// vertices (l, c), with 0 ≤ l ≤ R and 0 ≤ c ≤ C; cell (r, c) is bounded by
// the vertices (r, c), (r+1, c), (r, c+1) and (r+1, c+1). The actions move
// the tip of the line: U (0) to l+1, D (1) to l−1, L (2) to c−1 and R (3) to
// c+1.
package witness

import (
	"bytes"
	"fmt"
	"strings"
)

// Limits of the representation: a State packs the visited vertices into 64
// bits and the moves into 128.
const (
	MaxVertices = 64
	MaxColors   = 4
)

// Actions.
const (
	Up = iota
	Down
	Left
	Right
)

// A Problem is one puzzle. It implements search.Heuristic[State] and
// search.Encoder[State].
type Problem struct {
	// ID is "<file base name>#<index>".
	ID string
	// Rows and Cols count the cells.
	Rows, Cols int
	// Init and Goal are the entrance and exit vertices (l, c).
	Init, Goal [2]int
	// Colors holds the colour of each cell, row-major; 0 is no bullet.
	Colors []uint8
	// ContinueAtExit lets the line go on through the exit when the colour
	// test fails there, as the reference implementation did. By default
	// such a state has no successor: nothing below it can be a solution, so
	// this only saves expansions.
	ContinueAtExit bool
}

// A State is a line: the set of its vertices, its tip and its moves. Two
// different lines are different states, even with the same vertices.
type State struct {
	visited uint64
	moves   [2]uint64
	tip     uint8
	n       uint8
}

// Len returns the number of moves of the line.
func (s State) Len() int { return int(s.n) }

// Tip returns the vertex (l, c) at the tip of the line.
func (p *Problem) Tip(s State) (l, c int) {
	return int(s.tip) / (p.Cols + 1), int(s.tip) % (p.Cols + 1)
}

func (p *Problem) vertex(l, c int) int { return l*(p.Cols+1) + c }

// check validates the puzzle's fields.
func (p *Problem) check() error {
	switch {
	case p.Rows < 1 || p.Cols < 1:
		return fmt.Errorf("size %dx%d: want at least 1x1", p.Rows, p.Cols)
	case (p.Rows+1)*(p.Cols+1) > MaxVertices:
		return fmt.Errorf("size %dx%d: more than %d vertices", p.Rows, p.Cols, MaxVertices)
	case !p.onGrid(p.Init):
		return fmt.Errorf("entrance %v is not a vertex of a %dx%d grid", p.Init, p.Rows, p.Cols)
	case !p.onGrid(p.Goal):
		return fmt.Errorf("exit %v is not a vertex of a %dx%d grid", p.Goal, p.Rows, p.Cols)
	case p.Init == p.Goal:
		return fmt.Errorf("the entrance and the exit are the same vertex %v", p.Init)
	case len(p.Colors) != p.Rows*p.Cols:
		return fmt.Errorf("%d cell colours for %d cells", len(p.Colors), p.Rows*p.Cols)
	}
	for i, k := range p.Colors {
		if k > MaxColors {
			return fmt.Errorf("cell %d %d: colour %d, want 0 to %d", i/p.Cols, i%p.Cols, k, MaxColors)
		}
	}
	return nil
}

func (p *Problem) onGrid(v [2]int) bool {
	return v[0] >= 0 && v[0] <= p.Rows && v[1] >= 0 && v[1] <= p.Cols
}

// Root returns the line that is only the entrance.
func (p *Problem) Root() State {
	v := p.vertex(p.Init[0], p.Init[1])
	return State{visited: 1 << v, tip: uint8(v)}
}

// NumActions returns 4.
func (p *Problem) NumActions() int { return 4 }

// Apply extends the line by one move, if the target vertex is on the grid
// and not on the line yet.
func (p *Problem) Apply(s State, a int) (State, bool) {
	l, c := p.Tip(s)
	if !p.ContinueAtExit && l == p.Goal[0] && c == p.Goal[1] {
		return State{}, false
	}
	if a < 0 || a > 3 {
		return State{}, false
	}
	l, c = step(l, c, a)
	if l < 0 || l > p.Rows || c < 0 || c > p.Cols {
		return State{}, false
	}
	v := p.vertex(l, c)
	if s.visited&(1<<v) != 0 {
		return State{}, false
	}
	s.visited |= 1 << v
	s.tip = uint8(v)
	s.moves[s.n/32] |= uint64(a) << (2 * (s.n % 32))
	s.n++
	return s, true
}

// step returns the vertex next to (l, c) in direction a.
func step(l, c, a int) (int, int) {
	switch a {
	case Up:
		l++
	case Down:
		l--
	case Left:
		c--
	case Right:
		c++
	}
	return l, c
}

// move returns the i-th move of s.
func (s State) move(i int) int {
	return int(s.moves[i/32] >> (2 * (i % 32)) & 3)
}

// IsGoal reports whether the tip is on the exit and every region holds
// bullets of at most one colour.
func (p *Problem) IsGoal(s State) bool {
	if int(s.tip) != p.vertex(p.Goal[0], p.Goal[1]) {
		return false
	}
	return p.regionsOK(s)
}

// edges returns the segments of the line: h has bit l*C+c for the segment
// from (l, c) to (l, c+1), v bit l*(C+1)+c for (l, c) to (l+1, c).
func (p *Problem) edges(s State) (h, v uint64) {
	l, c := p.Init[0], p.Init[1]
	for i := range s.Len() {
		switch s.move(i) {
		case Up:
			v |= 1 << (l*(p.Cols+1) + c)
			l++
		case Down:
			l--
			v |= 1 << (l*(p.Cols+1) + c)
		case Left:
			c--
			h |= 1 << (l*p.Cols + c)
		case Right:
			h |= 1 << (l*p.Cols + c)
			c++
		}
	}
	return h, v
}

// regionsOK reports whether every region cut by the line holds at most one
// colour.
func (p *Problem) regionsOK(s State) bool {
	var region [MaxVertices]int8
	p.label(s, &region)
	var color [MaxVertices]uint8
	for cell, k := range p.Colors {
		if k == 0 {
			continue
		}
		r := region[cell]
		if color[r] != 0 && color[r] != k {
			return false
		}
		color[r] = k
	}
	return true
}

// Regions returns the number of regions the line of s cuts the cells into.
func (p *Problem) Regions(s State) int {
	var region [MaxVertices]int8
	return p.label(s, &region)
}

// label numbers the regions of the line s, from 0, writes the region of
// each cell to region and returns the number of regions. Two neighbouring
// cells are in the same region unless a segment of the line separates them.
func (p *Problem) label(s State, region *[MaxVertices]int8) int {
	h, v := p.edges(s)
	R, C := p.Rows, p.Cols
	for i := range R * C {
		region[i] = -1
	}
	var stack [MaxVertices]int8
	n := 0
	for start := range R * C {
		if region[start] >= 0 {
			continue
		}
		region[start] = int8(n)
		stack[0] = int8(start)
		top := 1
		push := func(cell int) {
			if region[cell] < 0 {
				region[cell] = int8(n)
				stack[top] = int8(cell)
				top++
			}
		}
		for top > 0 {
			top--
			cell := int(stack[top])
			r, c := cell/C, cell%C
			if c+1 < C && v&(1<<(r*(C+1)+c+1)) == 0 {
				push(cell + 1)
			}
			if c > 0 && v&(1<<(r*(C+1)+c)) == 0 {
				push(cell - 1)
			}
			if r+1 < R && h&(1<<((r+1)*C+c)) == 0 {
				push(cell + C)
			}
			if r > 0 && h&(1<<(r*C+c)) == 0 {
				push(cell - C)
			}
		}
		n++
	}
	return n
}

// Heuristic returns the Manhattan distance from the tip to the exit.
func (p *Problem) Heuristic(s State) float64 {
	l, c := p.Tip(s)
	return float64(abs(l-p.Goal[0]) + abs(c-p.Goal[1]))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// InputShape returns 9 planes of (2R+1)×(2C+1) pixels.
func (p *Problem) InputShape() (c, h, w int) { return 9, 2*p.Rows + 1, 2*p.Cols + 1 }

// Planes of the encoding.
const (
	PlaneEmpty = 0 // cells without a bullet
	// Planes 1 to 4 mark the cells with a bullet of colour 1 to 4.
	PlaneLine     = 5 // the line: its vertices and segments
	PlaneTip      = 6
	PlaneExit     = 7
	PlaneEntrance = 8
)

// Encode writes the 9 planes of s to dst in CHW order: vertex (l, c) is
// pixel (2l, 2c), cell (r, c) pixel (2r+1, 2c+1), a segment the pixel
// between its vertices.
func (p *Problem) Encode(s State, dst []float32) {
	_, H, W := p.InputShape()
	plane := H * W
	clear(dst[:9*plane])
	for i, k := range p.Colors {
		r, c := i/p.Cols, i%p.Cols
		dst[int(k)*plane+(2*r+1)*W+2*c+1] = 1
	}
	set := func(pl, l, c int) { dst[pl*plane+l*W+c] = 1 }
	l, c := p.Init[0], p.Init[1]
	set(PlaneLine, 2*l, 2*c)
	for i := range s.Len() {
		nl, nc := step(l, c, s.move(i))
		set(PlaneLine, l+nl, c+nc)
		set(PlaneLine, 2*nl, 2*nc)
		l, c = nl, nc
	}
	set(PlaneTip, 2*l, 2*c)
	set(PlaneExit, 2*p.Goal[0], 2*p.Goal[1])
	set(PlaneEntrance, 2*p.Init[0], 2*p.Init[1])
}

// Render draws the puzzle and the line of s, with l growing upwards:
// '.' a free vertex, 'S' the entrance, 'E' the exit, 'o' the line, '@' its
// tip, digits the bullets.
func (p *Problem) Render(s State) string {
	_, H, W := p.InputShape()
	pic := make([][]byte, H)
	for y := range pic {
		pic[y] = []byte(strings.Repeat(" ", W))
		if y%2 == 0 {
			for x := 0; x < W; x += 2 {
				pic[y][x] = '.'
			}
		}
	}
	for i, k := range p.Colors {
		if k != 0 {
			pic[2*(i/p.Cols)+1][2*(i%p.Cols)+1] = '0' + k
		}
	}
	pic[2*p.Goal[0]][2*p.Goal[1]] = 'E'
	l, c := p.Init[0], p.Init[1]
	pic[2*l][2*c] = 'S'
	for i := range s.Len() {
		nl, nc := step(l, c, s.move(i))
		if nl != l {
			pic[l+nl][2*c] = '|'
		} else {
			pic[2*l][c+nc] = '-'
		}
		pic[2*nl][2*nc] = 'o'
		l, c = nl, nc
	}
	if s.Len() > 0 {
		pic[2*l][2*c] = '@'
	}
	var b strings.Builder
	for y := H - 1; y >= 0; y-- {
		b.Write(bytes.TrimRight(pic[y], " "))
		if y > 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// String returns the puzzle in the file format.
func (p *Problem) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Size: %d %d\nInit: %d %d\nGoal: %d %d\nColors: ", p.Rows, p.Cols, p.Init[0], p.Init[1], p.Goal[0], p.Goal[1])
	for i, k := range p.Colors {
		if k != 0 {
			fmt.Fprintf(&b, "|%d %d %d", i/p.Cols, i%p.Cols, k)
		}
	}
	return b.String()
}
