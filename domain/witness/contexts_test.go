package witness

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestContexts checks the contexts of random lines on random puzzles of
// several sizes: NumContexts codes, each within its set's range,
// deterministic, and equal to the definition, computed here from the
// segments drawn and the bullets' colours: so different windows give
// different codes.
func TestContexts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, size := range [][2]int{{1, 2}, {3, 3}, {4, 4}, {5, 5}, {7, 7}, {6, 8}, {1, 31}} {
		for range 40 {
			p := Generate(rng, size[0], size[1])
			name, sizes := p.ContextLayout()
			if len(sizes) != NumContexts || NumContexts != 126 {
				t.Fatalf("%s: %d mutex sets", name, len(sizes))
			}
			// A random line, and its segments.
			type seg [4]int
			segs := map[seg]bool{}
			s := p.Root()
			for range rng.IntN(3 * size[0] * size[1]) {
				a := rng.IntN(4)
				l, c := p.Tip(s)
				n, ok := p.Apply(s, a)
				if !ok {
					continue
				}
				l2, c2 := p.Tip(n)
				segs[seg{min(l, l2), min(c, c2), max(l, l2), max(c, c2)}] = true
				s = n
			}
			var codes, again [NumContexts]uint64
			p.Contexts(s, -1, s, codes[:])
			p.Contexts(s, -1, s, again[:])
			if codes != again {
				t.Fatal("Contexts is not deterministic")
			}
			for i, c := range codes {
				if c >= sizes[i] {
					t.Fatalf("%s: code %d of set %d out of [0, %d)", name, c, i, sizes[i])
				}
			}
			el, ec := p.Goal()
			if codes[0] != uint64(el*(p.Cols+1)+ec) {
				t.Errorf("%s: exit code %d", name, codes[0])
			}
			vertex := func(l, c int) uint64 {
				if l < 0 || l > p.Rows || c < 0 || c > p.Cols {
					return 3
				}
				var v uint64
				if segs[seg{l, c, l + 1, c}] {
					v |= 1
				}
				if segs[seg{l, c, l, c + 1}] {
					v |= 2
				}
				return v
			}
			cell := func(r, c int) uint64 {
				if r < 0 || r >= p.Rows || c < 0 || c >= p.Cols {
					return 5
				}
				return uint64(p.Color(r, c))
			}
			l, c := p.Tip(s)
			k := 1
			for _, tl := range contextTilings {
				for r := l - tl.RowReach; r <= l+tl.RowReach+1-tl.TileRows; r++ {
					for cc := c - tl.ColReach; cc <= c+tl.ColReach+1-tl.TileCols; cc++ {
						var vc, bc uint64
						for dr := range tl.TileRows {
							for dc := range tl.TileCols {
								vc = vc*4 + vertex(r+dr, cc+dc)
								bc = bc*6 + cell(r+dr, cc+dc)
							}
						}
						if want := vc*tl.Size(6) + bc; codes[k] != want {
							t.Fatalf("%s: set %d: code %d, want %d", name, k, codes[k], want)
						}
						k++
					}
				}
			}
			if k != NumContexts {
				t.Fatalf("%d sets checked", k)
			}
		}
	}
}

// TestContextsLayout checks the sizes: the largest code is below
// 4^9·6^9 ≈ 2.6e12.
func TestContextsLayout(t *testing.T) {
	p := Generate(rand.New(rand.NewPCG(1, 1)), 4, 4)
	name, sizes := p.ContextLayout()
	if name != "witness 4x4 v1" || sizes[0] != 25 || sizes[1] != 2641807540224 || slices.Max(sizes) != sizes[1] {
		t.Errorf("%s: sizes %v", name, sizes[:2])
	}
}

func TestContextsAllocs(t *testing.T) {
	p := Generate(rand.New(rand.NewPCG(1, 1)), 4, 4)
	var codes [NumContexts]uint64
	if n := testing.AllocsPerRun(100, func() { p.Contexts(p.Root(), -1, p.Root(), codes[:]) }); n != 0 {
		t.Errorf("%v allocations per Contexts", n)
	}
}

// BenchmarkContexts measures the 126 context codes of a 4x4 state.
func BenchmarkContexts(b *testing.B) {
	p := Generate(rand.New(rand.NewPCG(1, 1)), 4, 4)
	s := p.Root()
	var codes [NumContexts]uint64
	for b.Loop() {
		p.Contexts(s, -1, s, codes[:])
	}
}
