package scrambles

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/phs-go/phs/internal/atomicfile"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// The files of a run directory (-dir). It holds no absolute path, so that
// it resumes from any path:
//
//   - SettingsFile: the run's Settings, written when it starts;
//   - ValidFile: its validation problems, if any, in the puzzle's format;
//   - CheckpointDir: the network (config.json, weights.safetensors),
//     Adam's state (optimizer.safetensors: model.Trainer.Save), the
//     target network's weights with -davi (TargetFile) and where the run
//     stands (StateFile: its rounds, its time, the generator's state), all
//     replaced at once: written to CheckpointDir+".new", then renamed;
//   - MetricsJSONL and MetricsCSV: a Row at every checkpoint;
//   - LockFile, held while a process runs it.
const (
	SettingsFile  = "scrambles.json"
	ValidFile     = "valid.txt"
	CheckpointDir = "checkpoint"
	TargetFile    = "target.safetensors"
	StateFile     = "state.json"
	MetricsJSONL  = "metrics.jsonl"
	MetricsCSV    = "metrics.csv"
	LockFile      = ".lock"
)

// ErrFinished is the error of a run resumed at or past its limits; Run
// returns it, wrapped, before it changes anything.
var ErrFinished = errors.New("already finished")

// A State is where a run stands at a checkpoint.
type State struct {
	Round  int   `json:"round"`  // rounds done
	Steps  int   `json:"steps"`  // optimiser steps taken
	States int64 `json:"states"` // cubes learnt
	// Seconds is the run's time, every session counted; TrainSeconds the
	// part of it spent in rounds.
	Seconds      float64 `json:"seconds"`
	TrainSeconds float64 `json:"train_seconds"`
	// CPUSeconds is the CPU time of the run's process, every session
	// counted (0 where the system does not tell it).
	CPUSeconds float64 `json:"cpu_seconds"`
	// NextValid is the run's time, in seconds, from which the next
	// validation is due.
	NextValid float64 `json:"next_valid_seconds,omitempty"`
	// TimeLimit and Rounds are the limits last given, those of a
	// resumption without -time or -rounds.
	TimeLimit Duration `json:"time_limit"`
	Rounds    int      `json:"rounds,omitempty"`
	// RNG is the state of the generator of the scrambles (rand.PCG's
	// MarshalBinary).
	RNG []byte `json:"rng"`
}

// A Row is a line of a run's metrics, written at each checkpoint.
type Row struct {
	Round   int     `json:"round"`
	Steps   int     `json:"steps"`
	States  int64   `json:"states"`
	Seconds float64 `json:"seconds"` // the run's time, every session counted
	// TrainSeconds is the part of Seconds spent in rounds; CPUSeconds
	// the CPU time of the run, every session counted: its core-time.
	TrainSeconds float64 `json:"train_seconds"`
	CPUSeconds   float64 `json:"cpu_seconds"`
	// The mean losses of the rounds since the last row.
	PolicyLoss    float64 `json:"policy_loss"`
	HeuristicLoss float64 `json:"heuristic_loss"`
	// The validation made at this checkpoint, if any.
	*Validation
	lossRounds int // rounds summed in the losses
}

// A Validation is the outcome of one search of each validation cube.
type Validation struct {
	Cubes  int `json:"valid_cubes"`
	Solved int `json:"valid_solved"`
	// Length is the mean length of the solutions found (0 for none);
	// Expansions the mean expansions of all the searches.
	Length     float64 `json:"valid_length"`
	Expansions float64 `json:"valid_expansions"`
	// Seconds is the time the validation took.
	Seconds float64 `json:"valid_seconds"`
}

// A runDir is an open run directory of a puzzle of states S.
type runDir[S comparable] struct {
	pz     *puzzle[S]
	dir    string
	s      Settings
	rows   []Row
	unlock func()
}

