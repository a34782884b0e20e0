package cm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/internal/safetensors"
	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// expansions returns the total expansions of LevinTS with ev on tasks,
// one state per evaluation, and the number solved within budget.
// DecodeSnapshot is a decoder of cluster.Work.
var _ func([]byte) (bootstrap.Snapshot[int32], error) = DecodeSnapshot[int32]

func expansions(t *testing.T, tasks []search.Task[int32], ev search.Evaluator[int32], budget int64) (int64, int) {
	t.Helper()
	s, err := search.NewSolver[int32](search.LevinTS(), ev, search.Options{Budget: budget, BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	solved := 0
	if err := search.SolveAll(context.Background(), tasks, []*search.Solver[int32]{s}, func(i int, r search.Result[int32]) error {
		n += r.Expansions
		if r.Solved {
			solved++
			if err := search.Replay(tasks[i].Problem, r.Actions); err != nil {
				t.Fatal(err)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	checkEdges(t, tasks)
	return n, solved
}

// checkEdges fails t if a grid of tasks was given an edge that is not one
// of its edges.
func checkEdges(t *testing.T, tasks []search.Task[int32]) {
	t.Helper()
	for i, task := range tasks {
		if n := task.Problem.(*grid).badEdges.Load(); n > 0 {
			t.Fatalf("grid %d: %d contexts of edges that are not its own", i, n)
		}
	}
}

func newGridLearner(t *testing.T, tasks []search.Task[int32], cfg LearnerConfig) *Learner[int32] {
	t.Helper()
	l, err := LayoutOf(tasks[0].Problem)
	if err != nil {
		t.Fatal(err)
	}
	lr, err := NewLearner[int32](l, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return lr
}

func withoutTimes(ms []bootstrap.Iteration) []bootstrap.Iteration {
	out := slices.Clone(ms)
	for i := range out {
		out[i].IterationS, out[i].WallS, out[i].LearnS, out[i].ValidS = 0, 0, 0, 0
	}
	return out
}

func tableBytes(t *testing.T, tb *Table) []byte {
	t.Helper()
	b, err := marshalTable(tb, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLearnerBootstrap trains a context model on small grids through
// bootstrap.Train, optimising at every update and as Growth 1 spaces
// them, exact or quantised to 8 bits: it then solves them with far fewer
// expansions than the uniform policy, and a run interrupted an iteration
// before its end and resumed ends exactly as the uninterrupted run (with
// Growth 1, from a checkpoint with solutions pending). With -short, not
// exact with Growth 1, whose parts the two others check.
func TestLearnerBootstrap(t *testing.T) {
	for _, c := range []struct {
		growth float64
		bits   int
	}{{0, 0}, {1, 0}, {1, 8}} {
		if testing.Short() && c.growth == 1 && c.bits == 0 {
			continue
		}
		t.Run(fmt.Sprintf("growth=%g,bits=%d", c.growth, c.bits), func(t *testing.T) {
			testLearnerBootstrap(t, LearnerConfig{Growth: c.growth, Bits: c.bits})
		})
	}
}

func testLearnerBootstrap(t *testing.T, lc LearnerConfig) {
	tasks := openGrids(24, 10, 11)
	// Batches of 1: in searches of a few dozen expansions, batches of
	// 32 children evaluated before any is pushed would hide the policy.
	cfg := bootstrap.Config{Algorithm: search.LevinTS(), Options: search.Options{Budget: 50, BatchSize: 1}, ProblemsPerUpdate: 6, Limits: bootstrap.Limits{MaxIterations: 10}}
	ref := newGridLearner(t, tasks, lc)
	refMetrics, err := bootstrap.Train(context.Background(), t.TempDir(), tasks, ref, cfg, bootstrap.Env{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkEdges(t, tasks)
	n := len(refMetrics)
	if last := refMetrics[n-1]; last.TotalSolved != len(tasks) || n < 2 {
		t.Fatalf("%d of %d solved in %d iterations: %+v", last.TotalSolved, len(tasks), n, refMetrics)
	}
	test := NewEvaluator[int32](ref.Table())
	learned, solved := expansions(t, tasks, test, 0)
	uniform, _ := expansions(t, tasks, search.Uniform[int32]{}, 0)
	t.Logf("%d iterations; %d expansions with the context model (%d rows, %d solutions kept), %d with the uniform policy", n, learned, ref.Table().Rows(), ref.Solutions(), uniform)
	if solved != len(tasks) || 3*learned > uniform {
		t.Errorf("%d expansions with the context model, %d with the uniform policy: not 3 times fewer", learned, uniform)
	}

	// n−1 iterations, then the rest.
	dir := t.TempDir()
	cfg.MaxIterations = n - 1
	if _, err := bootstrap.Train(context.Background(), dir, tasks, newGridLearner(t, tasks, lc), cfg, bootstrap.Env{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	cp, err := LoadLearner(filepath.Join(dir, "checkpoint"), 0, tasks...)
	if err != nil {
		t.Fatal(err)
	}
	if lc.Growth > 0 && len(cp.pending) == 0 {
		t.Fatalf("no solution pending at the checkpoint (%d optimised over, counts %+v): the resumed run does not check them", len(cp.trajs), cp.opt)
	}
	load := func(dir string) (bootstrap.Learner[int32], error) { return LoadLearner(dir, 0, tasks...) }
	l, metrics, err := bootstrap.Resume(context.Background(), dir, tasks, load, bootstrap.Env{Workers: 2, Limits: &bootstrap.Limits{MaxIterations: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := withoutTimes(metrics), withoutTimes(refMetrics); !reflect.DeepEqual(got, want) {
		t.Errorf("resumed metrics\n%+v\nwant\n%+v", got, want)
	}
	res := l.(*Learner[int32])
	if !bytes.Equal(tableBytes(t, res.Table()), tableBytes(t, ref.Table())) || !reflect.DeepEqual(res.trajs, ref.trajs) || !reflect.DeepEqual(res.pending, ref.pending) || res.opt != ref.opt {
		t.Error("the resumed run ends with another table, other solutions or other counts than the uninterrupted one")
	}
}

// stalled is a context whose Err reports nil for its first calls, left of
// them, then waits until the context it wraps is done and reports its
// error: an optimisation that goes on until the context of its update is
// done, at the run's time limit.
type stalled struct {
	context.Context
	left *int
}

func (c stalled) Err() error {
	if *c.left > 0 {
		*c.left--
		return nil
	}
	<-c.Context.Done()
	return c.Context.Err()
}

// stallingLearner is a learner whose first update optimises until the
// context of the update is done, after left checks of it.
type stallingLearner struct {
	*Learner[int32]
	left int // −1 after the first update
}

func (l *stallingLearner) Learn(ctx context.Context, batch []bootstrap.Solution[int32]) (bootstrap.Update, error) {
	if l.left < 0 {
		return l.Learner.Learn(ctx, batch)
	}
	left := l.left
	l.left = -1
	return l.Learner.Learn(stalled{ctx, &left}, batch)
}

// TestTimeLimitMidOptimisation stops a run at its time limit in the
// middle of an optimisation, copies the run directory elsewhere and
// removes it, and resumes the copy with a raised limit: the checkpoint
// holds the learner as it was before the update, with the group's
// searches, and the resumed run ends as the uninterrupted one, with the
// same files; for an exact learner and one of 8 bits.
func TestTimeLimitMidOptimisation(t *testing.T) {
	for _, bits := range []int{0, 8} {
		t.Run(fmt.Sprint("bits=", bits), func(t *testing.T) { testTimeLimitMidOptimisation(t, bits) })
	}
}

func testTimeLimitMidOptimisation(t *testing.T, bits int) {
	tasks := openGrids(24, 10, 11)
	cfg := bootstrap.Config{Algorithm: search.LevinTS(), Options: search.Options{Budget: 50, BatchSize: 1}, ProblemsPerUpdate: 6, Limits: bootstrap.Limits{MaxIterations: 4}}
	lc := LearnerConfig{Growth: 1, Bits: bits}
	refDir := t.TempDir()
	ref := newGridLearner(t, tasks, lc)
	refMetrics, err := bootstrap.Train(context.Background(), refDir, tasks, ref, cfg, bootstrap.Env{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.pending) == 0 {
		t.Fatal("no solution pending at the end: the test needs some")
	}

	dir := t.TempDir()
	// The limit leaves time for the first group's searches (of a few
	// milliseconds) before the optimisation stalls.
	cfg.TimeLimit = time.Second
	if testing.Short() {
		cfg.TimeLimit = 400 * time.Millisecond
	}
	start := time.Now()
	if _, err := bootstrap.Train(context.Background(), dir, tasks, &stallingLearner{newGridLearner(t, tasks, lc), 3}, cfg, bootstrap.Env{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > cfg.TimeLimit+5*time.Second {
		t.Errorf("a run with a time limit of %v took %v", cfg.TimeLimit, took)
	}
	cp, err := LoadLearner(filepath.Join(dir, "checkpoint"), 0, tasks...)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Solutions() != 0 || cp.Table().Rows() != 0 {
		t.Errorf("the checkpoint at the time limit holds %d solutions, %d rows; want the learner before its first update", cp.Solutions(), cp.Table().Rows())
	}
	var st struct {
		Done  bool `json:"done"`
		Next  int  `json:"next"`
		Group []struct {
			Pos int `json:"pos"`
		} `json:"group"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "checkpoint", "state.json"))
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil || !st.Done || st.Next != 0 || len(st.Group) != cfg.ProblemsPerUpdate {
		t.Fatalf("state.json at the time limit: done %v, next %d, %d searches kept (%v); want done, 0, %d", st.Done, st.Next, len(st.Group), err, cfg.ProblemsPerUpdate)
	}

	moved := t.TempDir()
	if err := os.CopyFS(moved, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	load := func(dir string) (bootstrap.Learner[int32], error) { return LoadLearner(dir, 0, tasks...) }
	l, metrics, err := bootstrap.Resume(context.Background(), moved, tasks, load, bootstrap.Env{Workers: 2, Limits: &bootstrap.Limits{MaxIterations: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := withoutTimes(metrics), withoutTimes(refMetrics); !reflect.DeepEqual(got, want) {
		t.Errorf("resumed metrics\n%+v\nwant\n%+v", got, want)
	}
	res := l.(*Learner[int32])
	if !bytes.Equal(tableBytes(t, res.Table()), tableBytes(t, ref.Table())) || !reflect.DeepEqual(res.trajs, ref.trajs) || !reflect.DeepEqual(res.pending, ref.pending) || res.opt != ref.opt {
		t.Error("the resumed run ends with another table, other solutions or other counts than the uninterrupted one")
	}
	for _, name := range []string{LearnerFile, TableFile + GzipSuffix, TrajectoriesFile + GzipSuffix} {
		a, err := os.ReadFile(filepath.Join(refDir, "checkpoint", name))
		if err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(moved, "checkpoint", name)); err != nil || !bytes.Equal(a, b) {
			t.Errorf("checkpoint/%s differs from the uninterrupted run's (%v)", name, err)
		}
	}
}

// TestLearnInterrupted checks that an optimisation interrupted after a
// few steps changes nothing, and that the update taken again gives the
// learner of the update not interrupted.
func TestLearnInterrupted(t *testing.T) {
	tasks := grids(10, 18)
	sols := solveGrids(t, tasks)
	cfg := LearnerConfig{Growth: 1, OptimizerConfig: OptimizerConfig{MaxSteps: 30}}
	lr, ref := newGridLearner(t, tasks, cfg), newGridLearner(t, tasks, cfg)
	for _, l := range []*Learner[int32]{lr, ref} {
		if _, err := l.Learn(context.Background(), sols[:4]); err != nil {
			t.Fatal(err)
		}
		if u, err := l.Learn(context.Background(), sols[4:6]); err != nil || u.Steps > 0 {
			t.Fatal(u, err)
		}
	}
	table, trajs, pending, opt := lr.Table(), maps.Clone(lr.trajs), maps.Clone(lr.pending), lr.opt
	want := tableBytes(t, table)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	left := 5 // the check before, then 4 steps
	if _, err := lr.Learn(stalled{done, &left}, sols[6:]); !errors.Is(err, context.Canceled) || left > 0 {
		t.Fatalf("Learn interrupted after 4 steps: %v, %d checks left; want context.Canceled, none", err, left)
	}
	if lr.Table() != table || !bytes.Equal(tableBytes(t, table), want) || !reflect.DeepEqual(lr.trajs, trajs) || !reflect.DeepEqual(lr.pending, pending) || lr.opt != opt {
		t.Error("an interrupted Learn changed the learner")
	}
	u, err := lr.Learn(context.Background(), sols[6:])
	if err != nil {
		t.Fatal(err)
	}
	v, err := ref.Learn(context.Background(), sols[6:])
	if err != nil {
		t.Fatal(err)
	}
	if u != v || u.Steps <= 4 || !bytes.Equal(tableBytes(t, lr.Table()), tableBytes(t, ref.Table())) || !reflect.DeepEqual(lr.trajs, ref.trajs) {
		t.Errorf("the update taken again: %+v, another table or other solutions than the update not interrupted, %+v", u, v)
	}
}

// policy returns the policy of lr's snapshot in the first 40 states of p.
func policy(t *testing.T, lr *Learner[int32], p search.Problem[int32]) []float64 {
	t.Helper()
	states := make([]int32, 40)
	for i := range states {
		states[i] = int32(i)
	}
	logPi := make([]float64, 4*len(states))
	if err := lr.Snapshot().NewEvaluator().Evaluate(p, states, logPi, make([]float64, len(states))); err != nil {
		t.Fatal(err)
	}
	return logPi
}

// TestLearnerGrowth checks which updates optimise with Growth 1 and 0.5,
// solutions replaced counting as changed, and that a learner saved
// between two updates goes on as it would have.
func TestLearnerGrowth(t *testing.T) {
	tasks := grids(12, 15)
	sols := solveGrids(t, tasks)
	sol := func(i int) bootstrap.Solution[int32] { return sols[i] }
	for _, tc := range []struct {
		growth float64
		// batches of problem indices, and whether each update optimises
		batches [][]int
		want    []bool
	}{
		{1, [][]int{{0, 1}, {2}, {3}, {4, 5}, {0, 1, 2, 3}}, []bool{true, false, true, false, true}},
		{0.5, [][]int{{0, 1}, {2}, {3}, {4}, {0}, {5, 6, 7}}, []bool{true, true, false, true, false, true}},
		{0, [][]int{{0}, {0}, {1}}, []bool{true, true, true}},
	} {
		lr := newGridLearner(t, tasks, LearnerConfig{Growth: tc.growth, OptimizerConfig: OptimizerConfig{MaxSteps: 3}})
		for i, b := range tc.batches {
			if i == 2 { // through a save and a load
				dir := t.TempDir()
				if err := lr.Save(dir); err != nil {
					t.Fatal(err)
				}
				var err error
				if lr, err = LoadLearner(dir, 0, tasks...); err != nil {
					t.Fatal(err)
				}
			}
			var batch []bootstrap.Solution[int32]
			for _, k := range b {
				batch = append(batch, sol(k))
			}
			before := policy(t, lr, tasks[0].Problem)
			u, err := lr.Learn(context.Background(), batch)
			if err != nil {
				t.Fatal(err)
			}
			if got := u.Steps > 0; got != tc.want[i] {
				t.Errorf("growth %g, update %d (%v): optimised %v, want %v (counts %+v)", tc.growth, i, b, got, tc.want[i], lr.opt)
			}
			after := policy(t, lr, tasks[0].Problem)
			for j := range after {
				// Rows at β0 add the same to every action's sum.
				if d := math.Abs(after[j] - before[j]); u.Steps == 0 && d > 1e-12 {
					t.Fatalf("growth %g, update %d: no optimisation, but log π[%d] changed by %g", tc.growth, i, j, d)
				}
			}
		}
	}
}

// TestLearnerFlush checks that Flush optimises over the pending
// solutions, lowering their loss, and then has nothing to do; and that a
// done context changes nothing.
func TestLearnerFlush(t *testing.T) {
	tasks := grids(6, 19)
	sols := solveGrids(t, tasks)
	lr := newGridLearner(t, tasks, LearnerConfig{Growth: 1, OptimizerConfig: OptimizerConfig{MaxSteps: 5}})
	for _, b := range [][]bootstrap.Solution[int32]{sols[:3], sols[3:4]} {
		if _, err := lr.Learn(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	if len(lr.pending) != 1 {
		t.Fatalf("%d solutions pending, want 1", len(lr.pending))
	}
	before, table := lr.Loss(), tableBytes(t, lr.Table())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lr.Flush(ctx); !errors.Is(err, context.Canceled) || len(lr.pending) != 1 || !bytes.Equal(tableBytes(t, lr.Table()), table) {
		t.Fatalf("Flush with a done context: error %v, %d pending; want context.Canceled and nothing changed", err, len(lr.pending))
	}
	u, err := lr.Flush(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if after := lr.Loss(); u.Steps == 0 || len(lr.pending) != 0 || len(lr.trajs) != 4 || !(after < before) || lr.opt != (counts{Covered: 4}) {
		t.Errorf("Flush: %d steps, %d pending, %d kept, log F %g → %g, counts %+v; want an optimisation over the 4 solutions", u.Steps, len(lr.pending), len(lr.trajs), before, after, lr.opt)
	}
	table = tableBytes(t, lr.Table())
	if u, err := lr.Flush(context.Background()); err != nil || u.Steps != 0 || !bytes.Equal(tableBytes(t, lr.Table()), table) {
		t.Errorf("Flush without pending solutions: %+v, %v; want nothing done", u, err)
	}
}

// solveGrids returns the solutions of tasks by LevinTS with the uniform
// policy, the one of task i of index i.
func solveGrids(t *testing.T, tasks []search.Task[int32]) []bootstrap.Solution[int32] {
	t.Helper()
	s, _ := search.NewSolver[int32](search.LevinTS(), search.Uniform[int32]{}, search.Options{})
	var sols []bootstrap.Solution[int32]
	for i, task := range tasks {
		r, err := s.Solve(context.Background(), task.Problem)
		if err != nil || !r.Solved {
			t.Fatal(r, err)
		}
		sols = append(sols, bootstrap.Solution[int32]{Index: i, Problem: task.Problem, Trajectory: r.Trajectory})
	}
	return sols
}

// detour returns another solution of the problem of grid solution s:
// a step from the start and back, then s's actions.
func detour(t *testing.T, tasks []search.Task[int32], s bootstrap.Solution[int32]) bootstrap.Solution[int32] {
	t.Helper()
	p := tasks[s.Index].Problem
	for a := range 4 {
		next, ok := p.Apply(p.Root(), a)
		if !ok {
			continue
		}
		back := a ^ 1 // up and down, left and right
		if prev, ok := p.Apply(next, back); !ok || prev != p.Root() {
			t.Fatalf("action %d does not undo action %d", back, a)
		}
		tr := &search.Trajectory[int32]{States: []int32{p.Root(), next}, Actions: []int{a, back}}
		tr.States = append(tr.States, s.Trajectory.States...)
		tr.Actions = append(tr.Actions, s.Trajectory.Actions...)
		return bootstrap.Solution[int32]{Index: s.Index, Problem: p, Trajectory: tr}
	}
	t.Fatalf("no move from the start of problem %d", s.Index)
	return bootstrap.Solution[int32]{}
}

// bruteLoss returns log F of table tb over solutions with regulariser
// weight lambda, from the policies of an evaluator of tb: it skips the
// contexts that tb lacks, as rows at β0 would add the same to every
// action.
func bruteLoss(t *testing.T, tb *Table, lambda float64, solutions []bootstrap.Solution[int32]) float64 {
	t.Helper()
	ev := NewEvaluator[int32](tb)
	A := tb.layout.Actions
	var terms []float64
	for _, s := range solutions {
		tr := s.Trajectory
		n := len(tr.States)
		logPi := make([]float64, n*A)
		parents, actions := append(tr.States[:1:1], tr.States[:n-1]...), append([]int{-1}, tr.Actions[:n-1]...)
		if err := ev.EvaluateEdges(s.Problem, parents, actions, tr.States, logPi, make([]float64, n)); err != nil {
			t.Fatal(err)
		}
		l := math.Log(float64(n))
		for i, a := range s.Trajectory.Actions {
			l -= logPi[i*A+a]
		}
		terms = append(terms, l)
	}
	reg := 0.0
	for r := range tb.Rows() {
		for _, b := range tb.Beta(r) {
			reg += (b - tb.Beta0()) * (b - tb.Beta0())
		}
	}
	return lse(append(terms, math.Log(lambda/2*reg)))
}

// TestLearnerPending checks that an update that does not optimise
// leaves the table and the snapshots as they were and keeps its
// solutions pending: they count in Solutions and Loss, a bad solution
// changes nothing, they survive Save and LoadLearner exactly, and the
// next optimisation creates their rows by problem index and step,
// whatever the order of the batches.
func TestLearnerPending(t *testing.T) {
	tasks := grids(8, 17)
	sols := solveGrids(t, tasks)
	// Problem 1's new solution, another path.
	other := detour(t, tasks, sols[1])
	cfg := LearnerConfig{Growth: 1, OptimizerConfig: OptimizerConfig{MaxSteps: 5}}
	learn := func(lr *Learner[int32], batch ...bootstrap.Solution[int32]) bootstrap.Update {
		t.Helper()
		u, err := lr.Learn(context.Background(), batch)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}

	lr := newGridLearner(t, tasks, cfg)
	if u := learn(lr, sols[0], sols[1], sols[2], sols[3]); u.Steps == 0 {
		t.Fatal("the first update does not optimise")
	}
	tb := lr.Table()
	want := tableBytes(t, tb)
	if u := learn(lr, sols[4], other); u.Steps > 0 {
		t.Fatalf("2 solutions changed of 4 covered, growth 1: the update optimises")
	}
	if lr.Table() != tb || lr.Snapshot().(*Snapshot[int32]).Table() != tb || !bytes.Equal(tableBytes(t, tb), want) {
		t.Error("an update without optimisation changed the table or the snapshot")
	}
	if len(lr.pending) != 2 || lr.Solutions() != 5 || lr.opt != (counts{Covered: 4, Changed: 2}) {
		t.Errorf("%d pending, %d solutions, counts %+v; want 2, 5, {4 2}", len(lr.pending), lr.Solutions(), lr.opt)
	}
	kept := []bootstrap.Solution[int32]{sols[0], other, sols[2], sols[3], sols[4]}
	if got, want := lr.Loss(), bruteLoss(t, tb, lr.cfg.Lambda, kept); math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Errorf("loss %g with solutions pending, want %g", got, want)
	}

	bad := sols[6]
	bad.Trajectory = &search.Trajectory[int32]{States: bad.Trajectory.States, Actions: slices.Clone(bad.Trajectory.Actions)}
	bad.Trajectory.Actions[1] = 4
	pending, opt := maps.Clone(lr.pending), lr.opt
	if _, err := lr.Learn(context.Background(), []bootstrap.Solution[int32]{sols[7], bad}); err == nil || !strings.Contains(err.Error(), "action 4 out of range") {
		t.Errorf("Learn of a solution with action 4: %v", err)
	}
	if !reflect.DeepEqual(lr.pending, pending) || lr.opt != opt || lr.Table() != tb {
		t.Error("a Learn that failed changed the learner")
	}

	dir := t.TempDir()
	if err := lr.Save(dir); err != nil {
		t.Fatal(err)
	}
	ld, err := LoadLearner(dir, 0, tasks...)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ld.trajs, lr.trajs) || !reflect.DeepEqual(ld.pending, lr.pending) || ld.opt != lr.opt || ld.Solutions() != lr.Solutions() || !bytes.Equal(tableBytes(t, ld.table), want) {
		t.Error("the loaded learner differs from the saved one")
	}
	if ld.Loss() != lr.Loss() {
		t.Errorf("loss %g after loading, %g before", ld.Loss(), lr.Loss())
	}

	// The contexts that the optimisation must create, by problem index,
	// step and mutex set.
	type setCode struct {
		set  int
		code uint64
	}
	var created []setCode
	seen := map[setCode]bool{}
	for _, s := range []bootstrap.Solution[int32]{other, sols[4], sols[6], sols[7]} {
		codes := make([]uint64, len(tb.layout.Sizes))
		for _, st := range s.Trajectory.States {
			s.Problem.(Contexter[int32]).Contexts(st, -1, st, codes)
			for set, code := range codes {
				if c := (setCode{set, code}); tb.Row(set, code) < 0 && !seen[c] {
					seen[c] = true
					created = append(created, c)
				}
			}
		}
	}

	// Changed 4 of 4 covered: both optimise, to the same table.
	for _, l := range []*Learner[int32]{lr, ld} {
		if u := learn(l, sols[6], sols[7]); u.Steps == 0 {
			t.Fatal("4 solutions changed of 4 covered, growth 1: no optimisation")
		}
	}
	if len(lr.pending) != 0 || lr.Solutions() != 7 || lr.opt != (counts{Covered: 7}) {
		t.Errorf("after the optimisation: %d pending, %d solutions, counts %+v; want 0, 7, {7 0}", len(lr.pending), lr.Solutions(), lr.opt)
	}
	if !bytes.Equal(tableBytes(t, ld.Table()), tableBytes(t, lr.Table())) || !reflect.DeepEqual(ld.trajs, lr.trajs) {
		t.Error("the learner saved and loaded with solutions pending goes on to another table")
	}
	if got := lr.Table().Rows() - tb.Rows(); got != len(created) || len(created) == 0 {
		t.Fatalf("%d rows created, want %d", got, len(created))
	}
	for i, c := range created {
		if set, code := lr.Table().Context(tb.Rows() + i); set != c.set || code != c.code {
			t.Fatalf("new row %d is the context (%d, %d), want (%d, %d)", i, set, code, c.set, c.code)
		}
	}
	// The same solutions, batches in other orders.
	rev := newGridLearner(t, tasks, cfg)
	learn(rev, sols[3], sols[2], sols[1], sols[0])
	learn(rev, other, sols[4])
	learn(rev, sols[7], sols[6])
	if !bytes.Equal(tableBytes(t, rev.Table()), tableBytes(t, lr.Table())) {
		t.Error("the same solutions in batches of another order give another table")
	}
}

// TestLearnWithoutOptimisingAllocates checks that an update that does
// not optimise allocates far less than a copy of a table of 2^16 rows.
func TestLearnWithoutOptimisingAllocates(t *testing.T) {
	w := wide{sets: 8}
	lr := newWideLearner(t, w, 1<<16, 1000)
	tb := lr.Table()
	batch := []bootstrap.Solution[int32]{wideSolution(w, 0, 1<<16, 50)}
	const n = 20
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range n {
		if u, err := lr.Learn(context.Background(), batch); err != nil || u.Steps > 0 {
			t.Fatal(u, err)
		}
	}
	runtime.ReadMemStats(&m1)
	perCall, beta := (m1.TotalAlloc-m0.TotalAlloc)/n, uint64(8*tb.layout.Actions*tb.Rows())
	if perCall > beta/32 || lr.Table() != tb {
		t.Errorf("an update without optimisation allocates %d bytes (the table's parameters take %d), same table %v", perCall, beta, lr.Table() == tb)
	}
}

// TestDecodeTrajectories checks that loading corrupted solutions is an
// error, in the current form (actions, replayed from the problems) and in
// the earlier one (with the rows of the solutions optimised over and the
// codes of those pending), which loads with the tasks or without; and
// that a file without pending solutions loads with none.
func TestDecodeTrajectories(t *testing.T) {
	lr, tasks := seedLearner(t)
	js, tb, tj := learnerFiles(t, lr)
	js = withoutTrajectoriesDigest(t, js) // the trajectories below are changed
	old := earlierForm(t, lr)
	M := len(lr.table.layout.Sizes)
	empty, err := NewTable(lr.table.layout, lr.cfg.EpsLow)
	if err != nil {
		t.Fatal(err)
	}
	emptyTable := tableBytes(t, empty)
	uncovered := bytes.Replace(js, []byte(`"covered": 3`), []byte(`"covered": 0`), 1)
	if bytes.Equal(uncovered, js) {
		t.Fatalf("cm.json counts no 3 covered: %s", js)
	}
	// illegal is a step of the first solution optimised over and an
	// action illegal there.
	first := lr.trajs[slices.Min(slices.Collect(maps.Keys(lr.trajs)))]
	illegalStep, illegal := -1, 0
	for i, s := 0, tasks[0].Problem.Root(); i < len(first.actions) && illegalStep < 0; i++ {
		for a := range 4 {
			if _, ok := tasks[0].Problem.Apply(s, a); !ok {
				illegalStep, illegal = i, a
				break
			}
		}
		s, _ = tasks[0].Problem.Apply(s, int(first.actions[i]))
	}
	if illegalStep < 0 || slices.Min(slices.Collect(maps.Keys(lr.trajs))) != 0 {
		t.Fatal("no illegal action along the solution of problem 0")
	}
	// otherRow makes the first row of solution 0 another row of its
	// mutex set, and otherCode the first code of pending solution 0
	// another code of its set: what the earlier form checks only with
	// the tasks.
	otherRow := func(ts map[string]safetensors.Tensor) {
		r := ts["rows"].I32s()
		for o := range lr.table.Rows() {
			if set, _ := lr.table.Context(o); set == 0 && int32(o) != r[0] {
				r[0] = int32(o)
				break
			}
		}
		ts["rows"] = safetensors.I32(ts["rows"].Shape, r)
	}
	otherCode := func(ts map[string]safetensors.Tensor) {
		c := ts["pending_codes"].U64s()
		c[0] = (c[0] + 1) % lr.table.layout.Sizes[0]
		ts["pending_codes"] = safetensors.U64(ts["pending_codes"].Shape, c)
	}
	for _, tc := range []struct {
		name       string
		js, tb, tj []byte // the files, as seedLearner's if nil
		tasks      []search.Task[int32]
		change     func(ts map[string]safetensors.Tensor)
		// pending is the number of pending solutions loaded, if no
		// error (−1: those saved, changed), and trajs −1 if the file has
		// none optimised over, 1 if they differ from those saved.
		trajs, pending int
		want           string // "" for none
	}{
		{name: "unchanged", tasks: tasks, pending: 2},
		{name: "no pending tensors", tasks: tasks, change: func(ts map[string]safetensors.Tensor) {
			for _, n := range []string{"index", "length", "action"} {
				delete(ts, "pending_"+n)
			}
		}},
		{name: "no tasks", want: "solution 0: problem 0: the contexts of the solutions are rebuilt from the run's problems, and there are none"},
		{name: "too few tasks", tasks: tasks[:3], want: "pending solution 1: problem 3; the run has 3"},
		{name: "another layout", tasks: []search.Task[int32]{{Problem: wide{sets: 1}}}, want: `solution 0 (problem 0): cm: the model is for the context set "grid test"`},
		{name: "illegal action", tasks: tasks, change: func(ts map[string]safetensors.Tensor) {
			a := slices.Clone(ts["action"].Data)
			a[illegalStep] = uint8(illegal)
			ts["action"] = safetensors.U8([]int{len(a)}, a)
		}, want: fmt.Sprintf("solution 0 (problem 0): step %d: action %d is illegal", illegalStep, illegal)},
		{name: "action out of range", tasks: tasks, change: func(ts map[string]safetensors.Tensor) {
			a := slices.Clone(ts["action"].Data)
			a[1] = 4
			ts["action"] = safetensors.U8([]int{len(a)}, a)
		}, want: "solution 0, step 1: action 4 out of range"},
		{name: "no goal", tasks: tasks, change: func(ts map[string]safetensors.Tensor) {
			lengths, a := ts["pending_length"].I32s(), ts["pending_action"].Data
			lengths[1]--
			ts["pending_length"] = safetensors.I32([]int{2}, lengths)
			ts["pending_action"] = safetensors.U8([]int{len(a) - 1}, a[:len(a)-1])
		}, want: fmt.Sprintf("pending solution 1 (problem 3): after %d actions: not a goal", len(lr.pending[3].actions)-1)},
		{name: "a context without a row", tb: emptyTable, tasks: tasks, want: "solution 0 (problem 0): step 0: the table has no row of the context (mutex set 0"},
		{name: "pending contexts need no row", js: uncovered, tb: emptyTable, tasks: tasks, change: func(ts map[string]safetensors.Tensor) {
			ts["index"] = safetensors.I64([]int{0}, nil)
			ts["length"] = safetensors.I32([]int{0}, nil)
			ts["action"] = safetensors.U8([]int{0}, nil)
		}, trajs: -1, pending: 2},
		{name: "a mix of the forms", tasks: tasks, change: func(ts map[string]safetensors.Tensor) {
			ts["pending_codes"] = safetensors.U64([]int{0, M}, nil)
		}, want: `"pending_codes" without "rows"`},
		{name: "negative index", tasks: tasks, change: func(ts map[string]safetensors.Tensor) {
			ts["pending_index"] = safetensors.I64([]int{2}, []int64{-1, 3})
		}, want: "pending solution 0: index -1, "},
		{name: "a problem twice", tasks: tasks, change: func(ts map[string]safetensors.Tensor) {
			ts["pending_index"] = safetensors.I64([]int{2}, []int64{0, 0})
		}, want: "a second pending solution of problem 0"},

		// The earlier form.
		{name: "earlier form", tj: old, pending: 2},
		{name: "earlier form with the tasks", tj: old, tasks: tasks, pending: 2},
		{name: "earlier form with too few tasks", tj: old, tasks: tasks[:3], want: "pending solution 1: problem 3; the run has 3"},
		{name: "earlier form without pending tensors", tj: old, change: func(ts map[string]safetensors.Tensor) {
			for _, n := range []string{"index", "length", "action", "codes"} {
				delete(ts, "pending_"+n)
			}
		}},
		{name: "earlier form without codes", tj: old, change: func(ts map[string]safetensors.Tensor) { delete(ts, "pending_codes") }, want: `no tensor "pending_codes"`},
		{name: "earlier form, no step", tj: old, change: func(ts map[string]safetensors.Tensor) {
			l := ts["pending_length"].I32s()
			ts["pending_length"] = safetensors.I32([]int{2}, []int32{0, l[1]})
		}, want: "pending solution 0: index"},
		{name: "earlier form, steps left over", tj: old, change: func(ts map[string]safetensors.Tensor) {
			l := ts["pending_length"].I32s()
			ts["pending_length"] = safetensors.I32([]int{2}, []int32{l[0], l[1] - 1})
		}, want: "pending steps, the solutions have"},
		{name: "earlier form, lengths", tj: old, change: func(ts map[string]safetensors.Tensor) {
			ts["pending_length"] = safetensors.I32([]int{1}, ts["pending_length"].I32s()[:1])
		}, want: `tensor "pending_length" has shape`},
		{name: "earlier form, action", tj: old, change: func(ts map[string]safetensors.Tensor) {
			a := slices.Clone(ts["pending_action"].Data)
			a[len(a)-1] = 4
			ts["pending_action"] = safetensors.U8([]int{len(a)}, a)
		}, want: "action 4 out of range"},
		{name: "earlier form, code", tj: old, change: func(ts map[string]safetensors.Tensor) {
			c := ts["pending_codes"].U64s()
			c[M+1] = gridCells.Size(gridBase)
			ts["pending_codes"] = safetensors.U64(ts["pending_codes"].Shape, c)
		}, want: "step 1: code 3 of mutex set 1 out of its range 3"},
		{name: "earlier form, codes dtype", tj: old, change: func(ts map[string]safetensors.Tensor) {
			ts["pending_codes"] = safetensors.I64(ts["pending_codes"].Shape, make([]int64, len(ts["pending_codes"].Data)/8))
		}, want: `tensor "pending_codes" is I64`},
		{name: "earlier form, codes shape", tj: old, change: func(ts map[string]safetensors.Tensor) {
			sh := ts["pending_codes"].Shape
			ts["pending_codes"] = safetensors.U64([]int{sh[0], M - 1}, ts["pending_codes"].U64s()[:sh[0]*(M-1)])
		}, want: `tensor "pending_codes" has shape`},
		{name: "earlier form, row", tj: old, change: func(ts map[string]safetensors.Tensor) {
			r := ts["rows"].I32s()
			r[M+2] = r[M+1] // a row of mutex set 1 for set 2
			ts["rows"] = safetensors.I32(ts["rows"].Shape, r)
		}, want: "solution 0, step 1: row"},
		{name: "earlier form, another row of the set", tj: old, change: otherRow, trajs: 1, pending: 2},
		{name: "earlier form with the tasks, another row of the set", tj: old, tasks: tasks, change: otherRow, want: "solution 0 (problem 0): step 0: row"},
		{name: "earlier form, another code", tj: old, change: otherCode, pending: -1},
		{name: "earlier form with the tasks, another code", tj: old, tasks: tasks, change: otherCode, want: "pending solution 0 (problem 0): step 0: the codes are not those of the contexts of the state"},
		{name: "earlier form with the tasks, illegal action", tj: old, tasks: tasks, change: func(ts map[string]safetensors.Tensor) {
			a := slices.Clone(ts["action"].Data)
			a[illegalStep] = uint8(illegal)
			ts["action"] = safetensors.U8([]int{len(a)}, a)
		}, want: fmt.Sprintf("solution 0 (problem 0): step %d: action %d is illegal", illegalStep, illegal)},
		{name: "earlier form, rows dtype", tj: old, change: func(ts map[string]safetensors.Tensor) {
			ts["rows"] = safetensors.U8([]int{len(ts["rows"].Data) / M, M}, ts["rows"].Data)
		}, want: `tensor "rows" is U8`},
	} {
		settings, table, file := js, tb, tj
		if tc.js != nil {
			settings = tc.js
		}
		if tc.tb != nil {
			table = tc.tb
		}
		if tc.tj != nil {
			file = tc.tj
		}
		if tc.change != nil {
			ts, meta, err := safetensors.Decode(file)
			if err != nil {
				t.Fatal(err)
			}
			tc.change(ts)
			file = reencode(t, ts, meta)
		}
		got, err := decodeLearner(settings, table, file, tc.tasks)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v; want an error with %q", tc.name, err, tc.want)
		case err != nil:
		case tc.trajs == 0 && !reflect.DeepEqual(got.trajs, lr.trajs), tc.trajs < 0 && len(got.trajs) > 0,
			tc.trajs > 0 && (len(got.trajs) != len(lr.trajs) || reflect.DeepEqual(got.trajs, lr.trajs)):
			t.Errorf("%s: %d solutions optimised over, other than those saved", tc.name, len(got.trajs))
		case tc.pending == 0 && len(got.pending) > 0, tc.pending > 0 && !reflect.DeepEqual(got.pending, lr.pending),
			tc.pending < 0 && (len(got.pending) != len(lr.pending) || reflect.DeepEqual(got.pending, lr.pending)):
			t.Errorf("%s: %d solutions pending; want %d, those saved", tc.name, len(got.pending), tc.pending)
		}
	}
	// Two pending, counted as one change.
	bad := bytes.Replace(js, []byte(`"changed": 2`), []byte(`"changed": 1`), 1)
	if bytes.Equal(bad, js) {
		t.Fatalf("cm.json counts no 2 changed: %s", js)
	}
	if _, err := decodeLearner(bad, tb, tj, tasks); err == nil || !strings.Contains(err.Error(), "changed at least the 2 pending") {
		t.Errorf("1 changed, 2 pending: %v", err)
	}
}

// TestTrajectoriesForm checks that Save writes the solutions as their
// problems' indices, lengths and actions alone, and that a learner loaded
// from the earlier form, with rows and codes, saves the same files as the
// learner that wrote it.
func TestTrajectoriesForm(t *testing.T) {
	lr, tasks := seedLearner(t)
	js, tb, tj := learnerFiles(t, lr)
	ts, _, err := safetensors.Decode(tj)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"action", "index", "length", "pending_action", "pending_index", "pending_length"}
	if got := slices.Sorted(maps.Keys(ts)); !slices.Equal(got, want) {
		t.Errorf("%s holds %v, want %v", TrajectoriesFile, got, want)
	}
	var steps int
	for _, tr := range lr.trajs {
		steps += len(tr.actions)
	}
	if got := ts["action"].Data; len(got) != steps {
		t.Errorf("%d actions of the solutions optimised over, want %d", len(got), steps)
	}
	old, err := decodeLearner[int32](withoutTrajectoriesDigest(t, js), tb, earlierForm(t, lr), nil)
	if err != nil {
		t.Fatal(err)
	}
	js2, tb2, tj2 := learnerFiles(t, old)
	if !bytes.Equal(js2, js) || !bytes.Equal(tb2, tb) || !bytes.Equal(tj2, tj) {
		t.Error("the learner loaded from the earlier form saves other files")
	}
	if _, err := decodeLearner(js, tb, tj2, tasks); err != nil {
		t.Error(err)
	}
}

// TestSaveMemory checks that Save streams the solutions to their file:
// with 12 MB of them (their actions), optimised over and pending, it
// allocates less than a fifth of that besides its two gzip compressors
// (about 1.2 MB each, whatever the size of the files), and LoadLearner
// reads them back (not with -short: the replay of 12 million steps, which
// TestLearnerSaveLoad checks on a small learner).
func TestSaveMemory(t *testing.T) {
	const n, steps = 30000, 400
	w := walk{wide{sets: 1}, steps}
	lr := newWideLearner(t, w.wide, steps, n)
	tasks := make([]search.Task[int32], 2*n)
	for k := range tasks {
		tasks[k] = search.Task[int32]{ID: fmt.Sprint(k), Problem: w}
	}
	sol := wideSolution(w.wide, 0, 0, steps)
	sol.Problem = w
	p, err := pendingOf(lr.table.layout, sol)
	if err != nil {
		t.Fatal(err)
	}
	tr := p.trajectory(lr.table)
	if lr.table.Rows() != steps {
		t.Fatalf("%d rows; the solution created %d more", steps, lr.table.Rows()-steps)
	}
	lr.trajs, lr.pending = map[int]trajectory{}, map[int]pendingSolution{}
	for k := range n {
		lr.trajs[2*k] = tr
		if k%100 == 0 {
			lr.pending[2*k+1] = p
		}
	}
	lr.opt = counts{Covered: n, Changed: len(lr.pending)}
	data := int64((len(lr.trajs) + len(lr.pending)) * steps)
	dir := t.TempDir()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := lr.Save(dir); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	const compressors = 2 * 1300 << 10
	if alloc := int64(after.TotalAlloc - before.TotalAlloc); alloc > data/5+compressors {
		t.Errorf("Save allocated %d bytes for %d bytes of solutions; want at most a fifth, and %d for the compressors", alloc, data, compressors)
	}
	if fi, err := os.Stat(filepath.Join(dir, TrajectoriesFile+GzipSuffix)); err != nil || fi.Size() > data+12*int64(len(lr.trajs)+len(lr.pending))+1000 {
		t.Errorf("%s: %v, %v; want the actions, an index and a length per solution", TrajectoriesFile, fi.Size(), err)
	}
	if testing.Short() {
		return
	}
	got, err := LoadLearner(dir, 0, tasks...)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.trajs, lr.trajs) || !reflect.DeepEqual(got.pending, lr.pending) {
		t.Error("the loaded solutions differ from the saved ones")
	}
}

// TestLearnerSaveLoad checks that a saved learner loads as it was, and
// that a snapshot decodes as it was.
func TestLearnerSaveLoad(t *testing.T) {
	tasks := grids(10, 12)
	lr := newGridLearner(t, tasks, LearnerConfig{OptimizerConfig: OptimizerConfig{Lambda: 3, MaxSteps: 30}})
	lr.legacyMix = 0.01 // a learner of an earlier phs: its snapshots mix
	batch := solveGrids(t, tasks)
	// The solution of task i is that of problem 3i of spread.
	spread := make([]search.Task[int32], 3*len(tasks))
	for i := range batch {
		batch[i].Index = 3 * i
		for j := range 3 {
			spread[3*i+j] = tasks[i]
		}
	}
	if _, err := lr.Learn(context.Background(), batch[:6]); err != nil {
		t.Fatal(err)
	}
	if _, err := lr.Learn(context.Background(), batch[4:]); err != nil {
		t.Fatal(err)
	}
	if lr.Solutions() != len(tasks) || lr.Table().Rows() == 0 {
		t.Fatalf("%d solutions kept, %d rows", lr.Solutions(), lr.Table().Rows())
	}
	dir := t.TempDir()
	if err := lr.Save(dir); err != nil {
		t.Fatal(err)
	}
	got, err := LoadLearner(dir, 0, spread...)
	if err != nil {
		t.Fatal(err)
	}
	if got.cfg != lr.cfg || !reflect.DeepEqual(got.trajs, lr.trajs) || !bytes.Equal(tableBytes(t, got.table), tableBytes(t, lr.table)) {
		t.Error("the loaded learner differs from the saved one")
	}
	if got.Loss() != lr.Loss() {
		t.Errorf("loss %g after loading, %g before", got.Loss(), lr.Loss())
	}
	name := filepath.Join(t.TempDir(), "model.safetensors")
	if err := WriteTable(name, lr.Table()); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{name, filepath.Join(dir, TableFile+GzipSuffix)} {
		tb, err := ReadTable(file)
		if err != nil {
			t.Fatal(err)
		}
		if file == name {
			withinF32(t, tb, lr.table) // F32
		} else if !bytes.Equal(tableBytes(t, tb), tableBytes(t, lr.table)) {
			t.Errorf("%s: ReadTable gives another table", file)
		}
	}
	if _, err := ReadTable(filepath.Join(dir, TrajectoriesFile+GzipSuffix)); err == nil {
		t.Error("ReadTable reads a trajectories file")
	}

	b, err := lr.Snapshot().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	snap, err := DecodeSnapshot[int32](b)
	if err != nil {
		t.Fatal(err)
	}
	p := tasks[0].Problem
	states := []int32{0, 5, 10, 20, 35}
	want, got2 := make([]float64, 20), make([]float64, 20)
	h := make([]float64, 5)
	if err := lr.Snapshot().NewEvaluator().Evaluate(p, states, want, h); err != nil {
		t.Fatal(err)
	}
	if err := snap.NewEvaluator().Evaluate(p, states, got2, h); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(want, got2) || snap.(*Snapshot[int32]).mix != 0.01 {
		t.Errorf("decoded snapshot's policy %v, want %v", got2, want)
	}
}

// TestNewLearnerFrom checks that a learner started from a table has its
// parameters and no solution, leaves it as it was when it learns, and
// refuses another εlow.
func TestNewLearnerFrom(t *testing.T) {
	tasks := grids(6, 16)
	first := newGridLearner(t, tasks, LearnerConfig{OptimizerConfig: OptimizerConfig{MaxSteps: 5}})
	batch := solveGrids(t, tasks)
	if _, err := first.Learn(context.Background(), batch[:3]); err != nil {
		t.Fatal(err)
	}
	tb := first.Table()
	want := tableBytes(t, tb)
	lr, err := NewLearnerFrom[int32](tb, LearnerConfig{OptimizerConfig: OptimizerConfig{MaxSteps: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if lr.Solutions() != 0 || !bytes.Equal(tableBytes(t, lr.Table()), want) {
		t.Fatalf("a learner from a table: %d solutions, same table %v", lr.Solutions(), bytes.Equal(tableBytes(t, lr.Table()), want))
	}
	if u, err := lr.Learn(context.Background(), batch[3:]); err != nil || u.Steps == 0 {
		t.Fatal(u, err)
	}
	if !bytes.Equal(tableBytes(t, tb), want) {
		t.Error("learning changed the table the learner started from")
	}
	if _, err := NewLearnerFrom[int32](tb, LearnerConfig{EpsLow: 1e-3}); err == nil || !strings.Contains(err.Error(), "εlow") {
		t.Errorf("another εlow: %v", err)
	}
}

// TestLearnerWrongLayout checks that a learner refuses problems of
// another layout, in Train and in Learn, and that loading files of
// another layout or with a field out of range is an error.
func TestLearnerWrongLayout(t *testing.T) {
	tasks := grids(4, 13)
	other := newGridLearner(t, tasks, LearnerConfig{})
	other.table.layout.Name = "grid other"
	cfg := bootstrap.Config{Algorithm: search.LevinTS(), Options: search.Options{Budget: 100}}
	if _, err := bootstrap.Train(context.Background(), t.TempDir(), tasks, other, cfg, bootstrap.Env{Workers: 1}); err == nil || !strings.Contains(err.Error(), "context set") {
		t.Errorf("Train with a model of another layout: %v", err)
	}
	if err := other.CheckAlgorithm(search.AStar()); err == nil {
		t.Error("a context model accepts A*")
	}

	lr := newGridLearner(t, tasks, LearnerConfig{})
	dir := t.TempDir()
	if err := lr.Save(dir); err != nil {
		t.Fatal(err)
	}
	if err := other.Save(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	odir := t.TempDir()
	if err := other.Save(odir); err != nil {
		t.Fatal(err)
	}
	// The table of another layout beside cm.json.
	tb, _ := os.ReadFile(filepath.Join(odir, TableFile+GzipSuffix))
	os.WriteFile(filepath.Join(dir, TableFile+GzipSuffix), tb, 0o644)
	if _, err := LoadLearner[int32](dir, 0); err == nil || !strings.Contains(err.Error(), "layout") {
		t.Errorf("LoadLearner of mixed layouts: %v", err)
	}
	js := []byte(`{"config": {"eps_low": 2, "mix": 0.001, "lambda": 10, "max_steps": 200, "gap_factor": 0.5}, "layout": {"name": "grid test", "actions": 4, "sizes": [9]}}`)
	os.WriteFile(filepath.Join(dir, LearnerFile), js, 0o644)
	if _, err := LoadLearner[int32](dir, 0); err == nil || !strings.Contains(err.Error(), "εlow") {
		t.Errorf("LoadLearner of εlow 2: %v", err)
	}
	dir = t.TempDir()
	if err := lr.Save(dir); err != nil {
		t.Fatal(err)
	}
	js, _ = os.ReadFile(filepath.Join(dir, LearnerFile))
	js = bytes.Replace(js, []byte(`"covered": 0`), []byte(`"covered": 1`), 1)
	os.WriteFile(filepath.Join(dir, LearnerFile), js, 0o644)
	if _, err := LoadLearner[int32](dir, 0); err == nil || !strings.Contains(err.Error(), "covered at most the 0 solutions") {
		t.Errorf("LoadLearner of 1 solution covered of none kept: %v", err)
	}
	if _, err := LoadLearner[int32](t.TempDir(), -1); err == nil || !strings.Contains(err.Error(), "threads -1") {
		t.Errorf("LoadLearner on -1 threads: %v", err)
	}
}

// seedLearner returns a small trained learner of the grids seedTasks
// returns, with two solutions pending, one of them of a problem also
// optimised over, and those grids.
func seedLearner(t testing.TB) (*Learner[int32], []search.Task[int32]) {
	return seedLearnerConfig(t, LearnerConfig{Growth: 1, OptimizerConfig: OptimizerConfig{MaxSteps: 5}})
}

// seedLearnerConfig is seedLearner with the learner's settings cfg.
func seedLearnerConfig(t testing.TB, cfg LearnerConfig) (*Learner[int32], []search.Task[int32]) {
	tasks := seedTasks()
	return seedLearnerOn(t, cfg, tasks), tasks
}

// seedLearnerOn is seedLearnerConfig on tasks, four problems at least.
func seedLearnerOn(t testing.TB, cfg LearnerConfig, tasks []search.Task[int32]) *Learner[int32] {
	l, _ := LayoutOf(tasks[0].Problem)
	lr, err := NewLearner[int32](l, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := search.NewSolver[int32](search.LevinTS(), search.Uniform[int32]{}, search.Options{})
	var batch []bootstrap.Solution[int32]
	for i, task := range tasks {
		r, _ := s.Solve(context.Background(), task.Problem)
		batch = append(batch, bootstrap.Solution[int32]{Index: i, Problem: task.Problem, Trajectory: r.Trajectory})
	}
	if _, err := lr.Learn(context.Background(), batch[:3]); err != nil {
		t.Fatal(err)
	}
	if u, err := lr.Learn(context.Background(), []bootstrap.Solution[int32]{batch[3], batch[0]}); err != nil || u.Steps > 0 || len(lr.pending) != 2 {
		t.Fatal(u, err, len(lr.pending))
	}
	return lr
}

// seedTasks returns the grids of seedLearner.
func seedTasks() []search.Task[int32] { return grids(4, 14) }

// learnerFiles returns the contents of the files that lr.Save writes:
// cm.json, table.safetensors and trajectories.safetensors, decompressed.
func learnerFiles(t testing.TB, lr *Learner[int32]) (js, tb, tj []byte) {
	dir := t.TempDir()
	if err := lr.Save(dir); err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		b, err := readData(osOpen, learnerFile(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return read(LearnerFile), read(TableFile), read(TrajectoriesFile)
}

// maxFuzzInput is the length in bytes of the longest input that the fuzz
// targets of the package decode: they return at once for a longer one,
// so that no such input finds new coverage. The fuzzer minimises each
// input that does by trying to remove every run of its bytes, about n²/2
// executions for n bytes: for the 2.6 KB table of seedLearner, the whole
// of a 60 s run went to minimising (-fuzzminimizetime bounds it too).
const maxFuzzInput = 1 << 10

// A smallGrid is a grid whose contexts are two mutex sets only, the
// direction of the goal and the last action, so that its context model's
// files are small: the problems of the fuzz targets.
type smallGrid struct{ *grid }

func (g smallGrid) ContextLayout() (string, []uint64) { return "g", []uint64{9, 5} }

func (g smallGrid) Contexts(parent int32, a int, s int32, dst []uint64) {
	var all [15]uint64
	g.grid.Contexts(parent, a, s, all[:])
	dst[0], dst[1] = all[0], all[14]
}

// fuzzTasks returns the problems of the fuzz targets' learners: four
// small mazes of smallGrid's contexts.
func fuzzTasks() []search.Task[int32] {
	var ts []search.Task[int32]
	for i, rows := range [][]string{{"S.G"}, {"S#", ".G"}, {"G..", "#.S"}, {"S", ".", "G"}} {
		ts = append(ts, search.Task[int32]{ID: fmt.Sprintf("maze#%d", i), Problem: smallGrid{newGrid(searchtest.ParseMaze(rows...))}})
	}
	return ts
}

// fuzzLearner is seedLearner on fuzzTasks, its parameters of bits bits
// (LearnerConfig.Bits).
func fuzzLearner(t testing.TB, bits int) *Learner[int32] {
	return seedLearnerOn(t, LearnerConfig{Bits: bits, Growth: 1, OptimizerConfig: OptimizerConfig{MaxSteps: 5}}, fuzzTasks())
}

// fuzzFiles returns the files of fuzzLearner's learner of bits bits and
// its snapshot, each shorter than maxFuzzInput, without their digests (so
// that a change of the fuzzer reaches the checks of the contents), and
// the table and the snapshot with theirs.
func fuzzFiles(t testing.TB, bits int) (js, tb, tj, snap, tbDigest, snapDigest []byte) {
	lr := fuzzLearner(t, bits)
	js, tbDigest, tj = learnerFiles(t, lr)
	snapDigest, err := lr.Snapshot().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{tbDigest, tj, snapDigest} {
		if len(b) > maxFuzzInput {
			t.Fatalf("a seed of %d bytes, more than the %d the fuzz targets read", len(b), maxFuzzInput)
		}
	}
	return withoutTrajectoriesDigest(t, js), withoutDigest(t, tbDigest), tj, withoutDigest(t, snapDigest), tbDigest, snapDigest
}

// earlierForm returns the trajectories.safetensors of lr in the form
// that Save wrote before it kept the actions alone: with the rows of the
// solutions optimised over ("rows", I32 [ΣT, M]) and the codes of those
// pending ("pending_codes", U64 [ΣT', M]).
func earlierForm(t testing.TB, lr *Learner[int32]) []byte {
	M := len(lr.table.layout.Sizes)
	ts := map[string]safetensors.Tensor{}
	columns := func(prefix string, keys []int, actions func(k int) []uint8) {
		var index []int64
		var lengths []int32
		var all []uint8
		for _, k := range keys {
			index, lengths, all = append(index, int64(k)), append(lengths, int32(len(actions(k)))), append(all, actions(k)...)
		}
		ts[prefix+"index"] = safetensors.I64([]int{len(keys)}, index)
		ts[prefix+"length"] = safetensors.I32([]int{len(keys)}, lengths)
		ts[prefix+"action"] = safetensors.U8([]int{len(all)}, all)
	}
	keys := slices.Sorted(maps.Keys(lr.trajs))
	columns("", keys, func(k int) []uint8 { return lr.trajs[k].actions })
	var rows []int32
	for _, k := range keys {
		rows = append(rows, lr.trajs[k].rows...)
	}
	ts["rows"] = safetensors.I32([]int{len(rows) / M, M}, rows)
	if len(lr.pending) > 0 {
		keys = slices.Sorted(maps.Keys(lr.pending))
		columns("pending_", keys, func(k int) []uint8 { return lr.pending[k].actions })
		var codes []uint64
		for _, k := range keys {
			codes = append(codes, lr.pending[k].codes...)
		}
		ts["pending_codes"] = safetensors.U64([]int{len(codes) / M, M}, codes)
	}
	b, err := safetensors.Encode(ts, map[string]string{"format": formatName})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzDecodeTable checks that no table file makes the loader panic, for
// a learner of 0, 8 or 16 bits, and that a learner it accepts computes
// its loss and saves.
func FuzzDecodeTable(f *testing.F) {
	js, tb, tj, _, tbDigest, _ := fuzzFiles(f, 0)
	for _, b := range [][]byte{tb, tbDigest} {
		if _, err := decodeLearner(js, b, tj, fuzzTasks()); err != nil {
			f.Fatal(err)
		}
	}
	f.Add(tb)
	f.Add(tb[:len(tb)-3])
	f.Add(tbDigest)
	type files struct{ js, tj []byte }
	learners := []files{{js, tj}}
	for _, bits := range []int{8, 16} {
		js, tb, tj, _, _, _ := fuzzFiles(f, bits)
		if _, err := decodeLearner(js, tb, tj, fuzzTasks()); err != nil {
			f.Fatal(err)
		}
		f.Add(tb)
		f.Add(tb[:len(tb)-5])
		learners = append(learners, files{js, tj})
	}
	t32, _, _, err := unmarshalAnyTable(tb, nil)
	if err != nil {
		f.Fatal(err)
	}
	b32, err := marshalTable(t32, nil, true) // β as WriteTable writes it
	if err != nil {
		f.Fatal(err)
	}
	if _, err := decodeLearner(js, b32, tj, fuzzTasks()); err != nil {
		f.Fatal(err)
	}
	f.Add(b32)
	f.Fuzz(func(t *testing.T, tb []byte) {
		if len(tb) > maxFuzzInput {
			return
		}
		for _, l := range learners {
			decodeFuzzed(t, l.js, tb, l.tj)
		}
	})
}

// FuzzDecodeTrajectories checks the same of trajectories files, in both
// forms.
func FuzzDecodeTrajectories(f *testing.F) {
	js, tb, tj, _, _, _ := fuzzFiles(f, 0)
	f.Add(tj)
	f.Add(tj[:40])
	earlier := earlierForm(f, fuzzLearner(f, 0))
	if len(earlier) > maxFuzzInput {
		f.Fatalf("a seed of %d bytes, more than the %d the fuzz targets read", len(earlier), maxFuzzInput)
	}
	f.Add(earlier)
	f.Fuzz(func(t *testing.T, tj []byte) {
		if len(tj) <= maxFuzzInput {
			decodeFuzzed(t, js, tb, tj)
		}
	})
}

// encodeLearner returns the contents of the files that lr.Save writes,
// without writing them: cm.json, table.safetensors and
// trajectories.safetensors.
func encodeLearner(t *testing.T, lr *Learner[int32]) (js, tb, tj []byte) {
	t.Helper()
	tb, err := marshalLearnerTable(lr.table, lr.cfg.Bits, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	digest, err := lr.writeTrajectories(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if js, err = lr.settings(digest); err != nil {
		t.Fatal(err)
	}
	return js, tb, buf.Bytes()
}

// decodeFuzzed checks that a learner that decodeLearner accepts computes
// its loss, and encodes to files that decode to the same learner.
func decodeFuzzed(t *testing.T, js, tb, tj []byte) {
	tasks := fuzzTasks()
	lr, err := decodeLearner(js, tb, tj, tasks)
	if err != nil {
		return
	}
	lr.Loss()
	js2, tb2, tj2 := encodeLearner(t, lr)
	got, err := decodeLearner(js2, tb2, tj2, tasks)
	if err != nil {
		t.Fatal(err)
	}
	_, tb3, _ := encodeLearner(t, got)
	if got.cfg != lr.cfg || got.opt != lr.opt || !reflect.DeepEqual(got.trajs, lr.trajs) || !reflect.DeepEqual(got.pending, lr.pending) || !bytes.Equal(tableBytes(t, got.table), tableBytes(t, lr.table)) || !bytes.Equal(tb3, tb2) {
		t.Error("the learner's files decode to another learner")
	}
}

// FuzzDecodeSnapshot checks that no bytes make DecodeSnapshot panic, and
// that a snapshot it accepts, exact or quantised, evaluates without error
// and marshals to bytes that decode to the same table, bit for bit.
func FuzzDecodeSnapshot(f *testing.F) {
	_, _, _, snap, _, snapDigest := fuzzFiles(f, 0)
	f.Add(snap)
	f.Add(snap[:len(snap)/2])
	f.Add(snapDigest)
	for _, bits := range []int{8, 16} {
		_, _, _, b, _, _ := fuzzFiles(f, bits)
		f.Add(b)
		f.Add(b[:len(b)-4])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return
		}
		s, err := DecodeSnapshot[int32](b)
		if err != nil {
			return
		}
		ev := s.NewEvaluator().(*Evaluator[int32])
		l := ev.t.layout
		codes := make([]uint64, len(l.Sizes))
		z, out := make([]float64, l.Actions), make([]float64, l.Actions)
		ev.t.logPolicy(codes, ev.mix, z, out)
		m, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeSnapshot[int32](m)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := again.(*Snapshot[int32]), s.(*Snapshot[int32]); a.mix != b.mix || a.bits != b.bits || a.t.Rows() != b.t.Rows() || !sameBits(a.t.beta, b.t.beta) {
			t.Error("the snapshot marshals to another snapshot")
		}
	})
}

// TestOptimizeIsLearn checks that Optimize on a new table does what a
// new learner's first update does, and lowers the loss.
func TestOptimizeIsLearn(t *testing.T) {
	tasks := grids(8, 15)
	batch := solveGrids(t, tasks)
	lr := newGridLearner(t, tasks, LearnerConfig{})
	if _, err := lr.Learn(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	l, _ := LayoutOf(tasks[0].Problem)
	tb, _ := NewTable(l, DefaultEpsLow)
	res, err := Optimize(context.Background(), tb, batch, OptimizerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tableBytes(t, tb), tableBytes(t, lr.Table())) {
		t.Error("Optimize and Learn give different tables")
	}
	if got := lr.Loss(); got != res.LogF {
		t.Errorf("log F %g, Optimize says %g", got, res.LogF)
	}
	// From β0, the loss of the uniform policy over the known contexts.
	fresh, _ := NewTable(l, DefaultEpsLow)
	res0, err := Optimize(context.Background(), fresh, batch, OptimizerConfig{MaxSteps: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !(res.LogF < res0.LogF) {
		t.Errorf("log F %g after the optimisation, %g after one step", res.LogF, res0.LogF)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lr.Learn(ctx, batch); err != context.Canceled {
		t.Errorf("Learn with a cancelled context: %v", err)
	}
	if _, err := Optimize(context.Background(), tb, batch, OptimizerConfig{GapFactor: 1}); err == nil {
		t.Error("Optimize accepts gap factor 1")
	}
}

// TestLearnerAsync trains asynchronously: the searches share the tables
// of the snapshots while the learner optimises copies (go test -race
// checks it).
func TestLearnerAsync(t *testing.T) {
	tasks := openGrids(24, 10, 11)
	cfg := bootstrap.Config{Algorithm: search.LevinTS(), Options: search.Options{Budget: 50, BatchSize: 1}, ProblemsPerUpdate: 8, Async: true, Limits: bootstrap.Limits{MaxIterations: 10}}
	lr := newGridLearner(t, tasks, LearnerConfig{})
	metrics, err := bootstrap.Train(context.Background(), t.TempDir(), tasks, lr, cfg, bootstrap.Env{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if last := metrics[len(metrics)-1]; last.TotalSolved != len(tasks) || lr.Solutions() != len(tasks) {
		t.Errorf("%d of %d solved, %d solutions kept", last.TotalSolved, len(tasks), lr.Solutions())
	}
}

// A wide problem walks a line of states 0, 1, 2, … (action 0 goes on,
// the others are illegal) whose M mutex sets have 2^40 codes each,
// pseudo-random functions of the state: a table of a million rows
// without a search.
type wide struct{ sets int }

func (w wide) Root() int32                        { return 0 }
func (w wide) NumActions() int                    { return 4 }
func (w wide) Apply(s int32, a int) (int32, bool) { return s + 1, a == 0 }
func (w wide) IsGoal(s int32) bool                { return false }

func (w wide) ContextLayout() (string, []uint64) {
	sizes := make([]uint64, w.sets)
	for i := range sizes {
		sizes[i] = 1 << 40
	}
	return "wide test", sizes
}

func (w wide) Contexts(_ int32, _ int, s int32, dst []uint64) {
	for i := range dst {
		x := uint64(s)*uint64(len(dst)) + uint64(i) + 1
		x ^= x >> 33
		x *= 0xff51afd7ed558ccd
		x ^= x >> 33
		dst[i] = x & (1<<40 - 1)
	}
}

// A walk is a wide problem whose goal is state goal.
type walk struct {
	wide
	goal int32
}

func (w walk) IsGoal(s int32) bool { return s == w.goal }

// newWideLearner returns a learner with Growth 1 of a table of the
// contexts of the first states of w, rows rows in all, that has covered
// covered solutions at its last optimisation.
func newWideLearner(tb testing.TB, w wide, rows, covered int) *Learner[int32] {
	l, err := LayoutOf[int32](w)
	if err != nil {
		tb.Fatal(err)
	}
	lr, err := NewLearner[int32](l, LearnerConfig{Growth: 1})
	if err != nil {
		tb.Fatal(err)
	}
	codes := make([]uint64, w.sets)
	for s := int32(0); lr.table.Rows() < rows; s++ {
		w.Contexts(s, -1, s, codes)
		for set, c := range codes {
			lr.table.addRow(set, c)
		}
	}
	lr.opt.Covered = covered
	return lr
}

// wideSolution returns the solution of problem index of w of n steps
// from state from.
func wideSolution(w wide, index int, from int32, n int) bootstrap.Solution[int32] {
	tr := &search.Trajectory[int32]{}
	for s := from; s < from+int32(n); s++ {
		tr.States = append(tr.States, s)
		tr.Actions = append(tr.Actions, 0)
	}
	return bootstrap.Solution[int32]{Index: index, Problem: w, Trajectory: tr}
}

// BenchmarkLearnWithoutOptimising measures an update that does not
// optimise (Growth 1, many solutions covered) of a solution of 50 steps
// to a table of 2^20 rows of 8 mutex sets.
func BenchmarkLearnWithoutOptimising(b *testing.B) {
	w := wide{sets: 8}
	lr := newWideLearner(b, w, 1<<20, 1<<20)
	batch := []bootstrap.Solution[int32]{wideSolution(w, 0, 1<<20, 50)}
	for b.Loop() {
		u, err := lr.Learn(context.Background(), batch)
		if err != nil || u.Steps > 0 {
			b.Fatal(u, err)
		}
	}
}

// TestFindTable checks the paths that name a context model: a table
// file, a learner's directory, a training run's (its checkpoint) and a
// directory with a table file; not a directory without one, nor a path
// that does not exist.
func TestFindTable(t *testing.T) {
	dir := t.TempDir()
	tasks := grids(4, 12)
	lr := newGridLearner(t, tasks, LearnerConfig{})
	if _, err := lr.Learn(context.Background(), solveGrids(t, tasks)); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run")
	for _, d := range []string{filepath.Join(run, "checkpoint"), filepath.Join(dir, "learner")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := lr.Save(d); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "model.safetensors")
	if err := WriteTable(file, lr.Table()); err != nil {
		t.Fatal(err)
	}
	shipped := filepath.Join(dir, "shipped")
	if err := os.MkdirAll(shipped, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(filepath.Join(shipped, TableFile), lr.Table()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{file, file},
		{run, filepath.Join(run, "checkpoint", TableFile+GzipSuffix)},
		{filepath.Join(run, "checkpoint"), filepath.Join(run, "checkpoint", TableFile+GzipSuffix)},
		{filepath.Join(dir, "learner"), filepath.Join(dir, "learner", TableFile+GzipSuffix)},
		{shipped, filepath.Join(shipped, TableFile)},
		{t.TempDir(), ""},
		{filepath.Join(dir, "missing"), ""},
	} {
		got, ok := FindTable(tc.path)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("FindTable(%s) = %s, %v; want %q", tc.path, got, ok, tc.want)
		}
		if ok {
			if _, err := ReadTable(got); err != nil {
				t.Errorf("FindTable(%s) = %s: %v", tc.path, got, err)
			}
		}
	}
}
