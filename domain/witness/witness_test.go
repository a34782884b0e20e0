package witness

import (
	"bytes"
	"context"
	"math/rand/v2"
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

func read(t testing.TB, path string) []*Problem {
	t.Helper()
	ps, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// play applies the moves of a string of U, D, L, R.
func play(t *testing.T, p *Problem, moves string) (State, bool) {
	t.Helper()
	s := p.Root()
	for _, m := range moves {
		var ok bool
		s, ok = p.Apply(s, strings.IndexRune("UDLR", m))
		if !ok {
			return s, false
		}
	}
	return s, true
}

func TestRules(t *testing.T) {
	ps := read(t, "testdata/small.txt")
	if ps[0].ID != "small.txt#0" || ps[1].ID != "small.txt#1" {
		t.Fatalf("IDs %q %q", ps[0].ID, ps[1].ID)
	}
	p := ps[0]
	for _, tc := range []struct {
		moves      string
		legal      bool
		goal       bool
		regions    int
		heuristic  float64
		tipL, tipC int
	}{
		{"", true, false, 1, 3, 0, 0},
		{"RUR", true, true, 2, 0, 1, 2},    // the line separates the two colours
		{"URR", true, false, 1, 0, 1, 2},   // both colours in one region
		{"RRU", true, false, 1, 0, 1, 2},   // along the bottom border
		{"RUL", true, false, 2, 2, 1, 0},   // not at the exit
		{"D", false, false, 0, 0, 0, 0},    // off the grid
		{"L", false, false, 0, 0, 0, 0},    // off the grid
		{"RL", false, false, 0, 0, 0, 0},   // back onto the line
		{"RULD", false, false, 0, 0, 0, 0}, // onto the entrance
		{"URRDL", false, false, 0, 0, 0, 0},
	} {
		s, ok := play(t, p, tc.moves)
		if ok != tc.legal {
			t.Errorf("%q: legal %v, want %v", tc.moves, ok, tc.legal)
			continue
		}
		if !ok {
			continue
		}
		l, c := p.Tip(s)
		if got := p.IsGoal(s); got != tc.goal || p.Regions(s) != tc.regions || p.Heuristic(s) != tc.heuristic || l != tc.tipL || c != tc.tipC || s.Len() != len(tc.moves) {
			t.Errorf("%q: goal %v regions %d h %g tip (%d,%d); want %v %d %g (%d,%d)", tc.moves,
				got, p.Regions(s), p.Heuristic(s), l, c, tc.goal, tc.regions, tc.heuristic, tc.tipL, tc.tipC)
		}
	}
	// A failed exit ends the line unless ContinueAtExit.
	s, _ := play(t, p, "URR")
	if _, ok := p.Apply(s, Down); ok {
		t.Error("the line goes on from a failed exit")
	}
	p.ContinueAtExit = true
	if t2, ok := p.Apply(s, Down); !ok || p.IsGoal(t2) {
		t.Error("ContinueAtExit: cannot leave the exit")
	}
	// Different lines to the same vertex are different states.
	a, _ := play(t, p, "RU")
	b, _ := play(t, p, "UR")
	if a == b {
		t.Error("two lines are the same state")
	}
}

func TestSolveAndEncode(t *testing.T) {
	ps := read(t, "testdata/small.txt")
	if _, err := os.Stat("../../../shared/data/witness/puzzles_4x4_test.txt"); err == nil {
		ps = append(ps, read(t, "../../../shared/data/witness/puzzles_4x4_test.txt")[:20]...)
	}
	for _, p := range ps {
		res, err := search.BestFirst[State](context.Background(), p, search.DomainHeuristic[State]{}, search.PHSh(), search.Options{})
		if err != nil || !res.Solved {
			t.Fatalf("%s: not solved: %v", p.ID, err)
		}
		if err := searchtest.Replay[State](p, res.Actions); err != nil {
			t.Fatalf("%s: %v", p.ID, err)
		}
		// Encode the solution's last state.
		s := p.Root()
		for _, a := range res.Actions {
			s, _ = p.Apply(s, a)
		}
		c, h, w := p.InputShape()
		dst := make([]float32, c*h*w)
		for i := range dst {
			dst[i] = 7 // Encode must overwrite everything
		}
		p.Encode(s, dst)
		count := make([]int, c)
		for i, x := range dst {
			switch x {
			case 1:
				count[i/(h*w)]++
			case 0:
			default:
				t.Fatalf("%s: pixel %d = %g", p.ID, i, x)
			}
		}
		cells := 0
		for k := 0; k <= MaxColors; k++ {
			cells += count[k]
		}
		if cells != p.Rows*p.Cols || count[PlaneLine] != 2*len(res.Actions)+1 ||
			count[PlaneTip] != 1 || count[PlaneExit] != 1 || count[PlaneEntrance] != 1 {
			t.Errorf("%s: plane counts %v for a line of %d moves", p.ID, count, len(res.Actions))
		}
		tipL, tipC := p.Tip(s)
		if dst[PlaneTip*h*w+2*tipL*w+2*tipC] != 1 || dst[PlaneExit*h*w+2*p.Goal[0]*w+2*p.Goal[1]] != 1 {
			t.Errorf("%s: tip or exit misplaced", p.ID)
		}
	}
	p := ps[0]
	s, _ := play(t, p, "RUR")
	if got, want := p.Render(s), ". o-@\n 1|2\nS-o ."; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
}

func TestGenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range [][2]int{{2, 2}, {3, 3}, {4, 4}, {3, 5}} {
		ps := GenerateSet(rng, 15, size[0], size[1])
		var buf bytes.Buffer
		if err := Write(&buf, ps); err != nil {
			t.Fatal(err)
		}
		back, err := Parse(&buf, "gen.txt")
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for i, p := range ps {
			if back[i].String() != p.String() {
				t.Fatalf("round trip: %q != %q", back[i].String(), p.String())
			}
			if seen[p.String()] {
				t.Fatalf("duplicate puzzle %s", p)
			}
			seen[p.String()] = true
			colours := map[uint8]bool{}
			for _, k := range p.Colors {
				if k != 0 {
					colours[k] = true
				}
			}
			if len(colours) < 2 || p.Init != [2]int{0, 0} || p.Goal == p.Init {
				t.Fatalf("%dx%d puzzle %d breaks the distribution's rules:\n%s", size[0], size[1], i, p)
			}
			res, err := search.BestFirst[State](context.Background(), p, search.Uniform[State]{}, search.LevinTS(), search.Options{})
			if err != nil || !res.Solved {
				t.Fatalf("generated puzzle not solvable: %v\n%s", err, p)
			}
		}
	}
	a := Generate(rand.New(rand.NewPCG(5, 5)), 4, 4)
	b := Generate(rand.New(rand.NewPCG(5, 5)), 4, 4)
	if a.String() != b.String() {
		t.Error("Generate is not deterministic for a seed")
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{"", "no puzzles"},
		{"Size: 4 4\nInit: 0 0\nGoal: 4 0\n", "no Colors line"},
		{"Size: 4\nInit: 0 0\nGoal: 4 0\nColors: \n", ":1: Size: want 2 integers"},
		{"Size: 0 4\nInit: 0 0\nGoal: 4 0\nColors: \n", ":1: Size: size 0x4"},
		{"Size: 9 9\nInit: 0 0\nGoal: 4 0\nColors: \n", "at most 64 vertices"},
		{"Size: 4 4\nInit: 0 x\nGoal: 4 0\nColors: \n", ":2: Init: bad integer"},
		{"Size: 4 4\nInit: 0 0\nGoal: 5 0\nColors: \n", "exit [5 0] is not a vertex"},
		{"Size: 4 4\nInit: 0 0\nGoal: 0 0\nColors: \n", "same vertex"},
		{"Size: 4 4\nInit: 0 0\nGoal: 4 0\nColors: |4 0 1\n", ":4: Colors: cell 4 0 is not in"},
		{"Size: 4 4\nInit: 0 0\nGoal: 4 0\nColors: |0 0 5\n", "colour 5"},
		{"Size: 4 4\nInit: 0 0\nGoal: 4 0\nColors: |0 0 1|0 0 2\n", "two colours"},
		{"Size: 4 4\nInit: 0 0\nGoal: 4 0\nColors: 0 0 1\n", "want |r c k|"},
		{"Size: 4 4\nGoal: 4 0\n", ":2: want Init"},
		{"Size 4 4\n", "want \"Key: value\""},
		{"Size: 4 4\nInit: 0 0\nGoal: 4 0\nColors: \nSize: 4 4\n", ":5: puzzle starting at line 1 has more than four lines"},
	} {
		_, err := Parse(strings.NewReader(tc.in), "p.txt")
		if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "witness: p.txt") {
			t.Errorf("Parse(%q) = %v, want error containing %q", tc.in, err, tc.msg)
		}
	}
}

