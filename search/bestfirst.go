package search

import (
	"fmt"
	"hash/maphash"
	"math"
	"unsafe"
)

// checkEvery is the number of nodes taken from the open list between two
// looks at the context and the clock; a power of two.
const checkEvery = 1024

// maxDepth is the largest depth of a node: the depth shares 32 bits with
// the action and the stale mark.
const maxDepth = 1<<23 - 1

// staleBit marks a node whose state a node of smaller g has reached since
// (A* with the goal tested at expansion): the engine no longer expands it.
const staleBit = 1 << 31

// A bestFirst is the engine of the best-first algorithms. It keeps its
// memory from one search to the next; the zero value is ready to use.
type bestFirst[S comparable] struct {
	// The arena of the search tree: n nodes in chunks of chunkSize, which
	// never move. The nodes from pending on are generated but not yet
	// evaluated: they wait for a batch.
	chunks     [][]node[S]
	n, pending int
	// policies holds the A log-probabilities of each evaluated node, in
	// chunks of chunkSize·A: 4·A bytes per node.
	policies [][]float32
	open     nodeHeap
	seen     stateTable // the states of the arena, if the strategy keeps them
	// edges are the children dropped as duplicates, for Options.Shorten.
	edges []edge
	// Scratch space: the evaluator's arguments, and the successors of the
	// node being expanded.
	states, parents []S
	actions         []int
	logPi, h        []float64
	succ            []S
	legal           []bool

	// The search under way.
	p    Problem[S]
	ev   Evaluator[S]
	edge EdgeEvaluator[S] // ev, if it is one
	alg  Algorithm
	opts *Options
	A    int
	// strategy is what sets the algorithm apart, one of strategies.
	strategy   strategy[S]
	strategies strategies[S]
	// atExp: the goal is tested at expansion.
	atExp bool
	// maxNodes is the number of nodes the memory bound allows.
	maxNodes int
	// evals counts the evaluations, for Result.Evaluations.
	evals int64
	sq    sqrtState[S] // √LTS's part of the search
	// layer and next are beam search's layer under expansion and the
	// children it has evaluated so far; cands are policy beam search's
	// candidates for the next layer.
	layer, next []beamEntry
	cands       []policyCand
}

// chunkBits is the log2 of the number of nodes in a chunk of the arena.
const chunkBits = 12

const chunkSize = 1 << chunkBits

// node returns node i of the arena.
func (e *bestFirst[S]) node(i int32) *node[S] {
	return &e.chunks[i>>chunkBits][i&(chunkSize-1)]
}

// policy returns the policy of node i; A is the number of actions.
func (e *bestFirst[S]) policy(i int32, A int) []float32 {
	j := int(i&(chunkSize-1)) * A
	return e.policies[i>>chunkBits][j : j+A : j+A]
}

// append adds n to the arena and returns its index and its entry.
func (e *bestFirst[S]) append(n node[S]) (int32, *node[S]) {
	i := e.n
	c := i >> chunkBits
	if c == len(e.chunks) {
		e.chunks = append(e.chunks, make([]node[S], chunkSize))
	}
	p := &e.chunks[c][i&(chunkSize-1)]
	*p = n
	e.n++
	return int32(i), p
}

// A node is an entry of the arena. Its path cost is g = depth·L, L the node
// loss, and its action is that of the edge from its parent.
type node[S comparable] struct {
	state  S
	logPi  float64 // log pi(n), as the search uses it
	parent int32   // -1 for the root
	da     uint32  // stale<<31 | depth<<8 | action
}

func (n *node[S]) depth() uint32 { return (n.da &^ staleBit) >> 8 }
func (n *node[S]) action() int   { return int(n.da & 255) }
func (n *node[S]) stale() bool   { return n.da&staleBit != 0 }

