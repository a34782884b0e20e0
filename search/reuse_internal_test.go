package search

import (
	"context"
	"testing"
)

// fan is a tree of states counted from 0: every state has A children, and
// the goal lies depth levels down along action A-1.
type fan struct{ A, depth int }

func (f fan) Root() uint64    { return 1 }
func (f fan) NumActions() int { return f.A }
func (f fan) IsGoal(s uint64) bool {
	return s == uint64(1)<<f.depth
}
func (f fan) Apply(s uint64, a int) (uint64, bool) {
	if s >= uint64(1)<<f.depth {
		return 0, false
	}
	if a == f.A-1 {
		return 2 * s, true
	}
	return s<<32 | uint64(a+1)<<48 | s, true // a dead end: never a goal
}

// TestEngineReuse checks that one engine of each kind searches problems
// with more actions and smaller batches than the one before, and the
// reverse, as fresh engines do. (An engine once kept evaluator buffers
// sized for the previous problem's actions and sliced past them.)
func TestEngineReuse(t *testing.T) {
	steps := []struct{ A, batch int }{{4, 1000}, {100, 3}, {2, 1}, {255, 64}, {3, 5000}}
	for _, alg := range []Algorithm{LevinTS(), PHSSafe(), PUCT(1)} {
		var bf bestFirst[uint64]
		var pt puctTree[uint64]
		for _, st := range steps {
			p := fan{A: st.A, depth: 6}
			opts := Options{BatchSize: st.batch, Budget: 3000}.withDefaults()
			run := func(bf *bestFirst[uint64], pt *puctTree[uint64]) Result[uint64] {
				var res Result[uint64]
				lim := limits{ctx: context.Background(), budget: opts.Budget}
				var err error
				if alg.IsPUCT() {
					err = pt.search(p, Uniform[uint64]{}, alg.C(), &opts, &lim, &res)
				} else {
					err = bf.search(p, Uniform[uint64]{}, alg, &opts, &lim, &res)
				}
				if err != nil {
					t.Fatalf("%v, %d actions, batch %d: %v", alg, st.A, st.batch, err)
				}
				return res
			}
			got := run(&bf, &pt)
			want := run(new(bestFirst[uint64]), new(puctTree[uint64]))
			if got.Solved != want.Solved || got.Expansions != want.Expansions || got.Evaluations != want.Evaluations {
				t.Errorf("%v, %d actions, batch %d: reused engine %+v, fresh %+v", alg, st.A, st.batch, got, want)
			}
		}
	}
}
