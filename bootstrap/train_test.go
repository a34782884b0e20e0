package bootstrap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// mazes returns n random 6x6 mazes with a start and a goal.
func mazes(n int, seed uint64) []Task[int32] {
	rng := rand.New(rand.NewPCG(seed, 1))
	var ts []Task[int32]
	for len(ts) < n {
		rows := make([][]byte, 6)
		for r := range rows {
			rows[r] = []byte("......")
			for c := range rows[r] {
				if rng.IntN(5) == 0 {
					rows[r][c] = '#'
				}
			}
		}
		s, g := rng.IntN(36), rng.IntN(36)
		if s == g {
			continue
		}
		rows[s/6][s%6], rows[g/6][g%6] = 'S', 'G'
		strs := make([]string, 6)
		for i, r := range rows {
			strs[i] = string(r)
		}
		m := searchtest.ParseMaze(strs...)
		if searchtest.BFS[int32](m) < 3 { // unsolvable, or too easy for budgets 1 and 2
			continue
		}
		ts = append(ts, Task[int32]{ID: fmt.Sprintf("maze#%d", len(ts)), Problem: m})
	}
	return ts
}

func newTrainer(t *testing.T, alg string) *model.Trainer {
	t.Helper()
	heads, err := model.HeadsFor(alg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(model.Config{Domain: "maze", Algorithm: alg, Heads: heads,
		Channels: 3, Height: 6, Width: 6, Actions: 4, Filters: 8, Hidden: 16}, 7)
	if err != nil {
		t.Fatal(err)
	}
	return model.NewTrainer(m, model.TrainConfig{LearningRate: 1e-3})
}

func trainConfig(t *testing.T, alg string) TrainConfig {
	m, err := ParseMethod(alg, 1.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	return TrainConfig{Method: m, Budget: 8, ProblemsPerUpdate: 8, Passes: 2, Seed: 3,
		Workers: 2, MaxIterations: 3, Dir: t.TempDir()}
}

// withoutTimes returns the metrics with the wall times zeroed.
func withoutTimes(ms []Iteration) []Iteration {
	out := slices.Clone(ms)
	for i := range out {
		out[i].IterationS, out[i].WallS = 0, 0
	}
	return out
}

func weights(t *testing.T, tr *model.Trainer) []byte {
	t.Helper()
	dir := t.TempDir()
	if err := model.Save(dir, tr.Model()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "weights.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readMetrics reads the metrics.jsonl of run directory dir.
func readMetrics(t *testing.T, dir string) []Iteration {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, MetricsJSONL))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, err := ReadMetricsJSONL(f, MetricsJSONL)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// sameRun checks that a resumed run ended as the uninterrupted one.
func sameRun(t *testing.T, st *TrainState, tr *model.Trainer, refSt *TrainState, refTr *model.Trainer) {
	t.Helper()
	if got, want := withoutTimes(st.Metrics), withoutTimes(refSt.Metrics); !reflect.DeepEqual(got, want) {
		t.Errorf("resumed metrics\n%+v\nwant\n%+v", got, want)
	}
	if !bytes.Equal(weights(t, tr), weights(t, refTr)) {
		t.Error("resumed run ends with other weights than the uninterrupted one")
	}
}

func TestTrainCadenceAndBudget(t *testing.T) {
	tasks := mazes(20, 1)
	cfg := trainConfig(t, "levints")
	cfg.Budget = 1 // too small for any maze: the budget must double
	var nexts []int
	cfg.afterChunk = func(st *TrainState, _ bool) {
		if st.Iteration == 1 {
			nexts = append(nexts, st.Next)
		}
	}
	tr := newTrainer(t, "levints")
	st := NewTrainState(cfg, len(tasks))
	if err := Train(context.Background(), tasks, tr, cfg, st); err != nil {
		t.Fatal(err)
	}
	if want := []int{8, 16, 20}; !reflect.DeepEqual(nexts, want) {
		t.Errorf("updates after %v problems, want %v", nexts, want)
	}
	if len(st.Metrics) != 3 {
		t.Fatalf("%d iterations, want 3", len(st.Metrics))
	}
	budget := int64(1)
	for i, m := range st.Metrics {
		if m.Budget != budget {
			t.Errorf("iteration %d: budget %d, want %d", i+1, m.Budget, budget)
		}
		if m.New == 0 {
			budget *= 2
		}
		if m.Attempted != len(tasks) {
			t.Errorf("iteration %d: attempted %d, want %d", i+1, m.Attempted, len(tasks))
		}
		if m.Updates != cfg.Passes*m.Solved {
			t.Errorf("iteration %d: %d updates for %d solved, want %d", i+1, m.Updates, m.Solved, cfg.Passes*m.Solved)
		}
	}
	if st.Metrics[0].New != 0 || st.Metrics[1].Budget != 2 {
		t.Errorf("budget 1 solved %d mazes; the test needs none", st.Metrics[0].New)
	}
	for _, f := range []string{MetricsCSV, MetricsJSONL} {
		b, err := os.ReadFile(filepath.Join(cfg.Dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n < 3 {
			t.Errorf("%s has %d lines", f, n)
		}
	}
	if err := Train(context.Background(), tasks, tr, cfg, st); !errors.Is(err, ErrTrainingDone) {
		t.Errorf("training a finished run: %v, want ErrTrainingDone", err)
	}
}

func TestTrainDeterministicAndResumable(t *testing.T) {
	tasks := mazes(24, 2)
	for _, alg := range []string{"phsh", "astar"} {
		t.Run(alg, func(t *testing.T) {
			// Reference: an uninterrupted run with one worker.
			ref := trainConfig(t, alg)
			ref.Workers = 1
			refTr := newTrainer(t, alg)
			refSt := NewTrainState(ref, len(tasks))
			if err := Train(context.Background(), tasks, refTr, ref, refSt); err != nil {
				t.Fatal(err)
			}
			if refSt.Metrics[len(refSt.Metrics)-1].TotalSolved == 0 {
				t.Fatal("nothing solved; the test learns nothing")
			}

			// Same run with two workers, interrupted (Ctrl-C) after its
			// fourth update, then resumed from the checkpoint.
			cfg := trainConfig(t, alg)
			ctx, cancel := context.WithCancel(context.Background())
			chunks := 0
			cfg.afterChunk = func(*TrainState, bool) {
				if chunks++; chunks == 4 {
					cancel()
				}
			}
			err := Train(ctx, tasks, newTrainer(t, alg), cfg, NewTrainState(cfg, len(tasks)))
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run: %v, want context.Canceled", err)
			}
			cfg.afterChunk = nil
			tr, st, err := LoadCheckpoint(cfg.Dir, model.TrainConfig{LearningRate: 1e-3})
			if err != nil {
				t.Fatal(err)
			}
			if st.Iteration != 2 || st.Next != 8 {
				t.Errorf("checkpoint at iteration %d, problem %d; want 2, 8", st.Iteration, st.Next)
			}
			// The metrics end with the iteration under way.
			ms := readMetrics(t, cfg.Dir)
			if len(ms) != 2 || ms[0].Partial || !ms[1].Partial || ms[1].Iteration != 2 || ms[1].Attempted != 8 ||
				ms[1].TotalSolved != st.totalSolved() || ms[1].TotalExpansions != ms[0].TotalExpansions+ms[1].Expansions {
				t.Errorf("metrics of the interrupted run:\n%+v", ms)
			}
			if err := Train(context.Background(), tasks, tr, cfg, st); err != nil {
				t.Fatal(err)
			}
			sameRun(t, st, tr, refSt, refTr)
			if ms := readMetrics(t, cfg.Dir); !reflect.DeepEqual(ms, st.Metrics) {
				t.Errorf("metrics file of the finished run\n%+v\nwant\n%+v", ms, st.Metrics)
			}
		})
	}
}

// TestTrainKilled simulates kill -9 right after a periodic checkpoint: the
// run goes on and its later work is lost, and a resumption from the copy of
// the checkpoint reproduces the uninterrupted run.
func TestTrainKilled(t *testing.T) {
	tasks := mazes(16, 3)
	cfg := trainConfig(t, "phsh")
	cfg.CheckpointEvery = 1 // every update
	snapshot := t.TempDir()
	cfg.afterChunk = func(st *TrainState, checkpointed bool) {
		if checkpointed && st.Iteration == 2 && st.Next == 8 {
			if err := os.CopyFS(snapshot, os.DirFS(cfg.Dir)); err != nil {
				t.Error(err)
			}
		}
	}
	refTr := newTrainer(t, "phsh")
	refSt := NewTrainState(cfg, len(tasks))
	if err := Train(context.Background(), tasks, refTr, cfg, refSt); err != nil {
		t.Fatal(err)
	}
	cfg.afterChunk = nil
	cfg.Dir = snapshot
	tr, st, err := LoadCheckpoint(snapshot, model.TrainConfig{LearningRate: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	if err := Train(context.Background(), tasks, tr, cfg, st); err != nil {
		t.Fatal(err)
	}
	sameRun(t, st, tr, refSt, refTr)
}

func TestBootstrapTest(t *testing.T) {
	tasks := mazes(12, 4)
	m, _ := ParseMethod("astar", 0, 0)
	var budgets []int64
	newSolvers := func(budget int64) ([]Solver[int32], error) {
		budgets = append(budgets, budget)
		return NewSolvers(m, search.Options{Budget: budget}, 2, func() search.Evaluator[int32] { return search.Uniform[int32]{} })
	}
	seen := map[int]Outcome[int32]{}
	err := BootstrapTest(context.Background(), tasks, TestConfig{Budget: 1}, newSolvers, func(o Outcome[int32]) error {
		if _, dup := seen[o.Index]; dup {
			t.Errorf("problem %d emitted twice", o.Index)
		}
		seen[o.Index] = o
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range budgets {
		if b != 1<<i {
			t.Fatalf("round budgets %v, want doubling from 1", budgets)
		}
	}
	for i, task := range tasks {
		o, ok := seen[i]
		if !ok || !o.Result.Solved {
			t.Fatalf("%s not solved", task.ID)
		}
		if o.Result.Expansions > o.Budget || o.Budget != 1<<(o.Round-1) {
			t.Errorf("%s: %d expansions in round %d with budget %d", task.ID, o.Result.Expansions, o.Round, o.Budget)
		}
		if err := searchtest.Replay(task.Problem, o.Result.Actions); err != nil {
			t.Errorf("%s: %v", task.ID, err)
		}
	}

	// A round limit leaves problems unsolved; they are emitted last.
	seen = map[int]Outcome[int32]{}
	budgets = nil
	err = BootstrapTest(context.Background(), tasks, TestConfig{Budget: 1, MaxRounds: 2}, newSolvers, func(o Outcome[int32]) error {
		seen[o.Index] = o
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(tasks) || len(budgets) != 2 {
		t.Errorf("%d outcomes after %d rounds, want %d after 2", len(seen), len(budgets), len(tasks))
	}
}
