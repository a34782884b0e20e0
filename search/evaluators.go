package search

import (
	"errors"
	"math"
)

// Uniform is an Evaluator with a uniform policy and a zero heuristic.
type Uniform[S comparable] struct{}

// Evaluate writes log(1/A) for every action and 0 for every h.
func (Uniform[S]) Evaluate(p Problem[S], states []S, logPi, h []float64) error {
	fillUniform(logPi[:len(states)*p.NumActions()], p.NumActions())
	clear(h[:len(states)])
	return nil
}

// DomainHeuristic is an Evaluator with a uniform policy and the heuristic of
// the problem, which must implement Heuristic: its Check says so before a
// search starts.
type DomainHeuristic[S comparable] struct{}

// errNoHeuristic is the error of DomainHeuristic for a problem without one.
var errNoHeuristic = errors.New("search: the problem has no heuristic (no Heuristic method)")

// Check returns an error unless p implements Heuristic.
func (DomainHeuristic[S]) Check(p Problem[S]) error {
	if _, ok := p.(Heuristic[S]); !ok {
		return errNoHeuristic
	}
	return nil
}

// Evaluate writes log(1/A) for every action and p's heuristic of each state.
func (DomainHeuristic[S]) Evaluate(p Problem[S], states []S, logPi, h []float64) error {
	hp, ok := p.(Heuristic[S])
	if !ok {
		return errNoHeuristic
	}
	fillUniform(logPi[:len(states)*p.NumActions()], p.NumActions())
	for i, s := range states {
		h[i] = hp.Heuristic(s)
	}
	return nil
}

func fillUniform(logPi []float64, actions int) {
	l := -math.Log(float64(actions))
	for i := range logPi {
		logPi[i] = l
	}
}

// HeuristicFloor is an Evaluator with the policy of Evaluator and, for
// heuristic, the larger of Evaluator's and the problem's own (Heuristic),
// which should be a lower bound on the cost to the goal, such as a pattern
// database: a learnt heuristic then never falls below what is known for
// sure. The problem must implement Heuristic: Check says so before a
// search starts, and so does Evaluator's Check, if it is a Checker.
// HeuristicFloor is safe for concurrent use if Evaluator is, and allocates
// nothing that Evaluator does not.
type HeuristicFloor[S comparable] struct {
	Evaluator Evaluator[S]
}

// Check returns an error unless p implements Heuristic and, if Evaluator
// is a Checker, Evaluator accepts p.
func (f HeuristicFloor[S]) Check(p Problem[S]) error {
	if _, ok := p.(Heuristic[S]); !ok {
		return errNoHeuristic
	}
	if c, ok := f.Evaluator.(Checker[S]); ok {
		return c.Check(p)
	}
	return nil
}

// Evaluate writes Evaluator's policy and, for each state s, the larger of
// Evaluator's h and p's Heuristic(s).
func (f HeuristicFloor[S]) Evaluate(p Problem[S], states []S, logPi, h []float64) error {
	hp, ok := p.(Heuristic[S])
	if !ok {
		return errNoHeuristic
	}
	if err := f.Evaluator.Evaluate(p, states, logPi, h); err != nil {
		return err
	}
	for i, s := range states {
		h[i] = max(h[i], hp.Heuristic(s))
	}
	return nil
}
