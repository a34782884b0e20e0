package sokoban

import (
	"errors"
	"fmt"
	"math/bits"
)

// ErrLimit is the error of Optimal when a level needs more states than its
// limit.
var ErrLimit = errors.New("sokoban: state limit reached")

// ErrNoSolution is the error of Optimal when a level has no solution: no
// sequence of moves from its start leads to a goal.
var ErrNoSolution = errors.New("sokoban: no solution")

// An OptimalResult is a shortest solution of a level found by Optimal.
type OptimalResult struct {
	// Actions is a shortest solution: the fewest moves (player steps,
	// the domain's actions).
	Actions []int
	// Pushes is the number of pushes of Actions (not the fewest pushes
	// of any solution).
	Pushes int
	// States is the number of distinct states the search stored.
	States int
}

// Optimal returns a shortest solution of p: the fewest moves, each move
// costing 1 as in Apply. It searches p.PruneDeadlocks(), whose shortest
// solutions are p's, by A* with an admissible and consistent heuristic (the
// sum over the boxes of the number of pushes that bring the box to its
// nearest goal with no other box in the way), with duplicate detection on
// the whole state. It returns ErrLimit (wrapped, with p's ID) if the search
// would store more than limit states, and ErrNoSolution (likewise) if p
// has no solution. It panics if limit is not positive. Levels of 10x10
// cells with 4 boxes take up to a few million states, about 40 bytes
// each.
func Optimal(p *Problem, limit int) (OptimalResult, error) {
	q := p
	if !q.prune {
		q = p.PruneDeadlocks()
	}
	return optimal(q, limit)
}

// optimal is Optimal on p as it is, pruned or not.
func optimal(p *Problem, limit int) (OptimalResult, error) {
	if limit <= 0 {
		panic(fmt.Sprintf("sokoban: Optimal with limit %d", limit))
	}
	push := p.pushDistances()
	h := func(s State) int {
		sum := 0
		for w, set := range s.boxes {
			for ; set != 0; set &= set - 1 {
				sum += int(push[64*w+bits.TrailingZeros64(set)])
			}
		}
		return sum
	}
	seen := map[State]optNode{p.start: {g: 0, move: rootMove}}
	// open[f][g]: the states of f = g + h and g, deepest taken first.
	var open [][][]State
	enqueue := func(s State, g, f int) {
		for len(open) <= f {
			open = append(open, nil)
		}
		for len(open[f]) <= g {
			open[f] = append(open[f], nil)
		}
		open[f][g] = append(open[f][g], s)
	}
	h0 := h(p.start)
	if h0 >= unreachable {
		return OptimalResult{States: 1}, fmt.Errorf("sokoban: %s: %w (a box on a dead square)", p.ID, ErrNoSolution)
	}
	enqueue(p.start, 0, h0)
	// A child of a state of (f, g) has g+1 and f or more: within f, the
	// deepest bucket not empty is taken each time.
	for f := 0; f < len(open); f++ {
		for g := len(open[f]) - 1; g >= 0; g = len(open[f]) - 1 {
			for g >= 0 && len(open[f][g]) == 0 {
				open[f] = open[f][:g]
				g--
			}
			if g < 0 {
				break
			}
			{
				b := open[f][g]
				s := b[len(b)-1]
				open[f][g] = b[:len(b)-1]
				in := seen[s]
				if in.closed || int(in.g) != g {
					continue
				}
				if p.IsGoal(s) {
					return p.optimalPath(seen, s), nil
				}
				in.closed = true
				seen[s] = in
				for a := range 4 {
					t, ok := p.Apply(s, a)
					if !ok {
						continue
					}
					ht := h(t)
					if ht >= unreachable {
						continue
					}
					move := uint8(a)
					if t.boxes != s.boxes {
						move |= pushed
					}
					old, ok := seen[t]
					if ok && int(old.g) <= g+1 {
						continue
					}
					if !ok && len(seen) >= limit {
						return OptimalResult{States: len(seen)}, fmt.Errorf("sokoban: %s: %w (%d states)", p.ID, ErrLimit, limit)
					}
					seen[t] = optNode{g: int32(g + 1), move: move}
					enqueue(t, g+1, g+1+ht)
				}
			}
		}
		open[f] = nil
	}
	return OptimalResult{States: len(seen)}, fmt.Errorf("sokoban: %s: %w", p.ID, ErrNoSolution)
}

// An optNode is what Optimal stores of a state: its g, the move that
// reached it with the least g so far, and whether it was expanded.
type optNode struct {
	g      int32
	move   uint8 // the action, | pushed if it pushed a box; rootMove for the root
	closed bool
}

const (
	pushed   = 4
	rootMove = 0xff
)

// optimalPath returns the result for the goal state s of seen, following
// the moves back to the root.
func (p *Problem) optimalPath(seen map[State]optNode, s State) OptimalResult {
	var rev []int
	pushes := 0
	for {
		move := seen[s].move
		if move == rootMove {
			break
		}
		a := int(move &^ pushed)
		rev = append(rev, a)
		to := int(s.player)
		if move&pushed != 0 {
			pushes++
			beyond := int(p.next[4*to+a])
			s.boxes[beyond>>6] &^= 1 << (beyond & 63)
			setBit(&s.boxes, to)
		}
		s.player = p.next[4*to+(a^1)]
	}
	actions := make([]int, len(rev))
	for i, a := range rev {
		actions[len(rev)-1-i] = a
	}
	return OptimalResult{Actions: actions, Pushes: pushes, States: len(seen)}
}

// unreachable is the push distance of a cell from which no box reaches a
// goal.
const unreachable = 0xff

// pushDistances returns, for each cell, the fewest pushes that bring a
// box there to a goal with no other box on the floor, or unreachable: a
// breadth-first search of pulls from the goals. A push moves one box one
// cell, so the sum over the boxes of a state is a lower bound of the moves
// left that changes by at most one a move.
func (p *Problem) pushDistances() []uint8 {
	n := p.rows * p.cols
	d := make([]uint8, n)
	for i := range d {
		d[i] = unreachable
	}
	var queue []int
	for i := range n {
		if has(p.goals, i) {
			d[i] = 0
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		y := queue[0]
		queue = queue[1:]
		for a := range 4 {
			back := a ^ 1
			x := p.next[4*y+back]
			if x == noCell || d[x] != unreachable || p.next[4*int(x)+back] == noCell {
				continue
			}
			d[x] = d[y] + 1
			queue = append(queue, int(x))
		}
	}
	return d
}
