package search_test

import (
	"context"
	"errors"
	"hash/maphash"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

func TestParseSqrtLTS(t *testing.T) {
	for _, tc := range []struct {
		text, canon string
		want        search.Algorithm
	}{
		{"sqrtlts", "sqrtlts", search.SqrtLTS(search.ConstantRerooter, 0, false)},
		{"SqrtLTS:c", "sqrtlts", search.SqrtLTS(search.ConstantRerooter, 0, false)},
		{"sqrtlts:c:0", "sqrtlts", search.SqrtLTS(search.ConstantRerooter, 0, false)},
		{"sqrtlts:c:0.5", "sqrtlts:c:0.5", search.SqrtLTS(search.ConstantRerooter, 0.5, false)},
		{"sqrtlts:levin", "sqrtlts:levin", search.SqrtLTS(search.ConstantRerooter, 0, true)},
		{"sqrtlts:c:2:levin", "sqrtlts:c:2:levin", search.SqrtLTS(search.ConstantRerooter, 2, true)},
		{"sqrtlts:h", "sqrtlts:h:1", search.SqrtLTS(search.HeuristicRerooter, search.DefaultAlpha, false)},
		{"sqrtlts:h:10", "sqrtlts:h:10", search.SqrtLTS(search.HeuristicRerooter, 10, false)},
		{"sqrtlts:H:0", "sqrtlts:h:0", search.SqrtLTS(search.HeuristicRerooter, 0, false)},
		{"sqrtlts:l", "sqrtlts:l", search.SqrtLTS(search.ClusterRerooter, 0, false)},
		{"sqrtlts:l:levin", "sqrtlts:l:levin", search.SqrtLTS(search.ClusterRerooter, 0, true)},
		{"sqrtlts:lh", "sqrtlts:lh:1", search.SqrtLTS(search.ClusterHeuristicRerooter, 1, false)},
		{"sqrtlts:lh:2.5:LEVIN", "sqrtlts:lh:2.5:levin", search.SqrtLTS(search.ClusterHeuristicRerooter, 2.5, true)},
		{"sqrtlts:d", "sqrtlts:d", search.SqrtLTS(search.DomainRerooter, 0, false)},
		{"sqrtlts:D:levin", "sqrtlts:d:levin", search.SqrtLTS(search.DomainRerooter, 0, true)},
	} {
		got, err := search.Parse(tc.text)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.text, got, err, tc.want)
			continue
		}
		b, err := got.MarshalText()
		if err != nil || string(b) != tc.canon {
			t.Errorf("%q: MarshalText() = %s, %v; want %s", tc.text, b, err, tc.canon)
		}
		var again search.Algorithm
		if err := again.UnmarshalText(b); err != nil || again != got {
			t.Errorf("UnmarshalText(%s) = %v, %v; want %v", b, again, err, got)
		}
	}
	for _, text := range []string{"sqrtlts:", "sqrtlts:x", "sqrtlts:c:-1", "sqrtlts:c:Inf", "sqrtlts:h:NaN",
		"sqrtlts:h:-2", "sqrtlts:l:1", "sqrtlts:d:1", "sqrtlts:h:1:2", "sqrtlts:levin:h", "sqrtlts:h:x", "sqrtlts::levin", "sqrtlts:levin:levin"} {
		if a, err := search.Parse(text); err == nil {
			t.Errorf("Parse(%q) = %v: no error", text, a)
		}
	}
	for _, a := range []search.Algorithm{search.SqrtLTS(search.ClusterRerooter, 1, false), search.SqrtLTS(search.DomainRerooter, 1, false),
		search.SqrtLTS(search.ConstantRerooter, math.Inf(1), false)} {
		if _, err := search.NewSolver[int32](a, search.Uniform[int32]{}, search.Options{}); err == nil {
			t.Errorf("NewSolver(%#v): no error", a)
		}
	}
	if _, err := search.Parse("sqrtltsx"); !errors.Is(err, search.ErrUnknownAlgorithm) {
		t.Errorf("Parse(sqrtltsx): %v, want ErrUnknownAlgorithm", err)
	}
	for _, tc := range []struct {
		text   string
		policy bool
		h      bool
	}{{"sqrtlts", true, false}, {"sqrtlts:l", true, false}, {"sqrtlts:h", true, true}, {"sqrtlts:lh", true, true}, {"sqrtlts:d", true, false}} {
		a, _ := search.Parse(tc.text)
		if a.NeedsPolicy() != tc.policy || a.NeedsHeuristic() != tc.h {
			t.Errorf("%s: NeedsPolicy, NeedsHeuristic = %v, %v; want %v, %v", tc.text, a.NeedsPolicy(), a.NeedsHeuristic(), tc.policy, tc.h)
		}
	}
}