// startRun starts a run in dir, which must not hold one, with settings s
// and network m, and trains it to its limits.
func startRun[S comparable](ctx context.Context, pz *puzzle[S], dir, from, valid string, s Settings, m *model.Model, limit time.Duration, rounds int, stderr io.Writer) error {
	if _, err := os.Stat(filepath.Join(dir, SettingsFile)); err == nil {
		return fmt.Errorf("-dir %s holds a run already; go on with it with -resume %s", dir, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	r, err := openRun(pz, dir, s)
	if err != nil {
		return err
	}
	defer r.unlock()
	if from != "" {
		s.From = from
		if filepath.IsAbs(from) {
			s.From = filepath.Base(from)
		}
		r.s = s
	}
	var ps []search.Problem[S]
	if valid != "" {
		if ps, err = pz.read(valid); err != nil {
			return fmt.Errorf("-valid: %w", err)
		}
		b, err := pz.write(ps)
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, ValidFile), b); err != nil {
			return err
		}
		if ps, err = pz.read(filepath.Join(dir, ValidFile)); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, SettingsFile), append(b, '\n')); err != nil {
		return err
	}
	tr := newTrainer(pz, model.NewTrainer(m, model.TrainConfig{LearningRate: s.LR, Threads: s.Threads}), s)
	l := &loop[S]{s: s, tr: tr, rng: newRNG(s.Seed), limit: limit, rounds: rounds, stderr: stderr, save: r.save}
	if err := r.validation(l, ps); err != nil {
		return err
	}
	l.st.NextValid = time.Duration(s.ValidEvery).Seconds()
	l.begin()
	if err := r.save(l); err != nil { // round 0: resumable at once
		return err
	}
	fmt.Fprintf(stderr, "scrambles: a run in %s (-resume %s goes on with it)\n", dir, dir)
	return l.run(ctx)
}

// readSettings returns the settings of the run in dir.
func readSettings(dir string) (Settings, error) {
	b, err := os.ReadFile(filepath.Join(dir, SettingsFile))
	if err != nil {
		return Settings{}, fmt.Errorf("-resume %s: not a run directory of scrambles: %w", dir, err)
	}
	var s Settings
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return Settings{}, fmt.Errorf("%s: %w", filepath.Join(dir, SettingsFile), err)
	}
	if err := s.check(); err != nil {
		return Settings{}, fmt.Errorf("%s: %w", filepath.Join(dir, SettingsFile), err)
	}
	return s, nil
}

// resumeRun goes on with the run in dir, of puzzle pz and settings s, to
// the time limit limit (0: the last given) and to rounds rounds (if
// roundsSet; else the last given).
func resumeRun[S comparable](ctx context.Context, pz *puzzle[S], dir string, s Settings, limit time.Duration, rounds int, roundsSet bool, stderr io.Writer) error {
	r, err := openRun(pz, dir, s)
	if err != nil {
		return err
	}
	defer r.unlock()
	l, err := r.load(stderr)
	if err != nil {
		return err
	}
	if limit != 0 {
		l.limit = limit
	}
	if roundsSet {
		l.rounds = rounds
	}
	l.begin()
	if why := l.finished(); why != "" {
		return fmt.Errorf("-resume %s: %w: %s (the run stands at round %d, %s)", dir, ErrFinished, why, l.st.Round, time.Duration(l.st.Seconds*float64(time.Second)).Round(time.Second))
	}
	fmt.Fprintf(stderr, "scrambles: resuming %s at round %d, %s\n", dir, l.st.Round, time.Duration(l.st.Seconds*float64(time.Second)).Round(time.Second))
	return l.run(ctx)
}

// openRun locks the run directory dir, of puzzle pz and settings s.
func openRun[S comparable](pz *puzzle[S], dir string, s Settings) (*runDir[S], error) {
	unlock, err := lock(filepath.Join(dir, LockFile))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return &runDir[S]{pz: pz, dir: dir, s: s, unlock: unlock}, nil
}

