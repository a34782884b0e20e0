package stp

import (
	"encoding/binary"
	"math/bits"
)

// MaxLargeCells is the largest number of cells a LargeState holds: 64, as
// many as 8x8.
const MaxLargeCells = 64

// A LargeState is an arrangement of the tiles of a board of up to
// MaxLargeCells cells: the tile in cell i is byte i (0 for the blank), and
// the bytes past the last cell are 0xFF. The blank's cell is not stored:
// it is the only zero byte, found a word at a time. A LargeState is 64
// bytes and its own key.
type LargeState struct {
	cells [MaxLargeCells]uint8
}

// largeState returns the LargeState with tile tiles[i] in cell i; tiles
// has at most MaxLargeCells entries, each below MaxLargeCells.
func largeState(tiles []int) LargeState {
	var s LargeState
	for i := range s.cells {
		s.cells[i] = 0xFF
	}
	for i, t := range tiles {
		s.cells[i] = uint8(t)
	}
	return s
}

// At returns the tile in cell i (0 for the blank), for i less than the
// board's number of cells.
func (s LargeState) At(i int) int { return int(s.cells[i]) }

const (
	ones8 = 0x0101010101010101
	high8 = 0x8080808080808080
)

// Blank returns the cell of the blank, or MaxLargeCells if s has none (no
// LargeState of a problem lacks one).
func (s LargeState) Blank() int { return zeroByte(&s.cells) }

// zeroByte returns the index of the lowest zero byte of c, or len(c) if
// there is none.
func zeroByte(c *[MaxLargeCells]uint8) int {
	for k := 0; k < MaxLargeCells; k += 8 {
		w := binary.LittleEndian.Uint64(c[k:])
		// The lowest byte flagged is the lowest zero byte: a byte above a
		// zero byte may be flagged by the borrow, never one below.
		if z := (w - ones8) &^ w & high8; z != 0 {
			return k + bits.TrailingZeros64(z)/8
		}
	}
	return MaxLargeCells
}

// The methods below are LargeState's side of Arrangement.

func (LargeState) capacity() int { return MaxLargeCells }

func (s LargeState) tiles() [MaxLargeCells]uint8 { return s.cells }

func (s LargeState) apply(g *geometry, a int) (LargeState, bool) {
	b := zeroByte(&s.cells) // no copy of s, as s.Blank() makes
	to := int(g.move[b][a&3])
	if to < 0 || uint(a) > 3 {
		return LargeState{}, false
	}
	s.cells[b], s.cells[to] = s.cells[to], 0
	return s, true
}

func (s LargeState) manhattan(g *geometry) int {
	dist := &g.dist
	h := 0
	for i, t := range s.cells[:g.n] {
		h += int(dist[int(t&63)<<6|i])
	}
	return h
}
