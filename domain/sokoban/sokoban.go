// Package sokoban implements Sokoban as in the Boxoban levels used by
// Orseau & Lelis (2021).
//
// The player moves up (0), down (1), left (2) or right (3) and pushes, never
// pulls, the box in front of it. A move into a wall, or a push of a box into
// a wall or another box, is illegal; the border of the grid acts as a wall.
// The level is solved when every box is on a goal. Every move costs 1.
//
// A level may have any shape of at most MaxCells cells (Boxoban levels are
// 10x10). Cells are numbered row-major from 0.
//
// Problem.PruneDeadlocks gives a copy of a level that also refuses the
// pushes into four kinds of deadlock, which no solution makes.
package sokoban

import (
	"math/bits"
	"strings"
)

// MaxCells is the largest number of cells (rows × columns) of a level: a
// State packs the boxes of a level into 128 bits.
const MaxCells = 128

// Actions, the same in every domain of phs.
const (
	Up = iota
	Down
	Left
	Right
)

// A State is the player's cell and the set of cells that hold a box: the
// boxes as a 128-bit set (cell i is bit i%64 of boxes[i/64]) and the player
// as a cell number. It is a comparable value of 24 bytes, its own key for
// duplicate detection. Walls and goals do not change and live in the
// Problem.
type State struct {
	boxes  [2]uint64
	player uint8
}

// Player returns the player's cell, row-major.
func (s State) Player() int { return int(s.player) }

// Box reports whether cell i holds a box.
func (s State) Box(i int) bool { return uint(i) < MaxCells && has(s.boxes, i) }

// A Problem is one level: its walls, goals and start state, with tables
// computed once by Parse so that Apply, Heuristic and Encode allocate
// nothing. A *Problem implements search.Heuristic[State],
// search.Encoder[State] and the contexts of a context model (package cm:
// ContextLayout, Contexts). It is safe for concurrent use.
type Problem struct {
	// ID is "<file base name>#<N>", where N is the number of the level's
	// "; N" line, or the level's position in the file, from 0, for a level
	// without such a line.
	ID string

	label        string // N of ID
	rows, cols   int
	walls, goals [2]uint64
	start        State
	// next[4*i+a] is the cell next to cell i in direction a, or noCell for
	// a wall or the border.
	next []uint8
	// dist[i] is the Manhattan distance from cell i to the nearest goal.
	dist []uint8
	// prune is set by PruneDeadlocks, and reach[i] then holds the goals
	// onto which a box alone can be pushed from cell i, as a set of their
	// numbers (the k-th goal in cell order is bit k); none on a dead
	// square.
	prune bool
	reach [][2]uint64
	// live[i] numbers the live cells, those that are not dead squares, in
	// cell order (liveCells[live[i]] == i); noCell on a dead square.
	live, liveCells []uint8
	// subsets[k-1] is the table of the sub-levels of k boxes
	// (solvableSubsets), for k up to maxSubset and fewer than the level's
	// boxes; nil where it would be too large.
	subsets [][]uint64
}

// noCell marks a move off the floor in Problem.next; MaxCells ≤ noCell.
const noCell = 0xff

func has(set [2]uint64, i int) bool { return set[i>>6]&(1<<(i&63)) != 0 }

func setBit(set *[2]uint64, i int) { set[i>>6] |= 1 << (i & 63) }

// init computes p's tables from its size, walls and goals.
func (p *Problem) init() {
	n := p.rows * p.cols
	tables := make([]uint8, 5*n)
	p.next, p.dist = tables[:4*n:4*n], tables[4*n:]
	for i := range n {
		r, c := i/p.cols, i%p.cols
		for a, d := range [4][2]int{Up: {-1, 0}, Down: {1, 0}, Left: {0, -1}, Right: {0, 1}} {
			nr, nc := r+d[0], c+d[1]
			j := nr*p.cols + nc
			p.next[4*i+a] = noCell
			if nr >= 0 && nr < p.rows && nc >= 0 && nc < p.cols && !has(p.walls, j) {
				p.next[4*i+a] = uint8(j)
			}
		}
		best := 2 * MaxCells // more than any distance; there is a goal
		for w, set := range p.goals {
			for ; set != 0; set &= set - 1 {
				g := 64*w + bits.TrailingZeros64(set)
				best = min(best, abs(g/p.cols-r)+abs(g%p.cols-c))
			}
		}
		p.dist[i] = uint8(best)
	}
}

