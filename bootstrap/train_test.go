package bootstrap

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// mazes returns n random 6x6 mazes (searchtest.Mazes).
func mazes(n int, seed uint64) []search.Task[int32] { return searchtest.Mazes(n, seed) }

// parse returns the algorithm called name.
func parse(t *testing.T, name string) search.Algorithm {
	t.Helper()
	alg, err := search.Parse(name)
	if err != nil {
		t.Fatal(err)
	}
	return alg
}

// newModel returns a small network for alg on the 6x6 mazes.
func newModel(t *testing.T, alg string) *model.Model {
	t.Helper()
	cfg := model.ConfigFor[int32]("maze", parse(t, alg), searchtest.ParseMaze("S.....", "......", "......", "......", "......", ".....G"))
	cfg.Filters, cfg.Hidden = 8, 16
	m, err := model.New(cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A setup is a training run of the tests: its directory, configuration,
// environment, and the settings of its network for alg.
type setup struct {
	dir     string
	alg     string
	cfg     Config
	env     Env
	net     TestNetworkConfig
	threads int
}

func newSetup(t *testing.T, alg string) *setup {
	return &setup{
		dir: t.TempDir(), alg: alg,
		cfg: Config{Algorithm: parse(t, alg), Options: search.Options{Budget: 8}, ProblemsPerUpdate: 8, Limits: Limits{MaxIterations: 3}},
		env: Env{Workers: 2},
		net: TestNetworkConfig{Passes: 2, Seed: 3, LearningRate: 1e-3},
	}
}

// train trains a fresh network of s.alg as s says.
func (s *setup) train(t *testing.T, ctx context.Context, tasks []search.Task[int32]) (*model.Model, []Iteration, error) {
	t.Helper()
	n, err := NewTestNetwork(newModel(t, s.alg), s.net, s.threads)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Train(ctx, s.dir, tasks, n, s.cfg, s.env)
	return n.Model(), ms, err
}

// loadNetwork is the loader of the networks of the tests.
func loadNetwork(dir string) (Learner[int32], error) { return LoadTestNetwork(dir) }

// resume resumes the run in s.dir with s.env.
func (s *setup) resume(ctx context.Context, tasks []search.Task[int32]) (*model.Model, []Iteration, error) {
	l, ms, err := Resume(ctx, s.dir, tasks, loadNetwork, s.env)
	if l == nil {
		return nil, ms, err
	}
	return l.(TestNetwork).Model(), ms, err
}

// withoutTimes returns the metrics with the wall times zeroed.
func withoutTimes(ms []Iteration) []Iteration {
	out := slices.Clone(ms)
	for i := range out {
		out[i].IterationS, out[i].WallS, out[i].LearnS, out[i].ValidS = 0, 0, 0, 0
	}
	return out
}

func weights(t *testing.T, m *model.Model) []byte {
	t.Helper()
	dir := t.TempDir()
	if err := model.Save(dir, m); err != nil {
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
func sameRun(t *testing.T, metrics []Iteration, m *model.Model, refMetrics []Iteration, ref *model.Model) {
	t.Helper()
	if got, want := withoutTimes(metrics), withoutTimes(refMetrics); !reflect.DeepEqual(got, want) {
		t.Errorf("resumed metrics\n%+v\nwant\n%+v", got, want)
	}
	if !bytes.Equal(weights(t, m), weights(t, ref)) {
		t.Error("resumed run ends with other weights than the uninterrupted one")
	}
}

func TestTrainCadenceAndBudget(t *testing.T) {
	tasks := mazes(20, 1)
	s := newSetup(t, "levints")
	s.cfg.Options.Budget = 1 // too small for any maze: the budget must double
	var nexts []int
	s.env.afterChunk = func(st *state, _ bool) {
		if st.Iteration == 1 {
			nexts = append(nexts, st.Next)
		}
	}
	_, metrics, err := s.train(t, context.Background(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{8, 16, 20}; !reflect.DeepEqual(nexts, want) {
		t.Errorf("updates after %v problems, want %v", nexts, want)
	}
	if len(metrics) != 3 {
		t.Fatalf("%d iterations, want 3", len(metrics))
	}
	budget := int64(1)
	for i, m := range metrics {
		if m.Budget != budget {
			t.Errorf("iteration %d: budget %d, want %d", i+1, m.Budget, budget)
		}
		if m.New == 0 {
			budget *= 2
		}
		if m.Attempted != len(tasks) {
			t.Errorf("iteration %d: attempted %d, want %d", i+1, m.Attempted, len(tasks))
		}
		if m.Updates != s.net.Passes*m.Solved {
			t.Errorf("iteration %d: %d updates for %d solved, want %d", i+1, m.Updates, m.Solved, s.net.Passes*m.Solved)
		}
	}
	if metrics[0].New != 0 || metrics[1].Budget != 2 {
		t.Errorf("budget 1 solved %d mazes; the test needs none", metrics[0].New)
	}
	for _, f := range []string{MetricsCSV, MetricsJSONL} {
		b, err := os.ReadFile(filepath.Join(s.dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n < 3 {
			t.Errorf("%s has %d lines", f, n)
		}
	}
	if _, _, err := s.resume(context.Background(), tasks); !errors.Is(err, ErrTrainingDone) {
		t.Errorf("resuming a finished run: %v, want ErrTrainingDone", err)
	}
	if _, _, err := s.train(t, context.Background(), tasks); err == nil || !strings.Contains(err.Error(), "already holds a run") {
		t.Errorf("a fresh run in the directory of another: %v", err)
	}
}

func TestTrainDeterministicAndResumable(t *testing.T) {
	tasks := mazes(24, 2)
	for _, alg := range []string{"phsh", "astar"} {
		t.Run(alg, func(t *testing.T) {
			// Reference: an uninterrupted run with one worker.
			ref := newSetup(t, alg)
			ref.env.Workers = 1
			refModel, refMetrics, err := ref.train(t, context.Background(), tasks)
			if err != nil {
				t.Fatal(err)
			}
			if refMetrics[len(refMetrics)-1].TotalSolved == 0 {
				t.Fatal("nothing solved; the test learns nothing")
			}

			// Same run with two workers, interrupted (Ctrl-C) after its
			// fourth update, then resumed from the checkpoint.
			s := newSetup(t, alg)
			ctx, cancel := context.WithCancel(context.Background())
			chunks := 0
			s.env.afterChunk = func(*state, bool) {
				if chunks++; chunks == 4 {
					cancel()
				}
			}
			_, _, err = s.train(t, ctx, tasks)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run: %v, want context.Canceled", err)
			}
			_, st, err := loadState(s.dir, len(tasks))
			if err != nil {
				t.Fatal(err)
			}
			if st.Iteration != 2 || st.Next != 8 {
				t.Errorf("checkpoint at iteration %d, problem %d; want 2, 8", st.Iteration, st.Next)
			}
			// The metrics end with the iteration under way.
			ms := readMetrics(t, s.dir)
			if len(ms) != 2 || ms[0].Partial || !ms[1].Partial || ms[1].Iteration != 2 || ms[1].Attempted != 8 ||
				ms[1].TotalSolved != st.totalSolved() || ms[1].TotalExpansions != ms[0].TotalExpansions+ms[1].Expansions {
				t.Errorf("metrics of the interrupted run:\n%+v", ms)
			}
			// The resumption needs the directory alone, and the
			// environment.
			l, metrics, err := Resume(context.Background(), s.dir, tasks, loadNetwork, Env{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			sameRun(t, metrics, l.(TestNetwork).Model(), refMetrics, refModel)
			if ms := readMetrics(t, s.dir); !reflect.DeepEqual(ms, metrics) {
				t.Errorf("metrics file of the finished run\n%+v\nwant\n%+v", ms, metrics)
			}
		})
	}
}

// TestTrainKilled simulates kill -9 right after a periodic checkpoint: the
// run goes on and its later work is lost, and a resumption from the copy of
// the checkpoint reproduces the uninterrupted run.
func TestTrainKilled(t *testing.T) {
	tasks := mazes(16, 3)
	s := newSetup(t, "phsh")
	s.env.CheckpointEvery = 1 // every update
	snapshot := t.TempDir()
	s.env.afterChunk = func(st *state, checkpointed bool) {
		if checkpointed && st.Iteration == 2 && st.Next == 8 {
			if err := os.CopyFS(snapshot, os.DirFS(s.dir)); err != nil {
				t.Error(err)
			}
		}
	}
	refModel, refMetrics, err := s.train(t, context.Background(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	s.env.afterChunk = nil
	s.dir = snapshot
	m, metrics, err := s.resume(context.Background(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	sameRun(t, metrics, m, refMetrics, refModel)
}

// astarSolvers returns n A* solvers with a zero heuristic and the given
// budget.
func astarSolvers(t *testing.T, n int, budget int64) []*search.Solver[int32] {
	var ss []*search.Solver[int32]
	for range n {
		s, err := search.NewSolver[int32](search.AStar(), search.Uniform[int32]{}, search.Options{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
	}
	return ss
}

func TestBootstrapTest(t *testing.T) {
	tasks := mazes(12, 4)
	solvers := astarSolvers(t, 2, 1)
	seen := map[int]Outcome[int32]{}
	rounds := 0
	err := Test(context.Background(), tasks, solvers, TestConfig{}, func(o Outcome[int32]) error {
		if _, dup := seen[o.Index]; dup {
			t.Errorf("problem %d emitted twice", o.Index)
		}
		seen[o.Index] = o
		rounds = max(rounds, o.Round)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rounds < 3 {
		t.Errorf("%d rounds; the test needs several", rounds)
	}
	for i, task := range tasks {
		o, ok := seen[i]
		if !ok || !o.Result.Solved {
			t.Fatalf("%s not solved", task.ID)
		}
		if o.Result.Expansions > o.Budget || o.Budget != 1<<(o.Round-1) || o.Algorithm != search.AStar() {
			t.Errorf("%s: %d expansions in round %d with budget %d, %v", task.ID, o.Result.Expansions, o.Round, o.Budget, o.Algorithm)
		}
		if err := search.Replay(task.Problem, o.Result.Actions); err != nil {
			t.Errorf("%s: %v", task.ID, err)
		}
	}

	// A round limit leaves problems unsolved; they are emitted last, with
	// their attempt of the last round.
	seen = map[int]Outcome[int32]{}
	var order []Outcome[int32]
	err = Test(context.Background(), tasks, astarSolvers(t, 2, 1), TestConfig{MaxRounds: 2}, func(o Outcome[int32]) error {
		seen[o.Index] = o
		order = append(order, o)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(tasks) {
		t.Errorf("%d outcomes, want %d", len(seen), len(tasks))
	}
	unsolved := false
	for _, o := range order {
		switch {
		case o.Round > 2:
			t.Errorf("problem %d attempted in round %d of 2", o.Index, o.Round)
		case !o.Result.Solved:
			unsolved = true
			if o.Round != 2 || o.Budget != 2 {
				t.Errorf("unsolved problem %d: round %d, budget %d; want the last round's", o.Index, o.Round, o.Budget)
			}
		case unsolved:
			t.Errorf("solved problem %d emitted after an unsolved one", o.Index)
		}
	}
	if !unsolved {
		t.Error("every problem solved within 2 rounds; the test needs some unsolved")
	}
	wastar, err := search.NewSolver[int32](search.WAStar(2), search.Uniform[int32]{}, search.Options{Budget: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		solvers []*search.Solver[int32]
		cfg     TestConfig
	}{
		{astarSolvers(t, 1, 0), TestConfig{}},
		{append(astarSolvers(t, 1, 1), astarSolvers(t, 1, 2)...), TestConfig{}},
		{append(astarSolvers(t, 1, 1), wastar), TestConfig{}},
		{astarSolvers(t, 1, 1), TestConfig{MaxRounds: -1}},
		{astarSolvers(t, 1, 1), TestConfig{TimeLimit: -time.Second}},
	} {
		if err := Test(context.Background(), tasks, tc.solvers, tc.cfg, func(Outcome[int32]) error { return nil }); err == nil {
			t.Errorf("budget %d, %+v: no error", tc.solvers[0].Options().Budget, tc.cfg)
		}
	}
}

// TestBootstrapTestBeam checks that a beam search's rounds double its
// width with its budget, and that the widest beams solve every maze.
func TestBootstrapTestBeam(t *testing.T) {
	tasks := mazes(12, 4)
	var solvers []*search.Solver[int32]
	for range 2 {
		s, err := search.NewSolver[int32](search.Beam(1), search.DomainHeuristic[int32]{}, search.Options{Budget: 4})
		if err != nil {
			t.Fatal(err)
		}
		solvers = append(solvers, s)
	}
	rounds, solved := 0, 0
	err := Test(context.Background(), tasks, solvers, TestConfig{}, func(o Outcome[int32]) error {
		rounds = max(rounds, o.Round)
		if w := o.Algorithm.BeamWidth(); w != 1<<(o.Round-1) || o.Budget != 4<<(o.Round-1) {
			t.Errorf("%s: round %d: width %d, budget %d", tasks[o.Index].ID, o.Round, w, o.Budget)
		}
		if o.Result.Solved {
			solved++
			if err := search.Replay(tasks[o.Index].Problem, o.Result.Actions); err != nil {
				t.Errorf("%s: %v", tasks[o.Index].ID, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rounds < 2 || solved != len(tasks) {
		t.Errorf("%d of %d solved in %d rounds; want all, in several", solved, len(tasks), rounds)
	}
}

// TestTrainAsync checks that asynchronous training learns (problems solved
// after the first iteration that it did not solve), records the staleness of its
// searches, and resumes after an interruption.
func TestTrainAsync(t *testing.T) {
	tasks := mazes(48, 5)
	s := newSetup(t, "phsh")
	s.cfg.Async = true
	s.cfg.MaxIterations = 4
	ctx, cancel := context.WithCancel(context.Background())
	groups := 0
	s.env.afterChunk = func(st *state, _ bool) {
		if groups++; groups == 3 {
			cancel()
		}
	}
	if _, _, err := s.train(t, ctx, tasks); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	s.env.afterChunk = nil
	_, st, err := loadState(s.dir, len(tasks))
	if err != nil || st.Iteration != 1 || st.Next != 24 {
		t.Fatalf("checkpoint at iteration %d, problem %d, %v; want 1, 24 (three groups of 8)", st.Iteration, st.Next, err)
	}
	_, metrics, err := s.resume(context.Background(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	if len(metrics) != 4 {
		t.Fatalf("%d iterations, want 4", len(metrics))
	}
	first, last := metrics[0], metrics[len(metrics)-1]
	if last.TotalSolved <= first.TotalSolved {
		t.Errorf("solved %d in the first iteration, %d by the last: nothing learned", first.TotalSolved, last.TotalSolved)
	}
	for _, m := range metrics {
		if m.Attempted != len(tasks) || m.Updates != s.net.Passes*m.Solved || m.MaxStaleness < 0 || m.MeanStaleness > float64(m.MaxStaleness) {
			t.Errorf("iteration %d: %+v", m.Iteration, m)
		}
	}
}

// TestStepTrajectories checks that with several trajectories per
// optimiser step a group takes one step per batch of its solutions and
// pass, and training still learns, with one learner thread and with two
// (which take the steps of more than 96 states).
func TestStepTrajectories(t *testing.T) {
	for _, tc := range []struct{ perStep, threads int }{{4, 1}, {16, 2}} {
		tasks := mazes(32, 6)
		s := newSetup(t, "phsh")
		s.net.StepTrajectories, s.threads = tc.perStep, tc.threads
		s.cfg.MaxIterations = 4
		iteration, solved, updates := 0, 0, 0
		s.env.afterChunk = func(st *state, _ bool) {
			if st.Iteration != iteration {
				iteration, solved, updates = st.Iteration, 0, 0
			}
			ds, du := st.Current.Solved-solved, st.Current.Updates-updates
			if want := s.net.Passes * ((ds + tc.perStep - 1) / tc.perStep); du != want {
				t.Errorf("%+v: iteration %d: %d steps for a group of %d solutions, want %d", tc, st.Iteration, du, ds, want)
			}
			solved, updates = st.Current.Solved, st.Current.Updates
		}
		_, metrics, err := s.train(t, context.Background(), tasks)
		if err != nil {
			t.Fatal(err)
		}
		if first, last := metrics[0], metrics[len(metrics)-1]; last.TotalSolved <= first.TotalSolved {
			t.Errorf("%+v: solved %d in the first iteration, %d by the last: nothing learned", tc, first.TotalSolved, last.TotalSolved)
		}
	}
}
