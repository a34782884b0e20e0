// Package network is the Bootstrap learner of the paper: a neural network
// (package model) trained on the solutions of the searches, with Adam and
// the losses of its configuration. Learner is a bootstrap.Learner; its
// snapshots decode with DecodeSnapshot on the workers of a run.
package network

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/internal/atomicfile"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// LearnerConfig holds the learner settings of the paper's network, which
// a Learner saves with its weights. The zero values of the numbers select
// the paper's procedure.
type LearnerConfig struct {
	// LearningRate is Adam's, finite and ≥ 0; 0 means 1e-4. L2 adds
	// L2·Σw² over the weights to the loss (model.TrainConfig).
	LearningRate float64 `json:"learning_rate"`
	L2           float64 `json:"l2"`
	// Passes is the number of passes over an update's trajectories; 0
	// means 10.
	Passes int `json:"passes"`
	// StepTrajectories is the number of trajectories of one optimiser
	// step: the loss is their mean, over one pass of the network on all
	// their states; 0 means 1, one step per trajectory (the paper).
	StepTrajectories int `json:"trajectories_per_step"`
	// Seed seeds the shuffling of the trajectories at each pass.
	Seed uint64 `json:"seed"`
}

// Validate returns an error that names the first field of c out of
// range; NewLearner validates its LearnerConfig too.
func (c LearnerConfig) Validate() error {
	if err := c.check(); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	return nil
}

// check returns an error if a field of c is out of range, and otherwise
// fills in the defaults.
func (c *LearnerConfig) check() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case !(c.LearningRate >= 0 && finite(c.LearningRate)):
		return fmt.Errorf("learning rate %g; want a finite number >= 0", c.LearningRate)
	case !(c.L2 >= 0 && finite(c.L2)):
		return fmt.Errorf("L2 %g; want a finite number >= 0", c.L2)
	case c.Passes < 0:
		return fmt.Errorf("passes %d; want > 0", c.Passes)
	case c.StepTrajectories < 0:
		return fmt.Errorf("trajectories per step %d; want > 0", c.StepTrajectories)
	}
	if c.Passes == 0 {
		c.Passes = 10
	}
	if c.StepTrajectories == 0 {
		c.StepTrajectories = 1
	}
	return nil
}

// A Learner is the learner of the paper: a model.Model trained in place
// by a model.Trainer. Each update takes Passes passes over the group's
// trajectories, shuffled with a generator seeded by Seed, one Adam step
// per trajectory (or per StepTrajectories of them), with the losses of
// the model's configuration. Its snapshots are copies of the model, which
// marshal with model.MarshalModel; DecodeSnapshot reads them back.
type Learner[S comparable] struct {
	cfg     LearnerConfig
	tr      *model.Trainer
	rng     rand.PCG
	shuffle *rand.Rand
	samples []model.Sample
	// before is the trainer's state at the start of the update under way,
	// which an interrupted update restores.
	before model.TrainerState
}

var _ bootstrap.Learner[int] = (*Learner[int])(nil)

// learnerFile is the file of a Learner's settings and generator state.
const learnerFile = "learner.json"

// learnerState is what learnerFile holds.
type learnerState struct {
	Config LearnerConfig `json:"config"`
	RNG    []byte        `json:"rng"`
}

// NewLearner returns a Learner that trains m in place with cfg;
// threads is the number of goroutines of a step (model.TrainConfig.Threads:
// 0 means 1), which changes the results by float rounding only.
func NewLearner[S comparable](m *model.Model, cfg LearnerConfig, threads int) (*Learner[S], error) {
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("network: %w", err)
	}
	if threads < 0 || threads > model.MaxThreads {
		return nil, fmt.Errorf("network: %d threads; want 0 to %d", threads, model.MaxThreads)
	}
	n := &Learner[S]{cfg: cfg, tr: model.NewTrainer(m, cfg.trainConfig(threads))}
	n.rng = *rand.NewPCG(cfg.Seed, 0x5eed)
	n.shuffle = rand.New(&n.rng)
	return n, nil
}

func (c *LearnerConfig) trainConfig(threads int) model.TrainConfig {
	return model.TrainConfig{LearningRate: c.LearningRate, L2: c.L2, Threads: threads}
}

// LoadLearner reads the Learner that Learner.Save wrote to dir, to go on
// training it with threads goroutines per step.
func LoadLearner[S comparable](dir string, threads int) (*Learner[S], error) {
	name := filepath.Join(dir, learnerFile)
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("network: %w", err)
	}
	var ns learnerState
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ns); err != nil {
		return nil, fmt.Errorf("network: %s: %w", name, err)
	}
	if err := ns.Config.check(); err != nil {
		return nil, fmt.Errorf("network: %s: %w", name, err)
	}
	if threads < 0 || threads > model.MaxThreads {
		return nil, fmt.Errorf("network: %d threads; want 0 to %d", threads, model.MaxThreads)
	}
	tr, err := model.LoadTrainer(dir, ns.Config.trainConfig(threads))
	if err != nil {
		return nil, fmt.Errorf("network: %w", err)
	}
	n := &Learner[S]{cfg: ns.Config, tr: tr}
	if err := n.rng.UnmarshalBinary(ns.RNG); err != nil {
		return nil, fmt.Errorf("network: %s: rng state: %w", name, err)
	}
	n.shuffle = rand.New(&n.rng)
	return n, nil
}