// FuzzParseSqrtLTS checks that Parse never panics on √LTS's text forms
// and that what it accepts reads back from its text.
func FuzzParseSqrtLTS(f *testing.F) {
	for _, s := range []string{"sqrtlts", "sqrtlts:h:10", "sqrtlts:l:levin", "sqrtlts:lh:0.5", "sqrtlts:c:1e-3:levin", "sqrtlts:d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := search.Parse(s)
		if err != nil {
			return
		}
		b, err := a.MarshalText()
		if err != nil {
			t.Fatalf("%q: %v.MarshalText: %v", s, a, err)
		}
		again, err := search.Parse(string(b))
		if err != nil || again != a {
			t.Fatalf("%q: Parse(%s) = %v, %v; want %v", s, b, again, err, a)
		}
	})
}

// hashPolicy is an Evaluator whose policy and heuristic are pseudo-random
// functions of the state (skewed, so that the algorithms' orders differ
// from breadth-first search), and which records the states it evaluates.
type hashPolicy[S comparable] struct {
	seed   maphash.Seed
	states []S
}

func newHashPolicy[S comparable]() *hashPolicy[S] { return &hashPolicy[S]{seed: maphash.MakeSeed()} }

func (e *hashPolicy[S]) Evaluate(p search.Problem[S], states []S, logPi, h []float64) error {
	A := p.NumActions()
	e.states = append(e.states, states...)
	for i, s := range states {
		x := maphash.Comparable(e.seed, s)
		row := logPi[i*A : (i+1)*A]
		sum := 0.0
		for a := range row {
			x = x*6364136223846793005 + 1442695040888963407
			row[a] = 3 * float64(x>>11) / (1 << 53)
			sum += math.Exp(row[a])
		}
		for a := range row {
			row[a] -= math.Log(sum)
		}
		h[i] = float64(x>>40) / (1 << 20)
	}
	return nil
}

