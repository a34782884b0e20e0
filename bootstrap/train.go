package bootstrap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/phs-go/phs/internal/atomicfile"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// TrainConfig sets up a Bootstrap training run. The zero values of the
// numeric fields select the paper's procedure.
type TrainConfig struct {
	// Method is the search algorithm whose network is trained.
	Method Method
	// Options are the search options; Options.Budget is ignored: the
	// budget is Budget, then what the Bootstrap schedule makes of it.
	Options search.Options
	// Budget is the initial expansion budget per problem (2,000 for
	// Sokoban and The Witness, 7,000 for the sliding-tile puzzle in the
	// paper). It must be positive.
	Budget int64
	// BudgetGrowth multiplies the budget after an iteration that solved no
	// new problem; 0 means 2 (doubling, the paper). A smaller factor such as
	// 1.5 gives a smoother schedule.
	BudgetGrowth float64
	// ProblemsPerUpdate is the number of problems attempted between two
	// parameter updates; 0 means 32.
	ProblemsPerUpdate int
	// Passes is the number of passes over an update's trajectories, one
	// optimiser step per trajectory and pass; 0 means 10.
	Passes int
	// SkipSolvedAfter, if positive, skips a problem in an iteration once it
	// was solved in each of the last SkipSolvedAfter iterations in which it
	// was attempted. 0 attempts every problem in every iteration (the paper).
	SkipSolvedAfter int
	// Workers is the number of searches run in parallel; 0 means
	// runtime.NumCPU(). The results do not depend on it.
	Workers int
	// Seed seeds the shuffling of trajectories in updates.
	Seed uint64
	// MaxIterations stops training after this many iterations; 0: no limit.
	MaxIterations int
	// TimeLimit stops training once the run's total wall time, summed over
	// resumptions, exceeds it; 0: no limit.
	TimeLimit time.Duration
	// Dir is the run's directory: checkpoints and metrics go there.
	Dir string
	// CheckpointEvery is the longest time between two checkpoints; 0 means
	// 5 minutes. A checkpoint is also written after every iteration and
	// when training stops.
	CheckpointEvery time.Duration
	// Log, if not nil, receives a progress line every LogEvery (0 means 30
	// seconds) and one per iteration.
	Log      io.Writer
	LogEvery time.Duration

	// afterChunk, if not nil, is called after each update and checkpoint
	// decision; tests use it to interrupt runs.
	afterChunk func(st *TrainState, checkpointed bool)
}

func (c *TrainConfig) defaults() {
	if c.BudgetGrowth == 0 {
		c.BudgetGrowth = 2
	}
	if c.ProblemsPerUpdate == 0 {
		c.ProblemsPerUpdate = 32
	}
	if c.Passes == 0 {
		c.Passes = 10
	}
	if c.Workers <= 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.CheckpointEvery == 0 {
		c.CheckpointEvery = 5 * time.Minute
	}
	if c.LogEvery == 0 {
		c.LogEvery = 30 * time.Second
	}
}

// Iteration holds the metrics of one Bootstrap iteration: one row of a
// learning curve.
type Iteration struct {
	Iteration int   `json:"iteration"`
	Budget    int64 `json:"budget"`
	// Attempted, Solved and New count the problems attempted, solved and
	// solved for the first time in this iteration; TotalSolved counts those
	// solved at least once so far.
	Attempted   int `json:"attempted"`
	Solved      int `json:"solved"`
	New         int `json:"new"`
	TotalSolved int `json:"total_solved"`
	// Expansions and Evaluations sum over the iteration's searches;
	// TotalExpansions over the whole run.
	Expansions      int64 `json:"expansions"`
	TotalExpansions int64 `json:"total_expansions"`
	Evaluations     int64 `json:"evaluations"`
	// Updates counts optimiser steps; the losses are their means.
	Updates       int     `json:"updates"`
	PolicyLoss    float64 `json:"policy_loss"`
	HeuristicLoss float64 `json:"heuristic_loss"`
	// IterationS is the iteration's wall time, WallS the run's total wall
	// time at its end, both in seconds.
	IterationS float64 `json:"iteration_s"`
	WallS      float64 `json:"wall_s"`
	// Partial marks the iteration under way when the metrics were
	// written: the last row of a run's metrics files until it ends.
	Partial bool `json:"partial,omitempty"`
}

