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
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/cluster"
	"github.com/phs-go/phs/internal/atomicfile"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/nn"
	"github.com/phs-go/phs/search"
)

// trainConfig holds the flags of "phs train". run.json, in the run
// directory, keeps the settings that package bootstrap does not know (the
// fields with a JSON name); the run's checkpoint keeps the others, its
// bootstrap.Config and its network's settings, from which -resume reads
// them (setFrom).
type trainConfig struct {
	Domain          string          `json:"domain"`
	Alg             string          `json:"-"`
	W               paramFlag       `json:"-"`
	C               paramFlag       `json:"-"`
	Files           []string        `json:"files"`
	Budget          int64           `json:"-"`
	Growth          float64         `json:"-"`
	PerUpdate       int             `json:"-"`
	Passes          int             `json:"-"`
	StepTrajs       int             `json:"-"`
	SkipSolvedAfter int             `json:"-"`
	Batch           int             `json:"-"`
	Renormalize     bool            `json:"-"`
	Temperature     float64         `json:"-"`
	GoalTest        search.GoalTest `json:"-"`
	PruneDeadlocks  bool            `json:"prune_deadlocks,omitempty"`
	Seed            uint64          `json:"-"`
	LearningRate    float64         `json:"-"`
	L2              float64         `json:"-"`
	Iterations      int             `json:"-"`
	TimeLimit       duration        `json:"-"`
	Async           bool            `json:"-"`
	// Init is the model the run started from (-init), if not a fresh
	// network.
	Init string `json:"init,omitempty"`

	// run is, on -resume, the configuration of the run's checkpoint.
	run *bootstrap.Config

	// Not saved: they may differ between resumptions.
	dir             string
	workers         int
	learnerThreads  int
	checkpointEvery time.Duration
	logEvery        time.Duration
	logFormat       string
	log             *slog.Logger // set by check
	// Training over NATS: the address the embedded server listens on, or
	// the URL of a server; the token; the acknowledgement wait of a job.
	listen, natsURL, tokenFile, token string
	ackWait                           time.Duration
	cpuProfile                        string // file of a CPU profile of the training
}

const runFile = "run.json"