func FuzzParse(f *testing.F) {
	b, _ := os.ReadFile("testdata/small.txt")
	f.Add(string(b))
	f.Add("Size: 1 1\nInit: 0 0\nGoal: 1 1\nColors: |0 0 1|\n")
	f.Add("Size: 7 7\nInit: 7 7\nGoal: 0 0\nColors:\n\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, p := range ps {
			// Every parsed puzzle can be played and printed back.
			s := p.Root()
			for a := range 4 {
				if t2, ok := p.Apply(s, a); ok {
					p.IsGoal(t2)
				}
			}
			c, h, w := p.InputShape()
			p.Encode(s, make([]float32, c*h*w))
			again, err := Parse(strings.NewReader(p.String()), "again")
			if err != nil || again[0].String() != p.String() {
				t.Fatalf("round trip of %q: %v", p.String(), err)
			}
		}
	})
}

func benchProblem(b *testing.B) (*Problem, State) {
	p := read(b, "testdata/small.txt")[1]
	s, _ := p.Apply(p.Root(), Right)
	s, _ = p.Apply(s, Up)
	s, _ = p.Apply(s, Up)
	return p, s
}

func BenchmarkApply(b *testing.B) {
	p, s := benchProblem(b)
	for b.Loop() {
		for a := range 4 {
			p.Apply(s, a)
		}
	}
}

func BenchmarkIsGoal(b *testing.B) {
	p, s := benchProblem(b)
	p.Goal = [2]int{2, 1} // the tip: the region test runs
	for b.Loop() {
		p.IsGoal(s)
	}
}

func BenchmarkEncode(b *testing.B) {
	p, s := benchProblem(b)
	c, h, w := p.InputShape()
	dst := make([]float32, c*h*w)
	for b.Loop() {
		p.Encode(s, dst)
	}
}

func BenchmarkParse(b *testing.B) {
	data, _ := os.ReadFile("testdata/small.txt")
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(data), "small.txt"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGenerate(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for b.Loop() {
		Generate(rng, 4, 4)
	}
}
