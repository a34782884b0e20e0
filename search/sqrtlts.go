package search

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/phs-go/phs/search/internal/louvain"
)

// A Rerooter names the rerooting weights of √LTS (see SqrtLTS): the weight
// w(n) ≥ 0 it gives each node n when n is expanded.
type Rerooter uint8

const (
	// ConstantRerooter gives every node but the root the same weight c,
	// the algorithm's parameter (0 by default: the search is then one LTS
	// from the root).
	ConstantRerooter Rerooter = iota
	// HeuristicRerooter gives w(n) = exp(−α·h(n)/h0), h0 = max(h(root), 1),
	// h the evaluator's heuristic clipped at 0 and α ≥ 0 the algorithm's
	// parameter (√LTS-H of Tuero et al., 2026).
	HeuristicRerooter
	// ClusterRerooter gives weights from a clustering of the search graph
	// (√LTS-L of Tuero et al., 2026): its vertices the states of the
	// generated nodes, its edges joining a node to each of its children,
	// those dropped as repeated states included, undirected and simple.
	// After the b-th batch evaluation (the root's the 0th) for b = 1, 2,
	// 3, 4, 5, 6, 8, 10, … (each ⌈1.2 times⌉ the one before), the graph is
	// clustered by modularity at resolution 0.1, incrementally: pieces of
	// the search tree, and groups of pieces by Louvain's local moving, grow
	// from one clustering to the next; Louvain then clusters the groups, a
	// level each pass. The level taken is the one whose clusters are the
	// size of those of the middle level ⌊H/2⌋ of Louvain on the whole graph
	// (H levels, each about 2.7 times coarser); k_C is the number of nodes
	// in cluster C. A node whose state was clustered gets, when expanded,
	// w = 1/k_C after k_C grows by one; a node generated since, w =
	// w(parent)/(w(parent)+1). A clustering takes time in proportion to the
	// nodes added since the one before, the pieces (about a tenth of the
	// nodes) and the edges to repeated states, and allocates only to grow
	// arrays that the Solver keeps from one search to the next.
	ClusterRerooter
	// ClusterHeuristicRerooter gives the sum of the weights of
	// ClusterRerooter and HeuristicRerooter (√LTS-LH).
	ClusterHeuristicRerooter
	// DomainRerooter gives the weights of the problem, which must be
	// Rerooting (Solver.Check says so): the domain's own idea of a
	// subgoal, such as Sokoban's box pushed onto a goal (the hand-made
	// baseline of Tuero et al., 2026).
	DomainRerooter
	numRerooters
)

var rerooterNames = [numRerooters]string{"c", "h", "l", "lh", "d"}

// Rerooting is the capability of a problem whose domain gives √LTS's
// rerooting weights (DomainRerooter). RerootWeight returns the weight of
// a node of state s whose parent's state is parent, when the node is
// expanded: a finite number ≥ 0, high where a subproblem ends (a weight
// out of range makes the node no rerooting point). It must not allocate
// nor keep s or parent, and is called from the searching goroutine only.
type Rerooting[S comparable] interface {
	RerootWeight(parent, s S) float64
}

// String returns the name of r in √LTS's text form: "c", "h", "l", "lh"
// or "d".
func (r Rerooter) String() string {
	if r < numRerooters {
		return rerooterNames[r]
	}
	return "Rerooter(" + strconv.Itoa(int(r)) + ")"
}

// hasParam reports whether r takes a parameter in √LTS's text form: all
// but ClusterRerooter and DomainRerooter.
func (r Rerooter) hasParam() bool { return r != ClusterRerooter && r != DomainRerooter }

// DefaultAlpha is the temperature α of √LTS's heuristic rerooter when the
// text names none (that of the reference implementation's flags).
const DefaultAlpha = 1.0

