package model

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/phs-go/phs/nn"
)

// A Sample is a solution trajectory encoded for learning.
type Sample struct {
	// Inputs holds the T encoded states of the path, one C×H×W image each.
	Inputs []float32
	// Actions[t] is the action taken in state t, or NoAction for a state
	// whose action the policy is not to learn, such as a dead end, from
	// which no action leads to a goal: the heuristic alone learns from
	// it, its CostToGo[t]. The states need not be a path.
	Actions []int
	// CostToGo[t] is the cost from state t to the goal, in the units of
	// the search's g: (T−t)·L for a node loss L.
	CostToGo []float32
	// Expansions is the number of expansions of the search that found the
	// trajectory: the N of the Levin loss.
	Expansions int64
}

// NoAction is the action of a state in a Sample whose action the policy
// does not learn.
const NoAction = -1

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
	// Threads is the number of goroutines that compute a step's gradients,
	// each over a share of the step's states, of at least 48 states; 0
	// means 1, at most MaxThreads. Each thread but the first has a copy of
	// the model, whose weights it copies after every step; the gradients
	// are the same up to float rounding. It pays for steps of several
	// trajectories (bootstrap's Config.StepTrajectories), not for the
	// paper's steps of one.
	Threads int
}

// MaxThreads bounds TrainConfig.Threads.
const MaxThreads = 64

// minShare is the fewest states a thread of a Trainer takes: below, the
// copies of the weights and the sums of the gradients cost more than the
// thread saves (on two cores and the Sokoban network, a step of 32 states
// ran at 0.7–0.9 times the rate of one thread, one of 128 states at 1.3–1.6
// times, of 256 states at 1.5–1.8 times).
const minShare = 48

// A Trainer trains a Model with Adam on solution trajectories.
type Trainer struct {
	m   *Model
	opt *nn.Adam
	ws  workspace
	in  []float32 // the inputs of a batch of several trajectories
	one [1]Sample // the batch of Step, which would escape as a literal
	// replicas are the models of the threads but the first, with their
	// workspaces; their weights are m's between steps.
	replicas []*Model
	rws      []workspace
	losses   []Losses // of each thread's share of a step
	errs     []error
}

// NewTrainer returns a Trainer that trains m in place. It panics if
// cfg.Threads is out of range.
func NewTrainer(m *Model, cfg TrainConfig) *Trainer {
	if cfg.Threads < 0 || cfg.Threads > MaxThreads {
		panic(fmt.Sprintf("model: NewTrainer: %d threads", cfg.Threads))
	}
	t := &Trainer{m: m, opt: nn.NewAdam(m.Params(), cfg.LearningRate, cfg.L2)}
	for range cfg.Threads - 1 {
		t.replicas = append(t.replicas, m.Clone())
	}
	t.rws = make([]workspace, len(t.replicas))
	t.losses, t.errs = make([]Losses, 1+len(t.replicas)), make([]error, 1+len(t.replicas))
	return t
}

// Model returns the model being trained. Its weights must change only
// through t's steps, which the threads' copies of it follow.
func (t *Trainer) Model() *Model { return t.m }

// Steps returns the number of optimiser steps taken.
func (t *Trainer) Steps() int { return t.opt.T }

// Step takes one Adam step on the loss of one trajectory, the whole
// trajectory being the minibatch: the sum of the losses of the model's
// heads, Config.PolicyLoss and Config.HeuristicLoss. It is StepBatch of
// one sample.
func (t *Trainer) Step(s Sample) (Losses, error) {
	t.one[0] = s
	l, err := t.StepBatch(t.one[:])
	t.one[0] = Sample{} // keeps nothing of s
	return l, err
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
	t.m.gen++
	for _, r := range t.replicas {
		r.CopyWeightsFrom(t.m)
	}
	return l, nil
}

// A TrainerState is a copy of what a Trainer's steps change: the model's
// weights and Adam's moment estimates and count of steps. Its zero value
// is empty; Trainer.CopyState fills it.
type TrainerState struct {
	weights, m, v [][]float32
	steps         int
}

// CopyState copies into s the weights and the optimiser state of t,
// reusing s's memory if it holds a copy of t's already, so that
// RestoreState can undo the steps taken since.
func (t *Trainer) CopyState(s *TrainerState) {
	ps := t.m.Params()
	if len(s.weights) != len(ps) {
		s.weights, s.m, s.v = make([][]float32, len(ps)), make([][]float32, len(ps)), make([][]float32, len(ps))
	}
	for i, p := range ps {
		s.weights[i] = append(s.weights[i][:0], p.Data...)
		s.m[i] = append(s.m[i][:0], t.opt.M[i]...)
		s.v[i] = append(s.v[i][:0], t.opt.V[i]...)
	}
	s.steps = t.opt.T
}

