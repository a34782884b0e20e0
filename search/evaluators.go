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
