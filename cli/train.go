package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/cluster"
	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/internal/atomicfile"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/network"
	"github.com/phs-go/phs/nn"
	"github.com/phs-go/phs/search"
)

// trainConfig holds the flags of "phs train". run.json, in the run
// directory, keeps the settings that package bootstrap does not know (the
// fields with a JSON name), its paths relative to the run directory
// (writeRunFile); the run's checkpoint keeps the others, its
// bootstrap.Config and its learner's settings, from which -resume reads
// them (setFrom).
type trainConfig struct {
	Domain string `json:"domain"`
	// Learner is the kind of learner the run trains: learnerNetwork or
	// learnerContext. (A run.json of an earlier phs lacks it: see
	// checkpointLearner.)
	Learner string    `json:"learner,omitempty"`
	Alg     string    `json:"-"`
	W       paramFlag `json:"-"`
	C       paramFlag `json:"-"`
	// Files are the files of the training problems, as paths from the
	// working directory; run.json records them relative to the run
	// directory (as ValidFiles and Init).
	Files []string `json:"files"`
	// ValidFiles are the files of the validation problems (-valid), and
	// ValidTarget the fraction of them to solve (-valid-target).
	ValidFiles      []string           `json:"valid_files,omitempty"`
	ValidTarget     float64            `json:"-"`
	Budget          int64              `json:"-"`
	Schedule        bootstrap.Schedule `json:"-"`
	PerUpdate       int                `json:"-"`
	Passes          int                `json:"-"`
	StepTrajs       int                `json:"-"`
	SkipSolvedAfter int                `json:"-"`
	Batch           int                `json:"-"`
	Renormalize     bool               `json:"-"`
	Temperature     float64            `json:"-"`
	Mix             float64            `json:"-"`
	GoalTest        search.GoalTest    `json:"-"`
	PruneDeadlocks  bool               `json:"prune_deadlocks,omitempty"`
	Seed            uint64             `json:"-"`
	LearningRate    float64            `json:"-"`
	L2              float64            `json:"-"`
	Iterations      int                `json:"-"`
	TimeLimit       duration           `json:"-"`
	Async           bool               `json:"-"`
	// CM is the settings of a context model's learner (-cm-*).
	CM cm.LearnerConfig `json:"-"`
	// Init is the model the run started from (-model), if not a fresh
	// network or an empty context model.
	Init string `json:"init,omitempty"`
	// CheckpointEvery is -checkpoint, kept for -resume unless given again.
	CheckpointEvery duration `json:"checkpoint_every,omitempty"`
	// Arch, Units, Blocks, Filters and Hidden are the architecture of a
	// fresh network; the network records them.
	Arch                           model.Arch `json:"-"`
	Units, Blocks, Filters, Hidden int        `json:"-"`

	// run is, on -resume, the configuration of the run's checkpoint.
	run *bootstrap.Config
	// validProblems is the number of problems of ValidFiles, once read.
	validProblems int

	// Not saved: they may differ between resumptions.
	dir            string
	flags          runFlags // -workers, -memory, -progress, -log
	learnerThreads int
	log            *slog.Logger  // set by check
	fs             *flag.FlagSet // the flags, for blame
	// Training over NATS: the address the embedded server listens on, or
	// the URL of a server, with the files of the learner's credentials
	// and the options they make (natsAuth); the acknowledgement wait of a
	// job.
	listen, natsURL, nkeyFile, tokenFile string
	natsAuth                             []nats.Option
	ackWait                              time.Duration
	cpuProfile                           string // file of a CPU profile of the training
}

const runFile = "run.json"

// A duration is the time.Duration of -time and -checkpoint, spelled as
// time.Duration.String does in run.json ("5m0s").
type duration time.Duration

