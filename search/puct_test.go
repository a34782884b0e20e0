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

// The evaluators and problems of this file are its own, so that the PUCT
// tests do not depend on the rest of the package's tests.

// puctUniform is an evaluator with a uniform policy and a zero heuristic.
type puctUniform[S comparable] struct{}

func (puctUniform[S]) Evaluate(p search.Problem[S], states []S, logPi, h []float64) error {
	l := -math.Log(float64(p.NumActions()))
	for i := range logPi[:len(states)*p.NumActions()] {
		logPi[i] = l
	}
	clear(h[:len(states)])
	return nil
}

// puctManhattan is an evaluator for mazes with a uniform policy and the
// Manhattan distance as heuristic.
type puctManhattan struct{}

func (puctManhattan) Evaluate(p search.Problem[int32], states []int32, logPi, h []float64) error {
	m := p.(*searchtest.Maze)
	for i, s := range states {
		for a := range 4 {
			logPi[4*i+a] = math.Log(0.25)
		}
		h[i] = m.Heuristic(s)
	}
	return nil
}

// puctOracle is an evaluator for one maze that knows the distance of every
// cell to the goal: its policy gives probability q to the first action that
// brings the agent closer and its heuristic is the true distance.
type puctOracle struct {
	dist []int // -1 where the goal cannot be reached
	q    float64
}

func newPUCTOracle(m *searchtest.Maze, q float64) puctOracle {
	o := puctOracle{dist: make([]int, m.W*m.H), q: q}
	for i := range o.dist {
		o.dist[i] = -1
	}
	var goal int32
	for s := range int32(m.W * m.H) {
		if m.IsGoal(s) {
			goal = s
		}
	}
	// Moves are reversible, so a search from the goal gives the distances.
	o.dist[goal] = 0
	queue := []int32{goal}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for a := range 4 {
			if t, ok := m.Apply(s, a); ok && o.dist[t] < 0 {
				o.dist[t] = o.dist[s] + 1
				queue = append(queue, t)
			}
		}
	}
	return o
}

func (o puctOracle) Evaluate(p search.Problem[int32], states []int32, logPi, h []float64) error {
	for i, s := range states {
		best := -1
		for a := range 4 {
			if t, ok := p.Apply(s, a); ok && best < 0 && o.dist[t] >= 0 && o.dist[t] < o.dist[s] {
				best = a
			}
		}
		for a := range 4 {
			pr := 0.25
			if best >= 0 {
				pr = (1 - o.q) / 3
				if a == best {
					pr = o.q
				}
			}
			logPi[4*i+a] = math.Log(pr)
		}
		h[i] = float64(o.dist[s])
	}
	return nil
}

// puctRecorder wraps an evaluator, checks the size of each batch and
// records what it evaluated.
type puctRecorder[S comparable] struct {
	ev       search.Evaluator[S]
	maxBatch int
	calls    int
	states   int64
	largest  int
	seen     map[S]int // how often each state was evaluated
	err      error
}

func newPUCTRecorder[S comparable](ev search.Evaluator[S], maxBatch int) *puctRecorder[S] {
	return &puctRecorder[S]{ev: ev, maxBatch: maxBatch, seen: make(map[S]int)}
}

func (r *puctRecorder[S]) Evaluate(p search.Problem[S], states []S, logPi, h []float64) error {
	if len(states) == 0 || len(states) > r.maxBatch {
		r.err = fmt.Errorf("batch of %d states, want 1 to %d", len(states), r.maxBatch)
	}
	if len(logPi) != len(states)*p.NumActions() || len(h) != len(states) {
		r.err = fmt.Errorf("%d states with %d log-probabilities and %d heuristic values", len(states), len(logPi), len(h))
	}
	r.calls++
	r.states += int64(len(states))
	r.largest = max(r.largest, len(states))
	for _, s := range states {
		r.seen[s]++
	}
	return r.ev.Evaluate(p, states, logPi, h)
}

