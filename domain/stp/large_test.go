package stp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/phs-go/phs/search"
)

var (
	_ search.Heuristic[LargeState]   = (*LargeProblem)(nil)
	_ search.Encoder[LargeState]     = (*LargeProblem)(nil)
	_ search.ActionNamer[LargeState] = (*LargeProblem)(nil)
)

func mustParseLarge(t testing.TB, s string) []*LargeProblem {
	t.Helper()
	ps, err := ParseLarge(strings.NewReader(s), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// largeManhattan is the heuristic computed from its definition.
func largeManhattan(p *LargeProblem, s LargeState) int {
	h := 0
	for i, t := range p.Tiles(s) {
		if t != 0 {
			h += abs(i/p.Cols-t/p.Cols) + abs(i%p.Cols-t%p.Cols)
		}
	}
	return h
}

// TestLargeStateSize checks the size the doc comment of LargeState gives.
func TestLargeStateSize(t *testing.T) {
	if n := unsafe.Sizeof(LargeState{}); n != 64 {
		t.Errorf("a LargeState is %d bytes", n)
	}
}

// TestLargeBlank puts the blank in every cell of an 8x8 board, and checks
// Blank and At.
func TestLargeBlank(t *testing.T) {
	for b := range MaxLargeCells {
		tiles := identity(MaxLargeCells)
		tiles[0], tiles[b] = tiles[b], 0
		s := largeState(tiles)
		if got := s.Blank(); got != b {
			t.Errorf("blank in cell %d: Blank() = %d", b, got)
		}
		for i, want := range tiles {
			if s.At(i) != want {
				t.Fatalf("blank in cell %d: At(%d) = %d, want %d", b, i, s.At(i), want)
			}
		}
	}
	if b := (LargeState{}).Blank(); b != 0 {
		t.Errorf("zero LargeState: Blank() = %d", b)
	}
	s := largeState(identity(9))
	s.cells[0] = 1
	if b := s.Blank(); b != MaxLargeCells {
		t.Errorf("no blank: Blank() = %d", b)
	}
}

// TestLargeAgrees checks that a LargeProblem behaves as the Problem of the
// same puzzle, on boards that both hold: moves along random walks, goal,
// heuristic, encoding, rendering, text.
func TestLargeAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, size := range [][2]int{{2, 2}, {2, 3}, {3, 3}, {4, 4}, {5, 5}, {3, 8}, {2, 12}, {5, 2}} {
		for range 10 {
			p := GenerateWalk(rng, size[0], size[1], 0, 60)
			q, err := NewLarge(p.Rows, p.Cols, p.Tiles(p.Root()), "")
			if err != nil {
				t.Fatal(err)
			}
			if q.String() != p.String() || q.Render(q.Root()) != p.Render(p.Root()) {
				t.Fatalf("%s: large %s", p, q)
			}
			if !q.IsGoal(q.Goal()) || q.IsGoal(q.Root()) != p.IsGoal(p.Root()) {
				t.Fatalf("%s: goal", p)
			}
			s, ls := p.Root(), q.Root()
			n := p.Rows * p.Cols
			enc, lenc := make([]float32, n*n), make([]float32, n*n)
			for range 100 {
				if !slices.Equal(p.Tiles(s), q.Tiles(ls)) || s.Blank() != ls.Blank() ||
					p.Heuristic(s) != q.Heuristic(ls) || q.Heuristic(ls) != float64(largeManhattan(q, ls)) {
					t.Fatalf("%s: %v, large %v", p, p.Tiles(s), q.Tiles(ls))
				}
				p.Encode(s, enc)
				q.Encode(ls, lenc)
				if !slices.Equal(enc, lenc) {
					t.Fatalf("%s: encodings differ", p)
				}
				a := rng.IntN(6) - 1 // -1 and 4 are no actions
				c, ok := p.Apply(s, a)
				lc, lok := q.Apply(ls, a)
				if ok != lok || !ok && lc != (LargeState{}) {
					t.Fatalf("%s: action %d: %v, large %v", p, a, ok, lok)
				}
				if ok {
					s, ls = c, lc
				}
			}
		}
	}
}

// TestLargeSolve solves 6x6, 7x7, 8x8 and 5x9 puzzles, random walks from
// the goal, with WA* (walks of 40 moves) and GBFS (30), and replays the
// solutions; A* solves walks of 20 moves in at most 20.
func TestLargeSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	for _, size := range [][2]int{{6, 6}, {7, 7}, {8, 8}, {5, 9}} {
		for _, tc := range []struct {
			alg        search.Algorithm
			walk       int
			atMostWalk bool
		}{{search.AStar(), 20, true}, {search.WAStar(3), 40, false}, {search.GBFS(), 30, false}} {
			for range 3 {
				p := GenerateWalkLarge(rng, size[0], size[1], tc.walk, tc.walk)
				res, err := searchSolve(p, tc.alg)
				if err != nil || !res.Solved {
					t.Fatalf("%dx%d %v %s: solved %v, %v", size[0], size[1], tc.alg, p, res.Solved, err)
				}
				if err := search.Replay[LargeState](p, res.Actions); err != nil {
					t.Errorf("%v %s: %v", tc.alg, p, err)
				}
				if h := int(p.Heuristic(p.Root())); len(res.Actions) < h || tc.atMostWalk && len(res.Actions) > tc.walk {
					t.Errorf("%v %s: %d moves, Manhattan distance %d, walk %d", tc.alg, p, len(res.Actions), h, tc.walk)
				}
			}
		}
	}
}