// A duration is the time.Duration of -time.
type duration time.Duration

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg trainConfig
	var resume string
	fs := newFlagSet("train", "FILES...", stdout)
	fs.StringVar(&cfg.Domain, "domain", "", "problem domain: "+strings.Join(domainNames(), ", "))
	fs.StringVar(&cfg.Alg, "alg", "phsh", "algorithm whose network is trained: "+strings.Join(search.AlgorithmNames(), ", ")+"; wastar:W and puct:C give the parameter")
	fs.Var(&cfg.W, "w", "weight of h for wastar (default 1.5)")
	fs.Var(&cfg.C, "c", "exploration constant of puct (default 1)")
	fs.Int64Var(&cfg.Budget, "budget", 0, "initial expansion budget (0: the paper's, 2000 or 7000 for stp)")
	fs.Float64Var(&cfg.Growth, "growth", 2, "budget factor (> 1) after an iteration without a new problem solved")
	fs.IntVar(&cfg.PerUpdate, "update-every", 32, "problems attempted between parameter updates")
	fs.IntVar(&cfg.Passes, "passes", 10, "passes over an update's trajectories")
	fs.IntVar(&cfg.StepTrajs, "step-trajectories", 1, "trajectories per optimiser step (1: one step per trajectory, the paper)")
	fs.IntVar(&cfg.SkipSolvedAfter, "skip-solved", 0, "skip problems solved in each of the last K iterations (0: attempt all, the paper)")
	fs.IntVar(&cfg.Batch, "batch", 32, "states evaluated per network call")
	fs.BoolVar(&cfg.Renormalize, "renormalize", false, "renormalise the policy over legal actions")
	fs.Float64Var(&cfg.Temperature, "temperature", 0, "temperature T of the policy in the training searches, recorded in the network's config.json so that searches with it use T too (0: 1)")
	fs.BoolVar(&cfg.PruneDeadlocks, "prune-deadlocks", false, "sokoban: refuse pushes into simple deadlocks (dead squares, frozen 2x2 blocks); the same solutions, shorter searches")
	fs.TextVar(&cfg.GoalTest, "goal-test", search.GoalTestDefault, "when the training searches test a node for the goal: generation, expansion, or default (expansion for astar, generation for the others; see phs solve -h)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the network's initialisation and of the updates")
	fs.StringVar(&cfg.Init, "init", "", "start from this trained model (a model or run directory) instead of a fresh network: it must be made for the same domain and algorithm")
	fs.Float64Var(&cfg.LearningRate, "lr", 1e-4, "Adam learning rate")
	fs.Float64Var(&cfg.L2, "l2", 0, "L2 regularisation weight")
	fs.IntVar(&cfg.Iterations, "iterations", 0, "stop after this many Bootstrap iterations (0: no limit)")
	fs.Var(durationFlag{&cfg.TimeLimit}, "time", "stop after this much training time in all, such as 2h (0: no limit)")
	fs.StringVar(&cfg.dir, "dir", "", "run directory for checkpoints and metrics (required unless -resume)")
	fs.StringVar(&resume, "resume", "", "continue the run in this directory where it stopped")
	fs.IntVar(&cfg.workers, "workers", 0, "searches in parallel (0: all cores)")
	fs.IntVar(&cfg.learnerThreads, "learner-threads", 1, "threads of the learner's steps, each over at least 48 states: for -step-trajectories above 1")
	fs.BoolVar(&cfg.Async, "async", false, "asynchronous training: the workers search on while the learner updates (default: the paper's synchronous procedure)")
	fs.StringVar(&cfg.listen, "listen", "", "serve the run over NATS on this address, such as :4222, for \"phs worker\" processes (implies -async; -workers: their searches in all)")
	fs.StringVar(&cfg.natsURL, "nats", "", "serve the run on the NATS server at this URL instead of an embedded one (implies -async)")
	fs.StringVar(&cfg.tokenFile, "token-file", "", "file whose first line is the NATS token (required by -listen on other than loopback)")
	fs.DurationVar(&cfg.ackWait, "ack-wait", 30*time.Second, "with -listen or -nats, how long a worker may go silent before its problem goes to another")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of the training to this file (go tool pprof)")
	fs.DurationVar(&cfg.checkpointEvery, "checkpoint", 5*time.Minute, "longest time between checkpoints")
	fs.DurationVar(&cfg.logEvery, "progress", 30*time.Second, "interval of progress records on standard error")
	logFlag(fs, &cfg.logFormat)
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if cfg.listen != "" || cfg.natsURL != "" {
		cfg.Async = true
	}
	if resume != "" {
		return resumeTrain(ctx, resume, fs, files, &cfg, stderr)
	}
	if cfg.dir == "" {
		return usagef("train: -dir is required")
	}
	if _, err := os.Stat(filepath.Join(cfg.dir, runFile)); err == nil {
		return usagef("train: %s already holds a run; use -resume %s to continue it", cfg.dir, cfg.dir)
	}
	d, ok := domains[cfg.Domain]
	if !ok {
		return usagef("train: -domain must be one of %s", strings.Join(domainNames(), ", "))
	}
	if len(files) == 0 {
		return usagef("train: no problem files")
	}
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return err
		}
		cfg.Files = append(cfg.Files, abs)
	}
	if cfg.Init != "" {
		if cfg.Init, err = filepath.Abs(cfg.Init); err != nil {
			return err
		}
	}
	if cfg.Budget == 0 {
		cfg.Budget = d.initialBudget()
	}
	if err := cfg.check(stderr); err != nil {
		return err
	}
	return d.train(ctx, &cfg, false, stderr)
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

