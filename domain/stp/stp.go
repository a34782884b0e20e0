// Package stp implements the sliding-tile puzzle on a grid of rows×cols
// cells, from 2x2 up to MaxLargeCells cells: tiles 1 to rows·cols−1 and a
// blank (0). The actions move the blank up (0), down (1), left (2) or right
// (3); the goal has the blank at cell 0 and tile i at cell i, cells
// numbered row-major from the top left.
//
// A board has one of two state types, each a compact value that is its
// own key: a Problem, of up to MaxCells cells (5x5, 4x6, 3x8, 2x12, ...),
// has the 16-byte State; a LargeProblem, of up to MaxLargeCells (6x6, 7x7,
// 8x8, ...; any size, in fact), has the 64-byte LargeState. Each
// implements search.Heuristic with the Manhattan distance,
// search.Encoder with one-hot planes, one per tile, and the contexts of a
// context model (package cm: ContextLayout, Contexts); Parse and
// ParseLarge read the same files.
package stp

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"sync"
)

// MaxCells is the largest number of cells a State holds: 25 tiles of 5 bits
// in 128 bits.
const MaxCells = 25

// Actions: the direction in which the blank moves.
const (
	Up = iota
	Down
	Left
	Right
)

// A State is an arrangement of the tiles: the tile in cell i is held in
// bits 5i to 5i+4 of the 128-bit number hi·2⁶⁴ + lo (cell 12 straddles the
// two words); the bits above the last cell are zero. The blank's cell is not
// stored: it is the lowest cell whose field is zero, found with a few word
// operations. A State is 16 bytes and its own key.
type State struct {
	lo, hi uint64
}

const (
	mask60 = 1<<60 - 1
	// ones5 has bit 5i set for i < 12: the low bit of each field of a word.
	ones5 = mask60 / 31
	low4  = 15 * ones5 // the low 4 bits of each field
	high1 = 16 * ones5 // the high bit of each field
)

// At returns the tile in cell i (0 for the blank), for 0 ≤ i < MaxCells.
func (s State) At(i int) int { return int(s.field(uint(5 * i))) }

// field returns the 5 bits from bit k, k < 128.
func (s State) field(k uint) uint64 {
	// Shifts by 64 or more give 0, so exactly one or two terms are non-zero.
	return (s.lo>>k | s.hi<<(64-k) | s.hi>>(k-64)) & 31
}

// Blank returns the cell of the blank.
func (s State) Blank() int {
	if z := zeroField(s.lo); z < 12 {
		return z
	}
	if s.field(60) == 0 {
		return 12
	}
	return 13 + zeroField(s.hi>>1)
}

// zeroField returns the index of the lowest zero field among the twelve
// 5-bit fields in the low 60 bits of x, or 12 if there is none.
func zeroField(x uint64) int {
	x &= mask60
	// Adding 15 to the low 4 bits of a field carries into its high bit if
	// and only if they are not all zero: no carry leaves a field.
	nonzero := ((x & low4) + low4 | x) & high1
	return bits.TrailingZeros64(high1&^nonzero) / 5
}

// shl returns the 128-bit number x·2^k as (lo, hi), for k < 128.
func shl(x uint64, k uint) (lo, hi uint64) {
	return x << k, x<<(k-64) | x>>(64-k)
}

func (s *State) set(i, tile int) {
	k := uint(5 * i)
	lo, hi := shl(s.field(k)^uint64(tile), k)
	s.lo ^= lo
	s.hi ^= hi
}

// A geometry holds the tables of one grid size, shared by its puzzles.
type geometry struct {
	rows, cols, n int
	// move[b][a] is the cell the blank moves to from cell b under action
	// a, or -1. Rows past n are -1 too.
	move [32][4]int8
	// dist[t<<5|i] is the Manhattan distance of tile t in cell i from its
	// goal cell t; 0 for the blank.
	dist [32 * 32]uint8
	goal State
}

var geometries sync.Map // [2]int{rows, cols} → *geometry

// geometryOf returns the tables of the size rows×cols, which CheckSize
// accepts.
func geometryOf(rows, cols int) *geometry {
	key := [2]int{rows, cols}
	if g, ok := geometries.Load(key); ok {
		return g.(*geometry)
	}
	g := &geometry{rows: rows, cols: cols, n: rows * cols}
	fillTables(rows, cols, 5, g.move[:], g.dist[:])
	for i := range g.n {
		g.goal.set(i, i)
	}
	actual, _ := geometries.LoadOrStore(key, g)
	return actual.(*geometry)
}