// PruneDeadlocks returns a copy of p whose Apply also refuses a push that
// makes the level unsolvable by one of four kinds of deadlock: a dead
// square (no pushes bring the box from it to a goal), a freeze (a 2x2 block
// of walls and boxes holds a box off its goal), too few goals (no matching
// of the boxes to goals that each could be pushed onto alone), and a stuck
// subset (the pushed box and at most two others cannot all reach goals
// even with the other boxes gone, as tables of the solvable placements of
// 1 to 3 boxes, built here by a backward search, say; a table that would
// pass 2²¹ placements is left out).
//
// No solution of p makes such a push, so p and the copy have the same
// solutions and the same shortest solution; a search of the copy
// generates fewer states. Everything else is p's. The tables of a Boxoban
// level take about 2 ms and 30 KiB to build (BenchmarkPruneDeadlocks); a
// pruned push costs O(boxes²) lookups and a matching of O(boxes³) at
// worst, and allocates nothing. docs/ALGORITHMS.md gives the details.
func (p *Problem) PruneDeadlocks() *Problem {
	q := *p
	q.prune = true
	q.reach = make([][2]uint64, p.rows*p.cols)
	k := 0
	for w, set := range p.goals {
		for ; set != 0; set &= set - 1 {
			from := p.pulled(64*w + bits.TrailingZeros64(set))
			for i := range q.reach {
				if has(from, i) {
					setBit(&q.reach[i], k)
				}
			}
			k++
		}
	}
	q.live = make([]uint8, len(q.reach))
	for i, r := range q.reach {
		q.live[i] = noCell
		if r != [2]uint64{} {
			q.live[i] = uint8(len(q.liveCells))
			q.liveCells = append(q.liveCells, uint8(i))
		}
	}
	for n := 1; n <= min(maxSubset, k-1); n++ {
		q.subsets = append(q.subsets, q.solvableSubsets(n))
	}
	return &q
}

// pulled returns the cells a box can be pulled to from goal g, g
// included. A push in direction a moves a box from x to the cell y after
// it, the player standing on the cell before x; pulling it back from y
// needs both.
func (p *Problem) pulled(g int) [2]uint64 {
	var set [2]uint64
	setBit(&set, g)
	queue := []int{g}
	for len(queue) > 0 {
		y := queue[0]
		queue = queue[1:]
		for a := range 4 {
			back := a ^ 1 // Up and Down, Left and Right
			x := p.next[4*y+back]
			if x == noCell || has(set, int(x)) || p.next[4*int(x)+back] == noCell {
				continue
			}
			setBit(&set, int(x))
			queue = append(queue, int(x))
		}
	}
	return set
}

// deadlocked reports whether the box pushed from cell x to cell b of s is
// on a dead square or frozen off its goal, or stuck with at most two
// other boxes, or the boxes of s have too few goals; see PruneDeadlocks.
func (p *Problem) deadlocked(s State, x, b int) bool {
	if p.reach[b] == [2]uint64{} {
		return true // a dead square
	}
	r, c := b/p.cols, b%p.cols
	// The four 2x2 blocks that hold b, by their top left corner.
	for top := r - 1; top <= r; top++ {
	block:
		for left := c - 1; left <= c; left++ {
			off := false
			for i := range 4 {
				rr, cc := top+i/2, left+i%2
				if rr < 0 || rr >= p.rows || cc < 0 || cc >= p.cols {
					continue
				}
				j := rr*p.cols + cc
				switch {
				case has(p.walls, j):
				case has(s.boxes, j):
					off = off || !has(p.goals, j)
				default:
					continue block // a free cell
				}
			}
			if off {
				return true
			}
		}
	}
	if p.subsetDeadlocked(s, x, b) {
		return true
	}
	// A box reaches from b at most the goals it reaches from x. If they
	// are the same, a matching of the state before the push is one of s:
	// the matching is sought only when the box has lost a goal. (A start
	// with no matching, a level without a solution, is searched as it is.)
	return p.reach[b] != p.reach[x] && !p.matched(s)
}

