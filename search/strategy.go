package search

import (
	"math"
	"unsafe"
)

// A strategy is what sets one best-first algorithm apart in the engine:
// the priority of a node, which nodes are dropped as repeated states or
// pruned, when a node is evaluated, and what else the algorithm keeps of
// the search (√LTS's costs and rerooter). The engine takes one per search
// (strategies.of) and calls it at fixed points of a loop that reads the
// same for every algorithm. When the goal is tested is an option of the
// search (Options.GoalTest), and the engine's.
//
// The engine calls a strategy through this interface, once or twice per
// node: a type parameter would save nothing, for the compiler calls the
// methods of a type parameter through its dictionary too.
type strategy[S comparable] interface {
	// start readies the strategy for a search of e, whose fields but the
	// arena's are set, and returns the bytes a node takes besides those
	// of bestFirst.nodeBytes.
	start(e *bestFirst[S]) (nodeBytes int)
	// keep reports whether node j, c, just generated and the last of the
	// arena, stays in the search: the root, or the child by c.action()
	// of node c.parent, under expansion. If not, the engine drops it from
	// the arena.
	keep(e *bestFirst[S], j int32, c *node[S]) bool
	// take reports whether node i, taken from the open list, is to be
	// tested for the goal and expanded; a node it refuses is dropped and
	// costs no expansion.
	take(e *bestFirst[S], i int32) bool
	// expanded readies node i, taken, for its expansion, before its
	// children are generated.
	expanded(e *bestFirst[S], i int32) error
	// evaluate evaluates the pending nodes, keeps their policies and
	// returns their heuristic values.
	evaluate(e *bestFirst[S]) (h []float64, err error)
	// priority returns the priority of node i, pending, whose path cost
	// is g, log-probability logPi and heuristic value h: the engine
	// expands the node of least priority first.
	priority(e *bestFirst[S], i int32, g, logPi, h float64) float64
	// flushed is called once the pending nodes are on the open list.
	flushed(e *bestFirst[S])
}

// strategies holds a strategy of each kind, so that taking one allocates
// nothing and a strategy keeps its memory from one search to the next.
type strategies[S comparable] struct {
	phsStar   phsStarStrategy[S]
	phsh      phshStrategy[S]
	levin     levinStrategy[S]
	lazyLevin lazyLevinStrategy[S]
	aStar     aStarStrategy[S]
	gbfs      gbfsStrategy[S]
	safe      safeStrategy[S]
	sqrt      sqrtStrategy[S]
}

// of returns the strategy of alg, a best-first algorithm, for a search
// with batches of batch nodes that tests the goal at expansion if atExp.
// But for the default goal test (GoalTest.atExpansion), it is the one
// place where the engine looks at the kind of algorithm.
func (r *strategies[S]) of(alg Algorithm, batch int, atExp bool) strategy[S] {
	switch alg.kind {
	case phsStar:
		return &r.phsStar
	case phsh:
		return &r.phsh
	case levinTS:
		if batch == 1 {
			return &r.lazyLevin
		}
		return &r.levin
	case aStar, wAStar:
		// A* with the goal tested at expansion keeps the cheaper of two
		// nodes of a state.
		r.aStar = aStarStrategy[S]{baseStrategy: baseStrategy[S]{reopen: atExp && alg.kind == aStar}, w: alg.param}
		return &r.aStar
	case gbfs:
		return &r.gbfs
	case phsSafe:
		return &r.safe
	}
	return &r.sqrt
}

// baseStrategy is what a strategy does unless it says otherwise: it drops
// a child whose state has a node already, which the engine's table of
// states holds, or with reopen, one whose state has a node no deeper (a
// deeper node is marked stale, and skipped, and the child replaces it);
// it evaluates the nodes in batches as they are generated. Every strategy
// embeds it and adds its priority.
type baseStrategy[S comparable] struct{ reopen bool }

func (*baseStrategy[S]) start(e *bestFirst[S]) int {
	e.seen.reset()
	return 0
}

func (r *baseStrategy[S]) keep(e *bestFirst[S], j int32, c *node[S]) bool {
	_, added := e.add(j, c, r.reopen)
	return added
}

func (*baseStrategy[S]) take(e *bestFirst[S], i int32) bool { return !e.node(i).stale() }

func (*baseStrategy[S]) expanded(*bestFirst[S], int32) error { return nil }

func (*baseStrategy[S]) evaluate(e *bestFirst[S]) ([]float64, error) {
	return e.evaluate(int32(e.pending), int32(e.n))
}

func (*baseStrategy[S]) flushed(*bestFirst[S]) {}