// TrainState is everything a training run needs to go on after a restart,
// besides the model and the optimiser.
type TrainState struct {
	// Iteration is the current iteration, from 1; Next is the position in
	// its list of problems of the next one to attempt.
	Iteration int   `json:"iteration"`
	Next      int   `json:"next"`
	Budget    int64 `json:"budget"`
	// Solved[i] is 1 if problem i was ever solved; SolvedNow[i] if it was
	// solved in the current iteration; Streak[i] counts the consecutive
	// attempted iterations, up to 255, that solved it.
	Solved    []byte `json:"solved"`
	SolvedNow []byte `json:"solved_now"`
	Streak    []byte `json:"streak"`
	// Current accumulates the metrics of the current iteration; the loss
	// fields hold sums until the iteration ends.
	Current Iteration `json:"current"`
	// Metrics are the finished iterations.
	Metrics []Iteration `json:"metrics"`
	// ElapsedS is the run's wall time so far in seconds.
	ElapsedS float64 `json:"elapsed_s"`
	// RNG is the state of the update shuffler.
	RNG []byte `json:"rng"`
	// Done reports that training reached a stopping condition.
	Done bool `json:"done"`
	// Problems is the number of training problems, checked on resume.
	Problems int `json:"problems"`
}

const (
	checkpointDir = "checkpoint"
	stateFile     = "state.json"
)

// ErrTrainingDone is returned by Train when the state loaded from a
// checkpoint has already finished.
var ErrTrainingDone = errors.New("bootstrap: training already finished")

// NewTrainState returns the state of a fresh run over n problems.
func NewTrainState(cfg TrainConfig, n int) *TrainState {
	rng := rand.NewPCG(cfg.Seed, 0x5eed)
	b, _ := rng.MarshalBinary()
	return &TrainState{
		Iteration: 1,
		Budget:    cfg.Budget,
		Solved:    make([]byte, n),
		SolvedNow: make([]byte, n),
		Streak:    make([]byte, n),
		RNG:       b,
		Problems:  n,
	}
}

// LoadCheckpoint reads the checkpoint in run directory dir: the trainer
// (model and optimiser) and the state.
func LoadCheckpoint(dir string, lc model.TrainConfig) (*model.Trainer, *TrainState, error) {
	cp := filepath.Join(dir, checkpointDir)
	if _, err := os.Stat(cp); errors.Is(err, os.ErrNotExist) {
		// A crash between the two renames of writeCheckpoint leaves the
		// previous checkpoint under its old name.
		if _, err := os.Stat(cp + ".old"); err == nil {
			cp += ".old"
		}
	}
	tr, err := model.LoadTrainer(cp, lc)
	if err != nil {
		return nil, nil, fmt.Errorf("bootstrap: resume %s: %w", dir, err)
	}
	b, err := os.ReadFile(filepath.Join(cp, stateFile))
	if err != nil {
		return nil, nil, fmt.Errorf("bootstrap: resume %s: %w", dir, err)
	}
	var st TrainState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, nil, fmt.Errorf("bootstrap: resume %s: %s: %w", dir, stateFile, err)
	}
	return tr, &st, nil
}

