package rubiks

import (
	"math/bits"
	"sync"
)

// Estimate returns an estimate of the number of quarter turns that solve
// s, for searches that need a guide more than a bound: the sum of
//
//   - the number of quarter turns that solve its corners (the pattern
//     database of Heuristic), and
//   - for each half of the edges, the number of quarter turns that bring
//     those six edges home, ignoring the other cubies, read from a pattern
//     database of their 42,577,920 arrangements (4 bits each, 21 MB).
//
// The halves are UR, UF, UL, UB, FR, FL and their images under the
// half turn of the whole cube about the R-L axis (DR, DB, DL, DF, BR,
// BL), which one database serves. Each term is a lower bound, their sum
// is not: on random cubes its mean is 28.25, where the optimum is about
// 20.6 (the Heuristic's mean is 10.67). It is 0 for the solved cube only.
//
// The edge database is built on the first call, by a breadth-first search:
// about 3 s of CPU time and 53 MB of memory at the peak, 21 MB kept
// (BenchmarkEdgeTableBuild); the corner one as Heuristic says. Estimate
// is safe for concurrent use; it allocates nothing.
func (p *Problem) Estimate(s State) float64 {
	return float64(estimate(s, halfEdges, edgeTable()))
}

// estimate is Estimate with the edge pattern pat and its image under x2
// in place of the halves, and the pattern database t of pat.
func estimate(s State, pat *edgePattern, t []uint64) int {
	return cornerDistance(s) + nibble(t, pat.index(s, false)) + nibble(t, pat.index(s, true))
}

// nibble returns entry i of a table of 4-bit entries, 16 to a word.
func nibble(t []uint64, i int) int { return int(t[i>>4] >> (4 * (i & 15)) & 15) }

// An edgePattern is a set of k edge cubies whose arrangements, where each
// is and how it is flipped, a pattern database indexes: the rank of their
// slots, in the order of the pattern, among the 12!/(12-k)! placements,
// times 2^k, plus their flips (bit j for the j-th cubie of the pattern).
type edgePattern struct {
	k int
	// member[j] is 1 + the place of cubie j in the pattern, 0 if it is
	// not in it.
	member [12]uint8
	// places is the number of placements, 12!/(12-k)!.
	places int
}

// newEdgePattern returns the pattern of the given cubies, 1 to 12 of them.
func newEdgePattern(cubies ...uint8) *edgePattern {
	p := &edgePattern{k: len(cubies), places: 1}
	for i, j := range cubies {
		p.member[j] = uint8(i + 1)
		p.places *= 12 - i
	}
	return p
}

// size returns the number of arrangements of the pattern's cubies.
func (p *edgePattern) size() int { return p.places << p.k }

// rank returns the index of the arrangement with the cubies of the pattern
// in the given slots, with the given flips.
func (p *edgePattern) rank(slots *[12]uint8, flips int) int {
	r := 0
	var used uint16
	for i := range p.k {
		s := slots[i]
		r = r*(12-i) + int(s) - bits.OnesCount16(used&(1<<s-1))
		used |= 1 << s
	}
	return r<<p.k | flips
}

// unrank returns the slots of the cubies of the pattern in the arrangement
// of index i, and their flips.
func (p *edgePattern) unrank(i int) (slots [12]uint8, flips int) {
	flips, r := i&(1<<p.k-1), i>>p.k
	var digit [12]int
	for j := p.k - 1; j >= 0; j-- {
		digit[j] = r % (12 - j)
		r /= 12 - j
	}
	free := uint16(1<<12 - 1)
	for j := range p.k {
		m := free
		for range digit[j] {
			m &= m - 1
		}
		s := bits.TrailingZeros16(m)
		slots[j] = uint8(s)
		free &^= 1 << s
	}
	return slots, flips
}

// index returns the index of the arrangement of the pattern's cubies in
// s; with conj, that of their arrangement in the image of s under the half
// turn x2 of the whole cube about the R-L axis, which is the arrangement in
// s of the images of the cubies (x2 is its own inverse). A turn of s is a
// turn of its image (x2 maps the faces U, F, D, B to D, B, U, F and
// clockwise to clockwise), and x2 keeps the flips (it maps the U and D
// facelets and colours to D and U ones, and the F and B ones of the middle
// layer to B and F ones), so both are distances of patterns of s.
func (p *edgePattern) index(s State, conj bool) int {
	var slots [12]uint8
	flips := 0
	e := s.edges
	for i := range 12 {
		v := int(e & 31)
		e >>= 5
		j, slot := v>>1, i
		if conj {
			j, slot = int(x2Edge[j]), int(x2Edge[i])
		}
		if m := int(p.member[j]); m != 0 {
			slots[m-1] = uint8(slot)
			flips |= (v & 1) << (m - 1)
		}
	}
	return p.rank(&slots, flips)
}

// x2Edge[i] is the edge slot, or cubie, that the half turn of the whole
// cube about the R-L axis takes edge slot, or cubie, i to.
var x2Edge = [12]uint8{UR: DR, UF: DB, UL: DL, UB: DF, DR: UR, DF: UB, DL: UL, DB: UF, FR: BR, FL: BL, BL: FL, BR: FR}