// load reads the checkpoint, the validation problems and the metrics of
// r, and returns the loop that goes on with them.
func (r *runDir[S]) load(stderr io.Writer) (*loop[S], error) {
	cp := filepath.Join(r.dir, CheckpointDir)
	if _, err := os.Stat(cp); errors.Is(err, fs.ErrNotExist) {
		// A checkpoint stopped between its two renames.
		if err := os.Rename(cp+".old", cp); err != nil {
			return nil, fmt.Errorf("%s: no checkpoint: %w", r.dir, err)
		}
	}
	var st State
	b, err := os.ReadFile(filepath.Join(cp, StateFile))
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cp, err)
	}
	t, err := model.LoadTrainer(cp, model.TrainConfig{LearningRate: r.s.LR, Threads: r.s.Threads})
	if err != nil {
		return nil, err
	}
	switch m := t.Model(); {
	case m.Config().Domain != r.pz.domain:
		return nil, fmt.Errorf("%s: a network of %s, not %s", cp, m.Config().Domain, r.pz.domain)
	case r.s.DAVI && m.Config().Heads&model.Heuristic == 0:
		return nil, fmt.Errorf("%s: -davi learns h, and the network has no heuristic head", cp)
	case t.Steps() != st.Steps:
		return nil, fmt.Errorf("%s: %d optimiser steps in %s, %d in %s", cp, t.Steps(), model.OptimizerFile, st.Steps, StateFile)
	}
	tr := newTrainer(r.pz, t, r.s)
	if r.s.DAVI {
		b, err := os.ReadFile(filepath.Join(cp, TargetFile))
		if err == nil {
			err = model.UnmarshalWeights(tr.target, b)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: the target network: %w", cp, err)
		}
	}
	rng := newRNG(r.s.Seed)
	if err := rng.UnmarshalBinary(st.RNG); err != nil {
		return nil, fmt.Errorf("%s: the generator's state: %w", filepath.Join(cp, StateFile), err)
	}
	l := &loop[S]{s: r.s, tr: tr, rng: rng, st: st, limit: time.Duration(st.TimeLimit), rounds: st.Rounds, stderr: stderr, save: r.save}
	var ps []search.Problem[S]
	if r.s.Valid {
		if ps, err = r.pz.read(filepath.Join(r.dir, ValidFile)); err != nil {
			return nil, err
		}
	}
	if err := r.validation(l, ps); err != nil {
		return nil, err
	}
	if r.rows, err = readRows(filepath.Join(r.dir, MetricsJSONL), st.Round); err != nil {
		return nil, err
	}
	return l, nil
}

// validation sets l.validate to solve the problems ps with the network l
// trains, as r's settings say; it leaves it nil without problems.
func (r *runDir[S]) validation(l *loop[S], ps []search.Problem[S]) error {
	if len(ps) == 0 {
		return nil
	}
	alg, err := search.Parse(r.s.ValidAlg)
	if err != nil {
		return fmt.Errorf("-valid-alg: %w", err)
	}
	m := l.tr.t.Model()
	if lack := model.HeadsFor(alg) &^ m.Config().Heads; lack != 0 {
		return fmt.Errorf("-valid-alg %s reads the %v, which the network has not", alg.Name(), lack)
	}
	var ev search.Evaluator[S] = model.NewEvaluator[S](m)
	if r.s.ValidFloor {
		ev = search.HeuristicFloor[S]{Evaluator: ev}
	}
	solver, err := search.NewSolver(alg, ev, search.Options{Budget: r.s.ValidBudget})
	if err != nil {
		return fmt.Errorf("-valid-alg %s: %w", alg.Name(), err)
	}
	l.validate = func(ctx context.Context, l *loop[S]) (*Validation, error) {
		began := time.Now()
		v := &Validation{Cubes: len(ps)}
		var length, expansions int64
		for i, p := range ps {
			res, err := solver.Solve(ctx, p)
			if ctx.Err() != nil {
				return nil, nil
			}
			if err != nil {
				return nil, fmt.Errorf("validation: %s:%d: %w", ValidFile, i+1, err)
			}
			expansions += res.Expansions
			if res.Solved {
				v.Solved++
				length += int64(len(res.Actions))
			}
		}
		if v.Solved > 0 {
			v.Length = float64(length) / float64(v.Solved)
		}
		v.Expansions = float64(expansions) / float64(len(ps))
		v.Seconds = time.Since(began).Seconds()
		fmt.Fprintf(l.stderr, "scrambles: validation at round %d: %d of %d solved, %.1f moves, %.0f expansions, %.0f s\n",
			l.st.Round, v.Solved, v.Cubes, v.Length, v.Expansions, v.Seconds)
		return v, nil
	}
	return nil
}