// SqrtLTS is √LTS, rerooted Levin tree search (Orseau, Hutter & Lelis,
// 2024), with the weights of rerooter r; param is the constant weight c
// of ConstantRerooter (finite, ≥ 0), the temperature α of
// HeuristicRerooter and ClusterHeuristicRerooter (finite, ≥ 0), and 0 for
// ClusterRerooter and DomainRerooter.
//
// Every expanded node n_k carries the weight w_k its rerooter gave it, the
// root 1, and a node n is expanded in the order of the least, over its
// ancestors n_k with w_k > 0, of log S(n; n_k) − log w_k, S(n; n_k) the sum
// over the nodes n' from n_k to n of 1/pi(n'|n_k): one LTS rooted at each
// expanded node, given the share w_k of the effort. With levin, the term
// is the Levin cost log(d−d_k) − log pi(n|n_k) − log w_k, and
// ConstantRerooter with c = 0 is LevinTS node for node. With q good
// rerooting points, where LTS needs T expansions √LTS needs O(q·T^(1/q))
// (BatchSize 1). The rest is as Solver.Solve says of the best-first
// algorithms; √LTS reads the heuristic only through its rerooter.
//
// A node's cost takes O(1) from its 4 best candidate ancestors, or O(1) per
// ancestor of non-zero weight when their bound fails. Options.MaxMemory
// counts 104 bytes a node more than for the other algorithms, 128 with the
// clustering rerooters, more than a node holds (not the graph's edges to
// repeated states, 24 bytes each, nor its pieces of the tree, about 80
// bytes each). docs/ALGORITHMS.md gives the derivation. It panics if r is
// no Rerooter; NewSolver checks param.
func SqrtLTS(r Rerooter, param float64, levin bool) Algorithm {
	if r >= numRerooters {
		panic(fmt.Sprintf("search: SqrtLTS(%d, ...)", r))
	}
	return Algorithm{kind: sqrtLTS, rr: r, param: param, levin: levin}
}

// Rerooter returns √LTS's rerooter, and ConstantRerooter for the others.
func (a Algorithm) Rerooter() Rerooter { return a.rr }

// Alpha returns the temperature α of √LTS's heuristic rerooter, and 0 for
// the others.
func (a Algorithm) Alpha() float64 {
	if a.kind == sqrtLTS && (a.rr == HeuristicRerooter || a.rr == ClusterHeuristicRerooter) {
		return a.param
	}
	return 0
}

// LevinCost reports whether a is √LTS with the Levin cost rather than
// the slenderness cost.
func (a Algorithm) LevinCost() bool { return a.levin }

// parseSqrtLTS parses √LTS's text form (see Parse); rest is what follows
// the name's colon, if has.
func parseSqrtLTS(text, rest string, has bool) (Algorithm, error) {
	a := SqrtLTS(ConstantRerooter, 0, false)
	if !has {
		return a, nil
	}
	bad := func(why string) (Algorithm, error) {
		return Algorithm{}, fmt.Errorf("search: %q: %s; want sqrtlts[:c|h|l|lh|d[:number]][:levin]", text, why)
	}
	fields := strings.Split(rest, ":")
	if f := fields[len(fields)-1]; strings.EqualFold(f, "levin") {
		a.levin = true
		fields = fields[:len(fields)-1]
	}
	if len(fields) == 0 {
		return a, nil
	}
	switch strings.ToLower(fields[0]) {
	case "c":
	case "h":
		a.rr, a.param = HeuristicRerooter, DefaultAlpha
	case "l":
		a.rr = ClusterRerooter
	case "lh":
		a.rr, a.param = ClusterHeuristicRerooter, DefaultAlpha
	case "d":
		a.rr = DomainRerooter
	default:
		return bad(fmt.Sprintf("unknown rerooter %q", fields[0]))
	}
	switch {
	case len(fields) > 2:
		return bad("too many fields")
	case len(fields) == 2 && !a.rr.hasParam():
		return bad("rerooter " + a.rr.String() + " takes no parameter")
	case len(fields) == 2:
		p, err := strconv.ParseFloat(fields[1], 64)
		if err != nil {
			return bad(fmt.Sprintf("bad parameter %q", fields[1]))
		}
		a.param = p
	}
	if err := a.check(); err != nil {
		return Algorithm{}, err
	}
	return a, nil
}

