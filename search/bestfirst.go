package search

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"time"
)

// checkEvery is the number of nodes taken from the open list between two
// looks at the context and the clock; a power of two.
const checkEvery = 1024

// maxDepth is the largest depth of a node: the depth shares 32 bits with
// the action.
const maxDepth = 1<<24 - 1

// BestFirst runs alg on p with evaluator ev. It is short for a new Engine's
// Search; a worker that solves many problems should keep an Engine.
func BestFirst[S comparable](ctx context.Context, p Problem[S], ev Evaluator[S], alg Algorithm, opts Options) (Result[S], error) {
	var e Engine[S]
	return e.Search(ctx, p, ev, alg, opts)
}

// An Engine runs best-first searches. It keeps its memory from one search to
// the next, so that a worker solving many problems allocates little but the
// solutions once its memory has grown to the size of its largest search.
// The zero value is ready to use; an Engine must not be used by two
// goroutines at once.
type Engine[S comparable] struct {
	// The arena of the search tree: n nodes in chunks of chunkSize, which
	// never move. The nodes from pending on are generated but not yet
	// evaluated: they wait for a batch.
	chunks     [][]node[S]
	n, pending int
	// policies holds the A log-probabilities of each evaluated node, in
	// chunks of chunkSize·A.
	policies [][]float32
	open     nodeHeap
	seen     stateTable  // the states of the arena, but with safe pruning
	visited  map[S]visit // safe pruning: the expanded states
	// Scratch space: the evaluator's arguments, and the successors of the
	// node being expanded.
	states   []S
	logPi, h []float64
	succ     []S
	legal    []bool
}

// chunkBits is the log2 of the number of nodes in a chunk of the arena.
const chunkBits = 12

const chunkSize = 1 << chunkBits

// node returns node i of the arena.
func (e *Engine[S]) node(i int32) *node[S] {
	return &e.chunks[i>>chunkBits][i&(chunkSize-1)]
}

// policy returns the policy of node i; A is the number of actions.
func (e *Engine[S]) policy(i int32, A int) []float32 {
	j := int(i&(chunkSize-1)) * A
	return e.policies[i>>chunkBits][j : j+A : j+A]
}

// append adds n to the arena and returns its index.
func (e *Engine[S]) append(n node[S]) int32 {
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
	da     uint32  // depth<<8 | action
}

func (n *node[S]) depth() uint32 { return n.da >> 8 }
func (n *node[S]) action() int   { return int(n.da & 255) }

// A visit is what safe state pruning remembers of the last node of a state
// that it let through: log(g/pi) and log pi.
type visit struct{ levin, logPi float64 }

// Search runs the best-first search alg on p, with the policy and heuristic
// of ev, within the limits of opts. The open list is ordered by
// alg.Priority, ties going to the larger g, then to the node generated
// first. As in the reference implementation of Orseau & Lelis (2021),
// unless opts say otherwise:
//
//   - A child is tested for the goal when it is generated, before it is
//     evaluated (the paper's Algorithm 1 tests a node when it is taken from
//     the open list to be expanded: Options.GoalAtExpansion).
//   - A child whose state was generated before, by any node, is dropped
//     when it is generated; nodes are never reopened. A* with a consistent
//     heuristic and GoalAtExpansion therefore finds optimal solutions, but
//     with an inconsistent one it may not. PHSSafe replaces this rule by
//     safe state pruning: see PHSSafe.
//   - Children wait in a pending list until at least Options.BatchSize of
//     them have been generated, or the open list is empty; they are then
//     evaluated in one Evaluator call and pushed onto the open list. So with
//     batches of more than one node the nodes are not taken in exactly
//     best-first order, and the paper's guarantees hold for BatchSize 1.
//     The root is evaluated first, on its own.
//   - The budget counts expansions: nodes taken from the open list whose
//     children are generated (not the goal node, nor those that safe
//     pruning drops).
//
// A node's g is the sum of the node losses of the nodes below the root on
// its path (Options.NodeLoss each, the root's g is 0), and its probability
// is pi(n) = pi(parent)·pi(a|parent), with pi(·|parent) the policy the
// evaluator gave the parent: its full distribution as given, or with
// Options.Renormalize that distribution renormalised over the legal actions
// of the parent. Illegal actions are never taken.
//
// The search ends with a solution, with an exhausted open list, when the
// budget is spent or at the timeout: none of these is an error. The context
// and the clock are looked at every 1024 nodes taken from the open list; a
// done context ends the search with its error. An evaluator's error also
// ends it.
func (e *Engine[S]) Search(ctx context.Context, p Problem[S], ev Evaluator[S], alg Algorithm, opts Options) (res Result[S], err error) {
	start := time.Now()
	defer func() { res.Time = time.Since(start) }()
	if alg.kind == 0 {
		return res, fmt.Errorf("search: zero Algorithm")
	}
	A, batch, loss, deadline, err := opts.settings(p, start)
	if err != nil {
		return res, err
	}
	if loss < 0 || math.IsNaN(loss) || math.IsInf(loss, 0) {
		return res, fmt.Errorf("search: node loss %g; want a finite value >= 0", loss)
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	safe := alg.kind == phsSafe
	e.reset(A, batch, safe)

	root := p.Root()
	e.append(node[S]{state: root, parent: -1})
	if p.IsGoal(root) && !opts.GoalAtExpansion {
		e.solution(p, 0, loss, opts.Renormalize, &res)
		return res, nil
	}
	if !safe {
		e.add(root, 0)
	}
	if err := e.flush(p, ev, alg, A, loss, &res); err != nil {
		return res, err
	}

	for pops := 1; ; pops++ {
		if e.open.len() == 0 {
			if e.pending == e.n {
				res.Exhausted = true
				return res, nil
			}
			if err := e.flush(p, ev, alg, A, loss, &res); err != nil {
				return res, err
			}
		}
		if opts.Budget > 0 && res.Expansions >= opts.Budget {
			return res, nil
		}
		if pops%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			if !deadline.IsZero() && time.Now().After(deadline) {
				res.TimedOut = true
				return res, nil
			}
		}

		top := e.open.pop()
		n := *e.node(top.index)
		if safe {
			levin := logLevin(n.depth(), loss, n.logPi)
			v, ok := e.visited[n.state]
			if ok && v.levin <= levin && v.logPi >= n.logPi {
				continue // safe state pruning
			}
			if !ok || v.logPi <= n.logPi {
				e.visited[n.state] = visit{levin, n.logPi}
			}
		}
		if opts.GoalAtExpansion && p.IsGoal(n.state) {
			e.solution(p, top.index, loss, opts.Renormalize, &res)
			return res, nil
		}
		res.Expansions++
		if n.depth() == maxDepth {
			return res, fmt.Errorf("search: a path is longer than %d nodes", maxDepth)
		}

		// Generate the children, with their probabilities from the policy
		// of n.
		pol := e.policy(top.index, A)
		logZ := 0.0
		for a := range A {
			s, ok := p.Apply(n.state, a)
			e.legal[a] = ok
			e.succ[a] = s
		}
		if opts.Renormalize {
			logZ = legalLogSumExp(pol, e.legal)
		}
		d := (n.depth() + 1) << 8
		for a := range A {
			if !e.legal[a] {
				continue
			}
			s := e.succ[a]
			res.Generated++
			c := node[S]{state: s, logPi: n.logPi + float64(pol[a]) - logZ, parent: top.index, da: d | uint32(a)}
			if safe {
				// Drop a child dominated by the remembered node of its
				// state before it costs an evaluation: that node was
				// expanded before the child could be taken from the open
				// list, which is all the appendix's lemma needs.
				if v, ok := e.visited[s]; ok && v.logPi >= c.logPi && v.levin <= logLevin(c.depth(), loss, c.logPi) {
					continue
				}
			} else if !e.add(s, int32(e.n)) {
				continue
			}
			i := e.append(c)
			if !opts.GoalAtExpansion && p.IsGoal(s) {
				e.solution(p, i, loss, opts.Renormalize, &res)
				return res, nil
			}
		}
		if e.n >= math.MaxInt32-A {
			return res, fmt.Errorf("search: more than %d nodes", math.MaxInt32-A)
		}
		if e.n-e.pending >= batch || e.open.len() == 0 {
			if err := e.flush(p, ev, alg, A, loss, &res); err != nil {
				return res, err
			}
		}
	}
}

