package rubiks

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/phs-go/phs/search"
)

// TestEdgePatternIndex checks that rank and unrank are inverse, and that
// the index of a cube's pattern, and of its image under x2, reads the
// slots and flips of the pattern's cubies.
func TestEdgePatternIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, p := range []*edgePattern{newEdgePattern(UR, UF, UL, UB), halfEdges} {
		for range 20000 {
			i := rng.IntN(p.size())
			slots, flips := p.unrank(i)
			if got := p.rank(&slots, flips); got != i {
				t.Fatalf("k=%d: index %d: rank(unrank) = %d", p.k, i, got)
			}
		}
		if p.index(solved, false) != p.index(solved, true) {
			t.Errorf("k=%d: the solved cube's two halves have indices %d and %d", p.k, p.index(solved, false), p.index(solved, true))
		}
		for range 1000 {
			s := GenerateRandom(rng).Root()
			slots, flips := p.unrank(p.index(s, false))
			for j, m := range p.member {
				if m == 0 {
					continue
				}
				// Cubie j of the pattern is in slots[m-1], flipped as
				// bit m-1 says; its image under x2 is in the image of
				// the slot of the image cubie.
				if c, f := s.Edge(int(slots[m-1])); c != j || f != flips>>(m-1)&1 {
					t.Fatalf("k=%d: %s: cubie %d read in slot %d flip %d", p.k, s, j, slots[m-1], flips>>(m-1)&1)
				}
				cs, cf := p.unrank(p.index(s, true))
				if c, f := s.Edge(int(x2Edge[cs[m-1]])); c != int(x2Edge[j]) || f != cf>>(m-1)&1 {
					t.Fatalf("k=%d: %s: image of cubie %d read in slot %d", p.k, s, j, x2Edge[cs[m-1]])
				}
			}
		}
	}
}

// patternDistances returns, by a breadth-first search of the arrangements
// of the cubies of p that the turns make, the distance of each within
// depth turns of home (all for depth < 0), by index.
func patternDistances(p *edgePattern, depth int) map[int]int {
	dist := map[int]int{p.index(solved, false): 0}
	level := []State{solved}
	for d := 1; depth < 0 || d <= depth; d++ {
		var next []State
		for _, s := range level {
			for a := range NumActions {
				c, _ := Apply(s, a)
				if i := p.index(c, false); dist[i] == 0 && i != p.index(solved, false) {
					dist[i] = d
					next = append(next, c)
				}
			}
		}
		if len(next) == 0 {
			break
		}
		level = next
	}
	return dist
}

// TestEdgeTable checks the pattern database of three edges (four without
// -short) against a breadth-first search of their arrangements, entry by
// entry, and that the index of the image under x2 reads the distance of
// their images, edges of the D layer. Without -short it checks the
// database of Estimate too, to depth 6: complete, and equal to the search.
func TestEdgeTable(t *testing.T) {
	p, image := newEdgePattern(UR, UF, UL), newEdgePattern(DR, DB, DL)
	if !testing.Short() {
		p, image = newEdgePattern(UR, UF, UL, UB), newEdgePattern(DR, DB, DL, DF)
	}
	tab := buildEdgeTable(p)
	dist := patternDistances(p, -1)
	if len(dist) != p.size() {
		t.Fatalf("%d arrangements reached, want %d", len(dist), p.size())
	}
	for i, d := range dist {
		if got := nibble(tab, i); got != d {
			t.Fatalf("index %d: table %d, search %d", i, got, d)
		}
	}
	imageDist := patternDistances(image, -1)
	rng := rand.New(rand.NewPCG(6, 6))
	for range 5000 {
		s := GenerateRandom(rng).Root()
		if got, want := nibble(tab, p.index(s, true)), imageDist[image.index(s, false)]; got != want {
			t.Fatalf("%s: %d by x2, %d by search", s, got, want)
		}
	}
	if testing.Short() {
		return
	}
	full := edgeTable()
	var hist [16]int
	for i := range halfEdges.size() {
		hist[nibble(full, i)]++
	}
	if hist[15] != 0 || hist[0] != 1 {
		t.Fatalf("levels %v", hist)
	}
	t.Logf("levels %v", hist)
	for i, d := range patternDistances(halfEdges, 6) {
		if got := nibble(full, i); got != d {
			t.Fatalf("index %d: table %d, search %d", i, got, d)
		}
	}
}

// estimated is a cube whose heuristic is estimate with the pattern pat
// and its database tab.
type estimated struct {
	*Problem
	pat *edgePattern
	tab []uint64
}

func (p estimated) Heuristic(s State) float64 { return float64(estimate(s, p.pat, p.tab)) }

// TestEstimate checks estimate: 0 for the solved cube only, each term
// changed by at most 1 by a turn, on the cubes within 5 turns of the
// solved cube (4 with -short) and random ones; and that WA* with it solves
// scrambles of 8 turns with Estimate's pattern, of 6 with one of four
// edges with -short.
func TestEstimate(t *testing.T) {
	p, tab, depth, random, scramble := halfEdges, []uint64(nil), 5, 2000, 8
	if testing.Short() {
		p, depth, random, scramble = newEdgePattern(UR, UF, UL, UB), 4, 500, 6
		tab = buildEdgeTable(p)
	} else {
		tab = edgeTable()
	}
	terms := func(s State) [3]int {
		return [3]int{cornerDistance(s), nibble(tab, p.index(s, false)), nibble(tab, p.index(s, true))}
	}
	states := slices.Collect(func(yield func(State) bool) {
		for s := range distances(depth) {
			if !yield(s) {
				return
			}
		}
	})
	rng := rand.New(rand.NewPCG(7, 7))
	for range random {
		states = append(states, GenerateRandom(rng).Root())
	}
	sum := 0
	for _, s := range states {
		e := estimate(s, p, tab)
		if (e == 0) != (s == solved) {
			t.Fatalf("%s: estimate %d", s, e)
		}
		before := terms(s)
		for a := range NumActions {
			next, _ := Apply(s, a)
			after := terms(next)
			for k := range before {
				if d := after[k] - before[k]; d < -1 || d > 1 {
					t.Fatalf("%s then %s: term %d from %d to %d", s, ActionName(a), k, before[k], after[k])
				}
			}
		}
	}
	for _, s := range states[len(states)-random:] {
		sum += estimate(s, p, tab)
	}
	t.Logf("mean on random cubes %.2f", float64(sum)/float64(random))

	solver, err := search.NewSolver[State](search.WAStar(4), search.DomainHeuristic[State]{}, search.Options{Budget: 200_000})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		q := estimated{GenerateScramble(rng, scramble, scramble), p, tab}
		res, err := solver.Solve(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Solved {
			t.Fatalf("%s: not solved in %d expansions", q.Problem, res.Expansions)
		}
		if err := search.Replay[State](q, res.Actions); err != nil {
			t.Fatalf("%s: %v", q.Problem, err)
		}
		if len(res.Actions) > 2*scramble {
			t.Errorf("%s: %d turns for a scramble of %d", q.Problem, len(res.Actions), scramble)
		}
	}
	if !testing.Short() {
		s := GenerateRandom(rng).Root()
		q := &Problem{start: s}
		if got := q.Estimate(s); got != float64(estimate(s, p, tab)) {
			t.Errorf("Estimate %v, estimate %d", got, estimate(s, p, tab))
		}
		if allocs := testing.AllocsPerRun(100, func() { q.Estimate(s) }); allocs != 0 {
			t.Errorf("Estimate allocates %v times", allocs)
		}
	}
}
