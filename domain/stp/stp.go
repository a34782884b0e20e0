// Package stp implements the sliding-tile puzzle on a grid of rows×cols
// cells, from 2x2 up to MaxLargeCells cells: tiles 1 to rows·cols−1 and a
// blank (0). The actions move the blank up (0), down (1), left (2) or right
// (3); the goal has the blank at cell 0 and tile i at cell i, cells
// numbered row-major from the top left.
//
// A puzzle is a Problem[S], where S, its state type, is one of two compact
// values that are their own keys: State, 16 bytes, for boards of up to
// MaxCells cells (5x5, 4x6, 3x8, 2x12, ...), or LargeState, 64 bytes, for
// boards of up to MaxLargeCells (6x6, 7x7, 8x8, ...; any size, in fact).
// The smaller State makes searches faster and smaller; everything else is
// the same for both: one set of functions (New, Parse, ParseFirst,
// ReadFile, Write, GenerateRandom, GenerateWalk, CheckSize), instantiated
// with the state type (Parse[State](r, name), Parse[LargeState](r, name)),
// reads and writes the same files. A Problem
// implements search.Heuristic with the Manhattan distance, search.Encoder
// with one-hot planes, one per tile, and the contexts of a context model
// (package cm: ContextLayout, Contexts).
//
// A caller that does not know the sizes of a file's boards in advance
// reads it with State and, if the error wraps ErrLarge (a board of more
// than MaxCells cells), again with LargeState.
package stp

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Actions: the direction in which the blank moves.
const (
	Up = iota
	Down
	Left
	Right
)

// An Arrangement is a state type of the puzzle, whose values are
// arrangements of the tiles: State, for boards of up to MaxCells cells, or
// LargeState, for boards of up to MaxLargeCells. Its type parameter is the
// type itself, as in Problem[S Arrangement[S]]: code that is generic over
// both takes such an S. No other type satisfies it: its methods other
// than At and Blank are unexported.
type Arrangement[S any] interface {
	State | LargeState
	// At returns the tile in cell i (0 for the blank).
	At(i int) int
	// Blank returns the cell of the blank.
	Blank() int

	// capacity returns the largest number of cells an S holds.
	capacity() int
	// tiles returns the tile of each cell; the entries past the board's
	// cells are unspecified.
	tiles() [MaxLargeCells]uint8
	// apply moves the blank in direction a on a board of geometry g, or
	// returns the zero S and false if the blank would leave the grid or a
	// is not an action.
	apply(g *geometry, a int) (S, bool)
	// manhattan returns the Manhattan distance on a board of geometry g.
	manhattan(g *geometry) int
}

// A geometry holds the tables of one grid size, shared by its puzzles of
// both state types.
type geometry struct {
	n int // rows·cols
	// move[b][a] is the cell the blank moves to from cell b under action
	// a, or -1. Rows from n on are -1 too.
	move [MaxLargeCells + 1][4]int8
	// dist[t<<6|i] is the Manhattan distance of tile t in cell i from its
	// goal cell t; 0 for the blank.
	dist [MaxLargeCells * MaxLargeCells]uint8
	// The goal, as a State (if n ≤ MaxCells) and as a LargeState.
	goal      State
	largeGoal LargeState
}

var geometries sync.Map // [2]int{rows, cols} → *geometry

// geometryOf returns the tables of the size rows×cols, which
// CheckSize[LargeState] accepts.
func geometryOf(rows, cols int) *geometry {
	key := [2]int{rows, cols}
	if g, ok := geometries.Load(key); ok {
		return g.(*geometry)
	}
	n := rows * cols
	g := &geometry{n: n}
	for b := range g.move {
		r, c := b/cols, b%cols
		g.move[b] = [4]int8{-1, -1, -1, -1}
		if b >= n {
			continue
		}
		if r > 0 {
			g.move[b][Up] = int8(b - cols)
		}
		if r < rows-1 {
			g.move[b][Down] = int8(b + cols)
		}
		if c > 0 {
			g.move[b][Left] = int8(b - 1)
		}
		if c < cols-1 {
			g.move[b][Right] = int8(b + 1)
		}
	}
	for t := 1; t < n; t++ {
		for i := range n {
			g.dist[t<<6|i] = uint8(abs(i/cols-t/cols) + abs(i%cols-t%cols))
		}
	}
	if n <= MaxCells {
		g.goal = arrange[State](goalTiles[:n])
	}
	g.largeGoal = arrange[LargeState](goalTiles[:n])
	actual, _ := geometries.LoadOrStore(key, g)
	return actual.(*geometry)
}