// checkPUCTSolution checks a solved result on p: the solution replays, the
// cost is its length times loss, the counters agree, and the trajectory
// holds the states along the path with the probabilities that ev's policy,
// renormalised over the legal actions or not, gives the actions.
func checkPUCTSolution[S comparable](t *testing.T, name string, p search.Problem[S], ev search.Evaluator[S], res search.Result[S], loss float64, renormalized bool) {
	t.Helper()
	if !res.Solved {
		t.Fatalf("%s: not solved: %+v", name, res)
	}
	if err := search.Replay(p, res.Actions); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.Cost != loss*float64(len(res.Actions)) {
		t.Errorf("%s: cost %g for %d actions", name, res.Cost, len(res.Actions))
	}
	if res.Evaluations != res.Expansions || res.Generated < res.Expansions-1 {
		t.Errorf("%s: %d expansions, %d evaluations, %d generated", name, res.Expansions, res.Evaluations, res.Generated)
	}
	tr := res.Trajectory
	if tr == nil || len(tr.States) != len(res.Actions) || len(tr.Actions) != len(res.Actions) || len(tr.LogPi) != len(res.Actions) || tr.Expansions != res.Expansions {
		t.Fatalf("%s: bad trajectory %+v", name, tr)
	}
	A := p.NumActions()
	logPi, h := make([]float64, A), make([]float64, 1)
	s := p.Root()
	for i, a := range tr.Actions {
		if tr.States[i] != s || a != res.Actions[i] {
			t.Fatalf("%s: step %d: trajectory has state %v and action %d, want %v and %d", name, i, tr.States[i], a, s, res.Actions[i])
		}
		if err := ev.Evaluate(p, []S{s}, logPi, h); err != nil {
			t.Fatal(err)
		}
		want := logPi[a]
		if renormalized {
			z := 0.0
			for b := range A {
				if _, ok := p.Apply(s, b); ok {
					z += math.Exp(logPi[b])
				}
			}
			want -= math.Log(z)
		}
		if math.Abs(tr.LogPi[i]-want) > 1e-6 {
			t.Fatalf("%s: step %d: log pi %g, want %g", name, i, tr.LogPi[i], want)
		}
		s, _ = p.Apply(s, a)
	}
}

// puctMazes are small mazes with their optimal solution lengths.
var puctMazes = [][]string{
	{"SG"},
	{"S....G"},
	{
		"S.#.",
		"..#.",
		"....",
		"#.#G",
	},
	{
		"S#...",
		".#.#.",
		".#.#.",
		"...#G",
	},
	{
		"S....",
		"####.",
		".....",
		".####",
		"....G",
	},
	{
		"..S..",
		".###.",
		".#G#.",
		".#.#.",
		".....",
		"#...#",
	},
}

// puctRandomMaze returns a random solvable maze of w×h cells whose optimal
// solution has at most maxLen actions, and that length.
func puctRandomMaze(rng *rand.Rand, w, h, maxLen int) (*searchtest.Maze, int) {
	for {
		rows := make([]string, h)
		start, goal := rng.IntN(w*h), rng.IntN(w*h)
		if start == goal {
			continue
		}
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
		m := searchtest.ParseMaze(rows...)
		if d := searchtest.BFS(m); d > 0 && d <= maxLen {
			return m, d
		}
	}
}

