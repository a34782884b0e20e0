package search

import (
	"context"
	"fmt"
	"math"
	"time"
)

// BestFirst runs alg on p with evaluator ev. See Engine.Search.
func BestFirst[S comparable](ctx context.Context, p Problem[S], ev Evaluator[S], alg Algorithm, opts Options) (Result[S], error) {
	var e Engine[S]
	return e.Search(ctx, p, ev, alg, opts)
}

// An Engine runs best-first searches. It keeps its memory from one search to
// the next, so a worker that solves many problems allocates little after
// the first. The zero value is ready to use; an Engine must not be used by
// two goroutines at once.
type Engine[S comparable] struct {
	nodes    []node[S]
	policies []float32 // the A log-probabilities of each node's policy
	open     nodeHeap
	seen     map[S]struct{}
	visited  map[S]visit // safe state pruning
	pending  []child[S]
	states   []S
	logPi, h []float64
	legal    []bool
	succ     []S
}

// A node is an entry of the search tree, stored in the engine's arena.
type node[S comparable] struct {
	state  S
	g      float64
	logPi  float64
	parent int32
	action uint8
}

// A child is a generated node waiting for its evaluation.
type child[S comparable] struct {
	state  S
	g      float64
	logPi  float64
	parent int32
	action uint8
}

// A visit is what safe state pruning remembers of a state.
type visit struct{ phi, logPi float64 }

// Search runs the best-first search alg on p, with the policy and heuristic
// of ev, within the limits of opts. The engine works as the reference
// implementation of Orseau & Lelis (2021) does, unless opts say otherwise:
//
//   - A child is tested for the goal when it is generated (the paper's
//     Algorithm 1 tests at expansion: Options.GoalAtExpansion).
//   - A child whose state was generated before is dropped when generated;
//     nodes are never reopened. (PHSSafe instead prunes at expansion, as in
//     the paper's appendix.)
//   - Children wait in a pending list until Options.BatchSize of them have
//     accumulated or the open list is empty; they are then evaluated in one
//     Evaluator call and pushed onto the open list.
//   - The budget counts expansions. The root is evaluated on its own first.
//
// The policy of an expanded node gives its children their probabilities:
// pi(child) = pi(n)·pi(a|n), over the evaluator's full distribution or,
// with Options.Renormalize, renormalised over the legal actions of n. The
// heuristic is clipped at 0 by the PHS evaluation functions.
func (e *Engine[S]) Search(ctx context.Context, p Problem[S], ev Evaluator[S], alg Algorithm, opts Options) (res Result[S], err error) {
	start := time.Now()
	defer func() { res.Time = time.Since(start) }()
	A, batch, loss, deadline, err := opts.settings(p, start)
	if err != nil {
		return res, err
	}
	safe := alg.kind == phsSafe
	goalAtExpansion := opts.GoalAtExpansion || safe
	e.reset(A, batch, safe)

	// Evaluate the root on its own.
	root := p.Root()
	if p.IsGoal(root) {
		res.Solved = true
		res.Trajectory = &Trajectory[S]{}
		return res, nil
	}
	e.pending = append(e.pending, child[S]{state: root, parent: -1})
	if !safe {
		e.seen[root] = struct{}{}
	}
	if err := e.flush(p, ev, alg, A, &res); err != nil {
		return res, err
	}

	for {
		if e.open.len() == 0 {
			if len(e.pending) == 0 {
				res.Exhausted = true
				return res, nil
			}
			if err := e.flush(p, ev, alg, A, &res); err != nil {
				return res, err
			}
			continue
		}
		if opts.Budget > 0 && res.Expansions >= opts.Budget {
			return res, nil
		}
		if res.Expansions&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			if !deadline.IsZero() && time.Now().After(deadline) {
				res.TimedOut = true
				return res, nil
			}
		}
		top := e.open.pop()
		n := e.nodes[top.index]
		if safe {
			v, ok := e.visited[n.state]
			if ok && v.phi <= top.priority && v.logPi >= n.logPi {
				continue // safe state pruning
			}
			if !ok || v.logPi <= n.logPi {
				e.visited[n.state] = visit{top.priority, n.logPi}
			}
		}
		if goalAtExpansion && p.IsGoal(n.state) {
			res.Solved = true
			e.solution(p, top.index, -1, 0, 0, &res)
			return res, nil
		}
		res.Expansions++

		// Generate the children, with their probabilities from the policy
		// of n.
		pol := e.policies[int(top.index)*A : int(top.index+1)*A]
		logZ := 0.0
		if opts.Renormalize {
			logZ = math.Inf(-1)
		}
		for a := range A {
			s, ok := p.Apply(n.state, a)
			e.legal[a] = ok
			e.succ[a] = s
			if ok && opts.Renormalize {
				logZ = logAddExp(logZ, float64(pol[a]))
			}
		}
		for a := range A {
			if !e.legal[a] {
				continue
			}
			s := e.succ[a]
			res.Generated++
			if !safe {
				// One hash operation: the map grows unless s is a duplicate.
				before := len(e.seen)
				e.seen[s] = struct{}{}
				if len(e.seen) == before {
					continue
				}
			}
			c := child[S]{state: s, g: n.g + loss, logPi: n.logPi + float64(pol[a]) - logZ, parent: top.index, action: uint8(a)}
			if !goalAtExpansion && p.IsGoal(s) {
				res.Solved = true
				e.solution(p, top.index, a, c.g, c.logPi, &res)
				return res, nil
			}
			e.pending = append(e.pending, c)
		}
		if len(e.pending) >= batch || e.open.len() == 0 {
			if err := e.flush(p, ev, alg, A, &res); err != nil {
				return res, err
			}
		}
	}
}

