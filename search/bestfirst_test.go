package search_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// randomMaze returns a solvable random maze of size w×h and its optimal
// solution length.
func randomMaze(rng *rand.Rand, w, h int) (*searchtest.Maze, int) {
	for {
		rows := make([]string, h)
		start, goal := rng.IntN(w*h), rng.IntN(w*h)
		for r := range rows {
			row := make([]byte, w)
			for c := range row {
				switch i := r*w + c; {
				case i == start:
					row[c] = 'S'
				case i == goal:
					row[c] = 'G'
				case rng.IntN(10) < 3:
					row[c] = '#'
				default:
					row[c] = '.'
				}
			}
			rows[r] = string(row)
		}
		if start == goal {
			continue
		}
		m := searchtest.ParseMaze(rows...)
		if d := searchtest.BFS[int32](m); d > 0 {
			return m, d
		}
	}
}

var goalTests = []search.GoalTest{search.GoalTestDefault, search.GoalTestGeneration, search.GoalTestExpansion}

var algorithms = []search.Algorithm{
	search.PHSh(), search.PHSStar(), search.LevinTS(), search.AStar(),
	search.WAStar(1.5), search.GBFS(), search.PHSSafe(),
}

func TestBestFirstMazes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// One solver per algorithm and options, reused across the mazes.
	solvers := map[string]*search.Solver[int32]{}
	for i := range 60 {
		m, opt := randomMaze(rng, 3+rng.IntN(8), 3+rng.IntN(8))
		for _, alg := range algorithms {
			for _, batch := range []int{1, 32} {
				for _, gt := range goalTests {
					opts := search.Options{BatchSize: batch, GoalTest: gt}
					name := fmt.Sprintf("maze %d %v batch %d goal test %v", i, alg, batch, gt)
					key := fmt.Sprint(alg, opts)
					s := solvers[key]
					if s == nil {
						var err error
						if s, err = search.NewSolver[int32](alg, search.DomainHeuristic[int32]{}, opts); err != nil {
							t.Fatal(err)
						}
						solvers[key] = s
					}
					res, err := s.Solve(context.Background(), m)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !res.Solved {
						t.Fatalf("%s: not solved\n%s", name, m)
					}
					if err := search.Replay[int32](m, res.Actions); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if len(res.Actions) < opt || res.Cost != float64(len(res.Actions)) {
						t.Fatalf("%s: length %d cost %g, optimum %d", name, len(res.Actions), res.Cost, opt)
					}
					// A* with a consistent heuristic is optimal when it
					// tests the goal at expansion, the default.
					if alg == search.AStar() && gt != search.GoalTestGeneration && len(res.Actions) != opt {
						t.Errorf("%s: A* length %d, optimum %d\n%s", name, len(res.Actions), opt, m)
					}
					checkTrajectory(t, name, m, res)
				}
			}
		}
	}
}

// checkTrajectory checks that the trajectory is the path of the solution,
// with log-probabilities of the uniform policy.
func checkTrajectory(t *testing.T, name string, p search.Problem[int32], res search.Result[int32]) {
	t.Helper()
	tr := res.Trajectory
	if tr == nil || len(tr.States) != len(res.Actions) || len(tr.LogPi) != len(res.Actions) || tr.Expansions != res.Expansions {
		t.Fatalf("%s: bad trajectory %+v", name, tr)
	}
	s := p.Root()
	for i, a := range tr.Actions {
		if tr.States[i] != s {
			t.Fatalf("%s: trajectory state %d is %d, want %d", name, i, tr.States[i], s)
		}
		if math.Abs(tr.LogPi[i]-math.Log(0.25)) > 1e-6 {
			t.Fatalf("%s: step %d: log pi %g, want log 1/4", name, i, tr.LogPi[i])
		}
		s, _ = p.Apply(s, a)
	}
}

// A chain is an infinite 4-ary tree whose states are paths (bit-packed,
// with their length) and whose only goal is the path Goal.
type chain struct {
	Goal []int
}

type path struct {
	bits  uint64
	depth int
}

func (c chain) Root() path      { return path{} }
func (c chain) NumActions() int { return 4 }
func (c chain) Apply(s path, a int) (path, bool) {
	if s.depth == 30 {
		return path{}, false
	}
	return path{s.bits | uint64(a)<<(2*s.depth), s.depth + 1}, true
}
func (c chain) IsGoal(s path) bool {
	if s.depth != len(c.Goal) {
		return false
	}
	for i, a := range c.Goal {
		if int(s.bits>>(2*i)&3) != a {
			return false
		}
	}
	return true
}