// search runs alg on p with ev, within opts and lim, as Solver.Solve
// describes, and fills res.
func (e *bestFirst[S]) search(p Problem[S], ev Evaluator[S], alg Algorithm, opts *Options, lim *limits, res *Result[S]) error {
	atExp := opts.GoalTest.atExpansion(alg)
	j, c := e.begin(p, ev, alg, opts, lim, atExp, e.strategies.of(alg, opts.BatchSize, atExp))
	defer e.end(res)
	if !e.atExp && p.IsGoal(c.state) {
		e.solution(j, res)
		return nil
	}
	if err := e.flush(); err != nil {
		return err
	}
	for pops := int64(1); ; pops++ {
		// The open list may run empty with nodes waiting, or hold only
		// stale nodes after a flush.
		for e.open.len() == 0 {
			if e.pending == e.n {
				res.Exhausted = true
				return nil
			}
			if err := e.flush(); err != nil {
				return err
			}
		}
		if stop, err := e.stop(lim, pops, res); stop {
			return err
		}
		top := e.open.pop()
		if !e.strategy.take(e, top.index) {
			continue
		}
		if e.atExp && p.IsGoal(e.node(top.index).state) {
			if e.pending < e.n {
				// A node waiting for its batch may come before the
				// goal: evaluate the waiting nodes, and take the best
				// node again.
				e.open.push(top)
				if err := e.flush(); err != nil {
					return err
				}
				continue
			}
			e.solution(top.index, res)
			return nil
		}
		res.Expansions++
		if err := e.strategy.expanded(e, top.index); err != nil {
			return err
		}
		goal, err := e.expand(top.index, res)
		if err != nil {
			return err
		}
		if goal >= 0 {
			e.solution(goal, res)
			return nil
		}
		if e.n-e.pending >= opts.BatchSize || e.open.len() == 0 {
			if err := e.flush(); err != nil {
				return err
			}
		}
	}
}

// stop reports whether the search ends before it takes its pops-th node:
// when the budget is spent, or at the timeout or the memory bound, which
// it records in res; the clock and the context are read every checkEvery
// nodes, and a done context ends the search with its error.
func (e *bestFirst[S]) stop(lim *limits, pops int64, res *Result[S]) (bool, error) {
	if lim.spent(res.Expansions) {
		return true, nil
	}
	if pops%checkEvery == 0 {
		timedOut, err := lim.check(res.Expansions)
		if err != nil || timedOut {
			res.TimedOut = timedOut
			return true, err
		}
	}
	if e.n+e.A > e.maxNodes {
		res.OutOfMemory = true
		return true, nil
	}
	return false, nil
}

// begin readies the engine for a search of alg on p with ev, within opts
// and lim, the goal tested at expansion if atExp, with the strategy st,
// and adds the root to the arena: its index and its entry. end ends it.
func (e *bestFirst[S]) begin(p Problem[S], ev Evaluator[S], alg Algorithm, opts *Options, lim *limits, atExp bool, st strategy[S]) (int32, *node[S]) {
	e.p, e.ev, e.alg, e.opts = p, ev, alg, opts
	e.edge, _ = ev.(EdgeEvaluator[S])
	e.A = p.NumActions()
	e.atExp, e.strategy = atExp, st
	e.reset(opts.BatchSize)
	e.maxNodes = lim.maxNodes(e.nodeBytes() + e.strategy.start(e))
	j, c := e.append(node[S]{state: p.Root(), parent: -1})
	e.strategy.keep(e, j, c)
	return j, c
}

// end fills res with the evaluations of the search, and drops the
// engine's references to what the search was given.
func (e *bestFirst[S]) end(res *Result[S]) {
	res.Evaluations = e.evals
	e.p, e.ev, e.edge, e.opts, e.strategy = nil, nil, nil, nil, nil
}

// nodeBytes returns the memory of a node of the search under way but for
// what its strategy adds: see Solver.Solve.
func (e *bestFirst[S]) nodeBytes() int {
	var n node[S]
	return int(unsafe.Sizeof(n)) + 4*e.A + int(unsafe.Sizeof(heapEntry{})) + 8*4/3
}