// checkSqrtLTS returns an error if a's rerooter or parameter is out of
// range.
func (a Algorithm) checkSqrtLTS() error {
	finite := a.param >= 0 && !math.IsInf(a.param, 1)
	switch {
	case a.rr >= numRerooters:
		return fmt.Errorf("search: sqrtlts: bad rerooter %d", a.rr)
	case a.rr == ConstantRerooter && !finite:
		return fmt.Errorf("search: sqrtlts: constant weight %g; want a finite number >= 0", a.param)
	case !a.rr.hasParam() && a.param != 0:
		return fmt.Errorf("search: sqrtlts: rerooter %s takes no parameter (got %g)", a.rr, a.param)
	case !finite:
		return fmt.Errorf("search: sqrtlts: temperature %g; want a finite number >= 0", a.param)
	}
	return nil
}

// sqrtLTSString returns the text form of √LTS: "sqrtlts" for the
// default, and otherwise the rerooter with its parameter, if it has one,
// and ":levin" for the Levin cost.
func (a Algorithm) sqrtLTSString() string {
	s := a.Name()
	switch {
	case a.rr == ConstantRerooter && a.param == 0:
	case !a.rr.hasParam():
		s += ":" + a.rr.String()
	default:
		s += ":" + a.rr.String() + ":" + strconv.FormatFloat(a.param, 'g', -1, 64)
	}
	if a.levin {
		s += ":levin"
	}
	return s
}

// sqrtCands is the number K of candidate ancestors a node of √LTS keeps
// (see sqrtNode).
const sqrtCands = 4

// sqrtNodeBytes is the memory of a node that Options.MaxMemory counts for
// √LTS besides that of the other algorithms: more than a sqrtNode (64
// bytes) and its heuristic value (8), the count of when a sqrtNode held
// its candidates' B_k (104 bytes), so that searches within a bound on
// memory stay as they were.
const sqrtNodeBytes = 104

// A sqrtNode is what √LTS keeps of a node besides its arena entry: 64
// bytes, a cache line, and the heuristic value apart (sqrtState.h).
type sqrtNode struct {
	// logT is the log of the sum of 1/pi(n') over the nodes n' of the
	// path from the root to the node, both included, set when the node
	// is evaluated (sqrtCosts); logTParent is the parent's (−Inf for the
	// root).
	logT, logTParent float64
	// logW is the log of the node's weight once expanded (−Inf if 0).
	logW  float64
	logPi float64 // the arena entry's, here for the walk up the path
	// cand holds the candidate ancestors: the indices of the sqrtCands
	// proper ancestors n_k of non-zero weight with the least B_k =
	// log pi(n_k) − log w_k, in increasing order of B_k (−1 past the
	// last); their B_k are computed from their sqrtNodes (candB).
	// restB is the least B_k of the others (+Inf if none). Every B_k is
	// that of a candidate or went into restB: their min is the min over
	// all of them, NaN if one is NaN.
	restB float64
	cand  [sqrtCands]int32
	// reroot is the nearest proper ancestor of non-zero weight, −1 for
	// the root.
	reroot int32
	depth  uint32
}

// A sqrtFamily is what the children of a node share of their sqrtNodes:
// their candidates, with their B_k (+Inf past the last), restB and
// reroot.
type sqrtFamily struct {
	candB  [sqrtCands]float64
	restB  float64
	cand   [sqrtCands]int32
	reroot int32
}

// addCand adds ancestor k, of non-zero weight and with b = B_k, to f's
// candidates, or folds it into restB.
func (f *sqrtFamily) addCand(k int32, b float64) {
	j := sqrtCands - 1
	if !(b < f.candB[j]) {
		f.restB = min(f.restB, b)
		return
	}
	f.restB = min(f.restB, f.candB[j])
	for ; j > 0 && b < f.candB[j-1]; j-- {
		f.candB[j], f.cand[j] = f.candB[j-1], f.cand[j-1]
	}
	f.candB[j], f.cand[j] = b, k
}

// candB returns B_k of x's j-th candidate, +Inf if it has none.
func (e *bestFirst[S]) candB(x *sqrtNode, j int) float64 {
	k := x.cand[j]
	if k < 0 {
		return math.Inf(1)
	}
	xk := e.ext(k)
	return xk.logPi - xk.logW
}

// minB returns the least B_k over x's proper ancestors of non-zero
// weight (+Inf for the root).
func (e *bestFirst[S]) minB(x *sqrtNode) float64 {
	m := x.restB
	for j := range x.cand {
		m = min(m, e.candB(x, j))
	}
	return m
}