// onPath reports whether s is a prefix of the goal path.
func (c chain) onPath(s path) bool {
	if s.depth > len(c.Goal) {
		return false
	}
	for i := range s.depth {
		if int(s.bits>>(2*i)&3) != c.Goal[i] {
			return false
		}
	}
	return true
}

// guide is a fixed policy that gives probability q to the goal path's
// action at every node on the path, and uniform elsewhere; h = 0.
type guide struct {
	c chain
	q float64
}

func (g guide) Evaluate(p search.Problem[path], states []path, logPi, h []float64) error {
	for i, s := range states {
		h[i] = 0
		for a := range 4 {
			pr := 0.25
			if g.c.onPath(s) && s.depth < len(g.c.Goal) {
				pr = (1 - g.q) / 3
				if a == g.c.Goal[s.depth] {
					pr = g.q
				}
			}
			logPi[i*4+a] = math.Log(pr)
		}
	}
	return nil
}

// TestLevinTSBound checks the bound of Levin tree search: at most
// g(n*)/pi(n*) expansions to find the goal n*.
func TestLevinTSBound(t *testing.T) {
	for _, tc := range []struct {
		goal []int
		q    float64
	}{
		{[]int{1, 2, 3}, 0.25},
		{[]int{3, 3, 0, 1, 2}, 0.5},
		{[]int{0, 1, 2, 3, 0, 1, 2, 3}, 0.7},
		{[]int{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}, 0.9},
		{[]int{0, 3, 1, 2, 0, 1}, 0.3},
	} {
		c := chain{tc.goal}
		for _, alg := range []search.Algorithm{search.LevinTS(), search.PHSh(), search.PHSStar()} {
			for _, gt := range goalTests {
				res, err := searchtest.Solve[path](context.Background(), c, guide{c, tc.q}, alg,
					search.Options{GoalTest: gt, BatchSize: 1})
				if err != nil {
					t.Fatal(err)
				}
				d := float64(len(tc.goal))
				bound := d / math.Pow(tc.q, d)
				if !res.Solved || float64(res.Expansions) > bound {
					t.Errorf("%v goal %v q %g: solved %v in %d expansions, bound %.0f",
						alg, tc.goal, tc.q, res.Solved, res.Expansions, bound)
				}
				if err := search.Replay[path](c, res.Actions); err != nil {
					t.Error(err)
				}
			}
		}
	}
}

// counter is an infinite problem without a goal.
type counter struct{}

func (counter) Root() int64       { return 0 }
func (counter) NumActions() int   { return 2 }
func (counter) IsGoal(int64) bool { return false }
func (counter) Apply(s int64, a int) (int64, bool) {
	return 2*s + 1 + int64(a), s < 1<<40
}

