package bootstrap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/phs-go/phs/search"
)

// A metered learner counts the states that the evaluators of its
// snapshots evaluate, and sleeps delay per call of Evaluate: the searches
// it guides can be counted, and made slow without using the CPU.
type metered struct {
	Learner[int32]
	evaluated *atomic.Int64
	delay     time.Duration
}

func (m metered) Snapshot() Snapshot[int32] { return meteredSnapshot{m.Learner.Snapshot(), m} }

type meteredSnapshot struct {
	Snapshot[int32]
	m metered
}

func (s meteredSnapshot) NewEvaluator() search.Evaluator[int32] {
	return meteredEvaluator{s.Snapshot.NewEvaluator(), s.m}
}

type meteredEvaluator struct {
	search.Evaluator[int32]
	m metered
}

func (e meteredEvaluator) Evaluate(p search.Problem[int32], states []int32, logPi, h []float64) error {
	e.m.evaluated.Add(int64(len(states)))
	time.Sleep(e.m.delay)
	return e.Evaluator.Evaluate(p, states, logPi, h)
}

// meter returns l metered by a new counter, and the counter.
func meter(l Learner[int32], delay time.Duration) (metered, *atomic.Int64) {
	n := new(atomic.Int64)
	return metered{l, n, delay}, n
}

// evaluations returns the evaluations of the iterations of ms.
func evaluations(ms []Iteration) int64 {
	var n int64
	for _, it := range ms {
		n += it.Evaluations
	}
	return n
}