// goalTiles has tile i in cell i: the goal.
var goalTiles = func() (t [MaxLargeCells]int) {
	for i := range t {
		t[i] = i
	}
	return t
}()

// arrange returns the S with tile tiles[i] in cell i; tiles has at most as
// many entries as an S holds, each below MaxLargeCells. (Static calls, which
// keep tiles on the caller's stack.)
func arrange[S Arrangement[S]](tiles []int) S {
	var s S
	switch p := any(&s).(type) {
	case *State:
		for i, t := range tiles {
			p.set(i, t)
		}
	case *LargeState:
		*p = largeState(tiles)
	}
	return s
}

// ErrLarge is wrapped by the errors of CheckSize[State], and so of New,
// Parse, ParseFirst and ReadFile with State, about a board of more than
// MaxCells cells and at most MaxLargeCells: a board for LargeState.
var ErrLarge = errors.New("a board for LargeState")

// CheckSize returns an error unless rows×cols is a size whose arrangements
// S holds: at least 2x2, and at most MaxCells cells for State,
// MaxLargeCells for LargeState. The error about a size that only
// LargeState holds wraps ErrLarge; that about a size that neither holds
// names the larger limit, MaxLargeCells.
func CheckSize[S Arrangement[S]](rows, cols int) error {
	var s S
	return checkSize(rows, cols, s.capacity())
}

// checkSize is CheckSize for a state type that holds up to capacity cells.
func checkSize(rows, cols, capacity int) error {
	if rows < 2 || cols < 2 {
		return fmt.Errorf("size %dx%d: want at least 2x2", rows, cols)
	}
	if rows > MaxLargeCells || cols > MaxLargeCells || rows*cols > MaxLargeCells {
		return fmt.Errorf("size %dx%d: more than %d cells", rows, cols, MaxLargeCells)
	}
	if rows*cols > capacity {
		return fmt.Errorf("size %dx%d: more than %d cells: %w", rows, cols, capacity, ErrLarge)
	}
	return nil
}

// A Problem is one puzzle: a grid size and a start arrangement, of state
// type S (State or LargeState). It implements search.Heuristic[S],
// search.Encoder[S] and search.ActionNamer[S]. Its methods are safe for
// concurrent use; its fields are read-only.
type Problem[S Arrangement[S]] struct {
	// ID is "<file base name>#<index>" for a puzzle read from a file (the
	// index counts puzzles from 0), empty for a generated one.
	ID          string
	Rows, Cols  int
	start, goal S
	g           *geometry
}

// ErrUnsolvable is wrapped by the errors about arrangements from which the
// goal cannot be reached.
var ErrUnsolvable = errors.New("unsolvable: the parity of the permutation differs from the parity of the blank's distance to cell 0")

// New returns the puzzle of rows×cols cells, with state type S, whose
// start has tile tiles[i] in cell i. It is an error if CheckSize[S]
// rejects the size (the error about a board too large for State wraps
// ErrLarge), if tiles is not a permutation of 0 to rows·cols−1, or if the
// goal cannot be reached from it (the error then wraps ErrUnsolvable).
func New[S Arrangement[S]](rows, cols int, tiles []int, id string) (*Problem[S], error) {
	p, err := newProblem[S](rows, cols, tiles, id)
	if err != nil {
		return nil, fmt.Errorf("stp: %w", err)
	}
	return p, nil
}

func newProblem[S Arrangement[S]](rows, cols int, tiles []int, id string) (*Problem[S], error) {
	if err := CheckSize[S](rows, cols); err != nil {
		return nil, err
	}
	if err := checkTiles(rows, cols, tiles); err != nil {
		return nil, err
	}
	p := goalProblem[S](rows, cols)
	p.ID = id
	p.start = arrange[S](tiles)
	return p, nil
}

