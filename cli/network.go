package cli

import (
	"flag"
	"fmt"
	"log/slog"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/network"
	"github.com/phs-go/phs/search"
)

// learnerNetwork is the name of the kind of learner of the paper's
// networks (package network), the default of -learner.
const learnerNetwork = "network"

// networkKind describes the networks' kind of learner.
var networkKind = LearnerKind{
	Name: learnerNetwork, Noun: "a network", Usage: "the paper's neural network",
	Flags: func(fs *flag.FlagSet) LearnerSettings {
		s := &networkSettings{fs: fs}
		s.register(fs)
		return s
	},
}

// networkSettings are what the flags of a network's learner set: its
// network.LearnerConfig, and the architecture of a fresh network.
type networkSettings struct {
	learner network.LearnerConfig
	arch    model.Config // Arch, Units, Blocks, Filters and Hidden
	floor   bool         // model.Config.Floor
	fs      *flag.FlagSet
}

// networkSizes are the flags that set the architecture of a fresh
// network.
var networkSizes = []string{"arch", "units", "blocks", "filters", "hidden"}

func (s *networkSettings) register(fs *flag.FlagSet) {
	fs.Uint64Var(&s.learner.Seed, "seed", 1, "seed of the network's initialisation and of the updates")
	fs.Float64Var(&s.learner.LearningRate, "lr", 0, "Adam learning rate (0: the library's, 1e-4)")
	fs.Float64Var(&s.learner.L2, "l2", 0, "L2 regularisation weight")
	fs.IntVar(&s.learner.Passes, "passes", 0, "passes over an update's trajectories (0: the library's, 10)")
	fs.IntVar(&s.learner.StepTrajectories, "step-trajectories", 0, "trajectories per optimiser step (0: the library's, 1: one step per trajectory, the paper)")
	fs.BoolVar(&s.floor, "floor", false, "floor the network's heuristic at the problems' own, a lower bound such as stp's Manhattan distance or rubiks's pattern database: the searches of training, and those with the network saved, read max(h of the network, h of the problem)")
	registerArch(fs, &s.arch)
}

// registerArch registers the flags of the architecture of a fresh
// network on fs, bound into c.
func registerArch(fs *flag.FlagSet, c *model.Config) {
	fs.TextVar(&c.Arch, "arch", model.Conv, "architecture of a fresh network: conv (the paper's convolutions over the input image) or resnet (a fully connected residual network, for inputs that are no image or too small for the convolutions, such as rubiks); the network saved records it")
	fs.IntVar(&c.Units, "units", 0, fmt.Sprintf("resnet: units of each layer of the trunk (0: the library's, %d)", model.DefaultUnits))
	fs.IntVar(&c.Filters, "filters", 0, fmt.Sprintf("conv: filters of each convolution (0: the library's, %d)", model.DefaultFilters))
	fs.IntVar(&c.Hidden, "hidden", 0, fmt.Sprintf("units of the hidden layer of each head (0: the library's, %d)", model.DefaultHidden))
	fs.IntVar(&c.Blocks, "blocks", 0, fmt.Sprintf("resnet: residual blocks of the trunk, up to %d (0: the library's, %d)", model.MaxBlocks, model.DefaultBlocks))
}

func (s *networkSettings) Validate() error { return s.learner.Validate() }

// Algorithm returns PHSh for a fresh network, else the algorithm of the
// network of model.
func (s *networkSettings) Algorithm(model string) (search.Algorithm, error) {
	if model == "" {
		return search.PHSh(), nil
	}
	m, err := loadModel(model)
	if err != nil {
		return search.Algorithm{}, fmt.Errorf("-model: %w", err)
	}
	return m.Config().Algorithm, nil
}

// Defaults leaves o as it is: a network's searches mix nothing unless
// told to.
func (s *networkSettings) Defaults(search.Algorithm, *search.Options) {}

// Check refuses the architecture flags with -model, whose network has
// its own.
func (s *networkSettings) Check(run *LearnerRun) error {
	if s.floor && model.HeadsFor(run.Algorithm)&model.Heuristic == 0 {
		return fmt.Errorf("-floor: %s reads no heuristic", run.Algorithm)
	}
	if run.Model == "" {
		return nil
	}
	var set string
	s.fs.Visit(func(f *flag.Flag) {
		for _, name := range networkSizes {
			if f.Name == name {
				set += " -" + name
			}
		}
	})
	if set != "" {
		return fmt.Errorf("%s: the network comes from -model %s, with its architecture", set[1:], run.Model)
	}
	return nil
}

// architecture returns want with the architecture of the flags, or a
// usage error that names the flag (-arch, -units, -blocks, -filters,
// -hidden) whose value the library refuses (model.Config.Validate) for
// the network want describes.
func (s *networkSettings) architecture(want model.Config) (model.Config, error) {
	want.Arch = s.arch.Arch
	if err := want.Validate(); err != nil {
		return want, usagef("-arch %s: %v", s.arch.Arch, err)
	}
	fresh := func(fs *flag.FlagSet) *model.Config {
		c := want
		registerArch(fs, &c)
		return &c
	}
	want.Units, want.Blocks, want.Filters, want.Hidden = s.arch.Units, s.arch.Blocks, s.arch.Filters, s.arch.Hidden
	if err := blame(s.fs, &want, fresh, (*model.Config).Validate, "arch"); err != nil {
		return want, err
	}
	return want, nil
}

