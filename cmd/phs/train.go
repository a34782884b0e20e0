package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// trainConfig holds the flags of "phs train"; it is saved in the run
// directory so that -resume needs nothing else.
type trainConfig struct {
	Domain          string        `json:"domain"`
	Alg             string        `json:"algorithm"`
	W               float64       `json:"w"`
	C               float64       `json:"c"`
	Files           []string      `json:"files"`
	Budget          int64         `json:"budget"`
	Growth          float64       `json:"budget_growth"`
	PerUpdate       int           `json:"problems_per_update"`
	Passes          int           `json:"passes"`
	SkipSolvedAfter int           `json:"skip_solved_after"`
	Batch           int           `json:"batch"`
	Renormalize     bool          `json:"renormalize"`
	Seed            uint64        `json:"seed"`
	LearningRate    float64       `json:"learning_rate"`
	L2              float64       `json:"l2"`
	Iterations      int           `json:"max_iterations"`
	TimeLimit       time.Duration `json:"time_limit"`

	// Not saved: they may differ between resumptions.
	dir             string
	workers         int
	checkpointEvery time.Duration
	logEvery        time.Duration
}

const runFile = "run.json"

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg trainConfig
	var resume string
	fs := newFlagSet("train", "FILES...", stderr)
	fs.StringVar(&cfg.Domain, "domain", "", "problem domain: "+strings.Join(domainNames(), ", "))
	fs.StringVar(&cfg.Alg, "alg", "phsh", "algorithm whose network is trained: "+strings.Join(search.AlgorithmNames(), ", "))
	fs.Float64Var(&cfg.W, "w", 1.5, "weight of h for wastar")
	fs.Float64Var(&cfg.C, "c", 1, "exploration constant of puct")
	fs.Int64Var(&cfg.Budget, "budget", 0, "initial expansion budget (0: the paper's, 2000 or 7000 for stp)")
	fs.Float64Var(&cfg.Growth, "growth", 2, "budget factor after an iteration without a new problem solved")
	fs.IntVar(&cfg.PerUpdate, "update-every", 32, "problems attempted between parameter updates")
	fs.IntVar(&cfg.Passes, "passes", 10, "passes over an update's trajectories")
	fs.IntVar(&cfg.SkipSolvedAfter, "skip-solved", 0, "skip problems solved in each of the last K iterations (0: attempt all, the paper)")
	fs.IntVar(&cfg.Batch, "batch", 32, "states evaluated per network call")
	fs.BoolVar(&cfg.Renormalize, "renormalize", false, "renormalise the policy over legal actions")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the network's initialisation and of the updates")
	fs.Float64Var(&cfg.LearningRate, "lr", 1e-4, "Adam learning rate")
	fs.Float64Var(&cfg.L2, "l2", 0, "L2 regularisation weight")
	fs.IntVar(&cfg.Iterations, "iterations", 0, "stop after this many Bootstrap iterations (0: no limit)")
	fs.DurationVar(&cfg.TimeLimit, "time", 0, "stop after this much training time in all (0: no limit)")
	fs.StringVar(&cfg.dir, "dir", "", "run directory for checkpoints and metrics (required unless -resume)")
	fs.StringVar(&resume, "resume", "", "continue the run in this directory where it stopped")
	fs.IntVar(&cfg.workers, "workers", 0, "searches in parallel (0: all cores)")
	fs.DurationVar(&cfg.checkpointEvery, "checkpoint", 5*time.Minute, "longest time between checkpoints")
	fs.DurationVar(&cfg.logEvery, "progress", 30*time.Second, "interval of progress lines on standard error")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if resume != "" {
		return resumeTrain(ctx, resume, fs, &cfg, stderr)
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
	if _, err := cfg.bootstrapConfig(); err != nil {
		return usagef("train: %v", err)
	}
	if fs.NArg() == 0 {
		return usagef("train: no problem files")
	}
	for _, f := range fs.Args() {
		abs, err := filepath.Abs(f)
		if err != nil {
			return err
		}
		cfg.Files = append(cfg.Files, abs)
	}
	if cfg.Budget == 0 {
		cfg.Budget = d.initialBudget()
	}
	if err := os.MkdirAll(cfg.dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(&cfg, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.dir, runFile), append(b, '\n'), 0o644); err != nil {
		return err
	}
	return d.train(ctx, &cfg, false, stderr)
}

