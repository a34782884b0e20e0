package sokoban

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

var (
	_ search.Heuristic[State] = (*Problem)(nil)
	_ search.Encoder[State]   = (*Problem)(nil)
)

func parse(t testing.TB, s string) []*Problem {
	t.Helper()
	ps, err := Parse(strings.NewReader(s), "l.txt")
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func TestMoves(t *testing.T) {
	p := parse(t, "#######\n#  $ .#\n# @$. #\n#     #\n#######\n")[0]
	if p.ID != "l.txt#0" {
		t.Errorf("ID %q", p.ID)
	}
	for _, tc := range []struct {
		moves string
		ok    bool
		board string
		h     float64
	}{
		{"", true, "#######\n#  $ .#\n# @$. #\n#     #\n#######", 3},
		{"R", true, "#######\n#  $ .#\n#  @* #\n#     #\n#######", 2},
		{"RR", false, "", 0}, // box into the wall? no: onto floor beyond the goal
		{"U", true, "#######\n# @$ .#\n#  $. #\n#     #\n#######", 3},
		{"UR", true, "#######\n#  @$.#\n#  $. #\n#     #\n#######", 2},
		{"URR", true, "#######\n#   @*#\n#  $. #\n#     #\n#######", 1},
		{"URRR", false, "", 0}, // box into the wall
		{"UU", false, "", 0},   // into a wall
		{"DRU", false, "", 0},  // a box into a box
	} {
		s := p.Root()
		ok := true
		for _, m := range tc.moves {
			if s, ok = p.Apply(s, strings.IndexRune("UDLR", m)); !ok {
				break
			}
		}
		if tc.moves == "RR" {
			// Pushing the box from the goal onto the floor is legal.
			if !ok {
				t.Errorf("RR: illegal")
			}
			continue
		}
		if ok != tc.ok {
			t.Errorf("%q: legal %v, want %v", tc.moves, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if got := p.Render(s); got != tc.board || p.Heuristic(s) != tc.h {
			t.Errorf("%q:\n%s\nh=%g, want\n%s\nh=%g", tc.moves, got, p.Heuristic(s), tc.board, tc.h)
		}
	}
}

func TestSolve(t *testing.T) {
	ps, err := ReadFile("testdata/levels.txt")
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].ID != "levels.txt#0" || ps[1].ID != "levels.txt#7" {
		t.Fatalf("IDs %q %q", ps[0].ID, ps[1].ID)
	}
	small := parse(t, "#######\n#  $ .#\n# @$. #\n#     #\n#######\n")[0]
	if opt, res := searchtest.BFS[State](small), solve(t, small, search.AStar(), true); len(res.Actions) != opt {
		t.Errorf("A* length %d, optimum %d", len(res.Actions), opt)
	}
	for _, p := range ps {
		for _, alg := range []search.Algorithm{search.GBFS(), search.PHSStar(), search.AStar()} {
			res := solve(t, p, alg, false)
			if err := searchtest.Replay[State](p, res.Actions); err != nil {
				t.Errorf("%s %v: %v", p.ID, alg, err)
			}
		}
	}
}

func solve(t *testing.T, p *Problem, alg search.Algorithm, atExpansion bool) search.Result[State] {
	t.Helper()
	res, err := search.BestFirst[State](context.Background(), p, search.DomainHeuristic[State]{}, alg, search.Options{GoalAtExpansion: atExpansion})
	if err != nil || !res.Solved {
		t.Fatalf("%s %v: not solved: %v", p.ID, alg, err)
	}
	return res
}

func TestEncode(t *testing.T) {
	p := parse(t, "#####\n#+$ #\n# * #\n#####\n")[0]
	c, h, w := p.InputShape()
	if c != 4 || h != 4 || w != 5 {
		t.Fatalf("shape %d %d %d", c, h, w)
	}
	dst := make([]float32, c*h*w)
	for i := range dst {
		dst[i] = 9
	}
	p.Encode(p.Root(), dst)
	want := [4]string{
		"#####\n#...#\n#...#\n#####", // walls
		".....\n.#...\n.....\n.....", // player
		".....\n..#..\n..#..\n.....", // boxes
		".....\n.#...\n..#..\n.....", // goals
	}
	for pl := range 4 {
		var b strings.Builder
		for i := range h * w {
			if i > 0 && i%w == 0 {
				b.WriteByte('\n')
			}
			switch dst[pl*h*w+i] {
			case 1:
				b.WriteByte('#')
			case 0:
				b.WriteByte('.')
			default:
				t.Fatalf("plane %d pixel %d = %g", pl, i, dst[pl*h*w+i])
			}
		}
		if b.String() != want[pl] {
			t.Errorf("plane %d:\n%s\nwant\n%s", pl, b.String(), want[pl])
		}
	}
	if p.String() != "; 0\n#####\n#+$ #\n# * #\n#####" {
		t.Errorf("String = %q", p.String())
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{"", "no levels"},
		{"; 1\n#####\n#@$x#\n#####\n", "l.txt:3: unknown character 'x' in column 4"},
		{"; 1\n#####\n#@$@.#\n#####\n", "l.txt:3: a second player"},
		{"; 1\n#####\n# $.#\n#####\n", "l.txt:2: the level has no player"},
		{"; 1\n#####\n#@$ #\n#####\n", "1 boxes and 0 goals"},
		{"; 1\n#####\n#@ .#\n#####\n", "no boxes"},
		{"; 1\n\n; 2\n", "l.txt:2: level \"1\" has no rows"},
		{";\n#@$.#\n", "without a level number"},
		{"; 1\n" + strings.Repeat("#@$.#"+strings.Repeat(" ", 20)+"\n", 1) + strings.Repeat("#"+strings.Repeat(" ", 24)+"\n", 5), "more than 128"},
	} {
		_, err := Parse(strings.NewReader(tc.in), "l.txt")
		if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "sokoban: l.txt") {
			t.Errorf("Parse(%q) = %v, want error containing %q", tc.in, err, tc.msg)
		}
	}
}

func FuzzParse(f *testing.F) {
	b, _ := os.ReadFile("testdata/levels.txt")
	f.Add(string(b))
	f.Add("#@$.#\n\n#+*#\n")
	f.Add("; 3\n@\n$\n.\n")
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, p := range ps {
			s := p.Root()
			for a := range 4 {
				if c, ok := p.Apply(s, a); ok {
					p.IsGoal(c)
					p.Heuristic(c)
				}
			}
			c, h, w := p.InputShape()
			p.Encode(s, make([]float32, c*h*w))
			again, err := Parse(strings.NewReader(p.String()), "again")
			if err != nil || again[0].Render(again[0].Root()) != p.Render(s) {
				t.Fatalf("round trip of %q: %v", p.String(), err)
			}
		}
	})
}

