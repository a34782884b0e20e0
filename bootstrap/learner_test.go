package bootstrap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// A counts is a learner that is no network: a table of how often each
// action was taken in each state of the solutions learned from, whose
// policy is the add-one estimate of the action's probability in the state
// (uniform in a state never seen), and whose heuristic is 0.
type counts struct {
	table map[int32][]int64
}

const countsFile = "counts.json"

func (c *counts) Learn(ctx context.Context, batch []Solution[int32]) (Update, error) {
	if err := ctx.Err(); err != nil {
		return Update{}, err
	}
	var u Update
	for _, s := range batch {
		for i, x := range s.Trajectory.States {
			row := c.table[x]
			if row == nil {
				row = make([]int64, s.Problem.NumActions())
				c.table[x] = row
			}
			row[s.Trajectory.Actions[i]]++
		}
		u.Steps++
	}
	return u, nil
}

func (c *counts) Snapshot() Snapshot[int32] {
	t := make(map[int32][]int64, len(c.table))
	for s, row := range c.table {
		t[s] = append([]int64(nil), row...)
	}
	return countsSnapshot(t)
}

func (c *counts) Save(dir string) error {
	b, err := json.Marshal(c.table)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, countsFile), b, 0o644)
}

func loadCounts(dir string) (Learner[int32], error) {
	b, err := os.ReadFile(filepath.Join(dir, countsFile))
	if err != nil {
		return nil, err
	}
	c := &counts{}
	return c, json.Unmarshal(b, &c.table)
}

// A countsSnapshot is a copy of a table; it is also its own evaluator.
type countsSnapshot map[int32][]int64

func (s countsSnapshot) NewEvaluator() search.Evaluator[int32] { return s }

func (s countsSnapshot) MarshalBinary() ([]byte, error) { return json.Marshal(map[int32][]int64(s)) }

func (s countsSnapshot) Evaluate(p search.Problem[int32], states []int32, logPi, h []float64) error {
	A := p.NumActions()
	for i, x := range states {
		row := s[x]
		var n int64
		for _, k := range row {
			n += k
		}
		for a := range A {
			k := int64(0)
			if row != nil {
				k = row[a]
			}
			logPi[i*A+a] = math.Log(float64(k+1) / float64(n+int64(A)))
		}
		h[i] = 0
	}
	return nil
}

