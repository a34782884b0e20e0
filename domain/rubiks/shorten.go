package rubiks

import (
	"fmt"
	"math"
	"sync"
)

// Shorten returns a solution of p at most as long as actions, a solution
// of p, and the number of nodes its searches expanded, at most limit: a
// pass after a search, or before learning from its solution (phs solve
// -shorten-found, phs train -shorten-learned).
//
// It first cuts the loops of actions: the turns between two visits of
// one cube. Then it replaces windows of the solution by shortest paths
// between their two end cubes, found by IDA* on the cube that takes one
// end to the other, with the largest of Heuristic's bound and the two
// edge pattern databases of Estimate, each a lower bound, over the
// sequences of turns in a canonical order (no U U U, which is U'; of two
// opposite faces' turns, which commute, one order). A sweep of windows of w turns replaces them from
// the solution's start to its end, each window overlapping the last by
// half; a round sweeps windows of 6 turns, then of 6 and 8, and so on up
// to ShortenWindow (16), cutting loops after each, and rounds go on while
// they shorten the solution. A window's IDA* expands at most limit/16
// nodes (and at least one); one that reaches its cap, or the limit, keeps
// its turns. The result depends on actions and limit alone.
//
// A node costs about 2 µs (BenchmarkShorten), most of it reading the
// tables. The first call builds the pattern databases of Heuristic and
// Estimate, a few seconds, unless PrepareShorten has. Shorten returns an
// error, naming the cube, if actions is not a solution of p; it panics if
// limit is not positive. It is safe for concurrent use.
func (p *Problem) Shorten(actions []int, limit int) ([]int, int, error) {
	if limit <= 0 {
		panic(fmt.Sprintf("rubiks: Shorten: limit %d; want > 0", limit))
	}
	states := make([]State, 0, len(actions)+1)
	s := p.start
	states = append(states, s)
	for i, a := range actions {
		next, ok := Apply(s, a)
		if !ok {
			return nil, 0, fmt.Errorf("rubiks: %s: Shorten: step %d: action %d not legal", p.name(), i+1, a)
		}
		s = next
		states = append(states, s)
	}
	if s != solved {
		return nil, 0, fmt.Errorf("rubiks: %s: Shorten: the %d actions do not solve the cube", p.name(), len(actions))
	}
	sh := &shortener{limit: limit, cap: max(limit/16, 1)}
	path, moves := cutLoops(states, actions)
	for n := len(moves) + 1; len(moves) < n && sh.nodes < limit; {
		n = len(moves)
		for top := shortenStep; top <= ShortenWindow && sh.nodes < limit; top += 2 {
			for w := shortenStep; w <= top && sh.nodes < limit; w += 2 {
				path, moves = sh.sweep(path, moves, w)
			}
			path, moves = cutLoops(path, moves)
		}
	}
	return moves, sh.nodes, nil
}

// PrepareShorten builds the pattern databases that Shorten reads, if no
// call has, one on each of two goroutines: about 3 s, 65 MB kept. Solve
// and test call it before their first search when they shorten, so that
// no cube's time counts it. It is safe for concurrent use.
func (p *Problem) PrepareShorten() {
	var wg sync.WaitGroup
	wg.Go(func() { cornerTable() })
	wg.Go(func() { edgeTable() })
	wg.Wait()
}

// ShortenWindow is the longest window of turns that Shorten replaces by a
// shortest path; shortenStep is its shortest.
const (
	ShortenWindow = 16
	shortenStep   = 6
)

// name returns p's ID, or its cube, for errors.
func (p *Problem) name() string {
	if p.ID != "" {
		return p.ID
	}
	return p.start.String()
}

// cutLoops returns the path of cubes states, reached by moves, without
// the cubes from the first visit of one to its last, and its moves.
func cutLoops(states []State, moves []int) ([]State, []int) {
	last := make(map[State]int, len(states))
	for i, s := range states {
		last[s] = i
	}
	outS := make([]State, 0, len(states))
	outM := make([]int, 0, len(moves))
	for i := 0; ; {
		j := last[states[i]]
		outS = append(outS, states[j])
		if j == len(moves) {
			return outS, outM
		}
		outM = append(outM, moves[j])
		i = j + 1
	}
}

// A shortener replaces windows of paths by shortest paths with IDA*.
type shortener struct {
	limit, cap int // the nodes in all, and per window
	nodes      int // expanded so far
	left       int // nodes the current window may still expand
	moves      []int
}