// orInf returns p, or +Inf if p is NaN (such as PHS* gives for pi = 1
// and h = +Inf).
func orInf(p float64) float64 {
	if p != p {
		return math.Inf(1)
	}
	return p
}

// phsStarStrategy is PHS*'s: log phi = log(g+h) − (1+h/g)·log pi, h clipped
// at 0, and −Inf for the root (g = 0).
type phsStarStrategy[S comparable] struct{ baseStrategy[S] }

func (*phsStarStrategy[S]) priority(_ *bestFirst[S], _ int32, g, logPi, h float64) float64 {
	if g == 0 {
		return math.Inf(-1)
	}
	h = max(h, 0)
	return orInf(math.Log(g+h) - (1+h/g)*logPi)
}

// phshStrategy is PHS_h's: log phi = log(g+h) − log pi, h clipped at 0.
type phshStrategy[S comparable] struct{ baseStrategy[S] }

func (*phshStrategy[S]) priority(_ *bestFirst[S], _ int32, g, logPi, h float64) float64 {
	return orInf(math.Log(g+max(h, 0)) - logPi)
}

// levinStrategy is LevinTS's: log phi = log g − log pi.
type levinStrategy[S comparable] struct{ baseStrategy[S] }

func (*levinStrategy[S]) priority(_ *bestFirst[S], _ int32, g, logPi, _ float64) float64 {
	return orInf(math.Log(g) - logPi)
}

// lazyLevinStrategy is LevinTS's with batches of 1: its priority needs
// no evaluation of the node itself, so it evaluates a node when it
// expands it, for the node's policy (Options.BatchSize).
type lazyLevinStrategy[S comparable] struct{ levinStrategy[S] }

func (*lazyLevinStrategy[S]) evaluate(e *bestFirst[S]) ([]float64, error) {
	return e.h[:e.n-e.pending], nil // which the priority does not read
}

func (*lazyLevinStrategy[S]) expanded(e *bestFirst[S], i int32) error {
	_, err := e.evaluate(i, i+1)
	return err
}

// aStarStrategy is A*'s and WA*'s: f = g + w·h.
type aStarStrategy[S comparable] struct {
	baseStrategy[S]
	w float64
}

func (r *aStarStrategy[S]) priority(_ *bestFirst[S], _ int32, g, _, h float64) float64 {
	return orInf(g + r.w*h)
}

// gbfsStrategy is GBFS's: f = h.
type gbfsStrategy[S comparable] struct{ baseStrategy[S] }

func (*gbfsStrategy[S]) priority(_ *bestFirst[S], _ int32, _, _, h float64) float64 {
	return orInf(h)
}

// safeStrategy is PHSSafe's: PHS_h with the safe state pruning of the paper's
// appendix in place of the table of states.
type safeStrategy[S comparable] struct {
	phshStrategy[S]
	visited map[S]visit // the expanded states
}

// A visit is what safe state pruning remembers of the last node of a state
// that it let through: log(g/pi) and log pi.
type visit struct{ levin, logPi float64 }

func (r *safeStrategy[S]) start(*bestFirst[S]) int {
	if r.visited == nil {
		r.visited = make(map[S]visit)
	}
	clear(r.visited)
	var s S
	return int(unsafe.Sizeof(s)) + int(unsafe.Sizeof(visit{})) + 16
}

// keep drops a child dominated by the remembered node of its state
// before it costs an evaluation: that node was expanded before the child
// could be taken from the open list, which is all the appendix's lemma
// needs.
func (r *safeStrategy[S]) keep(e *bestFirst[S], _ int32, c *node[S]) bool {
	v, ok := r.visited[c.state]
	return !(ok && v.logPi >= c.logPi && v.levin <= logLevin(c.depth(), e.opts.NodeLoss, c.logPi))
}

// take applies safe state pruning to node i: it refuses it if a node of
// the same state expanded before dominates it, and otherwise remembers it
// as the appendix's update rule says.
func (r *safeStrategy[S]) take(e *bestFirst[S], i int32) bool {
	n := e.node(i)
	levin := logLevin(n.depth(), e.opts.NodeLoss, n.logPi)
	v, ok := r.visited[n.state]
	if ok && v.levin <= levin && v.logPi >= n.logPi {
		return false
	}
	if !ok || v.logPi <= n.logPi {
		r.visited[n.state] = visit{levin, n.logPi}
	}
	return true
}

// logLevin returns log(g/pi) for a node at depth d with log-probability
// logPi.
func logLevin(d uint32, loss, logPi float64) float64 {
	return math.Log(float64(d)*loss) - logPi
}
