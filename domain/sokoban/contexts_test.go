package sokoban

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestContexts checks the contexts of states along random walks on the
// test levels: NumContexts codes, each within its set's range,
// deterministic, and equal to the definition: the undo action after a
// walk, 4 after a push or at the root, then the tiles computed here from
// the drawing of the state (Render): so different windows give different
// codes.
func TestContexts(t *testing.T) {
	ps, err := ReadFile("testdata/boxoban-test-000-first40.txt")
	if err != nil {
		t.Fatal(err)
	}
	more, err := ReadFile("testdata/levels.txt")
	if err != nil {
		t.Fatal(err)
	}
	ps = append(ps, more...)
	rng := rand.New(rand.NewPCG(5, 6))
	value := map[byte]uint64{'#': 8, ' ': 0, '.': 1, '$': 2, '*': 3, '@': 4, '+': 5}
	for _, p := range ps {
		name, sizes := p.ContextLayout()
		if name != "sokoban v2" || len(sizes) != NumContexts || NumContexts != 110 || sizes[0] != 5 {
			t.Fatalf("%s: %d mutex sets", name, len(sizes))
		}
		s, parent, a := p.Root(), p.Root(), -1
		for step := range 60 {
			if step > 0 {
				next := rng.IntN(4)
				n, ok := p.Apply(s, next)
				if !ok {
					continue
				}
				parent, a, s = s, next, n
			}
			var codes, again [NumContexts]uint64
			p.Contexts(parent, a, s, codes[:])
			p.Contexts(parent, a, s, again[:])
			if codes != again {
				t.Fatal("Contexts is not deterministic")
			}
			undo := uint64(4)
			if a >= 0 {
				pushed := false
				for i := range p.rows * p.cols {
					pushed = pushed || parent.Box(i) != s.Box(i)
				}
				if !pushed {
					undo = uint64([4]int{Up: Down, Down: Up, Left: Right, Right: Left}[a])
				}
			}
			if codes[0] != undo {
				t.Fatalf("%s, step %d: undo action %d, want %d", p.ID, step, codes[0], undo)
			}
			rows := strings.Split(p.Render(s), "\n")
			cell := func(r, c int) uint64 {
				if r < 0 || r >= len(rows) || c < 0 || c >= len(rows[r]) {
					return 8
				}
				return value[rows[r][c]]
			}
			pr, pc := s.Player()/p.cols, s.Player()%p.cols
			k := 1
			for _, tl := range contextTilings {
				for r := pr - tl.RowReach; r <= pr+tl.RowReach+1-tl.TileRows; r++ {
					for c := pc - tl.ColReach; c <= pc+tl.ColReach+1-tl.TileCols; c++ {
						var want uint64
						for dr := range tl.TileRows {
							for dc := range tl.TileCols {
								want = want*9 + cell(r+dr, c+dc)
							}
						}
						if codes[k] != want || want >= sizes[k] {
							t.Fatalf("%s, step %d: set %d: code %d, want %d < %d\n%s", p.ID, step, k, codes[k], want, sizes[k], p.Render(s))
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

func TestContextsAllocs(t *testing.T) {
	ps, err := ReadFile("testdata/boxoban-test-000-first40.txt")
	if err != nil {
		t.Fatal(err)
	}
	p := ps[0]
	var codes [NumContexts]uint64
	if n := testing.AllocsPerRun(100, func() { p.Contexts(p.Root(), -1, p.Root(), codes[:]) }); n != 0 {
		t.Errorf("%v allocations per Contexts", n)
	}
}

// BenchmarkContexts measures the 110 context codes of a Boxoban state.
func BenchmarkContexts(b *testing.B) {
	ps, err := ReadFile("testdata/boxoban-test-000-first40.txt")
	if err != nil {
		b.Fatal(err)
	}
	p := ps[0]
	var codes [NumContexts]uint64
	for b.Loop() {
		p.Contexts(p.Root(), -1, p.Root(), codes[:])
	}
}
