// Package searchtest provides small problems for testing search algorithms:
// a grid maze with a Manhattan heuristic, and breadth-first search to obtain
// optimal solution lengths to compare against.
package searchtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/phs-go/phs/search"
)

// Actions of the maze, in the order every domain of this module uses.
const (
	Up = iota
	Down
	Left
	Right
)

// A Maze is a 4-connected grid with walls, a start and a goal cell.
// States are cell indices r*W+c.
type Maze struct {
	W, H        int
	wall        []bool
	start, goal int32
}

// ParseMaze reads a maze from rows of '#' (wall), '.' or ' ' (floor),
// 'S' (start) and 'G' (goal). It panics on malformed input: it is meant for
// literals in tests.
func ParseMaze(rows ...string) *Maze {
	m := &Maze{H: len(rows), W: len(rows[0]), start: -1, goal: -1}
	for r, row := range rows {
		if len(row) != m.W {
			panic(fmt.Sprintf("searchtest: row %d has %d cells, want %d", r, len(row), m.W))
		}
		for c, ch := range row {
			i := int32(r*m.W + c)
			switch ch {
			case '#':
				m.wall = append(m.wall, true)
				continue
			case 'S':
				m.start = i
			case 'G':
				m.goal = i
			case '.', ' ':
			default:
				panic(fmt.Sprintf("searchtest: unknown cell %q", ch))
			}
			m.wall = append(m.wall, false)
		}
	}
	if m.start < 0 || m.goal < 0 {
		panic("searchtest: maze needs S and G")
	}
	return m
}

// Root returns the start cell.
func (m *Maze) Root() int32 { return m.start }

// NumActions returns 4: up, down, left, right.
func (m *Maze) NumActions() int { return 4 }

// Apply moves one cell in direction a unless a wall or the border blocks it.
func (m *Maze) Apply(s int32, a int) (int32, bool) {
	r, c := int(s)/m.W, int(s)%m.W
	switch a {
	case Up:
		r--
	case Down:
		r++
	case Left:
		c--
	case Right:
		c++
	}
	if r < 0 || r >= m.H || c < 0 || c >= m.W || m.wall[r*m.W+c] {
		return 0, false
	}
	return int32(r*m.W + c), true
}

// IsGoal reports whether s is the goal cell.
func (m *Maze) IsGoal(s int32) bool { return s == m.goal }

// ActionName returns "U", "D", "L" or "R".
func (m *Maze) ActionName(a int) string { return "UDLR"[a : a+1] }

// Heuristic returns the Manhattan distance from s to the goal.
func (m *Maze) Heuristic(s int32) float64 {
	dr := int(s)/m.W - int(m.goal)/m.W
	dc := int(s)%m.W - int(m.goal)%m.W
	return float64(abs(dr) + abs(dc))
}

// InputShape returns the shape of Encode's output: wall, agent and goal planes.
func (m *Maze) InputShape() (c, h, w int) { return 3, m.H, m.W }

// Encode writes the wall, agent and goal planes of s to dst.
func (m *Maze) Encode(s int32, dst []float32) {
	n := m.W * m.H
	clear(dst[:3*n])
	for i, w := range m.wall {
		if w {
			dst[i] = 1
		}
	}
	dst[n+int(s)] = 1
	dst[2*n+int(m.goal)] = 1
}

// AppendOnes appends the places of the 1s of Encode's encoding of s.
func (m *Maze) AppendOnes(s int32, dst []int32) []int32 {
	for i, w := range m.wall {
		if w {
			dst = append(dst, int32(i))
		}
	}
	n := int32(m.W * m.H)
	return append(dst, n+s, 2*n+m.goal)
}

// String draws the maze.
func (m *Maze) String() string {
	var b strings.Builder
	for i, w := range m.wall {
		switch {
		case w:
			b.WriteByte('#')
		case int32(i) == m.start:
			b.WriteByte('S')
		case int32(i) == m.goal:
			b.WriteByte('G')
		default:
			b.WriteByte('.')
		}
		if (i+1)%m.W == 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// BFS returns the length of a shortest solution of p, or -1 if there is
// none. It explores every reachable state, so keep p small.
func BFS[S comparable](p search.Problem[S]) int {
	root := p.Root()
	if p.IsGoal(root) {
		return 0
	}
	seen := map[S]bool{root: true}
	frontier := []S{root}
	for depth := 1; len(frontier) > 0; depth++ {
		var next []S
		for _, s := range frontier {
			for a := range p.NumActions() {
				t, ok := p.Apply(s, a)
				if !ok || seen[t] {
					continue
				}
				if p.IsGoal(t) {
					return depth
				}
				seen[t] = true
				next = append(next, t)
			}
		}
		frontier = next
	}
	return -1
}

// CheckOneHot returns an error unless, for each of states, p's Encode
// writes every value of the encoding, each 0 or 1, and AppendOnes gives
// the places of its 1s, each once, after the values dst holds already.
func CheckOneHot[S comparable](p search.OneHotEncoder[S], states []S) error {
	c, h, w := p.InputShape()
	enc := make([]float32, c*h*w)
	for i, s := range states {
		for j := range enc {
			enc[j] = 7
		}
		p.Encode(s, enc)
		ones := p.AppendOnes(s, []int32{-1})
		if ones[0] != -1 {
			return fmt.Errorf("state %d: AppendOnes overwrote dst's values", i)
		}
		want := make([]float32, len(enc))
		for _, j := range ones[1:] {
			if j < 0 || int(j) >= len(enc) {
				return fmt.Errorf("state %d: AppendOnes gives place %d of an encoding of %d", i, j, len(enc))
			}
			if want[j] == 1 {
				return fmt.Errorf("state %d: AppendOnes gives place %d twice", i, j)
			}
			want[j] = 1
		}
		for j, v := range enc {
			if v != want[j] {
				return fmt.Errorf("state %d: Encode wrote %g at %d, AppendOnes says %g", i, v, j, want[j])
			}
		}
	}
	return nil
}

// Solve runs alg on p with a new search.Solver: a shorthand for tests that
// search once.
func Solve[S comparable](ctx context.Context, p search.Problem[S], ev search.Evaluator[S], alg search.Algorithm, opts search.Options) (search.Result[S], error) {
	s, err := search.NewSolver(alg, ev, opts)
	if err != nil {
		return search.Result[S]{}, err
	}
	return s.Solve(ctx, p)
}

// Mazes returns n random 6x6 mazes with a start and a goal, the shortest
// solution of each at least 3 moves long, made from seed; their IDs are
// "maze#0", "maze#1", ....
func Mazes(n int, seed uint64) []search.Task[int32] {
	rng := rand.New(rand.NewPCG(seed, 1))
	var ts []search.Task[int32]
	for len(ts) < n {
		rows := make([][]byte, 6)
		for r := range rows {
			rows[r] = []byte("......")
			for c := range rows[r] {
				if rng.IntN(5) == 0 {
					rows[r][c] = '#'
				}
			}
		}
		s, g := rng.IntN(36), rng.IntN(36)
		if s == g {
			continue
		}
		rows[s/6][s%6], rows[g/6][g%6] = 'S', 'G'
		strs := make([]string, 6)
		for i, r := range rows {
			strs[i] = string(r)
		}
		m := ParseMaze(strs...)
		if BFS[int32](m) < 3 { // unsolvable, or too easy for budgets 1 and 2
			continue
		}
		ts = append(ts, search.Task[int32]{ID: fmt.Sprintf("maze#%d", len(ts)), Problem: m})
	}
	return ts
}