// check returns a usage error that names the first flag of cfg out of
// range, and sets the logger to stderr.
func (cfg *trainConfig) check(stderr io.Writer) error {
	if _, err := withParams(search.PHSStar(), cfg.W, cfg.C); err != nil {
		return usagef("train: %v", err)
	}
	bc, err := cfg.bootstrapConfig()
	if err != nil {
		return usagef("train: -alg: %v", err)
	}
	switch {
	case cfg.Budget < 0:
		return usagef("train: -budget %d: want >= 0 (0: the paper's)", cfg.Budget)
	case !(cfg.Growth > 1 && finite(cfg.Growth)):
		return usagef("train: -growth %g: want a finite number > 1", cfg.Growth)
	case cfg.PerUpdate < 1:
		return usagef("train: -update-every %d: want >= 1", cfg.PerUpdate)
	case cfg.Passes < 1:
		return usagef("train: -passes %d: want >= 1", cfg.Passes)
	case cfg.StepTrajs < 0:
		return usagef("train: -step-trajectories %d: want >= 1 (0: 1)", cfg.StepTrajs)
	case cfg.SkipSolvedAfter < 0:
		return usagef("train: -skip-solved %d: want >= 0", cfg.SkipSolvedAfter)
	case cfg.Batch < 1 || cfg.Batch > search.MaxBatchSize:
		return usagef("train: -batch %d: want 1 to %d", cfg.Batch, search.MaxBatchSize)
	case !(cfg.LearningRate > 0 && finite(cfg.LearningRate)):
		return usagef("train: -lr %g: want a finite number > 0", cfg.LearningRate)
	case !(cfg.L2 >= 0 && finite(cfg.L2)):
		return usagef("train: -l2 %g: want a finite number >= 0", cfg.L2)
	case cfg.Iterations < 0:
		return usagef("train: -iterations %d: want >= 0 (0: no limit)", cfg.Iterations)
	case cfg.TimeLimit < 0:
		return usagef("train: -time %v: want >= 0 (0: no limit)", time.Duration(cfg.TimeLimit))
	case !(cfg.Temperature >= 0 && finite(cfg.Temperature)):
		return usagef("train: -temperature %g: want a finite number > 0 (0: 1)", cfg.Temperature)
	case cfg.Temperature != 0 && !bc.Algorithm.NeedsPolicy():
		return usagef("train: -temperature %g: %s reads no policy", cfg.Temperature, bc.Algorithm.Name())
	case cfg.GoalTest != search.GoalTestDefault && bc.Algorithm.IsPUCT():
		return usagef("train: -goal-test %s: puct tests the goal when a descent first reaches a node", cfg.GoalTest)
	case cfg.PruneDeadlocks && !domains[cfg.Domain].prunesDeadlocks():
		return usagef("train: -prune-deadlocks: the %s domain has no deadlock pruning", cfg.Domain)
	case cfg.workers < 0:
		return usagef("train: -workers %d: want >= 0 (0: all cores)", cfg.workers)
	case cfg.learnerThreads < 1 || cfg.learnerThreads > model.MaxThreads:
		return usagef("train: -learner-threads %d: want 1 to %d", cfg.learnerThreads, model.MaxThreads)
	case cfg.checkpointEvery <= 0:
		return usagef("train: -checkpoint %v: want > 0", cfg.checkpointEvery)
	case cfg.logEvery <= 0:
		return usagef("train: -progress %v: want > 0", cfg.logEvery)
	case cfg.ackWait <= 0:
		return usagef("train: -ack-wait %v: want > 0", cfg.ackWait)
	case cfg.listen != "" && cfg.natsURL != "":
		return usagef("train: -listen and -nats exclude each other")
	}
	if cfg.token, err = readToken(cfg.tokenFile); err != nil {
		return usagef("train: %v", err)
	}
	if cfg.listen != "" {
		if err := (cluster.ServerOptions{Listen: cfg.listen, Token: cfg.token}).Validate(); err != nil {
			return usagef("train: -listen: %v", err)
		}
	}
	if err := bc.Validate(); err != nil {
		return usagef("train: %v", err)
	}
	log, err := newLogger(cfg.logFormat, stderr)
	if err != nil {
		return usagef("train: %v", err)
	}
	cfg.log = log
	return nil
}

// resumeTrain continues the run in dir. Flags set on the command line may
// change the limits (-iterations, -time) and the settings that do not
// affect the results (-workers, -checkpoint, -progress) or only by float
// rounding (-learner-threads); the others come from the run.
func resumeTrain(ctx context.Context, dir string, fs *flag.FlagSet, files []string, cfg *trainConfig, stderr io.Writer) error {
	name := filepath.Join(dir, runFile)
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("train: resume: %w", err)
	}
	saved := *cfg
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&saved); err != nil {
		return fmt.Errorf("train: resume: %s: %w", name, err)
	}
	if !hasCheckpoint(dir) {
		return fmt.Errorf("train: resume: %s holds no checkpoint: the run stopped as it started; remove the directory and start the run again", dir)
	}
	run, err := bootstrap.ReadConfig(dir)
	if err != nil {
		return fmt.Errorf("train: resume: %w", err)
	}
	saved.setFrom(run)
	var bad []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "iterations":
			saved.Iterations = cfg.Iterations
		case "time":
			saved.TimeLimit = cfg.TimeLimit
		case "resume", "workers", "learner-threads", "checkpoint", "progress", "log", "token-file", "ack-wait", "cpuprofile":
		case "listen", "nats":
			if !saved.Async {
				bad = append(bad, "-"+f.Name+" (the run is synchronous)")
			}
		default:
			bad = append(bad, "-"+f.Name)
		}
	})
	if len(bad) > 0 || len(files) > 0 {
		return usagef("train: -resume takes the run's settings from %s; cannot change %s", dir, strings.Join(append(bad, files...), " "))
	}
	saved.dir = dir
	d, ok := domains[saved.Domain]
	if !ok {
		return fmt.Errorf("train: resume: %s: unknown domain %q", name, saved.Domain)
	}
	if err := saved.check(stderr); err != nil {
		return fmt.Errorf("train: resume: %s: %w", dir, err)
	}
	return d.train(ctx, &saved, true, stderr)
}

