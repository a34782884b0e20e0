package sokoban

import "math/bits"

// The subset deadlocks of PruneDeadlocks: for k = 1 to maxSubset boxes, the
// placements of k boxes and the player from which those k boxes alone,
// every other box gone, can be pushed onto goals. A box removed never
// blocks the player or another box, so a solution of the whole level is
// one of every such sub-level (its pushes of the removed boxes become
// plain moves): a state with a subset of its boxes that cannot be solved
// alone has no solution.

// maxSubset is the largest number of boxes of a sub-level.
const maxSubset = 3

// maxSubsetBits bounds the size of one table, in bits: PruneDeadlocks
// builds the table of k boxes only if it holds at most this many
// placements, 256 KiB. The first Boxoban level of the tests has 24 live
// cells and 100 cells: 2,024 sets of three boxes, 202,400 placements with
// the player, 25 KiB.
const maxSubsetBits = 1 << 21

// A subState is a placement of a sub-level: the live numbers (Problem.live)
// of its k boxes in increasing order, then unused, and the player's cell.
// It takes 4 bytes.
type subState struct {
	box    [maxSubset]uint8
	player uint8
}

// binomial returns n choose k for 1 ≤ k ≤ 3.
func binomial(n, k int) int {
	switch k {
	case 1:
		return n
	case 2:
		return n * (n - 1) / 2
	default:
		return n * (n - 1) * (n - 2) / 6
	}
}

// subIndex returns the bit of the placement of the k boxes box (live
// numbers in increasing order) and the player in a table of a level of
// cells cells: the rank of the set of boxes among the k-sets of live
// numbers (the combinatorial number system) times cells, plus the player.
func subIndex(box []uint8, player uint8, cells int) int {
	rank := 0
	for i, b := range box {
		rank += binomial(int(b), i+1)
	}
	return rank*cells + int(player)
}

// solvableSubsets returns the table of sub-levels of k boxes of p (whose
// live cells are numbered): bit subIndex is set for a placement of k boxes
// on live cells and the player on a free cell from which the k boxes can
// all be pushed onto goals with no other box in the level. It searches
// backwards from the placements with every box on a goal, by the reverse
// of the moves: a step of the player, or a pull of the box it faces away
// from. It returns nil if the table would hold more than maxSubsetBits
// placements. Its time is linear in the placements it sets, its memory in
// the table's size.
func (p *Problem) solvableSubsets(k int) []uint64 {
	cells := p.rows * p.cols
	size := binomial(len(p.liveCells), k) * cells
	if size > maxSubsetBits {
		return nil
	}
	table := make([]uint64, (size+63)/64)
	var queue []subState
	// visit marks and queues s, whose bit is i.
	visit := func(s subState, i int) {
		if !hasIndex(table, i) {
			table[i>>6] |= 1 << (i & 63)
			queue = append(queue, s)
		}
	}
	var goals []uint8
	for _, c := range p.liveCells {
		if has(p.goals, int(c)) {
			goals = append(goals, p.live[c])
		}
	}
	// Every placement of k boxes on goals: the sets of k goals, in
	// increasing order, by odometer.
	var pick [maxSubset]int
	for i := range k {
		pick[i] = i
	}
	for pick[k-1] < len(goals) {
		var s subState
		var on [2]uint64
		for i := range k {
			s.box[i] = goals[pick[i]]
			setBit(&on, int(p.liveCells[s.box[i]]))
		}
		for c := range cells {
			if !has(p.walls, c) && !has(on, c) {
				s.player = uint8(c)
				visit(s, subIndex(s.box[:k], s.player, cells))
			}
		}
		i := k - 1
		for i > 0 && pick[i] == len(goals)-k+i {
			i--
		}
		pick[i]++
		for j := i + 1; j < k; j++ {
			pick[j] = pick[j-1] + 1
		}
	}
	for len(queue) > 0 {
		s := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		var on [2]uint64
		for _, b := range s.box[:k] {
			setBit(&on, int(p.liveCells[b]))
		}
		boxes := subIndex(s.box[:k], 0, cells) // the bit of the player on cell 0
		for a := range 4 {
			from := p.next[4*int(s.player)+a]
			if from == noCell || has(on, int(from)) {
				continue
			}
			// A step from the cell from to the player's.
			visit(subState{box: s.box, player: from}, boxes+int(from))
			// A pull: the player stepped from from, pushing the box on
			// its own cell onto the cell ahead, which holds a box.
			ahead := p.next[4*int(s.player)+(a^1)]
			if ahead == noCell || !has(on, int(ahead)) || p.live[s.player] == noCell {
				continue // no box ahead, or it could not stay on the player's cell
			}
			box := moveBox(s.box, k, p.live[ahead], p.live[s.player])
			visit(subState{box: box, player: from}, subIndex(box[:k], from, cells))
		}
	}
	return table
}

// moveBox returns the first k live numbers of box, in increasing order,
// with from replaced by to.
func moveBox(box [maxSubset]uint8, k int, from, to uint8) [maxSubset]uint8 {
	i := 0
	for box[i] != from {
		i++
	}
	for ; i > 0 && box[i-1] > to; i-- {
		box[i] = box[i-1]
	}
	for ; i < k-1 && box[i+1] < to; i++ {
		box[i] = box[i+1]
	}
	box[i] = to
	return box
}

// subsetDeadlocked reports whether, in s, the box pushed onto cell b and
// some of the other boxes, at most maxSubset boxes in all, cannot be
// pushed onto goals alone with the player on cell x (p.subsets). It
// costs a lookup for each such set of boxes: boxes^(k−1) for the largest
// k of a table, and allocates nothing.
func (p *Problem) subsetDeadlocked(s State, x, b int) bool {
	var others [MaxCells]uint8
	n := 0
	for w, set := range s.boxes {
		for ; set != 0; set &= set - 1 {
			c := 64*w + bits.TrailingZeros64(set)
			if c != b && p.live[c] != noCell {
				others[n] = p.live[c]
				n++
			}
		}
	}
	cells := p.rows * p.cols
	lb := p.live[b]
	var box [maxSubset]uint8
	for k, table := range p.subsets {
		if table == nil {
			continue
		}
		switch k + 1 {
		case 1:
			box[0] = lb
			if !hasIndex(table, subIndex(box[:1], uint8(x), cells)) {
				return true
			}
		case 2:
			for _, o := range others[:n] {
				box[0], box[1] = min(lb, o), max(lb, o)
				if !hasIndex(table, subIndex(box[:2], uint8(x), cells)) {
					return true
				}
			}
		case 3:
			for i, o := range others[:n] {
				for _, q := range others[i+1 : n] {
					box = sort3(lb, o, q)
					if !hasIndex(table, subIndex(box[:3], uint8(x), cells)) {
						return true
					}
				}
			}
		}
	}
	return false
}

// sort3 returns a, b and c in increasing order.
func sort3(a, b, c uint8) [3]uint8 {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b, c = c, b
	}
	if a > b {
		a, b = b, a
	}
	return [3]uint8{a, b, c}
}

// hasIndex reports whether bit i of table is set.
func hasIndex(table []uint64, i int) bool { return table[i>>6]&(1<<(i&63)) != 0 }