// sqrtStrategy is √LTS's: on top of the table of states, it keeps its
// part of each node (sqrtNode) and its rerooter's view of the search, and
// its priority is the node's cost (sqrtCost).
type sqrtStrategy[S comparable] struct{ baseStrategy[S] }

func (r *sqrtStrategy[S]) start(e *bestFirst[S]) int {
	e.setRerooter(e.alg)
	e.sq.batches, e.sq.rooted = 0, false
	b := r.baseStrategy.start(e) + sqrtNodeBytes
	if e.alg.rr == ClusterRerooter || e.alg.rr == ClusterHeuristicRerooter {
		b += clusterNodeBytes
	}
	return b
}

// keep tells the rerooter of each child, dropped or not.
func (r *sqrtStrategy[S]) keep(e *bestFirst[S], j int32, c *node[S]) bool {
	old, added := e.add(j, c, r.reopen)
	if added {
		e.sqrtGenerated(j)
	}
	if c.parent >= 0 {
		e.sq.rr.visited(e, c.parent, old, added)
	}
	return added
}

func (*sqrtStrategy[S]) expanded(e *bestFirst[S], i int32) error {
	e.sqrtExpanded(i)
	return nil
}

// evaluate evaluates the pending nodes and computes their costs, all
// at once: the logs and exponentials of one node wait on each other, not
// on those of the next.
func (*sqrtStrategy[S]) evaluate(e *bestFirst[S]) ([]float64, error) {
	lo, hi := int32(e.pending), int32(e.n)
	h, err := e.evaluate(lo, hi)
	if err != nil {
		return nil, err
	}
	e.sqrtCosts(lo, hi)
	return h, nil
}

func (*sqrtStrategy[S]) priority(e *bestFirst[S], i int32, _, _, h float64) float64 {
	if e.sq.needH {
		e.sq.setH(i, max(h, 0))
	}
	return e.sq.costs[i-int32(e.pending)]
}

// flushed starts the rerooter after the root's evaluation, and tells it
// of each later one.
func (*sqrtStrategy[S]) flushed(e *bestFirst[S]) {
	q := &e.sq
	if !q.rooted {
		q.rr.init(e)
		q.rooted = true
		return
	}
	q.batches++
	q.rr.batchEvaluated(e)
}

// sqrtState is the part of the best-first engine that only √LTS uses.
type sqrtState[S comparable] struct {
	ext [][]sqrtNode // in chunks parallel to the arena
	// h holds the heuristic value of each node, clipped at 0, in chunks
	// parallel to the arena, if needH: the rerooter reads it.
	h     [][]float64
	needH bool
	// fam is the family of the children of the node under expansion.
	fam sqrtFamily
	rr  rerooter[S]
	// The rerooters, one of which rr points to.
	cr constantRerooter[S]
	hr heuristicRerooter[S]
	lr clusterRerooter[S]
	sr sumRerooter[S]
	dr domainRerooter[S]
	// costs holds the costs of the nodes of the batch under evaluation.
	costs   []float64
	batches int // batch evaluations so far, the root's the 0th
	// rooted is false until the rerooter's init.
	rooted bool
}

// ext returns √LTS's part of node i, generated.
func (e *bestFirst[S]) ext(i int32) *sqrtNode {
	return &e.sq.ext[i>>chunkBits][i&(chunkSize-1)]
}

// setH sets the heuristic value of node i, generated, growing the chunks
// as needed.
func (q *sqrtState[S]) setH(i int32, h float64) {
	c := int(i >> chunkBits)
	for c >= len(q.h) {
		q.h = append(q.h, make([]float64, chunkSize))
	}
	q.h[c][i&(chunkSize-1)] = h
}

// heuristic returns the heuristic value of node i, evaluated, clipped at
// 0 (needH).
func (e *bestFirst[S]) heuristic(i int32) float64 {
	return e.sq.h[i>>chunkBits][i&(chunkSize-1)]
}

