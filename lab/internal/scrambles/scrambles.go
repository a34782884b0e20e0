// Package scrambles is the command scrambles (lab/cmd/scrambles): it
// trains a network of the Rubik's cube (-domain rubiks, a ResNet) or of
// the sliding-tile puzzle (-domain stp -size 6x6, the paper's network)
// without search, on random scrambles read backwards. A scramble of k
// moves from the goal (quarter turns; moves of the blank), undone move by
// move, is a solution of k moves of the state it makes, and each of its
// states is a training example for the policy (the move that undoes the
// scramble's move into it) and for the heuristic (the moves left or, with
// -davi, DeepCubeA's approximate value iteration: min over the legal moves
// of 1 + h of the child, h a target network's that copies the trained
// weights every -sync steps, floored with -floor at the puzzle's
// admissible heuristic, the cube's pattern databases or the Manhattan
// distance, and capped with -cap at the moves left of the scramble, an
// upper bound; with -greedy too, the policy learns the move that value
// iteration picks, not the undoing move). The losses are the model's
// (model.Trainer), at weight 1 a scramble:
//
//	scrambles -out DIR [-domain rubiks | -domain stp -size RxC] [-model DIR | -alg phsstar [-units 256 -blocks 4]] [-min 1] [-max 20] [-n 512] [-step 32] [-lr 1e-3] [-davi [-sync 500] [-greedy] [-floor] [-cap]] [-time 10m] [-rounds 0] [-seed 1] [-threads 1]
//	scrambles -dir DIR [the same flags] [-valid FILE [-valid-every 15m] [-valid-alg gbfs] [-valid-budget 2000] [-valid-floor=true]]
//	scrambles -resume DIR [-time TOTAL] [-rounds N] [-threads N]
//
// Each round draws -n scrambles of lengths uniform in [-min, -max] (no
// move undoes the one before it: rubiks.Scramble, stp.GenerateWalk's
// walks) and learns them in steps of -step scrambles.
//
// With -out, the network is written to DIR after every -save of training
// and at the end (-time, -rounds, or an interrupt); -model DIR goes on
// from it (Adam's moments start again from zero; the rounds' scrambles
// come from -seed, so give another one). A record a round goes to
// standard error.
//
// With -dir, DIR is a run directory that -resume DIR goes on with, from
// any path, exactly as if the run had not stopped (runDir says what it
// holds): -time is then the run's total time, every session counted, and
// the run stops at it, at -rounds, or on SIGINT or SIGTERM, with a
// checkpoint. (-threads, which a resumption may change, changes the
// rounding of a step's sums: a run resumes bit for bit with the same.)
// With -valid, the run solves the problems of FILE (phs generate's, copied
// into DIR) every -valid-every of its time, each with one search of the
// network, -valid-alg within -valid-budget expansions, and records those
// solved, their mean length and the mean expansions in its metrics
// (valid_cubes, valid_solved, ... whatever the puzzle).
package scrambles

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// Settings are a run's settings, the flags of the command; a run
// directory keeps them in SettingsFile.
type Settings struct {
	// Domain is the puzzle: "rubiks" (also when empty, as in the runs of
	// earlier versions) or "stp", of Size rows×cols cells ("6x6").
	Domain string `json:"domain,omitempty"`
	Size   string `json:"size,omitempty"`
	// The network: a fresh one of Alg, and of Units and Blocks for the
	// cube's ResNet, or From's.
	Alg    string `json:"alg"`
	Units  int    `json:"units"`
	Blocks int    `json:"blocks"`
	// From is the directory of the network the run started from, as
	// given, or its base name if it was an absolute path; informative.
	From string `json:"from,omitempty"`
	// The scrambles and the steps.
	Min  int     `json:"min"`
	Max  int     `json:"max"`
	N    int     `json:"n"`
	Step int     `json:"step"`
	LR   float64 `json:"lr"`
	Seed uint64  `json:"seed"`
	// Value iteration.
	DAVI   bool `json:"davi"`
	Sync   int  `json:"sync"`
	Greedy bool `json:"greedy"`
	Floor  bool `json:"floor"`
	Cap    bool `json:"cap,omitempty"`
	// Save is the longest time between two checkpoints; Threads the
	// goroutines of a step.
	Save    Duration `json:"save"`
	Threads int      `json:"threads"`
	// Validation: Valid is true if the run has validation cubes
	// (ValidFile in the run directory).
	Valid       bool     `json:"valid"`
	ValidEvery  Duration `json:"valid_every,omitempty"`
	ValidAlg    string   `json:"valid_alg,omitempty"`
	ValidBudget int64    `json:"valid_budget,omitempty"`
	ValidFloor  bool     `json:"valid_floor,omitempty"`
}

