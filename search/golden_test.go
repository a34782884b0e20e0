package search_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/golden.txt from the searches of TestGolden")

// goldenFile holds the outcome of each search of TestGolden.
const goldenFile = "testdata/golden.txt"

// goldenEval is an Evaluator with a policy and a heuristic that depend on
// the state through a hash: a non-uniform policy and an inconsistent
// heuristic, like a learned one's.
type goldenEval struct{}

func goldenHash(s board, salt uint64) uint64 {
	x := s[0]*0x9e3779b97f4a7c15 ^ s[1]*0xbf58476d1ce4e5b9 ^ salt
	x ^= x >> 31
	x *= 0x94d049bb133111eb
	return x ^ x>>29
}

func (e goldenEval) Evaluate(p search.Problem[board], states []board, logPi, h []float64) error {
	return e.evaluate(p, nil, states, logPi, h)
}

// evaluate evaluates states, reached by actions if not nil.
func (goldenEval) evaluate(p search.Problem[board], actions []int, states []board, logPi, h []float64) error {
	hp := p.(search.Heuristic[board])
	for i, s := range states {
		x := goldenHash(s, 1)
		if actions != nil {
			x = goldenHash(s, uint64(actions[i]+2))
		}
		row := logPi[4*i : 4*i+4]
		sum := 0.0
		for a := range row {
			row[a] = float64(x>>(8*a)&255) / 64
			sum += math.Exp(row[a])
		}
		for a := range row {
			row[a] -= math.Log(sum)
		}
		h[i] = hp.Heuristic(s) + float64(x>>40%5) - 1
	}
	return nil
}

// rerootTiles is a tiles5 whose rerooting weights are 1 where the move
// puts a tile in its goal cell and 0 elsewhere; if boxed, the blank stays
// in the 2×3 corner of cells 0–2 and 5–7, which makes a space of 360
// states.
type rerootTiles struct {
	*tiles5
	boxed bool
}

func (t rerootTiles) Apply(b board, a int) (board, bool) {
	c, ok := t.tiles5.Apply(b, a)
	if z := c.blank(); ok && t.boxed && (z/5 > 1 || z%5 > 2) {
		return board{}, false
	}
	return c, ok
}

func (t rerootTiles) RerootWeight(parent, s board) float64 {
	in := func(b board) (n int) {
		for i := range 25 {
			if b.get(i) == i {
				n++
			}
		}
		return n
	}
	if in(s) > in(parent) {
		return 1
	}
	return 0
}

// goldenCases returns the searches of TestGolden, by name: each best-first
// algorithm on a few 5×5 puzzles, with batches of 1 and 32, each goal test,
// renormalised policies or not, a bound on memory, Shorten, an
// EdgeEvaluator.
func goldenCases() (names []string, run []func() (search.Result[board], error)) {
	rng := rand.New(rand.NewPCG(54, 6))
	var ps []rerootTiles
	for _, n := range []int{30, 60, 400} {
		ps = append(ps, rerootTiles{tiles5: scrambled(rng, n)})
	}
	// Two puzzles in the box: one solvable, one not (two tiles swapped).
	in := rerootTiles{tiles5: &tiles5{start: tiles5Goal}, boxed: true}
	for range 100 {
		if b, ok := in.Apply(in.start, rng.IntN(4)); ok {
			in.start = b
		}
	}
	out := rerootTiles{tiles5: &tiles5{start: tiles5Goal.set(1, 2).set(2, 1)}, boxed: true}
	ps = append(ps, in, out)
	algs := []string{"phsstar", "phsh", "levints", "astar", "wastar:1.5", "gbfs", "phssafe",
		"sqrtlts", "sqrtlts:levin", "sqrtlts:c:0.5", "sqrtlts:h:1", "sqrtlts:l", "sqrtlts:lh:1", "sqrtlts:d"}
	for _, text := range algs {
		alg, err := search.Parse(text)
		if err != nil {
			panic(err)
		}
		for pi, p := range ps {
			for _, batch := range []int{1, 32} {
				for _, gt := range goalTests {
					for v := range 5 {
						opts := search.Options{Budget: 3000, BatchSize: batch, GoalTest: gt}
						var ev search.Evaluator[board] = goldenEval{}
						switch v {
						case 1:
							opts.Renormalize = true
						case 2:
							opts.MaxMemory = 300000
						case 3:
							if alg == search.PHSSafe() {
								continue
							}
							opts.Shorten = true
						case 4:
							ev = edgeGoldenEval{}
						}
						names = append(names, fmt.Sprintf("%s p%d batch=%d goal=%v v%d", text, pi, batch, gt, v))
						run = append(run, func() (search.Result[board], error) {
							return searchtest.Solve[board](context.Background(), p, ev, alg, opts)
						})
					}
				}
			}
		}
	}
	return names, run
}

// edgeGoldenEval is goldenEval as an EdgeEvaluator whose values depend on
// the action that led to the state too.
type edgeGoldenEval struct{ goldenEval }

func (e edgeGoldenEval) EvaluateEdges(p search.Problem[board], _ []board, actions []int, states []board, logPi, h []float64) error {
	return e.evaluate(p, actions, states, logPi, h)
}

// fingerprint returns the outcome of a search in one line: how it ended,
// its counts, its cost and a hash of its actions and their probabilities.
func fingerprint(res search.Result[board]) string {
	h := fnv.New64a()
	for _, a := range res.Actions {
		fmt.Fprint(h, a, " ")
	}
	if tr := res.Trajectory; tr != nil {
		for _, l := range tr.LogPi {
			fmt.Fprintf(h, "%x ", math.Float64bits(l))
		}
	}
	return fmt.Sprintf("solved=%v exhausted=%v oom=%v exp=%d gen=%d evals=%d cost=%g len=%d hash=%x",
		res.Solved, res.Exhausted, res.OutOfMemory, res.Expansions, res.Generated, res.Evaluations, res.Cost, len(res.Actions), h.Sum64())
}

// TestGolden checks that every best-first algorithm, with each of a set of
// options, makes the same search as when testdata/golden.txt was written
// (go test -run TestGolden -update): the same expansions, nodes generated
// and evaluated, and solution. With -short it checks every seventh search.
func TestGolden(t *testing.T) {
	t.Parallel()
	names, run := goldenCases()
	got := make([]string, len(names))
	for i := range names {
		if testing.Short() && !*updateGolden && i%7 != 0 {
			continue
		}
		res, err := run[i]()
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		got[i] = names[i] + ": " + fingerprint(res)
	}
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenFile, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		want = append(want, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(got) {
		t.Fatalf("%d searches, %d in %s", len(got), len(want), goldenFile)
	}
	for i := range got {
		if got[i] != "" && got[i] != want[i] {
			t.Errorf("got  %s\nwant %s", got[i], want[i])
		}
	}
}
