package stp

import (
	"fmt"
	"math"
	"slices"
)

// Shorten returns a solution of p at most as long as actions, a solution
// of p, and the number of nodes its searches expanded, at most limit: a
// pass after a search, or before learning from its solution, that makes
// long solutions much shorter for a small part of a network search's cost
// (a network's beam search solutions of random 48-puzzles, of 609 moves
// on average, lose 18% of them for 4 million nodes, about 70 ms).
//
// It first cuts the loops of actions: the moves between two visits of one
// arrangement. Then it replaces windows of the solution by shortest paths
// between their two end arrangements, found by IDA* with the Manhattan
// distance between arrangements. A sweep of windows of w moves replaces
// them from the solution's start to its end, each window overlapping the
// last by half; a round sweeps windows of 8 moves, then of 8 and 16, then
// of 8, 16 and 24, and so on up to ShortenWindow, cutting loops after
// each, and rounds go on while they shorten the solution. A window's IDA*
// expands at most limit/16 nodes (and at least one); one that reaches its
// cap, or the limit, keeps its moves. The result depends on actions and
// limit alone.
//
// A node costs about 25 ns (BenchmarkShorten) and no allocation; a call
// allocates O(len(actions)) and 4 KiB of tables. Shorten returns an
// error, naming the puzzle, if actions is not a solution of p; it panics
// if limit is not positive. It is safe for concurrent use.
func (p *Problem[S]) Shorten(actions []int, limit int) ([]int, int, error) {
	if limit <= 0 {
		panic(fmt.Sprintf("stp: Shorten: limit %d; want > 0", limit))
	}
	states := make([]S, 0, len(actions)+1)
	s := p.start
	states = append(states, s)
	for i, a := range actions {
		next, ok := p.Apply(s, a)
		if !ok {
			return nil, 0, fmt.Errorf("stp: %s: Shorten: step %d: action %d not legal", p.name(), i+1, a)
		}
		s = next
		states = append(states, s)
	}
	if !p.IsGoal(s) {
		return nil, 0, fmt.Errorf("stp: %s: Shorten: the %d actions do not reach the goal", p.name(), len(actions))
	}
	path := cutLoops(states)
	sh := newShortener[S](p.g, p.Cols, limit)
	// Rounds of sweeps with windows of growing length, each after new
	// sweeps of every shorter one (a path shortened by a long window
	// gives the short ones new chances), while a round shortens the path.
	for n := len(path) + 1; len(path) < n && sh.nodes < limit; {
		n = len(path)
		for top := shortenStep; top <= ShortenWindow && sh.nodes < limit; top += shortenStep {
			for w := shortenStep; w <= top && sh.nodes < limit; w += shortenStep {
				path = sh.sweep(path, w)
			}
			path = cutLoops(path)
		}
	}
	return p.actions(path), sh.nodes, nil
}

// ShortenWindow is the longest window of moves that Shorten replaces by a
// shortest path; shortenStep is the step of its sweeps' windows.
const (
	ShortenWindow = 64
	shortenStep   = 8
)

// name returns p's ID, or its start, for errors.
func (p *Problem[S]) name() string {
	if p.ID != "" {
		return p.ID
	}
	return p.String()
}

// cutLoops returns the path states without the arrangements from the
// first visit of one to its last.
func cutLoops[S comparable](states []S) []S {
	last := make(map[S]int, len(states))
	for i, s := range states {
		last[s] = i
	}
	out := make([]S, 0, len(states))
	for i := 0; i < len(states); i = last[states[i]] + 1 {
		out = append(out, states[last[states[i]]])
	}
	return out
}

// actions returns the actions along path, a path of arrangements of p
// each one move from the last.
func (p *Problem[S]) actions(path []S) []int {
	out := make([]int, 0, max(len(path)-1, 0))
	for i := 1; i < len(path); i++ {
		out = append(out, p.g.action(path[i-1].Blank(), path[i].Blank()))
	}
	return out
}

// A shortener replaces windows of paths by shortest paths with IDA*.
type shortener[S Arrangement[S]] struct {
	g          *geometry
	limit, cap int // the nodes in all, and per window
	nodes      int // expanded so far
	left       int // nodes the current window may still expand
	// cellDist[i<<6|j] is the Manhattan distance between cells i and j.
	cellDist [MaxLargeCells * MaxLargeCells]uint8
	// The current window's IDA*: the board (the tile of each cell), the
	// cell of each tile at the window's end, and the blank's cells of
	// the path from the window's start.
	board [MaxLargeCells]uint8
	goal  [MaxLargeCells]uint8
	cells []uint8
}

