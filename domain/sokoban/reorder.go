package sokoban

import (
	"fmt"
	"math/bits"
	"slices"
)

// MaxReorderBoxes is the largest number of boxes of a level that Reorder
// reorders; it returns the solution of a level with more as it is.
const MaxReorderBoxes = 16

// Reorder returns a shortest solution of p among those that make the
// pushes of actions, a solution of p, in another order, and the number of
// nodes its search expanded: a pass after a search that makes solutions
// shorter for a small part of the search's cost (on Boxoban levels, PHS*'s
// solutions lose 0.7 to 0.9 moves on average for about 50 expansions).
//
// The pushes make runs, the consecutive pushes of one box in one
// direction. The solutions searched keep the order of each box's runs but
// interleave the boxes' runs in any order, may leave out the runs between
// two visits of a box to one cell, and walk the player by shortest paths.
// Reorder searches them by A* with an admissible heuristic, expanding at
// most limit nodes; past limit, or with more than MaxReorderBoxes boxes or
// a box of more than 255 runs, it returns actions. What it returns is never
// longer than actions. docs/ALGORITHMS.md gives the details.
//
// An expansion costs a breadth-first search of the level's cells, and a
// node about 100 bytes. Reorder returns an error, naming the level, if
// actions is not a solution of p; it panics if limit is not positive. It
// is safe for concurrent use.
func (p *Problem) Reorder(actions []int, limit int) ([]int, int, error) {
	if limit <= 0 {
		panic(fmt.Sprintf("sokoban: Reorder with limit %d", limit))
	}
	starts, rs, err := p.runsOf(actions)
	if err != nil {
		return nil, 0, err
	}
	if rs == nil {
		return actions, 0, nil
	}
	r := reorderer{p: p, runs: rs, limit: limit}
	r.bounds(starts)
	path, n := r.search(len(actions))
	if path == nil {
		return actions, n, nil
	}
	return r.actions(path), n, nil
}

// A run is a run of pushes of one box: count pushes in direction dir,
// the first pushing the box from cell from.
type run struct {
	from, count int
	dir         int
}

// stand returns the cell the player pushes the run's first push from.
func (u run) stand(p *Problem) int { return int(p.next[4*u.from+(u.dir^1)]) }

// end returns the cell of the box after the run and the player's cell.
func (u run) end(p *Problem) (box, player int) {
	c := u.from
	for range u.count {
		player, c = c, int(p.next[4*c+u.dir])
	}
	return c, player
}

// runsOf replays actions and returns the cell of each box at the start
// and its runs, the boxes numbered in the order of their cells. It returns
// no runs if the boxes or the runs are too many for Reorder, and an error
// if actions is not a solution of p.
func (p *Problem) runsOf(actions []int) (starts []int, runs [][]run, err error) {
	// The boxes are tracked only if Reorder takes the level; the moves are
	// checked either way.
	tracked := bits.OnesCount64(p.start.boxes[0])+bits.OnesCount64(p.start.boxes[1]) <= MaxReorderBoxes
	var id [MaxCells]int8 // the box on a cell, when tracked
	if tracked {
		for i := range p.rows * p.cols {
			if has(p.start.boxes, i) {
				id[i] = int8(len(starts))
				starts = append(starts, i)
			}
		}
	}
	rs := make([][]run, len(starts))
	s := p.start
	last := -1 // the box of the last push
	for i, a := range actions {
		t, ok := p.Apply(s, a)
		if !ok {
			return nil, nil, fmt.Errorf("sokoban: %s: move %d of the solution (%s) is illegal", p.ID, i+1, p.ActionName(a))
		}
		if to := int(t.player); tracked && has(s.boxes, to) {
			k := id[to]
			id[to], id[p.next[4*to+a]] = -1, k
			if u := rs[k]; len(u) > 0 && int(k) == last && u[len(u)-1].dir == a {
				u[len(u)-1].count++
			} else {
				rs[k] = append(u, run{from: to, count: 1, dir: a})
			}
			last = int(k)
		}
		s = t
	}
	if !p.IsGoal(s) {
		return nil, nil, fmt.Errorf("sokoban: %s: the %d moves do not solve the level", p.ID, len(actions))
	}
	if !tracked {
		return nil, nil, nil
	}
	for k, us := range rs {
		rs[k] = p.splitAtReturns(us)
		if len(rs[k]) > 255 {
			return nil, nil, nil
		}
	}
	return starts, rs, nil
}

