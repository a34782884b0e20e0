package sokoban

import (
	"context"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// TestPruneDeadlocksShortens checks on the first Boxoban levels of the
// fixture what PruneDeadlocks promises searches: the same levels solved,
// solutions that replay on the level without pruning, as short as before
// for A*, and fewer states expanded in all.
func TestPruneDeadlocksShortens(t *testing.T) {
	ps, err := ReadFile("testdata/boxoban-test-000-first40.txt")
	if err != nil {
		t.Fatal(err)
	}
	ps = ps[:10]
	for _, alg := range []search.Algorithm{search.GBFS(), search.AStar()} {
		var plain, pruned int64
		for _, p := range ps {
			opts := search.Options{Budget: 20000}
			a, err := searchtest.Solve[State](context.Background(), p, search.DomainHeuristic[State]{}, alg, opts)
			if err != nil {
				t.Fatal(err)
			}
			b, err := searchtest.Solve[State](context.Background(), p.PruneDeadlocks(), search.DomainHeuristic[State]{}, alg, opts)
			if err != nil {
				t.Fatal(err)
			}
			plain += a.Expansions
			pruned += b.Expansions
			if a.Solved && !b.Solved {
				t.Errorf("%v, level %s: solved without pruning, not with", alg, p.ID)
			}
			if b.Solved {
				if err := search.Replay[State](p, b.Actions); err != nil {
					t.Errorf("%v, level %s: the solution with pruning does not replay without: %v", alg, p.ID, err)
				}
			}
			if alg == search.AStar() && a.Solved && b.Solved && len(a.Actions) != len(b.Actions) {
				t.Errorf("A*, level %s: a solution of %d moves with pruning, %d without", p.ID, len(b.Actions), len(a.Actions))
			}
		}
		if pruned >= plain {
			t.Errorf("%v: %d states expanded with pruning, %d without; want fewer", alg, pruned, plain)
		}
	}
}