func (d duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

func (d *duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = duration(v)
	return err
}

// trainGroups are the groups of shared flags that train has.
const trainGroups = searchFlags | workerFlags | networkFlags

func runTrain(ctx context.Context, e *env, args []string) error {
	var f runFlags
	var cfg trainConfig
	var resume string
	fs := newFlagSet("train", "FILES...\n       phs train -resume RUN [flags] [FILES...]", e.stdout)
	f.register(fs, trainGroups, e.names)
	fs.TextVar(&cfg.Schedule, "schedule", bootstrap.Schedule{}, "budget schedule: double:G multiplies the budget by G > 1 after an iteration that solved no new problem (the paper: double:2); ltscm:F is libpolicyts's LTS_CM schedule with bootstrap factor F (ltscm: F = 0.1); ltscm-ref:A,M,R is LTS+CM's own rule (ltscm-ref: 2,8,1.25); the last two need -skip-solved 0")
	fs.IntVar(&cfg.PerUpdate, "update-every", 0, "problems attempted between parameter updates (0: the library's, 32)")
	fs.IntVar(&cfg.Passes, "passes", 0, "passes over an update's trajectories (0: the library's, 10)")
	fs.IntVar(&cfg.StepTrajs, "step-trajectories", 0, "trajectories per optimiser step (0: the library's, 1: one step per trajectory, the paper)")
	fs.IntVar(&cfg.SkipSolvedAfter, "skip-solved", 0, "skip problems solved in each of the last K iterations (0: attempt all, the paper)")
	fs.StringVar(&cfg.Learner, "learner", learnerNetwork, "what the run trains: network (the paper's neural network) or context (a context model of LTS+CM, for levints, in a domain with contexts)")
	fs.Float64Var(&cfg.CM.Mix, "cm-mix", 0, fmt.Sprintf("context model: weight of the uniform policy in the training searches' policy, in (0, 1) (0: the library's, %g)", cm.DefaultTrainMix))
	fs.Float64Var(&cfg.CM.EpsLow, "cm-eps-low", 0, fmt.Sprintf("context model: εlow in (0, 1), the parameters lie in [ln εlow, 0] (0: the library's, %g)", cm.DefaultEpsLow))
	fs.Float64Var(&cfg.CM.Lambda, "cm-lambda", 0, "context model: weight λ > 0 of the regulariser (0: the library's, 10)")
	fs.IntVar(&cfg.CM.MaxSteps, "cm-steps", 0, "context model: most optimiser steps of an update (0: the library's, 200)")
	fs.Float64Var(&cfg.CM.Growth, "cm-growth", 1, "context model: an update optimises only once the solutions new or replaced since the last optimisation are at least G times those it covered (0: at every update)")
	fs.IntVar(&cfg.CM.Bits, "cm-bits", 0, "context model: keep the parameters quantised to B = 8 or 16 bits on a grid per mutex set after each optimisation, and the checkpoints and snapshots in the compact form, exactly: B/8 bytes a parameter and about 2 a row instead of 8 and 12 (0: exact float64)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the network's initialisation and of the updates")
	fs.Float64Var(&cfg.LearningRate, "lr", 0, "Adam learning rate (0: the library's, 1e-4)")
	fs.Float64Var(&cfg.L2, "l2", 0, "L2 regularisation weight")
	fs.Var((*filesFlag)(&cfg.ValidFiles), "valid", "a file of validation problems, which training never learns from; repeat it for more files. After each iteration those never solved are searched, and once -valid-target of them were solved, one more iteration ends training. With -resume, the run's validation files, when they moved")
	fs.Float64Var(&cfg.ValidTarget, "valid-target", 0.95, "with -valid, the fraction of the validation problems to solve, in (0, 1]")
	fs.IntVar(&cfg.Iterations, "iterations", 0, "stop after this many Bootstrap iterations (0: no limit)")
	fs.Var(durationFlag{&cfg.TimeLimit}, "time", "stop after this much training time in all, such as 2h, the searches and the update under way at once, with a checkpoint (0: no limit). The time of every session counts: with -resume, -time replaces the run's limit, so a run that trained 5h (the wall_s of its metrics.csv) goes on for a session of 3h with -time 8h")
	fs.StringVar(&cfg.dir, "dir", "", "run directory for checkpoints and metrics (required unless -resume)")
	fs.StringVar(&resume, "resume", "", "continue the run in this directory where it stopped, with the settings of its checkpoint and the problem files of its run.json, which names them relative to the run directory; FILES (and -valid) give them anew if they moved: the checkpoint checks that they are the same problems. The limits (-iterations, -time) and the settings that do not change the results (-workers, -checkpoint, -learner-threads, -progress, -log, ...) may change")
	fs.IntVar(&cfg.learnerThreads, "learner-threads", 0, fmt.Sprintf("threads of the learner's steps: a network's, each over at least 48 states, for -step-trajectories above 1; a context model's, each over at least 4,096 solution steps; up to %d (0: the library's, 1)", model.MaxThreads))
	fs.BoolVar(&cfg.Async, "async", false, "asynchronous training: the workers search on while the learner updates (default: the paper's synchronous procedure)")
	fs.StringVar(&cfg.listen, "listen", "", "serve the run over NATS on this address, such as :4222, for \"phs worker\" processes (implies -async; -workers: their searches in all)")
	fs.StringVar(&cfg.natsURL, "nats", "", "serve the run on the NATS server at this URL instead of an embedded one (implies -async)")
	fs.StringVar(&cfg.nkeyFile, "nkey", "", "with -nats, file of the learner's NATS nkey seed (-listen makes the run's own: the workers' in RUN/nats/worker.nk)")
	fs.StringVar(&cfg.tokenFile, "token-file", "", "with -nats, file whose first line is the token the NATS server requires (in place of -nkey)")
	fs.DurationVar(&cfg.ackWait, "ack-wait", 30*time.Second, "with -listen or -nats, how long a worker may go silent before its problem goes to another")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of the training to this file (go tool pprof)")
	fs.Var(durationFlag{&cfg.CheckpointEvery}, "checkpoint", "longest time between checkpoints, kept on -resume (0: the library's, 5m)")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	nats := cfg.listen != "" || cfg.natsURL != ""
	if nats {
		cfg.Async = true
	}
	if err := f.check("train", trainGroups, nats); err != nil {
		return err
	}
	cfg.setFlags(&f)
	cfg.fs = fs
	if resume != "" {
		return resumeTrain(ctx, e, resume, fs, files, &cfg)
	}
	if cfg.dir == "" {
		return usagef("train: -dir is required")
	}
	if _, err := os.Stat(filepath.Join(cfg.dir, runFile)); err == nil {
		return usagef("train: %s already holds a run; use -resume %s to continue it", cfg.dir, cfg.dir)
	}
	d, err := e.domain("train", cfg.Domain)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("train: no problem files")
	}
	cfg.Files = files
	if cfg.Init == "none" {
		cfg.Init = ""
	}
	switch cfg.Learner {
	case learnerNetwork:
	case learnerContext:
		if _, ok := cm.FindTable(cfg.Init); cfg.Init != "" && !ok {
			return usagef("train: -model %s: not a context model (its table file, or the run or directory that holds one)", cfg.Init)
		}
		if cfg.Alg == "" {
			cfg.Alg = search.LevinTS().String()
		}
	default:
		return usagef("train: -learner %q: want %s or %s", cfg.Learner, learnerNetwork, learnerContext)
	}
	if cfg.Alg == "" {
		cfg.Alg = search.PHSh().String()
		if cfg.Init != "" {
			m, err := loadModel(cfg.Init)
			if err != nil {
				return fmt.Errorf("train: -model: %w", err)
			}
			cfg.Alg = m.Config().Algorithm.String()
		}
	}
	if cfg.Budget == 0 {
		cfg.Budget = d.caps().budget
	}
	if err := cfg.check(d, fs, e.stderr); err != nil {
		return err
	}
	return d.train(ctx, &cfg, false, e.stderr)
}

