package stp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/phs-go/phs/internal/datasets/datasetstest"
	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

var (
	_ search.Heuristic[State]        = (*Problem[State])(nil)
	_ search.Encoder[State]          = (*Problem[State])(nil)
	_ search.ActionNamer[State]      = (*Problem[State])(nil)
	_ search.Heuristic[LargeState]   = (*Problem[LargeState])(nil)
	_ search.Encoder[LargeState]     = (*Problem[LargeState])(nil)
	_ search.ActionNamer[LargeState] = (*Problem[LargeState])(nil)
)

// realTest returns the paper's STP test set, which is not in the
// repository: tests and benchmarks that need it skip unless PHS_DATA names
// a data directory (see package datasetstest).
func realTest(tb testing.TB) string {
	return datasetstest.Path(tb, "stp/puzzles_5x5_test.txt")
}

// realExcerpt is the start of the test set, its first 40 puzzles verbatim,
// kept in the repository: see testdata/README.
const realExcerpt = "testdata/puzzles_5x5_test-first40.txt"

func mustParse[S Arrangement[S]](t testing.TB, s string) []*Problem[S] {
	t.Helper()
	ps, err := Parse[S](strings.NewReader(s), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func pack(tiles []int) State {
	var s State
	for i, t := range tiles {
		s.set(i, t)
	}
	return s
}

func identity(n int) []int {
	t := make([]int, n)
	for i := range t {
		t[i] = i
	}
	return t
}

// manhattanDef is the heuristic computed from its definition.
func manhattanDef[S Arrangement[S]](p *Problem[S], s S) int {
	h := 0
	for i, t := range p.Tiles(s) {
		if t != 0 {
			h += abs(i/p.Cols-t/p.Cols) + abs(i%p.Cols-t%p.Cols)
		}
	}
	return h
}

// TestStateFields checks At and Blank in every cell, the straddling cell 12
// included, on arbitrary permutations.
func TestStateFields(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{4, 6, 12, 13, 16, 24, 25} {
		for range 200 {
			tiles := rng.Perm(n)
			s := pack(tiles)
			for i := range MaxCells {
				want := 0
				if i < n {
					want = tiles[i]
				}
				if got := s.At(i); got != want {
					t.Fatalf("%v: At(%d) = %d, want %d", tiles, i, got, want)
				}
			}
			if b := s.Blank(); tiles[b] != 0 {
				t.Fatalf("%v: Blank() = %d", tiles, b)
			}
			for k := 5 * n; k < 128; k++ {
				if k < 64 && s.lo>>k&1 != 0 || k >= 64 && s.hi>>(k-64)&1 != 0 {
					t.Fatalf("%v: bit %d set", tiles, k)
				}
			}
		}
	}
	if (State{}).Blank() != 0 {
		t.Error("zero State: blank not in cell 0")
	}
}

// TestMoves moves the blank from corners, edges and inside cells of several
// grids and checks legality, the blank's new cell and every tile.
func TestMoves(t *testing.T) {
	t.Run("State", testMoves[State])
	t.Run("LargeState", testMoves[LargeState])
}

func testMoves[S Arrangement[S]](t *testing.T) {
	const no = -1
	for _, tc := range []struct {
		rows, cols, blank int
		to                [4]int // U, D, L, R
	}{
		{3, 4, 0, [4]int{no, 4, no, 1}},
		{3, 4, 3, [4]int{no, 7, 2, no}},
		{3, 4, 8, [4]int{4, no, no, 9}},
		{3, 4, 11, [4]int{7, no, 10, no}},
		{3, 4, 1, [4]int{no, 5, 0, 2}},
		{3, 4, 4, [4]int{0, 8, no, 5}},
		{3, 4, 7, [4]int{3, 11, 6, no}},
		{3, 4, 9, [4]int{5, no, 8, 10}},
		{3, 4, 6, [4]int{2, 10, 5, 7}},
		{2, 2, 3, [4]int{1, no, 2, no}},
		{5, 5, 12, [4]int{7, 17, 11, 13}},
		{5, 5, 11, [4]int{6, 16, 10, 12}},
		{5, 5, 13, [4]int{8, 18, 12, 14}},
		{5, 5, 17, [4]int{12, 22, 16, 18}},
		{5, 5, 24, [4]int{19, no, 23, no}},
		{2, 12, 12, [4]int{0, no, no, 13}},
		{2, 12, 11, [4]int{no, 23, 10, no}},
	} {
		p, err := New[S](tc.rows, tc.cols, identity(tc.rows*tc.cols), "")
		if err != nil {
			t.Fatal(err)
		}
		// Walk the blank to its cell: right along row 0, then down.
		s := p.Root()
		for range tc.blank % tc.cols {
			s, _ = p.Apply(s, Right)
		}
		for range tc.blank / tc.cols {
			s, _ = p.Apply(s, Down)
		}
		if s.Blank() != tc.blank {
			t.Fatalf("%dx%d: blank in %d, want %d", tc.rows, tc.cols, s.Blank(), tc.blank)
		}
		for a, to := range tc.to {
			next, ok := p.Apply(s, a)
			if ok != (to != no) {
				t.Errorf("%dx%d blank %d %c: legal %v", tc.rows, tc.cols, tc.blank, "UDLR"[a], ok)
				continue
			}
			if !ok {
				var zero S
				if next != zero {
					t.Errorf("illegal move returned %v", next)
				}
				continue
			}
			want := p.Tiles(s)
			want[tc.blank], want[to] = want[to], 0
			if got := p.Tiles(next); !slices.Equal(got, want) || next.Blank() != to {
				t.Errorf("%dx%d blank %d %c: %v, want %v", tc.rows, tc.cols, tc.blank, "UDLR"[a], got, want)
			}
		}
		for _, a := range []int{-1, 4, 100} {
			if _, ok := p.Apply(s, a); ok {
				t.Errorf("action %d legal", a)
			}
		}
	}
}

func TestGoalAndManhattan(t *testing.T) {
	t.Run("State", testGoalAndManhattan[State])
	t.Run("LargeState", testGoalAndManhattan[LargeState])
}

func testGoalAndManhattan[S Arrangement[S]](t *testing.T) {
	for _, tc := range []struct {
		in   string
		h    int
		goal bool
	}{
		{"0 1 2 3", 0, true},
		{"0 1 2 3 4 5 6 7 8", 0, true},
		{"1 0 2 3 4 5 6 7 8", 1, false},
		{"1 2 0 3 4 5 6 7 8", 2, false},
		{"2x3: 3 4 5 0 1 2", 5, false},
		{"3x2: 2 3 4 5 0 1", 6, false},
		{"15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0", 58, false},
		{"0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24", 0, true},
		// Around cell 12, whose bits straddle the two words: 13 in cell 0
		// (5), 12 and 11 swapped (1+1), 15 and 14 swapped (5+5).
		{"13 1 2 3 4 5 6 7 8 9 10 12 11 0 15 14 16 17 18 19 20 21 22 23 24", 17, false},
	} {
		p := mustParse[S](t, tc.in)[0]
		s := p.Root()
		if h := p.Heuristic(s); h != float64(tc.h) || p.IsGoal(s) != tc.goal {
			t.Errorf("%s: h %g goal %v, want %d %v", tc.in, h, p.IsGoal(s), tc.h, tc.goal)
		}
	}
	// Against the definition, on random arrangements of every shape.
	rng := rand.New(rand.NewPCG(5, 6))
	for _, size := range [][2]int{{2, 2}, {2, 5}, {3, 4}, {4, 4}, {4, 6}, {3, 8}, {5, 5}, {2, 12}} {
		for range 50 {
			p := GenerateRandom[S](rng, size[0], size[1])
			if got, want := p.Heuristic(p.Root()), manhattanDef(p, p.Root()); got != float64(want) {
				t.Fatalf("%s: h %g, want %d", p, got, want)
			}
			if p.IsGoal(p.Root()) != (p.Root() == arrange[S](identity(p.Rows*p.Cols))) {
				t.Fatalf("%s: IsGoal wrong", p)
			}
		}
	}
}

func TestApplyDelta(t *testing.T) {
	t.Run("State", testApplyDelta[State])
	t.Run("LargeState", testApplyDelta[LargeState])
}

func testApplyDelta[S Arrangement[S]](t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	p := GenerateRandom[S](rng, 5, 5)
	s := p.Root()
	for range 2000 {
		a := rng.IntN(4)
		next, dh, ok := p.ApplyDelta(s, a)
		next2, ok2 := p.Apply(s, a)
		if ok != ok2 || next != next2 {
			t.Fatalf("ApplyDelta and Apply differ")
		}
		if !ok {
			continue
		}
		if got := p.Heuristic(next) - p.Heuristic(s); got != float64(dh) || (dh != 1 && dh != -1) {
			t.Fatalf("dh %d, want %g", dh, got)
		}
		s = next
	}
}

func TestEncode(t *testing.T) {
	t.Run("State", testEncode[State])
	t.Run("LargeState", testEncode[LargeState])
}

func testEncode[S Arrangement[S]](t *testing.T) {
	p := mustParse[S](t, "2x3: 3 4 5 0 1 2")[0]
	c, h, w := p.InputShape()
	if c != 6 || h != 2 || w != 3 {
		t.Fatalf("InputShape %d %d %d", c, h, w)
	}
	dst := make([]float32, c*h*w)
	for i := range dst {
		dst[i] = 7
	}
	p.Encode(p.Root(), dst)
	want := []float32{
		0, 0, 0, 1, 0, 0, // blank in cell 3
		0, 0, 0, 0, 1, 0, // tile 1 in cell 4
		0, 0, 0, 0, 0, 1,
		1, 0, 0, 0, 0, 0, // tile 3 in cell 0
		0, 1, 0, 0, 0, 0,
		0, 0, 1, 0, 0, 0,
	}
	if !slices.Equal(dst, want) {
		t.Errorf("Encode:\n%v\nwant\n%v", dst, want)
	}
	// One 1 per cell and per plane on 5x5.
	q := GenerateRandom[S](rand.New(rand.NewPCG(1, 2)), 5, 5)
	dst = make([]float32, 25*25)
	q.Encode(q.Root(), dst)
	for cell := range 25 {
		for pl := range 25 {
			if want := q.Tiles(q.Root())[cell] == pl; (dst[pl*25+cell] == 1) != want || dst[pl*25+cell] > 1 {
				t.Fatalf("5x5 plane %d cell %d: %g", pl, cell, dst[pl*25+cell])
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var z S
	for _, size := range [][2]int{{2, 3}, {5, 5}, {6, 6}, {7, 7}} {
		if size[0]*size[1] > z.capacity() {
			continue
		}
		q := GenerateRandom[S](rng, size[0], size[1])
		if err := searchtest.CheckOneHot(q, []S{q.Root(), q.Goal()}); err != nil {
			t.Errorf("%dx%d: %v", size[0], size[1], err)
		}
	}
}

// reach returns the distance from the goal of every arrangement reachable
// from it, by breadth-first search.
func reach(p *Problem[State]) map[State]int {
	dist := map[State]int{p.Goal(): 0}
	queue := []State{p.Goal()}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for a := range 4 {
			if c, ok := p.Apply(s, a); ok {
				if _, seen := dist[c]; !seen {
					dist[c] = dist[s] + 1
					queue = append(queue, c)
				}
			}
		}
	}
	return dist
}

// permutations calls f with every permutation of 0 to n−1 (Heap's
// algorithm); f must not keep the slice.
func permutations(n int, f func([]int)) {
	a := identity(n)
	c := make([]int, n)
	f(a)
	for i := 0; i < n; {
		if c[i] < i {
			if i%2 == 0 {
				a[0], a[i] = a[i], a[0]
			} else {
				a[c[i]], a[i] = a[i], a[c[i]]
			}
			f(a)
			c[i]++
			i = 0
		} else {
			c[i] = 0
			i++
		}
	}
}

// TestSolvable compares the parity rule with breadth-first search from the
// goal on every arrangement of small grids, and checks the optimal
// distances: the known diameters and the admissibility and consistency of
// the Manhattan distance.
func TestSolvable(t *testing.T) {
	for _, tc := range []struct{ rows, cols, diameter int }{
		{2, 2, 6}, {2, 3, 21}, {3, 2, 21}, {2, 4, 36}, {4, 2, 36}, {3, 3, 31},
	} {
		n := tc.rows * tc.cols
		p, err := New[State](tc.rows, tc.cols, identity(n), "goal")
		if err != nil {
			t.Fatal(err)
		}
		dist := reach(p)
		perms, solvable := 0, 0
		permutations(n, func(tiles []int) {
			perms++
			_, reachable := dist[pack(tiles)]
			if Solvable(tc.rows, tc.cols, tiles) != reachable {
				t.Fatalf("%dx%d %v: Solvable %v, reachable %v", tc.rows, tc.cols, tiles, !reachable, reachable)
			}
			if reachable {
				solvable++
			}
			if perms%97 == 0 { // New agrees, on a sample
				_, err := New[State](tc.rows, tc.cols, tiles, "")
				if (err == nil) != reachable || err != nil && !errors.Is(err, ErrUnsolvable) {
					t.Fatalf("%dx%d New(%v) = %v", tc.rows, tc.cols, tiles, err)
				}
			}
		})
		if solvable != perms/2 || len(dist) != solvable {
			t.Errorf("%dx%d: %d of %d solvable, %d reachable", tc.rows, tc.cols, solvable, perms, len(dist))
		}
		diameter := 0
		for s, d := range dist {
			diameter = max(diameter, d)
			h := p.Heuristic(s)
			if h > float64(d) {
				t.Fatalf("%dx%d %v: h %g above the distance %d", tc.rows, tc.cols, p.Tiles(s), h, d)
			}
			for a := range 4 {
				if c, ok := p.Apply(s, a); ok && (p.Heuristic(c)-h > 1 || h-p.Heuristic(c) > 1 || dist[c]-d > 1 || d-dist[c] > 1) {
					t.Fatalf("%dx%d %v: a move changes h or the distance by more than 1", tc.rows, tc.cols, p.Tiles(s))
				}
			}
		}
		if diameter != tc.diameter {
			t.Errorf("%dx%d: diameter %d, want %d", tc.rows, tc.cols, diameter, tc.diameter)
		}
	}
}

// idaStar returns an optimal solution of p by iterative deepening A* with
// the Manhattan distance, or nil if none is found within maxCost.
func idaStar(p *Problem[State], maxCost int) []int {
	undo := [4]int{Down, Up, Right, Left}
	var path []int
	var dfs func(s State, g, bound, last int) int
	dfs = func(s State, g, bound, last int) int {
		f := g + int(p.Heuristic(s))
		if f > bound {
			return f
		}
		if p.IsGoal(s) {
			return -1
		}
		next := 1 << 30
		for a := range 4 {
			if last >= 0 && a == undo[last] {
				continue
			}
			c, ok := p.Apply(s, a)
			if !ok {
				continue
			}
			path = append(path, a)
			r := dfs(c, g+1, bound, a)
			if r < 0 {
				return -1
			}
			path = path[:len(path)-1]
			next = min(next, r)
		}
		return next
	}
	for bound := int(p.Heuristic(p.Root())); bound <= maxCost; {
		r := dfs(p.Root(), 0, bound, -1)
		if r < 0 {
			return path
		}
		bound = r
	}
	return nil
}

// bfsLength returns the length of a shortest solution of p, by
// breadth-first search from its start.
func bfsLength(p *Problem[State]) int {
	seen := map[State]bool{p.Root(): true}
	level := []State{p.Root()}
	for d := 0; len(level) > 0; d++ {
		var next []State
		for _, s := range level {
			if p.IsGoal(s) {
				return d
			}
			for a := range 4 {
				if c, ok := p.Apply(s, a); ok && !seen[c] {
					seen[c] = true
					next = append(next, c)
				}
			}
		}
		level = next
	}
	return -1
}

// replay applies actions from the start and returns the states visited,
// the start included, or an error if an action is illegal or the last state
// is not the goal.
func replay(p *Problem[State], actions []int) ([]State, error) {
	s := p.Root()
	states := []State{s}
	for i, a := range actions {
		var ok bool
		if s, ok = p.Apply(s, a); !ok {
			return nil, fmt.Errorf("action %d (%c) illegal", i, "UDLR"[a])
		}
		states = append(states, s)
	}
	if !p.IsGoal(s) {
		return nil, errors.New("the last state is not the goal")
	}
	return states, nil
}

// TestAdmissible4x4 solves 4x4 puzzles from random walks optimally and
// checks that the Manhattan distance never exceeds the cost to go along the
// solutions; on the short walks, breadth-first search confirms the optima.
func TestAdmissible4x4(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 30 {
		maxLen := 12
		if i >= 10 {
			maxLen = 40
		}
		p := GenerateWalk[State](rng, 4, 4, 4, maxLen)
		sol := idaStar(p, 80)
		if sol == nil {
			t.Fatalf("%s: no solution", p)
		}
		states, err := replay(p, sol)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for step, s := range states {
			if h := p.Heuristic(s); h > float64(len(sol)-step) {
				t.Fatalf("%s: step %d: h %g above the cost to go %d", p, step, h, len(sol)-step)
			}
		}
		if i < 10 {
			if opt := bfsLength(p); opt != len(sol) {
				t.Errorf("%s: IDA* length %d, optimum %d", p, len(sol), opt)
			}
		}
	}
}

// TestIDAStar3x3 checks the test's IDA* against the exact distances.
func TestIDAStar3x3(t *testing.T) {
	p, err := New[State](3, 3, identity(9), "")
	if err != nil {
		t.Fatal(err)
	}
	dist := reach(p)
	rng := rand.New(rand.NewPCG(3, 3))
	for range 20 {
		q := GenerateRandom[State](rng, 3, 3)
		sol := idaStar(q, 40)
		if _, err := replay(q, sol); err != nil || len(sol) != dist[q.Root()] {
			t.Errorf("%s: IDA* length %d (%v), distance %d", q, len(sol), err, dist[q.Root()])
		}
	}
}

func TestGenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	if p := GenerateWalk[State](rng, 4, 4, 0, 0); !p.IsGoal(p.Root()) {
		t.Error("a walk of length 0 does not end at the goal")
	}
	if p := GenerateWalk[State](rng, 2, 2, 1, 1); p.String() != "1 0 2 3" && p.String() != "2 1 0 3" {
		t.Errorf("a walk of length 1 ends at %s", p)
	}
	// A walk of length L ends at distance at most L, of L's parity.
	g, _ := New[State](3, 3, identity(9), "")
	dist := reach(g)
	for _, l := range []int{1, 2, 3, 7, 20, 50, 51} {
		for range 20 {
			p := GenerateWalk[State](rng, 3, 3, l, l)
			d, ok := dist[p.Root()]
			if !ok || d > l || (l-d)%2 != 0 || p.Heuristic(p.Root()) != float64(manhattanDef(p, p.Root())) {
				t.Fatalf("walk of %d: %s at distance %d (%v)", l, p, d, ok)
			}
		}
	}
	// Without undoing, a walk of 2 on 2x2 moves two different tiles.
	for range 20 {
		if p := GenerateWalk[State](rng, 2, 2, 2, 2); p.Heuristic(p.Root()) != 2 {
			t.Fatalf("walk of 2: %s", p)
		}
	}
	// Uniform over the 12 solvable 2x2 arrangements.
	counts := map[string]int{}
	for range 12000 {
		p := GenerateRandom[State](rng, 2, 2)
		if !Solvable(2, 2, p.Tiles(p.Root())) {
			t.Fatalf("unsolvable %s", p)
		}
		counts[p.String()]++
	}
	if len(counts) != 12 {
		t.Errorf("%d arrangements drawn, want 12", len(counts))
	}
	for s, c := range counts {
		if c < 850 || c > 1150 {
			t.Errorf("%s drawn %d times of 12000", s, c)
		}
	}
}

// TestGeneratePanics checks that the generators panic on a size the state
// type does not hold, and on lengths out of order.
func TestGeneratePanics(t *testing.T) {
	t.Run("State", func(t *testing.T) { testGeneratePanics[State](t, 6, 5) })
	t.Run("LargeState", func(t *testing.T) { testGeneratePanics[LargeState](t, 9, 8) })
}

// testGeneratePanics is TestGeneratePanics with a rows×cols size that S
// does not hold.
func testGeneratePanics[S Arrangement[S]](t *testing.T, rows, cols int) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, f := range []func(){
		func() { GenerateRandom[S](rng, rows, cols) },
		func() { GenerateWalk[S](rng, rows, cols, 1, 2) },
		func() { GenerateWalk[S](rng, 1, 4, 1, 2) },
		func() { GenerateWalk[S](rng, 3, 3, 5, 4) },
		func() { GenerateWalk[S](rng, 3, 3, -1, 4) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
}

// TestRoundTrip writes generated puzzles of every shape a state type holds
// and reads them back.
func TestRoundTrip(t *testing.T) {
	small := [][2]int{{2, 2}, {3, 3}, {4, 4}, {5, 5}, {2, 4}, {4, 6}, {3, 8}, {2, 12}, {5, 2}}
	t.Run("State", func(t *testing.T) { testRoundTrip[State](t, small) })
	large := append(small, [][2]int{{6, 6}, {7, 7}, {8, 8}, {6, 8}, {2, 32}, {32, 2}, {4, 13}}...)
	t.Run("LargeState", func(t *testing.T) { testRoundTrip[LargeState](t, large) })
}

func testRoundTrip[S Arrangement[S]](t *testing.T, sizes [][2]int) {
	rng := rand.New(rand.NewPCG(3, 4))
	var ps []*Problem[S]
	for _, size := range sizes {
		ps = append(ps, GenerateRandom[S](rng, size[0], size[1]), GenerateWalk[S](rng, size[0], size[1], 5, 50))
	}
	var buf bytes.Buffer
	if err := Write(&buf, ps); err != nil {
		t.Fatal(err)
	}
	back, err := Parse[S](&buf, "dir/gen.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(ps) {
		t.Fatalf("%d puzzles back, want %d", len(back), len(ps))
	}
	for i, p := range ps {
		b := back[i]
		if b.Root() != p.Root() || b.Rows != p.Rows || b.Cols != p.Cols || b.String() != p.String() || b.ID != fmt.Sprintf("gen.txt#%d", i) {
			t.Errorf("round trip: %s %q, want %q", b.ID, b, p)
		}
		if !Solvable(p.Rows, p.Cols, p.Tiles(p.Root())) {
			t.Errorf("%s: unsolvable", p)
		}
	}
}

// TestRealData reads the first 40 puzzles of the paper's test set, kept in
// testdata, writes them back and checks facts of a few.
func TestRealData(t *testing.T) {
	data, err := os.ReadFile(realExcerpt)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ReadFile[State](realExcerpt)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(ps) != 40 || len(lines) != 40 {
		t.Fatalf("%d puzzles, %d lines, want 40", len(ps), len(lines))
	}
	// IDs are "<file base name>#<index>", from 0.
	if ps[0].ID != "puzzles_5x5_test-first40.txt#0" || ps[17].ID != "puzzles_5x5_test-first40.txt#17" ||
		ps[39].ID != "puzzles_5x5_test-first40.txt#39" {
		t.Errorf("IDs %s, %s, %s", ps[0].ID, ps[17].ID, ps[39].ID)
	}
	for i, p := range ps {
		s := p.Root()
		tiles := p.Tiles(s)
		// The tiles are the numbers of the line, in order.
		if p.ID != fmt.Sprintf("puzzles_5x5_test-first40.txt#%d", i) || p.Rows != 5 || p.Cols != 5 ||
			fmt.Sprint(tiles) != "["+strings.Join(strings.Fields(lines[i]), " ")+"]" ||
			tiles[s.Blank()] != 0 || !Solvable(5, 5, tiles) || p.IsGoal(s) || p.Heuristic(s) != float64(manhattanDef(p, s)) {
			t.Errorf("puzzle %d: %s, %dx%d, tiles %v, blank on %d, h %g:\n%s", i, p.ID, p.Rows, p.Cols, tiles, s.Blank(), p.Heuristic(s), lines[i])
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, ps); err != nil {
		t.Fatal(err)
	}
	back := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(back) != len(lines) {
		t.Fatalf("Write: %d lines, want %d", len(back), len(lines))
	}
	for i, line := range back {
		if line != strings.TrimSpace(lines[i]) {
			t.Fatalf("line %d: %q, want %q", i+1, line, lines[i])
		}
	}
	// Facts of a few puzzles, found when the excerpt was made: the cell of
	// the blank, row-major, and the Manhattan distance at the start.
	for _, tc := range []struct {
		i, blank int
		h        float64
	}{
		{0, 2, 74}, {1, 7, 69}, {2, 21, 63}, {3, 5, 81}, {4, 0, 86}, {25, 6, 92}, {27, 17, 57}, {39, 19, 73},
	} {
		p := ps[tc.i]
		if b, h := p.Root().Blank(), p.Heuristic(p.Root()); b != tc.blank || h != tc.h {
			t.Errorf("%s: blank on %d, h %g; want %d, %g", p.ID, b, h, tc.blank, tc.h)
		}
	}
}

// TestRealDataFull reads the whole test set (PHS_DATA), writes it back and
// checks that the excerpt in testdata is its start.
func TestRealDataFull(t *testing.T) {
	realTest := realTest(t)
	data, err := os.ReadFile(realTest)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ReadFile[State](realTest)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1000 || ps[999].ID != "puzzles_5x5_test.txt#999" || ps[0].Rows != 5 || ps[0].Cols != 5 {
		t.Fatalf("%d puzzles, last %q", len(ps), ps[len(ps)-1].ID)
	}
	var buf bytes.Buffer
	if err := Write(&buf, ps); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line != strings.TrimSpace(lines[i]) {
			t.Fatalf("line %d: %q, want %q", i+1, line, lines[i])
		}
	}
	excerpt, err := os.ReadFile(realExcerpt)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, excerpt) {
		t.Errorf("%s is not the start of %s", realExcerpt, realTest)
	}
}

func TestRender(t *testing.T) {
	t.Run("State", testRender[State])
	t.Run("LargeState", testRender[LargeState])
}

func testRender[S Arrangement[S]](t *testing.T) {
	p := mustParse[S](t, "3 1 2 0 4 5 6 7 8 9 10 11 12 13 14 15\n")[0]
	want := " 3  1  2  .\n 4  5  6  7\n 8  9 10 11\n12 13 14 15"
	if got := p.Render(p.Root()); got != want {
		t.Errorf("Render:\n%s\nwant\n%s", got, want)
	}
	q := mustParse[S](t, "2x3: 1 0 2 3 4 5")[0]
	if got, want := q.Render(q.Root()), "1 . 2\n3 4 5"; got != want {
		t.Errorf("Render:\n%s\nwant\n%s", got, want)
	}
}

// A parseError is an input that Parse refuses, part of the error it
// gives and, if not nil, an error it wraps.
type parseError struct {
	in, msg string
	err     error
}

func TestParseErrors(t *testing.T) {
	both := []parseError{
		{"", "p.txt: no puzzles", nil},
		{"\n  \n", "p.txt: no puzzles", nil},
		{"1 2 3\n", "p.txt:1: 3 tiles: not a square grid", nil},
		{"0 1 2 3\n\n0 1 2 x\n", "p.txt:3: tile \"x\": not a number", nil},
		{"0 1 2 99999999999999999999\n", "not a number", nil},
		{"0 1 2 2\n", "p.txt:1: tile 2 appears twice", nil},
		{"0 1 2 4\n", "tile 4 out of range 0 to 3", nil},
		{"0 1 -2 3\n", "tile -2 out of range", nil},
		{"0 2 1 3\n", "p.txt:1: unsolvable", ErrUnsolvable},
		{"0 1 2 3\n1 0 2 3 4 5 6 8 7\n", "p.txt:2: unsolvable", ErrUnsolvable},
		{"0\n", "want at least 2x2", nil},
		{"2y3: 0 1 2 3 4 5\n", "size prefix \"2y3\"", errSizePrefix},
		{"2x: 0 1 2 3 4 5\n", "size prefix", errSizePrefix},
		{"2x3: 0 1 2 3 4\n", "5 tiles for 2x3 cells, want 6", nil},
		{"1x3: 0 1 2\n", "size 1x3: want at least 2x2", nil},
		{"1x64: 0\n", "want at least 2x2", nil},
		{"2x999999999999: 0\n", "more than 64 cells", nil},
		{"9x9: 0\n", "p.txt:1: size 9x9: more than 64 cells", nil},
		{strings.Repeat("0 ", 81) + "\n", "p.txt:1: 81 tiles: size 9x9: more than 64 cells", nil},
		{strings.Repeat("0 ", 1000) + "\n", "1000 tiles", nil},
		{strings.Repeat("1", 2<<20), "p.txt:1: line too long", nil},
	}
	// A board of more than 25 cells is one for LargeState.
	small := []parseError{
		{"6x6: 0\n", "size 6x6: more than 25 cells", ErrLarge},
		{strings.Repeat("0 ", 36) + "\n", "p.txt:1: 36 tiles: size 6x6: more than 25 cells", ErrLarge},
	}
	large := []parseError{
		{"6x6: 0\n", "p.txt:1: 1 tiles for 6x6 cells, want 36", nil},
		{"6x6: " + strings.Repeat("0 ", 36) + "\n", "tile 0 appears twice", nil},
		{"6x6: 1 0" + strings.Repeat(" 35", 34) + "\n", "tile 35 appears twice", nil},
		{"6x6: 36 " + strings.Trim(fmt.Sprint(identity(35)), "[]") + "\n", "tile 36 out of range 0 to 35", nil},
		{"6x6: 2 1 0" + strings.Trim(fmt.Sprint(identity(36)[2:]), "[]")[1:] + "\n", "unsolvable", ErrUnsolvable},
	}
	t.Run("State", func(t *testing.T) { testParseErrors[State](t, append(small, both...)) })
	t.Run("LargeState", func(t *testing.T) { testParseErrors[LargeState](t, append(large, both...)) })
}

func testParseErrors[S Arrangement[S]](t *testing.T, cases []parseError) {
	for _, tc := range cases {
		_, err := Parse[S](strings.NewReader(tc.in), "p.txt")
		if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "stp: p.txt") ||
			tc.err != nil && !errors.Is(err, tc.err) || tc.err == nil && errors.Is(err, ErrLarge) {
			t.Errorf("Parse(%.40q) = %v, want an error containing %q", tc.in, err, tc.msg)
		}
	}
	if _, err := ReadFile[S]("testdata/no such file"); err == nil || !strings.HasPrefix(err.Error(), "stp: ") {
		t.Errorf("ReadFile: %v", err)
	}
	if _, err := New[S](3, 3, []int{0, 1, 2}, ""); err == nil || err.Error() != "stp: 3 tiles for 3x3 cells, want 9" {
		t.Errorf("New: %v", err)
	}
}

func TestParseFormat(t *testing.T) {
	t.Run("State", testParseFormat[State])
	t.Run("LargeState", testParseFormat[LargeState])
}

func testParseFormat[S Arrangement[S]](t *testing.T) {
	ps := mustParse[S](t, "\t0 1 2 3 \r\n\n 3x2:1\t0 2 3 4 5\n3 x 2 : 1 0 2 3 4 5\n+1 0 2 3")
	if len(ps) != 4 || ps[1].ID != "p.txt#1" || ps[1].Rows != 3 || ps[1].Cols != 2 || ps[2].String() != "3x2: 1 0 2 3 4 5" || ps[3].String() != "1 0 2 3" {
		t.Errorf("%v", ps)
	}
}

// TestParseBOM checks that a UTF-8 byte-order mark at the start of the
// input is skipped, and only there.
func TestParseBOM(t *testing.T) {
	t.Run("State", testParseBOM[State])
	t.Run("LargeState", testParseBOM[LargeState])
}

func testParseBOM[S Arrangement[S]](t *testing.T) {
	excerpt, err := os.ReadFile(realExcerpt)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in    string
		first string // the first puzzle, as String writes it
		n     int
	}{
		{"\uFEFF1 0 2 3\n0 1 2 3\n", "1 0 2 3", 2},
		{"\uFEFF2x3: 1 0 2 3 4 5\r\n", "2x3: 1 0 2 3 4 5", 1},
		{"\uFEFF\n\n0 1 2 3", "0 1 2 3", 1},
		{"\uFEFF" + string(excerpt), strings.TrimSpace(strings.SplitN(string(excerpt), "\n", 2)[0]), 40},
	} {
		ps, err := Parse[S](strings.NewReader(tc.in), "p.txt")
		if err != nil || len(ps) != tc.n || ps[0].String() != tc.first || ps[0].ID != "p.txt#0" {
			t.Errorf("Parse(%.40q) = %d puzzles, %v; want %d, the first %q", tc.in, len(ps), err, tc.n, tc.first)
		}
	}
	for _, in := range []string{"0 1 2 3\n\uFEFF0 1 2 3\n", "\n\uFEFF0 1 2 3\n", "\uFEFF\uFEFF0 1 2 3\n"} {
		if _, err := Parse[S](strings.NewReader(in), "p.txt"); err == nil || !strings.Contains(err.Error(), "not a number") {
			t.Errorf("Parse(%q) = %v, want a tile that is not a number", in, err)
		}
	}
}

// TestAllocs checks that the methods a search calls allocate nothing, on
// a 5x5 puzzle and, with LargeState, on a 7x7 one too.
func TestAllocs(t *testing.T) {
	t.Run("State", func(t *testing.T) { testAllocs(t, mustParse[State](t, bench5x5)[0]) })
	t.Run("LargeState", func(t *testing.T) {
		testAllocs(t, mustParse[LargeState](t, bench5x5)[0])
		testAllocs(t, GenerateRandom[LargeState](rand.New(rand.NewPCG(1, 1)), 7, 7))
	})
}

func testAllocs[S Arrangement[S]](t *testing.T, p *Problem[S]) {
	s := p.Root()
	c, h, w := p.InputShape()
	dst := make([]float32, c*h*w)
	var codes [NumContexts]uint64
	a := 0
	for name, f := range map[string]func(){
		"Apply":      func() { a = (a + 1) % 4; c, ok := p.Apply(s, a); _, _ = c, ok },
		"ApplyDelta": func() { a = (a + 1) % 4; c, dh, ok := p.ApplyDelta(s, a); _, _, _ = c, dh, ok },
		"Heuristic":  func() { p.Heuristic(s) },
		"Encode":     func() { p.Encode(s, dst) },
		"IsGoal":     func() { p.IsGoal(s) },
		"Contexts":   func() { p.Contexts(s, -1, s, codes[:]) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %g allocations", name, n)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("1 2 0 3 4 5 6 7 8\n")
	f.Add("2x3: 1 0 2 3 4 5\n\n0 1 2 3\n")
	f.Add("0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24\n")
	f.Add("2x12: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n")
	f.Add("0 2 1 3\n")
	f.Add("3x: 1\n")
	f.Add(bench5x5)
	f.Add("\uFEFF1 0 2 3\n")
	f.Fuzz(fuzzParse[State])
}

func FuzzParseLarge(f *testing.F) {
	f.Add("1 2 0 3 4 5 6 7 8\n")
	f.Add("6x6: " + strings.Trim(fmt.Sprint(identity(36)), "[]") + "\n")
	f.Add(strings.Trim(fmt.Sprint(identity(49)), "[]") + "\n")
	f.Add("8x8: " + strings.Trim(fmt.Sprint(identity(64)), "[]") + "\n\n2x3: 1 0 2 3 4 5\n")
	f.Add("2x32: 1 0" + strings.Trim(fmt.Sprint(identity(64)[2:]), "[]")[1:] + "\n")
	f.Add("9x9: 0\n")
	f.Fuzz(fuzzParse[LargeState])
}

// fuzzParse checks the puzzles that Parse[S] reads from in, if any: their
// starts, moves and text; that Parse[State] reads the boards a State
// holds the same way, and refuses the others with ErrLarge.
func fuzzParse[S Arrangement[S]](t *testing.T, in string) {
	ps, err := Parse[S](strings.NewReader(in), "fuzz")
	if err != nil {
		if !strings.HasPrefix(err.Error(), "stp: fuzz") {
			t.Fatalf("error without file: %v", err)
		}
		return
	}
	for _, p := range ps {
		s := p.Root()
		tiles := p.Tiles(s)
		if !Solvable(p.Rows, p.Cols, tiles) || tiles[s.Blank()] != 0 {
			t.Fatalf("%s: bad start", p)
		}
		if p.Heuristic(s) != float64(manhattanDef(p, s)) {
			t.Fatalf("%s: h %g", p, p.Heuristic(s))
		}
		for a := range 4 {
			if c, ok := p.Apply(s, a); ok {
				if back, _ := p.Apply(c, a^1); back != s {
					t.Fatalf("%s: %c not undone", p, "UDLR"[a])
				}
			}
		}
		again, err := Parse[S](strings.NewReader(p.String()), "again")
		if err != nil || again[0].Root() != s || again[0].String() != p.String() {
			t.Fatalf("round trip of %q: %v", p, err)
		}
		small, err := Parse[State](strings.NewReader(p.String()), "again")
		if (err == nil) != (p.Rows*p.Cols <= MaxCells) || err != nil && !errors.Is(err, ErrLarge) {
			t.Fatalf("Parse[State](%q): %v", p, err)
		}
		if err == nil && small[0].String() != p.String() {
			t.Fatalf("Parse[State](%q): %s", p, small[0])
		}
	}
}

// TestParseFirst checks that ParseFirst reads the first n puzzles and
// nothing after them: a bad line, or a read error, past them is not seen.
func TestParseFirst(t *testing.T) {
	t.Run("State", testParseFirst[State])
	t.Run("LargeState", testParseFirst[LargeState])
}

func testParseFirst[S Arrangement[S]](t *testing.T) {
	heads := []string{"1 0 2 3\n", "1 0 2 3\n\n2x3: 1 0 2 3 4 5\n", "1 0 2 3\n\n2x3: 1 0 2 3 4 5\n0 1 2 3\n"}
	head := heads[2]
	for i, in := range heads {
		n := i + 1
		for _, tail := range []io.Reader{strings.NewReader("x\n"), iotest.ErrReader(errors.New("read past the puzzles"))} {
			ps, err := ParseFirst[S](io.MultiReader(strings.NewReader(in), tail), "p.txt", n)
			if err != nil || len(ps) != n || ps[n-1].ID != fmt.Sprintf("p.txt#%d", n-1) {
				t.Errorf("ParseFirst(%d) = %d puzzles, %v; want %d", n, len(ps), err, n)
			}
		}
	}
	if ps, err := ParseFirst[S](strings.NewReader(head), "p.txt", 0); err != nil || len(ps) != 3 {
		t.Errorf("ParseFirst(0) = %d puzzles, %v; want all 3", len(ps), err)
	}
	if _, err := ParseFirst[S](strings.NewReader("1 0 2 3\nx\n"), "p.txt", 2); err == nil || !strings.Contains(err.Error(), "p.txt:2:") {
		t.Errorf("ParseFirst(2) of a bad second puzzle: %v", err)
	}
}
