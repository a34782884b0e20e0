package rubiks

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/phs-go/phs/search"
)

// distances returns the number of quarter turns that solve each cube
// within depth turns of the solved cube, by breadth-first search.
func distances(depth int) map[State]int {
	dist := map[State]int{solved: 0}
	level := []State{solved}
	for d := 1; d <= depth; d++ {
		var next []State
		for _, s := range level {
			for a := range NumActions {
				t, _ := Apply(s, a)
				if _, ok := dist[t]; !ok {
					dist[t] = d
					next = append(next, t)
				}
			}
		}
		level = next
	}
	return dist
}

// TestDistances checks the breadth-first search, and so the turns, against
// the known counts of cubes at each distance in the quarter-turn metric
// (OEIS A080583).
func TestDistances(t *testing.T) {
	want := []int{1, 12, 114, 1068, 10011}
	count := make([]int, len(want))
	for _, d := range distances(len(want) - 1) {
		count[d]++
	}
	for d := range want {
		if count[d] != want[d] {
			t.Errorf("%d cubes at distance %d, want %d", count[d], d, want[d])
		}
	}
}

// TestCornerTable checks the corner pattern database: complete, as deep as
// the corners go (14 quarter turns), and equal to a breadth-first search
// of the corner arrangements made by the turns themselves, to depth 7 (6
// with -short).
func TestCornerTable(t *testing.T) {
	tab := cornerTable()
	if len(tab) != numCorners/16 {
		t.Fatalf("%d words", len(tab))
	}
	var hist [16]int
	for i := range numCorners {
		hist[tab[i>>4]>>(4*(i&15))&15]++
	}
	if hist[15] != 0 || hist[0] != 1 {
		t.Fatalf("levels %v", hist)
	}
	// The deepest: as many as the 2x2x2 cube's 276 positions at distance
	// 14, its God's number in the quarter-turn metric, in each of its 24
	// orientations.
	if hist[14] != 24*276 {
		t.Errorf("%d arrangements at distance 14, want %d", hist[14], 24*276)
	}

	depth := 7
	if testing.Short() {
		depth = 6
	}
	dist := map[uint64]int{solved.corners: 0}
	level := []State{solved}
	count := make([]int, depth+1)
	count[0] = 1
	for d := 1; d <= depth; d++ {
		var next []State
		for _, s := range level {
			for a := range NumActions {
				c, _ := Apply(s, a)
				if _, ok := dist[c.corners]; !ok {
					dist[c.corners] = d
					count[d]++
					next = append(next, c)
				}
			}
		}
		level = next
	}
	for c, d := range dist {
		if got := cornerDistance(State{corners: c, edges: solved.edges}); got != d {
			t.Fatalf("corners %x: table %d, search %d", c, got, d)
		}
	}
	for d := range count {
		if hist[d] != count[d] {
			t.Errorf("%d arrangements at distance %d in the table, %d in the search", hist[d], d, count[d])
		}
	}
	// Every index is that of its arrangement.
	for _, i := range []int{0, 1, numCornerTwist - 1, numCornerTwist, numCorners / 2, numCorners - 1} {
		if got := cornerIndex(cornerFromIndex(i)); got != i {
			t.Errorf("index %d: %d", i, got)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 10000 {
		i := rng.IntN(numCorners)
		s := cornerFromIndex(i)
		if got := cornerIndex(s); got != i {
			t.Fatalf("index %d: %d", i, got)
		}
	}
}

// TestHeuristicAdmissible checks the heuristic against the distance of
// every cube within 6 quarter turns (5 with -short) of the solved cube:
// never above it, 0 for the solved cube only, and changed by at most 1 by
// a turn (consistency), also on random cubes.
func TestHeuristicAdmissible(t *testing.T) {
	depth := 6
	if testing.Short() {
		depth = 5
	}
	p := &Problem{start: solved}
	exact := 0
	dist := distances(depth)
	for s, d := range dist {
		h := p.Heuristic(s)
		if h > float64(d) {
			t.Fatalf("%s: h %v, distance %d", s, h, d)
		}
		if int(h)%2 != d%2 {
			t.Fatalf("%s: h %v, distance %d: not the same parity", s, h, d)
		}
		if (h == 0) != (d == 0) {
			t.Fatalf("%s: h %v, distance %d", s, h, d)
		}
		if h == float64(d) {
			exact++
		}
	}
	t.Logf("%d cubes within %d turns, h exact for %d", len(dist), depth, exact)
	states := randomStates(2000)
	i := 0
	for s := range dist {
		if i++; i > 20000 {
			break
		}
		states = append(states, s)
	}
	for _, s := range states {
		h := bound(s)
		for a := range NumActions {
			next, _ := Apply(s, a)
			if d := bound(next) - h; d < -1 || d > 1 {
				t.Fatalf("%s then %s: h from %d to %d", s, ActionName(a), h, bound(next))
			}
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { p.Heuristic(states[0]) }); allocs != 0 {
		t.Errorf("Heuristic allocates %v times", allocs)
	}
}

// TestEdgeDistances checks the per-edge distances: 0 at home only, at
// most 4 turns (an edge reaches any slot, either way round, in at most 4
// quarter turns), and 1 for the edges a turn moves from home.
func TestEdgeDistances(t *testing.T) {
	for i := range 12 {
		for v := range 24 {
			d := int(edgeDist[i][v])
			if (d == 0) != (v == 2*i) || d > 4 {
				t.Errorf("edge slot %d field %d: %d", i, v, d)
			}
		}
	}
	for a := range NumActions {
		s, _ := Apply(solved, a)
		if got := edgeSum(s); got != 4 {
			t.Errorf("%s: edge sum %d, want 4", ActionName(a), got)
		}
	}
}

// TestAStarOptimal solves scrambles of up to 6 turns with A* and the
// heuristic, and checks that the solutions are as short as the
// breadth-first search's.
func TestAStarOptimal(t *testing.T) {
	dist := distances(5)
	rng := rand.New(rand.NewPCG(11, 12))
	solver, err := search.NewSolver[State](search.AStar(), search.DomainHeuristic[State]{}, search.Options{GoalTest: search.GoalTestExpansion, Budget: 2_000_000})
	if err != nil {
		t.Fatal(err)
	}
	for n := range 40 {
		p := GenerateScramble(rng, 1+n%6, 1+n%6)
		want, known := dist[p.Root()]
		if p.IsGoal(p.Root()) {
			continue
		}
		res, err := solver.Solve(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Solved {
			t.Fatalf("%s: not solved in %d expansions", p, res.Expansions)
		}
		if err := search.Replay(p, res.Actions); err != nil {
			t.Fatalf("%s: %s: %v", p, search.FormatActions(p, res.Actions), err)
		}
		if known && (len(res.Actions) != want || res.Cost != float64(want)) {
			t.Fatalf("%s: %d turns (cost %v), optimal %d", p, len(res.Actions), res.Cost, want)
		}
		if !known && len(res.Actions) != 6 {
			// Beyond depth 5 of the search: 6 turns, optimal since the
			// cube is not within 5.
			t.Fatalf("%s: %d turns, want 6", p, len(res.Actions))
		}
	}
}

// BenchmarkCornerTableBuild builds the corner pattern database again,
// beside the shared one: its time is what the first Heuristic call costs.
func BenchmarkCornerTableBuild(b *testing.B) {
	b.ReportAllocs()
	var tab []uint64
	for b.Loop() {
		tab = buildCornerTable()
	}
	if !slices.Equal(tab, cornerTable()) {
		b.Fatal("two builds differ")
	}
	b.ReportMetric(float64(8*len(tab)), "table-bytes")
}

// BenchmarkEdgeTableBuild builds the edge pattern database of Estimate
// again, beside the shared one: its time is what the first Estimate call
// costs, besides the corner one's.
func BenchmarkEdgeTableBuild(b *testing.B) {
	b.ReportAllocs()
	var tab []uint64
	for b.Loop() {
		tab = buildEdgeTable(halfEdges)
	}
	if !slices.Equal(tab, edgeTable()) {
		b.Fatal("two builds differ")
	}
	b.ReportMetric(float64(8*len(tab)), "table-bytes")
}