// setFrom sets the flags of cfg that the run's configuration run holds,
// and keeps run as the configuration of the run (a view of it).
func (cfg *trainConfig) setFrom(run bootstrap.Config) {
	cfg.run = &run
	cfg.Alg, cfg.W, cfg.C = run.Algorithm.String(), paramFlag{}, paramFlag{}
	cfg.Budget, cfg.Growth, cfg.PerUpdate, cfg.SkipSolvedAfter = run.Options.Budget, run.BudgetGrowth, run.ProblemsPerUpdate, run.SkipSolvedAfter
	cfg.Batch, cfg.Renormalize, cfg.Temperature = run.Options.BatchSize, run.Options.Renormalize, run.Options.Temperature
	cfg.GoalTest = run.Options.GoalTest
	cfg.Iterations, cfg.TimeLimit, cfg.Async = run.MaxIterations, duration(run.TimeLimit), run.Async
}

// bootstrapConfig returns the configuration of the Bootstrap process that
// cfg describes, after checking its algorithm: on -resume, the run's, with
// the limits of cfg.
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
	if alg, err = withParams(alg, cfg.W, cfg.C); err != nil {
		return bootstrap.Config{}, err
	}
	return bootstrap.Config{
		Algorithm:         alg,
		Options:           search.Options{Budget: cfg.Budget, BatchSize: cfg.Batch, Renormalize: cfg.Renormalize, Temperature: cfg.Temperature, GoalTest: cfg.GoalTest},
		BudgetGrowth:      cfg.Growth,
		ProblemsPerUpdate: cfg.PerUpdate,
		SkipSolvedAfter:   cfg.SkipSolvedAfter,
		Async:             cfg.Async,
		Limits:            bootstrap.Limits{MaxIterations: cfg.Iterations, TimeLimit: time.Duration(cfg.TimeLimit)},
	}, nil
}

// network returns the settings of the network that cfg trains.
func (cfg *trainConfig) network() bootstrap.NetworkConfig {
	return bootstrap.NetworkConfig{LearningRate: cfg.LearningRate, L2: cfg.L2, Passes: cfg.Passes, StepTrajectories: cfg.StepTrajs, Seed: cfg.Seed}
}

// env returns the environment of the run of cfg.
func (cfg *trainConfig) env() bootstrap.Env {
	return bootstrap.Env{Workers: cfg.workers, CheckpointEvery: cfg.checkpointEvery, Logger: cfg.log, LogEvery: cfg.logEvery}
}