// halfEdges is the pattern of the edge database: the edges of the U layer,
// FR and FL; x2 takes them to the other six.
var halfEdges = newEdgePattern(UR, UF, UL, UB, FR, FL)

// edgeTable returns the edge pattern database of halfEdges: entry i, as
// nibble reads it, is the number of quarter turns that bring the six
// cubies home from their arrangement of index i.
var edgeTable = sync.OnceValue(func() []uint64 { return buildEdgeTable(halfEdges) })

// buildEdgeTable returns the pattern database of p by a breadth-first
// search from the arrangement with its cubies home, as buildCornerTable.
func buildEdgeTable(p *edgePattern) []uint64 {
	// The move table of the placements: the placement after each action
	// (shifted by k) and the flips it adds.
	move := make([][NumActions]uint32, p.places)
	var to, flip [NumActions][12]uint8 // where an action takes an edge slot, whether it flips the edge
	for a := range NumActions {
		t := &turns[a]
		for i := range 12 {
			to[a][i] = uint8(i)
		}
		for k := range 4 {
			src, dst := t.esrc[k]/5, t.edst[k]/5
			to[a][src] = dst
			flip[a][src] = uint8(t.eflip >> t.edst[k] & 1)
		}
	}
	for r := range p.places {
		slots, _ := p.unrank(r << p.k)
		for a := range NumActions {
			var next [12]uint8
			f := 0
			for j := range p.k {
				next[j] = to[a][slots[j]]
				f |= int(flip[a][slots[j]]) << j
			}
			move[r][a] = uint32(p.rank(&next, f))
		}
	}
	home := [12]uint8{}
	for j, m := range p.member {
		if m != 0 {
			home[m-1] = uint8(j)
		}
	}
	return breadthFirst(p.size(), p.rank(&home, 0), &tableMoves{place: move, k: p.k})
}

// tableMoves are the actions on the states of a pattern database, by move
// tables: those of the permutation and of the twists of the corners, or
// those of the placements of an edge pattern of k cubies (place[r][a] is
// the index of the arrangement that action a makes of that of placement r
// with no flips).
type tableMoves struct {
	perm, twist [][NumActions]uint16
	place       [][NumActions]uint32
	k           int
}

// next writes to next[a] the state that action a takes state i to, for
// every action.
func (m *tableMoves) next(i int, next *[NumActions]int) {
	if m.place != nil {
		row, flips := &m.place[i>>m.k], i&(1<<m.k-1)
		for a := range NumActions {
			next[a] = int(row[a]) ^ flips
		}
		return
	}
	perm, twist := &m.perm[i/numCornerTwist], &m.twist[i%numCornerTwist]
	for a := range NumActions {
		next[a] = int(perm[a])*numCornerTwist + int(twist[a])
	}
}

// reaches reports whether an action takes state i to a state at distance
// d in the table t.
func (m *tableMoves) reaches(t []uint64, i, d int) bool {
	if m.place != nil {
		row, flips := &m.place[i>>m.k], i&(1<<m.k-1)
		for a := range NumActions {
			if nibble(t, int(row[a])^flips) == d {
				return true
			}
		}
		return false
	}
	perm, twist := &m.perm[i/numCornerTwist], &m.twist[i%numCornerTwist]
	for a := range NumActions {
		if nibble(t, int(perm[a])*numCornerTwist+int(twist[a])) == d {
			return true
		}
	}
	return false
}

// breadthFirst returns the table of 4-bit distances of n states, 16 to a
// word, from the state start, where m gives the states that the actions
// take a state to and every action has its inverse. n must be a
// multiple of 16, and every state within 14 actions of start.
func breadthFirst(n, start int, m *tableMoves) []uint64 {
	// Entries of 15 stand for states not yet reached.
	const unseen = 15
	t := make([]uint64, n/16)
	for i := range t {
		t[i] = ^uint64(0)
	}
	set := func(i, d int) { t[i>>4] ^= uint64(unseen^d) << (4 * (i & 15)) } // from unseen to d
	var next [NumActions]int
	set(start, 0)
	seen, frontier := 1, 1
	for d := 0; seen < n; d++ {
		// Forwards from the states at distance d while they are fewer
		// than the unseen ones, then backwards from the unseen ones.
		forward := frontier < n-seen
		want := unseen
		if forward {
			want = d
		}
		frontier = 0
		for w, x := range t {
			if !hasNibble(x, want) {
				continue
			}
			for k := range 16 {
				if int(x>>(4*k)&15) != want {
					continue
				}
				i := w<<4 | k
				if !forward {
					if m.reaches(t, i, d) {
						set(i, d+1)
						frontier++
					}
					continue
				}
				m.next(i, &next)
				for _, j := range next {
					if nibble(t, j) == unseen {
						set(j, d+1)
						frontier++
					}
				}
			}
		}
		seen += frontier
	}
	return t
}