// setFlags sets the fields of cfg that the shared flags f give.
func (cfg *trainConfig) setFlags(f *runFlags) {
	cfg.flags = *f
	cfg.Domain, cfg.Alg, cfg.W, cfg.C, cfg.Init = f.domain, f.alg, f.w, f.c, f.modelPath
	cfg.Budget, cfg.Batch, cfg.GoalTest = f.budget, f.batch, f.goalTest
	cfg.Renormalize, cfg.Temperature, cfg.Mix, cfg.PruneDeadlocks = f.renormalize, f.temperature, f.mix, f.pruneDeadlocks
	cfg.Arch, cfg.Units, cfg.Blocks, cfg.Filters, cfg.Hidden = f.arch, f.units, f.blocks, f.filters, f.hidden
}

// relPath returns the path of file relative to directory dir, with
// slashes, as run.json records it: the path from which resolvePaths,
// given dir, finds file again, wherever the tree that holds both is
// moved. Where file has no path relative to dir (on another volume), it
// returns file's absolute path, with slashes.
func relPath(dir, file string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	f, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	if r, err := filepath.Rel(d, f); err == nil {
		f = r
	}
	return filepath.ToSlash(f), nil
}

// relPaths returns relPath of each of files.
func relPaths(dir string, files []string) ([]string, error) {
	var rel []string
	for _, f := range files {
		r, err := relPath(dir, f)
		if err != nil {
			return nil, err
		}
		rel = append(rel, r)
	}
	return rel, nil
}

// resolvePaths returns the paths, from the working directory, of the
// paths of run.json of run directory dir, relative to dir (or absolute,
// as earlier phs versions wrote them), or an error naming field if one
// is empty.
func resolvePaths(dir, field string, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if p == "" {
			return nil, fmt.Errorf("%s: an empty path", field)
		}
		p = filepath.FromSlash(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		out = append(out, p)
	}
	return out, nil
}

// problemFiles returns the files of the run's problems: the training
// problems', then the validation problems'.
func (cfg *trainConfig) problemFiles() []string {
	return append(cfg.Files[:len(cfg.Files):len(cfg.Files)], cfg.ValidFiles...)
}

// filesFlag is a flag.Value of a list of files, one per use of the flag.
type filesFlag []string

func (f *filesFlag) String() string { return strings.Join(*f, " ") }

func (f *filesFlag) Set(s string) error {
	if s == "" {
		return errors.New("no file")
	}
	*f = append(*f, s)
	return nil
}

// durationFlag is a flag.Value of a duration.
type durationFlag struct{ d *duration }

func (f durationFlag) String() string {
	if f.d == nil {
		return "0s"
	}
	return time.Duration(*f.d).String()
}

func (f durationFlag) Set(s string) error {
	v, err := time.ParseDuration(s)
	*f.d = duration(v)
	return err
}

// A trainSetup is a Bootstrap configuration and the settings of the
// learner of kind learner, a network's or a context model's, with the
// algorithm's parameters that -w and -c may change: what the flags of
// train set, for blame.
type trainSetup struct {
	w, c    paramFlag
	bc      bootstrap.Config
	learner string
	net     network.LearnerConfig
	cm      cm.LearnerConfig
}

// validate checks s as bootstrap.Train and network.NewLearner or
// cm.NewLearner do.
func (s trainSetup) validate() error {
	s.bc.Algorithm = withParams(s.bc.Algorithm, s.w, s.c)
	if err := s.bc.Validate(); err != nil {
		return err
	}
	if s.learner == learnerContext {
		// Any layout: the settings do not depend on it.
		_, err := cm.NewLearner[int](cm.Layout{Name: "check", Actions: 1, Sizes: []uint64{1}}, s.cm)
		return err
	}
	return s.net.Validate()
}