// splitAtReturns splits the runs us of a box where the box is on a cell
// it is on at another time, so that the search can leave out the pushes
// in between.
func (p *Problem) splitAtReturns(us []run) []run {
	if len(us) == 0 {
		return us
	}
	seen := map[int]int{} // how many times the box is on a cell
	for _, u := range us {
		c := u.from
		seen[c]++
		for range u.count - 1 {
			c = int(p.next[4*c+u.dir])
			seen[c]++
		}
	}
	box, _ := us[len(us)-1].end(p)
	seen[box]++
	var out []run
	for _, u := range us {
		c, start := u.from, u
		start.count = 0
		for range u.count {
			if start.count > 0 && seen[c] > 1 {
				out = append(out, start)
				start = run{from: c, dir: u.dir}
			}
			start.count++
			c = int(p.next[4*c+u.dir])
		}
		out = append(out, start)
	}
	return out
}

// A reorderer searches the interleavings of the runs of a solution.
type reorderer struct {
	p     *Problem
	runs  [][]run
	limit int
	// cells[k][i] is the cell of box k after i of its runs.
	cells [][]int
	// skips[k][i] are the j > i+1 with cells[k][j] == cells[k][i]: the
	// box is back where it was, and runs i to j-1 can be left out.
	skips [][][]int
	// pushes[k][i] and left[k][i] are lower bounds of the pushes and of
	// the moves that box k needs after i of its runs, the second less the
	// walk to its next run.
	pushes, left [][]int
	// The breadth-first search of the player's walks.
	dist  [MaxCells]int16
	queue []int
}

// A reorderNode is a node of the search: done[k] runs of box k done or
// left out, the player on cell player.
type reorderNode struct {
	done   [MaxReorderBoxes]uint8
	player uint8
}

// A reorderEntry is a node as the search keeps it: its cost g, its parent
// (an index of entries, -1 for the root), and the box whose runs led to
// it.
type reorderEntry struct {
	node   reorderNode
	g      int
	parent int32
	box    int8
}

// bounds fills the cells, skips and lower bounds of r, the boxes on the
// given cells at the start.
func (r *reorderer) bounds(starts []int) {
	p := r.p
	n := len(r.runs)
	r.cells, r.skips = make([][]int, n), make([][][]int, n)
	r.pushes, r.left = make([][]int, n), make([][]int, n)
	for k, us := range r.runs {
		cells := make([]int, len(us)+1)
		cells[0] = starts[k]
		for i, u := range us {
			cells[i+1], _ = u.end(p)
		}
		skips := make([][]int, len(us)+1)
		for i := range cells {
			for j := i + 2; j < len(cells); j++ {
				if cells[j] == cells[i] {
					skips[i] = append(skips[i], j)
				}
			}
		}
		pushes, left := make([]int, len(us)+1), make([]int, len(us)+1)
		for i := len(us) - 1; i >= 0; i-- {
			pushes[i] = us[i].count + pushes[i+1]
			left[i] = us[i].count + left[i+1]
			if i+1 < len(us) && skips[i+1] == nil {
				box, player := us[i].end(p)
				left[i] += r.walk(player, us[i+1].stand(p), func(c int) bool { return c == box })
			}
			for _, j := range skips[i] {
				pushes[i] = min(pushes[i], pushes[j])
				left[i] = min(left[i], left[j])
			}
		}
		r.cells[k], r.skips[k], r.pushes[k], r.left[k] = cells, skips, pushes, left
	}
}

// search returns the entries of the nodes of a shortest solution, in
// order and without the root, or nil if there is none shorter than bound
// moves within the limit, and the number of expansions.
func (r *reorderer) search(bound int) ([]reorderEntry, int) {
	p := r.p
	var entries []reorderEntry
	best := map[reorderNode]int32{}
	var open reorderQueue
	add := func(e reorderEntry) {
		f := e.g + r.h(e.node)
		if f >= bound {
			return
		}
		if i, ok := best[e.node]; ok && entries[i].g <= e.g {
			return
		}
		best[e.node] = int32(len(entries))
		entries = append(entries, e)
		open.push(reorderItem{f: f, g: e.g, entry: int32(len(entries) - 1)})
	}
	add(reorderEntry{node: reorderNode{player: p.start.player}, parent: -1, box: -1})
	var boxes [MaxCells]bool
	expansions := 0
	for len(open) > 0 {
		it := open.pop()
		e := entries[it.entry]
		if best[e.node] != it.entry {
			continue // a shorter way to the node was found since
		}
		if r.done(e.node) {
			var path []reorderEntry
			for i := it.entry; i > 0; i = entries[i].parent {
				path = append(path, entries[i])
			}
			slices.Reverse(path)
			return path, expansions
		}
		if expansions == r.limit {
			break
		}
		expansions++
		boxes = [MaxCells]bool{}
		for k := range r.runs {
			boxes[r.cells[k][e.node.done[k]]] = true
		}
		r.walk(int(e.node.player), -1, func(c int) bool { return boxes[c] })
		for k, us := range r.runs {
			i := int(e.node.done[k])
			if i == len(us) {
				continue
			}
			for _, j := range r.skips[k][i] {
				child := e.node
				child.done[k] = uint8(j)
				add(reorderEntry{node: child, g: e.g, parent: it.entry, box: int8(k)})
			}
			u := us[i]
			w := r.dist[u.stand(p)]
			if w < 0 || !r.clear(u, &boxes) {
				continue
			}
			_, player := u.end(p)
			child := e.node
			child.done[k]++
			child.player = uint8(player)
			add(reorderEntry{node: child, g: e.g + int(w) + u.count, parent: it.entry, box: int8(k)})
		}
	}
	return nil, expansions
}