// Train runs the Bootstrap process of Orseau & Lelis (2021) on tasks,
// training tr's model, from state st (NewTrainState for a fresh run, or
// LoadCheckpoint's to resume), until a stopping condition of cfg holds or
// ctx is done. It writes a checkpoint and the metrics to cfg.Dir after every
// iteration, at least every cfg.CheckpointEvery, and when it stops. It
// returns ctx.Err() if interrupted, after writing the checkpoint.
//
// Every iteration attempts the problems in input order (skipping, with
// SkipSolvedAfter, the long-solved ones), in consecutive groups of
// ProblemsPerUpdate. The searches of a group run in parallel on
// cfg.Workers workers against the same weights; when the whole group is done,
// the solved problems' trajectories, taken in input order and shuffled
// with the seeded generator at each of the Passes passes, update the model,
// one optimiser step per trajectory. Because a group's searches all see the
// weights left by the previous group, and a search is deterministic given
// its weights, the run does not depend on the number of workers or on the
// order in which searches finish. If an iteration solves no problem that
// was never solved before, the budget grows by BudgetGrowth.
func Train[S comparable](ctx context.Context, tasks []Task[S], tr *model.Trainer, cfg TrainConfig, st *TrainState) error {
	cfg.defaults()
	if cfg.Budget <= 0 {
		return errors.New("bootstrap: train: budget must be positive")
	}
	if cfg.Dir == "" {
		return errors.New("bootstrap: train: no run directory")
	}
	if st.Problems != len(tasks) || len(st.Solved) != len(tasks) {
		return fmt.Errorf("bootstrap: train: the checkpoint is for %d problems, got %d", st.Problems, len(tasks))
	}
	if st.Done && st.finished(cfg, st.ElapsedS) {
		return ErrTrainingDone
	}
	st.Done = false // the limits were raised
	var rng rand.PCG
	if err := rng.UnmarshalBinary(st.RNG); err != nil {
		return fmt.Errorf("bootstrap: train: rng state: %w", err)
	}
	shuffle := rand.New(&rng)

	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return fmt.Errorf("bootstrap: train: %w", err)
	}
	// Searches only run while the learner waits, so the evaluators may read
	// the trainer's weights directly.
	newEval := func() search.Evaluator[S] { return model.NewEvaluator[S](tr.Model()) }

	start := time.Now()
	base := st.ElapsedS
	elapsed := func() float64 { return base + time.Since(start).Seconds() }
	lastCheckpoint, lastLog := time.Now(), time.Now()
	iterStart := time.Now()
	iterBase := st.Current.IterationS

	checkpoint := func() error {
		st.ElapsedS = elapsed()
		st.Current.IterationS = iterBase + time.Since(iterStart).Seconds()
		b, err := rng.MarshalBinary()
		if err != nil {
			return err
		}
		st.RNG = b
		lastCheckpoint = time.Now()
		return writeCheckpoint(cfg.Dir, tr, st)
	}

	var samples []model.Sample
	for {
		order := st.attemptOrder(cfg.SkipSolvedAfter)
		opts := cfg.Options
		opts.Budget = st.Budget
		solvers, err := NewSolvers(cfg.Method, opts, cfg.Workers, newEval)
		if err != nil {
			return err
		}
		for st.Next < len(order) {
			if cfg.TimeLimit > 0 && elapsed() >= cfg.TimeLimit.Seconds() {
				st.Done = true
				return checkpoint()
			}
			group := order[st.Next:min(st.Next+cfg.ProblemsPerUpdate, len(order))]
			gt := make([]Task[S], len(group))
			for i, k := range group {
				gt[i] = tasks[k]
			}
			results := make([]search.Result[S], len(group))
			err := Solve(ctx, gt, solvers, func(i int, r search.Result[S]) error {
				results[i] = r
				return nil
			})
			if err != nil {
				if ctx.Err() != nil {
					// The group is lost; the state is still that of its
					// start.
					if cerr := checkpoint(); cerr != nil {
						return cerr
					}
					return ctx.Err()
				}
				return err
			}
			samples = samples[:0]
			cur := &st.Current
			for i, r := range results {
				k := group[i]
				cur.Attempted++
				cur.Expansions += r.Expansions
				cur.Evaluations += r.Evaluations
				if !r.Solved {
					continue
				}
				cur.Solved++
				st.SolvedNow[k] = 1
				if st.Solved[k] == 0 {
					st.Solved[k] = 1
					cur.New++
				}
				s, err := sample(gt[i].Problem, r.Trajectory)
				if err != nil {
					return fmt.Errorf("bootstrap: train: %s: %w", gt[i].ID, err)
				}
				samples = append(samples, s)
			}
			for range cfg.Passes {
				shuffle.Shuffle(len(samples), func(i, j int) { samples[i], samples[j] = samples[j], samples[i] })
				for _, s := range samples {
					l, err := tr.Step(s)
					if err != nil {
						return err
					}
					st.Current.Updates++
					st.Current.PolicyLoss += l.Policy
					st.Current.HeuristicLoss += l.Heuristic
				}
			}
			st.Next += len(group)

			checkpointed := false
			if time.Since(lastCheckpoint) >= cfg.CheckpointEvery {
				if err := checkpoint(); err != nil {
					return err
				}
				checkpointed = true
			}
			if cfg.Log != nil && time.Since(lastLog) >= cfg.LogEvery {
				lastLog = time.Now()
				st.logProgress(cfg.Log, len(order), iterBase+time.Since(iterStart).Seconds(), elapsed())
			}
			if cfg.afterChunk != nil {
				cfg.afterChunk(st, checkpointed)
			}
			if err := ctx.Err(); err != nil {
				if cerr := checkpoint(); cerr != nil {
					return cerr
				}
				return err
			}
		}

		// End of the iteration.
		st.Current.IterationS = iterBase + time.Since(iterStart).Seconds()
		it := st.summary(elapsed())
		st.Metrics = append(st.Metrics, it)
		for _, k := range order {
			switch {
			case st.SolvedNow[k] == 0:
				st.Streak[k] = 0
			case st.Streak[k] < math.MaxUint8:
				st.Streak[k]++
			}
		}
		clear(st.SolvedNow)
		if it.New == 0 {
			st.Budget = int64(math.Ceil(float64(st.Budget) * cfg.BudgetGrowth))
		}
		st.Iteration++
		st.Next = 0
		st.Current = Iteration{}
		iterStart, iterBase = time.Now(), 0
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "iteration %d: budget %d, solved %d/%d (%d new), %d/%d solved so far, %d expansions, %.0fs\n",
				it.Iteration, it.Budget, it.Solved, it.Attempted, it.New, it.TotalSolved, len(tasks), it.Expansions, it.WallS)
		}
		st.Done = st.finished(cfg, elapsed())
		if err := checkpoint(); err != nil {
			return err
		}
		if st.Done {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// finished reports whether training is over, after elapsed seconds: every
// problem solved, or a limit of cfg reached.
func (st *TrainState) finished(cfg TrainConfig, elapsed float64) bool {
	return st.totalSolved() == len(st.Solved) ||
		(cfg.MaxIterations > 0 && len(st.Metrics) >= cfg.MaxIterations) ||
		(cfg.TimeLimit > 0 && elapsed >= cfg.TimeLimit.Seconds())
}

// attemptOrder returns the problems the current iteration attempts, in order.
func (st *TrainState) attemptOrder(skipAfter int) []int {
	order := make([]int, 0, len(st.Solved))
	for k := range st.Solved {
		if skipAfter > 0 && int(st.Streak[k]) >= skipAfter {
			continue
		}
		order = append(order, k)
	}
	return order
}

// summary returns the metrics of the current iteration as it stands after
// elapsed seconds of training.
func (st *TrainState) summary(elapsed float64) Iteration {
	it := st.Current
	it.Iteration = st.Iteration
	it.Budget = st.Budget
	it.TotalSolved = st.totalSolved()
	it.TotalExpansions = it.Expansions
	if len(st.Metrics) > 0 {
		it.TotalExpansions += st.Metrics[len(st.Metrics)-1].TotalExpansions
	}
	if it.Updates > 0 {
		it.PolicyLoss /= float64(it.Updates)
		it.HeuristicLoss /= float64(it.Updates)
	}
	it.WallS = elapsed
	return it
}

func (st *TrainState) totalSolved() int {
	n := 0
	for _, s := range st.Solved {
		n += int(s)
	}
	return n
}

func (st *TrainState) logProgress(w io.Writer, n int, iterS, elapsed float64) {
	fmt.Fprintf(w, "iteration %d: %d/%d attempted, %d solved (%d new), %d solved so far, budget %d, %.0f expansions/s, %.0fs\n",
		st.Iteration, st.Next, n, st.Current.Solved, st.Current.New, st.totalSolved(), st.Budget,
		float64(st.Current.Expansions)/max(iterS, 1e-9), elapsed)
}

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

// writeCheckpoint writes the trainer and the state to dir/checkpoint and the
// metrics to dir/metrics.csv and dir/metrics.jsonl. The checkpoint is
// written to a new directory that then replaces the old one, so that a
// crash at any moment leaves a complete checkpoint.
func writeCheckpoint(dir string, tr *model.Trainer, st *TrainState) error {
	cp := filepath.Join(dir, checkpointDir)
	tmp, old := cp+".new", cp+".old"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := tr.Save(tmp); err != nil {
		return fmt.Errorf("bootstrap: checkpoint: %w", err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(tmp, stateFile), b); err != nil {
		return fmt.Errorf("bootstrap: checkpoint: %w", err)
	}
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	if err := os.Rename(cp, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Rename(tmp, cp); err != nil {
		return err
	}
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	metrics := st.Metrics
	if st.Current.Attempted > 0 {
		it := st.summary(st.ElapsedS)
		it.Partial = true
		metrics = append(metrics[:len(metrics):len(metrics)], it)
	}
	return writeMetrics(dir, metrics)
}