func benchLevel(b *testing.B) *Problem {
	ps, err := ReadFile("testdata/levels.txt")
	if err != nil {
		b.Fatal(err)
	}
	return ps[0]
}

func BenchmarkParse(b *testing.B) {
	data, _ := os.ReadFile("testdata/levels.txt")
	for b.Loop() {
		if _, err := Parse(strings.NewReader(string(data)), "levels.txt"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApply(b *testing.B) {
	p := benchLevel(b)
	s := p.Root()
	for b.Loop() {
		for a := range 4 {
			p.Apply(s, a)
		}
	}
}

func BenchmarkHeuristic(b *testing.B) {
	p := benchLevel(b)
	for b.Loop() {
		p.Heuristic(p.Root())
	}
}

func BenchmarkEncode(b *testing.B) {
	p := benchLevel(b)
	c, h, w := p.InputShape()
	dst := make([]float32, c*h*w)
	for b.Loop() {
		p.Encode(p.Root(), dst)
	}
}

// BenchmarkEngineGBFS measures the engine with GBFS and the domain
// heuristic on a Boxoban level.
func BenchmarkEngineGBFS(b *testing.B) {
	p := benchLevel(b)
	var e search.Engine[State]
	var exp int64
	for b.Loop() {
		res, err := e.Search(context.Background(), p, search.DomainHeuristic[State]{}, search.GBFS(), search.Options{})
		if err != nil || !res.Solved {
			b.Fatal(err)
		}
		exp += res.Expansions
	}
	b.ReportMetric(float64(exp)/b.Elapsed().Seconds(), "exp/s")
}