// done reports whether every run of n is done or left out.
func (r *reorderer) done(n reorderNode) bool {
	for k, us := range r.runs {
		if int(n.done[k]) != len(us) {
			return false
		}
	}
	return true
}

// h returns the heuristic of node n: the larger of the pushes left and of
// the moves left of each box.
func (r *reorderer) h(n reorderNode) int {
	pushes, h := 0, 0
	pr, pc := int(n.player)/r.p.cols, int(n.player)%r.p.cols
	for k, us := range r.runs {
		i := int(n.done[k])
		if i == len(us) {
			continue
		}
		pushes += r.pushes[k][i]
		walk := 0
		if r.skips[k][i] == nil {
			s := us[i].stand(r.p)
			walk = abs(s/r.p.cols-pr) + abs(s%r.p.cols-pc)
		}
		h = max(h, walk+r.left[k][i])
	}
	return max(h, pushes)
}

// clear reports whether the cells run u pushes its box into hold no box.
func (r *reorderer) clear(u run, boxes *[MaxCells]bool) bool {
	c := u.from
	for range u.count {
		c = int(r.p.next[4*c+u.dir])
		if boxes[c] {
			return false
		}
	}
	return true
}

// walk fills r.dist with the player's walking distances from cell from
// (-1 for the cells it cannot reach) over the cells that are not walls
// and not blocked, and returns the distance to cell to, or 0 if to is
// unreachable or -1 (a lower bound either way).
func (r *reorderer) walk(from, to int, blocked func(int) bool) int {
	p := r.p
	for i := range p.rows * p.cols {
		r.dist[i] = -1
	}
	r.dist[from] = 0
	r.queue = append(r.queue[:0], from)
	for h := 0; h < len(r.queue); h++ {
		c := r.queue[h]
		for a := range 4 {
			t := p.next[4*c+a]
			if t != noCell && r.dist[t] < 0 && !blocked(int(t)) {
				r.dist[t] = r.dist[c] + 1
				r.queue = append(r.queue, int(t))
			}
		}
	}
	if to < 0 || r.dist[to] < 0 {
		return 0
	}
	return int(r.dist[to])
}

// actions returns the moves of path, a path of the search, with shortest
// walks to the runs.
func (r *reorderer) actions(path []reorderEntry) []int {
	p := r.p
	var boxes [MaxCells]bool
	for _, cells := range r.cells {
		boxes[cells[0]] = true
	}
	var done [MaxReorderBoxes]int
	player := int(p.start.player)
	var out []int
	for _, e := range path {
		k := int(e.box)
		i := done[k]
		done[k] = int(e.node.done[k])
		if done[k] != i+1 {
			continue // runs left out
		}
		u := r.runs[k][i]
		r.walk(player, -1, func(c int) bool { return boxes[c] })
		// Walk back from the run's stand along decreasing distances.
		at := u.stand(p)
		start := len(out)
		for at != player {
			for a := range 4 {
				prev := p.next[4*at+(a^1)]
				if prev != noCell && r.dist[prev] == r.dist[at]-1 {
					out = append(out, a)
					at = int(prev)
					break
				}
			}
		}
		slices.Reverse(out[start:])
		for range u.count {
			out = append(out, u.dir)
		}
		box, end := u.end(p)
		boxes[u.from], boxes[box] = false, true
		player = end
	}
	return out
}

// A reorderItem is an entry of the open list: f, g and the entry's index.
type reorderItem struct {
	f, g  int
	entry int32
}

// A reorderQueue is a binary heap of items, the least f first, then the
// highest g: q[i] comes before neither of q[2i+1] and q[2i+2]. Its own
// push and pop, rather than container/heap's, box no item.
type reorderQueue []reorderItem

func (q reorderQueue) before(i, j int) bool {
	return q[i].f < q[j].f || q[i].f == q[j].f && q[i].g > q[j].g
}

// push adds it, in O(log n).
func (q *reorderQueue) push(it reorderItem) {
	*q = append(*q, it)
	h := *q
	for i := len(h) - 1; i > 0; {
		up := (i - 1) / 2
		if !h.before(i, up) {
			break
		}
		h[i], h[up] = h[up], h[i]
		i = up
	}
}

// pop removes and returns the first item, in O(log n); q is not empty.
func (q *reorderQueue) pop() reorderItem {
	h := *q
	first := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.before(c+1, c) {
			c++
		}
		if !h.before(c, i) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	*q = h
	return first
}