// A Duration is a time.Duration written in JSON as time.Duration.String
// writes it ("15m0s").
type Duration time.Duration

func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = Duration(v)
	return err
}

// check returns an error, naming the flags, if the settings are out of
// range.
func (s *Settings) check() error {
	switch {
	case s.Min < 1 || s.Max < s.Min || s.Max > 1000:
		return fmt.Errorf("-min %d -max %d; want 1 ≤ min ≤ max ≤ 1000", s.Min, s.Max)
	case s.Step < 1 || s.N < s.Step:
		return fmt.Errorf("-n %d -step %d; want 1 ≤ step ≤ n", s.N, s.Step)
	case !(s.LR > 0):
		return fmt.Errorf("-lr %g; want > 0", s.LR)
	case s.Save <= 0:
		return fmt.Errorf("-save %v; want > 0", time.Duration(s.Save))
	case s.Sync < 1:
		return fmt.Errorf("-sync %d; want ≥ 1", s.Sync)
	case s.Greedy && !s.DAVI:
		return errors.New("-greedy needs -davi")
	case s.Floor && !s.DAVI:
		return errors.New("-floor needs -davi")
	case s.Cap && !s.DAVI:
		return errors.New("-cap needs -davi")
	case s.Threads < 1 || s.Threads > model.MaxThreads:
		return fmt.Errorf("-threads %d; want 1 to %d", s.Threads, model.MaxThreads)
	case s.Units < 1 || s.Blocks < 1:
		return fmt.Errorf("-units %d -blocks %d; want ≥ 1", s.Units, s.Blocks)
	}
	switch s.Domain {
	case "", "rubiks":
		if s.Size != "" {
			return fmt.Errorf("-size %s is for -domain stp", s.Size)
		}
	case "stp":
		rows, cols, err := parseSize(s.Size)
		if err != nil {
			return err
		}
		if err := stp.CheckSize[stp.LargeState](rows, cols); err != nil {
			return fmt.Errorf("-size %s: %w", s.Size, err)
		}
	default:
		return fmt.Errorf("-domain %q; want rubiks or stp", s.Domain)
	}
	if _, err := search.Parse(s.Alg); err != nil {
		return fmt.Errorf("-alg: %w", err)
	}
	if !s.Valid {
		return nil
	}
	if s.ValidEvery <= 0 || s.ValidBudget < 1 {
		return fmt.Errorf("-valid-every %v -valid-budget %d; want > 0", time.Duration(s.ValidEvery), s.ValidBudget)
	}
	if _, err := search.Parse(s.ValidAlg); err != nil {
		return fmt.Errorf("-valid-alg: %w", err)
	}
	return nil
}

