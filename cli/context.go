package cli

import (
	"flag"
	"fmt"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// learnerContext is the name of the kind of learner of the context
// models of LTS+CM (package cm).
const learnerContext = "context"

// contextKind describes the context models' kind of learner.
var contextKind = LearnerKind{
	Name: learnerContext, Noun: "a context model",
	Usage: "a context model of LTS+CM, for levints, in a domain with contexts",
	Flags: func(fs *flag.FlagSet) LearnerSettings {
		s := new(contextSettings)
		s.register(fs)
		return s
	},
}

// contextSettings are what the flags of a context model's learner set.
type contextSettings struct{ cm.LearnerConfig }

func (s *contextSettings) register(fs *flag.FlagSet) {
	fs.Float64Var(&s.EpsLow, "cm-eps-low", 0, fmt.Sprintf("context model: εlow in (0, 1), the parameters lie in [ln εlow, 0] (0: the library's, %g)", cm.DefaultEpsLow))
	fs.Float64Var(&s.Lambda, "cm-lambda", 0, "context model: weight λ > 0 of the regulariser (0: the library's, 10)")
	fs.IntVar(&s.MaxSteps, "cm-steps", 0, "context model: most optimiser steps of an update (0: the library's, 200)")
	fs.Float64Var(&s.Growth, "cm-growth", 1, "context model: an update optimises only once the solutions new or replaced since the last optimisation are at least G times those it covered (0: at every update)")
	fs.IntVar(&s.Bits, "cm-bits", 0, "context model: keep the parameters quantised to B = 8 or 16 bits on a grid per mutex set after each optimisation, and the checkpoints and snapshots in the compact form, exactly: B/8 bytes a parameter and about 2 a row instead of 8 and 12 (0: exact float64)")
}

// Validate checks the settings as cm.NewLearner does.
func (s *contextSettings) Validate() error {
	// Any layout: the settings do not depend on it.
	_, err := cm.NewLearner[int](cm.Layout{Name: "check", Actions: 1, Sizes: []uint64{1}}, s.LearnerConfig)
	return err
}

// Algorithm returns LevinTS, which reads a policy alone.
func (s *contextSettings) Algorithm(string) (search.Algorithm, error) { return search.LevinTS(), nil }

// Defaults mixes the uniform policy into the training searches' as the
// reference does (cm.DefaultTrainMix), if alg reads a policy (Check
// refuses the others).
func (s *contextSettings) Defaults(alg search.Algorithm, o *search.Options) {
	if o.Mix == 0 && alg.NeedsPolicy() {
		o.Mix = cm.DefaultTrainMix
	}
}

// Check refuses a -model that is no context model, and an algorithm
// that reads a heuristic or no policy.
func (s *contextSettings) Check(run *LearnerRun) error {
	alg := run.Algorithm
	if _, ok := cm.FindTable(run.Model); run.Model != "" && !ok {
		return fmt.Errorf("-model %s: not a context model (its table file, or the run or directory that holds one)", run.Model)
	}
	switch {
	case model.HeadsFor(alg)&model.Heuristic != 0:
		return fmt.Errorf("-alg %s: %s reads a heuristic, and a context model has none (levints reads its policy alone)", alg, alg.Name())
	case !alg.NeedsPolicy():
		return fmt.Errorf("-alg %s: %s reads no policy, and a context model gives nothing else (levints reads its policy alone)", alg, alg.Name())
	}
	return nil
}

// contextLearner is the context models' kind of learner for states of
// type S.
type contextLearner[S comparable] struct{}

func (contextLearner[S]) Kind() LearnerKind { return contextKind }

func (contextLearner[S]) Check(domain string, p search.Problem[S]) error {
	if _, ok := p.(cm.Contexter[S]); !ok {
		return fmt.Errorf("-learner context: the %s domain has no contexts (cm.Contexter)", domain)
	}
	return nil
}

// New returns the context model of a new run for tasks: empty, of the
// layout of their first problem (bootstrap.Train refuses the problems of
// another, naming them), or the table of -model, whose εlow it keeps
// unless -cm-eps-low says otherwise.
func (contextLearner[S]) New(settings LearnerSettings, run *LearnerRun, tasks []search.Task[S]) (bootstrap.Learner[S], error) {
	c := settings.(*contextSettings).LearnerConfig
	c.Threads = run.Threads
	if run.Model == "" {
		layout, err := cm.LayoutOf(tasks[0].Problem)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tasks[0].ID, err)
		}
		l, err := cm.NewLearner[S](layout, c)
		if err != nil {
			return nil, err
		}
		return l, nil
	}
	file, _ := cm.FindTable(run.Model)
	t, err := cm.ReadTable(file)
	if err != nil {
		return nil, fmt.Errorf("-model: %w", err)
	}
	warnNoDigest(run.Logger, file, t.NoDigest())
	if err := cm.NewEvaluator[S](t).Check(tasks[0].Problem); err != nil {
		return nil, fmt.Errorf("-model %s: %s: %w", run.Model, tasks[0].ID, err)
	}
	if c.EpsLow == 0 {
		c.EpsLow = t.EpsLow()
	}
	l, err := cm.NewLearnerFrom[S](t, c)
	if err != nil {
		return nil, fmt.Errorf("-model %s: %w", run.Model, err)
	}
	return l, nil
}

// Load loads the learner of the checkpoint dir of the run of tasks.
func (contextLearner[S]) Load(run *LearnerRun, dir string, tasks []search.Task[S]) (bootstrap.Learner[S], error) {
	l, err := cm.LoadLearner(dir, run.Threads, tasks...)
	if err != nil {
		return nil, err
	}
	warnNoDigest(run.Logger, dir, l.NoDigest())
	return l, nil
}

func (contextLearner[S]) Decode(b []byte) (bootstrap.Snapshot[S], error) {
	return cm.DecodeSnapshot[S](b)
}