// settings returns the settings of the flags of cfg on a trainSetup, for
// blame.
func (cfg *trainConfig) settings() []setting[trainSetup] {
	return []setting[trainSetup]{
		{"w", func(s *trainSetup) { s.w = cfg.W }},
		{"c", func(s *trainSetup) { s.c = cfg.C }},
		{"budget", func(s *trainSetup) { s.bc.Options.Budget = cfg.Budget }},
		{"timeout", func(s *trainSetup) { s.bc.Options.Timeout = cfg.flags.timeout }},
		{"batch", func(s *trainSetup) { s.bc.Options.BatchSize = cfg.Batch }},
		{"renormalize", func(s *trainSetup) { s.bc.Options.Renormalize = cfg.Renormalize }},
		{"temperature", func(s *trainSetup) { s.bc.Options.Temperature = cfg.Temperature }},
		{"mix", func(s *trainSetup) { s.bc.Options.Mix = cfg.Mix }},
		{"goal-test", func(s *trainSetup) { s.bc.Options.GoalTest = cfg.GoalTest }},
		{"update-every", func(s *trainSetup) { s.bc.ProblemsPerUpdate = cfg.PerUpdate }},
		{"skip-solved", func(s *trainSetup) { s.bc.SkipSolvedAfter = cfg.SkipSolvedAfter }},
		{"iterations", func(s *trainSetup) { s.bc.MaxIterations = cfg.Iterations }},
		{"time", func(s *trainSetup) { s.bc.TimeLimit = time.Duration(cfg.TimeLimit) }},
		{"passes", func(s *trainSetup) { s.net.Passes = cfg.Passes }},
		{"step-trajectories", func(s *trainSetup) { s.net.StepTrajectories = cfg.StepTrajs }},
		{"lr", func(s *trainSetup) { s.net.LearningRate = cfg.LearningRate }},
		{"l2", func(s *trainSetup) { s.net.L2 = cfg.L2 }},
		{"cm-mix", func(s *trainSetup) { s.cm.Mix = cfg.CM.Mix }},
		{"cm-eps-low", func(s *trainSetup) { s.cm.EpsLow = cfg.CM.EpsLow }},
		{"cm-lambda", func(s *trainSetup) { s.cm.Lambda = cfg.CM.Lambda }},
		{"cm-steps", func(s *trainSetup) { s.cm.MaxSteps = cfg.CM.MaxSteps }},
		{"cm-growth", func(s *trainSetup) { s.cm.Growth = cfg.CM.Growth }},
		{"cm-bits", func(s *trainSetup) { s.cm.Bits = cfg.CM.Bits }},
	}
}

// networkOnly and contextOnly are the flags of train that only one kind
// of learner reads.
var (
	networkOnly = []string{"mix", "seed", "lr", "l2", "passes", "step-trajectories", "arch", "units", "blocks", "filters", "hidden"}
	contextOnly = []string{"cm-mix", "cm-eps-low", "cm-lambda", "cm-steps", "cm-growth", "cm-bits"}
)

// checkLearner returns a usage error if fs sets a flag that the learner
// of cfg does not read, or if the algorithm reads what a context model
// does not give (a heuristic) or does not read its policy.
func (cfg *trainConfig) checkLearner(fs *flag.FlagSet, alg search.Algorithm) error {
	other, kind := contextOnly, "a network"
	if cfg.Learner == learnerContext {
		other, kind = networkOnly, "a context model"
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && slices.Contains(other, f.Name) {
			err = usagef("train: -%s %s: -learner %s trains %s, which does not read it", f.Name, f.Value, cfg.Learner, kind)
		}
	})
	if err != nil || cfg.Learner != learnerContext {
		return err
	}
	switch {
	case model.HeadsFor(alg)&model.Heuristic != 0:
		return usagef("train: -alg %s: %s reads a heuristic, and a context model has none (levints reads its policy alone)", alg, alg.Name())
	case !alg.NeedsPolicy():
		return usagef("train: -alg %s: %s reads no policy, and a context model gives nothing else (levints reads its policy alone)", alg, alg.Name())
	}
	return nil
}

// check returns a usage error that names the first flag of cfg out of
// range for domain d, and sets the logger to stderr. The settings of a
// resumed run come from its checkpoint, which the library checks.
func (cfg *trainConfig) check(d domain, fs *flag.FlagSet, stderr io.Writer) error {
	if cfg.run == nil {
		alg, err := search.Parse(cfg.Alg)
		if err != nil {
			return usagef("train: -alg: %v", err)
		}
		// The base has the schedule, which the flag checked, so that
		// -skip-solved is blamed if the schedule excludes it.
		base := trainSetup{bc: bootstrap.Config{Algorithm: alg, Options: search.Options{Budget: d.caps().budget}, Schedule: cfg.Schedule}, learner: cfg.Learner}
		if err := blame("train", fs, base, cfg.settings(), trainSetup.validate); err != nil {
			return err
		}
		if err := checkParams("train", fs, alg); err != nil {
			return err
		}
		if err := cfg.checkLearner(fs, alg); err != nil {
			return err
		}
		if cfg.Init != "" {
			var set []string
			fs.Visit(func(f *flag.Flag) {
				if slices.Contains(networkSizes, f.Name) {
					set = append(set, "-"+f.Name)
				}
			})
			if len(set) > 0 {
				return usagef("train: %s: the network comes from -model %s, with its architecture", strings.Join(set, " "), cfg.Init)
			}
		}
	}
	switch {
	case cfg.Learner == learnerContext && !d.caps().contexts:
		return usagef("train: -learner context: the %s domain has no contexts (cm.Contexter)", cfg.Domain)
	case cfg.Learner != learnerContext && !d.caps().encoder:
		return usagef("train: the %s domain has no network encoding (search.Encoder)", cfg.Domain)
	case cfg.PruneDeadlocks && !d.caps().prunes:
		return usagef("train: -prune-deadlocks: the %s domain has no deadlock pruning", cfg.Domain)
	case cfg.learnerThreads < 0 || cfg.learnerThreads > model.MaxThreads:
		return usagef("train: -learner-threads %d: want 0 to %d (0: 1)", cfg.learnerThreads, model.MaxThreads)
	case cfg.CheckpointEvery < 0:
		return usagef("train: -checkpoint %v: want >= 0 (0: 5m)", time.Duration(cfg.CheckpointEvery))
	case cfg.ackWait <= 0:
		return usagef("train: -ack-wait %v: want > 0", cfg.ackWait)
	case cfg.run == nil && !(cfg.ValidTarget > 0 && cfg.ValidTarget <= 1):
		return usagef("train: -valid-target %g: want a fraction in (0, 1]", cfg.ValidTarget)
	case cfg.run == nil && len(cfg.ValidFiles) == 0 && isSet(fs, "valid-target"):
		return usagef("train: -valid-target without -valid")
	case cfg.listen != "" && cfg.natsURL != "":
		return usagef("train: -listen and -nats exclude each other")
	case cfg.natsURL == "" && (cfg.nkeyFile != "" || cfg.tokenFile != ""):
		return usagef("train: -nkey and -token-file are for -nats (-listen makes the run's own credentials: the workers' in RUN/%s/%s)", natsDir, workerKeyFile)
	}
	var err error
	if cfg.natsAuth, err = natsAuth(cfg.nkeyFile, cfg.tokenFile); err != nil {
		return usagef("train: %v", err)
	}
	if cfg.listen != "" {
		if err := (cluster.ServerOptions{Listen: cfg.listen}).Validate(); err != nil {
			return usagef("train: -listen: %v", err)
		}
	}
	log, err := newLogger(cfg.flags.logFormat, stderr)
	if err != nil {
		return usagef("train: %v", err)
	}
	cfg.log = log
	return nil
}

