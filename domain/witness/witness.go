// Package witness implements the path-drawing puzzles of The Witness used by
// Orseau & Lelis (2021): a line is drawn from an entrance vertex of a grid to
// an exit vertex without visiting a vertex twice, and the puzzle is solved
// when the line ends on the exit and every region of cells that it cuts out
// holds bullets of at most one colour.
//
// Coordinates follow the puzzle files: a puzzle of R×C cells has (R+1)×(C+1)
// vertices (l, c), with 0 ≤ l ≤ R and 0 ≤ c ≤ C, l growing upwards; cell
// (r, c) is bounded by the vertices (r, c), (r+1, c), (r, c+1) and
// (r+1, c+1). The actions move the tip of the line: U (0) to l+1, D (1) to
// l−1, L (2) to c−1 and R (3) to c+1.
//
// A Problem implements search.Heuristic[State] with the Manhattan distance
// of the tip to the exit, search.Encoder[State] with the paper's nine
// feature planes, and the contexts of a context model (package cm:
// ContextLayout, Contexts).
package witness

import (
	"fmt"
	"math/bits"
)

// MaxVertices is the largest number of vertices, (R+1)·(C+1), of a puzzle:
// every size up to 7x7, and others such as 6x8, 3x15 or 1x31. A State holds
// one bit per vertex in each of its two words.
const MaxVertices = 64

// MaxColors is the number of bullet colours, 1 to MaxColors.
const MaxColors = 4

// Actions: the direction in which the tip of the line moves.
const (
	Up    = iota // l+1
	Down         // l−1
	Left         // c−1
	Right        // c+1
)

// A State is a line: the set of its segments. A self-avoiding line from the
// entrance is determined by its segments (follow them from the entrance),
// so two different lines are different states, whatever vertices they
// share. Vertex (l, c) has bit number l·(C+1)+c; bit b of h is the
// horizontal segment from vertex b to its right neighbour b+1, bit b of v
// the vertical segment from vertex b to its upper neighbour b+C+1. The tip
// is the end of the line other than the entrance: the vertex other than the
// entrance that has an odd number of segments, found with a few word
// operations. The zero State is the empty line, the root of every puzzle.
// A State is 16 bytes and its own key.
type State struct {
	h, v uint64
}

// Len returns the number of moves (segments) of the line.
func (s State) Len() int { return bits.OnesCount64(s.h) + bits.OnesCount64(s.v) }

// A Problem is one puzzle. It implements search.Heuristic[State] and
// search.Encoder[State]. Its methods are safe for concurrent use; do not
// change Rows and Cols.
type Problem struct {
	// ID is "<file base name>#<index>" for a puzzle read from a file (the
	// index counts puzzles from 0), "generated#<index>" for one from
	// GenerateSet and empty for one from Generate or New.
	ID string
	// Rows and Cols count the cells.
	Rows, Cols int
	// ContinueAtExit lets the line go on through the exit when the colour
	// test fails there, as the reference implementation did. By default a
	// line whose tip is on the exit has no successor: a self-avoiding line
	// that leaves the exit never returns to it, so nothing below such a
	// state is a solution and stopping there only saves expansions (the
	// reference's expansion counts need ContinueAtExit).
	ContinueAtExit bool

	stride  uint   // Cols+1: the bit distance between vertices l and l+1
	recip   uint   // ⌊2¹⁶/stride⌋+1: i/stride is i·recip>>16 for i < 64
	init    uint64 // the entrance's vertex bit
	exit    uint64 // the exit's vertex bit
	top     uint64 // vertices with l == Rows
	bottom  uint64 // vertices with l == 0
	left    uint64 // vertices with c == 0
	right   uint64 // vertices with c == Cols
	openR   uint64 // cells (r, c) with c+1 < Cols, by the bit of vertex (r, c)
	openU   uint64 // cells (r, c) with r+1 < Rows
	bullets uint64 // cells that hold a bullet
	// color[k] holds the cells of colour k, color[0] the empty cells.
	color [MaxColors + 1]uint64
	// present lists the colour masks that are not empty, in colour order;
	// npresent counts them.
	present  [MaxColors]uint64
	npresent int
}

// CheckSize returns an error unless a puzzle of rows×cols cells fits a
// State: at least 1x1 and at most MaxVertices vertices.
func CheckSize(rows, cols int) error {
	if rows < 1 || cols < 1 {
		return fmt.Errorf("size %dx%d: want at least 1x1", rows, cols)
	}
	if rows >= MaxVertices || cols >= MaxVertices || (rows+1)*(cols+1) > MaxVertices {
		return fmt.Errorf("size %dx%d: more than %d vertices (7x7 is the largest square)", rows, cols, MaxVertices)
	}
	return nil
}

