package rubiks

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/phs-go/phs/search"
)

// TestInverse checks inverse on random cubes: either product with the
// cube is solved.
func TestInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		c := GenerateRandom(rng).start.unpack()
		inv := inverse(&c)
		if a, b := mul(&c, &inv), mul(&inv, &c); a.pack() != solved || b.pack() != solved {
			t.Fatalf("%v: the products with its inverse are %v and %v", c.pack(), a.pack(), b.pack())
		}
	}
}

// TestRedundant checks redundant against breadth-first search: the
// sequences of up to 6 turns that it keeps reach every cube within 6
// turns of the goal, each at its distance, and those of 2 turns are as
// many as the cubes at distance 2 (114): it keeps no two of one cube.
func TestRedundant(t *testing.T) {
	const depth = 6
	dist := distances(depth)
	reached := map[State]int{}
	var kept [depth + 1]int
	var walk func(s State, g, prev, last int)
	walk = func(s State, g, prev, last int) {
		kept[g]++
		if d, ok := reached[s]; !ok || g < d {
			reached[s] = g
		}
		if g == depth {
			return
		}
		for a := range NumActions {
			if !redundant(prev, last, a) {
				c, _ := Apply(s, a)
				walk(c, g+1, last, a)
			}
		}
	}
	walk(solved, 0, -1, -1)
	if len(reached) != len(dist) {
		t.Errorf("the kept sequences reach %d cubes; want %d", len(reached), len(dist))
	}
	for s, d := range dist {
		if g, ok := reached[s]; !ok || g != d {
			t.Fatalf("%v, %d turns away: reached in %d (%v)", s, d, g, ok)
		}
	}
	if kept[2] != 114 {
		t.Errorf("%d kept sequences of 2 turns; want 114", kept[2])
	}
}

// TestShortenOptimal checks Shorten against breadth-first search: cubes
// of up to 6 turns from the goal, solved by solutions padded with detours
// (a turn and its inverse, a face turned four times) to at most
// ShortenWindow turns, which the last sweep searches whole, come back
// optimal; every result replays.
func TestShortenOptimal(t *testing.T) {
	dist := distances(6)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 200 {
		p, sol := walkBack(Scramble(rng, 1, 6))
		for len(sol)+2 <= ShortenWindow {
			k := rng.IntN(len(sol) + 1)
			a := rng.IntN(NumActions)
			detour := []int{a, a ^ 1}
			if len(sol)+4 <= ShortenWindow && rng.IntN(2) == 0 {
				detour = []int{a, a, a, a}
			}
			sol = slices.Insert(sol, k, detour...)
		}
		got, nodes, err := p.Shorten(sol, 1_000_000)
		if err != nil {
			t.Fatal(err)
		}
		if err := search.Replay[State](p, got); err != nil {
			t.Fatalf("cube %d: %v", i, err)
		}
		if len(got) != dist[p.start] || nodes > 1_000_000 {
			t.Errorf("cube %d, %d turns away: %d turns from %d, %d nodes", i, dist[p.start], len(got), len(sol), nodes)
		}
	}
}

// TestShortenRandom checks Shorten on long solutions, the inverses of
// scrambles of 14 to 18 turns with detours of six turns that come back
// where they started inserted: never longer, replayed, within the limit,
// the same for the same input.
func TestShortenRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 10 {
		scr := Scramble(rng, 14, 18)
		p, back := walkBack(scr)
		var sol []int
		for _, a := range back {
			sol = append(sol, a)
			if rng.IntN(3) == 0 {
				b := rng.IntN(NumActions)
				sol = append(sol, b, b, b, b^1, b^1, b^1)
			}
		}
		const limit = 20_000
		got, nodes, err := p.Shorten(sol, limit)
		if err != nil {
			t.Fatal(err)
		}
		if err := search.Replay[State](p, got); err != nil {
			t.Fatalf("cube %d: %v", i, err)
		}
		if len(got) > len(scr) || nodes > limit {
			t.Errorf("cube %d: %d turns from %d (the scramble: %d), %d nodes", i, len(got), len(sol), len(scr), nodes)
		}
		again, _, _ := p.Shorten(sol, limit)
		if !slices.Equal(got, again) {
			t.Errorf("cube %d: two calls differ", i)
		}
	}
}

// TestShortenErrors checks that Shorten refuses what does not solve the
// cube, naming it, and panics on a limit that is not positive.
func TestShortenErrors(t *testing.T) {
	p := &Problem{ID: "cubes.txt#3", start: solved}
	p.start, _ = Apply(solved, 0)
	for _, tc := range []struct {
		actions []int
		want    string
	}{
		{[]int{0}, "rubiks: cubes.txt#3: Shorten: the 1 actions do not solve the cube"},
		{[]int{12}, "rubiks: cubes.txt#3: Shorten: step 1: action 12 not legal"},
	} {
		if _, _, err := p.Shorten(tc.actions, 10); err == nil || err.Error() != tc.want {
			t.Errorf("%v: %v, want %q", tc.actions, err, tc.want)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "limit 0") {
			t.Errorf("limit 0: recovered %v", r)
		}
	}()
	p.Shorten([]int{1}, 0)
}

// walkBack returns the cube that walk makes of the solved cube, and the
// walk undone: a solution of it.
func walkBack(walk []int) (*Problem, []int) {
	s := solved
	for _, a := range walk {
		s, _ = Apply(s, a)
	}
	sol := make([]int, 0, len(walk))
	for _, a := range slices.Backward(walk) {
		sol = append(sol, a^1)
	}
	return &Problem{start: s}, sol
}

// BenchmarkShorten shortens the walk back of a random walk of 300 turns
// within 200,000 nodes and reports the time a node.
func BenchmarkShorten(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	walk := make([]int, 300)
	for i := range walk {
		walk[i] = rng.IntN(NumActions)
	}
	p, sol := walkBack(walk)
	p.PrepareShorten() // before the clock
	var nodes int
	for b.Loop() {
		_, n, err := p.Shorten(sol, 200_000)
		if err != nil {
			b.Fatal(err)
		}
		nodes += n
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(nodes), "ns/node")
}

// FuzzShorten shortens the walk back of walks from the solved cube, which
// data spells (a byte a turn): the result must be a solution, no longer,
// and optimal when the walk has at most ShortenWindow turns and ends
// within 5 turns of the goal.
func FuzzShorten(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3})
	f.Add([]byte{0, 0, 0, 0, 2, 4, 5, 3})
	f.Add(bytes.Repeat([]byte{0, 2, 1, 3}, 10))
	// The pattern databases and the distances are built before any
	// input, whose time the fuzzer bounds.
	(&Problem{}).PrepareShorten()
	dist := distances(5)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 200 {
			data = data[:200]
		}
		walk := make([]int, len(data))
		for i, b := range data {
			walk[i] = int(b % NumActions)
		}
		p, sol := walkBack(walk)
		got, nodes, err := p.Shorten(sol, 1_000_000)
		if err != nil {
			t.Fatal(err)
		}
		if err := search.Replay[State](p, got); err != nil || len(got) > len(sol) || nodes > 1_000_000 {
			t.Fatalf("%d turns from %d, %d nodes: %v", len(got), len(sol), nodes, err)
		}
		if d, ok := dist[p.start]; ok && len(sol) <= ShortenWindow && len(got) != d {
			t.Errorf("%d turns from %d; the cube is %d away", len(got), len(sol), d)
		}
	})
}
