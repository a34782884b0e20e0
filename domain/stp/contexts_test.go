package stp

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// window returns the values of the (2k+1)×(2k+1) window around the
// blank of the arrangement tiles of a rows×cols board, rows·cols off
// the board.
func window(rows, cols int, tiles []int, k int) []int {
	b := slices.Index(tiles, 0)
	var w []int
	for r := b/cols - k; r <= b/cols+k; r++ {
		for c := b%cols - k; c <= b%cols+k; c++ {
			v := rows * cols
			if r >= 0 && r < rows && c >= 0 && c < cols {
				v = tiles[r*cols+c]
			}
			w = append(w, v)
		}
	}
	return w
}

// TestContexts checks the contexts of random arrangements of boards of
// several sizes: NumContexts codes, each within its set's range, the
// same for both state types, deterministic, and exact: the
// 25 cells of the 5x5 window decode from the 25 codes before the last
// and the 7x7 window from the first 36, so that different windows give
// different codes; the last code is the last action, 4 at the root.
func TestContexts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range [][2]int{{2, 2}, {3, 3}, {4, 4}, {5, 5}, {3, 8}, {2, 12}, {6, 6}, {8, 8}} {
		rows, cols := size[0], size[1]
		n := rows * cols
		name, sizes := contextLayout(rows, cols)
		if len(sizes) != NumContexts || NumContexts != 102 || sizes[NumContexts-1] != 5 {
			t.Fatalf("%s: %d mutex sets", name, len(sizes))
		}
		base := n + 1
		seen := map[[NumContexts]uint64][]int{}
		for range 300 {
			lp := GenerateRandom[LargeState](rng, rows, cols)
			tiles := lp.Tiles(lp.Root())
			var codes, again [NumContexts]uint64
			lp.Contexts(lp.Root(), -1, lp.Root(), codes[:])
			lp.Contexts(lp.Root(), -1, lp.Root(), again[:])
			if codes != again {
				t.Fatal("Contexts is not deterministic")
			}
			if n <= MaxCells {
				p, err := New[State](rows, cols, tiles, "")
				if err != nil {
					t.Fatal(err)
				}
				lname, lsizes := p.ContextLayout()
				var pc [NumContexts]uint64
				p.Contexts(p.Root(), -1, p.Root(), pc[:])
				if pc != codes || lname != name || !slices.Equal(lsizes, sizes) {
					t.Fatalf("%dx%d: the contexts of a State differ from a LargeState's", rows, cols)
				}
			}
			for i, c := range codes {
				if c >= sizes[i] {
					t.Fatalf("%s: code %d of set %d out of [0, %d)", name, c, i, sizes[i])
				}
			}
			w5 := window(rows, cols, tiles, 2)
			for i, c := range codes[NumContexts-26 : NumContexts-1] {
				if int(c) != w5[i] {
					t.Fatalf("%s: 5x5 window cell %d: code %d, want %d", name, i, c, w5[i])
				}
			}
			if last := codes[NumContexts-1]; last != 4 {
				t.Fatalf("%s: last action %d at the root, want 4", name, last)
			}
			for a := range 4 {
				child, ok := lp.Apply(lp.Root(), a)
				if !ok {
					continue
				}
				var edge, root [NumContexts]uint64
				lp.Contexts(lp.Root(), a, child, edge[:])
				lp.Contexts(child, -1, child, root[:])
				if edge[NumContexts-1] != uint64(a) || !slices.Equal(edge[:NumContexts-1], root[:NumContexts-1]) {
					t.Fatalf("%s: after action %d, last action %d, or other codes than the state's", name, a, edge[NumContexts-1])
				}
			}
			w7 := window(rows, cols, tiles, 3)
			for i := range 6 {
				for j := range 6 {
					c := int(codes[i*6+j])
					want := ((w7[i*7+j]*base+w7[i*7+j+1])*base+w7[(i+1)*7+j])*base + w7[(i+1)*7+j+1]
					if c != want {
						t.Fatalf("%s: 2x2 tile (%d, %d): code %d, want %d", name, i, j, c, want)
					}
				}
			}
			if w, ok := seen[codes]; ok && !slices.Equal(w, w7) {
				t.Fatalf("%s: two windows with the same codes", name)
			}
			seen[codes] = w7
		}
	}
}

// TestContextsPadding checks the codes of the goal, whose blank is in
// the top-left corner, against the definition.
func TestContextsPadding(t *testing.T) {
	p := GenerateWalk[State](rand.New(rand.NewPCG(1, 1)), 5, 5, 0, 0)
	var codes [NumContexts]uint64
	p.Contexts(p.Goal(), -1, p.Goal(), codes[:])
	const pad = 25
	// The 5x5 window of the goal: rows −2..2, cols −2..2.
	want5 := []int{
		pad, pad, pad, pad, pad,
		pad, pad, pad, pad, pad,
		pad, pad, 0, 1, 2,
		pad, pad, 5, 6, 7,
		pad, pad, 10, 11, 12,
	}
	for i, c := range codes[NumContexts-26 : NumContexts-1] {
		if int(c) != want5[i] {
			t.Errorf("cell %d of the 5x5 window: %d, want %d", i, c, want5[i])
		}
	}
	// The last 2x2 tile of the 7x7 window covers cells (2..3, 2..3).
	if got, want := codes[35], uint64(((12*26+13)*26+17)*26+18); got != want {
		t.Errorf("last 2x2 tile: %d, want %d", got, want)
	}
	// The first, all pad.
	if got, want := codes[0], uint64(((pad*26+pad)*26+pad)*26+pad); got != want {
		t.Errorf("first 2x2 tile: %d, want %d", got, want)
	}
}

func TestContextsAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 3))
	p, lp := GenerateRandom[State](rng, 5, 5), GenerateRandom[LargeState](rng, 8, 8)
	var codes [NumContexts]uint64
	if n := testing.AllocsPerRun(100, func() {
		p.Contexts(p.Root(), -1, p.Root(), codes[:])
		lp.Contexts(lp.Root(), -1, lp.Root(), codes[:])
	}); n != 0 {
		t.Errorf("%v allocations per Contexts", n)
	}
}

// BenchmarkContexts measures the 101 context codes of a 5x5 state.
func BenchmarkContexts(b *testing.B) {
	p := GenerateRandom[State](rand.New(rand.NewPCG(1, 3)), 5, 5)
	var codes [NumContexts]uint64
	for b.Loop() {
		p.Contexts(p.Root(), -1, p.Root(), codes[:])
	}
}
