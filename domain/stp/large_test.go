package stp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/phs-go/phs/search"
)

// TestLargeStateSize checks the size the doc comment of LargeState gives.
func TestLargeStateSize(t *testing.T) {
	if n := unsafe.Sizeof(LargeState{}); n != 64 {
		t.Errorf("a LargeState is %d bytes", n)
	}
}

// TestLargeBlank puts the blank in every cell of an 8x8 board, and checks
// Blank and At.
func TestLargeBlank(t *testing.T) {
	for b := range MaxLargeCells {
		tiles := identity(MaxLargeCells)
		tiles[0], tiles[b] = tiles[b], 0
		s := largeState(tiles)
		if got := s.Blank(); got != b {
			t.Errorf("blank in cell %d: Blank() = %d", b, got)
		}
		for i, want := range tiles {
			if s.At(i) != want {
				t.Fatalf("blank in cell %d: At(%d) = %d, want %d", b, i, s.At(i), want)
			}
		}
	}
	if b := (LargeState{}).Blank(); b != 0 {
		t.Errorf("zero LargeState: Blank() = %d", b)
	}
	s := largeState(identity(9))
	s.cells[0] = 1
	if b := s.Blank(); b != MaxLargeCells {
		t.Errorf("no blank: Blank() = %d", b)
	}
}

// TestLargeAgrees checks that a Problem[LargeState] behaves as the
// Problem[State] of the same puzzle, on boards that both hold: moves along
// random walks, goal, heuristic and its changes, encoding, contexts,
// rendering, text.
func TestLargeAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, size := range [][2]int{{2, 2}, {2, 3}, {3, 3}, {4, 4}, {5, 5}, {3, 8}, {2, 12}, {5, 2}} {
		for range 10 {
			p := GenerateWalk[State](rng, size[0], size[1], 0, 60)
			q, err := New[LargeState](p.Rows, p.Cols, p.Tiles(p.Root()), "")
			if err != nil {
				t.Fatal(err)
			}
			if q.String() != p.String() || q.Render(q.Root()) != p.Render(p.Root()) {
				t.Fatalf("%s: large %s", p, q)
			}
			if !q.IsGoal(q.Goal()) || q.IsGoal(q.Root()) != p.IsGoal(p.Root()) {
				t.Fatalf("%s: goal", p)
			}
			s, ls := p.Root(), q.Root()
			n := p.Rows * p.Cols
			enc, lenc := make([]float32, n*n), make([]float32, n*n)
			var codes, lcodes [NumContexts]uint64
			for range 100 {
				if !slices.Equal(p.Tiles(s), q.Tiles(ls)) || s.Blank() != ls.Blank() ||
					p.Heuristic(s) != q.Heuristic(ls) || q.Heuristic(ls) != float64(manhattanDef(q, ls)) ||
					p.LowerBound(s) != q.LowerBound(ls) || p.Render(s) != q.Render(ls) {
					t.Fatalf("%s: %v, large %v", p, p.Tiles(s), q.Tiles(ls))
				}
				p.Encode(s, enc)
				q.Encode(ls, lenc)
				if !slices.Equal(enc, lenc) {
					t.Fatalf("%s: encodings differ", p)
				}
				a := rng.IntN(6) - 1 // -1 and 4 are no actions
				p.Contexts(s, a, s, codes[:])
				q.Contexts(ls, a, ls, lcodes[:])
				if codes != lcodes {
					t.Fatalf("%s: contexts differ", p)
				}
				c, dh, ok := p.ApplyDelta(s, a)
				lc, ldh, lok := q.ApplyDelta(ls, a)
				if ok != lok || dh != ldh || !ok && lc != (LargeState{}) {
					t.Fatalf("%s: action %d: %v, large %v", p, a, ok, lok)
				}
				if ok {
					s, ls = c, lc
				}
			}
		}
	}
}

// TestLargeSolve solves 6x6, 7x7, 8x8 and 5x9 puzzles, random walks from
// the goal, with WA* (walks of 40 moves) and GBFS (30), and replays the
// solutions; A* solves walks of 20 moves in at most 20.
func TestLargeSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	for _, size := range [][2]int{{6, 6}, {7, 7}, {8, 8}, {5, 9}} {
		for _, tc := range []struct {
			alg        search.Algorithm
			walk       int
			atMostWalk bool
		}{{search.AStar(), 20, true}, {search.WAStar(3), 40, false}, {search.GBFS(), 30, false}} {
			for range 3 {
				p := GenerateWalk[LargeState](rng, size[0], size[1], tc.walk, tc.walk)
				res, err := searchSolve(p, tc.alg)
				if err != nil || !res.Solved {
					t.Fatalf("%dx%d %v %s: solved %v, %v", size[0], size[1], tc.alg, p, res.Solved, err)
				}
				if err := search.Replay[LargeState](p, res.Actions); err != nil {
					t.Errorf("%v %s: %v", tc.alg, p, err)
				}
				if h := int(p.Heuristic(p.Root())); len(res.Actions) < h || tc.atMostWalk && len(res.Actions) > tc.walk {
					t.Errorf("%v %s: %d moves, Manhattan distance %d, walk %d", tc.alg, p, len(res.Actions), h, tc.walk)
				}
			}
		}
	}
}