func newShortener[S Arrangement[S]](g *geometry, cols, limit int) *shortener[S] {
	sh := &shortener[S]{g: g, limit: limit, cap: max(limit/16, 1)}
	for i := range g.n {
		for j := range g.n {
			sh.cellDist[i<<6|j] = uint8(abs(i/cols-j/cols) + abs(i%cols-j%cols))
		}
	}
	return sh
}

// sweep replaces the windows of w moves of path, each starting w/2 moves
// after the last, by shortest paths, while nodes remain, and returns the
// new path.
func (sh *shortener[S]) sweep(path []S, w int) []S {
	for s := 0; s+2 < len(path) && sh.nodes < sh.limit; s += w / 2 {
		e := min(s+w, len(path)-1)
		if sub, ok := sh.shortest(path[s], path[e], e-s); ok {
			path = slices.Concat(path[:s], sub, path[e+1:])
		}
	}
	return path
}

// shortest returns the arrangements of a shortest path from from to to,
// both included, and true, if it is shorter than length moves and IDA*
// finds it within the window's nodes. (A path of no move when from is to:
// a sweep may make a loop of a path that had none.)
func (sh *shortener[S]) shortest(from, to S, length int) ([]S, bool) {
	sh.board = from.tiles()
	end := to.tiles()
	for i, t := range end[:sh.g.n] {
		sh.goal[t] = uint8(i)
	}
	h := 0
	for i, t := range sh.board[:sh.g.n] {
		if t != 0 {
			h += int(sh.cellDist[i<<6|int(sh.goal[t])])
		}
	}
	// A path between two arrangements has the parity of every other:
	// a shorter one has at most length−2 moves.
	sh.left = min(sh.cap, sh.limit-sh.nodes)
	z := from.Blank()
	for bound := h; bound <= length-2; {
		sh.cells = sh.cells[:0]
		found, next := sh.dfs(z, 0, bound, h, -1)
		if found {
			sub := make([]S, 1, len(sh.cells)+1)
			sub[0] = from
			for _, c := range sh.cells {
				sub = append(sub, sh.step(sub[len(sub)-1], int(c)))
			}
			return sub, true
		}
		if sh.left == 0 {
			break
		}
		bound = next
	}
	return nil, false
}

// dfs is one iteration of IDA* from the board with the blank in cell z,
// g moves from the window's start, h from its end by the Manhattan
// distance, the blank's last cell prev: it reports whether it reached the
// end within bound, and otherwise returns the least f over bound.
func (sh *shortener[S]) dfs(z, g, bound, h, prev int) (bool, int) {
	if f := g + h; f > bound {
		return false, f
	}
	if h == 0 {
		return true, g
	}
	if sh.left == 0 {
		return false, 0
	}
	sh.left--
	sh.nodes++
	next := math.MaxInt
	for a := range 4 {
		t := int(sh.g.move[z][a])
		if t < 0 || t == prev {
			continue
		}
		tile := sh.board[t]
		gc := int(sh.goal[tile])
		dh := int(sh.cellDist[z<<6|gc]) - int(sh.cellDist[t<<6|gc])
		sh.board[z], sh.board[t] = tile, 0
		sh.cells = append(sh.cells, uint8(t))
		found, f := sh.dfs(t, g+1, bound, h+dh, z)
		if found {
			return true, f
		}
		sh.cells = sh.cells[:len(sh.cells)-1]
		sh.board[z], sh.board[t] = 0, tile
		if sh.left == 0 {
			return false, 0
		}
		next = min(next, f)
	}
	return false, next
}

// step returns s with the blank moved to cell to, a neighbour of its cell.
func (sh *shortener[S]) step(s S, to int) S {
	next, _ := s.apply(sh.g, sh.g.action(s.Blank(), to))
	return next
}

// action returns the action that moves the blank from cell b to cell to;
// it panics if to is not a neighbour of b.
func (g *geometry) action(b, to int) int {
	for a := range 4 {
		if int(g.move[b][a]) == to {
			return a
		}
	}
	panic(fmt.Sprintf("stp: no move from cell %d to cell %d", b, to))
}
