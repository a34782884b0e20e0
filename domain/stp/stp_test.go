package stp

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

var (
	_ search.Heuristic[State] = (*Problem)(nil)
	_ search.Encoder[State]   = (*Problem)(nil)
)

func mustParse(t testing.TB, s string) []*Problem {
	t.Helper()
	ps, err := Parse(strings.NewReader(s), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func TestMoves(t *testing.T) {
	p := mustParse(t, "1 2 0 3 4 5 6 7 8\n")[0]
	if p.ID != "p.txt#0" || p.Rows != 3 || p.Cols != 3 {
		t.Fatalf("%+v", p)
	}
	for _, tc := range []struct {
		moves string
		ok    bool
		want  string // tiles after the moves
		h     float64
	}{
		{"", true, "1 2 0 3 4 5 6 7 8", 2},
		{"U", false, "", 0},
		{"R", false, "", 0},
		{"L", true, "1 0 2 3 4 5 6 7 8", 1},
		{"LL", true, "0 1 2 3 4 5 6 7 8", 0},
		{"D", true, "1 2 5 3 4 0 6 7 8", 3},
		{"DDL", true, "1 2 5 3 4 8 6 0 7", 5},
		{"DDD", false, "", 0},
	} {
		s := p.Root()
		ok := true
		for _, m := range tc.moves {
			if s, ok = p.Apply(s, strings.IndexRune("UDLR", m)); !ok {
				break
			}
		}
		if ok != tc.ok {
			t.Errorf("%q: legal %v", tc.moves, ok)
			continue
		}
		if !ok {
			continue
		}
		got := fmt.Sprint(p.Tiles(s))
		if want := "[" + tc.want + "]"; got != want || p.Heuristic(s) != tc.h || p.IsGoal(s) != (tc.h == 0) {
			t.Errorf("%q: %s h=%g goal=%v, want %s h=%g", tc.moves, got, p.Heuristic(s), p.IsGoal(s), want, tc.h)
		}
	}
}

// TestSolvable compares the parity rule with breadth-first search from the
// goal on small grids.
func TestSolvable(t *testing.T) {
	for _, size := range [][2]int{{2, 2}, {2, 3}, {3, 2}, {3, 3}} {
		rows, cols := size[0], size[1]
		n := rows * cols
		goal := make([]int, n)
		for i := range goal {
			goal[i] = i
		}
		p, err := New(rows, cols, goal, "goal")
		if err != nil {
			t.Fatal(err)
		}
		seen := map[State]bool{p.Root(): true}
		queue := []State{p.Root()}
		for len(queue) > 0 {
			s := queue[0]
			queue = queue[1:]
			for a := range 4 {
				if c, ok := p.Apply(s, a); ok && !seen[c] {
					seen[c] = true
					queue = append(queue, c)
				}
			}
		}
		fact := 1
		for i := 2; i <= n; i++ {
			fact *= i
		}
		if len(seen) != fact/2 {
			t.Errorf("%dx%d: %d reachable, want %d", rows, cols, len(seen), fact/2)
		}
		for s := range seen {
			if !Solvable(rows, cols, p.Tiles(s)) {
				t.Fatalf("%dx%d: reachable %v judged unsolvable", rows, cols, p.Tiles(s))
			}
		}
		// Swapping two tiles of a reachable arrangement gives an unreachable one.
		tiles := p.Tiles(p.Root())
		tiles[1], tiles[2] = tiles[2], tiles[1]
		if Solvable(rows, cols, tiles) {
			t.Errorf("%dx%d: %v judged solvable", rows, cols, tiles)
		}
		if _, err := New(rows, cols, tiles, "x"); err != ErrUnsolvable {
			t.Errorf("New(unsolvable) = %v", err)
		}
	}
}

// TestAStarOptimal checks that A* with the Manhattan heuristic finds
// optimal solutions of 4x4 puzzles, against breadth-first search.
func TestAStarOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 8 {
		p := GenerateWalk(rng, 4, 4, 6, 14)
		opt := searchtest.BFS[State](p)
		res, err := search.BestFirst[State](context.Background(), p, search.DomainHeuristic[State]{}, search.AStar(), search.Options{GoalAtExpansion: true})
		if err != nil || !res.Solved {
			t.Fatal(err)
		}
		if err := searchtest.Replay[State](p, res.Actions); err != nil {
			t.Fatal(err)
		}
		if len(res.Actions) != opt {
			t.Errorf("puzzle %d %s: A* length %d, optimum %d", i, p, len(res.Actions), opt)
		}
		if h := p.Heuristic(p.Root()); h > float64(opt) {
			t.Errorf("puzzle %d: h %g above the optimum %d", i, h, opt)
		}
	}
}

func TestGenerateAndRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var ps []*Problem
	for _, size := range [][2]int{{3, 3}, {4, 4}, {5, 5}, {2, 4}, {4, 6}} {
		ps = append(ps, GenerateRandom(rng, size[0], size[1]), GenerateWalk(rng, size[0], size[1], 5, 50))
	}
	var buf bytes.Buffer
	if err := Write(&buf, ps); err != nil {
		t.Fatal(err)
	}
	back := mustParse(t, buf.String())
	for i, p := range ps {
		if back[i].String() != p.String() || back[i].Rows != p.Rows || back[i].Cols != p.Cols {
			t.Errorf("round trip: %q != %q", back[i], p)
		}
		if !Solvable(p.Rows, p.Cols, p.Tiles(p.Root())) {
			t.Errorf("generated unsolvable %s", p)
		}
		c, h, w := p.InputShape()
		dst := make([]float32, c*h*w)
		p.Encode(p.Root(), dst)
		for cell := range h * w {
			sum := float32(0)
			for pl := range c {
				sum += dst[pl*h*w+cell]
			}
			if sum != 1 || dst[p.Root().At(cell)*h*w+cell] != 1 {
				t.Fatalf("%s: cell %d badly encoded", p, cell)
			}
		}
	}
	if GenerateWalk(rng, 4, 4, 0, 0).Heuristic(GenerateWalk(rng, 4, 4, 0, 0).Root()) != 0 {
		t.Error("a walk of length 0 is not the goal")
	}
}