// matched reports whether the boxes of s can each be given a goal of its
// own that it can reach alone (p.reach). It finds a maximum matching of
// the bipartite graph of boxes and goals by augmenting paths (Kuhn's
// algorithm), in O(boxes³) steps, on the stack.
func (p *Problem) matched(s State) bool {
	m := matching{reach: p.reach}
	for k := range m.box {
		m.box[k] = noCell
	}
	for w, set := range s.boxes {
		for ; set != 0; set &= set - 1 {
			m.seen = [2]uint64{}
			if !m.augment(uint8(64*w + bits.TrailingZeros64(set))) {
				return false
			}
		}
	}
	return true
}

// A matching assigns boxes to goals: box[k] is the cell of the box that
// goal k receives, or noCell. seen holds the goals that the current search
// for an augmenting path has visited.
type matching struct {
	reach [][2]uint64
	box   [MaxCells]uint8
	seen  [2]uint64
}

// augment looks for an augmenting path from the box in cell b: a goal
// that b reaches and that is free, or whose box can move to another goal
// in turn. It reports whether it found one, m then matching b too.
func (m *matching) augment(b uint8) bool {
	for w := range 2 {
		for set := m.reach[b][w] &^ m.seen[w]; set != 0; set &= set - 1 {
			k := 64*w + bits.TrailingZeros64(set)
			if has(m.seen, k) {
				continue // seen deeper in the path since set was taken
			}
			setBit(&m.seen, k)
			if m.box[k] == noCell || m.augment(m.box[k]) {
				m.box[k] = b
				return true
			}
		}
	}
	return false
}

// Root returns the start state.
func (p *Problem) Root() State { return p.start }

// NumActions returns 4: Up, Down, Left and Right.
func (p *Problem) NumActions() int { return 4 }

// ActionName returns the name of action a, a move of the player: "U", "D", "L"
// or "R".
func (p *Problem) ActionName(a int) string { return "UDLR"[a : a+1] }

// Apply moves the player one cell in direction a, pushing the box there, if
// any, one cell further. It returns false if the move leads into a wall or
// off the grid, or pushes a box into a wall, off the grid or into another
// box, or, for a Problem of PruneDeadlocks, into a deadlock, and for an
// action other than Up, Down, Left and Right.
func (p *Problem) Apply(s State, a int) (State, bool) {
	if uint(a) > Right {
		return State{}, false
	}
	to := p.next[4*int(s.player)+a]
	if to == noCell {
		return State{}, false
	}
	if has(s.boxes, int(to)) {
		beyond := p.next[4*int(to)+a]
		if beyond == noCell || has(s.boxes, int(beyond)) {
			return State{}, false
		}
		s.boxes[to>>6] &^= 1 << (to & 63)
		s.boxes[beyond>>6] |= 1 << (beyond & 63)
		if p.prune && p.deadlocked(s, int(to), int(beyond)) {
			return State{}, false
		}
	}
	s.player = to
	return s, true
}

// IsGoal reports whether every box of s is on a goal.
func (p *Problem) IsGoal(s State) bool {
	// A level has as many goals as boxes.
	return s.boxes == p.goals
}

