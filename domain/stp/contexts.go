package stp

import (
	"fmt"

	"github.com/phs-go/phs/cm/tiling"
)

// The contexts of a puzzle for a context model (package cm), those of
// Orseau, Hutter & Lelis (2023) but for the last action, which a state
// does not hold: the tiles of four tilings of the window around the
// blank, each tile one mutex set, read on the board of tile numbers with
// the cells off the board as rows·cols and in base rows·cols+1:
//
//	the 36 tiles of 2x2 cells of the 7x7 window (reach 3),
//	the 20 tiles of 2x1 cells of the 5x5 window (reach 2),
//	the 20 tiles of 1x2 cells of the 5x5 window,
//	the 25 cells of the 5x5 window,
//
// 101 mutex sets, in this order, each tiling's tiles row-major. The
// layout's name is "stp RxC v1"; a Problem and a LargeProblem of the same
// size have the same contexts.
var contextTilings = [...]tiling.Tiling{
	{RowReach: 3, ColReach: 3, TileRows: 2, TileCols: 2},
	{RowReach: 2, ColReach: 2, TileRows: 2, TileCols: 1},
	{RowReach: 2, ColReach: 2, TileRows: 1, TileCols: 2},
	{RowReach: 2, ColReach: 2, TileRows: 1, TileCols: 1},
}

// NumContexts is the number of mutex sets of a puzzle's contexts.
const NumContexts = 36 + 20 + 20 + 25

// contextLayout returns the layout of the contexts of a rows×cols board.
func contextLayout(rows, cols int) (string, []uint64) {
	base := uint64(rows*cols + 1)
	sizes := make([]uint64, 0, NumContexts)
	for _, t := range contextTilings {
		for range t.Len() {
			sizes = append(sizes, t.Size(base))
		}
	}
	return fmt.Sprintf("stp %dx%d v1", rows, cols), sizes
}

// contexts writes the codes of the board cells (rows×cols tile numbers)
// with the blank in cell blank to dst.
func contexts(rows, cols int, cells []uint8, blank int, dst []uint64) {
	b := tiling.Board{Rows: rows, Cols: cols, Cells: cells, Pad: uint8(rows * cols)}
	base := uint64(rows*cols + 1)
	var w tiling.Window
	w.Read(b, blank/cols, blank%cols, 3, 3) // the largest reach
	for _, t := range contextTilings {
		dst = w.Codes(t, base, dst)
	}
}

// ContextLayout returns the name of the puzzle's context set, "stp RxC
// v1", and the number of codes of each of its NumContexts mutex sets.
func (p *Problem) ContextLayout() (string, []uint64) { return contextLayout(p.Rows, p.Cols) }

// Contexts writes the codes of the NumContexts mutex sets of s to dst.
func (p *Problem) Contexts(s State, dst []uint64) {
	var cells [MaxCells]uint8
	n := p.Rows * p.Cols
	for i := range n {
		cells[i] = uint8(s.At(i))
	}
	contexts(p.Rows, p.Cols, cells[:n], s.Blank(), dst)
}

// ContextLayout returns the name of the puzzle's context set, "stp RxC
// v1", and the number of codes of each of its NumContexts mutex sets.
func (p *LargeProblem) ContextLayout() (string, []uint64) { return contextLayout(p.Rows, p.Cols) }

// Contexts writes the codes of the NumContexts mutex sets of s to dst.
func (p *LargeProblem) Contexts(s LargeState, dst []uint64) {
	contexts(p.Rows, p.Cols, s.cells[:p.Rows*p.Cols], s.Blank(), dst)
}
