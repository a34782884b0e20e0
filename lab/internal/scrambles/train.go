// Command scrambles trains a Rubik's cube network without search, on
// random scrambles read backwards: a scramble of k quarter turns from the
// solved cube, undone turn by turn, is a solution of k moves of the cube
// it makes, and each of its states is a training example for the
// policy (the turn that undoes the scramble's turn into it) and for the
// heuristic (the turns left or, with -davi, DeepCubeA's approximate value
// iteration: min over the 12 turns of 1 + h of the child, h a target
// network's that copies the trained weights every -sync steps; with
// -greedy too, the policy learns the turn that value iteration picks, not
// the undoing turn). The losses are the model's (model.Trainer), at
// weight 1 a scramble:
//
//	scrambles -out DIR [-model DIR | -alg phsstar -units 256 -blocks 4] [-min 1] [-max 20] [-n 512] [-step 32] [-lr 1e-3] [-davi [-sync 500] [-greedy]] [-time 10m] [-rounds 0] [-seed 1] [-threads 1]
//
// Each round draws -n scrambles of lengths uniform in [-min, -max] (no
// turn undoes the one before it, rubiks.Scramble) and learns them in
// steps of -step scrambles. The network is written to DIR after every
// -save of training and at the end (-time, -rounds, or an interrupt);
// -model DIR goes on from it (Adam's moments start again from zero; the
// rounds' scrambles come from -seed, so give another one). A record a
// round goes to standard error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/phs-go/phs/domain/rubiks"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "scrambles:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("scrambles", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "the directory of the trained network (required)")
	from := fs.String("model", "", "a network to go on from (default: a fresh one of -alg, -units, -blocks)")
	algName := fs.String("alg", "phsstar", "the algorithm of a fresh network, which sets its heads")
	units := fs.Int("units", 256, "a fresh network's units a layer")
	blocks := fs.Int("blocks", 4, "a fresh network's residual blocks")
	minLen := fs.Int("min", 1, "the shortest scramble, in turns (≥ 1)")
	maxLen := fs.Int("max", 20, "the longest scramble, in turns (≥ -min, ≤ 1000)")
	n := fs.Int("n", 512, "scrambles a round (≥ -step; rounded down to a multiple of it)")
	step := fs.Int("step", 32, "scrambles an optimiser step (≥ 1)")
	lr := fs.Float64("lr", 1e-3, "Adam's learning rate (> 0)")
	limit := fs.Duration("time", 10*time.Minute, "training time (> 0)")
	rounds := fs.Int("rounds", 0, "stop after this many rounds (0: no limit)")
	save := fs.Duration("save", 5*time.Minute, "the longest time between two writes of the network (> 0)")
	seed := fs.Uint64("seed", 1, "seed of the scrambles and of a fresh network")
	davi := fs.Bool("davi", false, "learn h by approximate value iteration (DeepCubeA's DAVI) against a target network, not the turns left")
	greedy := fs.Bool("greedy", false, "with -davi, the policy learns the turn to the child of least h by the target network (the undoing turn on ties), not the undoing turn")
	sync := fs.Int("sync", 500, "with -davi, optimiser steps between two copies of the weights to the target network (≥ 1)")
	threads := fs.Int("threads", 1, fmt.Sprintf("goroutines of a step, 1 to %d", model.MaxThreads))
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case *out == "":
		return errors.New("-out is required")
	case *minLen < 1 || *maxLen < *minLen || *maxLen > 1000:
		return fmt.Errorf("-min %d -max %d; want 1 ≤ min ≤ max ≤ 1000", *minLen, *maxLen)
	case *step < 1 || *n < *step:
		return fmt.Errorf("-n %d -step %d; want 1 ≤ step ≤ n", *n, *step)
	case !(*lr > 0):
		return fmt.Errorf("-lr %g; want > 0", *lr)
	case *limit <= 0 || *save <= 0 || *rounds < 0:
		return fmt.Errorf("-time %v -save %v -rounds %d; want time and save > 0, rounds ≥ 0", *limit, *save, *rounds)
	case *sync < 1:
		return fmt.Errorf("-sync %d; want ≥ 1", *sync)
	case *greedy && !*davi:
		return errors.New("-greedy needs -davi")
	case *threads < 1 || *threads > model.MaxThreads:
		return fmt.Errorf("-threads %d; want 1 to %d", *threads, model.MaxThreads)
	}
	m, err := network(*from, *algName, *units, *blocks, *seed)
	if err != nil {
		return err
	}
	if *davi && m.Config().Heads&model.Heuristic == 0 {
		return fmt.Errorf("-davi learns h, and the network has no heuristic head (%v)", m.Config().Algorithm)
	}
	tr := newTrainer(m, *step, *sync, *threads, *lr, *davi, *greedy)
	rng := rand.New(rand.NewPCG(*seed, 0x736372616d626c65))
	begin, saved := time.Now(), time.Now()
	var states int64
	for round := 1; ; round++ {
		var l model.Losses
		for range *n / *step {
			scr := make([][]int, *step)
			for i := range scr {
				scr[i] = rubiks.Scramble(rng, *minLen, *maxLen)
				states += int64(len(scr[i]))
			}
			li, err := tr.step(scr)
			if err != nil {
				return err
			}
			l.Policy, l.Heuristic = l.Policy+li.Policy, l.Heuristic+li.Heuristic
		}
		steps := float64(*n / *step)
		fmt.Fprintf(stderr, "scrambles: round %d: %d states, policy loss %.4f, heuristic loss %.4f, %s\n",
			round, states, l.Policy/steps, l.Heuristic/steps, time.Since(begin).Round(time.Second))
		stopped := ctx.Err() != nil || time.Since(begin) >= *limit || round == *rounds
		if stopped || time.Since(saved) >= *save {
			if err := model.Save(*out, m); err != nil {
				return err
			}
			saved = time.Now()
		}
		if stopped {
			fmt.Fprintf(stderr, "scrambles: %d states in %s; network in %s\n", states, time.Since(begin).Round(time.Second), *out)
			return nil
		}
	}
}

// A trainer takes the optimiser steps of scrambles.
type trainer struct {
	t       *model.Trainer
	size    int // values of an encoded cube
	davi    bool
	greedy  bool // with davi, the policy learns bellman's turns
	sync    int  // steps between two copies of the weights to target
	target  *model.Model
	eval    *model.Evaluator[rubiks.State]
	cube    *rubiks.Problem // the problem given to the evaluator and Encode
	samples []model.Sample
	// The children of a step's states, their policies and heuristics.
	children    []rubiks.State
	logPi, hVal []float64
}

func newTrainer(m *model.Model, step, sync, threads int, lr float64, davi, greedy bool) *trainer {
	c := m.Config()
	cube, _ := rubiks.NewState(rubiks.Solved(), "") // the solved cube is legal
	t := &trainer{t: model.NewTrainer(m, model.TrainConfig{LearningRate: lr, Threads: threads}), size: c.Channels * c.Height * c.Width,
		davi: davi, greedy: greedy, sync: sync, cube: cube, samples: make([]model.Sample, step)}
	if davi {
		t.target = m.Clone()
		t.eval = model.NewEvaluator[rubiks.State](t.target)
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
// the target network's and 0 at the solved cube, and, unless turns is
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