// sqrtGenerated sets √LTS's part of node i, just generated, whose parent
// is expanded, growing the chunks as needed.
func (e *bestFirst[S]) sqrtGenerated(i int32) {
	q := &e.sq
	c := int(i >> chunkBits)
	for c >= len(q.ext) {
		q.ext = append(q.ext, make([]sqrtNode, chunkSize))
	}
	x := &q.ext[c][i&(chunkSize-1)]
	n := e.node(i)
	if n.parent < 0 {
		*x = sqrtNode{logT: -n.logPi, logTParent: math.Inf(-1), logPi: n.logPi, restB: math.Inf(1), reroot: -1}
		for j := range x.cand {
			x.cand[j] = -1
		}
		return
	}
	f := &q.fam
	x.logTParent = e.ext(n.parent).logT // and logT with the batch's costs
	x.logW = math.Inf(-1)
	x.logPi, x.depth = n.logPi, n.depth()
	x.restB, x.cand, x.reroot = f.restB, f.cand, f.reroot
}

// sqrtFamily sets e.sq.fam to the family of the children of node i, of
// part x, expanded: x's candidates, and i itself if of non-zero weight.
func (e *bestFirst[S]) sqrtFamily(i int32, x *sqrtNode) {
	f := &e.sq.fam
	f.cand, f.restB, f.reroot = x.cand, x.restB, x.reroot
	for j := range f.candB {
		f.candB[j] = e.candB(x, j)
	}
	if !math.IsInf(x.logW, -1) {
		f.reroot = i
		f.addCand(i, x.logPi-x.logW)
	}
}

// sqrtCosts sets logT of nodes lo to hi−1, evaluated, and their costs in
// e.sq.costs: each step for every node before the next, the term of each
// node's first candidate, which the cost needs but for a few nodes,
// first.
func (e *bestFirst[S]) sqrtCosts(lo, hi int32) {
	q := &e.sq
	q.costs = q.costs[:0]
	for i := lo; i < hi; i++ {
		if x := e.ext(i); x.depth > 0 {
			x.logT = logAddExp(x.logTParent, -x.logPi)
		}
	}
	for i := lo; i < hi; i++ {
		q.costs = append(q.costs, e.sqrtFirstTerm(e.ext(i)))
	}
	for i := lo; i < hi; i++ {
		c := &q.costs[i-lo]
		*c = e.sqrtCostFrom(e.ext(i), *c)
	}
}

// sqrtFirstTerm returns the term of the first candidate of the node of
// part x, NaN if it has none.
func (e *bestFirst[S]) sqrtFirstTerm(x *sqrtNode) float64 {
	k := x.cand[0]
	if k < 0 || x.depth == 0 {
		return math.NaN()
	}
	return e.sqrtTerm(x, e.ext(k), k)
}

// logAddExp returns log(exp(a)+exp(b)) for a, b > −Inf.
func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// sqrtCost returns √LTS's cost of node i (see SqrtLTS), evaluated.
func (e *bestFirst[S]) sqrtCost(i int32) float64 {
	x := e.ext(i)
	return e.sqrtCostFrom(x, e.sqrtFirstTerm(x))
}

// sqrtCostFrom returns √LTS's cost of the node of part x, evaluated,
// whose first candidate's term is t0 (sqrtFirstTerm).
//
// The term of ancestor n_k is log(λ_k/pi(n|n_k)) − log w_k, λ_k the
// slenderness, which lies in [1, d−d_k+1] (for the root too: S(n; root)
// counts the root's 1/pi = 1), or d − d_k ≥ 1 for the Levin cost: so the
// term is at least b_k = B_k − log pi(n), B_k = log pi(n_k) − log w_k,
// and at most b_k + log(d+1). The cost is the min of exact terms and of
// a bound, the least B_k − log pi(n) plus log(d+1) (+Inf with the root as
// the only ancestor of non-zero weight): the terms of the candidates
// (sqrtCandCost), if that settles it, and otherwise those of the walk up
// the path (sqrtWalk). Both give the same float64: the min of the same
// values.
func (e *bestFirst[S]) sqrtCostFrom(x *sqrtNode, t0 float64) float64 {
	d := x.depth
	if d == 0 {
		return 0
	}
	bound := math.Inf(1)
	if x.reroot > 0 { // more than one ancestor of non-zero weight
		c, ok := e.sqrtCandCost(x, t0)
		// If the candidates settle it, log pi(n) is finite and candB[0]
		// the least B_k, and the bound as computed below is at least
		// candB[0] − log pi(n) + 0.69·⌊log2(d+1)⌋: log(d+1) ≥
		// ln 2·⌊log2(d+1)⌋, and ln 2 − 0.69 > 0.003 is far above the
		// rounding of the log. A least term below that is the cost, and
		// the log is not needed.
		if ok && e.candB(x, 0)-x.logPi+0.69*float64(bits.Len32(d+1)-1) > c {
			return c
		}
		bound = e.minB(x) - x.logPi + math.Log(float64(d)+1)
		if ok {
			return min(bound, c)
		}
	} else if c, ok := e.sqrtCandCost(x, t0); ok {
		return c
	}
	return e.sqrtWalk(x, bound)
}

