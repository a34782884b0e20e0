package rubiks

import (
	"math/bits"
	"sync"
)

// Sizes of the corner coordinates: the permutation of the 8 corners and
// the twists of the first 7 (the last one follows).
const (
	numCornerPerm  = 40320 // 8!
	numCornerTwist = 2187  // 3^7
	numCorners     = numCornerPerm * numCornerTwist
)

// Heuristic returns a lower bound on the number of quarter turns that
// solve s: the larger of
//
//   - the number of quarter turns that solve its corners, ignoring the
//     edges, read from a pattern database of the 88,179,840 arrangements of
//     the corners (4 bits each, 44 MB); and
//   - the sum over the edges of the quarter turns that bring each one home
//     on its own, divided by 4 (a turn moves four edges) and rounded up to
//     an integer of the parity of the first term.
//
// A quarter turn makes an odd permutation of the corners (a 4-cycle), so
// the first term and the number of turns that solve s both have the
// parity of the corner permutation. Both terms are distances of relaxed
// problems that a turn changes by at most 1, the second rounded up to the
// parity of the distance, so the bound is admissible and consistent, has
// the parity of the distance, and is 0 for the solved cube only. On the
// 1000 cubes of the DeepCubeA test set its mean is 10.67.
//
// The pattern database is built on the first call, by a breadth-first
// search of the corner arrangements: about 3 s of CPU time, 44 MB of memory
// (BenchmarkCornerTableBuild). Heuristic is safe for concurrent use; it
// allocates nothing.
func (p *Problem) Heuristic(s State) float64 {
	return float64(bound(s))
}

// bound is Problem.Heuristic as an integer.
func bound(s State) int {
	c := cornerDistance(s)
	e := (edgeSum(s) + 3) / 4
	return max(c, e+(e^c)&1)
}

// cornerDistance returns the number of quarter turns that solve the
// corners of s.
func cornerDistance(s State) int {
	return nibble(cornerTable(), cornerIndex(s))
}

// cornerIndex returns the index of the corners of s in the pattern
// database: the rank of their permutation times 3^7 plus their twists.
func cornerIndex(s State) int {
	perm, twist := 0, 0
	var used uint32
	c := s.corners
	for i := range 8 {
		v := c & 31
		c >>= 5
		j := cornerCubie[v]
		perm = perm*(8-i) + int(j) - bits.OnesCount32(used&(1<<j-1))
		used |= 1 << j
		if i < 7 {
			twist = twist*3 + int(cornerTwist[v])
		}
	}
	return perm*numCornerTwist + twist
}

// cornerCubie[v] and cornerTwist[v] are the cubie and twist of corner
// field v.
var cornerCubie, cornerTwist [32]uint8

func init() {
	for v := range 24 {
		cornerCubie[v], cornerTwist[v] = uint8(v/3), uint8(v%3)
	}
}

// cornerFromIndex returns a cube whose corners have the index i and whose
// edges are solved.
func cornerFromIndex(i int) State {
	perm, twist := i/numCornerTwist, i%numCornerTwist
	var c cubies
	// The digits of the rank, the last (radix 1) first.
	var digit [8]int
	for r := 1; r <= 8; r++ {
		digit[8-r] = perm % r
		perm /= r
	}
	free := uint32(1<<8 - 1)
	for k := range 8 {
		// The cubie is the digit[k]-th free one.
		m := free
		for range digit[k] {
			m &= m - 1
		}
		j := bits.TrailingZeros32(m)
		c.cp[k] = uint8(j)
		free &^= 1 << j
	}
	sum := 0
	for k := 6; k >= 0; k-- {
		c.co[k] = uint8(twist % 3)
		sum += twist % 3
		twist /= 3
	}
	c.co[7] = uint8((3 - sum%3) % 3)
	for k := range 12 {
		c.ep[k] = uint8(k)
	}
	return c.pack()
}

// cornerTable returns the corner pattern database: entry i, in bits
// 4(i%16) to 4(i%16)+3 of word i/16, is the number of quarter turns that
// solve the corners of index i.
var cornerTable = sync.OnceValue(buildCornerTable)

func buildCornerTable() []uint64 {
	// Move tables of the two coordinates: how each action changes them.
	// The permutation does not depend on the twists and the twists of a
	// cube do not depend on its permutation.
	permMove := make([][NumActions]uint16, numCornerPerm)
	for perm := range numCornerPerm {
		s := cornerFromIndex(perm * numCornerTwist)
		for a := range NumActions {
			t, _ := Apply(s, a)
			permMove[perm][a] = uint16(cornerIndex(t) / numCornerTwist)
		}
	}
	twistMove := make([][NumActions]uint16, numCornerTwist)
	for twist := range numCornerTwist {
		s := cornerFromIndex(twist)
		for a := range NumActions {
			t, _ := Apply(s, a)
			twistMove[twist][a] = uint16(cornerIndex(t) % numCornerTwist)
		}
	}

	return breadthFirst(numCorners, cornerIndex(solved), &tableMoves{perm: permMove, twist: twistMove})
}

// hasNibble reports whether one of the 16 nibbles of x is v, 0 ≤ v < 16.
func hasNibble(x uint64, v int) bool {
	const ones = 0x1111111111111111
	x ^= ones * uint64(v) // the nibbles equal to v become 0
	return (x-ones)&^x&(8*ones) != 0
}

// edgeSum returns the sum over the edges of s of the quarter turns that
// bring each one to its slot with its flip 0 when the others are ignored.
func edgeSum(s State) int {
	n := 0
	e := s.edges
	for i := range 12 {
		n += int(edgeDist[i][e&31])
		e >>= 5
	}
	return n
}

// edgeDist[i][v] is the number of quarter turns that bring the edge of
// field v in slot i home, unflipped.
var edgeDist = func() (dist [12][32]uint8) {
	// A breadth-first search from each edge at home, in the space of the
	// 24 (slot, flip) pairs of that edge: a move takes the edge of slot
	// turns[a].esrc[k] to turns[a].edst[k], flipping it if eflip says so.
	for j := range 12 {
		var d [12][2]int8
		for i := range d {
			d[i] = [2]int8{-1, -1}
		}
		d[j][0] = 0
		queue := [][2]int{{j, 0}}
		for len(queue) > 0 {
			q := queue[0]
			queue = queue[1:]
			for a := range NumActions {
				t := &turns[a]
				for k := range 4 {
					if int(t.esrc[k])/5 != q[0] {
						continue
					}
					n := [2]int{int(t.edst[k]) / 5, q[1] ^ int(t.eflip>>t.edst[k]&1)}
					if d[n[0]][n[1]] < 0 {
						d[n[0]][n[1]] = d[q[0]][q[1]] + 1
						queue = append(queue, n)
					}
				}
			}
		}
		// The distance back home is that from home: the moves come in
		// inverse pairs.
		for i := range 12 {
			for f := range 2 {
				dist[i][2*j+f] = uint8(d[i][f])
			}
		}
	}
	return dist
}()
