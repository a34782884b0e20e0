// Package tiling computes the context codes of a context model (package
// cm) from a board of small cell values: the codes of the rectangular
// tiles of a window around an anchor cell, as the domains of Orseau,
// Hutter & Lelis (2023) define their contexts. It imports nothing of the
// project, so that the domain packages can use it.
//
// A code is exact, not a hash: the values of a tile's cells, read row by
// row, as the digits of a number in base Base (the first cell the most
// significant digit).
package tiling

import (
	"fmt"
	"math"
	"math/bits"
)

// MaxWindow is the largest number of cells of a window, (2·RowReach+1)·
// (2·ColReach+1).
const MaxWindow = 256

// A Tiling is a set of tiles of TileRows×TileCols cells whose top-left
// corner (r, c) lies within r0−RowReach ≤ r ≤ r0+RowReach+1−TileRows and
// c0−ColReach ≤ c ≤ c0+ColReach+1−TileCols for an anchor (r0, c0), at
// stride 1, so that they overlap and cover the window of rows
// r0−RowReach to r0+RowReach and columns c0−ColReach to c0+ColReach. Each
// tile is one mutex set of the context model: in every state it gives one
// code. Tiles are numbered row-major over their corners.
type Tiling struct {
	RowReach, ColReach, TileRows, TileCols int
}

// Check returns an error unless t is a tiling whose tiles fit its window
// and whose codes in base base fit in a uint64.
func (t Tiling) Check(base uint64) error {
	switch {
	case t.RowReach < 0 || t.ColReach < 0 || t.TileRows < 1 || t.TileCols < 1:
		return fmt.Errorf("tiling: %+v: negative reach or empty tile", t)
	case t.TileRows > 2*t.RowReach+1 || t.TileCols > 2*t.ColReach+1:
		return fmt.Errorf("tiling: %+v: the tile is larger than the window", t)
	case (2*t.RowReach+1)*(2*t.ColReach+1) > MaxWindow:
		return fmt.Errorf("tiling: %+v: window of more than %d cells", t, MaxWindow)
	case base < 2:
		return fmt.Errorf("tiling: base %d; want >= 2", base)
	}
	if _, ok := pow(base, t.TileRows*t.TileCols); !ok {
		return fmt.Errorf("tiling: %+v: codes in base %d overflow 64 bits", t, base)
	}
	return nil
}

// Len returns the number of tiles, (2·RowReach+2−TileRows)·(2·ColReach+2−TileCols).
func (t Tiling) Len() int {
	return (2*t.RowReach + 2 - t.TileRows) * (2*t.ColReach + 2 - t.TileCols)
}

// Size returns the number of codes of a tile in base base,
// base^(TileRows·TileCols); t must pass Check(base).
func (t Tiling) Size(base uint64) uint64 {
	n, ok := pow(base, t.TileRows*t.TileCols)
	if !ok {
		panic(fmt.Sprintf("tiling: %+v: codes in base %d overflow 64 bits", t, base))
	}
	return n
}

// pow returns b^e and whether it fits in a uint64.
func pow(b uint64, e int) (uint64, bool) {
	n := uint64(1)
	for range e {
		hi, lo := bits.Mul64(n, b)
		if hi != 0 {
			return 0, false
		}
		n = lo
	}
	return n, true
}

// A Board is a grid of cell values, row-major, read by Codes.
type Board struct {
	Rows, Cols int
	Cells      []uint8 // len Rows·Cols
	// Pad is the value of the cells outside the board.
	Pad uint8
}

// Codes writes to dst the codes of the tiles of t anchored at cell (r0,
// c0) of b, in base base, one per tile in tile order, and returns the
// rest of dst. Every cell value, Pad included, must be less than base;
// dst must have room for t.Len() codes. It allocates nothing. (A Window
// read once serves several tilings of the same anchor.)
func (t Tiling) Codes(b Board, r0, c0 int, base uint64, dst []uint64) []uint64 {
	var w Window
	w.Read(b, r0, c0, t.RowReach, t.ColReach)
	return w.Codes(t, base, dst)
}

// A Window holds the cells of a board around an anchor, those off the
// board as its Pad, for the tilings whose reach is at most its own.
type Window struct {
	rowReach, colReach, width int
	cells                     [MaxWindow]uint8
}

// Read sets w to the window of rows r0−rowReach to r0+rowReach and
// columns c0−colReach to c0+colReach of b, at most MaxWindow cells.
func (w *Window) Read(b Board, r0, c0, rowReach, colReach int) {
	h, wd := 2*rowReach+1, 2*colReach+1
	if h*wd > MaxWindow {
		panic(fmt.Sprintf("tiling: window of %dx%d cells", h, wd))
	}
	w.rowReach, w.colReach, w.width = rowReach, colReach, wd
	for i := range h {
		r := r0 - rowReach + i
		row := w.cells[i*wd : (i+1)*wd]
		if r < 0 || r >= b.Rows {
			for j := range row {
				row[j] = b.Pad
			}
			continue
		}
		for j := range row {
			c := c0 - colReach + j
			v := b.Pad
			if c >= 0 && c < b.Cols {
				v = b.Cells[r*b.Cols+c]
			}
			row[j] = v
		}
	}
}

// Codes writes to dst the codes of the tiles of t anchored at w's anchor,
// as Tiling.Codes does, and returns the rest of dst. t's reach must be at
// most w's.
func (w *Window) Codes(t Tiling, base uint64, dst []uint64) []uint64 {
	if t.RowReach > w.rowReach || t.ColReach > w.colReach {
		panic(fmt.Sprintf("tiling: %+v reaches beyond a window of reach %d, %d", t, w.rowReach, w.colReach))
	}
	off := (w.rowReach-t.RowReach)*w.width + w.colReach - t.ColReach
	h, wd := 2*t.RowReach+1, 2*t.ColReach+1
	n := 0
	for i := 0; i+t.TileRows <= h; i++ {
		for j := 0; j+t.TileCols <= wd; j++ {
			var code uint64
			for di := range t.TileRows {
				k := off + (i+di)*w.width + j
				for _, v := range w.cells[k : k+t.TileCols] {
					code = code*base + uint64(v)
				}
			}
			dst[n] = code
			n++
		}
	}
	return dst[n:]
}

// Pair returns the code of the pair (a, b) with b < sizeB: a·sizeB + b,
// which is less than sizeA·sizeB; it panics if that overflows.
func Pair(a, b, sizeB uint64) uint64 {
	hi, lo := bits.Mul64(a, sizeB)
	if hi != 0 || lo > math.MaxUint64-b {
		panic("tiling: Pair overflows")
	}
	return lo + b
}
