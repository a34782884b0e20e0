// Package sokoban implements Sokoban as in the Boxoban levels used by
// Orseau & Lelis (2021): the player moves up (0), down (1), left (2) or
// right (3) and pushes, never pulls, the box in front of it; a move into a
// wall, or a push of a box into a wall or another box, is illegal; the
// level is solved when every box is on a goal. Every move costs 1.
package sokoban

import (
	"fmt"
	"math/bits"
	"strings"
)

// MaxCells is the largest number of cells of a level: a State packs the
// boxes into 128 bits.
const MaxCells = 128

// Actions.
const (
	Up = iota
	Down
	Left
	Right
)

// A State is the player's cell and the set of cells holding a box.
type State struct {
	boxes  [2]uint64
	player uint8
}

// Player returns the player's cell, row-major.
func (s State) Player() int { return int(s.player) }

// Box reports whether cell i holds a box.
func (s State) Box(i int) bool { return s.boxes[i/64]&(1<<(i%64)) != 0 }

// A Problem is one level. It implements search.Heuristic[State] and
// search.Encoder[State].
type Problem struct {
	// ID is "<file base name>#<index>": the "; N" number of the level, or
	// its position in the file, from 0, for files without those lines.
	ID         string
	Rows, Cols int
	walls      [2]uint64
	goals      [2]uint64
	start      State
	// next[4*i+a] is the cell next to i in direction a, or -1 for a wall
	// or the border.
	next []int16
	// dist[i] is the Manhattan distance from cell i to the nearest goal.
	dist []uint8
}

func bit(set [2]uint64, i int) bool { return set[i/64]&(1<<(i%64)) != 0 }

func setBit(set *[2]uint64, i int) { set[i/64] |= 1 << (i % 64) }

// init builds the tables of a level read into p.
func (p *Problem) init() {
	n := p.Rows * p.Cols
	p.next = make([]int16, 4*n)
	p.dist = make([]uint8, n)
	for i := range n {
		r, c := i/p.Cols, i%p.Cols
		for a, d := range [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
			nr, nc := r+d[0], c+d[1]
			j := nr*p.Cols + nc
			if nr < 0 || nr >= p.Rows || nc < 0 || nc >= p.Cols || bit(p.walls, j) {
				p.next[4*i+a] = -1
			} else {
				p.next[4*i+a] = int16(j)
			}
		}
		best := 255
		for g := range n {
			if bit(p.goals, g) {
				best = min(best, abs(g/p.Cols-r)+abs(g%p.Cols-c))
			}
		}
		p.dist[i] = uint8(best)
	}
}

// Root returns the start.
func (p *Problem) Root() State { return p.start }

// NumActions returns 4.
func (p *Problem) NumActions() int { return 4 }

// Apply moves the player in direction a, pushing a box if there is one.
func (p *Problem) Apply(s State, a int) (State, bool) {
	if a < 0 || a > 3 {
		return State{}, false
	}
	to := p.next[4*int(s.player)+a]
	if to < 0 {
		return State{}, false
	}
	if s.Box(int(to)) {
		beyond := p.next[4*int(to)+a]
		if beyond < 0 || s.Box(int(beyond)) {
			return State{}, false
		}
		s.boxes[to/64] &^= 1 << (to % 64)
		setBit(&s.boxes, int(beyond))
	}
	s.player = uint8(to)
	return s, true
}

// IsGoal reports whether every box is on a goal.
func (p *Problem) IsGoal(s State) bool { return s.boxes == p.goals }

// Heuristic returns the sum over the boxes of the Manhattan distance to the
// nearest goal.
func (p *Problem) Heuristic(s State) float64 {
	h := 0
	for w, set := range s.boxes {
		for set != 0 {
			h += int(p.dist[64*w+bits.TrailingZeros64(set)])
			set &= set - 1
		}
	}
	return float64(h)
}

// Planes of the encoding.
const (
	PlaneWall = iota
	PlanePlayer
	PlaneBox
	PlaneGoal
)

// InputShape returns 4 planes of rows×cols.
func (p *Problem) InputShape() (c, h, w int) { return 4, p.Rows, p.Cols }

// Encode writes the wall, player, box and goal planes of s to dst, in CHW
// order.
func (p *Problem) Encode(s State, dst []float32) {
	n := p.Rows * p.Cols
	clear(dst[:4*n])
	for i := range n {
		if bit(p.walls, i) {
			dst[PlaneWall*n+i] = 1
		}
		if bit(s.boxes, i) {
			dst[PlaneBox*n+i] = 1
		}
		if bit(p.goals, i) {
			dst[PlaneGoal*n+i] = 1
		}
	}
	dst[PlanePlayer*n+int(s.player)] = 1
}

// Render draws s in the usual notation: # wall, @ player, + player on a
// goal, $ box, * box on a goal, . goal.
func (p *Problem) Render(s State) string {
	var b strings.Builder
	for i := range p.Rows * p.Cols {
		if i > 0 && i%p.Cols == 0 {
			b.WriteByte('\n')
		}
		goal := bit(p.goals, i)
		switch {
		case bit(p.walls, i):
			b.WriteByte('#')
		case i == int(s.player) && goal:
			b.WriteByte('+')
		case i == int(s.player):
			b.WriteByte('@')
		case s.Box(i) && goal:
			b.WriteByte('*')
		case s.Box(i):
			b.WriteByte('$')
		case goal:
			b.WriteByte('.')
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// String returns the level in the file format, with a "; N" line from its
// ID.
func (p *Problem) String() string {
	_, idx, _ := strings.Cut(p.ID, "#")
	return fmt.Sprintf("; %s\n%s", idx, p.Render(p.start))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