// RestoreState makes the weights and the optimiser state of t, and of
// its threads' copies of the model, those that CopyState copied into s
// from t, and clears the gradients. It panics if s holds no copy of t's
// state.
func (t *Trainer) RestoreState(s *TrainerState) {
	ps := t.m.Params()
	if len(s.weights) != len(ps) {
		panic("model: RestoreState: not a copy of the trainer's state")
	}
	for i, p := range ps {
		if len(s.weights[i]) != len(p.Data) {
			panic("model: RestoreState: not a copy of the trainer's state")
		}
		copy(p.Data, s.weights[i])
		copy(t.opt.M[i], s.m[i])
		copy(t.opt.V[i], s.v[i])
		p.ZeroGrad()
	}
	t.opt.T = s.steps
	t.m.gen++
	for _, r := range t.replicas {
		r.CopyWeightsFrom(t.m)
	}
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
			if a < NoAction || a >= cfg.Actions {
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
	k := min(1+len(t.replicas), max(1, N/minShare))
	if k == 1 {
		return t.share(t.m, &t.ws, samples, x, 0, N)
	}
	return t.parallel(samples, x, N, k)
}

// parallel is gradients on k threads, for the N states x of samples. (A
// function of its own: the variables that its goroutines share escape to
// the heap, which a step on one thread need not pay for.)
func (t *Trainer) parallel(samples []Sample, x []float32, N, k int) (Losses, error) {
	// Thread i takes the states [i·N/k, (i+1)·N/k).
	losses, errs := t.losses[:k], t.errs[:k]
	var wg sync.WaitGroup
	for i := 1; i < k; i++ {
		wg.Go(func() {
			losses[i], errs[i] = t.share(t.replicas[i-1], &t.rws[i-1], samples, x, i*N/k, (i+1)*N/k)
		})
	}
	losses[0], errs[0] = t.share(t.m, &t.ws, samples, x, 0, N/k)
	wg.Wait()
	var l Losses
	var err error
	for i := range k {
		if errs[i] != nil {
			err = errs[i]
		}
		l.Policy += losses[i].Policy
		l.Heuristic += losses[i].Heuristic
	}
	params := t.m.Params()
	for _, r := range t.replicas[:k-1] {
		for j, p := range r.Params() {
			if err == nil {
				g := params[j].Grad
				for i, v := range p.Grad {
					g[i] += v
				}
			}
			p.ZeroGrad()
		}
	}
	if err != nil {
		for _, p := range params {
			p.ZeroGrad() // no share's gradients without the others'
		}
	}
	return l, err
}

// Training reads a thread's share of a batch, of 0s and 1s, as the places
// of its ones when at most one in oneHotShare of its values is a 1 (the
// cube's inputs: one in 12; the sliding-tile puzzle's: one in its number
// of cells) and it has at least oneHotRows states: the input layer then
// costs sums of a row of weights a 1 (nn.Dense.ForwardOneHotReLU and
// BackwardOneHot; for Conv, nn.Conv2D's), and two transpositions of its
// weight. A step of 1,024 states takes 0.92 times as long for the cube's
// ResNet of 256 units, 0.81 for the 24-puzzle's of 128 and 0.45 for its
// Conv network, but one of 32 states 1.25 and 1.43 times for the ResNets
// (BenchmarkTrainStep, medians of 3): hence the least rows. (Variables
// for the tests, which compare the two ways.)
var oneHotShare, oneHotRows = 8, 256

// share computes, with m and ws, the part of the loss of samples that the
// states [lo, hi) of the batch x make, as gradients does for the whole
// batch, and accumulates its gradients in m's parameters.
func (t *Trainer) share(m *Model, ws *workspace, samples []Sample, x []float32, lo, hi int) (Losses, error) {
	cfg := &m.cfg
	size := cfg.Channels * cfg.Height * cfg.Width
	x = x[lo*size : hi*size]
	n := hi - lo
	if n >= oneHotRows && ws.rows.SetDense(x, n, size, n*size/oneHotShare) {
		ws.inT = m.inputT(ws.inT)
		m.forwardOneHot(ws)
	} else {
		m.forward(ws, x, n)
	}
	var l Losses
	B := float64(len(samples))
	A := cfg.Actions
	if cfg.Heads&Policy != 0 {
		dl := ws.dlogits[:n*A]
		clear(dl)
		off := 0
		for _, s := range samples {
			T := len(s.Actions)
			from, to := max(lo, off), min(hi, off+T)
			weight := float64(max(s.Expansions, 1)) // Levin
			if cfg.PolicyLoss == CrossEntropy {
				weight = 1
			}
			var nll float64
			for j := from; j < to; j++ {
				a := s.Actions[j-off]
				if a == NoAction {
					continue
				}
				nll -= float64(ws.logits[(j-lo)*A+a])
				dl[(j-lo)*A+a] = float32(-weight / (float64(T) * B))
			}
			if from < to {
				l.Policy += nll * weight / float64(T) / B
			}
			off += T
		}
	}
	if cfg.Heads&Heuristic != 0 {
		dh := ws.dhout[:n]
		off := 0
		for _, s := range samples {
			T := len(s.Actions)
			from, to := max(lo, off), min(hi, off+T)
			var se float64
			for j := from; j < to; j++ {
				d := ws.hout[j-lo] - s.CostToGo[j-off]
				se += float64(d) * float64(d)
				dh[j-lo] = 2 * d / float32(float64(T)*B)
			}
			if from < to {
				l.Heuristic += se / float64(T) / B
			}
			off += T
		}
	}
	if math.IsNaN(l.Policy) || math.IsNaN(l.Heuristic) {
		return l, errors.New("model: the loss is NaN")
	}
	m.backward(ws, x, n)
	return l, nil
}