// New returns the puzzle of rows×cols cells with entrance vertex init and
// exit vertex goal, both (l, c), and the bullets colors: colors[r*cols+c]
// is the colour of cell (r, c), 1 to MaxColors, or 0 for none. It is an
// error if CheckSize rejects the size, if a vertex is off the grid, if the
// entrance is the exit or if a colour is out of range.
func New(rows, cols int, init, goal [2]int, colors []int) (*Problem, error) {
	p := &Problem{}
	if err := p.init3(rows, cols, init, goal); err != nil {
		return nil, fmt.Errorf("witness: %w", err)
	}
	if len(colors) != rows*cols {
		return nil, fmt.Errorf("witness: %d colours for %dx%d cells", len(colors), rows, cols)
	}
	for i, k := range colors {
		if err := p.setColor(i/cols, i%cols, k); err != nil {
			return nil, fmt.Errorf("witness: %w", err)
		}
	}
	return p, nil
}

// init3 sets the size, the entrance and the exit of p, which has no
// bullets.
func (p *Problem) init3(rows, cols int, init, goal [2]int) error {
	if err := CheckSize(rows, cols); err != nil {
		return err
	}
	*p = Problem{Rows: rows, Cols: cols, stride: uint(cols + 1), recip: 1<<16/uint(cols+1) + 1}
	for l := 0; l <= rows; l++ {
		for c := 0; c <= cols; c++ {
			b := p.bit(l, c)
			if l == rows {
				p.top |= b
			}
			if l == 0 {
				p.bottom |= b
			}
			if c == 0 {
				p.left |= b
			}
			if c == cols {
				p.right |= b
			}
			if l < rows && c < cols {
				p.color[0] |= b
				if c+1 < cols {
					p.openR |= b
				}
				if l+1 < rows {
					p.openU |= b
				}
			}
		}
	}
	switch {
	case !p.onGrid(init):
		return fmt.Errorf("entrance %d %d is not a vertex of a %dx%d grid", init[0], init[1], rows, cols)
	case !p.onGrid(goal):
		return fmt.Errorf("exit %d %d is not a vertex of a %dx%d grid", goal[0], goal[1], rows, cols)
	case init == goal:
		return fmt.Errorf("the entrance and the exit are the same vertex %d %d", init[0], init[1])
	}
	p.init = p.bit(init[0], init[1])
	p.exit = p.bit(goal[0], goal[1])
	return nil
}

// setColor puts a bullet of colour k in cell (r, c), which has none; k == 0
// does nothing.
func (p *Problem) setColor(r, c, k int) error {
	switch {
	case r < 0 || r >= p.Rows || c < 0 || c >= p.Cols:
		return fmt.Errorf("cell %d %d is not in a %dx%d grid", r, c, p.Rows, p.Cols)
	case k < 0 || k > MaxColors:
		return fmt.Errorf("cell %d %d: colour %d, want 1 to %d", r, c, k, MaxColors)
	case k == 0:
		return nil
	}
	b := p.bit(r, c)
	if p.bullets&b != 0 {
		return fmt.Errorf("cell %d %d has two bullets", r, c)
	}
	p.place(b, k)
	return nil
}

// place puts a bullet of colour k in the empty cell of bit b.
func (p *Problem) place(b uint64, k int) {
	p.bullets |= b
	p.color[0] &^= b
	p.color[k] |= b
	p.npresent = 0
	for _, m := range p.color[1:] {
		if m != 0 {
			p.present[p.npresent] = m
			p.npresent++
		}
	}
}

func (p *Problem) onGrid(v [2]int) bool {
	return v[0] >= 0 && v[0] <= p.Rows && v[1] >= 0 && v[1] <= p.Cols
}

// bit returns the bit of vertex (l, c), which is also that of cell (l, c).
func (p *Problem) bit(l, c int) uint64 { return 1 << (uint(l)*p.stride + uint(c)) }

// coords returns the vertex (l, c) of a single bit.
func (p *Problem) coords(b uint64) (l, c int) {
	i := uint(bits.TrailingZeros64(b))
	q := i * p.recip >> 16
	return int(q), int(i - q*p.stride)
}

// Init returns the entrance vertex (l, c).
func (p *Problem) Init() (l, c int) { return p.coords(p.init) }

// Goal returns the exit vertex (l, c).
func (p *Problem) Goal() (l, c int) { return p.coords(p.exit) }

