package search

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// randomTree is a problem whose states are the nodes of a tree of
// branching 3 and depth 12 (a state is its path, two bits an action, and
// its depth), with no goal, and a random policy and heuristic.
type randomTree struct{}

func (randomTree) Root() uint64       { return 0 }
func (randomTree) NumActions() int    { return 3 }
func (randomTree) IsGoal(uint64) bool { return false }
func (randomTree) Apply(s uint64, a int) (uint64, bool) {
	d := s >> 56
	if d >= 12 {
		return 0, false
	}
	return (d+1)<<56 | s&(1<<56-1) | uint64(a)<<(2*d), true
}

// randomEval gives a random policy, some probabilities tiny, and a
// random heuristic.
type randomEval struct{ rng *rand.Rand }

func (e randomEval) Evaluate(p Problem[uint64], states []uint64, logPi, h []float64) error {
	for i := range states {
		sum := 0.0
		for a := range 3 {
			x := math.Exp(-20 * e.rng.Float64() * e.rng.Float64())
			logPi[3*i+a] = math.Log(x)
			sum += x
		}
		for a := range 3 {
			logPi[3*i+a] -= math.Log(sum)
		}
		h[i] = 10 * e.rng.Float64()
	}
	return nil
}

// TestSqrtCost checks √LTS's O(1)-per-ancestor costs against the direct
// computation of Orseau et al.'s remark: for each ancestor of non-zero
// weight, c ← c·p + 1 along the path, log S = log c − Σ log p.
func TestSqrtCost(t *testing.T) {
	for _, alg := range []Algorithm{
		SqrtLTS(HeuristicRerooter, 1, false), SqrtLTS(HeuristicRerooter, 3, true),
		SqrtLTS(ConstantRerooter, 0, false), SqrtLTS(ConstantRerooter, 0.5, false),
		SqrtLTS(ClusterHeuristicRerooter, 1, false), SqrtLTS(ClusterRerooter, 0, false),
	} {
		s, err := NewSolver[uint64](alg, randomEval{rand.New(rand.NewPCG(1, 2))}, Options{Budget: 3000, BatchSize: 7})
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Solve(context.Background(), randomTree{})
		if err != nil || res.Expansions != 3000 {
			t.Fatal(res, err)
		}
		e := &s.bf
		e.alg = alg
		var path []int32
		checked, rerooted := 0, 0
		for i := int32(1); i < int32(e.n); i++ {
			path = path[:0]
			for j := i; j >= 0; j = e.node(j).parent {
				path = append(path, j)
			}
			// path runs from i up to the root.
			want := math.Inf(1)
			for a := 1; a < len(path); a++ { // ancestor path[a]
				k := path[a]
				logW := e.ext(k).logW
				if math.IsInf(logW, -1) {
					continue
				}
				if k != 0 {
					rerooted++
				}
				var cost float64
				if alg.levin {
					cost = math.Log(float64(a)) - (e.node(i).logPi - e.node(k).logPi) - logW
				} else {
					c, sumLog := 1.0, 0.0
					for b := a - 1; b >= 0; b-- {
						lp := e.node(path[b]).logPi - e.node(path[b+1]).logPi
						c = c*math.Exp(lp) + 1
						sumLog += lp
					}
					cost = math.Log(c) - sumLog - logW
				}
				want = min(want, cost)
			}
			if got := e.sqrtCost(i); math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
				t.Fatalf("%v: node %d at depth %d: cost %v, want %v", alg, i, e.node(i).depth(), got, want)
			}
			checked++
		}
		if checked < 3000 || alg.rr != ConstantRerooter && alg.param != 0 && rerooted == 0 {
			t.Errorf("%v: %d nodes checked, %d ancestors rerooted", alg, checked, rerooted)
		}
	}
}