// expand generates the children of node i, with their probabilities from
// its policy, and keeps in the arena those that the strategy keeps. It
// returns the index of a child that is a goal when goals are tested at
// generation, or -1.
func (e *bestFirst[S]) expand(i int32, res *Result[S]) (goal int32, err error) {
	n := *e.node(i)
	if n.depth() == maxDepth {
		return -1, fmt.Errorf("search: a path is longer than %d nodes", maxDepth)
	}
	A, p := e.A, e.p
	pol := e.policy(i, A)
	for a := range A {
		e.succ[a], e.legal[a] = p.Apply(n.state, a)
	}
	if len(e.seen.slots) >= warmSlots {
		for a, s := range e.succ {
			if e.legal[a] {
				warm(&e.seen, s)
			}
		}
	}
	logZ := 0.0
	if e.opts.Renormalize {
		logZ = legalLogSumExp(pol, e.legal)
	}
	d := (n.depth() + 1) << 8
	for a := range A {
		if !e.legal[a] {
			continue
		}
		s := e.succ[a]
		res.Generated++
		j, c := e.append(node[S]{state: s, logPi: n.logPi + float64(pol[a]) - logZ, parent: i, da: d | uint32(a)})
		if !e.strategy.keep(e, j, c) {
			e.n--
			continue
		}
		if !e.atExp && p.IsGoal(s) {
			return j, nil
		}
	}
	if e.n >= math.MaxInt32-A {
		return -1, fmt.Errorf("search: more than %d nodes", math.MaxInt32-A)
	}
	return -1, nil
}

// reset prepares the engine's memory for a search with batches of batch
// nodes.
func (e *bestFirst[S]) reset(batch int) {
	A := e.A
	e.n, e.pending, e.evals = 0, 0, 0
	if len(e.policies) > 0 && len(e.policies[0]) != chunkSize*A {
		e.policies = nil
	}
	e.open.reset()
	e.edges = e.edges[:0]
	if cap(e.legal) < A {
		e.legal = make([]bool, A)
		e.succ = make([]S, A)
	}
	e.legal, e.succ = e.legal[:A], e.succ[:A]
	// A batch holds at most batch-1+A nodes: the pending nodes before an
	// expansion and the children of that expansion.
	if n := batch + A; len(e.h) < n || len(e.logPi) < n*A {
		e.states, e.parents = make([]S, 0, n), make([]S, 0, n)
		e.actions = make([]int, 0, n)
		e.logPi = make([]float64, n*A)
		e.h = make([]float64, n)
	}
}

// flush has the strategy evaluate the pending nodes, and pushes them onto
// the open list with their priorities.
func (e *bestFirst[S]) flush() error {
	if e.pending == e.n {
		return nil
	}
	h, err := e.strategy.evaluate(e)
	if err != nil {
		return err
	}
	loss := e.opts.NodeLoss
	for i, hi := range h {
		idx := int32(e.pending + i)
		n := e.node(idx)
		if n.stale() {
			continue
		}
		d := n.depth()
		pr := e.strategy.priority(e, idx, float64(d)*loss, n.logPi, hi)
		e.open.push(heapEntry{priority: pr, depth: d, index: idx})
	}
	e.pending = e.n
	e.strategy.flushed(e)
	return nil
}

// evaluateNodes evaluates the nodes lo to hi−1 into logPi and h, with
// their edges if the evaluator is an EdgeEvaluator.
func (e *bestFirst[S]) evaluateNodes(lo, hi int32, logPi, h []float64) error {
	e.states = e.states[:0]
	for i := lo; i < hi; i++ {
		e.states = append(e.states, e.node(i).state)
	}
	var err error
	if e.edge == nil {
		err = e.ev.Evaluate(e.p, e.states, logPi, h)
	} else {
		e.parents, e.actions = e.parents[:0], e.actions[:0]
		for i := lo; i < hi; i++ {
			n := e.node(i)
			parent, a := n.state, -1
			if n.parent >= 0 {
				parent, a = e.node(n.parent).state, n.action()
			}
			e.parents, e.actions = append(e.parents, parent), append(e.actions, a)
		}
		err = e.edge.EvaluateEdges(e.p, e.parents, e.actions, e.states, logPi, h)
	}
	if err != nil {
		return fmt.Errorf("search: evaluate: %w", err)
	}
	return nil
}

