// Package stp implements the sliding-tile puzzle on any grid of rows×cols
// cells (up to MaxCells): tiles 1 to rows·cols−1 and a blank (0); the
// actions move the blank up (0), down (1), left (2) or right (3); the goal
// has the blank at cell 0 and tile i at cell i, row-major.
package stp

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxCells is the largest number of cells a State holds: 25 tiles of 5 bits.
const MaxCells = 25

// Actions: the direction in which the blank moves.
const (
	Up = iota
	Down
	Left
	Right
)

// A State is an arrangement of the tiles, 5 bits per cell, and the cell of
// the blank.
type State struct {
	tiles [2]uint64
	blank uint8
}

// At returns the tile in cell i (0 for the blank).
func (s State) At(i int) int {
	bit := 5 * i
	w, off := bit/64, bit%64
	v := s.tiles[w] >> off
	if off > 59 {
		v |= s.tiles[w+1] << (64 - off)
	}
	return int(v & 31)
}

func (s *State) set(i, tile int) {
	bit := 5 * i
	w, off := bit/64, bit%64
	s.tiles[w] &^= 31 << off
	s.tiles[w] |= uint64(tile) << off
	if off > 59 {
		s.tiles[w+1] &^= 31 >> (64 - off)
		s.tiles[w+1] |= uint64(tile) >> (64 - off)
	}
}

// Blank returns the cell of the blank.
func (s State) Blank() int { return int(s.blank) }

// A Problem is one puzzle. It implements search.Heuristic[State] and
// search.Encoder[State].
type Problem struct {
	// ID is "<file base name>#<index>".
	ID         string
	Rows, Cols int
	start      State
	goal       State
	// dist[t*n+i] is the Manhattan distance of tile t in cell i to its
	// goal; 0 for the blank (t = 0).
	dist []uint8
}

// ErrUnsolvable is wrapped by the errors about unsolvable arrangements.
var ErrUnsolvable = errors.New("unsolvable: the tiles' permutation parity differs from the blank's distance parity")

// New returns the puzzle of rows×cols cells whose start has tile tiles[i]
// in cell i. It is an error if tiles is not a permutation of 0 to
// rows·cols−1 or if the goal cannot be reached from it.
func New(rows, cols int, tiles []int, id string) (*Problem, error) {
	n := rows * cols
	switch {
	case rows < 2 || cols < 2:
		return nil, fmt.Errorf("size %dx%d: want at least 2x2", rows, cols)
	case n > MaxCells:
		return nil, fmt.Errorf("size %dx%d: more than %d cells", rows, cols, MaxCells)
	case len(tiles) != n:
		return nil, fmt.Errorf("%d tiles for %dx%d cells", len(tiles), rows, cols)
	}
	p := &Problem{ID: id, Rows: rows, Cols: cols, dist: make([]uint8, n*n)}
	seen := make([]bool, n)
	for i, t := range tiles {
		if t < 0 || t >= n {
			return nil, fmt.Errorf("tile %d out of range 0 to %d", t, n-1)
		}
		if seen[t] {
			return nil, fmt.Errorf("tile %d appears twice", t)
		}
		seen[t] = true
		p.start.set(i, t)
		if t == 0 {
			p.start.blank = uint8(i)
		}
		p.goal.set(i, i)
	}
	if !Solvable(rows, cols, tiles) {
		return nil, ErrUnsolvable
	}
	for t := 1; t < n; t++ { // the blank's distances stay 0
		for i := range n {
			p.dist[t*n+i] = uint8(abs(i/cols-t/cols) + abs(i%cols-t%cols))
		}
	}
	return p, nil
}

// Solvable reports whether the goal can be reached from the arrangement
// tiles of a rows×cols puzzle: whether the parity of the permutation that
// takes the goal to it equals the parity of the blank's Manhattan distance
// from cell 0. tiles must be a permutation.
func Solvable(rows, cols int, tiles []int) bool {
	inversions := 0
	for i := range tiles {
		for j := i + 1; j < len(tiles); j++ {
			if tiles[i] > tiles[j] {
				inversions++
			}
		}
	}
	blank := 0
	for i, t := range tiles {
		if t == 0 {
			blank = i
		}
	}
	return inversions%2 == (blank/cols+blank%cols)%2
}

// Tiles returns the arrangement of s: the tile of each cell.
func (p *Problem) Tiles(s State) []int {
	t := make([]int, p.Rows*p.Cols)
	for i := range t {
		t[i] = s.At(i)
	}
	return t
}

// Root returns the start.
func (p *Problem) Root() State { return p.start }

// NumActions returns 4.
func (p *Problem) NumActions() int { return 4 }

// Apply moves the blank in direction a, if it stays on the grid.
func (p *Problem) Apply(s State, a int) (State, bool) {
	b := int(s.blank)
	r, c := b/p.Cols, b%p.Cols
	var to int
	switch a {
	case Up:
		if r == 0 {
			return State{}, false
		}
		to = b - p.Cols
	case Down:
		if r == p.Rows-1 {
			return State{}, false
		}
		to = b + p.Cols
	case Left:
		if c == 0 {
			return State{}, false
		}
		to = b - 1
	case Right:
		if c == p.Cols-1 {
			return State{}, false
		}
		to = b + 1
	default:
		return State{}, false
	}
	s.set(b, s.At(to))
	s.set(to, 0)
	s.blank = uint8(to)
	return s, true
}

// IsGoal reports whether s is the goal.
func (p *Problem) IsGoal(s State) bool { return s == p.goal }

// Heuristic returns the sum of the Manhattan distances of the tiles (not
// the blank) to their goal cells.
func (p *Problem) Heuristic(s State) float64 {
	n := p.Rows * p.Cols
	dist := p.dist[:n*n]
	h := 0
	lo, hi := s.tiles[0], s.tiles[1]
	for i := range n {
		// The distance table has zeros for the blank.
		h += int(dist[int(lo&31)*n+i])
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return float64(h)
}

// InputShape returns rows·cols one-hot planes of rows×cols.
func (p *Problem) InputShape() (c, h, w int) { return p.Rows * p.Cols, p.Rows, p.Cols }

// Encode writes the one-hot encoding of s to dst: plane t has a 1 at the
// cell of tile t (plane 0: the blank).
func (p *Problem) Encode(s State, dst []float32) {
	n := p.Rows * p.Cols
	clear(dst[:n*n])
	for i := range n {
		dst[s.At(i)*n+i] = 1
	}
}

// Render draws s as a grid of numbers, the blank as '.'.
func (p *Problem) Render(s State) string {
	var b strings.Builder
	width := len(strconv.Itoa(p.Rows*p.Cols - 1))
	for i := range p.Rows * p.Cols {
		if i%p.Cols != 0 {
			b.WriteByte(' ')
		}
		cell := strconv.Itoa(s.At(i))
		if cell == "0" {
			cell = "."
		}
		b.WriteString(strings.Repeat(" ", width-len(cell)) + cell)
		if i%p.Cols == p.Cols-1 && i != p.Rows*p.Cols-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// String returns the start in the file format: the tiles separated by
// spaces, prefixed with "RxC:" when the grid is not square.
func (p *Problem) String() string {
	var b strings.Builder
	if p.Rows != p.Cols {
		fmt.Fprintf(&b, "%dx%d: ", p.Rows, p.Cols)
	}
	for i, t := range p.Tiles(p.start) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(t))
	}
	return b.String()
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
