package search_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// sleepy is the evaluator of DomainHeuristic that sleeps a random short time
// per call, so that parallel searches finish out of order.
type sleepy struct {
	search.DomainHeuristic[int32]
	rng *rand.Rand
}

func (s sleepy) Evaluate(p search.Problem[int32], states []int32, logPi, h []float64) error {
	time.Sleep(time.Duration(s.rng.IntN(500)) * time.Microsecond)
	return s.DomainHeuristic.Evaluate(p, states, logPi, h)
}

// lineTasks returns n corridors: task i has its goal i%19+1 cells to the
// right of its start, so that its solution's length names it.
func lineTasks(n int) []search.Task[int32] {
	var ts []search.Task[int32]
	for i := range n {
		row := []byte("S...................")
		row[i%19+1] = 'G'
		ts = append(ts, search.Task[int32]{ID: fmt.Sprint("t#", i), Problem: searchtest.ParseMaze(string(row))})
	}
	return ts
}

func solvers(t *testing.T, n int, newEval func(i int) search.Evaluator[int32]) []*search.Solver[int32] {
	t.Helper()
	ss := make([]*search.Solver[int32], n)
	for i := range ss {
		s, err := search.NewSolver(search.AStar(), newEval(i), search.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ss[i] = s
	}
	return ss
}

func sleepers(t *testing.T, n int) []*search.Solver[int32] {
	return solvers(t, n, func(i int) search.Evaluator[int32] {
		return sleepy{rng: rand.New(rand.NewPCG(uint64(n), uint64(i)))}
	})
}

func TestSolveAllOrder(t *testing.T) {
	for _, workers := range []int{1, 3, 8} {
		ts := lineTasks(40)
		var got []int
		err := search.SolveAll(context.Background(), ts, sleepers(t, workers),
			func(i int, r search.Result[int32]) error {
				if !r.Solved || len(r.Actions) != i%19+1 {
					t.Errorf("result %d (length %d) belongs to another task", i, len(r.Actions))
				}
				got = append(got, i)
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			if g != i {
				t.Fatalf("workers=%d: emitted %v, want input order", workers, got)
			}
		}
		if len(got) != len(ts) {
			t.Fatalf("workers=%d: emitted %d of %d", workers, len(got), len(ts))
		}
	}
}

// failAt fails the evaluation of the problem whose goal is cell goal.
type failAt struct {
	search.Uniform[int32]
	goal int32
	err  error
}

func (f failAt) Evaluate(p search.Problem[int32], states []int32, logPi, h []float64) error {
	if p.IsGoal(f.goal) {
		return f.err
	}
	return f.Uniform.Evaluate(p, states, logPi, h)
}

func TestSolveAllErrors(t *testing.T) {
	boom := errors.New("boom")
	ts := lineTasks(20)
	failing := solvers(t, 4, func(int) search.Evaluator[int32] { return failAt{goal: 8, err: boom} })
	n := 0
	err := search.SolveAll(context.Background(), ts, failing, func(int, search.Result[int32]) error { n++; return nil })
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "t#7: ") {
		t.Fatalf("err = %v, want boom of t#7", err)
	}
	if n > 7 {
		t.Errorf("emitted %d results past the failing task 7", n)
	}

	stop := errors.New("stop")
	err = search.SolveAll(context.Background(), ts, sleepers(t, 4), func(i int, _ search.Result[int32]) error {
		if i == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want stop", err)
	}
}

func TestSolveAllCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ts := lineTasks(200)
	n := 0
	err := search.SolveAll(ctx, ts, sleepers(t, 2), func(i int, _ search.Result[int32]) error {
		n++
		if i == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n == len(ts) {
		t.Error("cancellation did not stop the run")
	}
}

// TestSolveEach checks that SolveEach emits the result of every task
// once, whatever its order, the results of whole searches alone when it is
// cancelled, and the error of a search.
func TestSolveEach(t *testing.T) {
	for _, workers := range []int{1, 3} {
		ts := lineTasks(40)
		seen := map[int]bool{}
		err := search.SolveEach(context.Background(), ts, sleepers(t, workers), func(i int, r search.Result[int32]) error {
			if seen[i] || !r.Solved || len(r.Actions) != i%19+1 {
				t.Errorf("workers=%d: result %d (length %d, seen %v) is not its task's", workers, i, len(r.Actions), seen[i])
			}
			seen[i] = true
			return nil
		})
		if err != nil || len(seen) != len(ts) {
			t.Fatalf("workers=%d: %d results of %d, %v", workers, len(seen), len(ts), err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	ts := lineTasks(200)
	n := 0
	err := search.SolveEach(ctx, ts, sleepers(t, 3), func(i int, r search.Result[int32]) error {
		if !r.Solved || len(r.Actions) != i%19+1 {
			t.Errorf("result %d of a cancelled run is not a whole search's", i)
		}
		if n++; n == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n == len(ts) {
		t.Errorf("cancelled after 5 results: %d results, err = %v", n, err)
	}

	boom := errors.New("boom")
	failing := solvers(t, 2, func(int) search.Evaluator[int32] { return failAt{goal: 8, err: boom} })
	err = search.SolveEach(context.Background(), lineTasks(20), failing, func(int, search.Result[int32]) error { return nil })
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "t#7: ") {
		t.Errorf("err = %v, want boom of t#7", err)
	}
}

// bare is a corridor without a heuristic.
type bare struct{ *searchtest.Maze }

func (bare) Heuristic() {} // not the Heuristic of search.Heuristic

// counting counts its calls to Evaluate.
type counting struct {
	search.DomainHeuristic[int32]
	n *atomic.Int64
}

func (c counting) Evaluate(p search.Problem[int32], states []int32, logPi, h []float64) error {
	c.n.Add(1)
	return c.DomainHeuristic.Evaluate(p, states, logPi, h)
}

// TestSolveAllChecksFirst checks that a problem that lacks what the
// evaluator needs is an error before any search starts, wherever it is in
// the set, and that Solve checks a lone problem before searching it.
func TestSolveAllChecksFirst(t *testing.T) {
	var calls atomic.Int64
	ss := solvers(t, 2, func(int) search.Evaluator[int32] { return counting{n: &calls} })
	ts := lineTasks(10)
	ts[6].Problem = bare{ts[6].Problem.(*searchtest.Maze)}
	err := search.SolveAll(context.Background(), ts, ss, func(int, search.Result[int32]) error {
		t.Error("a result was emitted")
		return nil
	})
	if err == nil || !strings.HasPrefix(err.Error(), "t#6: ") || !strings.Contains(err.Error(), "no heuristic") {
		t.Errorf("err = %v, want t#6 without a heuristic", err)
	}
	if _, err := ss[0].Solve(context.Background(), ts[6].Problem); err == nil {
		t.Error("Solve of a problem without a heuristic: no error")
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d evaluations before the error", n)
	}
}

func TestSetBudget(t *testing.T) {
	s, err := search.NewSolver[int32](search.LevinTS(), search.Uniform[int32]{}, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := searchtest.ParseMaze("S.........G")
	for _, budget := range []int64{3, 7, 0} {
		s.SetBudget(budget)
		res, err := s.Solve(context.Background(), m)
		switch {
		case err != nil:
			t.Fatal(err)
		case budget == 0 && !res.Solved:
			t.Errorf("no budget: not solved")
		case budget > 0 && (res.Solved || res.Expansions != budget):
			t.Errorf("budget %d: solved %v with %d expansions", budget, res.Solved, res.Expansions)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("SetBudget(-1) did not panic")
		}
	}()
	s.SetBudget(-1)
}

// TestSetBeamWidth checks that SetBeamWidth makes a beam search solver's
// algorithm a beam of that width, which a search then has (a maze that
// a beam of 1 misses, and one of 2 solves), and panics for another
// algorithm or a width out of range.
func TestSetBeamWidth(t *testing.T) {
	s, err := search.NewSolver[int32](search.Beam(1), search.DomainHeuristic[int32]{}, search.Options{Budget: 100})
	if err != nil {
		t.Fatal(err)
	}
	m := searchtest.ParseMaze(
		"S.#G",
		".##.",
		"....",
	)
	for _, w := range []int{1, 2} {
		s.SetBeamWidth(w)
		res, err := s.Solve(context.Background(), m)
		if err != nil || s.Algorithm() != search.Beam(w) || res.Solved != (w == 2) {
			t.Errorf("width %d: %v, solved %v, error %v", w, s.Algorithm(), res.Solved, err)
		}
	}
	levin, err := search.NewSolver[int32](search.LevinTS(), search.Uniform[int32]{}, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(){
		"levints":  func() { levin.SetBeamWidth(2) },
		"width 0":  func() { s.SetBeamWidth(0) },
		"too wide": func() { s.SetBeamWidth(search.MaxBeamWidth + 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// named is a problem with six actions and names longer than a letter.
type named struct{ *searchtest.Maze }

func (named) NumActions() int         { return 6 }
func (named) ActionName(a int) string { return []string{"up", "down", "left", "right", "in", "out"}[a] }
func (n named) Apply(s int32, a int) (int32, bool) {
	if a >= 4 {
		return 0, false
	}
	return n.Maze.Apply(s, a)
}

func TestFormatActions(t *testing.T) {
	m := searchtest.ParseMaze("S..G")
	for _, tc := range []struct {
		p       search.Problem[int32]
		actions []int
		want    string
	}{
		{m, []int{3, 3, 0, 1, 2}, "RRUDL"},
		{m, nil, ""},
		{named{m}, []int{3, 5, 4}, "right out in"},
		{bare{m}, []int{3, 3, 0}, "RRU"},
		{struct{ search.Problem[int32] }{m}, []int{3, 3, 0}, "3 3 0"},
	} {
		if got := search.FormatActions(tc.p, tc.actions); got != tc.want {
			t.Errorf("FormatActions(%T, %v) = %q, want %q", tc.p, tc.actions, got, tc.want)
		}
		if got, err := search.ParseActions(tc.p, tc.want); err != nil || !slices.Equal(got, tc.actions) && len(tc.actions) > 0 {
			t.Errorf("ParseActions(%T, %q) = %v, %v; want %v", tc.p, tc.want, got, err, tc.actions)
		}
	}
	for _, tc := range []struct {
		p    search.Problem[int32]
		s    string
		want string
	}{
		{m, "RRX", `action 3: "X" is no action`},
		{m, "RR U", `action 3: " " is no action`},
		{named{m}, "right sideways", `action 2: "sideways" is no action`},
		{struct{ search.Problem[int32] }{m}, "3 4", `action 2: "4" is no action`},
		{struct{ search.Problem[int32] }{m}, "3 -1", `action 2: "-1" is no action`},
	} {
		if got, err := search.ParseActions(tc.p, tc.s); err == nil || err.Error() != tc.want {
			t.Errorf("ParseActions(%T, %q) = %v, %v; want error %q", tc.p, tc.s, got, err, tc.want)
		}
	}
}

// FuzzParseActions checks that ParseActions never panics and reads back
// what FormatActions spells, for action names of one letter, of several,
// and indices.
func FuzzParseActions(f *testing.F) {
	for _, s := range []string{"RRUDL", "", "right out in", "3 3 0", "R R", "up  down", "UX", "-1", "\xff"} {
		f.Add(s)
	}
	m := searchtest.ParseMaze("S..G")
	problems := []search.Problem[int32]{m, named{m}, struct{ search.Problem[int32] }{m}}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range problems {
			actions, err := search.ParseActions(p, s)
			if err != nil {
				continue
			}
			again, err := search.ParseActions(p, search.FormatActions(p, actions))
			if err != nil || !slices.Equal(again, actions) {
				t.Errorf("%T: %q reads as %v, spelt %q, which reads as %v, %v", p, s, actions, search.FormatActions(p, actions), again, err)
			}
		}
	})
}

func TestReplay(t *testing.T) {
	m := searchtest.ParseMaze(
		"S.#",
		"#.G")
	for _, tc := range []struct {
		actions []int
		want    string // "" for no error
	}{
		{[]int{3, 1, 3}, ""},
		{[]int{3, 1}, "after 2 actions: not a goal"},
		{nil, "after 0 actions: not a goal"},
		{[]int{3, 3}, "step 2: action 3 is illegal"},
		{[]int{3, 4}, "step 2: action 4 out of range"},
		{[]int{-1}, "step 1: action -1 out of range"},
	} {
		err := search.Replay[int32](m, tc.actions)
		if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && got != tc.want {
			t.Errorf("Replay(%v) = %v, want %q", tc.actions, err, tc.want)
		}
	}
}

// TestCostToGo checks that the cost-to-go of a trajectory is in the units
// of g: the node loss times the steps left, for both kinds of search.
func TestCostToGo(t *testing.T) {
	m := searchtest.ParseMaze("S...G")
	for _, alg := range []search.Algorithm{search.LevinTS(), search.PUCT(1)} {
		for _, loss := range []float64{1, 2.5} {
			res, err := searchtest.Solve[int32](context.Background(), m, search.DomainHeuristic[int32]{}, alg, search.Options{NodeLoss: loss})
			if err != nil || !res.Solved {
				t.Fatal(res, err)
			}
			tr := res.Trajectory
			for step := range tr.Actions {
				if got, want := tr.CostToGo(step), float64(4-step)*loss; got != want {
					t.Errorf("%v, loss %g: CostToGo(%d) = %g, want %g", alg, loss, step, got, want)
				}
			}
			if res.Cost != tr.CostToGo(0) {
				t.Errorf("%v, loss %g: cost %g, cost-to-go of the root %g", alg, loss, res.Cost, tr.CostToGo(0))
			}
		}
	}
}

// TestMaxMemory checks that a search of an infinite space ends, unsolved
// and not exhausted, when its tree reaches the memory bound, and not much
// before: with the bound, the number of generated nodes is within the
// bound divided by the size of a node as documented (40 to 150 bytes here).
func TestMaxMemory(t *testing.T) {
	for _, alg := range []search.Algorithm{search.PHSh(), search.PHSSafe()} {
		checkMaxMemory(t, alg, counter{}, search.Uniform[int64]{})
	}
	checkMaxMemory(t, search.PUCT(1), puctCounter{}, puctUniform[uint64]{})
}

func checkMaxMemory[S comparable](t *testing.T, alg search.Algorithm, p search.Problem[S], ev search.Evaluator[S]) {
	t.Helper()
	const bound = 4 << 20
	res, err := searchtest.Solve(context.Background(), p, ev, alg, search.Options{MaxMemory: bound})
	if err != nil || res.Solved || res.Exhausted || !res.OutOfMemory {
		t.Fatalf("%v: %+v, %v; want out of memory", alg, res, err)
	}
	if n := res.Generated; n < bound/150 || n > bound/40 {
		t.Errorf("%v: %d nodes generated within %d bytes", alg, n, bound)
	}
	// The same search without the bound goes further.
	more, err := searchtest.Solve(context.Background(), p, ev, alg, search.Options{Budget: res.Expansions + 100})
	if err != nil || more.OutOfMemory || more.Expansions != res.Expansions+100 {
		t.Errorf("%v without a memory bound: %+v, %v", alg, more, err)
	}
}

// TestProgress checks that parallel solvers sharing a progress counter
// count every expansion once.
func TestProgress(t *testing.T) {
	var progress atomic.Int64
	var ss []*search.Solver[int32]
	for range 2 {
		s, err := search.NewSolver[int32](search.LevinTS(), search.Uniform[int32]{}, search.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.SetProgress(&progress)
		ss = append(ss, s)
	}
	var total int64
	err := search.SolveAll(context.Background(), lineTasks(40), ss, func(_ int, r search.Result[int32]) error {
		total += r.Expansions
		return nil
	})
	if err != nil || total == 0 || progress.Load() != total {
		t.Errorf("progress %d, expansions %d, %v", progress.Load(), total, err)
	}
}

// TestOptionsJSON checks that Options survive JSON whole, with the names
// of their tags.
func TestOptionsJSON(t *testing.T) {
	o := search.Options{Budget: 7, Timeout: time.Second, BatchSize: 4, Renormalize: true, Temperature: 2,
		GoalTest: search.GoalTestExpansion, NodeLoss: 0.5, MaxMemory: 1 << 20, Shorten: true}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"budget":7,"timeout":1000000000,"batch_size":4,"renormalize":true,"temperature":2,"goal_test":"expansion","node_loss":0.5,"max_memory":1048576,"shorten":true}`
	if string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	var again search.Options
	if err := json.Unmarshal(b, &again); err != nil || again != o {
		t.Errorf("read back %+v, %v; want %+v", again, err, o)
	}
	if b, _ := json.Marshal(search.Options{}); string(b) != "{}" {
		t.Errorf("zero Options: %s", b)
	}
}