// Run runs the command scrambles with the arguments args (the flags of
// the package's doc), writing its records to stderr. It returns when
// training stops, at -time, at -rounds or when ctx is done, with nil; a
// run directory resumed past its time limit or its rounds is the error
// ErrFinished, which Run returns before it changes anything.
func Run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("scrambles", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.out, "out", "", "the directory of the trained network (one of -out, -dir, -resume)")
	fs.StringVar(&o.dir, "dir", "", "a new run directory, resumable with -resume (one of -out, -dir, -resume)")
	fs.StringVar(&o.resume, "resume", "", "go on with the run in this directory, with its settings (one of -out, -dir, -resume)")
	fs.StringVar(&o.from, "model", "", "a network to go on from (default: a fresh one of -alg, -units, -blocks)")
	s := &o.s
	fs.StringVar(&s.Domain, "domain", "rubiks", "the puzzle: rubiks or stp (of -size)")
	fs.StringVar(&s.Size, "size", "", "with -domain stp, the board's rows and columns, such as 6x6")
	fs.StringVar(&s.Alg, "alg", "phsstar", "the algorithm of a fresh network, which sets its heads")
	fs.IntVar(&s.Units, "units", 256, "a fresh cube network's units a layer")
	fs.IntVar(&s.Blocks, "blocks", 4, "a fresh cube network's residual blocks")
	fs.IntVar(&s.Min, "min", 1, "the shortest scramble, in moves (≥ 1)")
	fs.IntVar(&s.Max, "max", 20, "the longest scramble, in moves (≥ -min, ≤ 1000)")
	fs.IntVar(&s.N, "n", 512, "scrambles a round (≥ -step; rounded down to a multiple of it)")
	fs.IntVar(&s.Step, "step", 32, "scrambles an optimiser step (≥ 1)")
	fs.Float64Var(&s.LR, "lr", 1e-3, "Adam's learning rate (> 0)")
	fs.DurationVar(&o.limit, "time", 10*time.Minute, "training time (> 0); of a run directory, its total over every session")
	fs.IntVar(&o.rounds, "rounds", 0, "stop after this many rounds, of a run directory its total (0: no limit)")
	fs.Var(durationFlag{&s.Save}, "save", "the longest time between two writes of the network or checkpoints (> 0) (default 5m0s)")
	s.Save = Duration(5 * time.Minute)
	fs.Uint64Var(&s.Seed, "seed", 1, "seed of the scrambles and of a fresh network")
	fs.BoolVar(&s.DAVI, "davi", false, "learn h by approximate value iteration (DeepCubeA's DAVI) against a target network, not the moves left")
	fs.BoolVar(&s.Greedy, "greedy", false, "with -davi, the policy learns the move to the child of least h by the target network (the undoing move on ties), not the undoing move")
	fs.BoolVar(&s.Floor, "floor", false, "with -davi, the target network's h of a child is at least the puzzle's admissible heuristic (the cube's pattern databases, the Manhattan distance)")
	fs.BoolVar(&s.Cap, "cap", false, "with -davi, no target above the moves left of its scramble, the length of a path to the goal")
	fs.IntVar(&s.Sync, "sync", 500, "with -davi, optimiser steps between two copies of the weights to the target network (≥ 1)")
	fs.IntVar(&s.Threads, "threads", 1, fmt.Sprintf("goroutines of a step, 1 to %d", model.MaxThreads))
	fs.StringVar(&o.valid, "valid", "", "with -dir, a file of validation problems (phs generate rubiks or stp), copied into the run directory")
	fs.Var(durationFlag{&s.ValidEvery}, "valid-every", "with -valid, the run's time between two validations (> 0) (default 15m0s)")
	s.ValidEvery = Duration(15 * time.Minute)
	fs.StringVar(&s.ValidAlg, "valid-alg", "gbfs", "with -valid, the search of each validation problem (wastar:W gives WA*'s weight)")
	fs.Int64Var(&s.ValidBudget, "valid-budget", 2000, "with -valid, the expansion budget of each validation search (≥ 1)")
	fs.BoolVar(&s.ValidFloor, "valid-floor", true, "with -valid, the validation searches read the larger of the network's h and the puzzle's admissible heuristic, as phs solve does with a network trained with -floor")
	if err := fs.Parse(args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	modes := 0
	for _, m := range []string{o.out, o.dir, o.resume} {
		if m != "" {
			modes++
		}
	}
	switch {
	case fs.NArg() != 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case modes != 1:
		return errors.New("want one of -out, -dir and -resume")
	case o.limit <= 0 || o.rounds < 0:
		return fmt.Errorf("-time %v -rounds %d; want time > 0, rounds ≥ 0", o.limit, o.rounds)
	}
	if o.resume != "" {
		for name := range set {
			if name != "resume" && name != "time" && name != "rounds" && name != "threads" {
				return fmt.Errorf("-resume takes the run's settings from %s; -%s cannot change them (only -time, -rounds and -threads can)", SettingsFile, name)
			}
		}
		threads := s.Threads
		rs, err := readSettings(o.resume)
		if err != nil {
			return err
		}
		o.s = rs
		if set["threads"] {
			s.Threads = threads
		}
		if !set["time"] {
			o.limit = 0
		}
		o.roundsSet = set["rounds"]
	} else {
		if o.valid != "" && o.dir == "" {
			return errors.New("-valid needs -dir: the validations are recorded in a run directory")
		}
		for _, name := range []string{"valid-every", "valid-alg", "valid-budget", "valid-floor"} {
			if set[name] && o.valid == "" {
				return fmt.Errorf("-%s needs -valid", name)
			}
		}
		if s.Domain == "stp" && (set["units"] || set["blocks"]) {
			return errors.New("-units and -blocks size the cube's ResNet; the sliding-tile network is the paper's")
		}
		s.Valid = o.valid != ""
		if !s.Valid {
			s.ValidEvery, s.ValidAlg, s.ValidBudget, s.ValidFloor = 0, "", 0, false
		}
		if err := s.check(); err != nil {
			return err
		}
	}
	switch s.Domain {
	case "", "rubiks":
		return run(ctx, &o, cube(), stderr)
	default: // stp, as check says
		rows, cols, _ := parseSize(s.Size)
		pz, err := slidingTiles(rows, cols)
		if err != nil {
			return fmt.Errorf("-size %s: %w", s.Size, err)
		}
		return run(ctx, &o, pz, stderr)
	}
}

