package stp

import (
	"math/rand/v2"
	"testing"
)

func TestLowerBoundCases(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rows, cols int
		tiles      []int
		manhattan  int
		lowerBound int
	}{
		{"goal", 3, 3, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, 0, 0},
		// 2 and 1 in row 0, reversed: one leaves the row.
		{"row conflict", 3, 3, []int{0, 2, 1, 3, 4, 5, 6, 7, 8}, 2, 4},
		// 6 and 3 in column 0, reversed; 8 and 7 in row 2, reversed.
		{"column and row", 3, 3, []int{0, 1, 2, 6, 4, 5, 3, 8, 7}, 4, 8},
		// 3 2 1 in row 0 of a 2x4: two of the three leave.
		{"three reversed", 2, 4, []int{0, 3, 2, 1, 4, 5, 6, 7}, 4, 8},
		// 2 and 1 reversed but 1 is not in its goal row: no conflict.
		{"other row", 3, 3, []int{1, 2, 0, 3, 4, 5, 6, 7, 8}, 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The bound does not need a solvable arrangement.
			p := goalProblem[State](tc.rows, tc.cols)
			s := pack(tc.tiles)
			if got := s.manhattan(p.g); got != tc.manhattan {
				t.Errorf("Manhattan %d, want %d", got, tc.manhattan)
			}
			if got := p.LowerBound(s); got != tc.lowerBound {
				t.Errorf("LowerBound %d, want %d", got, tc.lowerBound)
			}
		})
	}
}

// TestLowerBoundExhaustive checks Heuristic ≤ LowerBound ≤ the exact
// distance on every reachable state of small sizes, and that the conflicts
// raise the bound on some of them.
func TestLowerBoundExhaustive(t *testing.T) {
	for _, size := range [][2]int{{2, 3}, {3, 2}, {2, 4}, {4, 2}, {3, 3}} {
		rows, cols := size[0], size[1]
		p, err := New[State](rows, cols, identity(rows*cols), "")
		if err != nil {
			t.Fatal(err)
		}
		raised := 0
		for s, d := range reach(p) {
			h, lb := s.manhattan(p.g), p.LowerBound(s)
			if lb < h || lb > d {
				t.Fatalf("%dx%d: %v: Manhattan %d, LowerBound %d, distance %d", rows, cols, p.Tiles(s), h, lb, d)
			}
			if lb > h {
				raised++
			}
		}
		if raised == 0 {
			t.Errorf("%dx%d: the conflicts never raise the bound", rows, cols)
		}
	}
}

// TestLowerBound4x4 checks the bound against optimal solutions of 4x4
// puzzles from random walks, along every solution.
func TestLowerBound4x4(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		p := GenerateWalk[State](rng, 4, 4, 10, 40)
		sol := idaStar(p, 80)
		states, err := replay(p, sol)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for step, s := range states {
			if lb := p.LowerBound(s); lb > len(sol)-step {
				t.Fatalf("%s: step %d: LowerBound %d above the cost to go %d", p, step, lb, len(sol)-step)
			}
		}
	}
}