// Model returns the model being trained.
func (n *Learner[S]) Model() *model.Model { return n.tr.Model() }

// Config returns the network's learner settings, with the defaults
// filled in.
func (n *Learner[S]) Config() LearnerConfig { return n.cfg }

// CheckAlgorithm returns an error if the model lacks a head that alg
// reads.
func (n *Learner[S]) CheckAlgorithm(alg search.Algorithm) error {
	mc := n.Model().Config()
	if missing := model.HeadsFor(alg) &^ mc.Heads; missing != 0 {
		return fmt.Errorf("%s reads a %v output, which the %s model lacks", alg.Name(), missing, mc.Heads)
	}
	return nil
}

// Learn takes the passes of an update on the trajectories of batch. It
// checks ctx before each optimiser step: if ctx is done before the update
// ends, Learn puts the weights, the optimiser's state and the generator
// back as they were before it, and returns ctx's error, so that the
// update taken again gives the same network. (It keeps a copy of the
// weights and of the optimiser's state for that.)
func (n *Learner[S]) Learn(ctx context.Context, batch []bootstrap.Solution[S]) (bootstrap.Update, error) {
	if err := ctx.Err(); err != nil {
		return bootstrap.Update{}, err
	}
	n.samples = n.samples[:0]
	for _, s := range batch {
		if len(s.Trajectory.Actions) == 0 {
			continue // solved at its root: no action to learn from
		}
		x, err := sample(s.Problem, s.Trajectory)
		if err != nil {
			return bootstrap.Update{}, err
		}
		n.samples = append(n.samples, x)
	}
	n.tr.CopyState(&n.before)
	rng := n.rng
	var u bootstrap.Update
	for range n.cfg.Passes {
		n.shuffle.Shuffle(len(n.samples), func(i, j int) { n.samples[i], n.samples[j] = n.samples[j], n.samples[i] })
		for batch := range slices.Chunk(n.samples, n.cfg.StepTrajectories) {
			if err := ctx.Err(); err != nil {
				n.tr.RestoreState(&n.before)
				n.rng = rng
				return bootstrap.Update{}, err
			}
			l, err := n.tr.StepBatch(batch)
			if err != nil {
				return u, err
			}
			u.Steps++
			u.PolicyLoss += l.Policy
			u.HeuristicLoss += l.Heuristic
		}
	}
	return u, nil
}

// Snapshot returns a copy of the model.
func (n *Learner[S]) Snapshot() bootstrap.Snapshot[S] { return snapshot[S]{n.Model().Clone()} }

// Save writes the model and the optimiser as model.Trainer.Save does, and
// the settings and the state of the shuffling to learner.json.
func (n *Learner[S]) Save(dir string) error {
	if err := n.tr.Save(dir); err != nil {
		return err
	}
	rng, err := n.rng.MarshalBinary()
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(learnerState{Config: n.cfg, RNG: rng}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, learnerFile), append(b, '\n'))
}

// DecodeSnapshot returns the snapshot of a Learner that its MarshalBinary
// wrote to b: the decoder of the workers of a network's run.
func DecodeSnapshot[S comparable](b []byte) (bootstrap.Snapshot[S], error) {
	m, err := model.UnmarshalModel(b)
	if err != nil {
		return nil, err
	}
	return snapshot[S]{m}, nil
}

// A snapshot is a copy of a network that nothing changes.
type snapshot[S comparable] struct{ m *model.Model }

func (s snapshot[S]) NewEvaluator() search.Evaluator[S] { return model.NewEvaluator[S](s.m) }

func (s snapshot[S]) MarshalBinary() ([]byte, error) { return model.MarshalModel(s.m) }

// sample turns a solution trajectory into a training sample.
func sample[S comparable](p search.Problem[S], t *search.Trajectory[S]) (model.Sample, error) {
	enc, ok := p.(search.Encoder[S])
	if !ok {
		return model.Sample{}, errors.New("the problem has no network encoding")
	}
	c, h, w := enc.InputShape()
	size := c * h * w
	n := len(t.States)
	s := model.Sample{
		Inputs:     make([]float32, n*size),
		Actions:    t.Actions,
		CostToGo:   make([]float32, n),
		Expansions: t.Expansions,
	}
	for i, x := range t.States {
		enc.Encode(x, s.Inputs[i*size:(i+1)*size])
		s.CostToGo[i] = float32(t.CostToGo(i))
	}
	return s, nil
}
