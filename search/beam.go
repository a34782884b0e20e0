package search

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// A beamEntry is a child of a layer of beam search with its heuristic
// value, to choose the next layer.
type beamEntry struct {
	h     float64
	index int32
}

// beam runs alg, a beam search (Beam or PolicyBeam), on p with ev,
// within opts and lim, as Beam, PolicyBeam and Solver.Solve describe, and
// fills res. It shares the arena, the table of states, the evaluation and
// the solutions of the best-first engine; GBFS's strategy keeps and
// evaluates its nodes.
func (e *bestFirst[S]) beam(p Problem[S], ev Evaluator[S], alg Algorithm, opts *Options, lim *limits, res *Result[S]) error {
	j, c := e.begin(p, ev, alg, opts, lim, false, &e.strategies.gbfs)
	defer e.end(res)
	if p.IsGoal(c.state) {
		e.solution(j, res)
		return nil
	}
	// The root's policy gives the log-probability of the first step.
	if err := e.evaluatePending(); err != nil {
		return err
	}
	e.layer = append(e.layer[:0], beamEntry{index: j})
	if alg.kind == policyBeam {
		return e.policyLayers(p, alg.BeamWidth(), opts, lim, res)
	}
	return e.heuristicLayers(alg.BeamWidth(), opts, lim, res)
}

// heuristicLayers searches Beam's layers from e.layer, w wide.
func (e *bestFirst[S]) heuristicLayers(w int, opts *Options, lim *limits, res *Result[S]) error {
	layer := e.layer
	e.next = e.next[:0]
	defer func() { e.layer = layer[:0] }()
	for {
		for _, b := range layer {
			if stop, err := e.stop(lim, res.Expansions+1, res); stop {
				return err
			}
			res.Expansions++
			goal, err := e.expand(b.index, res)
			if err != nil {
				return err
			}
			if goal >= 0 {
				e.solution(goal, res)
				return nil
			}
			if e.n-e.pending >= opts.BatchSize {
				if err := e.evaluateLayer(); err != nil {
					return err
				}
			}
		}
		if err := e.evaluateLayer(); err != nil {
			return err
		}
		if len(e.next) == 0 {
			res.Exhausted = true
			return nil
		}
		slices.SortFunc(e.next, func(a, b beamEntry) int {
			return cmp.Or(cmp.Compare(a.h, b.h), cmp.Compare(a.index, b.index))
		})
		layer, e.next = append(layer[:0], e.next[:min(w, len(e.next))]...), e.next[:0]
	}
}

// evaluateLayer evaluates the pending nodes, children of the layer under
// expansion, and adds them with their heuristic values to e.next.
func (e *bestFirst[S]) evaluateLayer() error {
	if e.pending == e.n {
		return nil
	}
	h, err := e.strategy.evaluate(e)
	if err != nil {
		return err
	}
	for i, hi := range h {
		e.next = append(e.next, beamEntry{h: orInf(hi), index: int32(e.pending + i)})
	}
	e.pending = e.n
	return nil
}

// A policyCand is a child that policy beam search may generate: the
// log-probability of its path, its parent and its action.
type policyCand struct {
	logPi  float64
	parent int32
	a      int32
}

// policyLayers searches PolicyBeam's layers from e.layer, w wide: a
// layer's candidates are scored from its nodes' policies, and only those
// of the next layer are generated, kept and evaluated.
func (e *bestFirst[S]) policyLayers(p Problem[S], w int, opts *Options, lim *limits, res *Result[S]) error {
	layer := e.layer
	defer func() { e.layer = layer[:0] }()
	A := e.A
	for {
		cands := e.cands[:0]
		for _, b := range layer {
			if stop, err := e.stop(lim, res.Expansions+1, res); stop {
				return err
			}
			res.Expansions++
			n := e.node(b.index)
			if n.depth() == maxDepth {
				return fmt.Errorf("search: a path is longer than %d nodes", maxDepth)
			}
			pol := e.policy(b.index, A)
			logZ := 0.0
			if opts.Renormalize {
				for a := range A {
					_, e.legal[a] = p.Apply(n.state, a)
				}
				logZ = legalLogSumExp(pol, e.legal)
			}
			for a, lp := range pol {
				cands = append(cands, policyCand{n.logPi + float64(lp) - logZ, b.index, int32(a)})
			}
		}
		e.cands = cands
		slices.SortFunc(cands, func(x, y policyCand) int {
			return cmp.Or(cmp.Compare(y.logPi, x.logPi), cmp.Compare(x.parent, y.parent), cmp.Compare(x.a, y.a))
		})
		layer = layer[:0]
		for _, k := range cands {
			if len(layer) == w {
				break
			}
			par := e.node(k.parent)
			s, ok := p.Apply(par.state, int(k.a))
			if !ok {
				continue
			}
			if e.n >= math.MaxInt32-1 {
				return fmt.Errorf("search: more than %d nodes", math.MaxInt32-1)
			}
			res.Generated++
			j, c := e.append(node[S]{state: s, logPi: k.logPi, parent: k.parent, da: (par.depth()+1)<<8 | uint32(k.a)})
			if !e.strategy.keep(e, j, c) {
				e.n--
				continue
			}
			if p.IsGoal(s) {
				e.solution(j, res)
				return nil
			}
			layer = append(layer, beamEntry{index: j})
			if e.n-e.pending >= opts.BatchSize {
				if err := e.evaluatePending(); err != nil {
					return err
				}
			}
		}
		if err := e.evaluatePending(); err != nil {
			return err
		}
		if len(layer) == 0 {
			res.Exhausted = true
			return nil
		}
	}
}

// evaluatePending evaluates the pending nodes, keeping their policies.
func (e *bestFirst[S]) evaluatePending() error {
	if e.pending == e.n {
		return nil
	}
	if _, err := e.strategy.evaluate(e); err != nil {
		return err
	}
	e.pending = e.n
	return nil
}