// reset prepares the engine's memory for a search.
func (e *Engine[S]) reset(A, batch int, safe bool) {
	e.nodes = e.nodes[:0]
	e.policies = e.policies[:0]
	e.open.reset()
	e.pending = e.pending[:0]
	if safe {
		if e.visited == nil {
			e.visited = make(map[S]visit)
		}
		clear(e.visited)
	} else {
		if e.seen == nil {
			e.seen = make(map[S]struct{})
		}
		clear(e.seen)
	}
	if cap(e.legal) < A {
		e.legal = make([]bool, A)
		e.succ = make([]S, A)
	}
	e.legal, e.succ = e.legal[:A], e.succ[:A]
	n := batch + A // a flush may hold up to batch-1+A children
	if cap(e.states) < n {
		e.states = make([]S, 0, n)
		e.logPi = make([]float64, n*A)
		e.h = make([]float64, n)
	}
}

// flush evaluates the pending children and pushes them onto the open list.
func (e *Engine[S]) flush(p Problem[S], ev Evaluator[S], alg Algorithm, A int, res *Result[S]) error {
	k := len(e.pending)
	if k == 0 {
		return nil
	}
	e.states = e.states[:0]
	for _, c := range e.pending {
		e.states = append(e.states, c.state)
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
	for i, c := range e.pending {
		idx := int32(len(e.nodes))
		e.nodes = append(e.nodes, node[S]{state: c.state, g: c.g, logPi: c.logPi, parent: c.parent, action: c.action})
		for _, l := range logPi[i*A : (i+1)*A] {
			e.policies = append(e.policies, float32(l))
		}
		e.open.push(heapEntry{priority: alg.Priority(c.g, c.logPi, h[i]), g: float32(c.g), index: idx})
	}
	e.pending = e.pending[:0]
	return nil
}

// solution fills res with the path to node leaf, extended by action a to a
// goal of cost g and log-probability logPi if a >= 0.
func (e *Engine[S]) solution(p Problem[S], leaf int32, a int, g, logPi float64, res *Result[S]) {
	steps := 0
	for i := leaf; e.nodes[i].parent >= 0; i = e.nodes[i].parent {
		steps++
	}
	if a >= 0 {
		steps++
	}
	t := &Trajectory[S]{
		States:     make([]S, steps),
		Actions:    make([]int, steps),
		LogPi:      make([]float64, steps),
		Expansions: res.Expansions,
	}
	j := steps - 1
	if a >= 0 {
		n := e.nodes[leaf]
		t.States[j], t.Actions[j], t.LogPi[j] = n.state, a, logPi-n.logPi
		j--
		res.Cost = g
	} else {
		res.Cost = e.nodes[leaf].g
	}
	for i := leaf; e.nodes[i].parent >= 0; i = e.nodes[i].parent {
		n, par := e.nodes[i], e.nodes[e.nodes[i].parent]
		t.States[j], t.Actions[j], t.LogPi[j] = par.state, int(n.action), n.logPi-par.logPi
		j--
	}
	res.Actions = t.Actions
	res.Trajectory = t
}

// logAddExp returns log(exp(a)+exp(b)).
func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// A heapEntry is a node of the open list with its priority.
type heapEntry struct {
	priority float64
	g        float32 // for ties only
	index    int32
}

// nodeHeap is a binary min-heap on (priority, -g).
type nodeHeap struct{ h []heapEntry }

func (q *nodeHeap) len() int { return len(q.h) }
func (q *nodeHeap) reset()   { q.h = q.h[:0] }

func (q *nodeHeap) less(i, j int) bool {
	a, b := &q.h[i], &q.h[j]
	if a.priority != b.priority {
		return a.priority < b.priority
	}
	return a.g > b.g
}

func (q *nodeHeap) push(x heapEntry) {
	q.h = append(q.h, x)
	i := len(q.h) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			break
		}
		q.h[i], q.h[parent] = q.h[parent], q.h[i]
		i = parent
	}
}

func (q *nodeHeap) pop() heapEntry {
	top := q.h[0]
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h = q.h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= last {
			break
		}
		m := l
		if r := l + 1; r < last && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			break
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
	return top
}
