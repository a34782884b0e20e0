package search_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
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

var algorithms = []search.Algorithm{
	search.PHSh(), search.PHSStar(), search.LevinTS(), search.AStar(),
	search.WAStar(1.5), search.GBFS(), search.PHSSafe(),
}

func TestBestFirstMazes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var e search.Engine[int32]
	for i := range 60 {
		m, opt := randomMaze(rng, 3+rng.IntN(8), 3+rng.IntN(8))
		for _, alg := range algorithms {
			for _, batch := range []int{1, 32} {
				for _, atExp := range []bool{false, true} {
					opts := search.Options{BatchSize: batch, GoalAtExpansion: atExp}
					name := fmt.Sprintf("maze %d %v batch %d atExpansion %v", i, alg, batch, atExp)
					res, err := e.Search(context.Background(), m, search.DomainHeuristic[int32]{}, alg, opts)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !res.Solved {
						t.Fatalf("%s: not solved\n%s", name, m)
					}
					if err := searchtest.Replay[int32](m, res.Actions); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if len(res.Actions) < opt || res.Cost != float64(len(res.Actions)) {
						t.Fatalf("%s: length %d cost %g, optimum %d", name, len(res.Actions), res.Cost, opt)
					}
					// A* with a consistent heuristic is optimal when it
					// tests the goal at expansion.
					if alg.String() == "astar" && atExp && len(res.Actions) != opt {
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
	} {
		c := chain{tc.goal}
		for _, alg := range []search.Algorithm{search.LevinTS(), search.PHSh(), search.PHSStar()} {
			for _, atExp := range []bool{false, true} {
				res, err := search.BestFirst[path](context.Background(), c, guide{c, tc.q}, alg,
					search.Options{GoalAtExpansion: atExp, BatchSize: 1})
				if err != nil {
					t.Fatal(err)
				}
				d := float64(len(tc.goal))
				bound := d / math.Pow(tc.q, d)
				if !res.Solved || float64(res.Expansions) > bound {
					t.Errorf("%v goal %v q %g: solved %v in %d expansions, bound %.0f",
						alg, tc.goal, tc.q, res.Solved, res.Expansions, bound)
				}
				if err := searchtest.Replay[path](c, res.Actions); err != nil {
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
		res, err := search.BestFirst[int64](ctx, counter{}, search.Uniform[int64]{}, search.PHSh(), search.Options{Budget: budget})
		if err != nil || res.Solved || res.Expansions != budget || res.Exhausted || res.TimedOut {
			t.Errorf("budget %d: %+v, %v", budget, res, err)
		}
		if res.Generated != 2*budget || res.Evaluations < res.Expansions {
			t.Errorf("budget %d: %d generated, %d evaluations", budget, res.Generated, res.Evaluations)
		}
	}

	res, err := search.BestFirst[int64](ctx, counter{}, search.Uniform[int64]{}, search.AStar(), search.Options{Timeout: 20 * time.Millisecond})
	if err != nil || !res.TimedOut || res.Time > time.Second {
		t.Errorf("timeout: %+v, %v", res, err)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := search.BestFirst[int64](cctx, counter{}, search.Uniform[int64]{}, search.GBFS(), search.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}

	walled := searchtest.ParseMaze("S.#.", "..#G")
	mres, err := search.BestFirst[int32](ctx, walled, search.Uniform[int32]{}, search.LevinTS(), search.Options{})
	if err != nil || mres.Solved || !mres.Exhausted || mres.Expansions != 4 {
		t.Errorf("unsolvable maze: %+v, %v", mres, err)
	}

	boom := errors.New("boom")
	if _, err := search.BestFirst[int32](ctx, walled, failing{boom}, search.PHSh(), search.Options{}); !errors.Is(err, boom) {
		t.Errorf("failing evaluator: %v", err)
	}
	if _, err := search.BestFirst[int64](ctx, counter{}, search.DomainHeuristic[int64]{}, search.AStar(), search.Options{}); err == nil {
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
		res, err := search.BestFirst[int32](context.Background(), m, search.Uniform[int32]{}, search.LevinTS(), search.Options{Renormalize: renorm})
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

func TestParseAlgorithm(t *testing.T) {
	for _, name := range []string{"phsstar", "phs*", "phsh", "levints", "astar", "wastar", "gbfs", "phssafe"} {
		if _, err := search.ParseAlgorithm(name, 2); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, name := range []string{"", "bfs", "puct"} {
		if _, err := search.ParseAlgorithm(name, 2); err == nil {
			t.Errorf("%q: no error", name)
		}
	}
	if _, err := search.ParseAlgorithm("wastar", -1); err == nil {
		t.Error("negative weight: no error")
	}
}

func TestEngineAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m, _ := randomMaze(rng, 30, 30)
	var e search.Engine[int32]
	ctx := context.Background()
	run := func() {
		if _, err := e.Search(ctx, m, search.DomainHeuristic[int32]{}, search.AStar(), search.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	run()
	// Only the solution (trajectory, its slices) is allocated once warm.
	if a := testing.AllocsPerRun(10, run); a > 6 {
		t.Errorf("%.0f allocations per search with a warm engine", a)
	}
}
