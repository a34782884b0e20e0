package stp

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"sync"
)

// MaxLargeCells is the largest number of cells of a LargeState: 64, as
// many as 8x8.
const MaxLargeCells = 64

// A LargeState is an arrangement of the tiles of a LargeProblem's board:
// the tile in cell i is byte i (0 for the blank), and the bytes past the
// last cell are 0xFF. The blank's cell is not stored: it is the only zero
// byte, found a word at a time. A LargeState is 64 bytes and its own key.
type LargeState struct {
	cells [MaxLargeCells]uint8
}

// largeState returns the LargeState with tile tiles[i] in cell i; tiles
// has at most MaxLargeCells entries, each below MaxLargeCells.
func largeState(tiles []int) LargeState {
	var s LargeState
	for i := range s.cells {
		s.cells[i] = 0xFF
	}
	for i, t := range tiles {
		s.cells[i] = uint8(t)
	}
	return s
}

// At returns the tile in cell i (0 for the blank), for i less than the
// board's number of cells.
func (s LargeState) At(i int) int { return int(s.cells[i]) }

const (
	ones8 = 0x0101010101010101
	high8 = 0x8080808080808080
)

// Blank returns the cell of the blank, or MaxLargeCells if s has none (no
// LargeState of a problem lacks one).
func (s LargeState) Blank() int {
	for k := 0; k < MaxLargeCells; k += 8 {
		w := binary.LittleEndian.Uint64(s.cells[k:])
		// The lowest byte flagged is the lowest zero byte: a byte above a
		// zero byte may be flagged by the borrow, never one below.
		if z := (w - ones8) &^ w & high8; z != 0 {
			return k + bits.TrailingZeros64(z)/8
		}
	}
	return MaxLargeCells
}

// A largeGeometry holds the tables of one board size of LargeProblems.
type largeGeometry struct {
	rows, cols, n int
	// move[b][a] is the cell the blank moves to from cell b under action
	// a, or -1. Rows from n on are -1 too.
	move [MaxLargeCells + 1][4]int8
	// dist[t<<6|i] is the Manhattan distance of tile t in cell i from its
	// goal cell t; 0 for the blank.
	dist [MaxLargeCells * MaxLargeCells]uint8
	goal LargeState
}

var largeGeometries sync.Map // [2]int{rows, cols} → *largeGeometry

// largeGeometryOf returns the tables of the size rows×cols, which
// CheckLargeSize accepts.
func largeGeometryOf(rows, cols int) *largeGeometry {
	key := [2]int{rows, cols}
	if g, ok := largeGeometries.Load(key); ok {
		return g.(*largeGeometry)
	}
	g := &largeGeometry{rows: rows, cols: cols, n: rows * cols}
	fillTables(rows, cols, 6, g.move[:], g.dist[:])
	goal := make([]int, g.n)
	for i := range goal {
		goal[i] = i
	}
	g.goal = largeState(goal)
	actual, _ := largeGeometries.LoadOrStore(key, g)
	return actual.(*largeGeometry)
}

// CheckLargeSize returns an error unless rows×cols is a size a
// LargeProblem holds: at least 2x2 and at most MaxLargeCells cells.
func CheckLargeSize(rows, cols int) error {
	if rows < 2 || cols < 2 {
		return fmt.Errorf("size %dx%d: want at least 2x2", rows, cols)
	}
	if rows > MaxLargeCells || cols > MaxLargeCells || rows*cols > MaxLargeCells {
		return fmt.Errorf("size %dx%d: more than %d cells", rows, cols, MaxLargeCells)
	}
	return nil
}

// A LargeProblem is a puzzle of any size up to MaxLargeCells cells, the
// boards of more than MaxCells cells among them, with LargeState as its
// state: what a Problem is for boards of up to MaxCells cells, whose
// smaller State makes its searches faster and smaller. It implements
// search.Heuristic[LargeState] and search.Encoder[LargeState]. Its methods
// are safe for concurrent use; its fields are read-only.
type LargeProblem struct {
	// ID is "<file base name>#<index>" for a puzzle read from a file (the
	// index counts puzzles from 0), empty for a generated one.
	ID         string
	Rows, Cols int
	start      LargeState
	g          *largeGeometry
}

