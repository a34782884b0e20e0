package stp

import "math/bits"

// MaxCells is the largest number of cells a State holds: 25 tiles of 5 bits
// in 128 bits.
const MaxCells = 25

// A State is an arrangement of the tiles of a board of up to MaxCells
// cells: the tile in cell i is held in bits 5i to 5i+4 of the 128-bit
// number hi·2⁶⁴ + lo (cell 12 straddles the two words); the bits above the
// last cell are zero. The blank's cell is not stored: it is the lowest cell
// whose field is zero, found with a few word operations. A State is 16
// bytes and its own key.
type State struct {
	lo, hi uint64
}

const (
	mask60 = 1<<60 - 1
	// ones5 has bit 5i set for i < 12: the low bit of each field of a word.
	ones5 = mask60 / 31
	low4  = 15 * ones5 // the low 4 bits of each field
	high1 = 16 * ones5 // the high bit of each field
)

// At returns the tile in cell i (0 for the blank), for 0 ≤ i < MaxCells.
func (s State) At(i int) int { return int(s.field(uint(5 * i))) }

// field returns the 5 bits from bit k, k < 128.
func (s State) field(k uint) uint64 {
	// Shifts by 64 or more give 0, so exactly one or two terms are non-zero.
	return (s.lo>>k | s.hi<<(64-k) | s.hi>>(k-64)) & 31
}

// Blank returns the cell of the blank: the lowest cell that holds 0.
func (s State) Blank() int {
	if z := zeroField(s.lo); z < 12 {
		return z
	}
	if s.field(60) == 0 {
		return 12
	}
	return 13 + zeroField(s.hi>>1)
}

// zeroField returns the index of the lowest zero field among the twelve
// 5-bit fields in the low 60 bits of x, or 12 if there is none.
func zeroField(x uint64) int {
	x &= mask60
	// Adding 15 to the low 4 bits of a field carries into its high bit if
	// and only if they are not all zero: no carry leaves a field.
	nonzero := ((x & low4) + low4 | x) & high1
	return bits.TrailingZeros64(high1&^nonzero) / 5
}

// shl returns the 128-bit number x·2^k as (lo, hi), for k < 128.
func shl(x uint64, k uint) (lo, hi uint64) {
	return x << k, x<<(k-64) | x>>(64-k)
}

func (s *State) set(i, tile int) {
	k := uint(5 * i)
	lo, hi := shl(s.field(k)^uint64(tile), k)
	s.lo ^= lo
	s.hi ^= hi
}

// The methods below are State's side of Arrangement.

func (State) capacity() int { return MaxCells }

func (s State) tiles() [MaxLargeCells]uint8 {
	var c [MaxLargeCells]uint8
	lo, hi := s.lo, s.hi
	for i := range MaxCells {
		c[i] = uint8(lo & 31)
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return c
}

func (s State) apply(g *geometry, a int) (State, bool) {
	b := s.Blank()
	to := int(g.move[b&63][a&3])
	if to < 0 || uint(a) > 3 {
		return State{}, false
	}
	// Tile x moves from cell to into cell b, whose field is 0.
	k := uint(5 * to)
	x := s.field(k)
	lo1, hi1 := shl(x, k)
	lo2, hi2 := shl(x, uint(5*b))
	return State{s.lo ^ lo1 ^ lo2, s.hi ^ hi1 ^ hi2}, true
}

func (s State) manhattan(g *geometry) int {
	dist := &g.dist
	h := 0
	lo, hi := s.lo, s.hi
	for i := range g.n {
		h += int(dist[(lo&31)<<6|uint64(i&63)])
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return h
}
