package cm

import (
	"bytes"
	"context"
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

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/internal/safetensors"
	"github.com/phs-go/phs/search"
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
// them: it then solves them with far fewer expansions than the uniform
// policy, and a run interrupted an iteration before its end and resumed
// ends exactly as the uninterrupted run (with Growth 1, from a
// checkpoint with solutions pending).
func TestLearnerBootstrap(t *testing.T) {
	for _, growth := range []float64{0, 1} {
		t.Run(fmt.Sprint("growth=", growth), func(t *testing.T) { testLearnerBootstrap(t, LearnerConfig{Growth: growth}) })
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
	test, err := NewEvaluator[int32](ref.Table(), 0)
	if err != nil {
		t.Fatal(err)
	}
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
	cp, err := LoadLearner[int32](filepath.Join(dir, "checkpoint"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if lc.Growth > 0 && len(cp.pending) == 0 {
		t.Fatalf("no solution pending at the checkpoint (%d optimised over, counts %+v): the resumed run does not check them", len(cp.trajs), cp.opt)
	}
	load := func(dir string) (bootstrap.Learner[int32], error) { return LoadLearner[int32](dir, 0) }
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
				if lr, err = LoadLearner[int32](dir, 0); err != nil {
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

// bruteLoss returns log F of table tb over solutions with regulariser
// weight lambda, from the policies of an evaluator of tb: it skips the
// contexts that tb lacks, as rows at β0 would add the same to every
// action.
func bruteLoss(t *testing.T, tb *Table, lambda float64, solutions []bootstrap.Solution[int32]) float64 {
	t.Helper()
	ev, err := NewEvaluator[int32](tb, 0)
	if err != nil {
		t.Fatal(err)
	}
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
	other := sols[5]
	other.Index = 1
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
	ld, err := LoadLearner[int32](dir, 0)
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

// TestDecodePending checks that loading corrupted pending solutions is
// an error, and that a file without them loads with none.
func TestDecodePending(t *testing.T) {
	js, tb, tj, _ := seedFiles(t)
	ts, meta, err := safetensors.Decode(tj)
	if err != nil {
		t.Fatal(err)
	}
	index, lengths, codes := ts["pending_index"].I64s(), ts["pending_length"].I32s(), ts["pending_codes"].U64s()
	steps, M := int(lengths[0]+lengths[1]), len(codes)/int(lengths[0]+lengths[1])
	for _, tc := range []struct {
		name   string
		change func(ts map[string]safetensors.Tensor)
		want   string // "" for none
	}{
		{"unchanged", func(map[string]safetensors.Tensor) {}, ""},
		{"no pending tensors", func(ts map[string]safetensors.Tensor) {
			for _, n := range []string{"index", "length", "action", "codes"} {
				delete(ts, "pending_"+n)
			}
		}, ""},
		{"no codes", func(ts map[string]safetensors.Tensor) { delete(ts, "pending_codes") }, `no tensor "pending_codes"`},
		{"negative index", func(ts map[string]safetensors.Tensor) {
			ts["pending_index"] = safetensors.I64([]int{2}, []int64{-1, index[1]})
		}, "pending solution 0: index -1, "},
		{"a problem twice", func(ts map[string]safetensors.Tensor) {
			ts["pending_index"] = safetensors.I64([]int{2}, []int64{index[1], index[1]})
		}, "a second pending solution of problem"},
		{"no step", func(ts map[string]safetensors.Tensor) {
			ts["pending_length"] = safetensors.I32([]int{2}, []int32{0, lengths[1]})
		}, "pending solution 0: index"},
		{"steps left over", func(ts map[string]safetensors.Tensor) {
			ts["pending_length"] = safetensors.I32([]int{2}, []int32{lengths[0], lengths[1] - 1})
		}, "pending steps, the solutions have"},
		{"lengths", func(ts map[string]safetensors.Tensor) {
			ts["pending_length"] = safetensors.I32([]int{1}, lengths[:1])
		}, `tensor "pending_length" has shape`},
		{"action", func(ts map[string]safetensors.Tensor) {
			a := slices.Clone(ts["pending_action"].Data)
			a[steps-1] = 4
			ts["pending_action"] = safetensors.U8([]int{steps}, a)
		}, "action 4 out of range"},
		{"code", func(ts map[string]safetensors.Tensor) {
			c := slices.Clone(codes)
			c[M+1] = gridCells.Size(gridBase)
			ts["pending_codes"] = safetensors.U64([]int{steps, M}, c)
		}, "step 1: code 3 of mutex set 1 out of its range 3"},
		{"codes dtype", func(ts map[string]safetensors.Tensor) {
			ts["pending_codes"] = safetensors.I64([]int{steps, M}, make([]int64, steps*M))
		}, `tensor "pending_codes" is I64`},
		{"codes shape", func(ts map[string]safetensors.Tensor) {
			ts["pending_codes"] = safetensors.U64([]int{steps, M - 1}, codes[:steps*(M-1)])
		}, `tensor "pending_codes" has shape`},
	} {
		c := maps.Clone(ts)
		tc.change(c)
		b, err := safetensors.Encode(c, meta)
		if err != nil {
			t.Fatal(err)
		}
		lr, err := decodeLearner[int32](js, tb, b)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v; want an error with %q", tc.name, err, tc.want)
		case tc.name == "unchanged" && len(lr.pending) != 2, tc.name == "no pending tensors" && len(lr.pending) != 0:
			t.Errorf("%s: %d solutions pending", tc.name, len(lr.pending))
		}
	}
	// Two pending, counted as one change.
	bad := bytes.Replace(js, []byte(`"changed": 2`), []byte(`"changed": 1`), 1)
	if bytes.Equal(bad, js) {
		t.Fatalf("cm.json counts no 2 changed: %s", js)
	}
	if _, err := decodeLearner[int32](bad, tb, tj); err == nil || !strings.Contains(err.Error(), "changed at least the 2 pending") {
		t.Errorf("1 changed, 2 pending: %v", err)
	}
}

// TestLearnerSaveLoad checks that a saved learner loads as it was, and
// that a snapshot decodes as it was.
// TestSaveMemory checks that Save streams the solutions to their file:
// with 24 MB of them, optimised over and pending, it allocates less than
// a tenth of that (the runs of the sliding-tile puzzle keep gigabytes), and
// LoadLearner reads them back.
func TestSaveMemory(t *testing.T) {
	lr := newGridLearner(t, grids(1, 12), LearnerConfig{})
	M := len(lr.table.layout.Sizes)
	if _, err := lr.Learn(context.Background(), solveGrids(t, grids(4, 12))); err != nil {
		t.Fatal(err)
	}
	const n, steps = 1000, 200
	rows, codes := make([]int32, steps*M), make([]uint64, steps*M)
	for set := range M {
		r := int32(slices.Index(lr.table.rowSet, int32(set)))
		if r < 0 {
			t.Fatalf("no row of mutex set %d", set)
		}
		for i := range steps {
			rows[i*M+set] = r
		}
	}
	actions := make([]uint8, steps)
	lr.trajs, lr.pending = map[int]trajectory{}, map[int]pendingSolution{}
	for k := range n {
		lr.trajs[2*k] = trajectory{actions: actions, rows: rows}
		lr.pending[2*k+1] = pendingSolution{actions: actions, codes: codes}
	}
	lr.opt = counts{Covered: n, Changed: n}
	data := int64(n * steps * M * (4 + 8))
	if data < 20e6 {
		t.Fatalf("%d bytes of solutions; want at least 20 MB", data)
	}
	dir := t.TempDir()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := lr.Save(dir); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := int64(after.TotalAlloc - before.TotalAlloc); alloc > data/10 {
		t.Errorf("Save allocated %d bytes for %d bytes of solutions; want at most a tenth", alloc, data)
	}
	got, err := LoadLearner[int32](dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.trajs, lr.trajs) || !reflect.DeepEqual(got.pending, lr.pending) {
		t.Error("the loaded solutions differ from the saved ones")
	}
}

func TestLearnerSaveLoad(t *testing.T) {
	tasks := grids(10, 12)
	lr := newGridLearner(t, tasks, LearnerConfig{OptimizerConfig: OptimizerConfig{Lambda: 3, MaxSteps: 30}, Mix: 0.01})
	batch := solveGrids(t, tasks)
	for i := range batch {
		batch[i].Index = 3 * i
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
	got, err := LoadLearner[int32](dir, 0)
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
	for _, file := range []string{name, filepath.Join(dir, TableFile)} {
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
	if _, err := ReadTable(filepath.Join(dir, TrajectoriesFile)); err == nil {
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
	tb, _ := os.ReadFile(filepath.Join(odir, TableFile))
	os.WriteFile(filepath.Join(dir, TableFile), tb, 0o644)
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

// seedFiles returns the files of a small trained learner with two
// solutions pending, one of them of a problem also optimised over.
func seedFiles(t testing.TB) (js, tb, tj, snap []byte) {
	tasks := grids(4, 14)
	l, _ := LayoutOf(tasks[0].Problem)
	lr, err := NewLearner[int32](l, LearnerConfig{Growth: 1, OptimizerConfig: OptimizerConfig{MaxSteps: 5}})
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
	dir := t.TempDir()
	if err := lr.Save(dir); err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	snap, err = lr.Snapshot().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return read(LearnerFile), read(TableFile), read(TrajectoriesFile), snap
}

// FuzzDecodeTable checks that no table file makes the loader panic,
// and that a learner it accepts computes its loss and saves.
func FuzzDecodeTable(f *testing.F) {
	js, tb, tj, _ := seedFiles(f)
	f.Add(tb)
	f.Add(tb[:len(tb)-3])
	t32, _, err := unmarshalTable(tb)
	if err != nil {
		f.Fatal(err)
	}
	b32, err := marshalTable(t32, nil, true) // β as WriteTable writes it
	if err != nil {
		f.Fatal(err)
	}
	if _, err := decodeLearner[int32](js, b32, tj); err != nil {
		f.Fatal(err)
	}
	f.Add(b32)
	f.Fuzz(func(t *testing.T, tb []byte) { decodeFuzzed(t, js, tb, tj) })
}

// FuzzDecodeTrajectories checks the same of trajectories files.
func FuzzDecodeTrajectories(f *testing.F) {
	js, tb, tj, _ := seedFiles(f)
	f.Add(tj)
	f.Add(tj[:40])
	f.Fuzz(func(t *testing.T, tj []byte) { decodeFuzzed(t, js, tb, tj) })
}

// decodeFuzzed checks that a learner that decodeLearner accepts computes
// its loss, and encodes to files that decode to the same learner.
func decodeFuzzed(t *testing.T, js, tb, tj []byte) {
	lr, err := decodeLearner[int32](js, tb, tj)
	if err != nil {
		return
	}
	lr.Loss()
	js2, tb2, err := lr.encodeSettings()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := lr.writeTrajectories(&buf); err != nil {
		t.Fatal(err)
	}
	tj2 := buf.Bytes()
	got, err := decodeLearner[int32](js2, tb2, tj2)
	if err != nil {
		t.Fatal(err)
	}
	if got.cfg != lr.cfg || got.opt != lr.opt || !reflect.DeepEqual(got.trajs, lr.trajs) || !reflect.DeepEqual(got.pending, lr.pending) || !bytes.Equal(tableBytes(t, got.table), tb2) {
		t.Error("the learner's files decode to another learner")
	}
}

// FuzzDecodeSnapshot checks that no bytes make DecodeSnapshot panic, and
// that a snapshot it accepts evaluates without error.
func FuzzDecodeSnapshot(f *testing.F) {
	_, _, _, snap := seedFiles(f)
	f.Add(snap)
	f.Add(snap[:len(snap)/2])
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeSnapshot[int32](b)
		if err != nil {
			return
		}
		ev := s.NewEvaluator().(*Evaluator[int32])
		l := ev.t.layout
		codes := make([]uint64, len(l.Sizes))
		z, out := make([]float64, l.Actions), make([]float64, l.Actions)
		ev.t.logPolicy(codes, ev.mix, z, out)
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
		{run, filepath.Join(run, "checkpoint", TableFile)},
		{filepath.Join(run, "checkpoint"), filepath.Join(run, "checkpoint", TableFile)},
		{filepath.Join(dir, "learner"), filepath.Join(dir, "learner", TableFile)},
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