// NewLarge returns the puzzle of rows×cols cells whose start has tile
// tiles[i] in cell i, as New does, for any size CheckLargeSize accepts.
func NewLarge(rows, cols int, tiles []int, id string) (*LargeProblem, error) {
	p, err := newLargeProblem(rows, cols, tiles, id)
	if err != nil {
		return nil, fmt.Errorf("stp: %w", err)
	}
	return p, nil
}

func newLargeProblem(rows, cols int, tiles []int, id string) (*LargeProblem, error) {
	if err := CheckLargeSize(rows, cols); err != nil {
		return nil, err
	}
	if err := checkTiles(rows, cols, tiles); err != nil {
		return nil, err
	}
	return &LargeProblem{ID: id, Rows: rows, Cols: cols, start: largeState(tiles), g: largeGeometryOf(rows, cols)}, nil
}

// checkTiles returns an error unless tiles is a solvable arrangement of
// a rows×cols board of at most MaxLargeCells cells.
func checkTiles(rows, cols int, tiles []int) error {
	n := rows * cols
	if len(tiles) != n {
		return fmt.Errorf("%d tiles for %dx%d cells, want %d", len(tiles), rows, cols, n)
	}
	var seen uint64
	for _, t := range tiles {
		if t < 0 || t >= n {
			return fmt.Errorf("tile %d out of range 0 to %d", t, n-1)
		}
		if seen&(1<<t) != 0 {
			return fmt.Errorf("tile %d appears twice", t)
		}
		seen |= 1 << t
	}
	if !Solvable(rows, cols, tiles) {
		return ErrUnsolvable
	}
	return nil
}

// Tiles returns the arrangement of s: the tile of each cell.
func (p *LargeProblem) Tiles(s LargeState) []int {
	t := make([]int, p.g.n)
	for i := range t {
		t[i] = s.At(i)
	}
	return t
}

// Root returns the start.
func (p *LargeProblem) Root() LargeState { return p.start }

// Goal returns the goal: the blank in cell 0 and tile i in cell i.
func (p *LargeProblem) Goal() LargeState { return p.g.goal }

// NumActions returns 4.
func (p *LargeProblem) NumActions() int { return 4 }

// ActionName returns the name of action a, a move of the blank: "U", "D",
// "L" or "R".
func (p *LargeProblem) ActionName(a int) string { return "UDLR"[a : a+1] }

// Apply moves the blank in direction a (Up, Down, Left or Right) and
// reports true, or returns the zero LargeState and false if the blank
// would leave the grid or a is not an action.
func (p *LargeProblem) Apply(s LargeState, a int) (LargeState, bool) {
	b := s.Blank()
	to := int(p.g.move[b][a&3])
	if to < 0 || uint(a) > 3 {
		return LargeState{}, false
	}
	s.cells[b], s.cells[to] = s.cells[to], 0
	return s, true
}

// IsGoal reports whether s is the goal.
func (p *LargeProblem) IsGoal(s LargeState) bool { return s == p.g.goal }

// Heuristic returns the Manhattan distance of s: the sum over the tiles,
// not the blank, of the distances between their cells and their goal
// cells. It is admissible and consistent.
func (p *LargeProblem) Heuristic(s LargeState) float64 {
	dist := &p.g.dist
	h := 0
	for i, t := range s.cells[:p.g.n] {
		h += int(dist[int(t&63)<<6|i])
	}
	return float64(h)
}

// InputShape returns rows·cols one-hot planes of rows×cols cells.
func (p *LargeProblem) InputShape() (c, h, w int) { return p.g.n, p.Rows, p.Cols }

// Encode writes the one-hot encoding of s to dst, of length (rows·cols)²,
// as Problem.Encode does.
func (p *LargeProblem) Encode(s LargeState, dst []float32) {
	n := p.g.n
	dst = dst[:n*n]
	clear(dst)
	for i, t := range s.cells[:n] {
		dst[int(t)%n*n+i] = 1
	}
}

// Render draws s as a grid of numbers, right-aligned, the blank as '.'.
func (p *LargeProblem) Render(s LargeState) string { return render(p.Rows, p.Cols, s.At) }

// String returns the start in the file format (see Parse): the tiles
// separated by spaces, after "RxC:" when the grid is not square.
func (p *LargeProblem) String() string {
	return string(p.appendText(nil))
}

func (p *LargeProblem) appendText(b []byte) []byte {
	if p.Rows != p.Cols {
		b = fmt.Appendf(b, "%dx%d: ", p.Rows, p.Cols)
	}
	for i := range p.g.n {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(p.start.At(i)), 10)
	}
	return b
}