// RerootWeight returns 1 if s has more boxes on goals than parent (a box
// was pushed onto a goal), and 0 otherwise: the rerooting weights of
// √LTS's domain rerooter (search.Rerooting), the hand-made subgoals of
// Tuero et al. (2026).
func (p *Problem) RerootWeight(parent, s State) float64 {
	if p.onGoals(s) > p.onGoals(parent) {
		return 1
	}
	return 0
}

// onGoals returns the number of boxes of s on goals.
func (p *Problem) onGoals(s State) int {
	return bits.OnesCount64(s.boxes[0]&p.goals[0]) + bits.OnesCount64(s.boxes[1]&p.goals[1])
}

// Heuristic returns the sum over the boxes of s of the Manhattan distance
// from the box to the nearest goal. It ignores walls and the player and lets
// boxes share a goal.
func (p *Problem) Heuristic(s State) float64 {
	h := 0
	for w, set := range s.boxes {
		for ; set != 0; set &= set - 1 {
			h += int(p.dist[64*w+bits.TrailingZeros64(set)])
		}
	}
	return float64(h)
}

// Planes of the encoding, the paper's four features.
const (
	PlaneWall   = iota // 1 on a wall
	PlanePlayer        // 1 on the player's cell
	PlaneBox           // 1 on a box
	PlaneGoal          // 1 on a goal
)

// InputShape returns the shape of the encoding: 4 planes of rows × columns.
func (p *Problem) InputShape() (c, h, w int) { return 4, p.rows, p.cols }

// Encode writes the one-hot encoding of s to dst in channel-major (CHW)
// order: plane PlaneWall, PlanePlayer, PlaneBox and PlaneGoal, each
// rows × columns, row-major, with 1 where the plane's feature is and 0
// elsewhere. dst must have length at least 4·rows·columns.
func (p *Problem) Encode(s State, dst []float32) {
	n := p.rows * p.cols
	clear(dst[:4*n])
	ones(dst[PlaneWall*n:PlaneWall*n+n], p.walls)
	dst[PlanePlayer*n+int(s.player)] = 1
	ones(dst[PlaneBox*n:PlaneBox*n+n], s.boxes)
	ones(dst[PlaneGoal*n:PlaneGoal*n+n], p.goals)
}

// ones sets plane[i] to 1 for every i in set.
func ones(plane []float32, set [2]uint64) {
	for w, bits64 := range set {
		for ; bits64 != 0; bits64 &= bits64 - 1 {
			plane[64*w+bits.TrailingZeros64(bits64)] = 1
		}
	}
}

// Render draws s in the usual notation, one line per row, the rows joined
// by '\n' without a final one: # wall, space floor, . goal, $ box, * box on
// a goal, @ player, + player on a goal.
func (p *Problem) Render(s State) string {
	var b strings.Builder
	b.Grow(p.rows * (p.cols + 1))
	for i := range p.rows * p.cols {
		if i > 0 && i%p.cols == 0 {
			b.WriteByte('\n')
		}
		goal := has(p.goals, i)
		switch {
		case has(p.walls, i):
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

// String returns the level in the file format: its "; N" line and its rows
// at the start, joined by '\n', without a final newline. As a line of spaces
// separates levels, a row with nothing but floor is written with '-'. Parse
// reads the text back as the same level.
func (p *Problem) String() string { return p.Format(p.start, p.label) }

// Format returns, in the file format of String, the level of p that starts
// at state s, with the "; label" line: the text of a new level, such as
// one made of a state a search reached. Parse reads it back as a level
// whose start renders as s does in p.
func (p *Problem) Format(s State, label string) string {
	rows := strings.Split(p.Render(s), "\n")
	for i, r := range rows {
		if strings.Trim(r, " ") == "" {
			rows[i] = strings.Repeat("-", len(r))
		}
	}
	return "; " + label + "\n" + strings.Join(rows, "\n")
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// InitialBudget is the paper's initial expansion budget of the Bootstrap
// process and test for Sokoban.
const InitialBudget = 2000