// resumeTrain continues the run in dir. Flags set on the command line may
// change the limits (-iterations, -time) and the settings that do not
// affect the results (-workers, -checkpoint, -progress) or only by float
// rounding (-learner-threads); the others come from the run. The problem
// files are those of run.json, resolved from dir, unless files (the
// training problems') and -valid (the validation problems') give them
// anew; the checkpoint checks that they hold the run's problems
// (bootstrap.Resume). run.json is left as it is.
func resumeTrain(ctx context.Context, e *env, dir string, fs *flag.FlagSet, files []string, cfg *trainConfig) error {
	name := filepath.Join(dir, runFile)
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("train: resume: %w", err)
	}
	saved := *cfg
	saved.Learner, saved.Files, saved.ValidFiles, saved.Init = "", nil, nil, ""
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&saved); err != nil {
		return fmt.Errorf("train: resume: %s: %w", name, err)
	}
	var init []string
	if saved.Init != "" {
		init = []string{saved.Init}
	}
	for _, f := range []struct {
		name  string
		paths *[]string
	}{{"files", &saved.Files}, {"valid_files", &saved.ValidFiles}, {"init", &init}} {
		if *f.paths, err = resolvePaths(dir, f.name, *f.paths); err != nil {
			return fmt.Errorf("train: resume: %s: %w", name, err)
		}
	}
	if len(init) > 0 {
		saved.Init = init[0]
	}
	if !hasCheckpoint(dir) {
		return fmt.Errorf("train: resume: %s holds no checkpoint: the run stopped as it started; remove the directory and start the run again", dir)
	}
	run, err := bootstrap.ReadConfig(dir)
	if err != nil {
		return fmt.Errorf("train: resume: %w", err)
	}
	switch saved.Learner {
	case learnerNetwork, learnerContext:
	case "":
		if saved.Learner, err = checkpointLearner(dir); err != nil {
			return fmt.Errorf("train: resume: %w", err)
		}
	default:
		return fmt.Errorf("train: resume: %s: learner %q; want %s or %s", name, saved.Learner, learnerNetwork, learnerContext)
	}
	saved.setFrom(run)
	var bad []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "iterations":
			saved.Iterations = cfg.Iterations
		case "time":
			saved.TimeLimit = cfg.TimeLimit
		case "checkpoint":
			saved.CheckpointEvery = cfg.CheckpointEvery
		case "valid":
			saved.ValidFiles = cfg.ValidFiles
		case "resume", "workers", "learner-threads", "progress", "log", "nkey", "token-file", "ack-wait", "cpuprofile":
		case "listen", "nats":
			if !saved.Async {
				bad = append(bad, "-"+f.Name+" (the run is synchronous)")
			}
		default:
			bad = append(bad, "-"+f.Name)
		}
	})
	if len(bad) > 0 {
		return usagef("train: -resume takes the run's settings from %s; cannot change %s", dir, strings.Join(bad, " "))
	}
	if len(files) > 0 {
		saved.Files = files
	}
	saved.dir = dir
	d, ok := e.domains[saved.Domain]
	if !ok {
		return fmt.Errorf("train: resume: %s: unknown domain %q", name, saved.Domain)
	}
	if err := saved.check(d, fs, e.stderr); err != nil {
		return fmt.Errorf("train: resume: %s: %w", dir, err)
	}
	return d.train(ctx, &saved, true, e.stderr)
}

// checkpointLearner returns, for a run.json of an earlier phs that does
// not name its kind of learner, the kind whose files the
// checkpoint of run directory dir holds (the one that bootstrap.Resume
// reads: checkpoint, or checkpoint.old after a crash between two
// renames): learnerContext if it has a context model's cm.json,
// learnerNetwork if it has a network's config.json. A checkpoint with
// neither is an error that names it and both files.
func checkpointLearner(dir string) (string, error) {
	cp := filepath.Join(dir, "checkpoint")
	if _, err := os.Stat(cp); errors.Is(err, os.ErrNotExist) {
		cp += ".old"
	}
	if _, err := os.Stat(filepath.Join(cp, cm.LearnerFile)); err == nil {
		return learnerContext, nil
	}
	if _, err := os.Stat(filepath.Join(cp, model.ConfigFile)); err == nil {
		return learnerNetwork, nil
	}
	return "", fmt.Errorf("%s: neither %s (a context model's settings) nor %s (a network's): the learner's files are missing", cp, cm.LearnerFile, model.ConfigFile)
}