// sameSearch runs a and b on p with the same hashPolicy and options and
// reports an error unless they evaluate the same states in the same order
// and return the same results; but LevinTS with batches of 1, which
// evaluates a node when it expands it, must evaluate one state per
// expansion, each of them one that b evaluates.
func sameSearch[S comparable](t *testing.T, name string, p search.Problem[S], a, b search.Algorithm, opts search.Options) {
	t.Helper()
	ev := newHashPolicy[S]()
	run := func(alg search.Algorithm) (search.Result[S], []S) {
		ev.states = ev.states[:0]
		s, err := search.NewSolver[S](alg, ev, opts)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Solve(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		return res, slices.Clone(ev.states)
	}
	ra, sa := run(a)
	rb, sb := run(b)
	lazy := a == search.LevinTS() && opts.BatchSize == 1
	if ra.Solved != rb.Solved || ra.Exhausted != rb.Exhausted || ra.Expansions != rb.Expansions ||
		ra.Generated != rb.Generated || !lazy && ra.Evaluations != rb.Evaluations || !slices.Equal(ra.Actions, rb.Actions) {
		t.Errorf("%s %+v: %v: solved %v, %d expansions, %d generated, %d evaluated, %v; %v: %v, %d, %d, %d, %v", name, opts,
			a, ra.Solved, ra.Expansions, ra.Generated, ra.Evaluations, ra.Actions,
			b, rb.Solved, rb.Expansions, rb.Generated, rb.Evaluations, rb.Actions)
	}
	switch {
	case lazy:
		inB := map[S]bool{}
		for _, s := range sb {
			inB[s] = true
		}
		if int64(len(sa)) != ra.Expansions || ra.Evaluations != ra.Expansions {
			t.Errorf("%s %+v: %v evaluates %d states (counts %d) in %d expansions", name, opts, a, len(sa), ra.Evaluations, ra.Expansions)
		}
		for _, s := range sa {
			if !inB[s] {
				t.Fatalf("%s %+v: %v evaluates %v, which %v does not", name, opts, a, s, b)
			}
		}
	case !slices.Equal(sa, sb):
		t.Errorf("%s %+v: %v and %v evaluate different states (%d, %d)", name, opts, a, b, len(sa), len(sb))
	}
	if ra.Solved {
		if err := search.Replay(p, ra.Actions); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestSqrtLTSConstantIsLevinTS checks that √LTS with the constant rerooter
// of weight 0 and the Levin cost is LevinTS, node for node, on 10 mazes,
// 4 sliding-tile puzzles and 4 pancake stacks (2 of each with -short),
// with several batch sizes, goal tests and budgets.
func TestSqrtLTSConstantIsLevinTS(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(33, 1))
	n := 4
	if testing.Short() {
		n = 2
	}
	sq := search.SqrtLTS(search.ConstantRerooter, 0, true)
	optss := []search.Options{
		{}, {BatchSize: 1}, {BatchSize: 5, GoalTest: search.GoalTestExpansion},
		{GoalTest: search.GoalTestExpansion, Renormalize: true}, {Budget: 50}, {Temperature: 3, BatchSize: 2},
	}
	for range 10 {
		m, _ := randomMaze(rng, 4+rng.IntN(8), 4+rng.IntN(8))
		for _, o := range optss {
			sameSearch[int32](t, "maze", m, search.LevinTS(), sq, o)
		}
	}
	for range n {
		p := scrambled(rng, 40)
		for _, o := range optss {
			o.Budget = 3000
			sameSearch[board](t, "tiles", p, search.LevinTS(), sq, o)
		}
	}
	for range n {
		var s stack
		for i, j := range rng.Perm(8) {
			s[i] = uint8(j)
		}
		for _, o := range optss {
			sameSearch[stack](t, "pancakes", pancakes{s}, search.LevinTS(), sq, o)
		}
	}
}

var sqrtAlgorithms = []search.Algorithm{
	search.SqrtLTS(search.ConstantRerooter, 0, false),
	search.SqrtLTS(search.ConstantRerooter, 1, false),
	search.SqrtLTS(search.HeuristicRerooter, 1, false),
	search.SqrtLTS(search.HeuristicRerooter, 10, true),
	search.SqrtLTS(search.ClusterRerooter, 0, false),
	search.SqrtLTS(search.ClusterHeuristicRerooter, 1, false),
	search.SqrtLTS(search.ClusterHeuristicRerooter, 1, true),
}

// TestSqrtLTSSolves checks that every rerooter solves random mazes (√LTS
// is complete: every weight is finite and so is every cost), that the
// solutions replay, and that an unsolvable maze is exhausted, with
// solvers reused from maze to maze.
func TestSqrtLTSSolves(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 2))
	solvers := map[search.Algorithm]*search.Solver[int32]{}
	for _, alg := range sqrtAlgorithms {
		s, err := search.NewSolver[int32](alg, newHashPolicy[int32](), search.Options{BatchSize: 1 + rng.IntN(8)})
		if err != nil {
			t.Fatal(err)
		}
		solvers[alg] = s
	}
	for range 30 {
		m, _ := randomMaze(rng, 3+rng.IntN(12), 3+rng.IntN(12))
		for _, alg := range sqrtAlgorithms {
			res, err := solvers[alg].Solve(context.Background(), m)
			if err != nil || !res.Solved {
				t.Fatalf("%v: %+v, %v\n%v", alg, res, err, m)
			}
			if err := search.Replay[int32](m, res.Actions); err != nil {
				t.Errorf("%v: %v", alg, err)
			}
		}
	}
	walled := searchtest.ParseMaze("S.#..", "..#.G")
	for _, alg := range sqrtAlgorithms {
		res, err := solvers[alg].Solve(context.Background(), walled)
		if err != nil || res.Solved || !res.Exhausted || res.Expansions != 4 {
			t.Errorf("%v: walled maze: %+v, %v; want exhausted after 4 expansions", alg, res, err)
		}
	}
}

// TestSqrtLTSRerooting checks that rerooting pays where it should: in a
// binary tree whose policy points away from the goal at every step, LTS
// from the root needs a number of expansions exponential in the goal's
// depth, while the heuristic rerooter, whose h falls along the path to
// the goal, roots a new search at each step of it.
func TestSqrtLTSRerooting(t *testing.T) {
	const n = 8
	p := trap{n}
	exp := map[string]int64{}
	for _, text := range []string{"levints", "sqrtlts", "sqrtlts:h:1", "sqrtlts:lh:1", "sqrtlts:l", "sqrtlts:d"} {
		alg, err := search.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		res, err := searchtest.Solve[uint64](context.Background(), p, trapEval{}, alg, search.Options{BatchSize: 1})
		if err != nil || !res.Solved || len(res.Actions) != n {
			t.Fatalf("%s: %+v, %v", text, res, err)
		}
		exp[text] = res.Expansions
	}
	if exp["sqrtlts:h:1"] > 10*n || exp["sqrtlts:lh:1"] > 20*n || exp["sqrtlts:d"] > 10*n || exp["levints"] < 1<<14 || exp["sqrtlts"] < 1<<14 {
		t.Errorf("expansions %v; want the heuristic and domain rerooters linear in %d, LTS exponential", exp, n)
	}
}

