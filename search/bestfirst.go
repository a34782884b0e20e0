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
	seen     stateTable  // the states of the arena, but with safe pruning
	visited  map[S]visit // safe pruning: the expanded states
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
	safe bool
	// atExp: the goal is tested at expansion. reopen: a child whose state
	// has a node of larger g replaces that node (A* at expansion).
	atExp, reopen bool
	// maxNodes is the number of nodes the memory bound allows.
	maxNodes int
	// sqrt: the algorithm is √LTS, whose own state sq holds.
	sqrt bool
	sq   sqrtState[S]
	// lazy: a node is evaluated when it is expanded, not when it is
	// generated (LevinTS with batches of 1: its priorities need no
	// evaluation of the node itself).
	lazy bool
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

// append adds n to the arena and returns its index.
func (e *bestFirst[S]) append(n node[S]) int32 {
	i := e.n
	c := i >> chunkBits
	if c == len(e.chunks) {
		e.chunks = append(e.chunks, make([]node[S], chunkSize))
	}
	e.chunks[c][i&(chunkSize-1)] = n
	e.n++
	return int32(i)
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

// A visit is what safe state pruning remembers of the last node of a state
// that it let through: log(g/pi) and log pi.
type visit struct{ levin, logPi float64 }

// search runs alg on p with ev, within opts and lim, as Solver.Solve
// describes, and fills res.
func (e *bestFirst[S]) search(p Problem[S], ev Evaluator[S], alg Algorithm, opts *Options, lim *limits, res *Result[S]) error {
	e.p, e.ev, e.alg, e.opts = p, ev, alg, opts
	e.edge, _ = ev.(EdgeEvaluator[S])
	e.A, e.safe = p.NumActions(), alg.kind == phsSafe
	e.atExp = opts.GoalTest.atExpansion(alg)
	e.reopen = e.atExp && alg.kind == aStar
	e.sqrt = alg.kind == sqrtLTS
	e.lazy = alg.kind == levinTS && opts.BatchSize == 1
	if e.sqrt {
		e.setRerooter(alg)
		e.sq.batches, e.sq.rooted = 0, false
	}
	defer func() { e.p, e.ev, e.edge, e.opts = nil, nil, nil, nil }()
	e.maxNodes = lim.maxNodes(e.nodeBytes())
	e.reset(opts.BatchSize)

	root := p.Root()
	e.append(node[S]{state: root, parent: -1})
	if e.sqrt {
		e.sqrtGenerated(0)
	}
	if p.IsGoal(root) && !e.atExp {
		e.solution(0, res)
		return nil
	}
	if !e.safe {
		e.add(root, 0, 0)
	}
	if err := e.flush(res); err != nil {
		return err
	}
	if e.sqrt {
		e.sq.rr.init(e)
		e.sq.rooted = true
	}
	for pops := 1; ; pops++ {
		// The open list may run empty with nodes waiting, or hold only
		// stale nodes after a flush.
		for e.open.len() == 0 {
			if e.pending == e.n {
				res.Exhausted = true
				return nil
			}
			if err := e.flush(res); err != nil {
				return err
			}
		}
		if lim.spent(res.Expansions) {
			return nil
		}
		if pops%checkEvery == 0 {
			timedOut, err := lim.check(res.Expansions)
			if err != nil || timedOut {
				res.TimedOut = timedOut
				return err
			}
		}
		if e.n+e.A > e.maxNodes {
			res.OutOfMemory = true
			return nil
		}
		top := e.open.pop()
		if e.node(top.index).stale() || e.safe && e.pruned(top.index) {
			continue
		}
		if e.atExp && p.IsGoal(e.node(top.index).state) {
			if e.pending < e.n {
				// A node waiting for its batch may come before the
				// goal: evaluate the waiting nodes, and take the best
				// node again.
				e.open.push(top)
				if err := e.flush(res); err != nil {
					return err
				}
				continue
			}
			e.solution(top.index, res)
			return nil
		}
		res.Expansions++
		if e.sqrt {
			e.sqrtExpanded(top.index)
		}
		if e.lazy {
			if err := e.evaluate(top.index, res); err != nil {
				return err
			}
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
			if err := e.flush(res); err != nil {
				return err
			}
		}
	}
}

// nodeBytes returns the memory of a node of the search under way: see
// Solver.Solve.
func (e *bestFirst[S]) nodeBytes() int {
	var n node[S]
	b := int(unsafe.Sizeof(n)) + 4*e.A + int(unsafe.Sizeof(heapEntry{})) + 8*4/3
	if e.safe {
		b += int(unsafe.Sizeof(n.state)) + int(unsafe.Sizeof(visit{})) + 16
	}
	if e.sqrt {
		b += int(unsafe.Sizeof(sqrtNode{}))
		if e.alg.rr == ClusterRerooter || e.alg.rr == ClusterHeuristicRerooter {
			b += clusterNodeBytes
		}
	}
	return b
}

// pruned applies safe state pruning to node i, taken from the open list:
// it reports whether a node of the same state expanded before dominates it,
// and otherwise remembers it as the appendix's update rule says.
func (e *bestFirst[S]) pruned(i int32) bool {
	n := e.node(i)
	levin := logLevin(n.depth(), e.opts.NodeLoss, n.logPi)
	v, ok := e.visited[n.state]
	if ok && v.levin <= levin && v.logPi >= n.logPi {
		return true
	}
	if !ok || v.logPi <= n.logPi {
		e.visited[n.state] = visit{levin, n.logPi}
	}
	return false
}

// expand generates the children of node i, with their probabilities from
// its policy, and adds those that are kept to the arena. It returns the
// index of a child that is a goal when goals are tested at generation, or
// -1.
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
		c := node[S]{state: s, logPi: n.logPi + float64(pol[a]) - logZ, parent: i, da: d | uint32(a)}
		if e.safe {
			// Drop a child dominated by the remembered node of its state
			// before it costs an evaluation: that node was expanded before
			// the child could be taken from the open list, which is all
			// the appendix's lemma needs.
			if v, ok := e.visited[s]; ok && v.logPi >= c.logPi && v.levin <= logLevin(c.depth(), e.opts.NodeLoss, c.logPi) {
				continue
			}
		} else if old, added := e.add(s, int32(e.n), c.depth()); !added {
			if e.sqrt {
				e.sq.rr.visited(e, i, old, false)
			}
			if e.opts.Shorten {
				e.dropped(i, a, old)
			}
			continue
		}
		j := e.append(c)
		if e.sqrt {
			e.sqrtGenerated(j)
			e.sq.rr.visited(e, i, j, true)
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

// logLevin returns log(g/pi) for a node at depth d with log-probability
// logPi.
func logLevin(d uint32, loss, logPi float64) float64 {
	return math.Log(float64(d)*loss) - logPi
}

// reset prepares the engine's memory for a search with batches of batch
// nodes.
func (e *bestFirst[S]) reset(batch int) {
	A := e.A
	e.n, e.pending = 0, 0
	if len(e.policies) > 0 && len(e.policies[0]) != chunkSize*A {
		e.policies = nil
	}
	e.open.reset()
	e.edges = e.edges[:0]
	if e.safe {
		if e.visited == nil {
			e.visited = make(map[S]visit)
		}
		clear(e.visited)
	} else {
		e.seen.reset()
	}
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

// flush evaluates the pending nodes and pushes them onto the open list;
// a lazy search pushes them, to be evaluated when expanded.
func (e *bestFirst[S]) flush(res *Result[S]) error {
	k, A := e.n-e.pending, e.A
	if k == 0 {
		return nil
	}
	if e.lazy {
		loss := e.opts.NodeLoss
		for i := e.pending; i < e.n; i++ {
			n := e.node(int32(i))
			d := n.depth()
			e.open.push(heapEntry{priority: e.alg.priority(float64(d)*loss, n.logPi, 0), depth: d, index: int32(i)})
		}
		e.pending = e.n
		return nil
	}
	logPi, h := e.logPi[:k*A], e.h[:k]
	if err := e.evaluateNodes(int32(e.pending), int32(e.n), logPi, h); err != nil {
		return err
	}
	e.opts.shapePolicy(logPi, A)
	res.Evaluations += int64(k)
	loss := e.opts.NodeLoss
	for i := range k {
		idx := int32(e.pending + i)
		if c := int(idx >> chunkBits); c == len(e.policies) {
			e.policies = append(e.policies, make([]float32, chunkSize*A))
		}
		dst := e.policy(idx, A)
		for a, l := range logPi[i*A : (i+1)*A] {
			dst[a] = float32(l)
		}
		n := e.node(idx)
		if n.stale() {
			continue
		}
		d := n.depth()
		var pr float64
		if e.sqrt {
			e.ext(idx).h = max(h[i], 0)
			pr = e.sqrtCost(idx)
		} else {
			pr = e.alg.priority(float64(d)*loss, n.logPi, h[i])
		}
		e.open.push(heapEntry{priority: pr, depth: d, index: idx})
	}
	e.pending = e.n
	if e.sqrt && e.sq.rooted {
		e.sq.batches++
		e.sq.rr.batchEvaluated(e)
	}
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

// evaluate evaluates node i alone and keeps its policy, for a lazy search.
func (e *bestFirst[S]) evaluate(i int32, res *Result[S]) error {
	A := e.A
	logPi, h := e.logPi[:A], e.h[:1]
	if err := e.evaluateNodes(i, i+1, logPi, h); err != nil {
		return err
	}
	e.opts.shapePolicy(logPi, A)
	res.Evaluations++
	for c := int(i >> chunkBits); c >= len(e.policies); {
		e.policies = append(e.policies, make([]float32, chunkSize*A))
	}
	dst := e.policy(i, A)
	for a, l := range logPi {
		dst[a] = float32(l)
	}
	return nil
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
}

const minTable = 1 << 10

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

// add adds state s of node i, at depth d, to the table and reports
// whether it was not already there or, with reopening, was there with a
// node deeper than d, which it then marks stale and replaces by node i;
// if it reports false, old is the node of s in the table.
func (e *bestFirst[S]) add(s S, i int32, d uint32) (old int32, added bool) {
	t := &e.seen
	if 4*t.n >= 3*len(t.slots) {
		t.grow()
	}
	h := uint32(maphash.Comparable(t.seed, s))
	mask := uint32(len(t.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		v := t.slots[j]
		if v == 0 {
			t.slots[j] = uint64(h)<<32 | uint64(i+1)
			t.n++
			return i, true
		}
		if uint32(v>>32) != h {
			continue
		}
		k := int32(uint32(v) - 1)
		if o := e.node(k); o.state == s {
			if !e.reopen || o.depth() <= d {
				return k, false
			}
			o.da |= staleBit
			t.slots[j] = uint64(h)<<32 | uint64(i+1)
			return i, true
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