// networkLearner is the networks' kind of learner for states of type S.
type networkLearner[S comparable] struct{}

func (networkLearner[S]) Kind() LearnerKind { return networkKind }

func (networkLearner[S]) Check(domain string, p search.Problem[S]) error {
	if _, ok := p.(search.Encoder[S]); !ok {
		return fmt.Errorf("the %s domain has no network encoding (search.Encoder)", domain)
	}
	return nil
}

// New returns the learner of a fresh network of the settings'
// architecture, or of the network of -model, which must fit the run's
// problems and algorithm (initModel).
func (networkLearner[S]) New(settings LearnerSettings, run *LearnerRun, tasks []search.Task[S]) (bootstrap.Learner[S], error) {
	s := settings.(*networkSettings)
	enc, ok := tasks[0].Problem.(search.Encoder[S])
	if !ok {
		return nil, fmt.Errorf("%s problems have no network encoding", run.Domain)
	}
	want := model.ConfigFor(run.Domain, run.Algorithm, enc)
	want.PruneDeadlocks, want.Search, want.Floor = run.PruneDeadlocks, run.Options, s.floor
	want.Search.Timeout, want.Search.MaxMemory = 0, 0 // the machine's
	var net *model.Model
	var err error
	if run.Model != "" {
		net, err = initModel(run.Model, want, run.Logger)
	} else if want, err = s.architecture(want); err == nil {
		if net, err = model.New(want, s.learner.Seed); err != nil {
			err = fmt.Errorf("the network for %s problems: %w", run.Domain, err)
		}
	}
	if err != nil {
		return nil, err
	}
	if err := model.NewEvaluator[S](net).Check(tasks[0].Problem); err != nil {
		return nil, err
	}
	l, err := network.NewLearner[S](net, s.learner, run.Threads)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Load loads the learner of the checkpoint dir, whose network must be
// one of the run's domain.
func (networkLearner[S]) Load(run *LearnerRun, dir string, _ []search.Task[S]) (bootstrap.Learner[S], error) {
	l, err := network.LoadLearner[S](dir, run.Threads)
	if err != nil {
		return nil, err
	}
	if d := l.Model().Config().Domain; d != run.Domain {
		return nil, fmt.Errorf("the checkpoint %s is a %s model; %s says %s", dir, d, runFile, run.Domain)
	}
	warnNoDigest(run.Logger, dir, l.Model().NoDigest())
	return l, nil
}

func (networkLearner[S]) Decode(b []byte) (bootstrap.Snapshot[S], error) {
	return network.DecodeSnapshot[S](b)
}

// initModel returns the model of -model at path, a model or run directory,
// after checking that it is a network for want's domain, with its heads,
// losses and input and output shapes; its layers' sizes may differ from
// want's. The model returned has want's Algorithm, PruneDeadlocks, Floor,
// Search and ShortenFound, not its own (a network trained with WA* may go
// on with beam search, which reads the same head, and a temperature or a
// pass after the search chosen for that network need not suit the new
// one), and no Meta, which describes that network. It warns on log of files without a digest.
func initModel(path string, want model.Config, log *slog.Logger) (*model.Model, error) {
	m, err := loadModel(path)
	if err != nil {
		return nil, fmt.Errorf("-model: %w", err)
	}
	warnNoDigest(log, path, m.NoDigest())
	got := m.Config()
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"domain", got.Domain, want.Domain},
		{"heads", got.Heads, want.Heads},
		{"policy loss", got.PolicyLoss, want.PolicyLoss},
		{"heuristic loss", got.HeuristicLoss, want.HeuristicLoss},
		{"input shape", [3]int{got.Channels, got.Height, got.Width}, [3]int{want.Channels, want.Height, want.Width}},
		{"actions", got.Actions, want.Actions},
	} {
		if f.got != f.want {
			return nil, fmt.Errorf("-model %s: a network with %s %v; the run needs %v", path, f.name, f.got, f.want)
		}
	}
	if got.Algorithm != want.Algorithm || got.PruneDeadlocks != want.PruneDeadlocks || got.Floor != want.Floor || got.Search != want.Search ||
		got.ShortenFound != want.ShortenFound || got.Meta != nil {
		got.Algorithm, got.PruneDeadlocks, got.Floor, got.Search, got.ShortenFound, got.Meta = want.Algorithm, want.PruneDeadlocks, want.Floor, want.Search, want.ShortenFound, nil
		if m, err = withConfig(m, got); err != nil {
			return nil, fmt.Errorf("-model %s: %w", path, err)
		}
	}
	return m, nil
}