func searchSolve(p *Problem[LargeState], alg search.Algorithm) (search.Result[LargeState], error) {
	s, err := search.NewSolver[LargeState](alg, search.DomainHeuristic[LargeState]{}, search.Options{Budget: 2e5})
	if err != nil {
		return search.Result[LargeState]{}, err
	}
	return s.Solve(context.Background(), p)
}

// TestLargeParse reads a file of boards of both sizes: with LargeState,
// and with State up to its first board of more than 25 cells, refused
// with ErrLarge.
func TestLargeParse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var ps []*Problem[LargeState]
	for _, size := range [][2]int{{2, 2}, {3, 3}, {5, 5}, {6, 6}, {7, 7}} {
		ps = append(ps, GenerateRandom[LargeState](rng, size[0], size[1]), GenerateWalk[LargeState](rng, size[0], size[1], 5, 50))
	}
	var buf bytes.Buffer
	if err := Write(&buf, ps); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if back, err := Parse[LargeState](strings.NewReader(text), "gen.txt"); err != nil || len(back) != len(ps) {
		t.Fatalf("Parse[LargeState]: %d puzzles, %v", len(back), err)
	}
	// Parse[State] takes the first lines (up to 5x5) and refuses the 6x6 one.
	_, err := Parse[State](strings.NewReader(text), "gen.txt")
	if !errors.Is(err, ErrLarge) || !strings.Contains(err.Error(), "gen.txt:7: 36 tiles: size 6x6: more than 25 cells") {
		t.Errorf("Parse[State] of a 6x6 board: %v", err)
	}
	if _, err := New[State](7, 7, identity(49), ""); !errors.Is(err, ErrLarge) {
		t.Errorf("New[State](7, 7): %v", err)
	}
	for _, size := range [][2]int{{7, 7}, {6, 6}, {2, 13}, {13, 2}, {5, 6}} {
		if err := CheckSize[State](size[0], size[1]); !errors.Is(err, ErrLarge) {
			t.Errorf("CheckSize[State](%d, %d): %v", size[0], size[1], err)
		}
		if err := CheckSize[LargeState](size[0], size[1]); err != nil {
			t.Errorf("CheckSize[LargeState](%d, %d): %v", size[0], size[1], err)
		}
	}
	for _, size := range [][2]int{{1, 5}, {9, 9}, {2, 33}, {2, 1 << 40}} {
		if err := CheckSize[LargeState](size[0], size[1]); err == nil || errors.Is(err, ErrLarge) || CheckSize[State](size[0], size[1]).Error() != err.Error() {
			t.Errorf("CheckSize(%d, %d): %v", size[0], size[1], err)
		}
	}
	p := mustParse[LargeState](t, "7x7: "+strings.Trim(fmt.Sprint(identity(49)), "[]"))[0]
	if !p.IsGoal(p.Root()) || p.Heuristic(p.Root()) != 0 || p.String() != strings.Trim(fmt.Sprint(identity(49)), "[]") {
		t.Errorf("7x7 goal: %s", p)
	}
}

func TestLargeGenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	if p := GenerateWalk[LargeState](rng, 7, 7, 0, 0); !p.IsGoal(p.Root()) {
		t.Error("a walk of length 0 does not end at the goal")
	}
	// The same seed gives the same walks and arrangements with both state
	// types.
	for _, size := range [][2]int{{3, 3}, {5, 5}} {
		r1, r2 := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
		for range 10 {
			if p, q := GenerateWalk[State](r1, size[0], size[1], 0, 30), GenerateWalk[LargeState](r2, size[0], size[1], 0, 30); p.String() != q.String() {
				t.Fatalf("walk %s, large %s", p, q)
			}
			if p, q := GenerateRandom[State](r1, size[0], size[1]), GenerateRandom[LargeState](r2, size[0], size[1]); p.String() != q.String() {
				t.Fatalf("random %s, large %s", p, q)
			}
		}
	}
}
