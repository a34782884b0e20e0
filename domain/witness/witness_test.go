package witness

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

var (
	_ search.Heuristic[State] = (*Problem)(nil)
	_ search.Encoder[State]   = (*Problem)(nil)
)

func read(t testing.TB, path string) []*Problem {
	t.Helper()
	ps, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func mustParse(t testing.TB, text string) *Problem {
	t.Helper()
	ps, err := Parse(strings.NewReader(text), "test.txt")
	if err != nil {
		t.Fatal(err)
	}
	return ps[0]
}

// play applies the moves of a string of U, D, L, R; ok is false if one is
// illegal.
func play(p *Problem, moves string) (s State, ok bool) {
	s = p.Root()
	for _, m := range moves {
		s, ok = p.Apply(s, strings.IndexRune("UDLR", m))
		if !ok {
			return s, false
		}
	}
	return s, true
}

// line is a naive model of a line: its vertices in order.
type line [][2]int

var delta = [4][2]int{{1, 0}, {-1, 0}, {0, -1}, {0, 1}}

// modelApply is the move rule of the package documentation on the naive
// model.
func modelApply(p *Problem, ln line, a int) (line, bool) {
	tip := ln[len(ln)-1]
	gl, gc := p.Goal()
	if tip == [2]int{gl, gc} && !p.ContinueAtExit {
		return nil, false
	}
	to := [2]int{tip[0] + delta[a][0], tip[1] + delta[a][1]}
	if to[0] < 0 || to[0] > p.Rows || to[1] < 0 || to[1] > p.Cols {
		return nil, false
	}
	for _, v := range ln {
		if v == to {
			return nil, false
		}
	}
	return append(ln[:len(ln):len(ln)], to), true
}

// modelGoal is the goal test of the package documentation on the naive
// model, by a flood fill of the cells.
func modelGoal(p *Problem, ln line) bool {
	gl, gc := p.Goal()
	if ln[len(ln)-1] != [2]int{gl, gc} {
		return false
	}
	type seg [2][2]int
	cut := map[seg]bool{}
	for i := 1; i < len(ln); i++ {
		a, b := ln[i-1], ln[i]
		cut[seg{a, b}], cut[seg{b, a}] = true, true
	}
	region := map[[2]int]int{}
	n := 0
	for r := range p.Rows {
		for c := range p.Cols {
			if _, ok := region[[2]int{r, c}]; ok {
				continue
			}
			n++
			stack := [][2]int{{r, c}}
			region[[2]int{r, c}] = n
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				// Each neighbour and the segment between the two cells.
				for _, nb := range []struct {
					cell [2]int
					s    seg
				}{
					{[2]int{x[0], x[1] + 1}, seg{{x[0], x[1] + 1}, {x[0] + 1, x[1] + 1}}},
					{[2]int{x[0], x[1] - 1}, seg{{x[0], x[1]}, {x[0] + 1, x[1]}}},
					{[2]int{x[0] + 1, x[1]}, seg{{x[0] + 1, x[1]}, {x[0] + 1, x[1] + 1}}},
					{[2]int{x[0] - 1, x[1]}, seg{{x[0], x[1]}, {x[0], x[1] + 1}}},
				} {
					y := nb.cell
					if y[0] < 0 || y[0] >= p.Rows || y[1] < 0 || y[1] >= p.Cols || cut[nb.s] {
						continue
					}
					if _, ok := region[y]; !ok {
						region[y] = n
						stack = append(stack, y)
					}
				}
			}
		}
	}
	color := map[int]int{}
	for cell, reg := range region {
		k := p.Color(cell[0], cell[1])
		if k == 0 {
			continue
		}
		if color[reg] != 0 && color[reg] != k {
			return false
		}
		color[reg] = k
	}
	return true
}

