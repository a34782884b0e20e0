package scrambles

import (
	"fmt"
	"slices"

	"github.com/phs-go/phs/domain/rubiks"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// A trainer takes the optimiser steps of scrambles.
type trainer struct {
	t       *model.Trainer
	size    int // values of an encoded cube
	davi    bool
	greedy  bool // with davi, the policy learns bellman's turns
	sync    int  // steps between two copies of the weights to target
	target  *model.Model
	eval    search.Evaluator[rubiks.State] // of target, floored or not
	cube    *rubiks.Problem                // the problem given to the evaluator and Encode
	samples []model.Sample
	// The children of a step's states, their policies and heuristics.
	children    []rubiks.State
	logPi, hVal []float64
}

// newTrainer returns a trainer that takes tr's steps on scrambles,
// step of them a step, as the flags of the same names say; with davi,
// its target network is a copy of tr's model, and floor raises the h of
// each child of the targets to rubiks.Problem.Heuristic, a lower bound.
func newTrainer(tr *model.Trainer, step, sync int, davi, greedy, floor bool) *trainer {
	m := tr.Model()
	c := m.Config()
	cube, _ := rubiks.NewState(rubiks.Solved(), "") // the solved cube is legal
	t := &trainer{t: tr, size: c.Channels * c.Height * c.Width,
		davi: davi, greedy: greedy, sync: sync, cube: cube, samples: make([]model.Sample, step)}
	if davi {
		t.target = m.Clone()
		t.eval = model.NewEvaluator[rubiks.State](t.target)
		if floor {
			t.eval = search.HeuristicFloor[rubiks.State]{Evaluator: t.eval}
		}
	}
	return t
}

// step takes one optimiser step on the states of the scrambles, read
// backwards: each state's action is the one that undoes the scramble's
// turn into it, its cost-to-go the turns left or, with davi, the
// smallest of 1 + h over its 12 children by the target network (0 for
// the solved cube) and, with greedy, its action the turn to that child.
func (t *trainer) step(scrambles [][]int) (model.Losses, error) {
	for i, sc := range scrambles {
		states, actions := unscramble(sc)
		k := len(states)
		smp := &t.samples[i]
		smp.Inputs, smp.Actions, smp.CostToGo, smp.Expansions = slices.Grow(smp.Inputs[:0], k*t.size)[:k*t.size], actions, slices.Grow(smp.CostToGo[:0], k)[:k], 1
		for j, s := range states {
			t.cube.Encode(s, smp.Inputs[j*t.size:(j+1)*t.size])
			smp.CostToGo[j] = float32(k - j)
			if s == rubiks.Solved() { // a scramble may come back to it
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

// bellman sets cost[j] to min over the turns a of 1 + h(states[j]·a), h
// the target network's (floored at rubiks.Problem.Heuristic if the trainer
// was made so) and at least 0, and 0 at the solved cube, and, unless turns is
// nil, turns[j] to the first a of that minimum, turns[j] itself if it is
// one (turns[j] is kept at the solved cube).
func (t *trainer) bellman(states []rubiks.State, cost []float32, turns []int) error {
	t.children = t.children[:0]
	for _, s := range states {
		for a := range rubiks.NumActions {
			c, _ := rubiks.Apply(s, a)
			t.children = append(t.children, c)
		}
	}
	n := len(t.children)
	t.logPi, t.hVal = slices.Grow(t.logPi[:0], n*rubiks.NumActions)[:n*rubiks.NumActions], slices.Grow(t.hVal[:0], n)[:n]
	if err := t.eval.Evaluate(t.cube, t.children, t.logPi, t.hVal); err != nil {
		return err
	}
	for j, s := range states {
		if s == rubiks.Solved() {
			cost[j] = 0
			continue
		}
		// to(a) is 1 + h of the child by turn a.
		to := func(a int) float64 {
			if t.children[j*rubiks.NumActions+a] == rubiks.Solved() {
				return 1
			}
			return 1 + max(t.hVal[j*rubiks.NumActions+a], 0)
		}
		arg := 0
		for a := 1; a < rubiks.NumActions; a++ {
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

// network returns the network in dir, or a fresh one when dir is empty.
func network(dir, algName string, units, blocks int, seed uint64) (*model.Model, error) {
	if dir != "" {
		m, err := model.Load(dir)
		if err != nil {
			return nil, err
		}
		if d := m.Config().Domain; d != "rubiks" {
			return nil, fmt.Errorf("-model %s is a network of %s, not rubiks", dir, d)
		}
		return m, nil
	}
	alg, err := search.Parse(algName)
	if err != nil {
		return nil, err
	}
	cfg := model.ConfigFor[rubiks.State]("rubiks", alg, &rubiks.Problem{})
	cfg.Arch, cfg.Units, cfg.Blocks = model.ResNet, units, blocks
	return model.New(cfg, seed)
}

// unscramble returns the states and actions that undo the scramble: from
// the cube it makes, the inverse of its last turn, then of the one before,
// and so on to the solved cube (not among the states).
func unscramble(scramble []int) (states []rubiks.State, actions []int) {
	k := len(scramble)
	states, actions = make([]rubiks.State, k), make([]int, k)
	s := rubiks.Solved()
	for i, a := range scramble {
		s, _ = rubiks.Apply(s, a)
		states[k-1-i], actions[k-1-i] = s, a^1 // a^1 undoes a
	}
	return states, actions
}
