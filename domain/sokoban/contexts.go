package sokoban

import (
	"math/bits"

	"github.com/phs-go/phs/domain/tiling"
)

// The contexts of a level for a context model (package cm), those of
// Orseau, Hutter & Lelis (2023): the undo action, and the tiles of six
// tilings of the window around the player, each tile one mutex set, read
// on the board whose cell value is 1 for a goal, plus 2 for a box, plus 4
// for the player, or 8 for a wall (8 off the board too), in base 9:
//
//	the action that undoes the move that led to the state if the player
//	walked (Down after Up, …), 4 if it pushed a box or at the root,
//	the 49 tiles of 3x3 cells of the 9x9 window (reach 4),
//	the 16 tiles of 4x2 cells of the 7x5 window (reach 3 rows, 2 columns),
//	the 16 tiles of 2x4 cells of the 5x7 window (reach 2 rows, 3 columns),
//	the 16 tiles of 2x2 cells of the 5x5 window (reach 2),
//	the 6 tiles of 1x2 cells of the 3x3 window (reach 1),
//	the 6 tiles of 2x1 cells of the 3x3 window,
//
// 110 mutex sets, in this order, each tiling's tiles row-major. The codes
// do not depend on the level's size: every level has the layout
// "sokoban v2".
var contextTilings = [...]tiling.Tiling{
	{RowReach: 4, ColReach: 4, TileRows: 3, TileCols: 3},
	{RowReach: 3, ColReach: 2, TileRows: 4, TileCols: 2},
	{RowReach: 2, ColReach: 3, TileRows: 2, TileCols: 4},
	{RowReach: 2, ColReach: 2, TileRows: 2, TileCols: 2},
	{RowReach: 1, ColReach: 1, TileRows: 1, TileCols: 2},
	{RowReach: 1, ColReach: 1, TileRows: 2, TileCols: 1},
}

// NumContexts is the number of mutex sets of a level's contexts.
const NumContexts = 1 + 49 + 16 + 16 + 16 + 6 + 6

// Cell values of the contexts' board.
const (
	cellGoal   = 1
	cellBox    = 2
	cellPlayer = 4
	cellWall   = 8
	cellBase   = 9
)

// ContextLayout returns the name of the level's context set, "sokoban
// v2", and the number of codes of each of its NumContexts mutex sets.
func (p *Problem) ContextLayout() (string, []uint64) {
	sizes := make([]uint64, 0, NumContexts)
	sizes = append(sizes, 5) // the undo action
	for _, t := range contextTilings {
		for range t.Len() {
			sizes = append(sizes, t.Size(cellBase))
		}
	}
	return "sokoban v2", sizes
}

// Contexts writes the codes of the NumContexts mutex sets of s, reached
// from parent by action a (−1 at the root), to dst.
func (p *Problem) Contexts(parent State, a int, s State, dst []uint64) {
	dst[0] = 4
	if a >= 0 && parent.boxes == s.boxes {
		dst[0] = uint64(a ^ 1) // Up and Down, Left and Right
	}
	dst = dst[1:]
	var cells [MaxCells]uint8
	n := p.rows * p.cols
	for i := range n {
		switch {
		case has(p.walls, i):
			cells[i] = cellWall
		case has(p.goals, i):
			cells[i] = cellGoal
		}
	}
	for w, set := range s.boxes {
		for ; set != 0; set &= set - 1 {
			cells[64*w+bits.TrailingZeros64(set)] |= cellBox
		}
	}
	cells[s.player] |= cellPlayer
	b := tiling.Board{Rows: p.rows, Cols: p.cols, Cells: cells[:n], Pad: cellWall}
	var w tiling.Window
	w.Read(b, int(s.player)/p.cols, int(s.player)%p.cols, 4, 4) // the largest reach
	for _, t := range contextTilings {
		dst = w.Codes(t, cellBase, dst)
	}
}
