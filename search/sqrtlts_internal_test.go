package search

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
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
		for i := int32(1); i < int32(e.pending); i++ {
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

// deepTree is a problem whose states are the nodes of a binary tree of
// depth n (a state is a hash of its path, its depth in the top 16 bits),
// with no goal.
type deepTree struct{ n uint64 }

func (deepTree) Root() uint64       { return 0 }
func (deepTree) NumActions() int    { return 2 }
func (deepTree) IsGoal(uint64) bool { return false }
func (t deepTree) Apply(s uint64, a int) (uint64, bool) {
	d := s >> 48
	if d >= t.n {
		return 0, false
	}
	x := s + uint64(a+1)*0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return (d+1)<<48 | (x^x>>31)&(1<<48-1), true
}

// wildEval gives a random policy whose log-probabilities spread over
// [−spread, 0] before normalization, a fraction zero of them −Inf and a
// fraction nan of them NaN, or, in a fraction sure of the states,
// probability 1 to one action at random; and a random heuristic in
// [0, 10).
type wildEval struct {
	rng             *rand.Rand
	spread          float64
	zero, nan, sure float64
}

func (e wildEval) Evaluate(p Problem[uint64], states []uint64, logPi, h []float64) error {
	A := p.NumActions()
	for i := range states {
		row := logPi[A*i : A*(i+1)]
		sum := 0.0
		for a := range row {
			row[a] = -e.spread * e.rng.Float64() * e.rng.Float64()
			sum += math.Exp(row[a])
		}
		if e.rng.Float64() < e.sure {
			for a := range row {
				row[a] = math.Inf(-1)
			}
			row[e.rng.IntN(A)] = 0
			sum = 1
		}
		for a := range row {
			row[a] -= math.Log(sum)
			switch u := e.rng.Float64(); {
			case u < e.zero:
				row[a] = math.Inf(-1)
			case u < e.zero+e.nan:
				row[a] = math.NaN()
			}
		}
		h[i] = 10 * e.rng.Float64()
	}
	return nil
}

// refSqrtCost is sqrtCost as it was before the candidate ancestors: the
// least B_k over the ancestors of non-zero weight, then the walk up the
// whole path, which computes the term of an ancestor whose lower bound is
// below the least cost so far. It follows the arena's parent links, and
// returns an ancestor whose term is the cost (−1 if none is: the cost is
// +Inf, or the bound of the least B_k, below every term).
func refSqrtCost[S comparable](e *bestFirst[S], i int32) (float64, int32) {
	x := e.ext(i)
	d := x.depth
	if d == 0 {
		return 0, -1
	}
	minB, weighted := math.Inf(1), 0
	for k := e.node(i).parent; k >= 0; k = e.node(k).parent {
		if xk := e.ext(k); !math.IsInf(xk.logW, -1) {
			minB = min(minB, xk.logPi-xk.logW)
			weighted++
		}
	}
	cost, arg := math.Inf(1), int32(-1)
	if weighted > 1 {
		cost = minB - x.logPi + math.Log(float64(d)+1)
	}
	for k := e.node(i).parent; k >= 0; k = e.node(k).parent {
		xk := e.ext(k)
		if math.IsInf(xk.logW, -1) {
			continue
		}
		if b := xk.logPi - x.logPi - xk.logW; b < cost {
			var c float64
			switch {
			case e.alg.levin:
				c = math.Log(float64(d-xk.depth)) - (x.logPi - xk.logPi) - xk.logW
			case k == 0:
				c = x.logT - xk.logW
			default:
				c = xk.logPi + x.logT + math.Log(-math.Expm1(xk.logTParent-x.logT)) - xk.logW
			}
			if c <= cost {
				arg = k
			}
			cost = min(cost, c)
		}
	}
	if cost != cost {
		return math.Inf(1), -1
	}
	return cost, arg
}

// TestSqrtCandidates checks, on every node of random searches (shallow
// and deep trees, skewed and flat policies, probabilities 0 and NaN,
// rerooters that give many ancestors weight 0, both costs), that each
// node's candidates are the sqrtCands ancestors of non-zero weight with
// the least B_k and restB the least B_k of the others, and that sqrtCost
// is bit for bit the cost of the walk up the whole path (refSqrtCost).
// It requires that the candidates settle the cost of many nodes that
// have other ancestors of non-zero weight, and that the walk be needed
// for some nodes whose cost is the term of an ancestor that is not a
// candidate.
func TestSqrtCandidates(t *testing.T) {
	t.Parallel()
	algs := []Algorithm{
		SqrtLTS(HeuristicRerooter, 1, false), SqrtLTS(HeuristicRerooter, 1, true),
		SqrtLTS(HeuristicRerooter, 0.2, false), SqrtLTS(HeuristicRerooter, 300, false),
		SqrtLTS(HeuristicRerooter, 300, true), SqrtLTS(ConstantRerooter, 0, false),
		SqrtLTS(ConstantRerooter, 0.5, false), SqrtLTS(ConstantRerooter, 1e-3, false),
		SqrtLTS(ConstantRerooter, 1e-3, true),
		SqrtLTS(ClusterRerooter, 0, false), SqrtLTS(ClusterHeuristicRerooter, 3, true),
	}
	problems := []struct {
		name string
		p    Problem[uint64]
		ev   wildEval
		// depth is the least depth each search must reach.
		depth uint32
	}{
		{"tree", randomTree{}, wildEval{spread: 20}, 8},
		{"flat tree", randomTree{}, wildEval{spread: 1}, 8},
		{"deep", deepTree{400}, wildEval{spread: 12}, 30},
		{"deep, very skewed", deepTree{3000}, wildEval{spread: 60}, 100},
		{"zero and NaN", deepTree{200}, wildEval{spread: 8, zero: 0.05, nan: 0.002}, 30},
		{"sums of probabilities that underflow", deepTree{300}, wildEval{spread: 3000}, 30},
		{"sure", deepTree{300}, wildEval{spread: 1, sure: 0.97}, 100},
	}
	rng := rand.New(rand.NewPCG(33, 33))
	var nodes, settled, others, walkedForOther, notFinite, bounded int
	var x sqrtNode
	for _, pr := range problems {
		for _, alg := range algs {
			ev := pr.ev
			ev.rng = rand.New(rand.NewPCG(rng.Uint64(), 0))
			opts := Options{Budget: 3000, BatchSize: 1 + rng.IntN(9)}
			s, err := NewSolver[uint64](alg, ev, opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Solve(context.Background(), pr.p); err != nil {
				t.Fatal(err)
			}
			e := &s.bf
			e.alg = alg
			maxDepth := uint32(0)
			for i := int32(1); i < int32(e.pending); i++ {
				xi := e.ext(i)
				maxDepth = max(maxDepth, xi.depth)
				wantB, wantRest := wantCandidates(e, i)
				var candB [sqrtCands]float64
				for j := range candB {
					candB[j] = e.candB(xi, j)
				}
				if !sameFloats(candB[:], wantB[:]) || !sameFloats([]float64{xi.restB}, []float64{wantRest}) {
					t.Fatalf("%s, %v: node %d: candidates %v, rest %v; want %v, %v", pr.name, alg, i, candB, xi.restB, wantB, wantRest)
				}
				for j, k := range xi.cand {
					if k >= 0 != (candB[j] < math.Inf(1)) || k < 0 && j+1 < sqrtCands && xi.cand[j+1] >= 0 {
						t.Fatalf("%s, %v: node %d: candidates %v of B %v", pr.name, alg, i, xi.cand, candB)
					}
				}
				got := e.sqrtCost(i)
				want, arg := refSqrtCost(e, i)
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("%s, %v: node %d at depth %d: cost %v, want %v", pr.name, alg, i, xi.depth, got, want)
				}
				nodes++
				if arg < 0 && !math.IsInf(want, 0) {
					bounded++
				}
				x = *xi
				if x.logPi-x.logPi != 0 {
					notFinite++
				}
				if math.IsInf(x.restB, 1) {
					continue
				}
				others++
				_, ok := e.sqrtCandCost(&x, e.sqrtFirstTerm(&x))
				if ok {
					settled++
				} else if arg >= 0 && !slices.Contains(x.cand[:], arg) {
					walkedForOther++
				}
			}
			t.Logf("%s, %v: %d nodes, depth %d at most", pr.name, alg, e.n, maxDepth)
			if maxDepth < pr.depth {
				t.Errorf("%s, %v: depth %d at most", pr.name, alg, maxDepth)
			}
		}
	}
	t.Logf("%d nodes, %d with more than %d ancestors of non-zero weight, of which the candidates settle %d, "+
		"%d walked for the term of another; %d of log pi not finite; %d whose cost is the bound", nodes, others, sqrtCands, settled, walkedForOther, notFinite, bounded)
	if settled < others/2 || walkedForOther == 0 || notFinite == 0 || bounded == 0 {
		t.Errorf("the candidates settle %d nodes of %d, %d walked for the term of another, %d not finite, %d of cost the bound",
			settled, others, walkedForOther, notFinite, bounded)
	}
}

// wantCandidates returns what node i's candidates must be: the least
// sqrtCands B_k of its ancestors of non-zero weight that are not NaN, in
// increasing order (+Inf for the missing), and the least B_k of the
// others, NaN if one is NaN.
func wantCandidates[S comparable](e *bestFirst[S], i int32) ([sqrtCands]float64, float64) {
	var least [sqrtCands + 1]float64 // the least B_k, in increasing order
	for j := range least {
		least[j] = math.Inf(1)
	}
	nan := false
	for k := e.node(i).parent; k >= 0; k = e.node(k).parent {
		xk := e.ext(k)
		if math.IsInf(xk.logW, -1) {
			continue
		}
		b := xk.logPi - xk.logW
		if b != b {
			nan = true
			continue
		}
		if b < least[sqrtCands] {
			j := sqrtCands
			for ; j > 0 && b < least[j-1]; j-- {
				least[j] = least[j-1]
			}
			least[j] = b
		}
	}
	rest := least[sqrtCands]
	if nan {
		rest = math.NaN()
	}
	return [sqrtCands]float64(least[:sqrtCands]), rest
}

// sameFloats reports whether a and b hold the same float64s, NaN equal to
// NaN.
func sameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || x != x && y != y })
}

// TestSqrtNodeSize checks that a sqrtNode takes a cache line, as its doc
// says, and that the memory Options.MaxMemory counts for √LTS holds it
// and the heuristic value.
func TestSqrtNodeSize(t *testing.T) {
	if s := unsafe.Sizeof(sqrtNode{}); s != 64 || s+8 > sqrtNodeBytes {
		t.Errorf("a sqrtNode takes %d bytes; want 64, and at most %d with the heuristic value", s, sqrtNodeBytes)
	}
}