// evaluate evaluates the nodes lo to hi−1, keeps their policies, and
// returns their heuristic values.
func (e *bestFirst[S]) evaluate(lo, hi int32) ([]float64, error) {
	A, k := e.A, int(hi-lo)
	logPi, h := e.logPi[:k*A], e.h[:k]
	if err := e.evaluateNodes(lo, hi, logPi, h); err != nil {
		return nil, err
	}
	e.opts.shapePolicy(logPi, A)
	e.evals += int64(k)
	for i := lo; i < hi; i++ {
		for int(i>>chunkBits) >= len(e.policies) {
			e.policies = append(e.policies, make([]float32, chunkSize*A))
		}
		dst := e.policy(i, A)
		for a := range dst {
			dst[a] = float32(logPi[a])
		}
		logPi = logPi[A:]
	}
	return h, nil
}

// solution fills res with the path to node leaf, a goal: the tree's, or
// with Options.Shorten a shortest path over the edges generated.
func (e *bestFirst[S]) solution(leaf int32, res *Result[S]) {
	res.Solved = true
	steps := int(e.node(leaf).depth())
	if e.opts.Shorten && steps > 1 {
		if path, actions := e.shortestPath(leaf); path != nil {
			e.pathSolution(path, actions, res)
			return
		}
	}
	res.Cost = float64(steps) * e.opts.NodeLoss
	t := &Trajectory[S]{
		States:     make([]S, steps),
		Actions:    make([]int, steps),
		LogPi:      make([]float64, steps),
		Expansions: res.Expansions,
		NodeLoss:   e.opts.NodeLoss,
	}
	for i, j := leaf, steps-1; j >= 0; i, j = e.node(i).parent, j-1 {
		n := e.node(i)
		t.States[j], t.Actions[j], t.LogPi[j] = e.step(n.parent, n.action())
	}
	res.Actions = t.Actions
	res.Trajectory = t
}

// step returns the state of node i, action a and log pi(a) in that state
// as the search used it, a step of a trajectory.
func (e *bestFirst[S]) step(i int32, a int) (S, int, float64) {
	A, par := e.A, e.node(i)
	pol := e.policy(i, A)
	lp := float64(pol[a])
	if e.opts.Renormalize {
		for b := range A {
			_, e.legal[b] = e.p.Apply(par.state, b)
		}
		lp -= legalLogSumExp(pol, e.legal)
	}
	return par.state, a, lp
}

// legalLogSumExp returns the log of the sum of the probabilities of the
// legal actions under the log-policy pol, or 0 if that sum is 0 (no legal
// action is then taken, or each has probability 0).
func legalLogSumExp(pol []float32, legal []bool) float64 {
	m := math.Inf(-1)
	for a, ok := range legal {
		if ok && float64(pol[a]) > m {
			m = float64(pol[a])
		}
	}
	if math.IsInf(m, 0) || math.IsNaN(m) {
		return 0
	}
	sum := 0.0
	for a, ok := range legal {
		if ok {
			sum += math.Exp(float64(pol[a]) - m)
		}
	}
	return m + math.Log(sum)
}

// A stateTable is the set of the states of the arena's nodes: an
// open-addressing hash table, with linear probing, of node indices. A slot
// holds the low 32 bits of the hash of the node's state, which place it and
// make comparing states rarely needed, and the node's index plus 1; 0 is an
// empty slot.
type stateTable struct {
	slots []uint64
	n     int // slots in use
	seed  maphash.Seed
	sink  uint64 // what warm reads, kept so that its loads stay
}

const minTable = 1 << 10

// warmSlots is the least size of a table whose slots expand warms (see
// warm): 1 MiB.
const warmSlots = 1 << 17

// reset empties the table, making it smaller if the last search used less
// than a sixteenth of it.
func (t *stateTable) reset() {
	if t.slots == nil {
		t.seed = maphash.MakeSeed()
	}
	switch {
	case t.slots == nil:
		t.slots = make([]uint64, minTable)
	case len(t.slots) > minTable && 16*t.n < len(t.slots):
		size := minTable
		for size < 4*t.n {
			size *= 2
		}
		t.slots = make([]uint64, size)
	default:
		clear(t.slots)
	}
	t.n = 0
}