// moves recovers the moves of s by following its segments from the
// entrance.
func moves(p *Problem, s State) []int {
	var ms []int
	seen := p.init
	for cur := p.init; ; {
		next := -1
		for a := range 4 {
			var to, seg, set uint64
			switch a {
			case Up:
				to, seg, set = cur<<p.stride, cur, s.v
			case Down:
				to, seg, set = cur>>p.stride, cur>>p.stride, s.v
			case Left:
				to, seg, set = cur>>1, cur>>1, s.h
			case Right:
				to, seg, set = cur<<1, cur, s.h
			}
			if set&seg != 0 && seen&to == 0 && to != 0 {
				next = a
				seen |= to
				cur = to
				break
			}
		}
		if next < 0 {
			return ms
		}
		ms = append(ms, next)
	}
}

func TestMoves(t *testing.T) {
	corner := mustParse(t, "Size: 2 3\nInit: 0 0\nGoal: 2 3\nColors:\n")
	center := mustParse(t, "Size: 2 2\nInit: 1 1\nGoal: 0 2\nColors:\n")
	for _, tc := range []struct {
		p          *Problem
		moves      string
		legal      bool
		tipL, tipC int
		h          float64
	}{
		{corner, "", true, 0, 0, 5},
		{corner, "D", false, 0, 0, 0}, // below the grid
		{corner, "L", false, 0, 0, 0}, // left of it
		{corner, "UUU", false, 0, 0, 0},
		{corner, "UU", true, 2, 0, 3},
		{corner, "RRR", true, 0, 3, 2},
		{corner, "RRRR", false, 0, 0, 0}, // right of it
		{corner, "RL", false, 0, 0, 0},   // back onto the line
		{corner, "RULD", false, 0, 0, 0}, // onto the entrance
		{corner, "URRDL", true, 0, 1, 4},
		{corner, "URRDLL", false, 0, 0, 0},
		{corner, "URRDRUU", true, 2, 3, 0},
		{corner, "URRDRUUL", false, 0, 0, 0}, // on from the exit
		{corner, "UURRDRD", true, 0, 3, 2},
		{center, "", true, 1, 1, 2},
		{center, "U", true, 2, 1, 3},
		{center, "D", true, 0, 1, 1},
		{center, "L", true, 1, 0, 3},
		{center, "R", true, 1, 2, 1},
		{center, "URD", true, 1, 2, 1},
		{center, "DLU", true, 1, 0, 3},
		{center, "DLUR", false, 0, 0, 0},
		{center, "ULDDRR", true, 0, 2, 0},
	} {
		s, ok := play(tc.p, tc.moves)
		if ok != tc.legal {
			t.Errorf("%q: legal %v, want %v", tc.moves, ok, tc.legal)
			continue
		}
		if !ok {
			continue
		}
		l, c := tc.p.Tip(s)
		if l != tc.tipL || c != tc.tipC || s.Len() != len(tc.moves) || tc.p.Heuristic(s) != tc.h {
			t.Errorf("%q: tip %d %d len %d h %g, want %d %d %d %g", tc.moves, l, c, s.Len(), tc.p.Heuristic(s), tc.tipL, tc.tipC, len(tc.moves), tc.h)
		}
	}
	for _, a := range []int{-1, 4} {
		if _, ok := corner.Apply(corner.Root(), a); ok {
			t.Errorf("action %d is legal", a)
		}
	}
	// ContinueAtExit lets the line leave a failed exit.
	p := mustParse(t, "Size: 1 2\nInit: 0 0\nGoal: 1 2\nColors: |0 0 1|0 1 2\n")
	s, _ := play(p, "URR")
	if _, ok := p.Apply(s, Down); ok {
		t.Error("the line leaves the exit")
	}
	p.ContinueAtExit = true
	if next, ok := p.Apply(s, Down); !ok || p.IsGoal(next) {
		t.Error("ContinueAtExit: the line cannot leave the exit")
	}
}

