package stp

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// walkSolution returns a puzzle of rows×cols cells whose start is the end
// of a random walk of n moves from the goal, back and forth included (so
// with loops), and the walk reversed: a solution of n moves.
func walkSolution[S Arrangement[S]](rng *rand.Rand, rows, cols, n int) (*Problem[S], []int) {
	p := goalProblem[S](rows, cols)
	undo := [4]int{Down, Up, Right, Left}
	s := p.goal
	var walk []int
	for len(walk) < n {
		a := rng.IntN(4)
		if c, ok := p.Apply(s, a); ok {
			s = c
			walk = append(walk, a)
		}
	}
	p.start = s
	sol := make([]int, n)
	for i, a := range walk {
		sol[n-1-i] = undo[a]
	}
	return p, sol
}

// checkShorter checks that short, which Shorten returned for sol, is a
// solution of p at most as long, of the same parity, and that nodes is
// within limit.
func checkShorter[S Arrangement[S]](t *testing.T, p *Problem[S], sol, short []int, nodes, limit int) {
	t.Helper()
	s := p.Root()
	for i, a := range short {
		var ok bool
		if s, ok = p.Apply(s, a); !ok {
			t.Fatalf("%dx%d: step %d: action %d illegal", p.Rows, p.Cols, i+1, a)
		}
	}
	switch {
	case !p.IsGoal(s):
		t.Fatalf("%dx%d: the shortened solution does not reach the goal", p.Rows, p.Cols)
	case len(short) > len(sol) || (len(sol)-len(short))%2 != 0:
		t.Fatalf("%dx%d: %d moves shortened to %d", p.Rows, p.Cols, len(sol), len(short))
	case nodes < 0 || nodes > limit:
		t.Fatalf("%dx%d: %d nodes for a limit of %d", p.Rows, p.Cols, nodes, limit)
	}
}

// TestShortenOptimal3x3 checks Shorten against breadth-first search: on
// the 8-puzzle, whose solutions of up to ShortenWindow moves its last
// sweep searches whole, every solution must come back optimal.
func TestShortenOptimal3x3(t *testing.T) {
	dist := reach(goalProblem[State](3, 3))
	rng := rand.New(rand.NewPCG(1, 2))
	const limit = 10_000_000
	shorter := 0
	for i := range 200 {
		p, sol := walkSolution[State](rng, 3, 3, 1+i%ShortenWindow)
		short, nodes, err := p.Shorten(sol, limit)
		if err != nil {
			t.Fatal(err)
		}
		checkShorter(t, p, sol, short, nodes, limit)
		if want := dist[p.Root()]; len(short) != want {
			t.Errorf("%v: %d moves shortened to %d; the optimum is %d", p.Tiles(p.Root()), len(sol), len(short), want)
		}
		if len(short) < len(sol) {
			shorter++
		}
	}
	if shorter < 100 {
		t.Errorf("only %d of 200 solutions shortened", shorter)
	}
}

// TestShortenLarge shortens random walks on boards of both state types,
// within limits from one node on: the two types give the same solutions,
// and the loops of a walk go even with the smallest limit.
func TestShortenLarge(t *testing.T) {
	for _, size := range [][2]int{{4, 4}, {3, 5}, {5, 5}} {
		for _, limit := range []int{1, 1000, 100_000} {
			rng := rand.New(rand.NewPCG(uint64(size[0]), uint64(limit)))
			p, sol := walkSolution[State](rng, size[0], size[1], 300)
			rng = rand.New(rand.NewPCG(uint64(size[0]), uint64(limit)))
			lp, lsol := walkSolution[LargeState](rng, size[0], size[1], 300)
			short, nodes, err := p.Shorten(sol, limit)
			if err != nil {
				t.Fatal(err)
			}
			checkShorter(t, p, sol, short, nodes, limit)
			lshort, lnodes, err := lp.Shorten(lsol, limit)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(short, lshort) || nodes != lnodes {
				t.Errorf("%v, limit %d: State and LargeState shorten differently", size, limit)
			}
			if loops := len(cutLoops(states(p, sol))) - 1; len(short) > loops {
				t.Errorf("%v, limit %d: %d moves without loops, %d after Shorten", size, limit, loops, len(short))
			}
		}
	}
	// The 48-puzzle: the windows shorten the walk past its loops, not
	// below the linear conflicts' bound.
	rng := rand.New(rand.NewPCG(7, 7))
	p, sol := walkSolution[LargeState](rng, 7, 7, 3000)
	const limit = 2_000_000
	short, nodes, err := p.Shorten(sol, limit)
	if err != nil {
		t.Fatal(err)
	}
	checkShorter(t, p, sol, short, nodes, limit)
	loops := len(cutLoops(states(p, sol))) - 1
	if len(short) >= loops || len(short) < p.LowerBound(p.Root()) {
		t.Errorf("7x7: %d moves, %d without loops, %d after Shorten; the lower bound is %d", len(sol), loops, len(short), p.LowerBound(p.Root()))
	}
	t.Logf("7x7: %d moves, %d without loops, %d after Shorten (%d nodes); the lower bound is %d", len(sol), loops, len(short), nodes, p.LowerBound(p.Root()))
}