// setFrom sets the flags of cfg that the run's configuration run holds,
// and keeps run as the configuration of the run (a view of it).
func (cfg *trainConfig) setFrom(run bootstrap.Config) {
	cfg.run = &run
	cfg.Alg, cfg.W, cfg.C = run.Algorithm.String(), paramFlag{}, paramFlag{}
	cfg.Budget, cfg.Schedule, cfg.PerUpdate, cfg.SkipSolvedAfter = run.Options.Budget, run.Schedule, run.ProblemsPerUpdate, run.SkipSolvedAfter
	cfg.Batch, cfg.Renormalize, cfg.Temperature, cfg.Mix = run.Options.BatchSize, run.Options.Renormalize, run.Options.Temperature, run.Options.Mix
	cfg.GoalTest = run.Options.GoalTest
	cfg.Iterations, cfg.TimeLimit, cfg.Async = run.MaxIterations, duration(run.TimeLimit), run.Async
}

// bootstrapConfig returns the configuration of the Bootstrap process that
// cfg describes, the one conversion of train's flags into the library's
// configuration (with network and env): on -resume, the run's, with the
// limits of cfg.
func (cfg *trainConfig) bootstrapConfig() (bootstrap.Config, error) {
	if cfg.run != nil {
		bc := *cfg.run
		bc.Limits = bootstrap.Limits{MaxIterations: cfg.Iterations, TimeLimit: time.Duration(cfg.TimeLimit)}
		return bc, nil
	}
	alg, err := search.Parse(cfg.Alg)
	if err != nil {
		return bootstrap.Config{}, err
	}
	return bootstrap.Config{
		Algorithm: withParams(alg, cfg.W, cfg.C),
		Options: search.Options{
			Budget: cfg.Budget, Timeout: cfg.flags.timeout, BatchSize: cfg.Batch, Renormalize: cfg.Renormalize,
			Temperature: cfg.Temperature, Mix: cfg.Mix, GoalTest: cfg.GoalTest, MaxMemory: cfg.flags.memoryBytes(cfg.flags.workerCount()),
		},
		Schedule:          cfg.Schedule,
		Validation:        cfg.validation(),
		ProblemsPerUpdate: cfg.PerUpdate,
		SkipSolvedAfter:   cfg.SkipSolvedAfter,
		Async:             cfg.Async,
		Limits:            bootstrap.Limits{MaxIterations: cfg.Iterations, TimeLimit: time.Duration(cfg.TimeLimit)},
	}, nil
}

// validation returns the validation of a fresh run of cfg, once its
// problems were read.
func (cfg *trainConfig) validation() bootstrap.Validation {
	if cfg.validProblems == 0 {
		return bootstrap.Validation{}
	}
	return bootstrap.Validation{Problems: cfg.validProblems, Target: cfg.ValidTarget}
}

// network returns the settings of the network that cfg trains.
func (cfg *trainConfig) network() network.LearnerConfig {
	return network.LearnerConfig{LearningRate: cfg.LearningRate, L2: cfg.L2, Passes: cfg.Passes, StepTrajectories: cfg.StepTrajs, Seed: cfg.Seed}
}

// env returns the environment of the run of cfg.
func (cfg *trainConfig) env() bootstrap.Env {
	logEvery := cfg.flags.progress
	if logEvery == 0 {
		logEvery = math.MaxInt64 // no progress records, only the iterations'
	}
	return bootstrap.Env{Workers: cfg.flags.workers, CheckpointEvery: time.Duration(cfg.CheckpointEvery), Logger: cfg.log, LogEvery: logEvery}
}

