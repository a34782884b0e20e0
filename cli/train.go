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
	"github.com/phs-go/phs/nn"
	"github.com/phs-go/phs/search"
)

// trainConfig is the configuration of "phs train". Its flags write into
// it, and into the library's settings of the run: the Bootstrap
// configuration bc, and the settings of each kind of learner. run.json,
// in the run directory, keeps the settings that the checkpoint does not
// (runRecord); the run's checkpoint keeps the others, its
// bootstrap.Config and its learner's settings, from which -resume reads
// them.
type trainConfig struct {
	flags runFlags // -domain, -alg, -model, -prune-deadlocks, -workers, ...
	// bc is the run's configuration: on -resume, the checkpoint's, with
	// the limits of the command line.
	bc bootstrap.Config
	// learner is the name of the kind of learner the run trains, and
	// learners the settings of each kind, by name.
	learner  string
	learners map[string]LearnerSettings
	// files are the files of the training problems, validFiles those of
	// the validation problems (-valid), as paths from the working
	// directory.
	files, validFiles []string
	// checkpointEvery is -checkpoint, kept for -resume unless given again.
	checkpointEvery duration
	// resumed says that bc is the checkpoint's; validProblems is the
	// number of problems of validFiles, once read.
	resumed       bool
	validProblems int

	// Not saved: they may differ between resumptions.
	dir            string
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

// A runRecord is run.json: the settings of a run that its checkpoint does
// not hold, its paths relative to the run directory (writeRunFile).
type runRecord struct {
	Domain string `json:"domain"`
	// Learner is the kind of learner the run trains, LearnerKind.Name. (A
	// run.json of an earlier phs lacks it: see checkpointLearner.)
	Learner         string   `json:"learner,omitempty"`
	Files           []string `json:"files"`
	ValidFiles      []string `json:"valid_files,omitempty"`
	PruneDeadlocks  bool     `json:"prune_deadlocks,omitempty"`
	Init            string   `json:"init,omitempty"` // -model
	CheckpointEvery duration `json:"checkpoint_every,omitempty"`
}

const runFile = "run.json"

// A duration is the time.Duration of -checkpoint, spelled as
// time.Duration.String does in run.json ("5m0s").
type duration time.Duration

func (d duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

func (d *duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = duration(v)
	return err
}

// trainGroups are the groups of shared flags that train has.
const trainGroups = searchFlags | workerFlags

// newTrainConfig registers the flags of train on fs, but -resume, and
// returns the configuration they set.
func newTrainConfig(fs *flag.FlagSet, e *env) *trainConfig {
	cfg := &trainConfig{learners: map[string]LearnerSettings{}}
	bc := &cfg.bc
	cfg.flags.register(fs, trainGroups, e.names, &bc.Options)
	fs.TextVar(&bc.Schedule, "schedule", bootstrap.Schedule{}, "budget schedule: double:G multiplies the budget by G > 1 after an iteration that solved no new problem (the paper: double:2); ltscm:F is libpolicyts's LTS_CM schedule with bootstrap factor F (ltscm: F = 0.1); ltscm-ref:A,M,R is LTS+CM's own rule (ltscm-ref: 2,8,1.25); the last two need -skip-solved 0")
	fs.IntVar(&bc.ProblemsPerUpdate, "update-every", 0, "problems attempted between parameter updates (0: the library's, 32)")
	fs.IntVar(&bc.ShortenLimit, "shorten-learned", 0, "learn from each solution shortened by the domain with at most this many nodes (stp and rubiks: stp.Problem.Shorten, rubiks.Problem.Shorten; 0: learn from the solutions as found, the paper)")
	fs.IntVar(&bc.SkipSolvedAfter, "skip-solved", 0, "skip problems solved in each of the last K iterations (0: attempt all, the paper)")
	fs.StringVar(&cfg.learner, "learner", learnerNetwork, learnerUsage(e.kinds))
	for _, k := range e.kinds {
		cfg.learners[k.Name] = k.Flags(fs)
	}
	fs.Var((*filesFlag)(&cfg.validFiles), "valid", "a file of validation problems, which training never learns from; repeat it for more files. After each iteration those never solved are searched, and once -valid-target of them were solved, one more iteration ends training. With -resume, the run's validation files, when they moved")
	fs.Float64Var(&bc.Validation.Target, "valid-target", 0.95, "with -valid, the fraction of the validation problems to solve, in (0, 1]")
	fs.IntVar(&bc.MaxIterations, "iterations", 0, "stop after this many Bootstrap iterations (0: no limit)")
	fs.Var(durationFlag{&bc.TimeLimit}, "time", "stop after this much training time in all, such as 2h, the searches and the update under way at once, with a checkpoint (0: no limit). The time of every session counts: with -resume, -time replaces the run's limit, so a run that trained 5h (the wall_s of its metrics.csv) goes on for a session of 3h with -time 8h")
	fs.StringVar(&cfg.dir, "dir", "", "run directory for checkpoints and metrics (required unless -resume)")
	fs.IntVar(&cfg.learnerThreads, "learner-threads", 0, fmt.Sprintf("threads of the learner's steps: a network's, each over at least 48 states, for -step-trajectories above 1; a context model's, each over at least 4,096 solution steps; up to %d (0: the library's, 1)", model.MaxThreads))
	fs.BoolVar(&bc.Async, "async", false, "asynchronous training: the workers search on while the learner updates (default: the paper's synchronous procedure)")
	fs.StringVar(&cfg.listen, "listen", "", "serve the run over NATS on this address, such as :4222, for \"phs worker\" processes (implies -async; -workers: their searches in all)")
	fs.StringVar(&cfg.natsURL, "nats", "", "serve the run on the NATS server at this URL instead of an embedded one (implies -async)")
	fs.StringVar(&cfg.nkeyFile, "nkey", "", "with -nats, file of the learner's NATS nkey seed (-listen makes the run's own: the workers' in RUN/nats/worker.nk)")
	fs.StringVar(&cfg.tokenFile, "token-file", "", "with -nats, file whose first line is the token the NATS server requires (in place of -nkey)")
	fs.DurationVar(&cfg.ackWait, "ack-wait", 30*time.Second, "with -listen or -nats, how long a worker may go silent before its problem goes to another")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of the training to this file (go tool pprof)")
	fs.Var(durationFlag{(*time.Duration)(&cfg.checkpointEvery)}, "checkpoint", "longest time between checkpoints, kept on -resume (0: the library's, 5m)")
	return cfg
}

func runTrain(ctx context.Context, e *env, args []string) error {
	var resume string
	fs := newFlagSet("train", "FILES...\n       phs train -resume RUN [flags] [FILES...]", e.stdout)
	cfg := newTrainConfig(fs, e)
	fs.StringVar(&resume, "resume", "", "continue the run in this directory where it stopped, with the settings of its checkpoint and the problem files of its run.json, which names them relative to the run directory; FILES (and -valid) give them anew if they moved: the checkpoint checks that they are the same problems. The limits (-iterations, -time) and the settings that do not change the results (-workers, -checkpoint, -learner-threads, -progress, -log, ...) may change")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	nats := cfg.listen != "" || cfg.natsURL != ""
	if nats {
		cfg.bc.Async = true
	}
	if err := cfg.flags.check("train", trainGroups, nats); err != nil {
		return err
	}
	cfg.fs = fs
	if resume != "" {
		return resumeTrain(ctx, e, resume, files, cfg)
	}
	if cfg.dir == "" {
		return usagef("train: -dir is required")
	}
	if _, err := os.Stat(filepath.Join(cfg.dir, runFile)); err == nil {
		return usagef("train: %s already holds a run; use -resume %s to continue it", cfg.dir, cfg.dir)
	}
	d, err := e.domain("train", cfg.flags.domain)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("train: no problem files")
	}
	cfg.files = files
	if cfg.flags.modelPath == "none" {
		cfg.flags.modelPath = ""
	}
	if _, ok := e.kind(cfg.learner); !ok {
		return usagef("train: -learner %q: want %s", cfg.learner, kindNames(e.kinds))
	}
	if err := cfg.setUp(e, d); err != nil {
		return err
	}
	if err := cfg.check(d, e.stderr); err != nil {
		return err
	}
	return d.train(ctx, cfg, false, e.stderr)
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
	return append(cfg.files[:len(cfg.files):len(cfg.files)], cfg.validFiles...)
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

// durationFlag is a flag.Value of a duration, whose errors are
// time.ParseDuration's.
type durationFlag struct{ d *time.Duration }

func (f durationFlag) String() string {
	if f.d == nil {
		return "0s"
	}
	return f.d.String()
}

func (f durationFlag) Set(s string) error {
	v, err := time.ParseDuration(s)
	*f.d = v
	return err
}

// setUp sets the algorithm and the budget of a fresh run of domain d, and
// checks the flags: those of the library's settings (the Bootstrap
// process's and the learner's), reported by blame under the first flag
// whose value alone is refused; -w and -c; the flags that the run's kind
// of learner does not read; and what the kind checks.
func (cfg *trainConfig) setUp(e *env, d domain) error {
	settings := cfg.learners[cfg.learner]
	var alg search.Algorithm
	var err error
	if cfg.flags.alg != "" {
		if alg, err = search.Parse(cfg.flags.alg); err != nil {
			return usagef("train: -alg: %v", err)
		}
	} else if alg, err = settings.Algorithm(cfg.flags.modelPath); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	budget := d.caps().budget
	// finish sets the algorithm of bc, with -w and -c, its budget and the
	// kind's defaults.
	finish := func(bc *bootstrap.Config, w, c paramFlag) {
		bc.Algorithm = withParams(alg, w, c)
		if bc.Options.Budget == 0 {
			bc.Options.Budget = budget
		}
		settings.Defaults(bc.Algorithm, &bc.Options)
	}
	valid := func(c *trainConfig) error {
		bc := c.bc
		finish(&bc, c.flags.w, c.flags.c)
		bc.Validation = bootstrap.Validation{} // no problems read yet: check checks the target
		if err := bc.Validate(); err != nil {
			return err
		}
		return c.learners[c.learner].Validate()
	}
	fresh := func(fs *flag.FlagSet) *trainConfig { return newTrainConfig(fs, e) }
	// Every trial has the schedule, which the flag checked, so that
	// -skip-solved is blamed if the schedule excludes it, and the kind of
	// learner.
	if err := blame(cfg.fs, cfg, fresh, valid, "schedule", "learner"); err != nil {
		return usagef("train: %v", err)
	}
	finish(&cfg.bc, cfg.flags.w, cfg.flags.c)
	if err := checkParams("train", cfg.fs, alg); err != nil {
		return err
	}
	if err := cfg.checkKindFlags(e); err != nil {
		return err
	}
	if err := settings.Check(cfg.learnerRun()); err != nil {
		return usagef("train: %v", err)
	}
	return nil
}

// checkKindFlags returns a usage error if the command line sets a flag of
// a kind of learner other than the run's, or one that the run's kind
// ignores (LearnerKind.Ignores).
func (cfg *trainConfig) checkKindFlags(e *env) error {
	kind, _ := e.kind(cfg.learner)
	refused := slices.Clone(kind.Ignores)
	for _, k := range e.kinds {
		if k.Name != kind.Name {
			fs := flag.NewFlagSet(k.Name, flag.ContinueOnError)
			k.Flags(fs)
			fs.VisitAll(func(f *flag.Flag) { refused = append(refused, f.Name) })
		}
	}
	var err error
	cfg.fs.Visit(func(f *flag.Flag) {
		if err == nil && slices.Contains(refused, f.Name) {
			err = usagef("train: -%s %s: -learner %s trains %s, which does not read it", f.Name, f.Value, kind.Name, kind.Noun)
		}
	})
	return err
}

// learnerRun returns what the run's kind of learner knows of the run.
func (cfg *trainConfig) learnerRun() *LearnerRun {
	return &LearnerRun{
		Domain: cfg.flags.domain, Algorithm: cfg.bc.Algorithm, Options: cfg.bc.Options, PruneDeadlocks: cfg.flags.pruneDeadlocks,
		Model: cfg.flags.modelPath, Threads: cfg.learnerThreads, Logger: cfg.log,
	}
}

// check returns a usage error that names the first flag of cfg out of
// range for domain d, fresh run or resumed, and sets the logger to
// stderr. The settings of a resumed run come from its checkpoint, which
// the library checks.
func (cfg *trainConfig) check(d domain, stderr io.Writer) error {
	if err := d.checkLearner(cfg.learner); err != nil {
		return usagef("train: %v", err)
	}
	switch {
	case cfg.flags.pruneDeadlocks && !d.caps().prunes:
		return usagef("train: -prune-deadlocks: the %s domain has no deadlock pruning", cfg.flags.domain)
	case cfg.bc.ShortenLimit != 0 && !d.caps().shortens:
		return usagef("train: -shorten-learned: the %s domain does not shorten solutions", cfg.flags.domain)
	case cfg.learnerThreads < 0 || cfg.learnerThreads > model.MaxThreads:
		return usagef("train: -learner-threads %d: want 0 to %d (0: 1)", cfg.learnerThreads, model.MaxThreads)
	case cfg.checkpointEvery < 0:
		return usagef("train: -checkpoint %v: want >= 0 (0: 5m)", time.Duration(cfg.checkpointEvery))
	case cfg.ackWait <= 0:
		return usagef("train: -ack-wait %v: want > 0", cfg.ackWait)
	case !cfg.resumed && !(cfg.bc.Validation.Target > 0 && cfg.bc.Validation.Target <= 1):
		return usagef("train: -valid-target %g: want a fraction in (0, 1]", cfg.bc.Validation.Target)
	case !cfg.resumed && len(cfg.validFiles) == 0 && isSet(cfg.fs, "valid-target"):
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
func resumeTrain(ctx context.Context, e *env, dir string, files []string, cfg *trainConfig) error {
	name := filepath.Join(dir, runFile)
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("train: resume: %w", err)
	}
	var rec runRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return fmt.Errorf("train: resume: %s: %w", name, err)
	}
	var init []string
	if rec.Init != "" {
		init = []string{rec.Init}
	}
	for _, f := range []struct {
		name  string
		paths *[]string
	}{{"files", &rec.Files}, {"valid_files", &rec.ValidFiles}, {"init", &init}} {
		if *f.paths, err = resolvePaths(dir, f.name, *f.paths); err != nil {
			return fmt.Errorf("train: resume: %s: %w", name, err)
		}
	}
	if len(init) > 0 {
		rec.Init = init[0]
	}
	if !hasCheckpoint(dir) {
		return fmt.Errorf("train: resume: %s holds no checkpoint: the run stopped as it started; remove the directory and start the run again", dir)
	}
	run, err := bootstrap.ReadConfig(dir)
	if err != nil {
		return fmt.Errorf("train: resume: %w", err)
	}
	if rec.Learner == "" {
		if rec.Learner, err = checkpointLearner(dir); err != nil {
			return fmt.Errorf("train: resume: %w", err)
		}
	}
	if _, ok := e.kind(rec.Learner); !ok {
		return fmt.Errorf("train: resume: %s: learner %q; want %s", name, rec.Learner, kindNames(e.kinds))
	}
	var bad []string
	cfg.fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "iterations":
			run.MaxIterations = cfg.bc.MaxIterations
		case "time":
			run.TimeLimit = cfg.bc.TimeLimit
		case "checkpoint":
			rec.CheckpointEvery = cfg.checkpointEvery
		case "valid":
			rec.ValidFiles = cfg.validFiles
		case "resume", "workers", "learner-threads", "progress", "log", "nkey", "token-file", "ack-wait", "cpuprofile":
		case "listen", "nats":
			if !run.Async {
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
		rec.Files = files
	}
	cfg.bc, cfg.resumed, cfg.dir = run, true, dir
	cfg.flags.domain, cfg.flags.modelPath, cfg.flags.pruneDeadlocks = rec.Domain, rec.Init, rec.PruneDeadlocks
	cfg.learner, cfg.files, cfg.validFiles, cfg.checkpointEvery = rec.Learner, rec.Files, rec.ValidFiles, rec.CheckpointEvery
	d, ok := e.domains[rec.Domain]
	if !ok {
		return fmt.Errorf("train: resume: %s: unknown domain %q", name, rec.Domain)
	}
	if err := cfg.check(d, e.stderr); err != nil {
		return fmt.Errorf("train: resume: %s: %w", dir, err)
	}
	return d.train(ctx, cfg, true, e.stderr)
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

// bootstrapConfig returns the configuration of the run of cfg: that of
// its checkpoint when resumed; for a fresh run, bc with the memory bound
// of the searches and the validation problems read.
func (cfg *trainConfig) bootstrapConfig() bootstrap.Config {
	bc := cfg.bc
	if cfg.resumed {
		return bc
	}
	bc.Options.MaxMemory = cfg.flags.memoryBytes(cfg.flags.workerCount())
	bc.Validation.Problems = cfg.validProblems
	if cfg.validProblems == 0 {
		bc.Validation = bootstrap.Validation{}
	}
	return bc
}

// env returns the environment of the run of cfg.
func (cfg *trainConfig) env() bootstrap.Env {
	logEvery := cfg.flags.progress
	if logEvery == 0 {
		logEvery = math.MaxInt64 // no progress records, only the iterations'
	}
	return bootstrap.Env{Workers: cfg.flags.workers, CheckpointEvery: time.Duration(cfg.checkpointEvery), Logger: cfg.log, LogEvery: logEvery}
}

// trainTasks trains a learner of kind on tasks as cfg says: a fresh run,
// which first writes run.json, or the resumption of one (resume). A fresh
// run that fails before its first checkpoint removes the run directory it
// made.
func trainTasks[S comparable](ctx context.Context, cfg *trainConfig, kind Learner[S], tasks []search.Task[S], resume bool, stderr io.Writer) (err error) {
	if len(tasks) == 0 {
		return errors.New("train: no problems")
	}
	bc := cfg.bootstrapConfig()
	env := cfg.env()
	run := cfg.learnerRun()
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
	// l is the learner of a fresh run.
	var l bootstrap.Learner[S]
	if !resume {
		if l, err = kind.New(cfg.learners[cfg.learner], run, tasks); err != nil {
			return fmt.Errorf("train: %w", err)
		}
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
	cfg.log.Info("training", "learner", cfg.learner, "algorithm", bc.Algorithm.String(), "schedule", bc.Schedule.String(), "problems", len(tasks)-bc.Validation.Problems, "validation_problems", bc.Validation.Problems, "domain", cfg.flags.domain, "workers", workers, "dir", cfg.dir, "blas", nn.BackendInfo())
	if cfg.listen != "" || cfg.natsURL != "" {
		l, stop, serr := startLearner(ctx, cfg, bc, tasks)
		if serr != nil {
			return serr
		}
		env.Pool = l
		defer func() { stop(err == nil) }() // err: training's
	}
	var metrics []bootstrap.Iteration
	if resume {
		load := func(dir string) (bootstrap.Learner[S], error) { return kind.Load(run, dir, tasks) }
		_, metrics, err = bootstrap.Resume(ctx, cfg.dir, tasks, load, env)
	} else {
		metrics, err = bootstrap.Train(ctx, cfg.dir, tasks, l, bc, env)
	}
	reason, limit := stopReason(cfg, bc, metrics, len(tasks)-bc.Validation.Problems)
	switch {
	case errors.Is(err, context.Canceled) && hasCheckpoint(cfg.dir):
		msg := "interrupted; checkpoint written; continue with: phs train -resume " + cfg.dir
		if cfg.bc.TimeLimit > 0 {
			msg += fmt.Sprintf(" (its -time %v counts the training time of every session; -time replaces it)", cfg.bc.TimeLimit)
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

// stopReason says why the run of bc stopped after metrics, over n
// training problems, and whether a limit of cfg stopped it.
func stopReason(cfg *trainConfig, bc bootstrap.Config, metrics []bootstrap.Iteration, n int) (reason string, limit bool) {
	v := bc.Validation
	switch {
	case v.Problems > 0 && len(metrics) > 1 && metrics[len(metrics)-2].ValidTotalSolved >= v.Needed():
		return fmt.Sprintf("the validation target reached (%d of %d solved) and one more iteration done", metrics[len(metrics)-2].ValidTotalSolved, v.Problems), false
	case v.Problems == 0 && len(metrics) > 0 && metrics[len(metrics)-1].TotalSolved == n:
		return "every problem solved", false
	case cfg.bc.MaxIterations > 0 && len(metrics) >= cfg.bc.MaxIterations:
		return fmt.Sprintf("the limit of %d iterations reached", cfg.bc.MaxIterations), true
	case cfg.bc.TimeLimit > 0:
		return fmt.Sprintf("the time limit of %v reached", cfg.bc.TimeLimit), true
	}
	return "a limit reached", true
}

// goOn returns the command that continues a run stopped by a limit.
func goOn(cfg *trainConfig, metrics []bootstrap.Iteration) string {
	cmd := "phs train -resume " + cfg.dir
	if cfg.bc.MaxIterations > 0 && len(metrics) >= cfg.bc.MaxIterations {
		cmd += fmt.Sprintf(" -iterations %d", len(metrics)+1)
	}
	if cfg.bc.TimeLimit > 0 {
		cmd += fmt.Sprintf(" -time %v", cfg.bc.TimeLimit+time.Hour)
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
	rec := runRecord{Domain: cfg.flags.domain, Learner: cfg.learner, PruneDeadlocks: cfg.flags.pruneDeadlocks, CheckpointEvery: cfg.checkpointEvery}
	var err error
	if rec.Files, err = relPaths(cfg.dir, cfg.files); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if rec.ValidFiles, err = relPaths(cfg.dir, cfg.validFiles); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if m := cfg.flags.modelPath; m != "" {
		if rec.Init, err = relPath(cfg.dir, m); err != nil {
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