// states returns the arrangements along sol from p's start.
func states[S Arrangement[S]](p *Problem[S], sol []int) []S {
	s := p.Root()
	out := []S{s}
	for _, a := range sol {
		s, _ = p.Apply(s, a)
		out = append(out, s)
	}
	return out
}

// TestShortenErrors checks the errors about actions that are no
// solution, and the panic for a limit that is not positive.
func TestShortenErrors(t *testing.T) {
	p := mustParse[State](t, "1 0 2 3 4 5 6 7 8")[0]
	for _, c := range []struct {
		actions []int
		want    string
	}{
		{[]int{Up}, "step 1: action 0 not legal"},
		{[]int{Left, 9}, "step 2: action 9 not legal"},
		{[]int{Down}, "the 1 actions do not reach the goal"},
	} {
		_, _, err := p.Shorten(c.actions, 10)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p.ID) {
			t.Errorf("%v: error %v; want %q naming %s", c.actions, err, c.want, p.ID)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("limit 0: no panic")
		}
	}()
	p.Shorten([]int{Left}, 0)
}

// BenchmarkShorten shortens a random walk of 3,000 moves on the 48-puzzle
// with 2 million nodes; ns/node is the cost of a node.
func BenchmarkShorten(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	p, sol := walkSolution[LargeState](rng, 7, 7, 3000)
	var nodes int
	for b.Loop() {
		_, n, err := p.Shorten(sol, 2_000_000)
		if err != nil {
			b.Fatal(err)
		}
		nodes += n
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(nodes), "ns/node")
}

// FuzzShorten shortens the walk back of walks from the goal of the
// 8-puzzle, which data spells (a byte a move, the illegal ones left out):
// the result must be a solution, optimal when the walk has at most
// ShortenWindow moves.
func FuzzShorten(f *testing.F) {
	f.Add([]byte{1, 3, 1, 3, 0, 2})
	f.Add([]byte{3, 2, 3, 2, 1, 0, 1, 0})
	f.Add(bytes.Repeat([]byte{1, 3, 0, 2}, 20))
	dist := sync.OnceValue(func() map[State]int { return reach(goalProblem[State](3, 3)) })
	f.Fuzz(func(t *testing.T, data []byte) {
		p := goalProblem[State](3, 3)
		undo := [4]int{Down, Up, Right, Left}
		var sol []int
		for _, b := range data {
			if c, ok := p.Apply(p.start, int(b%4)); ok {
				p.start = c
				sol = append([]int{undo[b%4]}, sol...)
			}
		}
		const limit = 10_000_000
		short, nodes, err := p.Shorten(sol, limit)
		if err != nil {
			t.Fatal(err)
		}
		checkShorter(t, p, sol, short, nodes, limit)
		if want := dist()[p.Root()]; len(sol) <= ShortenWindow && len(short) != want {
			t.Errorf("%d moves shortened to %d; the optimum is %d", len(sol), len(short), want)
		}
	})
}