// options are Run's flags besides the settings.
type options struct {
	s                      Settings
	out, dir, resume, from string
	valid                  string
	limit                  time.Duration // of -resume, 0 if not given
	rounds                 int
	roundsSet              bool
}

// run runs the command on the puzzle pz, as o says.
func run[S comparable](ctx context.Context, o *options, pz *puzzle[S], stderr io.Writer) error {
	s := o.s
	if o.resume != "" {
		return resumeRun(ctx, pz, o.resume, s, o.limit, o.rounds, o.roundsSet, stderr)
	}
	m, err := network(pz, o.from, s.Alg, s.Units, s.Blocks, s.Seed)
	if err != nil {
		return err
	}
	if s.DAVI && m.Config().Heads&model.Heuristic == 0 {
		return fmt.Errorf("-davi learns h, and the network has no heuristic head (%v)", m.Config().Algorithm)
	}
	if o.dir != "" {
		return startRun(ctx, pz, o.dir, o.from, o.valid, s, m, o.limit, o.rounds, stderr)
	}
	tr := newTrainer(pz, model.NewTrainer(m, model.TrainConfig{LearningRate: s.LR, Threads: s.Threads}), s)
	l := &loop[S]{s: s, tr: tr, rng: newRNG(s.Seed), limit: o.limit, rounds: o.rounds, stderr: stderr,
		save: func(*loop[S]) error { return model.Save(o.out, m) }}
	if err := l.run(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "scrambles: %d states in %s; network in %s\n", l.st.States, l.elapsed().Round(time.Second), o.out)
	return nil
}

// parseSize returns the rows and columns of a size such as "6x6".
func parseSize(size string) (rows, cols int, err error) {
	r, c, ok := strings.Cut(size, "x")
	if ok {
		rows, err = strconv.Atoi(r)
		if err == nil {
			cols, err = strconv.Atoi(c)
		}
	}
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("-size %q; want ROWSxCOLS, such as 6x6", size)
	}
	return rows, cols, nil
}

// durationFlag is a flag.Value that sets a Duration.
type durationFlag struct{ d *Duration }

func (f durationFlag) String() string {
	if f.d == nil {
		return ""
	}
	return time.Duration(*f.d).String()
}

func (f durationFlag) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return errors.New("not a duration")
	}
	*f.d = Duration(d)
	return nil
}

// newRNG returns the generator of the scrambles of a run of the given
// seed.
func newRNG(seed uint64) *rand.PCG { return rand.NewPCG(seed, 0x736372616d626c65) }