// fillTables fills the tables of a geometry of size rows×cols: move[b][a]
// is the cell the blank moves to from cell b under action a, or -1 (for
// every b, also those past the board), and dist[t<<shift|i] the Manhattan
// distance of tile t in cell i from its goal cell t (0 for the blank).
func fillTables(rows, cols int, shift uint, move [][4]int8, dist []uint8) {
	n := rows * cols
	for b := range move {
		r, c := b/cols, b%cols
		move[b] = [4]int8{-1, -1, -1, -1}
		if b >= n {
			continue
		}
		if r > 0 {
			move[b][Up] = int8(b - cols)
		}
		if r < rows-1 {
			move[b][Down] = int8(b + cols)
		}
		if c > 0 {
			move[b][Left] = int8(b - 1)
		}
		if c < cols-1 {
			move[b][Right] = int8(b + 1)
		}
	}
	for t := 1; t < n; t++ {
		for i := range n {
			dist[t<<shift|i] = uint8(abs(i/cols-t/cols) + abs(i%cols-t%cols))
		}
	}
}

// CheckSize returns an error unless rows×cols is a size a Problem holds:
// at least 2x2 and at most MaxCells cells. The error about a size that
// only a LargeProblem holds wraps ErrLarge; that about a size that
// neither holds is CheckLargeSize's, which names the larger limit.
func CheckSize(rows, cols int) error {
	if rows < 2 || cols < 2 {
		return fmt.Errorf("size %dx%d: want at least 2x2", rows, cols)
	}
	if rows > MaxCells || cols > MaxCells || rows*cols > MaxCells {
		if err := CheckLargeSize(rows, cols); err != nil {
			return err
		}
		return fmt.Errorf("size %dx%d: more than %d cells: %w", rows, cols, MaxCells, ErrLarge)
	}
	return nil
}

// ErrLarge is wrapped by the errors about a board of more than MaxCells
// cells, which a LargeProblem holds but a Problem does not.
var ErrLarge = errors.New("a board for a LargeProblem")

// A Problem is one puzzle: a grid size and a start arrangement. It
// implements search.Heuristic[State] and search.Encoder[State]. Its methods
// are safe for concurrent use; its fields are read-only.
type Problem struct {
	// ID is "<file base name>#<index>" for a puzzle read from a file (the
	// index counts puzzles from 0), empty for a generated one.
	ID         string
	Rows, Cols int
	start      State
	g          *geometry
}

// ErrUnsolvable is wrapped by the errors about arrangements from which the
// goal cannot be reached.
var ErrUnsolvable = errors.New("unsolvable: the parity of the permutation differs from the parity of the blank's distance to cell 0")

// New returns the puzzle of rows×cols cells whose start has tile tiles[i]
// in cell i. It is an error if the size is not one CheckSize accepts, if
// tiles is not a permutation of 0 to rows·cols−1, or if the goal cannot be
// reached from it (the error then wraps ErrUnsolvable).
func New(rows, cols int, tiles []int, id string) (*Problem, error) {
	p, err := newProblem(rows, cols, tiles, id)
	if err != nil {
		return nil, fmt.Errorf("stp: %w", err)
	}
	return p, nil
}

func newProblem(rows, cols int, tiles []int, id string) (*Problem, error) {
	if err := CheckSize(rows, cols); err != nil {
		return nil, err
	}
	if err := checkTiles(rows, cols, tiles); err != nil {
		return nil, err
	}
	p := &Problem{ID: id, Rows: rows, Cols: cols}
	for i, t := range tiles {
		p.start.set(i, t)
	}
	p.g = geometryOf(rows, cols)
	return p, nil
}

// Solvable reports whether the goal can be reached from the arrangement
// tiles (tiles[i] is the tile in cell i) of a rows×cols puzzle; tiles must
// be a permutation of 0 to rows·cols−1.
//
// A move swaps the blank with a neighbour: it changes the parity of the
// permutation (the blank counted as tile 0) and the parity of the blank's
// Manhattan distance from cell 0, which are equal in the goal. On a grid of
// at least 2x2, the arrangements where they are equal are exactly those
// from which the goal can be reached. (This is the textbook rule — odd
// width: even inversions among the tiles; even width: inversions plus the
// blank's row even — for this goal, with the blank's row counted from the
// top.)
func Solvable(rows, cols int, tiles []int) bool {
	inversions := 0
	blank := 0
	for i, t := range tiles {
		if t == 0 {
			blank = i
		}
		for _, u := range tiles[i+1:] {
			if t > u {
				inversions++
			}
		}
	}
	return inversions%2 == (blank/cols+blank%cols)%2
}

// Tiles returns the arrangement of s: the tile of each cell.
func (p *Problem) Tiles(s State) []int {
	t := make([]int, p.g.n)
	for i := range t {
		t[i] = s.At(i)
	}
	return t
}

