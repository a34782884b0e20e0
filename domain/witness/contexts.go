package witness

import (
	"fmt"

	"github.com/phs-go/phs/domain/tiling"
)

// The contexts of a puzzle for a context model (package cm), those of
// Orseau, Hutter & Lelis (2023). Two boards are read around the tip of
// the line, with the same offsets: the (R+1)×(C+1) vertex board, whose
// value is 1 if the line has the segment from the vertex up to (l+1, c)
// plus 2 if it has the segment right to (l, c+1) (3 off the board, base
// 4), and the R×C cell board, the colour of each cell's bullet, 0 for
// none (5 off the board, base 6), cell (r, c) aligned with vertex (r, c).
// Each tile of a tiling is one mutex set, whose code is
// verticesCode·6^(cells of a tile) + cellsCode. The mutex sets, in order:
//
//	the exit vertex, l·(C+1) + c,
//	the 49 tiles of 3x3 cells of the 9x9 window (reach 4),
//	the 64 tiles of 2x2 cells of the 9x9 window,
//	the 6 tiles of 2x1 cells of the 3x3 window (reach 1),
//	the 6 tiles of 1x2 cells of the 3x3 window,
//
// 126 mutex sets, each tiling's tiles row-major (rows from l − reach up).
// The layout's name is "witness RxC v1".
var contextTilings = [...]tiling.Tiling{
	{RowReach: 4, ColReach: 4, TileRows: 3, TileCols: 3},
	{RowReach: 4, ColReach: 4, TileRows: 2, TileCols: 2},
	{RowReach: 1, ColReach: 1, TileRows: 2, TileCols: 1},
	{RowReach: 1, ColReach: 1, TileRows: 1, TileCols: 2},
}

// NumContexts is the number of mutex sets of a puzzle's contexts.
const NumContexts = 1 + 49 + 64 + 6 + 6

const (
	vertexBase, vertexPad = 4, 3
	cellBase, cellPad     = 6, MaxColors + 1
)

// ContextLayout returns the name of the puzzle's context set, "witness
// RxC v1", and the number of codes of each of its NumContexts mutex sets.
func (p *Problem) ContextLayout() (string, []uint64) {
	sizes := make([]uint64, 0, NumContexts)
	sizes = append(sizes, uint64((p.Rows+1)*(p.Cols+1)))
	for _, t := range contextTilings {
		for range t.Len() {
			sizes = append(sizes, t.Size(vertexBase)*t.Size(cellBase))
		}
	}
	return fmt.Sprintf("witness %dx%d v1", p.Rows, p.Cols), sizes
}

// Contexts writes the codes of the NumContexts mutex sets of s to dst;
// they do not depend on the edge that led to s.
func (p *Problem) Contexts(_ State, _ int, s State, dst []uint64) {
	var vertices, cells [MaxVertices]uint8
	nv := (p.Rows + 1) * (p.Cols + 1)
	for i := range nv {
		vertices[i] = uint8(s.v>>i&1 | s.h>>i&1<<1)
	}
	for r := range p.Rows {
		for c := range p.Cols {
			cells[r*p.Cols+c] = uint8(p.Color(r, c))
		}
	}
	vb := tiling.Board{Rows: p.Rows + 1, Cols: p.Cols + 1, Cells: vertices[:nv], Pad: vertexPad}
	cb := tiling.Board{Rows: p.Rows, Cols: p.Cols, Cells: cells[:p.Rows*p.Cols], Pad: cellPad}
	l, c := p.Tip(s)
	el, ec := p.Goal()
	dst[0] = uint64(el*(p.Cols+1) + ec)
	dst = dst[1:]
	var vw, cw tiling.Window // the largest reach
	vw.Read(vb, l, c, 4, 4)
	cw.Read(cb, l, c, 4, 4)
	var vc, cc [64]uint64
	for _, t := range contextTilings {
		n := t.Len()
		vw.Codes(t, vertexBase, vc[:n])
		cw.Codes(t, cellBase, cc[:n])
		size := t.Size(cellBase)
		for i := range n {
			dst[i] = tiling.Pair(vc[i], cc[i], size)
		}
		dst = dst[n:]
	}
}
