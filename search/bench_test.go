package search_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// tiles5 is a 5×5 sliding-tile puzzle for benchmarks: cell i holds tile
// board>>(5i)&31 of a 128-bit number (0 is the blank); the goal has tile i
// in cell i. Actions move the blank up, down, left or right.
type tiles5 struct{ start board }

type board [2]uint64

func (b board) get(i int) int {
	o := 5 * i
	switch {
	case o+5 <= 64:
		return int(b[0] >> o & 31)
	case o >= 64:
		return int(b[1] >> (o - 64) & 31)
	}
	return int((b[0]>>o | b[1]<<(64-o)) & 31)
}

func (b board) set(i, v int) board {
	o := 5 * i
	if o < 64 {
		b[0] = b[0]&^(31<<o) | uint64(v)<<o
	}
	if o+5 > 64 {
		s := o - 64
		if s >= 0 {
			b[1] = b[1]&^(31<<s) | uint64(v)<<s
		} else {
			b[1] = b[1]&^(31>>-s) | uint64(v)>>-s
		}
	}
	return b
}

func (b board) blank() int {
	for i := range 25 {
		if b.get(i) == 0 {
			return i
		}
	}
	panic("no blank")
}

var tiles5Goal = func() board {
	var b board
	for i := range 25 {
		b = b.set(i, i)
	}
	return b
}()

var tiles5Delta = [4]int{-5, 5, -1, 1}

func (t *tiles5) Root() board         { return t.start }
func (t *tiles5) NumActions() int     { return 4 }
func (t *tiles5) IsGoal(b board) bool { return b == tiles5Goal }
func (t *tiles5) Apply(b board, a int) (board, bool) {
	z := b.blank()
	r, c := z/5, z%5
	switch {
	case a == 0 && r == 0, a == 1 && r == 4, a == 2 && c == 0, a == 3 && c == 4:
		return board{}, false
	}
	n := z + tiles5Delta[a]
	return b.set(z, b.get(n)).set(n, 0), true
}