func TestPUCTMazes(t *testing.T) {
	type maze struct {
		m   *searchtest.Maze
		opt int
	}
	var mazes []maze
	for _, rows := range puctMazes {
		m := searchtest.ParseMaze(rows...)
		d := searchtest.BFS(m)
		if d <= 0 {
			t.Fatalf("maze %v: optimum %d", rows, d)
		}
		mazes = append(mazes, maze{m, d})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 30 {
		m, d := puctRandomMaze(rng, 3+rng.IntN(4), 3+rng.IntN(4), 8)
		mazes = append(mazes, maze{m, d})
	}
	for i, mz := range mazes {
		evs := []struct {
			name string
			ev   search.Evaluator[int32]
		}{
			{"uniform", puctUniform[int32]{}},
			{"manhattan", puctManhattan{}},
		}
		for _, e := range evs {
			if e.name == "uniform" && mz.opt > 8 {
				continue // a blind PUCT needs about 3^opt expansions
			}
			for _, batch := range []int{1, 32} {
				for _, renorm := range []bool{false, true} {
					name := fmt.Sprintf("maze %d, %s, batch %d, renormalize %v", i, e.name, batch, renorm)
					rec := newPUCTRecorder(e.ev, batch)
					opts := search.Options{BatchSize: batch, Budget: 500000, Renormalize: renorm}
					res, err := searchtest.Solve(context.Background(), mz.m, rec, search.PUCT(1), opts)
					if err != nil {
						t.Fatalf("%s: %v\n%s", name, err, mz.m)
					}
					if rec.err != nil {
						t.Fatalf("%s: %v", name, rec.err)
					}
					checkPUCTSolution(t, name, mz.m, e.ev, res, 1, renorm)
					if len(res.Actions) < mz.opt {
						t.Fatalf("%s: %d actions, shorter than the optimum %d", name, len(res.Actions), mz.opt)
					}
					if rec.states != res.Evaluations {
						t.Errorf("%s: evaluator saw %d states, result says %d", name, rec.states, res.Evaluations)
					}
				}
			}
		}
	}
}

// puctTreeState is a node of a complete tree: its depth and its index among
// the nodes of that depth. Every node is a different state.
type puctTreeState struct {
	depth uint8
	index uint32
}

// puctTreeProblem is a complete tree with branching Branch and depth Depth,
// whose goal, if Goal is not empty, is the node reached by the actions of
// Goal.
type puctTreeProblem struct {
	Branch, Depth int
	Goal          []int
}

func (p puctTreeProblem) Root() puctTreeState { return puctTreeState{} }
func (p puctTreeProblem) NumActions() int     { return p.Branch }
func (p puctTreeProblem) Apply(s puctTreeState, a int) (puctTreeState, bool) {
	if int(s.depth) >= p.Depth {
		return puctTreeState{}, false
	}
	return puctTreeState{s.depth + 1, s.index*uint32(p.Branch) + uint32(a)}, true
}
func (p puctTreeProblem) IsGoal(s puctTreeState) bool {
	if len(p.Goal) == 0 || int(s.depth) != len(p.Goal) {
		return false
	}
	g := uint32(0)
	for _, a := range p.Goal {
		g = g*uint32(p.Branch) + uint32(a)
	}
	return s.index == g
}

// size returns the number of nodes of the tree.
func (p puctTreeProblem) size() int64 {
	n, level := int64(0), int64(1)
	for range p.Depth + 1 {
		n += level
		level *= int64(p.Branch)
	}
	return n
}

// TestPUCTTree checks on a tree, where every node is its own state, that no
// node is evaluated twice, that batches fill up, and that a search of a
// finite tree without a goal expands every node once and ends Exhausted.
func TestPUCTTree(t *testing.T) {
	for _, tc := range []struct {
		p     puctTreeProblem
		batch int
	}{
		{puctTreeProblem{Branch: 3, Depth: 6}, 1},
		{puctTreeProblem{Branch: 3, Depth: 6}, 32},
		{puctTreeProblem{Branch: 4, Depth: 5}, 7},
		{puctTreeProblem{Branch: 4, Depth: 5, Goal: []int{3, 0, 2, 1, 3}}, 1},
		{puctTreeProblem{Branch: 4, Depth: 5, Goal: []int{3, 0, 2, 1, 3}}, 32},
		{puctTreeProblem{Branch: 2, Depth: 9, Goal: []int{1, 1, 0, 1, 0, 0, 1, 1, 1}}, 32},
		{puctTreeProblem{Branch: 1, Depth: 0}, 32},
	} {
		name := fmt.Sprintf("%+v", tc)
		rec := newPUCTRecorder[puctTreeState](puctUniform[puctTreeState]{}, tc.batch)
		res, err := searchtest.Solve(context.Background(), tc.p, rec, search.PUCT(1), search.Options{BatchSize: tc.batch})
		if err != nil || rec.err != nil {
			t.Fatalf("%s: %v, %v", name, err, rec.err)
		}
		for s, n := range rec.seen {
			if n > 1 {
				t.Fatalf("%s: state %+v evaluated %d times", name, s, n)
			}
		}
		if rec.states != res.Evaluations || res.Evaluations != res.Expansions {
			t.Errorf("%s: evaluator saw %d states; %d evaluations, %d expansions", name, rec.states, res.Evaluations, res.Expansions)
		}
		if tc.batch > 1 && res.Expansions > 2*int64(tc.batch) && rec.largest != tc.batch {
			t.Errorf("%s: largest batch %d, want %d", name, rec.largest, tc.batch)
		}
		if len(tc.p.Goal) > 0 {
			checkPUCTSolution(t, name, tc.p, puctUniform[puctTreeState]{}, res, 1, false)
			if len(res.Actions) != len(tc.p.Goal) {
				t.Errorf("%s: solution %v", name, res.Actions)
			}
			continue
		}
		if res.Solved || !res.Exhausted || res.TimedOut || res.Expansions != tc.p.size() || res.Generated != tc.p.size()-1 {
			t.Errorf("%s: %+v; want exhausted after %d expansions", name, res, tc.p.size())
		}
	}
}

// puctCounter is an infinite binary tree without a goal.
type puctCounter struct{}

func (puctCounter) Root() uint64       { return 1 }
func (puctCounter) NumActions() int    { return 2 }
func (puctCounter) IsGoal(uint64) bool { return false }
func (puctCounter) Apply(s uint64, a int) (uint64, bool) {
	return 2*s + uint64(a), true
}

func TestPUCTBudget(t *testing.T) {
	for _, budget := range []int64{1, 2, 5, 33, 100, 1000} {
		for _, batch := range []int{1, 32} {
			rec := newPUCTRecorder[uint64](puctUniform[uint64]{}, batch)
			opts := search.Options{Budget: budget, BatchSize: batch}
			res, err := searchtest.Solve(context.Background(), puctCounter{}, rec, search.PUCT(1), opts)
			if err != nil || rec.err != nil {
				t.Fatalf("budget %d, batch %d: %v, %v", budget, batch, err, rec.err)
			}
			if res.Solved || res.Exhausted || res.TimedOut || res.Expansions != budget || res.Evaluations != budget || res.Generated != 2*budget || res.Trajectory != nil {
				t.Errorf("budget %d, batch %d: %+v", budget, batch, res)
			}
		}
	}
}

// puctSAW is a maze in which the agent may not enter a cell twice: a finite
// tree, like The Witness.
type puctSAW struct{ m *searchtest.Maze }

type puctSAWState struct {
	cell    int32
	visited uint64
}

func (p puctSAW) Root() puctSAWState {
	return puctSAWState{p.m.Root(), 1 << p.m.Root()}
}
func (p puctSAW) NumActions() int { return 4 }
func (p puctSAW) Apply(s puctSAWState, a int) (puctSAWState, bool) {
	c, ok := p.m.Apply(s.cell, a)
	if !ok || s.visited&(1<<c) != 0 {
		return puctSAWState{}, false
	}
	return puctSAWState{c, s.visited | 1<<c}, true
}
func (p puctSAW) IsGoal(s puctSAWState) bool { return p.m.IsGoal(s.cell) }

func TestPUCTUnsolvable(t *testing.T) {
	ctx := context.Background()
	walled := searchtest.ParseMaze(
		"S.#.",
		"..#.",
		"..#G",
	)
	for _, batch := range []int{1, 32} {
		// Moves are reversible: the tree is infinite and only the budget
		// ends the search.
		res, err := searchtest.Solve(ctx, walled, puctManhattan{}, search.PUCT(1), search.Options{Budget: 500, BatchSize: batch})
		if err != nil || res.Solved || res.Exhausted || res.Expansions != 500 {
			t.Errorf("batch %d: maze: %+v, %v", batch, res, err)
		}
		// Without revisits the tree is finite: the search ends on its own.
		res2, err := searchtest.Solve(ctx, puctSAW{walled}, puctUniform[puctSAWState]{}, search.PUCT(1), search.Options{BatchSize: batch})
		if err != nil || res2.Solved || !res2.Exhausted || res2.Expansions == 0 || res2.Expansions != res2.Generated+1 {
			t.Errorf("batch %d: self-avoiding walk: %+v, %v", batch, res2, err)
		}
	}
	// A goal behind dead ends.
	m := searchtest.ParseMaze(
		"..#..",
		".S...",
		"..#.G",
	)
	for _, batch := range []int{1, 32} {
		res, err := searchtest.Solve(ctx, puctSAW{m}, puctUniform[puctSAWState]{}, search.PUCT(1), search.Options{BatchSize: batch})
		if err != nil {
			t.Fatal(err)
		}
		checkPUCTSolution(t, fmt.Sprint("self-avoiding walk, batch ", batch), puctSAW{m}, puctUniform[puctSAWState]{}, res, 1, false)
	}
}

// puctCancel cancels a context on its calls-th call.
type puctCancel struct {
	cancel func()
	calls  int
}

func (c *puctCancel) Evaluate(p search.Problem[uint64], states []uint64, logPi, h []float64) error {
	c.calls--
	if c.calls == 0 {
		c.cancel()
	}
	return puctUniform[uint64]{}.Evaluate(p, states, logPi, h)
}

type puctFailing struct{ err error }

func (f puctFailing) Evaluate(search.Problem[uint64], []uint64, []float64, []float64) error {
	return f.err
}

func TestPUCTEnds(t *testing.T) {
	ctx := context.Background()

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	res, err := searchtest.Solve(cctx, puctCounter{}, puctUniform[uint64]{}, search.PUCT(1), search.Options{})
	if !errors.Is(err, context.Canceled) || res.Expansions != 0 {
		t.Errorf("cancelled before: %d expansions, %v", res.Expansions, err)
	}

	for _, batch := range []int{1, 32} {
		cctx, cancel := context.WithCancel(ctx)
		ev := &puctCancel{cancel: cancel, calls: 10}
		res, err := searchtest.Solve(cctx, puctCounter{}, ev, search.PUCT(1), search.Options{BatchSize: batch})
		if !errors.Is(err, context.Canceled) || res.Expansions > int64(10*batch+2*256) {
			t.Errorf("batch %d: cancelled during: %d expansions, %v", batch, res.Expansions, err)
		}
		cancel()
	}

	start := time.Now()
	res, err = searchtest.Solve(ctx, puctCounter{}, puctUniform[uint64]{}, search.PUCT(1), search.Options{Timeout: 20 * time.Millisecond})
	if err != nil || !res.TimedOut || res.Solved || res.Time < 20*time.Millisecond || time.Since(start) > 2*time.Second {
		t.Errorf("timeout: %+v, %v", res, err)
	}

	boom := errors.New("boom")
	if _, err := searchtest.Solve(ctx, puctCounter{}, puctFailing{boom}, search.PUCT(1), search.Options{}); !errors.Is(err, boom) {
		t.Errorf("failing evaluator: %v", err)
	}

	if _, err := searchtest.Solve(ctx, puctCounter{}, puctUniform[uint64]{}, search.PUCT(-1), search.Options{}); err == nil {
		t.Error("negative C: no error")
	}
	if _, err := searchtest.Solve(ctx, puctTreeProblem{}, puctUniform[puctTreeState]{}, search.PUCT(1), search.Options{}); err == nil {
		t.Error("no actions: no error")
	}

	res2, err := searchtest.Solve(ctx, puctRootGoal{searchtest.ParseMaze("SG")}, puctUniform[int32]{}, search.PUCT(1), search.Options{})
	if err != nil || !res2.Solved || len(res2.Actions) != 0 || res2.Expansions != 0 || res2.Trajectory == nil {
		t.Errorf("root is a goal: %+v, %v", res2, err)
	}
}

// puctRootGoal is a maze whose goal is every cell.
type puctRootGoal struct{ *searchtest.Maze }

func (puctRootGoal) IsGoal(int32) bool { return true }

func TestPUCTNodeLoss(t *testing.T) {
	m := searchtest.ParseMaze(puctMazes[2]...)
	res, err := searchtest.Solve(context.Background(), m, puctManhattan{}, search.PUCT(1), search.Options{NodeLoss: 2.5})
	if err != nil {
		t.Fatal(err)
	}
	checkPUCTSolution(t, "node loss 2.5", m, puctManhattan{}, res, 2.5, false)
}

// TestPUCTGuided checks that a good policy and heuristic lead PUCT
// straight to the goal, far faster than a uniform policy and no heuristic.
func TestPUCTGuided(t *testing.T) {
	m := searchtest.ParseMaze(
		"S.........",
		"########..",
		"..........",
		".#########",
		"..........",
		"#########.",
		"G.........",
	)
	opt := searchtest.BFS(m)
	for _, batch := range []int{1, 32} {
		opts := search.Options{BatchSize: batch, Budget: 50000}
		oracle := newPUCTOracle(m, 0.97)
		res, err := searchtest.Solve(context.Background(), m, oracle, search.PUCT(1), opts)
		if err != nil {
			t.Fatal(err)
		}
		checkPUCTSolution(t, "oracle", m, oracle, res, 1, false)
		// Every child of a node on the path is evaluated before the
		// policy counts; in a batch, the virtual losses send all but a
		// few descents away from the path.
		if len(res.Actions) != opt || res.Expansions > int64(max(4*opt, (opt+1)*batch)) {
			t.Errorf("batch %d: oracle: %d actions (optimum %d), %d expansions", batch, len(res.Actions), opt, res.Expansions)
		}
		ures, err := searchtest.Solve(context.Background(), m, puctManhattan{}, search.PUCT(1), opts)
		if err != nil {
			t.Fatal(err)
		}
		if 4*res.Expansions > ures.Expansions {
			t.Errorf("batch %d: %d expansions with the oracle, %d with the Manhattan distance", batch, res.Expansions, ures.Expansions)
		}
		t.Logf("batch %d: oracle %d expansions, Manhattan %d", batch, res.Expansions, ures.Expansions)
	}
}

// TestPUCTSolverReuse checks that a solver that is reused finds what fresh
// solvers find, and allocates no more than the result once warm.
func TestPUCTSolverReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []float64{1, 0.5, 2} {
		opts := search.Options{BatchSize: 1 + rng.IntN(40), Budget: int64(rng.IntN(3000)), Renormalize: rng.IntN(2) == 0}
		e, err := search.NewSolver[int32](search.PUCT(c), puctManhattan{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			m, _ := puctRandomMaze(rng, 3+rng.IntN(5), 3+rng.IntN(5), 12)
			want, err := searchtest.Solve(context.Background(), m, puctManhattan{}, search.PUCT(c), opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Solve(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			if got.Solved != want.Solved || !slices.Equal(got.Actions, want.Actions) ||
				got.Expansions != want.Expansions || got.Generated != want.Generated || got.Evaluations != want.Evaluations {
				t.Fatalf("c %g, maze %d, %+v: reused solver found %+v, a fresh one %+v", c, i, opts, got, want)
			}
			if got.Solved {
				checkPUCTSolution(t, fmt.Sprint("maze ", i), m, puctManhattan{}, got, 1, opts.Renormalize)
			}
		}
	}

	m := searchtest.ParseMaze(puctMazes[4]...)
	e, err := search.NewSolver[int32](search.PUCT(1), puctManhattan{}, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(10, func() {
		if res, err := e.Solve(context.Background(), m); err != nil || !res.Solved {
			t.Fatal(res, err)
		}
	})
	if allocs > 4 { // the trajectory and its three slices
		t.Errorf("%g allocations per search", allocs)
	}
}

// BenchmarkPUCT measures PUCT on a maze with the Manhattan distance as its
// heuristic, and on an infinite tree with a fixed budget.
func BenchmarkPUCT(b *testing.B) {
	m := searchtest.ParseMaze(
		"S...#.......",
		".##.#.####..",
		".#..#....#..",
		".#.###.#.#.#",
		".#.....#.#..",
		".#####.#.##.",
		".......#...G",
	)
	for _, batch := range []int{1, 32} {
		b.Run(fmt.Sprint("maze/batch=", batch), func(b *testing.B) {
			var exp int64
			for b.Loop() {
				res, err := searchtest.Solve(context.Background(), m, puctManhattan{}, search.PUCT(1), search.Options{BatchSize: batch})
				if err != nil || !res.Solved {
					b.Fatal(res, err)
				}
				exp += res.Expansions
			}
			b.ReportMetric(float64(exp)/float64(b.N), "expansions/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(exp), "ns/expansion")
		})
	}
	b.Run("maze/engine", func(b *testing.B) {
		e, err := search.NewSolver[int32](search.PUCT(1), puctManhattan{}, search.Options{})
		if err != nil {
			b.Fatal(err)
		}
		var exp int64
		for b.Loop() {
			res, err := e.Solve(context.Background(), m)
			if err != nil || !res.Solved {
				b.Fatal(res, err)
			}
			exp += res.Expansions
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(exp), "ns/expansion")
	})
	b.Run("tree/budget=20000", func(b *testing.B) {
		opts := search.Options{Budget: 20000}
		for b.Loop() {
			if _, err := searchtest.Solve(context.Background(), puctCounter{}, puctUniform[uint64]{}, search.PUCT(1), opts); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(20000*b.N), "ns/expansion")
	})
}

// ExamplePUCT solves a small maze with PUCT, guided by the Manhattan
// distance.
func ExamplePUCT_maze() {
	m := searchtest.ParseMaze(
		"S.#.",
		"..#.",
		"....",
		"#.#G",
	)
	res, err := searchtest.Solve(context.Background(), m, puctManhattan{}, search.PUCT(1), search.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("solved:", res.Solved, "replays:", search.Replay(m, res.Actions) == nil)
	fmt.Println("length:", len(res.Actions), "optimal:", searchtest.BFS(m))
	// Output:
	// solved: true replays: true
	// length: 6 optimal: 6
}