// Color returns the colour of the bullet in cell (r, c), or 0 if it has
// none. The cell must be on the grid.
func (p *Problem) Color(r, c int) int {
	b := p.bit(r, c)
	for k := 1; k <= MaxColors; k++ {
		if p.color[k]&b != 0 {
			return k
		}
	}
	return 0
}

// Tip returns the vertex (l, c) at the tip of the line s.
func (p *Problem) Tip(s State) (l, c int) { return p.coords(p.tip(s)) }

// tip returns the bit of the tip of s: the entrance and the tip are the
// only vertices with one segment, and every other vertex of the line has
// two (an empty line's tip is the entrance).
func (p *Problem) tip(s State) uint64 {
	return s.h ^ s.h<<1 ^ s.v ^ s.v<<p.stride ^ p.init
}

// visited returns the vertices of the line s.
func (p *Problem) visited(s State) uint64 {
	return s.h | s.h<<1 | s.v | s.v<<p.stride | p.init
}

// Root returns the empty line, at the entrance: the zero State.
func (p *Problem) Root() State { return State{} }

// NumActions returns 4.
func (p *Problem) NumActions() int { return 4 }

// ActionName returns the name of action a, a move of the tip of the line (U is a row up, as in the puzzle files): "U", "D", "L"
// or "R".
func (p *Problem) ActionName(a int) string { return "UDLR"[a : a+1] }

// Apply extends the line s by one move of its tip, if the target vertex is
// on the grid and not on the line. A line whose tip is on the exit has no
// successor unless ContinueAtExit.
func (p *Problem) Apply(s State, a int) (State, bool) {
	tip := p.tip(s)
	if tip == p.exit && !p.ContinueAtExit {
		return State{}, false
	}
	var to uint64
	switch a {
	case Up:
		if tip&p.top != 0 {
			return State{}, false
		}
		to = tip << p.stride
	case Down:
		if tip&p.bottom != 0 {
			return State{}, false
		}
		to = tip >> p.stride
	case Left:
		if tip&p.left != 0 {
			return State{}, false
		}
		to = tip >> 1
	case Right:
		if tip&p.right != 0 {
			return State{}, false
		}
		to = tip << 1
	default:
		return State{}, false
	}
	if p.visited(s)&to != 0 {
		return State{}, false
	}
	// A segment is numbered by its lower or left vertex.
	if a <= Down {
		s.v |= min(tip, to)
	} else {
		s.h |= min(tip, to)
	}
	return s, true
}

// IsGoal reports whether the tip of s is on the exit and every region of
// cells holds bullets of at most one colour.
func (p *Problem) IsGoal(s State) bool {
	return p.tip(s) == p.exit && p.separates(s)
}

// walls returns the cells from which the line s lets one step right and
// up.
func (p *Problem) walls(s State) (openR, openU uint64) {
	// The segment between cells (r, c) and (r, c+1) is the vertical one from
	// vertex (r, c+1); that between (r, c) and (r+1, c) the horizontal one
	// from vertex (r+1, c).
	return p.openR &^ (s.v >> 1), p.openU &^ (s.h >> p.stride)
}

// fill returns the cells reachable from the cells x.
func (p *Problem) fill(x, openR, openU uint64) uint64 {
	for {
		y := x | (x&openR)<<1 | (x>>1)&openR | (x&openU)<<p.stride | (x>>p.stride)&openU
		if y == x {
			return x
		}
		x = y
	}
}

// separates reports whether every region of s holds at most one colour:
// whether the cells reachable from the bullets of each colour hold no
// bullet of another. The last colour needs no check of its own.
func (p *Problem) separates(s State) bool {
	openR, openU := p.walls(s)
	for _, m := range p.present[:max(p.npresent-1, 0)] {
		if p.fill(m, openR, openU)&p.bullets&^m != 0 {
			return false
		}
	}
	return true
}

// regions writes the regions of cells that the line s cuts out, in the
// order of their lowest cells, to dst and returns their number.
func (p *Problem) regions(s State, dst *[MaxVertices]uint64) int {
	openR, openU := p.walls(s)
	n := 0
	for left := p.color[0] | p.bullets; left != 0; n++ {
		dst[n] = p.fill(left&-left, openR, openU)
		left &^= dst[n]
	}
	return n
}

// Heuristic returns the Manhattan distance from the tip of s to the exit:
// a lower bound on the number of moves left.
func (p *Problem) Heuristic(s State) float64 {
	l, c := p.Tip(s)
	gl, gc := p.Goal()
	return float64(abs(l-gl) + abs(c-gc))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// InitialBudget is the paper's initial expansion budget of the Bootstrap
// process and test for The Witness.
const InitialBudget = 2000
