package tiling

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCodes compares Codes with the tiles read one by one from the
// definition, at every anchor of random boards, corners included.
func TestCodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tl := range []Tiling{
		{4, 4, 3, 3}, {3, 2, 4, 2}, {2, 3, 2, 4}, {2, 2, 2, 2}, {1, 1, 1, 2}, {1, 1, 2, 1},
		{3, 3, 2, 2}, {2, 2, 1, 1}, {0, 0, 1, 1},
	} {
		const base = 9
		if err := tl.Check(base); err != nil {
			t.Fatal(err)
		}
		b := Board{Rows: 1 + rng.IntN(8), Cols: 1 + rng.IntN(8), Pad: 8}
		for range b.Rows * b.Cols {
			b.Cells = append(b.Cells, uint8(rng.IntN(8)))
		}
		cell := func(r, c int) uint64 {
			if r < 0 || r >= b.Rows || c < 0 || c >= b.Cols {
				return uint64(b.Pad)
			}
			return uint64(b.Cells[r*b.Cols+c])
		}
		dst := make([]uint64, tl.Len()+1)
		for r0 := range b.Rows {
			for c0 := range b.Cols {
				dst[tl.Len()] = 12345
				if rest := tl.Codes(b, r0, c0, base, dst); len(rest) != 1 || rest[0] != 12345 {
					t.Fatalf("%+v: Codes wrote %d codes, want %d", tl, len(dst)-len(rest), tl.Len())
				}
				// The same codes from a larger window.
				var w Window
				w.Read(b, r0, c0, tl.RowReach+1, tl.ColReach+2)
				wide := make([]uint64, tl.Len())
				w.Codes(tl, base, wide)
				if !slices.Equal(wide, dst[:tl.Len()]) {
					t.Fatalf("%+v at (%d, %d): codes %v from a larger window, %v", tl, r0, c0, wide, dst[:tl.Len()])
				}
				i := 0
				for r := r0 - tl.RowReach; r <= r0+tl.RowReach+1-tl.TileRows; r++ {
					for c := c0 - tl.ColReach; c <= c0+tl.ColReach+1-tl.TileCols; c++ {
						var want uint64
						for dr := range tl.TileRows {
							for dc := range tl.TileCols {
								want = want*base + cell(r+dr, c+dc)
							}
						}
						if dst[i] != want || want >= tl.Size(base) {
							t.Fatalf("%+v at (%d, %d): tile %d code %d, want %d < %d", tl, r0, c0, i, dst[i], want, tl.Size(base))
						}
						i++
					}
				}
				if i != tl.Len() {
					t.Fatalf("%+v: %d tiles, Len %d", tl, i, tl.Len())
				}
			}
		}
	}
	if got := (Tiling{4, 4, 3, 3}).Len() + (Tiling{3, 2, 4, 2}).Len() + (Tiling{2, 3, 2, 4}).Len() +
		(Tiling{2, 2, 2, 2}).Len() + (Tiling{1, 1, 1, 2}).Len() + (Tiling{1, 1, 2, 1}).Len(); got != 109 {
		t.Errorf("Sokoban's tilings have %d tiles, want 109", got)
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		tl   Tiling
		base uint64
		ok   bool
	}{
		{Tiling{4, 4, 3, 3}, 4 * 6, true}, // the Witness: 24^9 < 2^64
		{Tiling{4, 4, 3, 3}, 1 << 8, false},
		{Tiling{1, 1, 4, 1}, 2, false},
		{Tiling{-1, 1, 1, 1}, 2, false},
		{Tiling{1, 1, 0, 1}, 2, false},
		{Tiling{8, 8, 1, 1}, 2, false},
		{Tiling{1, 1, 1, 1}, 1, false},
	} {
		if err := c.tl.Check(c.base); (err == nil) != c.ok {
			t.Errorf("%+v base %d: Check: %v", c.tl, c.base, err)
		}
	}
	if got := Pair(3, 5, 6); got != 23 {
		t.Errorf("Pair(3, 5, 6) = %d", got)
	}
}
