package cli

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/phs-go/phs/domain/stp"
)

// TestAStarOptimal checks that "phs solve -alg astar" without a model
// returns shortest solutions of random 8-puzzles by default (the Manhattan
// distance is consistent), in batches of 32, against the distances of a
// breadth-first search from the goal.
func TestAStarOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	ps := make([]*stp.Problem, 100)
	for i := range ps {
		ps[i] = stp.GenerateRandom(rng, 3, 3)
	}
	var b strings.Builder
	if err := stp.Write(&b, ps); err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, "tiles.txt", b.String())
	dist := distances(ps[0])
	for _, args := range [][]string{nil, {"-goal-test", "expansion"}, {"-goal-test", "default", "-batch", "1"}} {
		args = append([]string{"solve", "-domain", "stp", "-model", "none", "-alg", "astar", "-progress", "0", file}, args...)
		out, errOut, err := runPHS(t, args...)
		if err != nil {
			t.Fatalf("%q: %v\n%s", args, err, errOut)
		}
		recs := decodeRecords(t, out)
		if len(recs) != len(ps) {
			t.Fatalf("%q: %d records, want %d", args, len(recs), len(ps))
		}
		for i, r := range recs {
			if want := dist[ps[i].Root()]; !r.Solved || r.Length != want {
				t.Errorf("%q: %s: solved %v, %d moves; want %d", args[10:], r.Problem, r.Solved, r.Length, want)
			}
		}
	}
}

// distances returns the distance of every arrangement of p's size to the
// goal, by a breadth-first search from the goal (a move can be undone).
func distances(p *stp.Problem) map[stp.State]int {
	dist := map[stp.State]int{p.Goal(): 0}
	frontier := []stp.State{p.Goal()}
	for len(frontier) > 0 {
		var next []stp.State
		for _, s := range frontier {
			for a := range p.NumActions() {
				if c, ok := p.Apply(s, a); ok {
					if _, seen := dist[c]; !seen {
						dist[c] = dist[s] + 1
						next = append(next, c)
					}
				}
			}
		}
		frontier = next
	}
	return dist
}