// logLevin returns log(g/pi) for a node at depth d with log-probability
// logPi.
func logLevin(d uint32, loss, logPi float64) float64 {
	return math.Log(float64(d)*loss) - logPi
}

// reset prepares the engine's memory for a search.
func (e *Engine[S]) reset(A, batch int, safe bool) {
	e.n, e.pending = 0, 0
	if len(e.policies) > 0 && len(e.policies[0]) != chunkSize*A {
		e.policies = nil
	}
	e.open.reset()
	if safe {
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
	if n := batch + A; cap(e.h) < n { // a batch holds at most batch-1+A nodes
		e.states = make([]S, 0, n)
		e.logPi = make([]float64, n*A)
		e.h = make([]float64, n)
	}
}

// flush evaluates the pending nodes and pushes them onto the open list.
func (e *Engine[S]) flush(p Problem[S], ev Evaluator[S], alg Algorithm, A int, loss float64, res *Result[S]) error {
	k := e.n - e.pending
	if k == 0 {
		return nil
	}
	e.states = e.states[:0]
	for i := e.pending; i < e.n; i++ {
		e.states = append(e.states, e.node(int32(i)).state)
	}
	if cap(e.h) < k {
		e.logPi = make([]float64, k*A)
		e.h = make([]float64, k)
	}
	logPi, h := e.logPi[:k*A], e.h[:k]
	if err := ev.Evaluate(p, e.states, logPi, h); err != nil {
		return fmt.Errorf("search: evaluate: %w", err)
	}
	res.Evaluations += int64(k)
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
		d := n.depth()
		e.open.push(heapEntry{
			priority: alg.Priority(float64(d)*loss, n.logPi, h[i]),
			depth:    d,
			index:    idx,
		})
	}
	e.pending = e.n
	return nil
}

// solution fills res with the path to node leaf, a goal.
func (e *Engine[S]) solution(p Problem[S], leaf int32, loss float64, renormalize bool, res *Result[S]) {
	res.Solved = true
	steps := int(e.node(leaf).depth())
	res.Cost = float64(steps) * loss
	t := &Trajectory[S]{
		States:     make([]S, steps),
		Actions:    make([]int, steps),
		LogPi:      make([]float64, steps),
		Expansions: res.Expansions,
	}
	A := len(e.legal)
	for i, j := leaf, steps-1; j >= 0; i, j = e.node(i).parent, j-1 {
		n := e.node(i)
		par := e.node(n.parent)
		a := n.action()
		pol := e.policy(n.parent, A)
		lp := float64(pol[a])
		if renormalize {
			for b := range A {
				_, e.legal[b] = p.Apply(par.state, b)
			}
			lp -= legalLogSumExp(pol, e.legal)
		}
		t.States[j], t.Actions[j], t.LogPi[j] = par.state, a, lp
	}
	res.Actions = t.Actions
	res.Trajectory = t
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

// add adds state s of node i to the table and reports whether it was not
// already there.
func (e *Engine[S]) add(s S, i int32) bool {
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
			return true
		}
		if uint32(v>>32) == h && e.node(int32(uint32(v)-1)).state == s {
			return false
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