// weightedMaze is a maze whose rerooting weights are all w.
type weightedMaze struct {
	*searchtest.Maze
	w float64
}

func (m weightedMaze) RerootWeight(_, _ int32) float64 { return m.w }

// TestSqrtLTSDomainRerooter checks that the domain rerooter searches with
// the problem's weights: constant weights give the constant rerooter's
// search, node for node; a problem without weights is refused; a warm
// engine allocates nothing per search.
func TestSqrtLTSDomainRerooter(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 3))
	for _, w := range []float64{0, 0.5, 2} {
		for range 5 {
			m, _ := randomMaze(rng, 4+rng.IntN(8), 4+rng.IntN(8))
			for _, o := range []search.Options{{}, {BatchSize: 1}, {BatchSize: 3, GoalTest: search.GoalTestExpansion}} {
				sameSearch[int32](t, "maze", weightedMaze{m, w}, search.SqrtLTS(search.ConstantRerooter, w, false), search.SqrtLTS(search.DomainRerooter, 0, false), o)
			}
		}
	}
	s, err := search.NewSolver[int32](search.SqrtLTS(search.DomainRerooter, 0, false), newHashPolicy[int32](), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := randomMaze(rng, 8, 8)
	if _, err := s.Solve(context.Background(), m); err == nil || !strings.Contains(err.Error(), "no rerooting weights") {
		t.Errorf("a maze without weights: %v; want an error", err)
	}
	p := trap{8}
	d, err := search.NewSolver[uint64](search.SqrtLTS(search.DomainRerooter, 0, false), trapEval{}, search.Options{BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(5, func() {
		if res, err := d.Solve(context.Background(), p); err != nil || !res.Solved {
			t.Fatalf("%+v, %v", res, err)
		}
	}); a > 4 {
		t.Errorf("%.0f allocations per search with a warm engine; want at most 4, as the other algorithms", a)
	}
}

// TestSqrtLTSClusterAllocs checks that the clustering rerooters, with a
// warm engine, allocate nothing in a search without a solution, its
// clusterings included: they reuse their arrays from one search to the
// next.
func TestSqrtLTSClusterAllocs(t *testing.T) {
	// A maze of 3,480 open cells whose goal is walled off.
	rows := []string{"S" + strings.Repeat(".", 57) + "#G"}
	for range 59 {
		rows = append(rows, strings.Repeat(".", 58)+"#.")
	}
	m := searchtest.ParseMaze(rows...)
	for _, alg := range []search.Algorithm{search.SqrtLTS(search.ClusterRerooter, 0, false), search.SqrtLTS(search.ClusterHeuristicRerooter, 1, false)} {
		s, err := search.NewSolver[int32](alg, search.DomainHeuristic[int32]{}, search.Options{Budget: 3000})
		if err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(5, func() {
			res, err := s.Solve(context.Background(), m)
			if err != nil || res.Expansions != 3000 {
				t.Fatalf("%v: %+v, %v", alg, res, err)
			}
		}); a > 0 {
			t.Errorf("%v: %.0f allocations per search of 3,000 expansions with a warm engine; want none", alg, a)
		}
	}
}

// trap is the binary tree of depth 2n whose goal is the node reached by n
// times action 1; a state is depth<<32 | the actions from the root, one
// bit each. Its rerooting weights (search.Rerooting) are 1 on the path
// of 1s and 0 elsewhere.
type trap struct{ n int }

func (p trap) RerootWeight(_, s uint64) float64 {
	if d, bits := s>>32, s&(1<<32-1); bits == 1<<d-1 {
		return 1
	}
	return 0
}

func (p trap) Root() uint64    { return 0 }
func (p trap) NumActions() int { return 2 }
func (p trap) IsGoal(s uint64) bool {
	return s == uint64(p.n)<<32|1<<p.n-1
}
func (p trap) Apply(s uint64, a int) (uint64, bool) {
	d := s >> 32
	if d >= 2*uint64(p.n) {
		return 0, false
	}
	return (d+1)<<32 | s&(1<<32-1) | uint64(a)<<d, true
}

// trapEval gives action 1 a probability of 0.1 everywhere, and h = the
// number of 1s still to take on the path of 1s, 3n elsewhere.
type trapEval struct{}

func (trapEval) Evaluate(p search.Problem[uint64], states []uint64, logPi, h []float64) error {
	n := p.(trap).n
	for i, s := range states {
		logPi[2*i], logPi[2*i+1] = math.Log(0.9), math.Log(0.1)
		d, bits := s>>32, s&(1<<32-1)
		h[i] = 3 * float64(n)
		if bits == 1<<d-1 {
			h[i] = float64(n) - float64(d)
		}
	}
	return nil
}