// TestLearnerNotANetwork trains a table of action counts, a learner that
// is not a network, through the Bootstrap loop: synchronously, then
// asynchronously, each interrupted and resumed from its directory alone;
// the synchronous run resumed must end as the uninterrupted one.
func TestLearnerNotANetwork(t *testing.T) {
	tasks := mazes(24, 2)
	cfg := Config{Algorithm: search.LevinTS(), Options: search.Options{Budget: 8}, ProblemsPerUpdate: 8, Limits: Limits{MaxIterations: 3}}

	ref := &counts{table: map[int32][]int64{}}
	refMetrics, err := Train(context.Background(), t.TempDir(), tasks, ref, cfg, Env{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(refMetrics) != 3 || len(ref.table) == 0 {
		t.Fatalf("%d iterations, %d states learned", len(refMetrics), len(ref.table))
	}
	for _, it := range refMetrics {
		if it.Updates != it.Solved {
			t.Errorf("iteration %d: %d updates for %d solved", it.Iteration, it.Updates, it.Solved)
		}
	}
	// The table guides LevinTS better than the uniform policy.
	expansions := func(ev search.Evaluator[int32]) int64 {
		s, err := search.NewSolver[int32](search.LevinTS(), ev, search.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := search.SolveAll(context.Background(), tasks, []*search.Solver[int32]{s}, func(_ int, r search.Result[int32]) error {
			n += r.Expansions
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if learned, uniform := expansions(ref.Snapshot().NewEvaluator()), expansions(search.Uniform[int32]{}); learned >= uniform {
		t.Errorf("%d expansions with the table, %d without: nothing learned", learned, uniform)
	}

	for _, async := range []bool{false, true} {
		cfg := cfg
		cfg.Async = async
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		chunks := 0
		env := Env{Workers: 2, afterChunk: func(*state, bool) {
			if chunks++; chunks == 4 {
				cancel()
			}
		}}
		if _, err := Train(ctx, dir, tasks, &counts{table: map[int32][]int64{}}, cfg, env); !errors.Is(err, context.Canceled) {
			t.Fatalf("async %v: interrupted run: %v", async, err)
		}
		l, metrics, err := Resume(context.Background(), dir, tasks, loadCounts, Env{Workers: 2})
		if err != nil {
			t.Fatalf("async %v: %v", async, err)
		}
		if len(metrics) != 3 {
			t.Fatalf("async %v: %d iterations, want 3", async, len(metrics))
		}
		for _, it := range metrics {
			if it.Attempted != len(tasks) || it.Updates != it.Solved {
				t.Errorf("async %v: iteration %d: %+v", async, it.Iteration, it)
			}
		}
		if async {
			continue
		}
		if got, want := withoutTimes(metrics), withoutTimes(refMetrics); !reflect.DeepEqual(got, want) {
			t.Errorf("resumed metrics\n%+v\nwant\n%+v", got, want)
		}
		if got := l.(*counts).table; !maps.EqualFunc(got, ref.table, func(a, b []int64) bool { return reflect.DeepEqual(a, b) }) {
			t.Error("the resumed run ends with another table than the uninterrupted one")
		}
	}
}

// failing is a learner whose Learn fails after cancelling the run, as a
// learner that fails when the user presses Ctrl-C does.
type failing struct {
	counts
	cancel context.CancelFunc
}

func (f *failing) Learn(context.Context, []Solution[int32]) (Update, error) {
	f.cancel()
	f.table[-1] = []int64{1} // half updated
	return Update{}, errors.New("out of memory")
}

// TestLearnerFails checks that a learner's error stops the run with it,
// and that the learner, which may be half updated, is not checkpointed,
// even when the run is interrupted at the same time.
func TestLearnerFails(t *testing.T) {
	tasks := mazes(8, 2)
	cfg := Config{Algorithm: search.LevinTS(), Options: search.Options{Budget: 100}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	f := &failing{counts{table: map[int32][]int64{}}, cancel}
	_, err := Train(ctx, dir, tasks, f, cfg, Env{Workers: 1})
	if err == nil || err.Error() != "bootstrap: learn: out of memory" {
		t.Fatalf("Train: %v, want the learner's error", err)
	}
	l, err := loadCounts(filepath.Join(dir, checkpointDir))
	if err != nil || len(l.(*counts).table) != 0 {
		t.Errorf("the checkpoint holds the half-updated learner: %v, %v", l, err)
	}
}

// interrupting is a network whose first update is interrupted at its
// nth check of ctx: the run is cancelled then.
type interrupting struct {
	TestNetwork
	cancel context.CancelFunc
	left   *int // the checks of ctx left before the interruption
}

func (l interrupting) Learn(ctx context.Context, batch []Solution[int32]) (Update, error) {
	return l.TestNetwork.Learn(countdown{ctx, l}, batch)
}

// countdown is the context of an interrupting network's update.
type countdown struct {
	context.Context
	l interrupting
}

func (c countdown) Err() error {
	if *c.l.left--; *c.l.left == 0 {
		c.l.cancel()
	}
	return c.Context.Err()
}

// TestLongUpdateInterrupted checks that an interruption ends a network's
// long update at once, that the checkpoint holds the network as it was
// before the update with all the group's searches, and that the run
// resumed from there ends as the uninterrupted one.
func TestLongUpdateInterrupted(t *testing.T) {
	tasks := mazes(8, 2)
	s := newSetup(t, "levints")
	s.cfg.Options.Budget = 100
	s.net.Passes = 20
	m := newModel(t, "levints")
	ref, err := NewTestNetwork(m.Clone(), s.net, 0)
	if err != nil {
		t.Fatal(err)
	}
	refDir := t.TempDir()
	refMetrics, err := Train(context.Background(), refDir, tasks, ref, s.cfg, s.env)
	if err != nil {
		t.Fatal(err)
	}
	if refMetrics[0].Updates < 100 {
		t.Fatalf("the first update takes %d steps; the test interrupts it after 60", refMetrics[0].Updates)
	}

	n, err := NewTestNetwork(m.Clone(), s.net, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	left := 61 // the check before the update, then 60 steps
	if _, err := Train(ctx, s.dir, tasks, interrupting{n, cancel, &left}, s.cfg, s.env); !errors.Is(err, context.Canceled) {
		t.Fatalf("Train: %v, want context.Canceled", err)
	}
	if left > 0 {
		t.Fatalf("the update ended %d checks before the interruption", left)
	}
	_, st, err := loadState(s.dir, len(tasks))
	if err != nil {
		t.Fatal(err)
	}
	if st.Iteration != 1 || st.Next != 0 || st.Current.Attempted != 0 || len(st.Group) != len(tasks) {
		t.Errorf("the checkpoint is of iteration %d, position %d, %d attempted, %d searches kept; want the state before the update, 1, 0, 0, with the group's %d searches",
			st.Iteration, st.Next, st.Current.Attempted, len(st.Group), len(tasks))
	}
	saved, err := loadNetwork(filepath.Join(s.dir, checkpointDir))
	if err != nil {
		t.Fatal(err)
	}
	got, err := model.MarshalModel(saved.(TestNetwork).Model())
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := model.MarshalModel(m); !bytes.Equal(got, want) {
		t.Error("the checkpoint holds changed weights")
	}
	l, metrics, err := Resume(context.Background(), s.dir, tasks, loadNetwork, s.env)
	if err != nil {
		t.Fatal(err)
	}
	sameRun(t, metrics, l.(TestNetwork).Model(), refMetrics, ref.Model())
	sameLearnerFiles(t, s.dir, refDir)
}

// sameLearnerFiles checks that the checkpoints of run directories dir and
// ref hold the same files, byte for byte, but for state.json, which
// holds wall times.
func sameLearnerFiles(t *testing.T, dir, ref string) {
	t.Helper()
	want, err := os.ReadDir(filepath.Join(ref, checkpointDir))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadDir(filepath.Join(dir, checkpointDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("the checkpoint holds %d files, want %d", len(got), len(want))
	}
	for _, e := range want {
		if e.Name() == stateFile {
			continue
		}
		a, err := os.ReadFile(filepath.Join(ref, checkpointDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, checkpointDir, e.Name()))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("checkpoint/%s differs from the uninterrupted run's (%v)", e.Name(), err)
		}
	}
}

// stalling is a table of counts whose first update waits until ctx is
// done, at most a minute, and then returns ctx's error, changing nothing:
// an update that the time limit stops.
type stalling struct {
	*counts
	stalled bool
}

func (l *stalling) Learn(ctx context.Context, batch []Solution[int32]) (Update, error) {
	if !l.stalled {
		l.stalled = true
		select {
		case <-ctx.Done():
			return Update{}, ctx.Err()
		case <-time.After(time.Minute):
		}
	}
	return l.counts.Learn(ctx, batch)
}

// TestTimeLimitMidUpdate checks that the time limit stops an update under
// way, in synchronous and asynchronous runs: the run stops at once, its
// checkpoint holds the state before the update, done, with the group's
// searches, and a resumption with a raised limit takes the update again
// and, synchronous, ends as the uninterrupted run.
func TestTimeLimitMidUpdate(t *testing.T) {
	tasks := mazes(24, 2)
	cfg := Config{Algorithm: search.LevinTS(), Options: search.Options{Budget: 8}, ProblemsPerUpdate: 8, Limits: Limits{MaxIterations: 3}}
	ref := &counts{table: map[int32][]int64{}}
	refMetrics, err := Train(context.Background(), t.TempDir(), tasks, ref, cfg, Env{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The limit leaves time for the first group's searches (of a few
	// milliseconds) before the update stalls.
	limit := time.Second
	if testing.Short() {
		limit = 400 * time.Millisecond
	}
	for _, async := range []bool{false, true} {
		cfg := cfg
		cfg.Async, cfg.TimeLimit = async, limit
		dir := t.TempDir()
		l := &stalling{counts: &counts{table: map[int32][]int64{}}}
		start := time.Now()
		if _, err := Train(context.Background(), dir, tasks, l, cfg, Env{Workers: 2}); err != nil {
			t.Fatalf("async %v: %v", async, err)
		}
		if took := time.Since(start); took > cfg.TimeLimit+5*time.Second {
			t.Errorf("async %v: a run with a time limit of %v took %v", async, cfg.TimeLimit, took)
		}
		_, st, err := loadState(dir, len(tasks))
		if err != nil {
			t.Fatal(err)
		}
		if !st.Done || st.Iteration != 1 || st.Next != 0 || st.Current.Attempted != 0 || len(st.Group) < cfg.ProblemsPerUpdate || st.Group[cfg.ProblemsPerUpdate-1].Pos != cfg.ProblemsPerUpdate-1 {
			t.Fatalf("async %v: checkpoint at the time limit: done %v, iteration %d, position %d, %d attempted, %d searches kept; want done, 1, 0, 0, the group's %d and more",
				async, st.Done, st.Iteration, st.Next, st.Current.Attempted, len(st.Group), cfg.ProblemsPerUpdate)
		}
		if saved, err := loadCounts(filepath.Join(dir, checkpointDir)); err != nil || len(saved.(*counts).table) > 0 {
			t.Errorf("async %v: the checkpoint holds a learner that learned: %v", async, err)
		}
		if _, _, err := Resume(context.Background(), dir, tasks, loadCounts, Env{Workers: 2}); !errors.Is(err, ErrTrainingDone) {
			t.Errorf("async %v: resume within the limit: %v, want ErrTrainingDone", async, err)
		}
		got, metrics, err := Resume(context.Background(), dir, tasks, loadCounts, Env{Workers: 2, Limits: &Limits{MaxIterations: 3}})
		if err != nil {
			t.Fatal(err)
		}
		if len(metrics) != 3 || metrics[0].Attempted != len(tasks) {
			t.Errorf("async %v: the resumed run: %+v", async, metrics)
		}
		if async {
			continue
		}
		if !reflect.DeepEqual(withoutTimes(metrics), withoutTimes(refMetrics)) {
			t.Errorf("resumed metrics\n%+v\nwant\n%+v", withoutTimes(metrics), withoutTimes(refMetrics))
		}
		if !reflect.DeepEqual(got.(*counts).table, ref.table) {
			t.Error("the resumed run ends with another table than the uninterrupted one")
		}
	}
}

// indexed is a counts learner that checks that each solution's Index is
// its problem's index in the run's tasks.
type indexed struct {
	counts
	tasks []search.Task[int32]
	t     *testing.T
	seen  map[int]bool
}

func (x *indexed) Learn(ctx context.Context, batch []Solution[int32]) (Update, error) {
	for _, s := range batch {
		if s.Index < 0 || s.Index >= len(x.tasks) || x.tasks[s.Index].Problem != s.Problem {
			x.t.Errorf("solution of index %d is not that task's", s.Index)
		}
		if s.Trajectory.LogPi != nil || s.Trajectory.NodeLoss != 1 || s.Trajectory.Expansions <= 0 {
			x.t.Errorf("solution of index %d: trajectory with log-probabilities %v, node loss %g, %d expansions; want none, 1, > 0",
				s.Index, s.Trajectory.LogPi, s.Trajectory.NodeLoss, s.Trajectory.Expansions)
		}
		x.seen[s.Index] = true
	}
	return x.counts.Learn(ctx, batch)
}

// TestSolutionIndex checks that the solutions a learner receives carry
// their problems' indices in the tasks, and trajectories without
// log-probabilities, with the node loss and the expansions, in
// synchronous and asynchronous runs.
func TestSolutionIndex(t *testing.T) {
	tasks := mazes(12, 3)
	for _, async := range []bool{false, true} {
		x := &indexed{counts{table: map[int32][]int64{}}, tasks, t, map[int]bool{}}
		cfg := Config{Algorithm: search.LevinTS(), Options: search.Options{Budget: 1000}, ProblemsPerUpdate: 5, Async: async, Limits: Limits{MaxIterations: 1}}
		if _, err := Train(context.Background(), t.TempDir(), tasks, x, cfg, Env{Workers: 2}); err != nil {
			t.Fatal(err)
		}
		if len(x.seen) != len(tasks) {
			t.Errorf("async %v: solutions of %d problems of %d", async, len(x.seen), len(tasks))
		}
	}
}