// Heuristic returns the Manhattan distance of the tiles to their goal cells.
func (t *tiles5) Heuristic(b board) float64 {
	d := 0
	for i := range 25 {
		if v := b.get(i); v != 0 {
			d += abs(i/5-v/5) + abs(i%5-v%5)
		}
	}
	return float64(d)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// scrambled returns a puzzle whose blank made n random moves from the goal.
func scrambled(rng *rand.Rand, n int) *tiles5 {
	t := &tiles5{start: tiles5Goal}
	for range n {
		if b, ok := t.Apply(t.start, rng.IntN(4)); ok {
			t.start = b
		}
	}
	return t
}

func TestTiles5(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	p := scrambled(rng, 30)
	res, err := searchtest.Solve[board](context.Background(), p, search.DomainHeuristic[board]{}, search.AStar(), search.Options{GoalTest: search.GoalTestExpansion})
	if err != nil || !res.Solved {
		t.Fatal(res, err)
	}
	if err := search.Replay[board](p, res.Actions); err != nil {
		t.Fatal(err)
	}
	if h := p.Heuristic(p.start); float64(len(res.Actions)) < h {
		t.Errorf("solution of length %d below the Manhattan distance %g", len(res.Actions), h)
	}
}

// benchSearch runs alg on a fixed scrambled puzzle, with a reused solver or
// a fresh one per search, with opts (a budget), and reports expansions per
// second and bytes allocated per generated node.
func benchSearch(b *testing.B, alg search.Algorithm, fresh bool, opts search.Options) {
	benchSearchWith(b, search.DomainHeuristic[board]{}, alg, fresh, opts)
}

// benchSearchWith is benchSearch with the evaluator ev.
func benchSearchWith(b *testing.B, ev search.Evaluator[board], alg search.Algorithm, fresh bool, opts search.Options) {
	p := scrambled(rand.New(rand.NewPCG(1, 1)), 1000)
	ctx := context.Background()
	newSolver := func() *search.Solver[board] {
		s, err := search.NewSolver[board](alg, ev, opts)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	s := newSolver()
	if !fresh {
		if _, err := s.Solve(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	var exp, gen int64
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	b.ResetTimer()
	for b.Loop() {
		if fresh {
			s = newSolver()
		}
		res, err := s.Solve(ctx, p)
		if err != nil {
			b.Fatal(err)
		}
		exp += res.Expansions
		gen += res.Generated
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(exp)/b.Elapsed().Seconds(), "exp/s")
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(gen), "B/node")
	b.ReportMetric(float64(gen)/float64(b.N), "gen/op")
	b.ReportMetric(float64(exp)/float64(b.N), "exp/op")
	if fresh {
		// The memory the solver holds after a search.
		s = newSolver()
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		res, err := s.Solve(ctx, p)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms1)
		b.ReportMetric(float64(int64(ms1.HeapAlloc)-int64(ms0.HeapAlloc))/float64(res.Generated), "held-B/node")
		runtime.KeepAlive(s)
	}
}

// BenchmarkWAStar measures the engine with WA* (w = 3) and the Manhattan
// heuristic on a 5×5 puzzle: reused is the steady state of a worker, fresh
// a new solver per search. B/node is the memory allocated per generated
// node, held-B/node what a fresh engine holds after a search.
func BenchmarkWAStar(b *testing.B) {
	opts := search.Options{Budget: 1e6}
	b.Run("reused", func(b *testing.B) { benchSearch(b, search.WAStar(3), false, opts) })
	b.Run("fresh", func(b *testing.B) { benchSearch(b, search.WAStar(3), true, opts) })
}

// BenchmarkBeam measures beam search of widths 1,000 and 10,000 with the
// Manhattan heuristic on the same puzzle, for 200,000 expansions, beside
// GBFS: the cost of choosing each layer (a sort) against a heap; and
// policy beam search of the same widths with the uniform policy (every
// candidate tied).
func BenchmarkBeam(b *testing.B) {
	opts := search.Options{Budget: 2e5}
	for _, alg := range []search.Algorithm{search.Beam(1000), search.Beam(10000), search.GBFS(), search.PolicyBeam(1000), search.PolicyBeam(10000)} {
		b.Run(alg.String(), func(b *testing.B) { benchSearch(b, alg, false, opts) })
	}
}

// BenchmarkPHS measures PHS_h, PHS* and PHS with safe state pruning with a
// uniform policy on the same puzzle, for 200,000 expansions (unsolved),
// and PHS* with the policy at temperature 5 and mixed with weight 0.01:
// the same search (a uniform policy stays uniform), plus the cost of
// tempering or mixing.
func BenchmarkPHS(b *testing.B) {
	opts := search.Options{Budget: 2e5}
	for _, alg := range []search.Algorithm{search.PHSh(), search.PHSStar(), search.PHSSafe()} {
		b.Run(alg.String(), func(b *testing.B) { benchSearch(b, alg, false, opts) })
	}
	hot, mixed := opts, opts
	hot.Temperature, mixed.Mix = 5, 0.01
	b.Run("phsstar/T=5", func(b *testing.B) { benchSearch(b, search.PHSStar(), false, hot) })
	b.Run("phsstar/mix=0.01", func(b *testing.B) { benchSearch(b, search.PHSStar(), false, mixed) })
}

// netLike is an Evaluator that costs like a small network on a CPU: a
// fixed cost per call and one per state (busy loops), with the Manhattan
// distance plus a perturbation of 0 to 2 that depends on the state, an
// inconsistent heuristic like a learned one. calls counts its calls.
type netLike struct{ calls int64 }

var netSink float64

func spin(n int) {
	x := netSink
	for range n {
		x = x*0.999999 + 1e-9
	}
	netSink = x
}

func (e *netLike) Evaluate(p search.Problem[board], states []board, logPi, h []float64) error {
	e.calls++
	spin(20000)
	t := p.(*tiles5)
	for i, s := range states {
		spin(2000)
		h[i] = t.Heuristic(s) + float64((s[0]^s[0]>>17^s[1]>>5)%3)
	}
	fillUniformLogPi(logPi[:len(states)*4])
	return nil
}

func fillUniformLogPi(l []float64) {
	for i := range l {
		l[i] = -math.Log(4)
	}
}

// BenchmarkAStarNet measures A* with a network-like evaluator (netLike)
// and batches of 32 on 5×5 puzzles, with each goal test: the time per
// expansion, the states evaluated per expansion and per call (how full
// the batches are).
func BenchmarkAStarNet(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	var ps []*tiles5
	for range 4 {
		ps = append(ps, scrambled(rng, 80))
	}
	for _, atExp := range []bool{false, true} {
		name := "generation"
		if atExp {
			name = "expansion"
		}
		b.Run(name, func(b *testing.B) {
			ev := &netLike{}
			s, err := search.NewSolver[board](search.AStar(), ev, goalTestOptions(atExp, search.Options{Budget: 1e5}))
			if err != nil {
				b.Fatal(err)
			}
			var exp, evals, length int64
			for b.Loop() {
				for _, p := range ps {
					res, err := s.Solve(context.Background(), p)
					if err != nil || !res.Solved {
						b.Fatal(res.Expansions, err)
					}
					exp += res.Expansions
					evals += res.Evaluations
					length += int64(len(res.Actions))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(exp), "ns/exp")
			b.ReportMetric(float64(evals)/float64(exp), "evals/exp")
			b.ReportMetric(float64(evals)/float64(ev.calls), "evals/call")
			b.ReportMetric(float64(exp)/float64(b.N), "exp/op")
			b.ReportMetric(float64(length)/float64(b.N), "moves/op")
		})
	}
}

// goalTestOptions returns opts with the goal tested at expansion or at
// generation.
func goalTestOptions(atExp bool, opts search.Options) search.Options {
	opts.GoalTest = search.GoalTestGeneration
	if atExp {
		opts.GoalTest = search.GoalTestExpansion
	}
	return opts
}

// BenchmarkSqrtLTS measures √LTS against LevinTS with a uniform policy and
// the Manhattan distance on the same 5×5 puzzle, for a fixed number of
// expansions (unsolved): sqrtlts:levin is LevinTS's search through √LTS's
// costs, sqrtlts LTS with the slenderness cost, sqrtlts:h:1 the heuristic
// rerooter (every expanded ancestor a rerooting point; it solves the
// puzzle sooner), sqrtlts:c:1 every expanded ancestor a rerooting point of
// weight 1 (the cost of such searches without a clustering), sqrtlts:l and
// sqrtlts:lh:1 the clustering rerooters (lh solves the puzzle sooner).
// Compare exp/s, or the instructions of one search under callgrind.
func BenchmarkSqrtLTS(b *testing.B) {
	for _, text := range []string{"levints", "sqrtlts:levin", "sqrtlts", "sqrtlts:h:1", "sqrtlts:c:1", "sqrtlts:l", "sqrtlts:lh:1"} {
		alg, err := search.Parse(text)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(text, func(b *testing.B) { benchSearch(b, alg, false, search.Options{Budget: 1e5}) })
	}
}

// edgeHeuristic is the domain heuristic as a search.EdgeEvaluator that
// ignores the edges: the engine's cost of gathering them.
type edgeHeuristic struct{ search.DomainHeuristic[board] }

func (e edgeHeuristic) EvaluateEdges(p search.Problem[board], _ []board, _ []int, states []board, logPi, h []float64) error {
	return e.Evaluate(p, states, logPi, h)
}

// BenchmarkEdgeEvaluator measures LevinTS, one node at a time and in
// batches of 32, on the puzzle of benchSearch with the domain heuristic
// by states and through EvaluateEdges: the cost of the edges, which the
// engine gathers for each evaluated node. B/node must stay the same.
func BenchmarkEdgeEvaluator(b *testing.B) {
	for _, batch := range []int{1, 32} {
		opts := search.Options{Budget: 1e5, BatchSize: batch}
		b.Run(fmt.Sprint("states/batch=", batch), func(b *testing.B) {
			benchSearchWith(b, search.DomainHeuristic[board]{}, search.LevinTS(), false, opts)
		})
		b.Run(fmt.Sprint("edges/batch=", batch), func(b *testing.B) {
			benchSearchWith(b, edgeHeuristic{}, search.LevinTS(), false, opts)
		})
	}
}

// BenchmarkLevinTSBatch1 measures LevinTS one node at a time, which
// evaluates a node when it expands it (batch=1), beside batches of 32,
// which evaluate every node generated, on the puzzle of benchSearch.
func BenchmarkLevinTSBatch1(b *testing.B) {
	for _, batch := range []int{1, 32} {
		b.Run(fmt.Sprint("batch=", batch), func(b *testing.B) {
			benchSearch(b, search.LevinTS(), false, search.Options{Budget: 1e5, BatchSize: batch})
		})
	}
}
