package witness

import (
	"bytes"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// solve returns a solution of p found by a depth-first search over its
// lines, or nil.
func solve(p *Problem) []int {
	var path []int
	var dfs func(s State) bool
	dfs = func(s State) bool {
		if p.IsGoal(s) {
			return true
		}
		for a := range 4 {
			if next, ok := p.Apply(s, a); ok {
				path = append(path, a)
				if dfs(next) {
					return true
				}
				path = path[:len(path)-1]
			}
		}
		return false
	}
	if !dfs(p.Root()) {
		return nil
	}
	return path
}

func TestGenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range [][2]int{{1, 2}, {2, 1}, {2, 2}, {3, 3}, {4, 4}, {3, 5}, {5, 3}, {10, 2}} {
		rows, cols := size[0], size[1]
		minRegions := 2
		if rows >= 10 {
			minRegions = 5
		} else if rows >= 4 {
			minRegions = 4
		}
		for i := range 20 {
			p, s := generate(rng, rows, cols)
			il, ic := p.Init()
			gl, gc := p.Goal()
			border := gl == 0 || gl == rows || gc == 0 || gc == cols
			if p.Rows != rows || p.Cols != cols || il != 0 || ic != 0 || !border || (gl == 0 && gc == 0) {
				t.Fatalf("%dx%d puzzle %d:\n%s", rows, cols, i, p)
			}
			var reg [MaxVertices]uint64
			n := p.regions(s, &reg)
			colours := 0
			for k := 1; k <= MaxColors; k++ {
				if p.color[k] != 0 {
					colours++
				}
			}
			if !p.IsGoal(s) || n < minRegions || colours < 2 {
				t.Fatalf("%dx%d puzzle %d: goal %v, %d regions, %d colours:\n%s", rows, cols, i, p.IsGoal(s), n, colours, p.Render(s))
			}
			// Each region holds one colour (IsGoal) and none is left empty
			// by chance alone too often to matter; every bullet is in a
			// region.
			cells := 0
			for _, r := range reg[:n] {
				cells += bits.OnesCount64(r)
			}
			if cells != rows*cols {
				t.Fatalf("regions cover %d cells of %d", cells, rows*cols)
			}
			sol := solve(p)
			if sol == nil {
				t.Fatalf("no solution:\n%s", p)
			}
			q, err := New(rows, cols, [2]int{il, ic}, [2]int{gl, gc}, colorsOf(p))
			if err != nil || q.String() != p.String() {
				t.Fatalf("New: %v", err)
			}
		}
	}
	// The same seed gives the same puzzles.
	a := GenerateSet(rand.New(rand.NewPCG(5, 5)), 30, 4, 4)
	b := GenerateSet(rand.New(rand.NewPCG(5, 5)), 30, 4, 4)
	for i := range a {
		if a[i].String() != b[i].String() || a[i].ID != b[i].ID {
			t.Fatal("GenerateSet is not deterministic for a seed")
		}
	}
}

func colorsOf(p *Problem) []int {
	var cs []int
	for r := range p.Rows {
		for c := range p.Cols {
			cs = append(cs, p.Color(r, c))
		}
	}
	return cs
}

func TestGenerateSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	// 2x2 puzzles are few: duplicates are common.
	for _, size := range [][2]int{{2, 2}, {4, 4}} {
		ps := GenerateSet(rng, 200, size[0], size[1])
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
			if back[i].String() != p.String() || p.ID != "generated#"+itoa(i) {
				t.Fatalf("puzzle %d (%s): round trip %q != %q", i, p.ID, back[i].String(), p.String())
			}
			if seen[p.String()] {
				t.Fatalf("duplicate puzzle\n%s", p)
			}
			seen[p.String()] = true
		}
	}
}

func itoa(i int) string { return string(appendInt(nil, i)) }

func appendInt(b []byte, i int) []byte {
	if i >= 10 {
		b = appendInt(b, i/10)
	}
	return append(b, byte('0'+i%10))
}

// TestGenerateDistribution compares generated 4x4 puzzles with the paper's
// training set: how often each exit and each number of colours occurs.
func TestGenerateDistribution(t *testing.T) {
	const n = 20000
	rng := rand.New(rand.NewPCG(11, 12))
	var corner, colours [5]int
	for range n {
		p := Generate(rng, 4, 4)
		if gl, gc := p.Goal(); gl == 4 && gc == 4 {
			corner[0]++
		}
		k := 0
		for _, m := range p.color[1:] {
			if m != 0 {
				k++
			}
		}
		colours[k]++
	}
	// In the training set: the exit is (4,4) in 20.0% of the puzzles; 2, 3
	// and 4 colours in 11.7%, 41.9% and 46.4%.
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"exit (4,4)", float64(corner[0]) / n, 0.200},
		{"2 colours", float64(colours[2]) / n, 0.117},
		{"3 colours", float64(colours[3]) / n, 0.419},
		{"4 colours", float64(colours[4]) / n, 0.464},
	} {
		t.Logf("%s: %.3f of the puzzles, training set %.3f", c.what, c.got, c.want)
		if d := c.got - c.want; d < -0.02 || d > 0.02 {
			t.Errorf("%s: %.3f of the puzzles, want %.3f", c.what, c.got, c.want)
		}
	}
}