func TestRender(t *testing.T) {
	p := mustParse(t, "3 1 2 0 4 5 6 7 8 9 10 11 12 13 14 15\n")[0]
	want := " 3  1  2  .\n 4  5  6  7\n 8  9 10 11\n12 13 14 15"
	if got := p.Render(p.Root()); got != want {
		t.Errorf("Render:\n%s\nwant\n%s", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{"", "no puzzles"},
		{"1 2 3\n", "p.txt:1: 3 tiles is not a square"},
		{"\n0 1 2 x\n", "p.txt:2: bad tile \"x\""},
		{"0 1 2 2\n", "tile 2 appears twice"},
		{"0 1 2 4\n", "tile 4 out of range"},
		{"0 2 1 3\n", "unsolvable"},
		{"0\n", "want at least 2x2"},
		{"2y3: 0 1 2 3 4 5\n", "bad size prefix"},
		{"2x3: 0 1 2 3 4\n", "5 tiles for 2x3"},
		{strings.Repeat("0 ", 36) + "\n", "more than 25 cells"},
	} {
		_, err := Parse(strings.NewReader(tc.in), "p.txt")
		if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "stp: p.txt") {
			t.Errorf("Parse(%q) = %v, want error containing %q", tc.in, err, tc.msg)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("1 2 0 3 4 5 6 7 8\n")
	f.Add("2x3: 1 0 2 3 4 5\n\n0 1 2 3\n")
	f.Add("0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24\n")
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, p := range ps {
			s := p.Root()
			for a := range 4 {
				if c, ok := p.Apply(s, a); ok {
					p.Heuristic(c)
				}
			}
			again, err := Parse(strings.NewReader(p.String()), "again")
			if err != nil || again[0].String() != p.String() {
				t.Fatalf("round trip of %q: %v", p, err)
			}
		}
	})
}

const bench5x5 = "10 5 0 18 4 1 23 13 14 9 20 17 11 21 2 6 15 19 22 3 12 16 8 24 7\n"

func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		mustParse(b, bench5x5)
	}
}

func BenchmarkApply(b *testing.B) {
	p := mustParse(b, bench5x5)[0]
	s := p.Root()
	for b.Loop() {
		for a := range 4 {
			p.Apply(s, a)
		}
	}
}

func BenchmarkHeuristic(b *testing.B) {
	p := mustParse(b, bench5x5)[0]
	for b.Loop() {
		p.Heuristic(p.Root())
	}
}

func BenchmarkEncode(b *testing.B) {
	p := mustParse(b, bench5x5)[0]
	c, h, w := p.InputShape()
	dst := make([]float32, c*h*w)
	for b.Loop() {
		p.Encode(p.Root(), dst)
	}
}

// BenchmarkEngineWAStar measures the best-first engine on the 5x5 puzzle
// with WA* (w = 3) and the Manhattan heuristic, with a reused engine.
func BenchmarkEngineWAStar(b *testing.B) {
	p := mustParse(b, bench5x5)[0]
	var e search.Engine[State]
	ctx := context.Background()
	opts := search.Options{Budget: 200000}
	var exp, gen int64
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.Search(ctx, p, search.DomainHeuristic[State]{}, search.WAStar(3), opts)
		if err != nil {
			b.Fatal(err)
		}
		exp += res.Expansions
		gen += res.Generated
	}
	b.ReportMetric(float64(exp)/b.Elapsed().Seconds(), "exp/s")
	b.ReportMetric(float64(gen)/float64(b.N), "gen/op")
}

// BenchmarkEngineMemory reports the heap an engine holds after a WA*
// search of a 5x5 puzzle, per generated node.
func BenchmarkEngineMemory(b *testing.B) {
	p := mustParse(b, bench5x5)[0]
	var perNode float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		e := new(search.Engine[State])
		res, err := e.Search(context.Background(), p, search.DomainHeuristic[State]{}, search.WAStar(3), search.Options{Budget: 200000})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perNode = float64(after.HeapAlloc-before.HeapAlloc) / float64(res.Generated)
		runtime.KeepAlive(e)
	}
	b.ReportMetric(perNode, "B/node")
}