// sweep replaces the windows of w turns of path, each starting w/2 turns
// after the last, by shortest paths, while nodes remain, and returns the
// new path and its moves.
func (sh *shortener) sweep(path []State, moves []int, w int) ([]State, []int) {
	for s := 0; s+2 < len(path) && sh.nodes < sh.limit; s += w / 2 {
		e := min(s+w, len(path)-1)
		sub, ok := sh.shortest(path[s], path[e], e-s)
		if !ok {
			continue
		}
		states := make([]State, 0, len(sub)+1)
		states = append(states, path[s])
		for _, a := range sub {
			next, _ := Apply(states[len(states)-1], a)
			states = append(states, next)
		}
		path = append(append(append([]State{}, path[:s]...), states...), path[e+1:]...)
		moves = append(append(append([]int{}, moves[:s]...), sub...), moves[e:]...)
	}
	return path, moves
}

// shortest returns the turns of a shortest path from cube from to cube
// to and true, if it is shorter than length turns and IDA* finds it
// within the window's nodes. It searches from the cube x = to⁻¹·from to
// the solved cube: the turns that solve x take from to to.
func (sh *shortener) shortest(from, to State, length int) ([]int, bool) {
	f, t := from.unpack(), to.unpack()
	inv := inverse(&t)
	x := mul(&inv, &f)
	start := x.pack()
	h := windowBound(start, math.MaxInt)
	// Every path between two cubes has the parity of every other: a
	// shorter one has at most length−2 turns.
	sh.left = min(sh.cap, sh.limit-sh.nodes)
	for b := h; b <= length-2; {
		sh.moves = sh.moves[:0]
		found, next := sh.dfs(start, 0, b, -1, -1)
		if found {
			return append([]int(nil), sh.moves...), true
		}
		if sh.left == 0 {
			break
		}
		b = next
	}
	return nil, false
}

// dfs is one iteration of IDA* from cube s, g turns from the window's
// start, after the turns prev and last (-1 for none): it reports whether
// it solved s within cutoff, and otherwise returns the least f over
// cutoff.
func (sh *shortener) dfs(s State, g, cutoff, prev, last int) (bool, int) {
	if f := g + windowBound(s, cutoff-g); f > cutoff {
		return false, f
	}
	if s == solved {
		return true, g
	}
	if sh.left == 0 {
		return false, 0
	}
	sh.left--
	sh.nodes++
	next := math.MaxInt
	for a := range NumActions {
		if redundant(prev, last, a) {
			continue
		}
		c, _ := Apply(s, a)
		sh.moves = append(sh.moves, a)
		found, f := sh.dfs(c, g+1, cutoff, last, a)
		if found {
			return true, f
		}
		sh.moves = sh.moves[:len(sh.moves)-1]
		if sh.left == 0 {
			return false, 0
		}
		next = min(next, f)
	}
	return false, next
}

// redundant reports whether turn a after the turns prev and last (-1 for
// none) makes a sequence that one of at most its length replaces, which
// redundant keeps: a after its inverse, a third quarter turn of a face
// (U U U is U'), a second counterclockwise one (U' U' is U U), or a turn of
// a face after one of the opposite face with a larger index (the two
// commute: U before D, R before L and F before B are kept). A shortest
// sequence of turns between two cubes is one that redundant keeps at
// every step, or has the length of one.
func redundant(prev, last, a int) bool {
	if last < 0 {
		return false
	}
	face, lastFace := a/2, last/2
	switch {
	case a == last^1:
		return true
	case a == last:
		return a == prev || a&1 == 1
	default:
		return face+3 == lastFace
	}
}

// inverse returns the inverse of cube c: mul(c, inverse(c)) is solved.
func inverse(c *cubies) cubies {
	var d cubies
	for i := range 8 {
		d.cp[c.cp[i]] = uint8(i)
		d.co[c.cp[i]] = (3 - c.co[i]) % 3
	}
	for i := range 12 {
		d.ep[c.ep[i]] = uint8(i)
		d.eo[c.ep[i]] = (2 - c.eo[i]) % 2
	}
	return d
}

// windowBound returns a lower bound on the quarter turns that solve s:
// bound's, or if that is at most need, the largest of it and the two
// edge pattern databases of Estimate.
func windowBound(s State, need int) int {
	b := bound(s)
	if b > need {
		return b
	}
	t := edgeTable()
	b = max(b, nibble(t, halfEdges.index(s, false)))
	if b > need {
		return b
	}
	return max(b, nibble(t, halfEdges.index(s, true)))
}