// warm reads the slot of t where add starts looking for s: add's cache
// misses, one for most states of a table larger than the cache, then
// overlap for the children of a node, which expand warms before it adds
// any, where they would follow one another (BenchmarkSqrtLTS: √LTS-L
// 1.10x as fast, LevinTS up to 1.05x).
//
// Below warmSlots slots, the table stays in the cache and warming would
// cost a second hash of each child for nothing.
func warm[S comparable](t *stateTable, s S) {
	t.sink += t.slots[uint32(maphash.Comparable(t.seed, s))&uint32(len(t.slots)-1)]
}

// add adds node j, n, to the table of states and reports whether its state
// was not there already or, if reopen, was there with a node deeper than
// j, which it then marks stale and replaces by node j. If it reports
// false, old is the node of the state in the table, and with
// Options.Shorten the edge from j's parent to old is kept.
func (e *bestFirst[S]) add(j int32, n *node[S], reopen bool) (old int32, added bool) {
	t := &e.seen
	if 4*t.n >= 3*len(t.slots) {
		t.grow()
	}
	s, d := n.state, n.depth()
	h := uint32(maphash.Comparable(t.seed, s))
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		v := t.slots[i]
		if v == 0 {
			t.slots[i] = uint64(h)<<32 | uint64(j+1)
			t.n++
			return j, true
		}
		if uint32(v>>32) != h {
			continue
		}
		k := int32(uint32(v) - 1)
		if o := e.node(k); o.state == s {
			if !reopen || o.depth() <= d {
				if e.opts.Shorten {
					e.dropped(n.parent, n.action(), k)
				}
				return k, false
			}
			o.da |= staleBit
			t.slots[i] = uint64(h)<<32 | uint64(j+1)
			return j, true
		}
	}
}

// grow doubles the size of the table.
func (t *stateTable) grow() {
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	mask := uint32(len(t.slots) - 1)
	for _, v := range old {
		if v == 0 {
			continue
		}
		j := uint32(v>>32) & mask
		for t.slots[j] != 0 {
			j = (j + 1) & mask
		}
		t.slots[j] = v
	}
}

// A heapEntry is a node of the open list with its priority.
type heapEntry struct {
	priority float64
	depth    uint32 // for ties: g = depth·L
	index    int32
}

// nodeHeap is a 4-ary min-heap in the order of less: shallower than a
// binary heap, with the children of a node in one cache line.
type nodeHeap struct{ h []heapEntry }

func (q *nodeHeap) len() int { return len(q.h) }
func (q *nodeHeap) reset()   { q.h = q.h[:0] }

// less orders the open list: by priority, then deeper first, then in the
// order of generation, so that the order is fully determined.
func less(a, b *heapEntry) bool {
	if a.priority != b.priority {
		return a.priority < b.priority
	}
	if a.depth != b.depth {
		return a.depth > b.depth
	}
	return a.index < b.index
}

func (q *nodeHeap) push(x heapEntry) {
	if len(q.h) == cap(q.h) {
		// Double: append grows large slices by less, copying more.
		h := make([]heapEntry, len(q.h), max(2*cap(q.h), 1024))
		copy(h, q.h)
		q.h = h
	}
	q.h = append(q.h, x)
	h := q.h
	i := len(h) - 1
	for i > 0 {
		parent := (i - 1) / 4
		if !less(&x, &h[parent]) {
			break
		}
		h[i] = h[parent]
		i = parent
	}
	h[i] = x
}

func (q *nodeHeap) pop() heapEntry {
	h := q.h
	top := h[0]
	last := len(h) - 1
	x := h[last]
	h = h[:last]
	q.h = h
	if last == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= last {
			break
		}
		m := c
		for j := c + 1; j < min(c+4, last); j++ {
			if less(&h[j], &h[m]) {
				m = j
			}
		}
		if !less(&h[m], &x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
	return top
}