// sqrtSlack and sqrtMaxSlack bound the rounding error of the terms (see
// sqrtCandCost).
const (
	sqrtSlack    = 0x1p-44
	sqrtMaxSlack = 0x1p-8
)

// sqrtCandCost returns the least term of x's candidate ancestors, the
// first's t0 (sqrtFirstTerm), and whether that is the least term of all
// of x's ancestors of non-zero weight: whether every other ancestor n_j,
// whose term is at least b_j ≥ restB − log pi(n), has a term above it.
//
// If so, the min of the result and of any bound is the cost sqrtWalk
// returns from that bound, bit for bit, if every term t_k computed is at
// least its b_k (checked: each term is computed as sqrtWalk computes it,
// and if t_k < b_k, which rounding could cause for the slenderness of an
// ancestor other than the root, or t_k is NaN, it reports false) and the
// term of every ancestor it skips is above the result. For the latter,
// it takes the rounding into account: the computed term, from sums and
// logs of the path's values, is at least its lower bound minus s =
// (d+2)²·2^−44·(|lower bound| + |log pi(n)| + d + 6), some fifty times a
// first-order bound of its rounding error, which grows as d² through
// log(−expm1(·)) of the difference of two sums of the path. It reports
// false, for the walk, when log pi(n) is not finite or when
// (d+2)²·2^−44·(|log pi(n)| + d + 6) exceeds 2^−8, where the first-order
// bound might not hold.
func (e *bestFirst[S]) sqrtCandCost(x *sqrtNode, t0 float64) (float64, bool) {
	p := x.logPi
	d := float64(x.depth) + 2
	kappa, y := d*d*sqrtSlack, math.Abs(p)+d+4
	if !(kappa*y <= sqrtMaxSlack) { // NaN too
		return 0, false
	}
	cost := math.Inf(1)
	for j, k := range x.cand {
		if k < 0 {
			break
		}
		// The terms of this and the later candidates are at least lb.
		xk := e.ext(k)
		if lb := (xk.logPi - xk.logW) - p; lb-kappa*(math.Abs(lb)+y) >= cost {
			break
		}
		b := xk.logPi - x.logPi - xk.logW
		t := t0
		if j > 0 {
			t = e.sqrtTerm(x, xk, k)
		}
		if !(t >= b) {
			return 0, false
		}
		cost = min(cost, t)
	}
	if r := x.restB; r < math.Inf(1) {
		if lb := r - p; !(lb-kappa*(math.Abs(lb)+y) >= cost) {
			return 0, false
		}
	}
	return cost, true
}

// sqrtWalk returns the min of cost and of the terms of x's ancestors
// of non-zero weight whose b_k is below the least so far, walking up the
// path; +Inf if that is NaN.
func (e *bestFirst[S]) sqrtWalk(x *sqrtNode, cost float64) float64 {
	for k := x.reroot; k >= 0; {
		xk := e.ext(k)
		if b := xk.logPi - x.logPi - xk.logW; b < cost {
			cost = min(cost, e.sqrtTerm(x, xk, k))
		}
		k = xk.reroot
	}
	if cost != cost {
		return math.Inf(1)
	}
	return cost
}

