package scrambles

import (
	"fmt"
	"math"
	"slices"

	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// A trainer takes the optimiser steps of scrambles of a puzzle.
type trainer[S comparable] struct {
	pz      *puzzle[S]
	t       *model.Trainer
	size    int // values of an encoded state
	davi    bool
	greedy  bool // with davi, the policy learns bellman's actions
	cap     bool // with davi, no target above the moves left of its scramble
	sync    int  // steps between two copies of the weights to target
	target  *model.Model
	eval    search.Evaluator[S] // of target, floored or not
	samples []model.Sample
	// The children of a step's states by their legal actions, their
	// policies and heuristics; child[j·actions+a] is the index there of
	// state j's child by action a, −1 if a is illegal.
	children    []S
	child       []int32
	logPi, hVal []float64
}

// newTrainer returns a trainer that takes tr's steps on scrambles of pz,
// as the settings s say (Step, DAVI, Sync, Greedy, Floor, Cap): with DAVI,
// its target network is a copy of tr's model, and Floor raises the h of
// each child of the targets to the puzzle's heuristic, a lower bound.
func newTrainer[S comparable](pz *puzzle[S], tr *model.Trainer, s Settings) *trainer[S] {
	m := tr.Model()
	c := m.Config()
	t := &trainer[S]{pz: pz, t: tr, size: c.Channels * c.Height * c.Width,
		davi: s.DAVI, greedy: s.Greedy, cap: s.Cap, sync: s.Sync, samples: make([]model.Sample, s.Step)}
	if s.DAVI {
		t.target = m.Clone()
		t.eval = model.NewEvaluator[S](t.target)
		if s.Floor {
			t.eval = search.HeuristicFloor[S]{Evaluator: t.eval}
		}
	}
	return t
}

// step takes one optimiser step on the states of the scrambles, read
// backwards: each state's action is the one that undoes the scramble's
// move into it, its cost-to-go the moves left or, with davi, the
// smallest of 1 + h over its children by the target network (0 at the
// goal), with cap at most the moves left, and, with greedy, its action
// the move to that child.
func (t *trainer[S]) step(scrambles [][]int) (model.Losses, error) {
	for i, sc := range scrambles {
		states, actions := t.pz.unscramble(sc)
		k := len(states)
		smp := &t.samples[i]
		smp.Inputs, smp.Actions, smp.CostToGo, smp.Expansions = slices.Grow(smp.Inputs[:0], k*t.size)[:k*t.size], actions, slices.Grow(smp.CostToGo[:0], k)[:k], 1
		for j, s := range states {
			t.pz.problem.Encode(s, smp.Inputs[j*t.size:(j+1)*t.size])
			smp.CostToGo[j] = float32(k - j)
			if s == t.pz.goal { // a scramble may come back to it
				smp.CostToGo[j] = 0
			}
		}
		if t.davi {
			var turns []int
			if t.greedy {
				turns = actions
			}
			if err := t.bellman(states, smp.CostToGo, turns); err != nil {
				return model.Losses{}, err
			}
			if t.cap {
				for j := range smp.CostToGo {
					smp.CostToGo[j] = min(smp.CostToGo[j], float32(k-j))
				}
			}
		}
	}
	l, err := t.t.StepBatch(t.samples)
	if err != nil {
		return l, err
	}
	if t.davi && t.t.Steps()%t.sync == 0 {
		t.target.CopyWeightsFrom(t.t.Model())
	}
	return l, nil
}

// bellman sets cost[j] to min over the legal actions a of 1 + h(states[j]·a),
// h the target network's (floored at the puzzle's heuristic if the
// trainer was made so) and at least 0, and 0 at the goal, and, unless
// turns is nil, turns[j] to the first a of that minimum, turns[j] itself
// if it is one (turns[j] is kept at the goal).
func (t *trainer[S]) bellman(states []S, cost []float32, turns []int) error {
	na := t.pz.actions
	t.children, t.child = t.children[:0], t.child[:0]
	for _, s := range states {
		for a := range na {
			i := int32(-1)
			if c, ok := t.pz.apply(s, a); ok {
				i = int32(len(t.children))
				t.children = append(t.children, c)
			}
			t.child = append(t.child, i)
		}
	}
	n := len(t.children)
	t.logPi, t.hVal = slices.Grow(t.logPi[:0], n*na)[:n*na], slices.Grow(t.hVal[:0], n)[:n]
	if err := t.eval.Evaluate(t.pz.problem, t.children, t.logPi, t.hVal); err != nil {
		return err
	}
	for j, s := range states {
		if s == t.pz.goal {
			cost[j] = 0
			continue
		}
		// to(a) is 1 + h of the child by action a, +Inf if a is illegal.
		to := func(a int) float64 {
			switch i := t.child[j*na+a]; {
			case i < 0:
				return math.Inf(1)
			case t.children[i] == t.pz.goal:
				return 1
			default:
				return 1 + max(t.hVal[i], 0)
			}
		}
		arg := 0
		for a := 1; a < na; a++ {
			if to(a) < to(arg) {
				arg = a
			}
		}
		cost[j] = float32(to(arg))
		if turns != nil && to(arg) < to(turns[j]) {
			turns[j] = arg
		}
	}
	return nil
}

// network returns the network in dir, of pz's domain, or a fresh one of
// pz when dir is empty.
func network[S comparable](pz *puzzle[S], dir, algName string, units, blocks int, seed uint64) (*model.Model, error) {
	if dir != "" {
		m, err := model.Load(dir)
		if err != nil {
			return nil, err
		}
		if d := m.Config().Domain; d != pz.domain {
			return nil, fmt.Errorf("-model %s is a network of %s, not %s", dir, d, pz.domain)
		}
		return m, nil
	}
	alg, err := search.Parse(algName)
	if err != nil {
		return nil, err
	}
	return model.New(pz.config(alg, units, blocks), seed)
}

// unscramble returns the states and actions that undo the scramble: from
// the state it makes, the inverse of its last move, then of the one
// before, and so on to the goal (not among the states).
func (pz *puzzle[S]) unscramble(scramble []int) (states []S, actions []int) {
	k := len(scramble)
	states, actions = make([]S, k), make([]int, k)
	s := pz.goal
	for i, a := range scramble {
		s, _ = pz.apply(s, a)
		states[k-1-i], actions[k-1-i] = s, a^1 // a^1 undoes a
	}
	return states, actions
}