// resumeTrain continues the run in dir. Flags set on the command line may
// change the limits (-iterations, -time) and the settings that do not
// affect the results (-workers, -checkpoint, -progress); the others come
// from the run.
func resumeTrain(ctx context.Context, dir string, fs *flag.FlagSet, cfg *trainConfig, stderr io.Writer) error {
	b, err := os.ReadFile(filepath.Join(dir, runFile))
	if err != nil {
		return fmt.Errorf("train: resume: %w", err)
	}
	saved := *cfg
	if err := json.Unmarshal(b, &saved); err != nil {
		return fmt.Errorf("train: resume: %s: %w", filepath.Join(dir, runFile), err)
	}
	var bad []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "iterations":
			saved.Iterations = cfg.Iterations
		case "time":
			saved.TimeLimit = cfg.TimeLimit
		case "resume", "workers", "checkpoint", "progress":
		default:
			bad = append(bad, "-"+f.Name)
		}
	})
	if len(bad) > 0 || fs.NArg() > 0 {
		return usagef("train: -resume takes the run's settings from %s; cannot change %s", dir, strings.Join(append(bad, fs.Args()...), " "))
	}
	saved.dir = dir
	d, ok := domains[saved.Domain]
	if !ok {
		return fmt.Errorf("train: resume: unknown domain %q in %s", saved.Domain, runFile)
	}
	return d.train(ctx, &saved, true, stderr)
}

// bootstrapConfig returns the configuration of the Bootstrap process that
// cfg describes, after checking it.
func (cfg *trainConfig) bootstrapConfig() (bootstrap.Config, error) {
	alg, err := search.Parse(cfg.Alg, cfg.W, cfg.C)
	if err != nil {
		return bootstrap.Config{}, err
	}
	bc := bootstrap.Config{
		Algorithm:         alg,
		Options:           search.Options{BatchSize: cfg.Batch, Renormalize: cfg.Renormalize},
		Budget:            cfg.Budget,
		BudgetGrowth:      cfg.Growth,
		ProblemsPerUpdate: cfg.PerUpdate,
		Passes:            cfg.Passes,
		SkipSolvedAfter:   cfg.SkipSolvedAfter,
		Workers:           cfg.workers,
		Seed:              cfg.Seed,
		LearningRate:      cfg.LearningRate,
		L2:                cfg.L2,
		MaxIterations:     cfg.Iterations,
		TimeLimit:         cfg.TimeLimit,
		Dir:               cfg.dir,
		CheckpointEvery:   cfg.checkpointEvery,
		LogEvery:          cfg.logEvery,
	}
	return bc, nil
}

// trainTasks trains a model on tasks as cfg says.
func trainTasks[S comparable](ctx context.Context, cfg *trainConfig, tasks []search.Task[S], resume bool, stderr io.Writer) error {
	if len(tasks) == 0 {
		return errors.New("train: no problems")
	}
	bc, err := cfg.bootstrapConfig()
	if err != nil {
		return err
	}
	bc.Log = stderr
	workers := cfg.workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	fmt.Fprintf(stderr, "phs: training %s on %d %s problems with %d workers in %s\n", bc.Algorithm.Name(), len(tasks), cfg.Domain, workers, cfg.dir)
	if resume {
		_, _, err = bootstrap.Resume(ctx, tasks, bc)
	} else {
		enc, ok := tasks[0].Problem.(search.Encoder[S])
		if !ok {
			return fmt.Errorf("train: %s problems have no network encoding", cfg.Domain)
		}
		var net *model.Model
		net, err = model.New(model.ConfigFor(cfg.Domain, bc.Algorithm, enc), cfg.Seed)
		if err != nil {
			return err
		}
		_, err = bootstrap.Train(ctx, tasks, net, bc)
	}
	if errors.Is(err, context.Canceled) {
		return interruptedError{"interrupted; checkpoint written; continue with: phs train -resume " + cfg.dir}
	}
	return err
}