// TestInterruptMidGroup interrupts a run of one group per iteration after
// some of the second iteration's searches ended: the checkpoint keeps
// them, the resumed run does not search their problems again (it
// evaluates exactly the states of the other searches), and it ends as the
// uninterrupted run, with a network (which reads the trajectories' states,
// actions, expansions and costs) and with a table of counts.
func TestInterruptMidGroup(t *testing.T) {
	tasks := mazes(24, 2)
	for _, learner := range []string{"network", "counts"} {
		t.Run(learner, func(t *testing.T) {
			s := newSetup(t, "phsh")
			s.cfg.ProblemsPerUpdate = len(tasks)
			fresh := func() Learner[int32] {
				if learner == "counts" {
					return &counts{table: map[int32][]int64{}}
				}
				n, err := NewTestNetwork(newModel(t, s.alg), s.net, 0)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			load := loadNetwork
			if learner == "counts" {
				load = loadCounts
			}

			ref, refCount := meter(fresh(), 0)
			refMetrics, err := Train(context.Background(), t.TempDir(), tasks, ref, s.cfg, Env{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := refCount.Load(), evaluations(refMetrics); got != want {
				t.Fatalf("the evaluators evaluated %d states, the metrics count %d; the test needs them equal", got, want)
			}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s.env.afterSearch = func(st *state, ended int) {
				if st.Iteration == 2 && ended == 10 {
					cancel()
				}
			}
			l, _ := meter(fresh(), 0)
			if _, err := Train(ctx, s.dir, tasks, l, s.cfg, s.env); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run: %v, want context.Canceled", err)
			}
			_, st, err := loadState(s.dir, len(tasks))
			if err != nil {
				t.Fatal(err)
			}
			if st.Iteration != 2 || st.Next != 0 || len(st.Group) < 10 || len(st.Group) == len(tasks) {
				t.Fatalf("checkpoint at iteration %d, position %d, with %d searches of the group; want 2, 0 and 10 to %d",
					st.Iteration, st.Next, len(st.Group), len(tasks)-1)
			}
			var kept int64
			for _, g := range st.Group {
				kept += g.Evaluations
			}

			var resumed *atomic.Int64
			meteredLoad := func(dir string) (Learner[int32], error) {
				l, err := load(dir)
				if err != nil {
					return nil, err
				}
				m, n := meter(l, 0)
				resumed = n
				return m, nil
			}
			got, metrics, err := Resume(context.Background(), s.dir, tasks, meteredLoad, Env{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if want := evaluations(refMetrics) - refMetrics[0].Evaluations - kept; resumed.Load() != want {
				t.Errorf("the resumed run evaluated %d states; the searches it had to run evaluate %d", resumed.Load(), want)
			}
			if !reflect.DeepEqual(withoutTimes(metrics), withoutTimes(refMetrics)) {
				t.Errorf("resumed metrics\n%+v\nwant\n%+v", withoutTimes(metrics), withoutTimes(refMetrics))
			}
			switch learner {
			case "network":
				if !bytes.Equal(weights(t, got.(metered).Learner.(TestNetwork).Model()), weights(t, ref.Learner.(TestNetwork).Model())) {
					t.Error("the resumed run ends with other weights than the uninterrupted one")
				}
			case "counts":
				if !reflect.DeepEqual(got.(metered).Learner.(*counts).table, ref.Learner.(*counts).table) {
					t.Error("the resumed run ends with another table than the uninterrupted one")
				}
			}
		})
	}
}

// TestTimeLimitMidGroup checks that the time limit stops the searches of
// a group under way, that the checkpoint keeps those that ended, and
// that a resumption with a raised limit finishes the group as an
// uninterrupted run does.
func TestTimeLimitMidGroup(t *testing.T) {
	tasks := mazes(24, 2)
	cfg := Config{Algorithm: search.LevinTS(), Options: search.Options{Budget: 200}, ProblemsPerUpdate: len(tasks), Limits: Limits{MaxIterations: 1}}
	ref := &counts{table: map[int32][]int64{}}
	refMetrics, err := Train(context.Background(), t.TempDir(), tasks, ref, cfg, Env{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}

	// 100 ms per call of Evaluate: the group's 128 calls take at least
	// 6.4 s on 2 workers, past the limit of 2 s; with -short, 20 ms per
	// call, at least 1.3 s, past a limit of 0.6 s.
	dir := t.TempDir()
	delay := 100 * time.Millisecond
	cfg.TimeLimit = 2 * time.Second
	if testing.Short() {
		cfg.TimeLimit, delay = 600*time.Millisecond, 20*time.Millisecond
	}
	l, _ := meter(&counts{table: map[int32][]int64{}}, delay)
	start := time.Now()
	if _, err := Train(context.Background(), dir, tasks, l, cfg, Env{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > cfg.TimeLimit+time.Second {
		t.Errorf("a run with a time limit of %v took %v", cfg.TimeLimit, took)
	}
	_, st, err := loadState(dir, len(tasks))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Done || st.Iteration != 1 || st.Next != 0 || len(st.Group) == 0 || len(st.Group) == len(tasks) {
		t.Fatalf("checkpoint at the time limit: done %v, iteration %d, position %d, %d searches of %d; want done, 1, 0, some searches",
			st.Done, st.Iteration, st.Next, len(st.Group), len(tasks))
	}
	if st.ElapsedS < cfg.TimeLimit.Seconds() {
		t.Errorf("stopped after %g s, before the time limit", st.ElapsedS)
	}
	if _, _, err := Resume(context.Background(), dir, tasks, loadCounts, Env{Workers: 2}); !errors.Is(err, ErrTrainingDone) {
		t.Errorf("resume within the limit: %v, want ErrTrainingDone", err)
	}
	got, metrics, err := Resume(context.Background(), dir, tasks, loadCounts, Env{Workers: 2, Limits: &Limits{MaxIterations: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withoutTimes(metrics), withoutTimes(refMetrics)) {
		t.Errorf("resumed metrics\n%+v\nwant\n%+v", withoutTimes(metrics), withoutTimes(refMetrics))
	}
	if !reflect.DeepEqual(got.(*counts).table, ref.table) {
		t.Error("the resumed run ends with another table than the uninterrupted one")
	}
}

// TestKilledMidGroup simulates kill -9 in the middle of a group, right
// after a periodic checkpoint: the checkpoint holds the group's searches
// that ended, and a resumption from its copy ends as the uninterrupted
// run.
func TestKilledMidGroup(t *testing.T) {
	tasks := mazes(16, 3)
	cfg := Config{Algorithm: search.LevinTS(), Options: search.Options{Budget: 8}, ProblemsPerUpdate: len(tasks), Limits: Limits{MaxIterations: 3}}
	dir, snapshot := t.TempDir(), t.TempDir()
	env := Env{Workers: 2, CheckpointEvery: 1, afterSearch: func(st *state, ended int) {
		if st.Iteration == 2 && ended == 5 {
			if err := os.CopyFS(snapshot, os.DirFS(dir)); err != nil {
				t.Error(err)
			}
		}
	}}
	ref := &counts{table: map[int32][]int64{}}
	refMetrics, err := Train(context.Background(), dir, tasks, ref, cfg, env)
	if err != nil {
		t.Fatal(err)
	}
	_, st, err := loadState(snapshot, len(tasks))
	if err != nil {
		t.Fatal(err)
	}
	if st.Iteration != 2 || st.Next != 0 || len(st.Group) != 5 {
		t.Fatalf("the checkpoint after 5 searches of iteration 2: iteration %d, position %d, %d searches", st.Iteration, st.Next, len(st.Group))
	}
	l, metrics, err := Resume(context.Background(), snapshot, tasks, loadCounts, Env{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withoutTimes(metrics), withoutTimes(refMetrics)) {
		t.Errorf("resumed metrics\n%+v\nwant\n%+v", withoutTimes(metrics), withoutTimes(refMetrics))
	}
	if !reflect.DeepEqual(l.(*counts).table, ref.table) {
		t.Error("the resumed run ends with another table than the uninterrupted one")
	}
}

// A recordHandler keeps the attributes of the progress records logged.
type recordHandler struct {
	mu       sync.Mutex
	progress []map[string]any
}

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *recordHandler) WithGroup(string) slog.Handler            { return h }

func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.Message != "progress" {
		return nil
	}
	m := map[string]any{}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.Any()
		return true
	})
	h.progress = append(h.progress, m)
	return nil
}

// TestProgressMidGroup checks that progress is logged while a group's
// searches run, with the searches that ended counted as attempted, in
// synchronous and asynchronous runs.
func TestProgressMidGroup(t *testing.T) {
	tasks := mazes(24, 2)
	for _, perUpdate := range []int{len(tasks), 8} {
		for _, async := range []bool{false, true} {
			cfg := Config{Algorithm: search.LevinTS(), Options: search.Options{Budget: 50}, ProblemsPerUpdate: perUpdate, Async: async, Limits: Limits{MaxIterations: 1}}
			h := &recordHandler{}
			env := Env{Workers: 2, Logger: slog.New(h), LogEvery: time.Nanosecond}
			metrics, err := Train(context.Background(), t.TempDir(), tasks, &counts{table: map[int32][]int64{}}, cfg, env)
			if err != nil {
				t.Fatal(err)
			}
			var attempted []int64
			for _, r := range h.progress {
				attempted = append(attempted, r["attempted"].(int64))
				// In the first iteration, every problem solved is new.
				if r["of"].(int64) != int64(len(tasks)) || r["solved"].(int64) > r["attempted"].(int64) ||
					r["new"] != r["solved"] || r["solved_so_far"] != r["solved"] {
					t.Errorf("%d per update, async %v: progress record %v", perUpdate, async, r)
				}
			}
			last := h.progress[len(h.progress)-1]
			if got := last["solved_so_far"].(int64); got != int64(metrics[0].TotalSolved) {
				t.Errorf("%d per update, async %v: last progress record solved_so_far %d, metrics %d", perUpdate, async, got, metrics[0].TotalSolved)
			}
			// A record per search, then one after the update.
			if perUpdate == len(tasks) && (len(attempted) != len(tasks)+1 || attempted[0] != 1 || attempted[len(tasks)-1] != int64(len(tasks))) {
				t.Errorf("async %v: progress records attempted %v; want 1 to %d, and %[3]d after the update", async, attempted, len(tasks))
			}
		}
	}
}

// recordingPool is a pool of local workers that records the jobs
// submitted.
type recordingPool struct {
	*localWorkers[int32]
	mu   sync.Mutex
	jobs []Job
}

func (p *recordingPool) Submit(ctx context.Context, j Job) error {
	p.mu.Lock()
	p.jobs = append(p.jobs, j)
	p.mu.Unlock()
	return p.localWorkers.Submit(ctx, j)
}

// TestInterruptMidGroupAsync interrupts an asynchronous run while the
// searches of a group come in: the checkpoint keeps those that ended,
// the group's and the next ones', with their staleness, and the resumed
// run submits no job for them, and counts each problem once.
func TestInterruptMidGroupAsync(t *testing.T) {
	tasks := mazes(48, 5)
	s := newSetup(t, "phsh")
	s.cfg.Async = true
	s.cfg.MaxIterations = 2
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.env.afterSearch = func(st *state, _ int) {
		if st.Iteration == 1 && st.Next >= 8 {
			cancel()
		}
	}
	if _, _, err := s.train(t, ctx, tasks); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	s.env.afterSearch = nil
	_, st, err := loadState(s.dir, len(tasks))
	if err != nil {
		t.Fatal(err)
	}
	if st.Iteration != 1 || st.Next < 8 || len(st.Group) == 0 {
		t.Fatalf("checkpoint at iteration %d, position %d, %d searches kept; want 1, 8 or more, some", st.Iteration, st.Next, len(st.Group))
	}
	kept := map[int]bool{}
	for _, g := range st.Group {
		kept[g.Pos] = true
	}
	// A staleness beyond the updates of the iteration is refused.
	name := filepath.Join(s.dir, checkpointDir, stateFile)
	good, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	st.Group[0].Staleness = 1000
	bad, _ := json.Marshal(st)
	if err := os.WriteFile(name, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.resume(context.Background(), tasks); err == nil || !strings.Contains(err.Error(), "staleness 1000; want 0 to ") {
		t.Errorf("a staleness of 1000: err = %v", err)
	}
	if err := os.WriteFile(name, good, 0o644); err != nil {
		t.Fatal(err)
	}

	pctx, pcancel := context.WithCancel(context.Background())
	defer pcancel()
	lw, err := startLocal(pctx, tasks, 2, 2*s.cfg.ProblemsPerUpdate+2, s.cfg.Algorithm, s.cfg.Options, newNetworkSnapshot(t, s))
	if err != nil {
		t.Fatal(err)
	}
	defer lw.wait()
	defer pcancel()
	pool := &recordingPool{localWorkers: lw}
	s.env.Pool = pool
	_, metrics, err := s.resume(context.Background(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range metrics {
		if it.Attempted != len(tasks) {
			t.Errorf("iteration %d: %d attempted, want %d", it.Iteration, it.Attempted, len(tasks))
		}
	}
	submitted := map[int]bool{}
	for _, j := range pool.jobs {
		if j.Iteration == 1 {
			if kept[j.Pos] {
				t.Errorf("job of position %d submitted again; the checkpoint holds its search", j.Pos)
			}
			submitted[j.Pos] = true
		}
	}
	if want := len(tasks) - st.Next - len(kept); len(submitted) != want {
		t.Errorf("%d jobs of the first iteration submitted after the resumption, want %d", len(submitted), want)
	}
}

// newNetworkSnapshot returns the snapshot of a fresh network of s.alg.
func newNetworkSnapshot(t *testing.T, s *setup) Snapshot[int32] {
	return TestNetworkSnapshot(newModel(t, s.alg))
}

// groupState returns the state.json of a synchronous run of tasks
// interrupted in its first group (of all the tasks) after some searches
// ended, and its directory.
func groupState(t testing.TB, tasks []search.Task[int32]) ([]byte, string) {
	dir := t.TempDir()
	cfg := Config{Algorithm: search.LevinTS(), Options: search.Options{Budget: 100}, ProblemsPerUpdate: len(tasks)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := Env{Workers: 1, afterSearch: func(_ *state, ended int) {
		if ended == 3 {
			cancel()
		}
	}}
	if _, err := Train(ctx, dir, tasks, &counts{table: map[int32][]int64{}}, cfg, env); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, checkpointDir, stateFile))
	if err != nil {
		t.Fatal(err)
	}
	return b, dir
}

// TestResumeBadGroup checks that a checkpoint whose record of the
// searches of the group under way is inconsistent is an error that names
// the file and the record, not a panic.
func TestResumeBadGroup(t *testing.T) {
	tasks := mazes(8, 7)
	good, dir := groupState(t, tasks)
	var st struct {
		Group []map[string]any `json:"group"`
	}
	if err := json.Unmarshal(good, &st); err != nil || len(st.Group) < 3 {
		t.Fatalf("the checkpoint holds %d searches (%v); the test needs 3", len(st.Group), err)
	}
	var solved map[string]any // a record of a solved search
	for _, g := range st.Group {
		if g["solved"] == true && len(g["actions"].([]any)) > 0 {
			solved = g
		}
	}
	if solved == nil {
		t.Fatal("no search of the group solved its problem; the test needs one")
	}
	name := filepath.Join(dir, checkpointDir, stateFile)
	with := func(k string, v any) func(map[string]any) { return func(g map[string]any) { g[k] = v } }
	for _, tc := range []struct {
		name  string
		group func() any // the group field
		msg   string
	}{
		{"not a list", func() any { return 5 }, "cannot unmarshal number"},
		{"unknown field", func() any { return []any{edit(solved, with("bogus", 1))} }, `unknown field "bogus"`},
		{"before next", func() any { return []any{edit(solved, with("pos", -1))} }, "want positions in increasing order from next, 0"},
		{"twice", func() any { return []any{solved, solved} }, "record 2 (position"},
		{"past the group", func() any { return []any{edit(solved, with("pos", len(tasks)), with("problem", len(tasks)-1))} }, "want positions below 8"},
		{"another problem", func() any { return []any{edit(solved, with("problem", int(solved["pos"].(float64)+1)%len(tasks)))} }, "the position is problem"},
		{"over the budget", func() any { return []any{edit(solved, with("expansions", 101))} }, "101 expansions; want 0 to the budget, 100"},
		{"negative expansions", func() any { return []any{edit(solved, with("expansions", -1))} }, "-1 expansions"},
		{"negative evaluations", func() any { return []any{edit(solved, with("evaluations", -1))} }, "-1 evaluations"},
		{"actions of a failure", func() any { return []any{edit(solved, with("solved", false))} }, "actions without a solution"},
		{"staleness", func() any { return []any{edit(solved, with("staleness", 1))} }, "staleness 1; want 0 to 0"},
		{"no goal", func() any { return []any{edit(solved, with("actions", []int{}))} }, "does not reach the goal"},
		{"action out of range", func() any { return []any{edit(solved, with("actions", []int{99}))} }, "action 99 out of range"},
		{"too many evaluations", func() any { return []any{edit(solved, with("evaluations", 1e9))} }, "evaluations in"},
		{"solution too long", func() any { return []any{edit(solved, with("expansions", 0), with("evaluations", 1))} }, "actions in 0 expansions"},
	} {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		m["group"] = tc.group()
		b, _ := json.Marshal(m)
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := Resume(context.Background(), dir, tasks, loadCounts, Env{Workers: 1})
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err = %v, want %s and %q", tc.name, err, name, tc.msg)
		}
	}
	// The good checkpoint resumes.
	if err := os.WriteFile(name, good, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, metrics, err := Resume(context.Background(), dir, tasks, loadCounts, Env{Workers: 1, Limits: &Limits{MaxIterations: 1}}); err != nil || len(metrics) != 1 || metrics[0].Attempted != len(tasks) {
		t.Errorf("resume of the good checkpoint: %v, %+v", err, metrics)
	}
}

// edit returns a copy of g with the edits made.
func edit(g map[string]any, edits ...func(map[string]any)) map[string]any {
	c := make(map[string]any, len(g))
	for k, v := range g {
		c[k] = v
	}
	for _, e := range edits {
		e(c)
	}
	return c
}

// FuzzGroup checks that any group field of a checkpoint's state is
// refused with an error or restored as searches that replay to the goal
// within the budget, never a panic.
func FuzzGroup(f *testing.F) {
	tasks := mazes(8, 7)
	good, _ := groupState(f, tasks)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(good, &m); err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(m["group"]))
	f.Add([]byte(`[{"pos":0,"problem":0,"solved":true,"expansions":3,"evaluations":9,"actions":[1,1,3]}]`))
	f.Add([]byte(`[{"pos":7,"problem":7,"expansions":100,"evaluations":401}]`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, group []byte) {
		m := map[string]json.RawMessage{}
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		m["group"] = group
		b, err := json.Marshal(m)
		if err != nil {
			return // not JSON
		}
		st, err := decodeState(b, len(tasks))
		if err != nil {
			return
		}
		r, err := newRun(t.TempDir(), tasks, Learner[int32](&counts{table: map[int32][]int64{}}), Env{Workers: 1}, st)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.restore(); err != nil {
			return
		}
		for pos, f := range r.done {
			res := f.res
			if res.Expansions < 0 || res.Expansions > st.Budget || res.Evaluations < 0 || f.problem != pos {
				t.Errorf("position %d restored as problem %d, %d expansions, %d evaluations", pos, f.problem, res.Expansions, res.Evaluations)
			}
			if res.Solved {
				if err := search.Replay(tasks[f.problem].Problem, res.Actions); err != nil {
					t.Errorf("position %d: %v", pos, err)
				}
				if tr := res.Trajectory; len(tr.States) != len(tr.Actions) || tr.Expansions != res.Expansions {
					t.Errorf("position %d: trajectory %+v", pos, tr)
				}
			}
		}
	})
}
