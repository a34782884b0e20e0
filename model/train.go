package model

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/phs-go/phs/nn"
)

// A Sample is a solution trajectory encoded for learning.
type Sample struct {
	// Inputs holds the T encoded states of the path, one C×H×W image each.
	Inputs []float32
	// Actions[t] is the action taken in state t.
	Actions []int
	// CostToGo[t] is the cost from state t to the goal, in the units of
	// the search's g: (T−t)·L for a node loss L.
	CostToGo []float32
	// Expansions is the number of expansions of the search that found the
	// trajectory: the N of the Levin loss.
	Expansions int64
}

// Losses are the values of the losses of a training step.
type Losses struct {
	// Policy is the Levin loss (the cross-entropy for PUCT); Heuristic the
	// mean squared error of h. Neither includes the L2 penalty.
	Policy, Heuristic float64
}

// TrainConfig sets up a Trainer.
type TrainConfig struct {
	// LearningRate of Adam; 0 means 1e-4.
	LearningRate float64
	// L2 adds L2·Σw² over the weights (not the biases) to the loss; 0, the
	// default, adds nothing. (The paper states 1e-3, but in the reference
	// implementation the penalty had no effect on training.)
	L2 float64
}

// A Trainer trains a Model with Adam on solution trajectories.
type Trainer struct {
	m   *Model
	opt *nn.Adam
	ws  workspace
	in  []float32 // the inputs of a batch of several trajectories
}

// NewTrainer returns a Trainer that trains m in place.
func NewTrainer(m *Model, cfg TrainConfig) *Trainer {
	return &Trainer{m: m, opt: nn.NewAdam(m.Params(), cfg.LearningRate, cfg.L2)}
}

// Model returns the model being trained.
func (t *Trainer) Model() *Model { return t.m }

// Steps returns the number of optimiser steps taken.
func (t *Trainer) Steps() int { return t.opt.T }

// Step takes one Adam step on the loss of one trajectory, the whole
// trajectory being the minibatch: the sum of the losses of the model's
// heads, Config.PolicyLoss and Config.HeuristicLoss. It is StepBatch of
// one sample.
func (t *Trainer) Step(s Sample) (Losses, error) {
	return t.StepBatch([]Sample{s})
}

// StepBatch takes one Adam step on the mean of the losses of several
// trajectories, each computed as Step computes it, in one pass of the
// network over all their states.
func (t *Trainer) StepBatch(samples []Sample) (Losses, error) {
	l, err := t.gradients(samples)
	if err != nil {
		return l, err
	}
	t.opt.Step()
	return l, nil
}

// gradients computes the mean of the losses of samples and accumulates
// its gradients in the parameters.
func (t *Trainer) gradients(samples []Sample) (Losses, error) {
	cfg := &t.m.cfg
	size := cfg.Channels * cfg.Height * cfg.Width
	if len(samples) == 0 {
		return Losses{}, errors.New("model: no trajectory")
	}
	N := 0
	for _, s := range samples {
		T := len(s.Actions)
		switch {
		case T == 0:
			return Losses{}, errors.New("model: empty trajectory")
		case len(s.Inputs) != T*size || len(s.CostToGo) != T:
			return Losses{}, fmt.Errorf("model: a sample of %d actions has %d input values and %d costs-to-go, want %d and %d",
				T, len(s.Inputs), len(s.CostToGo), T*size, T)
		}
		for _, a := range s.Actions {
			if a < 0 || a >= cfg.Actions {
				return Losses{}, fmt.Errorf("model: action %d out of range", a)
			}
		}
		N += T
	}
	x := samples[0].Inputs
	if len(samples) > 1 {
		t.in = slices.Grow(t.in[:0], N*size)
		for _, s := range samples {
			t.in = append(t.in, s.Inputs...)
		}
		x = t.in
	}
	t.m.forward(&t.ws, x, N)
	var l Losses
	B := float64(len(samples))
	A := cfg.Actions
	if cfg.Heads&Policy != 0 {
		dl := t.ws.dlogits[:N*A]
		clear(dl)
		off := 0
		for _, s := range samples {
			T := len(s.Actions)
			weight := float64(max(s.Expansions, 1)) // Levin
			if cfg.PolicyLoss == CrossEntropy {
				weight = 1
			}
			var nll float64
			for i, a := range s.Actions {
				nll -= float64(t.ws.logits[(off+i)*A+a])
				dl[(off+i)*A+a] = float32(-weight / (float64(T) * B))
			}
			l.Policy += nll * weight / float64(T) / B
			off += T
		}
	}
	if cfg.Heads&Heuristic != 0 {
		dh := t.ws.dhout[:N]
		off := 0
		for _, s := range samples {
			T := len(s.Actions)
			var se float64
			for i, y := range s.CostToGo {
				d := t.ws.hout[off+i] - y
				se += float64(d) * float64(d)
				dh[off+i] = 2 * d / float32(float64(T)*B)
			}
			l.Heuristic += se / float64(T) / B
			off += T
		}
	}
	if math.IsNaN(l.Policy) || math.IsNaN(l.Heuristic) {
		return l, errors.New("model: the loss is NaN")
	}
	t.m.backward(&t.ws, x, N)
	return l, nil
}