// sqrtTerm returns the term of ancestor k, of part xk, in the cost of the
// node of part x.
func (e *bestFirst[S]) sqrtTerm(x, xk *sqrtNode, k int32) float64 {
	switch {
	case e.alg.levin:
		return math.Log(float64(x.depth-xk.depth)) - (x.logPi - xk.logPi) - xk.logW
	case k == 0:
		// log S(n; root) = log T(n), T the sum of 1/pi along the path.
		return x.logT - xk.logW
	default:
		// S(n; n_k) = pi(n_k)·(T(n) − T(parent of n_k)); the difference
		// loses no precision: T(n) is at most d+1 times its last term
		// 1/pi(n), which the difference includes.
		return xk.logPi + x.logT + math.Log(-math.Expm1(xk.logTParent-x.logT)) - xk.logW
	}
}

// sqrtExpanded gives node i, taken from the open list, its weight, and
// sets the family of its children.
func (e *bestFirst[S]) sqrtExpanded(i int32) {
	x := e.ext(i)
	lw := e.sq.rr.expanded(e, i)
	switch {
	case i == 0:
		x.logW = 0 // whatever the rerooter says
	case !(lw < math.Inf(1)):
		x.logW = math.Inf(-1) // never as a rerooting point (NaN too)
	default:
		x.logW = lw
	}
	e.sqrtFamily(i, x)
}

// A rerooter gives √LTS's weights. Its methods are called in this order:
// init after the root's batch evaluation; per expansion, expanded, which
// returns the log of the node's weight (the root's is forced to 1; NaN
// and +Inf, of weights out of range, are taken as 0); per legal child,
// visited, with the index of the child's node, or of the node of its
// state if the child was dropped as a repeated state (generated false);
// batchEvaluated after each later batch evaluation. Node indices number
// the nodes, and so the states, in the order of generation, the root 0.
type rerooter[S comparable] interface {
	init(e *bestFirst[S])
	expanded(e *bestFirst[S], i int32) float64
	visited(e *bestFirst[S], parent, child int32, generated bool)
	batchEvaluated(e *bestFirst[S])
}

// setRerooter sets e.sq.rr to the rerooter of alg, √LTS, one of those
// e.sq holds, so that a warm engine allocates none.
func (e *bestFirst[S]) setRerooter(alg Algorithm) {
	q := &e.sq
	q.hr.alpha = alg.param
	q.needH = alg.rr == HeuristicRerooter || alg.rr == ClusterHeuristicRerooter
	switch alg.rr {
	case HeuristicRerooter:
		q.rr = &q.hr
	case ClusterRerooter:
		q.rr = &q.lr
	case ClusterHeuristicRerooter:
		q.sr = sumRerooter[S]{&q.lr, &q.hr}
		q.rr = &q.sr
	case DomainRerooter:
		q.rr = &q.dr
	default:
		q.cr = constantRerooter[S]{math.Log(alg.param)}
		q.rr = &q.cr
	}
}

// A constantRerooter gives every node the weight exp(logW).
type constantRerooter[S comparable] struct{ logW float64 }

func (*constantRerooter[S]) init(*bestFirst[S])                        {}
func (r *constantRerooter[S]) expanded(*bestFirst[S], int32) float64   { return r.logW }
func (*constantRerooter[S]) visited(*bestFirst[S], int32, int32, bool) {}
func (*constantRerooter[S]) batchEvaluated(*bestFirst[S])              {}

// A heuristicRerooter gives exp(−α·h/h0), h0 = max(h(root), 1).
type heuristicRerooter[S comparable] struct {
	alpha float64
	h0    float64
}

func (r *heuristicRerooter[S]) init(e *bestFirst[S]) { r.h0 = max(e.heuristic(0), 1) }
func (r *heuristicRerooter[S]) expanded(e *bestFirst[S], i int32) float64 {
	return -r.alpha * e.heuristic(i) / r.h0
}
func (*heuristicRerooter[S]) visited(*bestFirst[S], int32, int32, bool) {}
func (*heuristicRerooter[S]) batchEvaluated(*bestFirst[S])              {}

// clusterGamma and clusterGrowth are ClusterRerooter's resolution and the
// factor between the batch counts at which it clusters.
const (
	clusterGamma  = 0.1
	clusterGrowth = 1.2
)