// goalProblem returns the puzzle of size rows×cols, which CheckSize[S]
// accepts, that starts at the goal.
func goalProblem[S Arrangement[S]](rows, cols int) *Problem[S] {
	g := geometryOf(rows, cols)
	p := &Problem[S]{Rows: rows, Cols: cols, g: g}
	switch goal := any(&p.goal).(type) {
	case *State:
		*goal = g.goal
	case *LargeState:
		*goal = g.largeGoal
	}
	p.start = p.goal
	return p
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

// Tiles returns the arrangement s: the tile of each cell, a new slice of
// rows·cols entries.
func (p *Problem[S]) Tiles(s S) []int {
	c := s.tiles()
	t := make([]int, p.g.n)
	for i := range t {
		t[i] = int(c[i])
	}
	return t
}

// Root returns the start.
func (p *Problem[S]) Root() S { return p.start }

// Goal returns the goal: the blank in cell 0 and tile i in cell i.
func (p *Problem[S]) Goal() S { return p.goal }

// NumActions returns 4.
func (p *Problem[S]) NumActions() int { return 4 }

// ActionName returns the name of action a, a move of the blank: "U", "D",
// "L" or "R".
func (p *Problem[S]) ActionName(a int) string { return "UDLR"[a : a+1] }

// Apply moves the blank in direction a (Up, Down, Left or Right) and
// reports true, or returns the zero S and false if the blank would leave
// the grid or a is not an action. It allocates nothing.
func (p *Problem[S]) Apply(s S, a int) (S, bool) { return s.apply(p.g, a) }

// ApplyDelta is Apply that also returns the change of the Heuristic from s
// to the successor (−1 or +1), for searches that keep h incrementally.
// It allocates nothing.
func (p *Problem[S]) ApplyDelta(s S, a int) (next S, dh int, ok bool) {
	next, ok = s.apply(p.g, a)
	if !ok {
		return next, 0, false
	}
	// The tile in cell to, the blank's new cell, moves into cell b.
	b, to := s.Blank(), next.Blank()
	x := next.At(b) & 63
	return next, int(p.g.dist[x<<6|b&63]) - int(p.g.dist[x<<6|to&63]), true
}

// IsGoal reports whether s is the goal.
func (p *Problem[S]) IsGoal(s S) bool { return s == p.goal }

// Heuristic returns the Manhattan distance of s: the sum over the tiles,
// not the blank, of the distances between their cells and their goal
// cells. It is admissible and consistent, costs O(rows·cols) and allocates
// nothing.
func (p *Problem[S]) Heuristic(s S) float64 {
	return float64(s.manhattan(p.g))
}

// InputShape returns rows·cols one-hot planes of rows×cols cells.
func (p *Problem[S]) InputShape() (c, h, w int) { return p.g.n, p.Rows, p.Cols }

// Encode writes the one-hot encoding of s to dst, of length at least
// (rows·cols)²: plane t has a 1 at the cell of tile t (plane 0: the blank)
// and zeros elsewhere. Cells are row-major within a plane. It allocates
// nothing.
func (p *Problem[S]) Encode(s S, dst []float32) {
	n := p.g.n
	clear(dst[:n*n])
	var buf [MaxLargeCells]int32
	for _, j := range p.AppendOnes(s, buf[:0]) {
		dst[j] = 1
	}
}

// AppendOnes appends to dst the places of the rows·cols ones of Encode's
// encoding of s, one a cell, and returns the extended slice.
func (p *Problem[S]) AppendOnes(s S, dst []int32) []int32 {
	n := p.g.n
	c := s.tiles()
	for i, t := range c[:n] {
		dst = append(dst, int32(int(t)*n+i))
	}
	return dst
}

// Render draws s as a grid of numbers, right-aligned, the blank as '.'.
func (p *Problem[S]) Render(s S) string {
	var b strings.Builder
	c := s.tiles()
	n := p.g.n
	width := len(strconv.Itoa(n - 1))
	for i, t := range c[:n] {
		if i%p.Cols != 0 {
			b.WriteByte(' ')
		}
		cell := "."
		if t != 0 {
			cell = strconv.Itoa(int(t))
		}
		b.WriteString(strings.Repeat(" ", width-len(cell)))
		b.WriteString(cell)
		if i%p.Cols == p.Cols-1 && i != n-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// String returns the start in the file format (see Parse): the tiles
// separated by spaces, after "RxC:" when the grid is not square.
func (p *Problem[S]) String() string {
	return string(p.appendText(nil))
}

func (p *Problem[S]) appendText(b []byte) []byte {
	if p.Rows != p.Cols {
		b = fmt.Appendf(b, "%dx%d: ", p.Rows, p.Cols)
	}
	c := p.start.tiles()
	for i, t := range c[:p.g.n] {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(t), 10)
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