func TestLimits(t *testing.T) {
	ctx := context.Background()
	for _, budget := range []int64{1, 10, 1000} {
		res, err := searchtest.Solve[int64](ctx, counter{}, search.Uniform[int64]{}, search.PHSh(), search.Options{Budget: budget})
		if err != nil || res.Solved || res.Expansions != budget || res.Exhausted || res.TimedOut {
			t.Errorf("budget %d: %+v, %v", budget, res, err)
		}
		if res.Generated != 2*budget || res.Evaluations < res.Expansions {
			t.Errorf("budget %d: %d generated, %d evaluations", budget, res.Generated, res.Evaluations)
		}
	}

	res, err := searchtest.Solve[int64](ctx, counter{}, search.Uniform[int64]{}, search.AStar(), search.Options{Timeout: 20 * time.Millisecond})
	if err != nil || !res.TimedOut || res.Time > time.Second {
		t.Errorf("timeout: %+v, %v", res, err)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := searchtest.Solve[int64](cctx, counter{}, search.Uniform[int64]{}, search.GBFS(), search.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}

	walled := searchtest.ParseMaze("S.#.", "..#G")
	mres, err := searchtest.Solve[int32](ctx, walled, search.Uniform[int32]{}, search.LevinTS(), search.Options{})
	if err != nil || mres.Solved || !mres.Exhausted || mres.Expansions != 4 {
		t.Errorf("unsolvable maze: %+v, %v", mres, err)
	}

	boom := errors.New("boom")
	if _, err := searchtest.Solve[int32](ctx, walled, failing{boom}, search.PHSh(), search.Options{}); !errors.Is(err, boom) {
		t.Errorf("failing evaluator: %v", err)
	}
	if _, err := searchtest.Solve[int64](ctx, counter{}, search.DomainHeuristic[int64]{}, search.AStar(), search.Options{}); err == nil {
		t.Error("DomainHeuristic on a problem without heuristic: no error")
	}
}

type failing struct{ err error }

func (f failing) Evaluate(search.Problem[int32], []int32, []float64, []float64) error { return f.err }

// TestRenormalize checks the probabilities in a corridor, where one or two
// actions are legal.
func TestRenormalize(t *testing.T) {
	m := searchtest.ParseMaze("S....G")
	for _, renorm := range []bool{false, true} {
		res, err := searchtest.Solve[int32](context.Background(), m, search.Uniform[int32]{}, search.LevinTS(), search.Options{Renormalize: renorm})
		if err != nil || !res.Solved {
			t.Fatal(res, err)
		}
		for i, l := range res.Trajectory.LogPi {
			want := math.Log(0.25)
			switch {
			case renorm && i == 0:
				want = 0 // only R is legal at the west end
			case renorm:
				want = math.Log(0.5) // L and R
			}
			if math.Abs(l-want) > 1e-6 {
				t.Errorf("renormalize %v: step %d: log pi %g, want %g", renorm, i, l, want)
			}
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		text string
		want search.Algorithm
	}{
		{"phsstar", search.PHSStar()}, {"phs*", search.PHSStar()}, {"PHS_star", search.PHSStar()},
		{"phsh", search.PHSh()}, {"phs_h", search.PHSh()}, {"levints", search.LevinTS()},
		{"astar", search.AStar()}, {"a*", search.AStar()},
		{"wastar", search.WAStar(search.DefaultW)}, {"WA*", search.WAStar(1.5)}, {"wastar:2", search.WAStar(2)}, {"wastar:0", search.WAStar(0)},
		{"gbfs", search.GBFS()}, {"puct", search.PUCT(1)}, {"PUCT:3", search.PUCT(3)}, {"puct:0.25", search.PUCT(0.25)}, {"phssafe", search.PHSSafe()},
		{"beam", search.Beam(search.DefaultBeamWidth)}, {"BEAM:1", search.Beam(1)}, {"beam:1024", search.Beam(1024)},
		{"beam:1000000", search.Beam(1e6)}, {"beam:16777216", search.Beam(search.MaxBeamWidth)},
		{"policybeam", search.PolicyBeam(search.DefaultBeamWidth)}, {"PolicyBeam:3", search.PolicyBeam(3)},
	} {
		got, err := search.Parse(tc.text)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.text, got, err, tc.want)
		}
		b, err := got.MarshalText()
		if err != nil || string(b) != got.String() {
			t.Errorf("%v.MarshalText() = %s, %v", got, b, err)
		}
		var again search.Algorithm
		if err := again.UnmarshalText(b); err != nil || again != got {
			t.Errorf("UnmarshalText(%s) = %v, %v; want %v", b, again, err, got)
		}
	}
	if got := search.AlgorithmNames(); len(got) != 11 {
		t.Errorf("AlgorithmNames() = %v, want 11 names", got)
	}
	for _, text := range []string{"", "bfs", "phs", ":1"} {
		if _, err := search.Parse(text); !errors.Is(err, search.ErrUnknownAlgorithm) {
			t.Errorf("%q: error %v, want ErrUnknownAlgorithm", text, err)
		}
	}
	for _, text := range []string{"wastar:-1", "wastar:NaN", "wastar:Inf", "wastar:", "wastar:x", "wastar:1:2",
		"puct:0", "puct:-1", "puct:NaN", "puct:+Inf", "astar:1", "phsh:1", "gbfs:",
		"beam:0", "beam:-2", "beam:1.5", "beam:1e3", "beam:", "beam:x", "beam:16777217", "policybeam:0", "policybeam:1.5"} {
		if _, err := search.Parse(text); err == nil {
			t.Errorf("Parse(%q): no error", text)
		}
	}
	var a search.Algorithm
	if err := a.UnmarshalText([]byte("wastar:-1")); err == nil || a != search.PHSStar() {
		t.Errorf("UnmarshalText(wastar:-1) = %v, %v; want an error and no change", a, err)
	}
	if _, err := search.WAStar(-1).MarshalText(); err == nil {
		t.Error("WAStar(-1).MarshalText: no error")
	}
	if (search.Algorithm{}) != search.PHSStar() {
		t.Error("the zero Algorithm is not PHS*")
	}
	if a := search.WAStar(1.5); a.String() != "wastar:1.5" || a.W() != 1.5 || a.C() != 0 || !a.NeedsHeuristic() || a.NeedsPolicy() {
		t.Errorf("WAStar(1.5): %v, w %g, c %g", a, a.W(), a.C())
	}
	if a := search.PUCT(2); a.String() != "puct:2" || a.C() != 2 || !a.IsPUCT() || !a.NeedsPolicy() || !a.NeedsHeuristic() {
		t.Errorf("PUCT(2): %v, c %g", a, a.C())
	}
	if a := search.Beam(8); a.String() != "beam:8" || a.BeamWidth() != 8 || a.W() != 0 || !a.NeedsHeuristic() || a.NeedsPolicy() || a.IsPUCT() {
		t.Errorf("Beam(8): %v, width %d", a, a.BeamWidth())
	}
	if _, err := search.Beam(0).MarshalText(); err == nil {
		t.Error("Beam(0).MarshalText: no error")
	}
	if a := search.LevinTS(); a.NeedsHeuristic() || !a.NeedsPolicy() || a.IsPUCT() {
		t.Errorf("LevinTS: needs heuristic %v", a.NeedsHeuristic())
	}
}

