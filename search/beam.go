package search

import (
	"cmp"
	"slices"
)

// A beamEntry is a child of a layer of beam search with its heuristic
// value, to choose the next layer.
type beamEntry struct {
	h     float64
	index int32
}

// beam runs alg, beam search, on p with ev, within opts and lim, as Beam
// and Solver.Solve describe, and fills res. It shares the arena, the
// table of states, the evaluation and the solutions of the best-first
// engine; GBFS's strategy keeps and evaluates its nodes.
func (e *bestFirst[S]) beam(p Problem[S], ev Evaluator[S], alg Algorithm, opts *Options, lim *limits, res *Result[S]) error {
	j, c := e.begin(p, ev, alg, opts, lim, false, &e.strategies.gbfs)
	defer e.end(res)
	if p.IsGoal(c.state) {
		e.solution(j, res)
		return nil
	}
	// The root's policy gives the log-probability of the first step.
	if _, err := e.strategy.evaluate(e); err != nil {
		return err
	}
	e.pending = e.n
	layer := append(e.layer[:0], beamEntry{index: j})
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
		layer, e.next = append(layer[:0], e.next[:min(alg.BeamWidth(), len(e.next))]...), e.next[:0]
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