// TestAllLines enumerates every line of small puzzles and checks Apply,
// IsGoal and the states against the naive model: every line is a
// different state, and its moves can be read back from it.
func TestAllLines(t *testing.T) {
	ps := read(t, "testdata/small.txt")
	rng := rand.New(rand.NewPCG(3, 4))
	for range 4 {
		ps = append(ps, Generate(rng, 2, 3), Generate(rng, 3, 2))
	}
	for _, cont := range []bool{false, true} {
		for _, p := range ps {
			if p.Rows*p.Cols > 9 {
				continue
			}
			p.ContinueAtExit = cont
			seen := map[State]bool{}
			goals := 0
			var visit func(s State, ln line, ms []int)
			visit = func(s State, ln line, ms []int) {
				if seen[s] {
					t.Fatalf("%s: two lines give the state of %v", p.ID, ms)
				}
				seen[s] = true
				if got := moves(p, s); !equal(got, ms) {
					t.Fatalf("%s: moves read back %v, want %v", p.ID, got, ms)
				}
				l, c := p.Tip(s)
				if tip := ln[len(ln)-1]; tip != [2]int{l, c} {
					t.Fatalf("%s %v: tip %d %d, want %v", p.ID, ms, l, c, tip)
				}
				goal := p.IsGoal(s)
				if goal != modelGoal(p, ln) {
					t.Fatalf("%s %v: IsGoal %v, want %v", p.ID, ms, goal, !goal)
				}
				if goal {
					goals++
				}
				for a := range 4 {
					next, ok := p.Apply(s, a)
					mln, mok := modelApply(p, ln, a)
					if ok != mok {
						t.Fatalf("%s %v: action %d legal %v, want %v", p.ID, ms, a, ok, mok)
					}
					if ok {
						visit(next, mln, append(ms[:len(ms):len(ms)], a))
					}
				}
			}
			l, c := p.Init()
			visit(p.Root(), line{{l, c}}, nil)
			if goals == 0 {
				t.Errorf("%s: no solution", p.ID)
			}
			p.ContinueAtExit = false
		}
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestGoal(t *testing.T) {
	two := mustParse(t, "Size: 1 2\nInit: 0 0\nGoal: 1 2\nColors: |0 0 1|0 1 2\n")
	same := mustParse(t, "Size: 1 2\nInit: 0 0\nGoal: 1 2\nColors: |0 0 3|0 1 3\n")
	// Colour 1 in cells (0,0) and (1,1), 2 in the others: the four
	// separating segments all meet at vertex (1,1), so there is no solution.
	diag := mustParse(t, "Size: 2 2\nInit: 0 0\nGoal: 2 2\nColors: |0 0 1|1 1 1|0 1 2|1 0 2\n")
	// Colour 1 in cells (0,0) and (2,2), 2 in (0,2).
	big := mustParse(t, "Size: 3 3\nInit: 0 0\nGoal: 3 3\nColors: |0 0 1|2 2 1|0 2 2\n")
	for _, tc := range []struct {
		p       *Problem
		moves   string
		goal    bool
		regions int
	}{
		{two, "", false, 1},
		{two, "RUR", true, 2},  // the line separates the two colours
		{two, "URR", false, 1}, // both colours in one region
		{two, "RRU", false, 1}, // along the border
		{two, "RUL", false, 2}, // not at the exit
		{same, "URR", true, 1}, // one colour, one region
		{same, "RUR", true, 2}, // one colour, two regions
		{diag, "RRUU", false, 1},
		{diag, "RURU", false, 2}, // (0,1) alone, 1 2 1 in the other
		{diag, "URUR", false, 2}, // (1,0) alone
		{diag, "URRU", false, 2}, // rows apart
		{big, "RRRUUU", false, 1},
		{big, "UUURRR", false, 1},
		{big, "URRRUU", false, 2}, // row 0 holds 1 and 2
		{big, "UURRRU", false, 2}, // rows 0 and 1 hold 1 and 2
		{big, "RRUURU", true, 2},  // (0,2) and (1,2) apart
		{big, "RRURUU", true, 2},  // (0,2) alone
		{big, "RUURRU", true, 2},
		{big, "RURURU", true, 2},
		{big, "RULURRRU", true, 3}, // (0,0) alone, row 2, the rest
		{big, "RULURRR", false, 3}, // not at the exit
	} {
		s, ok := play(tc.p, tc.moves)
		if !ok {
			t.Errorf("%s %q: illegal", tc.p.String(), tc.moves)
			continue
		}
		var reg [MaxVertices]uint64
		if got, n := tc.p.IsGoal(s), tc.p.regions(s, &reg); got != tc.goal || n != tc.regions {
			t.Errorf("%q %q: goal %v regions %d, want %v %d", tc.p.String(), tc.moves, got, n, tc.goal, tc.regions)
		}
	}
	// No line solves diag.
	var search func(s State) bool
	search = func(s State) bool {
		if diag.IsGoal(s) {
			return true
		}
		for a := range 4 {
			if next, ok := diag.Apply(s, a); ok && search(next) {
				return true
			}
		}
		return false
	}
	if search(diag.Root()) {
		t.Error("the unsolvable puzzle has a solution")
	}
}

// TestSizes checks CheckSize and the vertex arithmetic of every size.
func TestSizes(t *testing.T) {
	for rows := -1; rows <= 70; rows++ {
		for cols := -1; cols <= 70; cols++ {
			err := CheckSize(rows, cols)
			want := rows >= 1 && cols >= 1 && (rows+1)*(cols+1) <= MaxVertices
			if (err == nil) != want {
				t.Fatalf("CheckSize(%d, %d) = %v", rows, cols, err)
			}
			if err != nil {
				continue
			}
			p, err := New(rows, cols, [2]int{0, 0}, [2]int{rows, cols}, make([]int, rows*cols))
			if err != nil {
				t.Fatal(err)
			}
			for l := 0; l <= rows; l++ {
				for c := 0; c <= cols; c++ {
					if gl, gc := p.coords(p.bit(l, c)); gl != l || gc != c {
						t.Fatalf("%dx%d: vertex %d %d read back as %d %d", rows, cols, l, c, gl, gc)
					}
				}
			}
		}
	}
	if _, err := New(8, 8, [2]int{0, 0}, [2]int{1, 1}, make([]int, 64)); err == nil {
		t.Error("New accepts 8x8")
	}
	if _, err := New(2, 2, [2]int{0, 0}, [2]int{1, 1}, make([]int, 3)); err == nil {
		t.Error("New accepts 3 colours for 4 cells")
	}
	if _, err := New(2, 2, [2]int{0, 0}, [2]int{1, 1}, []int{0, 0, 5, 0}); err == nil {
		t.Error("New accepts colour 5")
	}
	// A line through every vertex of the largest square, 7x7: 64 vertices.
	p, err := New(7, 7, [2]int{0, 0}, [2]int{7, 0}, make([]int, 49))
	if err != nil {
		t.Fatal(err)
	}
	snake := strings.Repeat("RRRRRRRULLLLLLLU", 4)
	s, ok := play(p, snake[:len(snake)-1])
	if !ok || s.Len() != 63 || !p.IsGoal(s) || p.visited(s) != ^uint64(0) {
		t.Errorf("7x7 snake: ok %v len %d goal %v visited %x", ok, s.Len(), p.IsGoal(s), p.visited(s))
	}
	if got := moves(p, s); len(got) != 63 {
		t.Errorf("7x7 snake: %d moves read back", len(got))
	}
}

// TestSearch solves puzzles with A* and the Manhattan distance, which is
// admissible: the solutions are as short as breadth-first search finds.
func TestSearch(t *testing.T) {
	ps := append(read(t, "testdata/small.txt"), read(t, testSetExcerpt)[:30]...)
	for _, p := range ps {
		res, err := searchtest.Solve[State](context.Background(), p, search.DomainHeuristic[State]{}, search.AStar(), search.Options{GoalTest: search.GoalTestExpansion})
		if err != nil || !res.Solved {
			t.Fatalf("%s: not solved: %v", p.ID, err)
		}
		if err := search.Replay[State](p, res.Actions); err != nil {
			t.Fatalf("%s: %v", p.ID, err)
		}
		if want := searchtest.BFS[State](p); len(res.Actions) != want {
			t.Errorf("%s: A* solution of %d moves, BFS %d", p.ID, len(res.Actions), want)
		}
	}
}