func searchSolve(p *LargeProblem, alg search.Algorithm) (search.Result[LargeState], error) {
	s, err := search.NewSolver[LargeState](alg, search.DomainHeuristic[LargeState]{}, search.Options{Budget: 2e5})
	if err != nil {
		return search.Result[LargeState]{}, err
	}
	return s.Solve(context.Background(), p)
}

// TestLargeParse reads boards of more than 25 cells, which Parse refuses
// with ErrLarge, and writes them back.
func TestLargeParse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var ps []*LargeProblem
	for _, size := range [][2]int{{2, 2}, {3, 3}, {5, 5}, {6, 6}, {7, 7}, {8, 8}, {6, 8}, {2, 32}, {32, 2}, {4, 13}} {
		ps = append(ps, GenerateRandomLarge(rng, size[0], size[1]), GenerateWalkLarge(rng, size[0], size[1], 5, 50))
	}
	var buf bytes.Buffer
	if err := Write(&buf, ps); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	back, err := ParseLarge(&buf, "dir/gen.txt")
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
	// Parse takes the first lines (up to 5x5) and refuses the 6x6 one.
	_, err = Parse(strings.NewReader(text), "gen.txt")
	if !errors.Is(err, ErrLarge) || !strings.Contains(err.Error(), "gen.txt:7: 36 tiles: size 6x6: more than 25 cells") {
		t.Errorf("Parse of a 6x6 board: %v", err)
	}
	if _, err := New(7, 7, identity(49), ""); !errors.Is(err, ErrLarge) {
		t.Errorf("New(7, 7): %v", err)
	}
	p := mustParseLarge(t, "7x7: "+strings.Trim(fmt.Sprint(identity(49)), "[]"))[0]
	if !p.IsGoal(p.Root()) || p.Heuristic(p.Root()) != 0 || p.String() != strings.Trim(fmt.Sprint(identity(49)), "[]") {
		t.Errorf("7x7 goal: %s", p)
	}
	for _, tc := range []struct{ in, msg string }{
		{"9x9: 0\n", "size 9x9: more than 64 cells"},
		{strings.Repeat("0 ", 81) + "\n", "81 tiles: size 9x9: more than 64 cells"},
		{"6x6: " + strings.Repeat("0 ", 36) + "\n", "tile 0 appears twice"},
		{"6x6: 1 0" + strings.Repeat(" 35", 34) + "\n", "tile 35 appears twice"},
		{"6x6: 36 " + strings.Trim(fmt.Sprint(identity(35)), "[]") + "\n", "tile 36 out of range 0 to 35"},
		{"6x6: 2 1 0" + strings.Trim(fmt.Sprint(identity(36)[2:]), "[]")[1:] + "\n", "unsolvable"},
		{"1x64: 0\n", "want at least 2x2"},
		{"", "no puzzles"},
	} {
		_, err := ParseLarge(strings.NewReader(tc.in), "p.txt")
		if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "stp: p.txt") {
			t.Errorf("ParseLarge(%.40q) = %v, want an error containing %q", tc.in, err, tc.msg)
		}
	}
}

func TestLargeGenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	if p := GenerateWalkLarge(rng, 7, 7, 0, 0); !p.IsGoal(p.Root()) {
		t.Error("a walk of length 0 does not end at the goal")
	}
	// The same seed gives the same walks and arrangements as for a Problem.
	for _, size := range [][2]int{{3, 3}, {5, 5}} {
		r1, r2 := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
		for range 10 {
			if p, q := GenerateWalk(r1, size[0], size[1], 0, 30), GenerateWalkLarge(r2, size[0], size[1], 0, 30); p.String() != q.String() {
				t.Fatalf("walk %s, large %s", p, q)
			}
			if p, q := GenerateRandom(r1, size[0], size[1]), GenerateRandomLarge(r2, size[0], size[1]); p.String() != q.String() {
				t.Fatalf("random %s, large %s", p, q)
			}
		}
	}
	for _, f := range []func(){
		func() { GenerateRandomLarge(rng, 9, 8) },
		func() { GenerateWalkLarge(rng, 1, 4, 1, 2) },
		func() { GenerateWalkLarge(rng, 7, 7, 5, 4) },
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

func TestLargeAllocs(t *testing.T) {
	p := GenerateRandomLarge(rand.New(rand.NewPCG(1, 1)), 7, 7)
	s := p.Root()
	dst := make([]float32, 49*49)
	a := 0
	for name, f := range map[string]func(){
		"Apply":     func() { a = (a + 1) % 4; c, ok := p.Apply(s, a); _, _ = c, ok },
		"Heuristic": func() { p.Heuristic(s) },
		"Encode":    func() { p.Encode(s, dst) },
		"IsGoal":    func() { p.IsGoal(s) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %g allocations", name, n)
		}
	}
}

func FuzzParseLarge(f *testing.F) {
	f.Add("1 2 0 3 4 5 6 7 8\n")
	f.Add("6x6: " + strings.Trim(fmt.Sprint(identity(36)), "[]") + "\n")
	f.Add(strings.Trim(fmt.Sprint(identity(49)), "[]") + "\n")
	f.Add("8x8: " + strings.Trim(fmt.Sprint(identity(64)), "[]") + "\n\n2x3: 1 0 2 3 4 5\n")
	f.Add("2x32: 1 0" + strings.Trim(fmt.Sprint(identity(64)[2:]), "[]")[1:] + "\n")
	f.Add("9x9: 0\n")
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := ParseLarge(strings.NewReader(in), "fuzz")
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
			if p.Heuristic(s) != float64(largeManhattan(p, s)) {
				t.Fatalf("%s: h %g", p, p.Heuristic(s))
			}
			for a := range 4 {
				if c, ok := p.Apply(s, a); ok {
					if back, _ := p.Apply(c, a^1); back != s {
						t.Fatalf("%s: %c not undone", p, "UDLR"[a])
					}
				}
			}
			again, err := ParseLarge(strings.NewReader(p.String()), "again")
			if err != nil || again[0].Root() != s || again[0].String() != p.String() {
				t.Fatalf("round trip of %q: %v", p, err)
			}
			// Parse reads the boards that a Problem holds, the same way.
			small, err := Parse(strings.NewReader(p.String()), "again")
			if (err == nil) != (p.Rows*p.Cols <= MaxCells) || err != nil && !errors.Is(err, ErrLarge) {
				t.Fatalf("Parse(%q): %v", p, err)
			}
			if err == nil && small[0].String() != p.String() {
				t.Fatalf("Parse(%q): %s", p, small[0])
			}
		}
	})
}