// trainTasks trains a network on tasks as cfg says: a fresh run, which
// first writes run.json, or the resumption of one (resume). A fresh run
// that fails before its first checkpoint removes the run directory it
// made.
func trainTasks[S comparable](ctx context.Context, cfg *trainConfig, tasks []search.Task[S], resume bool, stderr io.Writer) (err error) {
	if len(tasks) == 0 {
		return errors.New("train: no problems")
	}
	bc, err := cfg.bootstrapConfig()
	if err != nil {
		return err
	}
	env := cfg.env()
	// net is the network to train or, on resumption, its checkpoint's.
	var net *model.Model
	if resume && cfg.Learner == learnerNetwork {
		if net, err = loadModel(cfg.dir); err != nil {
			return fmt.Errorf("train: resume: %w", err)
		}
		if net.Config().Domain != cfg.Domain {
			return fmt.Errorf("train: resume: the checkpoint of %s is a %s model; %s says %s", cfg.dir, net.Config().Domain, runFile, cfg.Domain)
		}
	}
	if resume {
		env.Limits = &bc.Limits
	}
	if cfg.cpuProfile != "" {
		stop, perr := startCPUProfile(cfg.cpuProfile)
		if perr != nil {
			return perr
		}
		defer stop()
	}
	if !resume && cfg.Learner == learnerNetwork {
		enc, ok := tasks[0].Problem.(search.Encoder[S])
		if !ok {
			return fmt.Errorf("train: %s problems have no network encoding", cfg.Domain)
		}
		want := model.ConfigFor(cfg.Domain, bc.Algorithm, enc)
		want.PruneDeadlocks, want.Temperature, want.Mix = cfg.PruneDeadlocks, cfg.Temperature, cfg.Mix
		if cfg.Init != "" {
			net, err = initModel(cfg.Init, want, cfg.log)
		} else if want, err = cfg.architecture(want); err != nil {
			return err
		} else if net, err = model.New(want, cfg.Seed); err != nil {
			err = fmt.Errorf("train: the network for %s problems: %w", cfg.Domain, err)
		}
		if err != nil {
			return err
		}
	}
	if !resume {
		_, statErr := os.Stat(cfg.dir)
		made := errors.Is(statErr, os.ErrNotExist)
		if err := writeRunFile(cfg); err != nil {
			return err
		}
		defer func() {
			if err != nil && made && !hasCheckpoint(cfg.dir) {
				os.RemoveAll(cfg.dir)
			}
		}()
	}
	workers := cfg.flags.workerCount()
	cfg.log.Info("training", "learner", cfg.Learner, "algorithm", bc.Algorithm.String(), "schedule", bc.Schedule.String(), "problems", len(tasks)-bc.Validation.Problems, "validation_problems", bc.Validation.Problems, "domain", cfg.Domain, "workers", workers, "dir", cfg.dir, "blas", nn.BackendInfo())
	if cfg.listen != "" || cfg.natsURL != "" {
		l, stop, serr := startLearner(ctx, cfg, bc, tasks)
		if serr != nil {
			return serr
		}
		env.Pool = l
		defer func() { stop(err == nil) }() // err: training's
	}
	var metrics []bootstrap.Iteration
	switch {
	case resume:
		load := func(dir string) (bootstrap.Learner[S], error) {
			if cfg.Learner == learnerContext {
				l, err := cm.LoadLearner(dir, cfg.learnerThreads, tasks...)
				if err == nil {
					warnNoDigest(cfg.log, dir, l.NoDigest())
				}
				return l, err
			}
			n, err := network.LoadLearner[S](dir, cfg.learnerThreads)
			if err == nil {
				warnNoDigest(cfg.log, dir, n.Model().NoDigest())
			}
			return n, err
		}
		_, metrics, err = bootstrap.Resume(ctx, cfg.dir, tasks, load, env)
	case cfg.Learner == learnerContext:
		var l *cm.Learner[S]
		if l, err = newContextLearner(cfg, tasks); err != nil {
			return err
		}
		metrics, err = bootstrap.Train(ctx, cfg.dir, tasks, l, bc, env)
	default:
		var l *network.Learner[S]
		if l, err = network.NewLearner[S](net, cfg.network(), cfg.learnerThreads); err != nil {
			return err
		}
		metrics, err = bootstrap.Train(ctx, cfg.dir, tasks, l, bc, env)
	}
	reason, limit := stopReason(cfg, bc, metrics, len(tasks)-bc.Validation.Problems)
	switch {
	case errors.Is(err, context.Canceled) && hasCheckpoint(cfg.dir):
		msg := "interrupted; checkpoint written; continue with: phs train -resume " + cfg.dir
		if cfg.TimeLimit > 0 {
			msg += fmt.Sprintf(" (its -time %v counts the training time of every session; -time replaces it)", time.Duration(cfg.TimeLimit))
		}
		return interruptedError{msg}
	case errors.Is(err, bootstrap.ErrTrainingDone) && limit:
		return fmt.Errorf("train: %s already finished: %s; to go on, raise the limit: %s", cfg.dir, reason, goOn(cfg, metrics))
	case errors.Is(err, bootstrap.ErrTrainingDone):
		return fmt.Errorf("train: %s already finished: %s", cfg.dir, reason)
	case err != nil:
		return err
	}
	attrs := []any{"iterations", len(metrics), "reason", reason, "checkpoint", filepath.Join(cfg.dir, "checkpoint")}
	if limit {
		attrs = append(attrs, "go_on", goOn(cfg, metrics))
	}
	cfg.log.Info("training stopped", attrs...)
	return nil
}

// newContextLearner returns the context model of a new run for tasks:
// empty, of the layout of their first problem (bootstrap.Train refuses
// the problems of another, naming them), or the table of -model, whose
// εlow it keeps unless -cm-eps-low says otherwise.
func newContextLearner[S comparable](cfg *trainConfig, tasks []search.Task[S]) (*cm.Learner[S], error) {
	c := cfg.CM
	c.Threads = cfg.learnerThreads
	if cfg.Init == "" {
		layout, err := cm.LayoutOf(tasks[0].Problem)
		if err != nil {
			return nil, fmt.Errorf("train: %s: %w", tasks[0].ID, err)
		}
		l, err := cm.NewLearner[S](layout, c)
		if err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
		return l, nil
	}
	file, _ := cm.FindTable(cfg.Init)
	t, err := cm.ReadTable(file)
	if err != nil {
		return nil, fmt.Errorf("train: -model: %w", err)
	}
	warnNoDigest(cfg.log, file, t.NoDigest())
	ev, err := cm.NewEvaluator[S](t, 0)
	if err != nil {
		return nil, err
	}
	if err := ev.Check(tasks[0].Problem); err != nil {
		return nil, fmt.Errorf("train: -model %s: %s: %w", cfg.Init, tasks[0].ID, err)
	}
	if c.EpsLow == 0 {
		c.EpsLow = t.EpsLow()
	}
	l, err := cm.NewLearnerFrom[S](t, c)
	if err != nil {
		return nil, fmt.Errorf("train: -model %s: %w", cfg.Init, err)
	}
	return l, nil
}

// networkSizes are the flags of train that set the architecture of a
// fresh network.
var networkSizes = []string{"arch", "units", "blocks", "filters", "hidden"}