// A loop trains round after round and stops at its limits.
type loop[S comparable] struct {
	s      Settings
	tr     *trainer[S]
	rng    *rand.PCG
	st     State // where the run stands
	limit  time.Duration
	rounds int // 0: no limit
	stderr io.Writer
	// save writes the network, or a checkpoint; validate, if not nil,
	// runs a validation when one is due, before save.
	save     func(*loop[S]) error
	validate func(ctx context.Context, l *loop[S]) (*Validation, error)
	// row holds the losses since the last checkpoint.
	row Row
	// start is when this session began, at st.Seconds of the run; startCPU
	// the process's CPU time then, at st.CPUSeconds.
	start    time.Time
	base     float64
	startCPU time.Duration
	baseCPU  float64
}

// begin starts the session's clocks at the run's times of l.st.
func (l *loop[S]) begin() {
	l.start, l.base = time.Now(), l.st.Seconds
	l.startCPU, l.baseCPU = cpuTime(), l.st.CPUSeconds
}

// elapsed returns the run's time so far, every session counted.
func (l *loop[S]) elapsed() time.Duration {
	return time.Duration(l.base*float64(time.Second)) + time.Since(l.start)
}

// finished returns a reason to stop before the next round, or "".
func (l *loop[S]) finished() string {
	switch {
	case l.elapsed() >= l.limit:
		return fmt.Sprintf("the time limit %v", l.limit)
	case l.rounds > 0 && l.st.Round >= l.rounds:
		return fmt.Sprintf("the %d rounds", l.rounds)
	}
	return ""
}

// run trains rounds until ctx is done or a limit is reached; it saves
// after every -save, after a validation and when it stops.
func (l *loop[S]) run(ctx context.Context) error {
	l.begin()
	saved := time.Now()
	rng := rand.New(l.rng)
	scr := make([][]int, l.s.Step)
	for {
		began := time.Now()
		l.st.Round++
		var loss model.Losses
		for range l.s.N / l.s.Step {
			for i := range scr {
				scr[i] = l.tr.pz.scramble(rng, l.s.Min, l.s.Max)
				l.st.States += int64(len(scr[i]))
			}
			li, err := l.tr.step(scr)
			if err != nil {
				return err
			}
			loss.Policy, loss.Heuristic = loss.Policy+li.Policy, loss.Heuristic+li.Heuristic
		}
		steps := float64(l.s.N / l.s.Step)
		l.st.Steps = l.tr.t.Steps()
		l.st.TrainSeconds += time.Since(began).Seconds()
		l.row.PolicyLoss += loss.Policy / steps
		l.row.HeuristicLoss += loss.Heuristic / steps
		l.row.lossRounds++
		fmt.Fprintf(l.stderr, "scrambles: round %d: %d states, policy loss %.4f, heuristic loss %.4f, %s\n",
			l.st.Round, l.st.States, loss.Policy/steps, loss.Heuristic/steps, l.elapsed().Round(time.Second))
		why := l.finished()
		if ctx.Err() != nil {
			why = "an interrupt"
		}
		validated := false
		if why == "" && l.validate != nil && l.elapsed().Seconds() >= l.st.NextValid {
			v, err := l.validate(ctx, l)
			if err != nil {
				return err
			}
			if v != nil { // nil: interrupted
				l.row.Validation = v
				every := time.Duration(l.s.ValidEvery).Seconds()
				l.st.NextValid = (float64(int64(l.elapsed().Seconds()/every)) + 1) * every
				validated = true
			}
			if ctx.Err() != nil {
				why = "an interrupt"
			}
		}
		if why != "" || validated || time.Since(saved) >= time.Duration(l.s.Save) {
			if err := l.save(l); err != nil {
				return err
			}
			saved = time.Now()
			l.row = Row{}
		}
		if why != "" {
			fmt.Fprintf(l.stderr, "scrambles: stopped at %s, round %d, %s\n", why, l.st.Round, l.elapsed().Round(time.Second))
			return nil
		}
	}
}
