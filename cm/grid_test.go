package cm

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"

	"github.com/phs-go/phs/domain/tiling"
	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// A grid is a searchtest.Maze with contexts: the direction of the goal
// (set 0, 9 codes), the 9 cells around the agent (sets 1 to 9, each floor
// 0, wall 1 or goal 2; the border reads as a wall), the four 2x2 tiles of
// that 3x3 window (sets 10 to 13) and the last action (set 14, 4 at the
// root). It counts the edges given to Contexts that are no edges of the
// maze (a parent and an action that do not lead to the state).
type grid struct {
	*searchtest.Maze
	board    tiling.Board
	goal     int
	badEdges *atomic.Int64
}

var (
	gridCells = tiling.Tiling{RowReach: 1, ColReach: 1, TileRows: 1, TileCols: 1}
	gridTiles = tiling.Tiling{RowReach: 1, ColReach: 1, TileRows: 2, TileCols: 2}
)

const gridBase = 3

func newGrid(m *searchtest.Maze) *grid {
	g := &grid{Maze: m, board: tiling.Board{Rows: m.H, Cols: m.W, Pad: 1}, badEdges: new(atomic.Int64)}
	for i, ch := range strings.ReplaceAll(m.String(), "\n", "") {
		v := uint8(0)
		switch ch {
		case '#':
			v = 1
		case 'G':
			v, g.goal = 2, i
		}
		g.board.Cells = append(g.board.Cells, v)
	}
	return g
}

func (g *grid) ContextLayout() (string, []uint64) {
	sizes := []uint64{9}
	for range gridCells.Len() {
		sizes = append(sizes, gridCells.Size(gridBase))
	}
	for range gridTiles.Len() {
		sizes = append(sizes, gridTiles.Size(gridBase))
	}
	sizes = append(sizes, 5)
	return "grid test", sizes
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

func (g *grid) Contexts(parent int32, a int, s int32, dst []uint64) {
	switch {
	case a == -1:
		if parent != s {
			g.badEdges.Add(1)
		}
	case a < 0 || a >= 4:
		g.badEdges.Add(1)
	default:
		if child, ok := g.Apply(parent, a); !ok || child != s {
			g.badEdges.Add(1)
		}
	}
	r, c := int(s)/g.W, int(s)%g.W
	gr, gc := g.goal/g.W, g.goal%g.W
	dst[0] = uint64((sign(gr-r)+1)*3 + sign(gc-c) + 1)
	rest := gridCells.Codes(g.board, r, c, gridBase, dst[1:])
	rest = gridTiles.Codes(g.board, r, c, gridBase, rest)
	rest[0] = uint64((a + 5) % 5) // 4 at the root
}

// grids returns n random grids made from seed.
func grids(n int, seed uint64) []search.Task[int32] {
	ts := searchtest.Mazes(n, seed)
	for i := range ts {
		ts[i].Problem = newGrid(ts[i].Problem.(*searchtest.Maze))
	}
	return ts
}

// openGrids returns n random size×size grids, one cell in 10 a wall,
// whose start and goal are at least size moves apart, made from seed.
func openGrids(n, size int, seed uint64) []search.Task[int32] {
	rng := rand.New(rand.NewPCG(seed, 2))
	var ts []search.Task[int32]
	for len(ts) < n {
		rows := make([][]byte, size)
		for r := range rows {
			rows[r] = []byte(strings.Repeat(".", size))
			for c := range rows[r] {
				if rng.IntN(10) == 0 {
					rows[r][c] = '#'
				}
			}
		}
		s, g := rng.IntN(size*size), rng.IntN(size*size)
		if s == g {
			continue
		}
		rows[s/size][s%size], rows[g/size][g%size] = 'S', 'G'
		strs := make([]string, size)
		for i, r := range rows {
			strs[i] = string(r)
		}
		m := searchtest.ParseMaze(strs...)
		if searchtest.BFS[int32](m) < size {
			continue
		}
		ts = append(ts, search.Task[int32]{ID: fmt.Sprintf("grid#%d", len(ts)), Problem: newGrid(m)})
	}
	return ts
}
