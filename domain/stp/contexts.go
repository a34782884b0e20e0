package stp

import (
	"fmt"

	"github.com/phs-go/phs/domain/tiling"
)

// The contexts of a puzzle for a context model (package cm), those of
// Orseau, Hutter & Lelis (2023): the tiles of four tilings of the window
// around the blank, each tile one mutex set, read on the board of tile
// numbers with the cells off the board as rows·cols and in base
// rows·cols+1, and the last action:
//
//	the 36 tiles of 2x2 cells of the 7x7 window (reach 3),
//	the 20 tiles of 2x1 cells of the 5x5 window (reach 2),
//	the 20 tiles of 1x2 cells of the 5x5 window,
//	the 25 cells of the 5x5 window,
//	the action that led to the state, 4 at the root,
//
// 102 mutex sets, in this order, each tiling's tiles row-major. The
// layout's name is "stp RxC v2"; a Problem[State] and a
// Problem[LargeState] of the same size have the same contexts.
var contextTilings = [...]tiling.Tiling{
	{RowReach: 3, ColReach: 3, TileRows: 2, TileCols: 2},
	{RowReach: 2, ColReach: 2, TileRows: 2, TileCols: 1},
	{RowReach: 2, ColReach: 2, TileRows: 1, TileCols: 2},
	{RowReach: 2, ColReach: 2, TileRows: 1, TileCols: 1},
}

// NumContexts is the number of mutex sets of a puzzle's contexts.
const NumContexts = 36 + 20 + 20 + 25 + 1

// numActions is the number of the blank's moves, the last action's code
// at the root.
const numActions = 4

// contextLayout returns the layout of the contexts of a rows×cols board.
func contextLayout(rows, cols int) (string, []uint64) {
	base := uint64(rows*cols + 1)
	sizes := make([]uint64, 0, NumContexts)
	for _, t := range contextTilings {
		for range t.Len() {
			sizes = append(sizes, t.Size(base))
		}
	}
	sizes = append(sizes, numActions+1)
	return fmt.Sprintf("stp %dx%d v2", rows, cols), sizes
}

// contexts writes the codes of the board cells (rows×cols tile numbers)
// with the blank in cell blank, reached by action a (−1 at the root), to
// dst.
func contexts(rows, cols int, cells []uint8, blank, a int, dst []uint64) {
	b := tiling.Board{Rows: rows, Cols: cols, Cells: cells, Pad: uint8(rows * cols)}
	base := uint64(rows*cols + 1)
	var w tiling.Window
	w.Read(b, blank/cols, blank%cols, 3, 3) // the largest reach
	for _, t := range contextTilings {
		dst = w.Codes(t, base, dst)
	}
	if a < 0 {
		a = numActions
	}
	dst[0] = uint64(a)
}

// ContextLayout returns the name of the puzzle's context set, "stp RxC
// v2", and the number of codes of each of its NumContexts mutex sets, the
// same for both state types.
func (p *Problem[S]) ContextLayout() (string, []uint64) { return contextLayout(p.Rows, p.Cols) }

// Contexts writes the codes of the NumContexts mutex sets of s, reached
// by action a (−1 at the root), to dst, of length at least NumContexts. It
// allocates nothing.
func (p *Problem[S]) Contexts(_ S, a int, s S, dst []uint64) {
	c := s.tiles()
	contexts(p.Rows, p.Cols, c[:p.g.n], s.Blank(), a, dst)
}