// TestNewSolverOptions checks that every algorithm rejects the same bad
// options the same way, PUCT any goal test but its own (the default),
// and beam search the goal test at expansion and Shorten.
func TestNewSolverOptions(t *testing.T) {
	bad := []search.Options{
		{Budget: -5}, {Timeout: -time.Second}, {BatchSize: -3}, {BatchSize: search.MaxBatchSize + 1},
		{NodeLoss: -1}, {NodeLoss: math.NaN()}, {NodeLoss: math.Inf(1)}, {GoalTest: 3},
	}
	for _, alg := range append(algorithms, search.PUCT(1), search.Beam(4)) {
		for _, opts := range bad {
			if _, err := search.NewSolver[int32](alg, search.Uniform[int32]{}, opts); err == nil {
				t.Errorf("%v, %+v: no error", alg, opts)
			}
		}
		for _, gt := range []search.GoalTest{search.GoalTestGeneration, search.GoalTestExpansion} {
			opts := search.Options{GoalTest: gt}
			rejected := alg.IsPUCT() || alg.BeamWidth() > 0 && gt == search.GoalTestExpansion
			if _, err := search.NewSolver[int32](alg, search.Uniform[int32]{}, opts); (err != nil) != rejected {
				t.Errorf("%v, %+v: error %v", alg, opts, err)
			}
		}
		if _, err := search.NewSolver[int32](alg, nil, search.Options{}); err == nil {
			t.Errorf("%v: no evaluator: no error", alg)
		}
		s, err := search.NewSolver[int32](alg, search.Uniform[int32]{}, search.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if o := s.Options(); o.BatchSize != 32 || o.NodeLoss != 1 || s.Algorithm() != alg {
			t.Errorf("%v: options %+v, algorithm %v", alg, o, s.Algorithm())
		}
	}
	if _, err := search.NewSolver[int32](search.WAStar(-1), search.Uniform[int32]{}, search.Options{}); err == nil {
		t.Error("WAStar(-1): no error")
	}
	if _, err := search.NewSolver[int32](search.PUCT(0), search.Uniform[int32]{}, search.Options{}); err == nil {
		t.Error("PUCT(0): no error")
	}
	if _, err := search.NewSolver[int32](search.Beam(0), search.Uniform[int32]{}, search.Options{}); err == nil {
		t.Error("Beam(0): no error")
	}
	if _, err := search.NewSolver[int32](search.Beam(4), search.Uniform[int32]{}, search.Options{Shorten: true}); err == nil {
		t.Error("Beam(4), Shorten: no error")
	}
}

// TestEngineAllocs checks that a warm engine allocates only the solution:
// the trajectory and its three slices, however long the search; √LTS
// too, but with the clustering rerooter, which allocates at each
// clustering. Each search is measured over 5 runs, 2 with -short.
func TestEngineAllocs(t *testing.T) {
	runs := 5
	if testing.Short() {
		runs = 2
	}
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	m, _ := randomMaze(rng, 30, 30)
	tiles := scrambled(rand.New(rand.NewPCG(1, 1)), 1000)
	sqrt := []search.Algorithm{search.SqrtLTS(search.ConstantRerooter, 0, false),
		search.SqrtLTS(search.ConstantRerooter, 0.5, true), search.SqrtLTS(search.HeuristicRerooter, 1, false)}
	for _, alg := range append(slices.Clone(algorithms), append(sqrt, search.Beam(1), search.Beam(64))...) {
		var opts search.Options
		if alg.NeedsPolicy() {
			opts.Temperature = 2 // tempering allocates nothing either
		}
		e, err := search.NewSolver[int32](alg, search.DomainHeuristic[int32]{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Budget = 20000
		f, err := search.NewSolver[board](alg, search.DomainHeuristic[board]{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, run := range []func() (bool, int64){
			func() (bool, int64) {
				res, err := e.Solve(ctx, m)
				if err != nil {
					t.Fatal(err)
				}
				return res.Solved, res.Expansions
			},
			func() (bool, int64) {
				res, err := f.Solve(ctx, tiles)
				if err != nil {
					t.Fatal(err)
				}
				return res.Solved, res.Expansions
			},
		} {
			solved, exp := run()
			want := 0.0
			if solved {
				want = 4
			}
			if a := testing.AllocsPerRun(runs, func() { run() }); a > want {
				t.Errorf("%v: %.0f allocations per search of %d expansions with a warm engine, want %.0f", alg, a, exp, want)
			}
		}
	}
}

// TestTies checks that ties go to the larger g: A* on an open grid, where
// every node on a shortest path has f equal to the distance, then goes
// straight to the goal.
func TestTies(t *testing.T) {
	m := searchtest.ParseMaze(
		"S.......",
		"........",
		"........",
		"........",
		"........",
		".......G",
	)
	for _, gt := range goalTests {
		res, err := searchtest.Solve[int32](context.Background(), m, search.DomainHeuristic[int32]{}, search.AStar(),
			search.Options{GoalTest: gt, BatchSize: 1})
		if err != nil || !res.Solved {
			t.Fatal(res, err)
		}
		if len(res.Actions) != 12 || res.Expansions != 12 {
			t.Errorf("goal test %v: length %d in %d expansions, want 12 in 12", gt, len(res.Actions), res.Expansions)
		}
	}
}

// recorder is an Evaluator that records the batches it is given.
type recorder[S comparable] struct {
	ev      search.Evaluator[S]
	batches [][]S
}

func (r *recorder[S]) Evaluate(p search.Problem[S], states []S, logPi, h []float64) error {
	r.batches = append(r.batches, append([]S(nil), states...))
	return r.ev.Evaluate(p, states, logPi, h)
}

// edgeChecker is an EdgeEvaluator with the domain heuristic that counts
// the edges it is given that are no edges of the problem, and the calls
// of Evaluate, which the searches must not make.
type edgeChecker struct{ bad, plain int }

func (c *edgeChecker) Evaluate(p search.Problem[int32], states []int32, logPi, h []float64) error {
	c.plain++
	return search.DomainHeuristic[int32]{}.Evaluate(p, states, logPi, h)
}

func (c *edgeChecker) EvaluateEdges(p search.Problem[int32], parents []int32, actions []int, states []int32, logPi, h []float64) error {
	if len(parents) != len(states) || len(actions) != len(states) {
		c.bad++
	}
	for i, s := range states {
		if a := actions[i]; a == -1 {
			if parents[i] != s || s != p.Root() {
				c.bad++
			}
		} else if child, ok := p.Apply(parents[i], a); !ok || child != s {
			c.bad++
		}
	}
	return search.DomainHeuristic[int32]{}.Evaluate(p, states, logPi, h)
}

// TestEdgeEvaluator checks that every algorithm gives an EdgeEvaluator the
// edge that led to each state, the root's as action −1, never calls its
// Evaluate, and searches as with the same evaluator by states alone.
func TestEdgeEvaluator(t *testing.T) {
	algs := slices.Clone(algorithms)
	for _, text := range []string{"puct", "sqrtlts:h:1", "sqrtlts:lh:1"} {
		alg, err := search.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		algs = append(algs, alg)
	}
	rng := rand.New(rand.NewPCG(4, 5))
	for i := range 20 {
		m, _ := randomMaze(rng, 3+rng.IntN(8), 3+rng.IntN(8))
		for _, alg := range algs {
			for _, batch := range []int{1, 32} {
				opts := search.Options{BatchSize: batch, Budget: 2000}
				c := &edgeChecker{}
				got, err := searchtest.Solve[int32](context.Background(), m, c, alg, opts)
				if err != nil {
					t.Fatal(err)
				}
				want, err := searchtest.Solve[int32](context.Background(), m, search.DomainHeuristic[int32]{}, alg, opts)
				if err != nil {
					t.Fatal(err)
				}
				if c.bad > 0 || c.plain > 0 {
					t.Errorf("maze %d %v batch %d: %d wrong edges, %d calls of Evaluate", i, alg, batch, c.bad, c.plain)
				}
				if got.Solved != want.Solved || got.Expansions != want.Expansions || !slices.Equal(got.Actions, want.Actions) {
					t.Errorf("maze %d %v batch %d: solved %v in %d expansions, %v; by states alone %v in %d, %v",
						i, alg, batch, got.Solved, got.Expansions, got.Actions, want.Solved, want.Expansions, want.Actions)
				}
			}
		}
	}
}

// TestBatches checks that the root is evaluated first on its own, that
// every other batch has at least BatchSize states unless the search had
// nothing else left to expand, and that no state is evaluated twice.
func TestBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for range 20 {
		m, _ := randomMaze(rng, 12, 12)
		for _, batch := range []int{1, 2, 7, 32} {
			r := &recorder[int32]{ev: search.DomainHeuristic[int32]{}}
			res, err := searchtest.Solve[int32](context.Background(), m, r, search.PHSStar(), search.Options{BatchSize: batch})
			if err != nil || !res.Solved {
				t.Fatal(res, err)
			}
			if len(r.batches[0]) != 1 || r.batches[0][0] != m.Root() {
				t.Fatalf("first batch %v, want the root %d", r.batches[0], m.Root())
			}
			seen := map[int32]bool{}
			total := 0
			for j, b := range r.batches {
				total += len(b)
				if len(b) > batch+3 {
					t.Errorf("batch size %d: batch %d has %d states", batch, j, len(b))
				}
				for _, s := range b {
					if seen[s] {
						t.Errorf("batch size %d: %d evaluated twice", batch, s)
					}
					seen[s] = true
				}
			}
			if int64(total) != res.Evaluations {
				t.Errorf("batch size %d: %d states evaluated, %d reported", batch, total, res.Evaluations)
			}
			// Small batches can only be those flushed because the open
			// list was empty: at most one per expansion.
			small := 0
			for _, b := range r.batches[1:] {
				if len(b) < batch {
					small++
				}
			}
			if int64(small) > res.Expansions {
				t.Errorf("batch size %d: %d small batches in %d expansions", batch, small, res.Expansions)
			}
		}
	}
}

// TestGoalTest checks both goal tests on a tree where the goal is a
// child of the root of probability 0.001: found at once when generated
// (the default of these algorithms), only after the likelier nodes when
// expanded.
func TestGoalTest(t *testing.T) {
	g := &graph{goal: 1}
	g.next = [][2]int32{{1, 2}, {-1, -1}, {2, 2}}
	g.prob = [][2]float64{{0.001, 0.999}, {0.5, 0.5}, {0.5, 0.5}}
	g.h = []float64{0, 0, 0}
	// State 2 loops on itself: with duplicate detection the search then
	// runs out of nodes after 2 expansions, with safe pruning too.
	for _, alg := range []search.Algorithm{search.LevinTS(), search.PHSh(), search.PHSSafe()} {
		for _, tc := range []struct {
			gt  search.GoalTest
			exp int64
		}{{search.GoalTestDefault, 1}, {search.GoalTestGeneration, 1}, {search.GoalTestExpansion, 2}} {
			res, err := searchtest.Solve[int32](context.Background(), g, g, alg, search.Options{GoalTest: tc.gt})
			if err != nil || !res.Solved || len(res.Actions) != 1 || res.Expansions != tc.exp {
				t.Errorf("%v goal test %v: %+v, %v; want %d expansions", alg, tc.gt, res, err, tc.exp)
			}
		}
	}

	// A root that is a goal is a solution of no action either way.
	root := &graph{goal: 0, next: [][2]int32{{-1, -1}}, prob: [][2]float64{{0.5, 0.5}}, h: []float64{0}}
	for _, gt := range goalTests {
		res, err := searchtest.Solve[int32](context.Background(), root, root, search.AStar(), search.Options{GoalTest: gt})
		if err != nil || !res.Solved || len(res.Actions) != 0 || res.Expansions != 0 || res.Trajectory == nil {
			t.Errorf("root goal, goal test %v: %+v, %v", gt, res, err)
		}
	}
}

// TestNodeLoss checks that the node loss scales g: LevinTS's order is the
// same for any loss, and the cost is the loss times the length.
func TestNodeLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m, _ := randomMaze(rng, 10, 10)
	ref, err := searchtest.Solve[int32](context.Background(), m, search.Uniform[int32]{}, search.LevinTS(), search.Options{})
	if err != nil || !ref.Solved {
		t.Fatal(ref, err)
	}
	for _, loss := range []float64{0.5, 3} {
		res, err := searchtest.Solve[int32](context.Background(), m, search.Uniform[int32]{}, search.LevinTS(), search.Options{NodeLoss: loss})
		if err != nil || res.Expansions != ref.Expansions || res.Cost != loss*float64(len(res.Actions)) {
			t.Errorf("loss %g: %d expansions, cost %g, length %d; with loss 1, %d expansions", loss, res.Expansions, res.Cost, len(res.Actions), ref.Expansions)
		}
	}
	for _, loss := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := searchtest.Solve[int32](context.Background(), m, search.Uniform[int32]{}, search.LevinTS(), search.Options{NodeLoss: loss}); err == nil {
			t.Errorf("loss %g: no error", loss)
		}
	}
	zero, err := searchtest.Solve[int32](context.Background(), m, search.Uniform[int32]{}, search.Algorithm{}, search.Options{})
	if star, _ := searchtest.Solve[int32](context.Background(), m, search.Uniform[int32]{}, search.PHSStar(), search.Options{}); err != nil || zero.Expansions != star.Expansions {
		t.Errorf("zero Algorithm: %d expansions, %v; PHS* %d", zero.Expansions, err, star.Expansions)
	}
}

// canceller cancels its context at its n-th evaluation.
type canceller struct {
	n      int
	cancel context.CancelFunc
}

func (c *canceller) Evaluate(p search.Problem[int64], states []int64, logPi, h []float64) error {
	if c.n--; c.n == 0 {
		c.cancel()
	}
	return search.Uniform[int64]{}.Evaluate(p, states, logPi, h)
}

func TestCancelDuringSearch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := searchtest.Solve[int64](ctx, counter{}, &canceller{n: 100, cancel: cancel}, search.PHSStar(), search.Options{BatchSize: 1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("%v after %d expansions, want context.Canceled", err, res.Expansions)
	}
	if res.Expansions < 100 || res.Expansions > 100+1024 {
		t.Errorf("cancelled after %d expansions; want within 1024 of the 99th", res.Expansions)
	}
}

// TestGoalTestText checks the text form of the goal tests, which flags
// and files use.
func TestGoalTestText(t *testing.T) {
	for _, gt := range goalTests {
		b, err := gt.MarshalText()
		var back search.GoalTest
		if err != nil || string(b) != gt.String() || back.UnmarshalText(b) != nil || back != gt {
			t.Errorf("%d: %q, %v; back %v", gt, b, err, back)
		}
	}
	if s := fmt.Sprint(search.GoalTestDefault, search.GoalTestGeneration, search.GoalTestExpansion); s != "default generation expansion" {
		t.Errorf("names %q", s)
	}
	var gt search.GoalTest
	for _, bad := range []string{"", "Expansion", "expanded", "1"} {
		if err := gt.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if b, err := search.GoalTest(3).MarshalText(); err == nil {
		t.Errorf("GoalTest(3): %q", b)
	}
}