// Root returns the start.
func (p *Problem) Root() State { return p.start }

// Goal returns the goal: the blank in cell 0 and tile i in cell i.
func (p *Problem) Goal() State { return p.g.goal }

// NumActions returns 4.
func (p *Problem) NumActions() int { return 4 }

// ActionName returns the name of action a, a move of the blank: "U", "D", "L"
// or "R".
func (p *Problem) ActionName(a int) string { return "UDLR"[a : a+1] }

// Apply moves the blank in direction a (Up, Down, Left or Right) and
// reports true, or returns the zero State and false if the blank would
// leave the grid or a is not an action.
func (p *Problem) Apply(s State, a int) (State, bool) {
	next, _, _, _, ok := p.slide(s, a)
	return next, ok
}

// ApplyDelta is Apply that also returns the change of the Heuristic from s
// to the successor (−1 or +1), for searches that keep h incrementally.
func (p *Problem) ApplyDelta(s State, a int) (next State, dh int, ok bool) {
	next, x, b, to, ok := p.slide(s, a)
	if !ok {
		return State{}, 0, false
	}
	return next, int(p.g.dist[x<<5|uint64(b)]) - int(p.g.dist[x<<5|uint64(to)]), true
}

// slide moves the blank of s from cell b to cell to in direction a: tile x
// moves from cell to into cell b, whose field is 0.
func (p *Problem) slide(s State, a int) (next State, x uint64, b, to int, ok bool) {
	b = s.Blank()
	to = int(p.g.move[b&31][a&3])
	if to < 0 || uint(a) > 3 {
		return State{}, 0, 0, 0, false
	}
	k := uint(5 * to)
	x = s.field(k)
	lo1, hi1 := shl(x, k)
	lo2, hi2 := shl(x, uint(5*b))
	return State{s.lo ^ lo1 ^ lo2, s.hi ^ hi1 ^ hi2}, x, b, to, true
}

// IsGoal reports whether s is the goal.
func (p *Problem) IsGoal(s State) bool { return s == p.g.goal }

// Heuristic returns the Manhattan distance of s: the sum over the tiles,
// not the blank, of the distances between their cells and their goal cells.
// It is admissible and consistent.
func (p *Problem) Heuristic(s State) float64 {
	return float64(p.manhattan(s))
}

func (p *Problem) manhattan(s State) int {
	dist := &p.g.dist
	n := p.g.n
	h := 0
	// Cells 0 to 11 from lo, 12 from both words, 13 to 24 from hi.
	lo := s.lo
	for i := range min(n, 12) {
		h += int(dist[(lo>>(5*i)&31)<<5|uint64(i)])
	}
	if n > 12 {
		h += int(dist[s.field(60)<<5|12])
		hi := s.hi >> 1
		for i := range n - 13 {
			h += int(dist[(hi>>(5*i)&31)<<5|uint64(13+i)])
		}
	}
	return h
}

// InputShape returns rows·cols one-hot planes of rows×cols cells.
func (p *Problem) InputShape() (c, h, w int) { return p.g.n, p.Rows, p.Cols }

// Encode writes the one-hot encoding of s to dst, of length (rows·cols)²:
// plane t has a 1 at the cell of tile t (plane 0: the blank) and zeros
// elsewhere. Cells are row-major within a plane.
func (p *Problem) Encode(s State, dst []float32) {
	n := p.g.n
	dst = dst[:n*n]
	clear(dst)
	lo, hi := s.lo, s.hi
	for i := range n {
		dst[int(lo&31)*n+i] = 1
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
}

// Render draws s as a grid of numbers, right-aligned, the blank as '.'.
func (p *Problem) Render(s State) string { return render(p.Rows, p.Cols, s.At) }

// render draws the rows×cols board whose cell i holds tile at(i).
func render(rows, cols int, at func(int) int) string {
	var b strings.Builder
	n := rows * cols
	width := len(strconv.Itoa(n - 1))
	for i := range n {
		if i%cols != 0 {
			b.WriteByte(' ')
		}
		cell := "."
		if t := at(i); t != 0 {
			cell = strconv.Itoa(t)
		}
		b.WriteString(strings.Repeat(" ", width-len(cell)))
		b.WriteString(cell)
		if i%cols == cols-1 && i != n-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// String returns the start in the file format (see Parse): the tiles
// separated by spaces, after "RxC:" when the grid is not square.
func (p *Problem) String() string {
	return string(p.appendText(nil))
}

func (p *Problem) appendText(b []byte) []byte {
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

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// InitialBudget is the paper's initial expansion budget of the Bootstrap
// process and test for the sliding-tile puzzle.
const InitialBudget = 7000