// architecture returns want with the architecture of cfg, or a usage
// error that names the flag (-arch, -units, -blocks, -filters, -hidden) whose value the
// library refuses (model.Config.Validate) for the network want describes.
func (cfg *trainConfig) architecture(want model.Config) (model.Config, error) {
	want.Arch = cfg.Arch
	if err := want.Validate(); err != nil {
		return want, usagef("train: -arch %s: %v", cfg.Arch, err)
	}
	sizes := []setting[model.Config]{
		{"units", func(c *model.Config) { c.Units = cfg.Units }},
		{"blocks", func(c *model.Config) { c.Blocks = cfg.Blocks }},
		{"filters", func(c *model.Config) { c.Filters = cfg.Filters }},
		{"hidden", func(c *model.Config) { c.Hidden = cfg.Hidden }},
	}
	if err := blame("train", cfg.fs, want, sizes, model.Config.Validate); err != nil {
		return want, err
	}
	for _, s := range sizes {
		s.set(&want)
	}
	return want, nil
}

// initModel returns the model of -model at path, a model or run directory,
// after checking that it is a network for want's domain and algorithm,
// with its heads, losses and input and output shapes; its layers' sizes
// may differ from want's. The model returned has want's PruneDeadlocks,
// Temperature and Mix, not its own (a temperature chosen for that network
// need not suit the new one), and no Meta, which describes that network.
// It warns on log of files without a digest.
func initModel(path string, want model.Config, log *slog.Logger) (*model.Model, error) {
	m, err := loadModel(path)
	if err != nil {
		return nil, fmt.Errorf("train: -model: %w", err)
	}
	warnNoDigest(log, path, m.NoDigest())
	got := m.Config()
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"domain", got.Domain, want.Domain},
		{"algorithm", got.Algorithm, want.Algorithm},
		{"heads", got.Heads, want.Heads},
		{"policy loss", got.PolicyLoss, want.PolicyLoss},
		{"heuristic loss", got.HeuristicLoss, want.HeuristicLoss},
		{"input shape", [3]int{got.Channels, got.Height, got.Width}, [3]int{want.Channels, want.Height, want.Width}},
		{"actions", got.Actions, want.Actions},
	} {
		if f.got != f.want {
			return nil, fmt.Errorf("train: -model %s: a network with %s %v; the run needs %v", path, f.name, f.got, f.want)
		}
	}
	if got.PruneDeadlocks != want.PruneDeadlocks || got.Temperature != want.Temperature || got.Mix != want.Mix || got.Meta != nil {
		got.PruneDeadlocks, got.Temperature, got.Mix, got.Meta = want.PruneDeadlocks, want.Temperature, want.Mix, nil
		n, err := model.New(got, 0)
		if err != nil {
			return nil, fmt.Errorf("train: -model %s: %w", path, err)
		}
		n.CopyWeightsFrom(m)
		m = n
	}
	return m, nil
}

// stopReason says why the run of bc stopped after metrics, over n
// training problems, and whether a limit of cfg stopped it.
func stopReason(cfg *trainConfig, bc bootstrap.Config, metrics []bootstrap.Iteration, n int) (reason string, limit bool) {
	v := bc.Validation
	switch {
	case v.Problems > 0 && len(metrics) > 1 && metrics[len(metrics)-2].ValidTotalSolved >= v.Needed():
		return fmt.Sprintf("the validation target reached (%d of %d solved) and one more iteration done", metrics[len(metrics)-2].ValidTotalSolved, v.Problems), false
	case v.Problems == 0 && len(metrics) > 0 && metrics[len(metrics)-1].TotalSolved == n:
		return "every problem solved", false
	case cfg.Iterations > 0 && len(metrics) >= cfg.Iterations:
		return fmt.Sprintf("the limit of %d iterations reached", cfg.Iterations), true
	case cfg.TimeLimit > 0:
		return fmt.Sprintf("the time limit of %v reached", time.Duration(cfg.TimeLimit)), true
	}
	return "a limit reached", true
}

// goOn returns the command that continues a run stopped by a limit.
func goOn(cfg *trainConfig, metrics []bootstrap.Iteration) string {
	cmd := "phs train -resume " + cfg.dir
	if cfg.Iterations > 0 && len(metrics) >= cfg.Iterations {
		cmd += fmt.Sprintf(" -iterations %d", len(metrics)+1)
	}
	if cfg.TimeLimit > 0 {
		cmd += fmt.Sprintf(" -time %v", time.Duration(cfg.TimeLimit)+time.Hour)
	}
	return cmd
}

// hasCheckpoint reports whether run directory dir holds a checkpoint.
func hasCheckpoint(dir string) bool {
	for _, name := range []string{"checkpoint", "checkpoint.old"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// writeRunFile writes the settings of cfg that the run's checkpoint does
// not hold to the run.json of its directory, creating it: the paths
// relative to the directory (relPath), so that the run resumes from the
// directory alone wherever it and the problem files are moved together.
func writeRunFile(cfg *trainConfig) error {
	rec := *cfg
	var err error
	if rec.Files, err = relPaths(cfg.dir, cfg.Files); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if rec.ValidFiles, err = relPaths(cfg.dir, cfg.ValidFiles); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if cfg.Init != "" {
		if rec.Init, err = relPath(cfg.dir, cfg.Init); err != nil {
			return fmt.Errorf("train: %w", err)
		}
	}
	b, err := json.MarshalIndent(&rec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.dir, 0o755); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(cfg.dir, runFile), append(b, '\n')); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	return nil
}

// startCPUProfile starts a CPU profile written to file; stop ends it.
func startCPUProfile(file string) (stop func(), err error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, fmt.Errorf("train: -cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("train: -cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