// trainTasks trains a network on tasks as cfg says: a fresh run, which
// first writes run.json, or the resumption of one (resume).
func trainTasks[S comparable](ctx context.Context, cfg *trainConfig, tasks []search.Task[S], resume bool, stderr io.Writer) error {
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
	if resume {
		if net, err = loadModel(cfg.dir); err != nil {
			return fmt.Errorf("train: resume: %w", err)
		}
		if net.Config().Domain != cfg.Domain {
			return fmt.Errorf("train: resume: the checkpoint of %s is a %s model; %s says %s", cfg.dir, net.Config().Domain, runFile, cfg.Domain)
		}
		env.Limits = &bc.Limits
	} else {
		enc, ok := tasks[0].Problem.(search.Encoder[S])
		if !ok {
			return fmt.Errorf("train: %s problems have no network encoding", cfg.Domain)
		}
		want := model.ConfigFor(cfg.Domain, bc.Algorithm, enc)
		want.PruneDeadlocks, want.Temperature = cfg.PruneDeadlocks, cfg.Temperature
		if cfg.Init != "" {
			net, err = initModel(cfg.Init, want)
		} else {
			net, err = model.New(want, cfg.Seed)
		}
		if err != nil {
			return err
		}
		if err := writeRunFile(cfg); err != nil {
			return err
		}
	}
	workers := env.Workers
	if workers == 0 {
		workers = runtime.NumCPU()
	}
	cfg.log.Info("training", "algorithm", bc.Algorithm.String(), "problems", len(tasks), "domain", cfg.Domain, "workers", workers, "dir", cfg.dir, "blas", nn.BackendInfo())
	if cfg.listen != "" || cfg.natsURL != "" {
		l, stop, serr := startLearner(ctx, cfg, bc, tasks)
		if serr != nil {
			return serr
		}
		env.Pool = l
		defer func() { stop(err == nil) }() // err: training's
	}
	if cfg.cpuProfile != "" {
		stop, perr := startCPUProfile(cfg.cpuProfile)
		if perr != nil {
			return perr
		}
		defer stop()
	}
	var metrics []bootstrap.Iteration
	if resume {
		load := func(dir string) (bootstrap.Learner[S], error) {
			return bootstrap.LoadNetwork[S](dir, cfg.learnerThreads)
		}
		_, metrics, err = bootstrap.Resume(ctx, cfg.dir, tasks, load, env)
	} else {
		var l *bootstrap.Network[S]
		if l, err = bootstrap.NewNetwork[S](net, cfg.network(), cfg.learnerThreads); err != nil {
			return err
		}
		metrics, err = bootstrap.Train(ctx, cfg.dir, tasks, l, bc, env)
	}
	switch {
	case errors.Is(err, context.Canceled):
		return interruptedError{"interrupted; checkpoint written; continue with: phs train -resume " + cfg.dir}
	case errors.Is(err, bootstrap.ErrTrainingDone):
		return fmt.Errorf("train: %s already finished: %s; to go on, raise the limit: %s", cfg.dir, stopReason(cfg, metrics, len(tasks)), goOn(cfg, metrics))
	case err != nil:
		return err
	}
	attrs := []any{"iterations", len(metrics), "reason", stopReason(cfg, metrics, len(tasks)), "checkpoint", filepath.Join(cfg.dir, "checkpoint")}
	if len(metrics) == 0 || metrics[len(metrics)-1].TotalSolved < len(tasks) {
		attrs = append(attrs, "go_on", goOn(cfg, metrics))
	}
	cfg.log.Info("training stopped", attrs...)
	return nil
}

// initModel returns the model of -init at path, a model or run directory,
// after checking that it is a network for want's domain and algorithm,
// with its heads, losses and input and output shapes; its layers' sizes
// may differ from want's. The model returned has want's PruneDeadlocks and
// Temperature, not its own (a temperature chosen for that network need not
// suit the new one), and no Meta, which describes that network.
func initModel(path string, want model.Config) (*model.Model, error) {
	m, err := loadModel(path)
	if err != nil {
		return nil, fmt.Errorf("train: -init: %w", err)
	}
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
			return nil, fmt.Errorf("train: -init %s: a network with %s %v; the run needs %v", path, f.name, f.got, f.want)
		}
	}
	if got.PruneDeadlocks != want.PruneDeadlocks || got.Temperature != want.Temperature || got.Meta != nil {
		got.PruneDeadlocks, got.Temperature, got.Meta = want.PruneDeadlocks, want.Temperature, nil
		n, err := model.New(got, 0)
		if err != nil {
			return nil, fmt.Errorf("train: -init %s: %w", path, err)
		}
		n.CopyWeightsFrom(m)
		m = n
	}
	return m, nil
}

// stopReason says why training stopped after metrics, over n problems.
func stopReason(cfg *trainConfig, metrics []bootstrap.Iteration, n int) string {
	switch {
	case len(metrics) > 0 && metrics[len(metrics)-1].TotalSolved == n:
		return "every problem solved"
	case cfg.Iterations > 0 && len(metrics) >= cfg.Iterations:
		return fmt.Sprintf("the limit of %d iterations reached", cfg.Iterations)
	case cfg.TimeLimit > 0:
		return fmt.Sprintf("the time limit of %v reached", time.Duration(cfg.TimeLimit))
	}
	return "a limit reached"
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
// not hold to the run.json of its directory, creating it.
func writeRunFile(cfg *trainConfig) error {
	b, err := json.MarshalIndent(cfg, "", "  ")
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
