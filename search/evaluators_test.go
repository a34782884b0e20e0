package search_test

import (
	"errors"
	"math"
	"testing"

	"github.com/phs-go/phs/search"
)

// constEvaluator is an Evaluator with a fixed policy, log π = −1 for every
// action, and a fixed heuristic; its Check returns err.
type constEvaluator struct {
	h   float64
	err error
}

func (e constEvaluator) Check(search.Problem[stack]) error { return e.err }

func (e constEvaluator) Evaluate(p search.Problem[stack], states []stack, logPi, h []float64) error {
	for i := range logPi[:len(states)*p.NumActions()] {
		logPi[i] = -1
	}
	for i := range states {
		h[i] = e.h
	}
	return nil
}

// noHeuristic is the pancake puzzle without its heuristic.
type noHeuristic struct{ search.Problem[stack] }

// TestHeuristicFloor checks that HeuristicFloor keeps its evaluator's
// policy and raises its heuristic to the problem's, that its Check wants
// a problem with a heuristic and forwards the evaluator's Check, and that
// with the uniform policy and a zero heuristic it searches as the
// problem's heuristic does.
func TestHeuristicFloor(t *testing.T) {
	p := pancakes{start: stack{3, 1, 4, 0, 7, 5, 2, 6}}
	states := []stack{p.start, sorted, {1, 0, 2, 3, 4, 5, 6, 7}}
	ev := search.HeuristicFloor[stack]{Evaluator: constEvaluator{h: 1.5}}
	logPi, h := make([]float64, len(states)*p.NumActions()), make([]float64, len(states))
	if err := ev.Evaluate(p, states, logPi, h); err != nil {
		t.Fatal(err)
	}
	for i, s := range states {
		if want := math.Max(1.5, p.Heuristic(s)); h[i] != want {
			t.Errorf("h of %v = %g; want max(1.5, %g) = %g", s, h[i], p.Heuristic(s), want)
		}
	}
	for i, l := range logPi {
		if l != -1 {
			t.Fatalf("log π[%d] = %g; want the evaluator's -1", i, l)
		}
	}
	if err := ev.Check(p); err != nil {
		t.Errorf("Check(pancakes) = %v; want nil", err)
	}
	if err := ev.Check(noHeuristic{p}); err == nil {
		t.Error("Check of a problem without a heuristic = nil; want an error")
	}
	if err := ev.Evaluate(noHeuristic{p}, states, logPi, h); err == nil {
		t.Error("Evaluate of a problem without a heuristic = nil; want an error")
	}
	bad := errors.New("not mine")
	if err := (search.HeuristicFloor[stack]{Evaluator: constEvaluator{err: bad}}).Check(p); !errors.Is(err, bad) {
		t.Errorf("Check with an evaluator that refuses the problem = %v; want %v", err, bad)
	}

	solve := func(ev search.Evaluator[stack]) search.Result[stack] {
		s, err := search.NewSolver(search.WAStar(2), ev, search.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Solve(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	floor, own := solve(search.HeuristicFloor[stack]{Evaluator: search.Uniform[stack]{}}), solve(search.DomainHeuristic[stack]{})
	if !floor.Solved || floor.Expansions != own.Expansions || len(floor.Actions) != len(own.Actions) {
		t.Errorf("WA* with the floor over h = 0: solved %v, %d expansions, %d moves; want as with the problem's heuristic: %d, %d",
			floor.Solved, floor.Expansions, len(floor.Actions), own.Expansions, len(own.Actions))
	}
}