// clusterNodeBytes is the memory of a node that a clusterRerooter adds:
// the graph's vertex and the m of its parent's weight 1/m (4 bytes,
// counted as 8 as in earlier versions, so that searches within a bound on
// memory do not change).
const clusterNodeBytes = louvain.VertexBytes + 8

// A clusterRerooter gives ClusterRerooter's weights, all of the form
// 1/m for a whole number m ≥ 1: 1/k_C, and w/(w+1) = 1/(m+1) for a
// parent's w = 1/m.
type clusterRerooter[S comparable] struct {
	g louvain.Graph // its vertices the nodes
	// pm holds the m of the weight 1/m of the parent of each node, written
	// when the node is generated, when its parent's, cur, is the last
	// given.
	pm        []int32
	cur       int32
	size      []int32   // k_C of each cluster
	logs      []float64 // log m at index m, for every m given so far
	clustered int32     // the nodes clustered: 0 to clustered−1
	trigger   int       // the batch count of the next clustering
}

func (r *clusterRerooter[S]) init(*bestFirst[S]) {
	r.g.Reset(clusterGamma)
	r.g.AddVertex(-1)
	r.pm, r.size, r.clustered = append(r.pm[:0], 0), r.size[:0], 0
	r.trigger = 1
}

func (r *clusterRerooter[S]) expanded(_ *bestFirst[S], i int32) float64 {
	m := r.next(i)
	for int(m) >= len(r.logs) {
		r.logs = append(r.logs, math.Log(float64(len(r.logs))))
	}
	return -r.logs[m]
}

// next returns the m of the weight 1/m of node i, expanded, and makes it
// the last given.
func (r *clusterRerooter[S]) next(i int32) int32 {
	switch {
	case i == 0:
		r.cur = 1
	case i < r.clustered:
		c := r.g.Community(i)
		r.size[c]++
		r.cur = r.size[c]
	default:
		r.cur = r.pm[i] + 1
	}
	return r.cur
}

func (r *clusterRerooter[S]) visited(_ *bestFirst[S], parent, child int32, generated bool) {
	if generated {
		r.g.AddVertex(parent) // child, the nodes being added in order
		r.pm = append(r.pm, r.cur)
	} else {
		r.g.AddEdge(parent, child)
	}
}

func (r *clusterRerooter[S]) batchEvaluated(e *bestFirst[S]) {
	if e.sq.batches < r.trigger {
		return
	}
	r.trigger = int(math.Ceil(clusterGrowth * float64(r.trigger)))
	r.g.Cluster()
	r.size = append(r.size[:0], r.g.Select(r.g.Middle())...)
	r.clustered = int32(r.g.Clustered())
}

// A sumRerooter gives the sum of the weights of a clusterRerooter and a
// heuristicRerooter.
type sumRerooter[S comparable] struct {
	l *clusterRerooter[S]
	h *heuristicRerooter[S]
}

func (r *sumRerooter[S]) init(e *bestFirst[S]) { r.l.init(e); r.h.init(e) }
func (r *sumRerooter[S]) expanded(e *bestFirst[S], i int32) float64 {
	return math.Log(1/float64(r.l.next(i)) + math.Exp(r.h.expanded(e, i)))
}
func (r *sumRerooter[S]) visited(e *bestFirst[S], parent, child int32, generated bool) {
	r.l.visited(e, parent, child, generated)
}
func (r *sumRerooter[S]) batchEvaluated(e *bestFirst[S]) { r.l.batchEvaluated(e) }

// A domainRerooter gives the weights of a Rerooting problem.
type domainRerooter[S comparable] struct{ r Rerooting[S] }

func (r *domainRerooter[S]) init(e *bestFirst[S]) { r.r = e.p.(Rerooting[S]) } // Solver.Check
func (r *domainRerooter[S]) expanded(e *bestFirst[S], i int32) float64 {
	n := e.node(i)
	if n.parent < 0 {
		return 1
	}
	return math.Log(r.r.RerootWeight(e.node(n.parent).state, n.state))
}
func (*domainRerooter[S]) visited(*bestFirst[S], int32, int32, bool) {}
func (*domainRerooter[S]) batchEvaluated(*bestFirst[S])              {}
