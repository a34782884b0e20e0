package rubiks

import "slices"

// NumContexts is the number of mutex sets of a cube's contexts: the last
// action and the pairs of its 20 slots (see Problem.Contexts).
const NumContexts = 1 + numPairs

const (
	numSlots  = 8 + 12
	numPairs  = numSlots * (numSlots - 1) / 2
	slotValue = 60 // the slot values are in [0, 60)
)

// contextSizes are the numbers of codes of the mutex sets: the last
// action's 13, then the pairs of slots: the corner
// values are at most 3·7+2 = 23 and the edge values at most 3·19+1 = 58,
// so the codes v_i·60 + v_j of a pair of corner slots are below 23·60+24
// = 1404, of a corner and an edge slot below 23·60+59 = 1439, of a pair
// of edge slots below 58·60+59 = 3539.
var contextSizes = func() []uint64 {
	maxValue := func(slot int) uint64 {
		if slot < 8 {
			return 3*7 + 2
		}
		return 3*19 + 1
	}
	sizes := make([]uint64, 0, NumContexts)
	sizes = append(sizes, NumActions+1)
	for i := range numSlots {
		for j := i + 1; j < numSlots; j++ {
			sizes = append(sizes, maxValue(i)*slotValue+maxValue(j)+1)
		}
	}
	return sizes
}()

// ContextLayout returns the name of the cube's context set, "rubiks v2",
// and the number of codes of each of its NumContexts mutex sets: 13 for
// the last action, then 1404 for
// a pair of corner slots, 1439 for a corner and an edge slot, 3539 for a
// pair of edge slots (the bounds of the codes of Contexts given the
// ranges of the slot values).
func (p *Problem) ContextLayout() (string, []uint64) {
	return "rubiks v2", slices.Clone(contextSizes)
}

// Contexts writes the codes of the NumContexts mutex sets of s, reached
// by action a (−1 at the root), to dst: those of Orseau, Hutter & Lelis
// (2023). The first is the last action, a, or 12 at the root. The cube
// has 20 slots: slot i < 8 is corner slot
// i, slot 8+i edge slot i (numbered as the constants URF to DRB and UR to
// BR), and slot i holds the value
//
//	v_i = 3·j + t       for corner cubie j with twist t (0 ≤ v_i < 24),
//	v_i = 3·(8+j) + f   for edge cubie j with flip f (24 ≤ v_i < 60),
//
// twists and flips as State defines them: the solved cube has v_i = 3i.
// Each pair of slots i < j is a mutex set, whose code is v_i·60 + v_j; the
// 190 pairs follow the last action in lexicographic order: (0, 1), (0,
// 2), …, (0, 19), (1, 2), …, (18, 19). A legal cube gives 24·21 codes of
// a pair of corner slots, 24·24 of a corner and an edge slot, 24·22 of a
// pair of edge slots.
func (p *Problem) Contexts(_ State, a int, s State, dst []uint64) {
	if a < 0 {
		a = NumActions
	}
	dst[0] = uint64(a)
	dst = dst[1:]
	var v [numSlots]uint64
	for i := range 8 {
		v[i] = s.corners >> (5 * i) & 31 // 3j+t
	}
	for i := range 12 {
		e := s.edges >> (5 * i) & 31 // 2j+f
		v[8+i] = 3*(8+e>>1) + e&1
	}
	dst = dst[:numPairs]
	k := 0
	for i, vi := range v {
		for _, vj := range v[i+1:] {
			dst[k] = vi*slotValue + vj
			k++
		}
	}
}