// save writes a checkpoint of l, and its row of metrics if it trained
// since the last.
func (r *runDir[S]) save(l *loop[S]) error {
	st := &l.st
	st.TimeLimit, st.Rounds = Duration(l.limit), l.rounds
	st.Seconds, st.CPUSeconds = l.elapsed().Seconds(), l.baseCPU+(cpuTime()-l.startCPU).Seconds()
	var err error
	if st.RNG, err = l.rng.MarshalBinary(); err != nil {
		return err
	}
	cp := filepath.Join(r.dir, CheckpointDir)
	tmp, old := cp+".new", cp+".old"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := l.tr.t.Save(tmp); err != nil {
		return err
	}
	if r.s.DAVI {
		b, err := model.MarshalWeights(l.tr.target)
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(tmp, TargetFile), b); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(tmp, StateFile), append(b, '\n')); err != nil {
		return err
	}
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	if err := os.Rename(cp, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Rename(tmp, cp); err != nil {
		return err
	}
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	if l.row.lossRounds == 0 {
		return nil
	}
	row := l.row
	row.Round, row.Steps, row.States, row.Seconds, row.TrainSeconds, row.CPUSeconds = st.Round, st.Steps, st.States, st.Seconds, st.TrainSeconds, st.CPUSeconds
	row.PolicyLoss /= float64(row.lossRounds)
	row.HeuristicLoss /= float64(row.lossRounds)
	r.rows = append(r.rows, row)
	return r.writeMetrics()
}

// metricsColumns are the columns of MetricsCSV, Row's JSON names.
var metricsColumns = []string{"round", "steps", "states", "seconds", "train_seconds", "cpu_seconds", "policy_loss", "heuristic_loss",
	"valid_cubes", "valid_solved", "valid_length", "valid_expansions", "valid_seconds"}

// writeMetrics writes the rows of r to MetricsJSONL and MetricsCSV, each
// replaced atomically.
func (r *runDir[S]) writeMetrics() error {
	var j, c bytes.Buffer
	w := csv.NewWriter(&c)
	w.Write(metricsColumns)
	f := func(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, row := range r.rows {
		b, err := json.Marshal(row)
		if err != nil {
			return err
		}
		j.Write(append(b, '\n'))
		rec := []string{strconv.Itoa(row.Round), strconv.Itoa(row.Steps), strconv.FormatInt(row.States, 10),
			f(row.Seconds, 1), f(row.TrainSeconds, 1), f(row.CPUSeconds, 1), g(row.PolicyLoss), g(row.HeuristicLoss), "", "", "", "", ""}
		if v := row.Validation; v != nil {
			copy(rec[8:], []string{strconv.Itoa(v.Cubes), strconv.Itoa(v.Solved), f(v.Length, 2), f(v.Expansions, 1), f(v.Seconds, 1)})
		}
		w.Write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(r.dir, MetricsJSONL), j.Bytes()); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(r.dir, MetricsCSV), c.Bytes())
}

// readRows reads the rows of the metrics file name up to round last (a
// row past the checkpoint was written by a session that stopped before
// its next checkpoint); a missing file has none.
func readRows(name string, last int) ([]Row, error) {
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rows []Row
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" {
			continue
		}
		var row Row
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		if row.Round <= last {
			rows = append(rows, row)
		}
	}
	return rows, nil
}
