package main

import (
	"strings"
	"testing"

	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/search"
)

// TestSymmetric checks the eight images of levels, one of them not
// square, and their optimal solutions: every image of a solution solves the image of its level,
// the image has the optimal length of the level (sokoban.Optimal, an
// independent search), the eight images of the first level differ, and
// the identity gives the level back.
func TestSymmetric(t *testing.T) {
	ps, err := sokoban.ReadFile(levels)
	if err != nil {
		t.Fatal(err)
	}
	corridor, err := sokoban.Parse(strings.NewReader("#######\n#.$ @ #\n#######\n"), "corridor.txt")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, p := range append(ps[:3:3], corridor...) {
		r, err := sokoban.Optimal(p, 1e6)
		if err != nil {
			t.Fatal(err)
		}
		moves := search.FormatActions(p, r.Actions)
		for sym := range 8 {
			q, m, err := symmetric(p, moves, sym)
			if err != nil {
				t.Fatalf("%s: symmetry %d: %v", p.ID, sym, err)
			}
			if _, err := replay(q, m); err != nil {
				t.Errorf("%s: symmetry %d: %s on\n%s\n%v", p.ID, sym, m, q, err)
			}
			opt, err := sokoban.Optimal(q, 1e6)
			if err != nil {
				t.Fatal(err)
			}
			if len(opt.Actions) != len(r.Actions) {
				t.Errorf("%s: symmetry %d: optimum %d moves, want %d, on\n%s", p.ID, sym, len(opt.Actions), len(r.Actions), q)
			}
			if sym == 0 && (q.String() != p.String() || m != moves) {
				t.Errorf("%s: the identity gives\n%s\n%s", p.ID, q, m)
			}
			if p == ps[0] {
				if k, ok := seen[q.Render(q.Root())]; ok {
					t.Errorf("%s: symmetries %d and %d give the same level", p.ID, k, sym)
				}
				seen[q.Render(q.Root())] = sym
			}
		}
	}
}
