package scrambles

import (
	"context"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/phs-go/phs/domain/rubiks"
	"github.com/phs-go/phs/model"
)

// TestUnscramble replays the trajectory of random scrambles: each action
// leads from its state to the next, and the last to the solved cube.
func TestUnscramble(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		sc := rubiks.Scramble(rng, 1, 30)
		states, actions := cube().unscramble(sc)
		if len(states) != len(sc) || len(actions) != len(sc) {
			t.Fatalf("scramble of %d turns: %d states, %d actions", len(sc), len(states), len(actions))
		}
		s := rubiks.Solved()
		for _, a := range sc {
			s, _ = rubiks.Apply(s, a)
		}
		if states[0] != s {
			t.Fatalf("scramble %v: the trajectory starts at %v, not at the scrambled cube %v", sc, states[0], s)
		}
		for i, a := range actions {
			s, _ = rubiks.Apply(s, a)
			if i+1 < len(states) && s != states[i+1] {
				t.Fatalf("scramble %v: action %d leads to %v, not to state %d", sc, i, s, i+1)
			}
		}
		if s != rubiks.Solved() {
			t.Fatalf("scramble %v: the trajectory ends at %v, not solved", sc, s)
		}
	}
}

// TestRun trains a small fresh network on one-turn scrambles: its policy
// then puts the undoing turn first on each of the 12 one-turn cubes, and
// its heuristic rates them closer than two-turn cubes. Bad flags are
// errors.
func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "net")
	args := []string{"-out", out, "-units", "16", "-blocks", "1", "-min", "1", "-max", "2", "-n", "64", "-step", "8", "-lr", "3e-3", "-rounds", "150"}
	if err := Run(context.Background(), args, io.Discard); err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	var states []rubiks.State
	for a := range rubiks.NumActions {
		s, _ := rubiks.Apply(rubiks.Solved(), a)
		states = append(states, s)
	}
	s2, _ := rubiks.Apply(states[0], 2) // U then R
	states = append(states, s2)
	p, _ := rubiks.NewState(states[0], "")
	logPi := make([]float64, len(states)*rubiks.NumActions)
	h := make([]float64, len(states))
	if err := model.NewEvaluator[rubiks.State](m).Evaluate(p, states, logPi, h); err != nil {
		t.Fatal(err)
	}
	for a := range rubiks.NumActions {
		row := logPi[a*rubiks.NumActions : (a+1)*rubiks.NumActions]
		best := 0
		for b := range row {
			if row[b] > row[best] {
				best = b
			}
		}
		if best != a^1 {
			t.Errorf("after %s, the policy's first turn is %s, not %s", rubiks.ActionName(a), rubiks.ActionName(best), rubiks.ActionName(a^1))
		}
		if h[a] >= h[rubiks.NumActions] {
			t.Errorf("h after %s = %.3f, not below h after U R (%.3f)", rubiks.ActionName(a), h[a], h[rubiks.NumActions])
		}
	}

	if err := Run(context.Background(), []string{"-out", out, "-model", out, "-davi", "-greedy", "-sync", "2", "-n", "8", "-step", "4", "-rounds", "2"}, io.Discard); err != nil {
		t.Fatalf("-davi: %v", err)
	}
	if _, err := model.Load(out); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "want one of -out, -dir and -resume"},
		{[]string{"-out", out, "-min", "0"}, "-min 0"},
		{[]string{"-out", out, "-min", "5", "-max", "4"}, "-min 5 -max 4"},
		{[]string{"-out", out, "-n", "4", "-step", "8"}, "-n 4 -step 8"},
		{[]string{"-out", out, "-lr", "0"}, "-lr 0"},
		{[]string{"-out", out, "-rounds", "-1"}, "-rounds -1"},
		{[]string{"-out", out, "-threads", "0"}, "-threads 0"},
		{[]string{"-out", out, "-davi", "-sync", "0"}, "-sync 0"},
		{[]string{"-out", out, "-greedy"}, "-greedy needs -davi"},
		{[]string{"-out", out, "-davi", "-alg", "levints", "-units", "8", "-blocks", "1"}, "no heuristic head"},
		{[]string{"-out", out, "-model", filepath.Join(out, "none")}, "none"},
		{[]string{"-out", out, "-alg", "nope"}, "nope"},
		{[]string{"-out", out, "extra"}, "unexpected arguments"},
		{[]string{"-out", out, "-domain", "nope"}, `-domain "nope"`},
		{[]string{"-out", out, "-domain", "stp"}, "want ROWSxCOLS"},
		{[]string{"-out", out, "-domain", "stp", "-size", "1x9"}, "-size 1x9"},
		{[]string{"-out", out, "-domain", "stp", "-size", "3x3", "-units", "8"}, "-units and -blocks"},
		{[]string{"-out", out, "-size", "3x3"}, "-size 3x3 is for -domain stp"},
		{[]string{"-out", out, "-domain", "stp", "-size", "3x3", "-model", out}, "a network of rubiks, not stp"},
	} {
		err := Run(context.Background(), tc.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v; want an error with %q", tc.args, err, tc.want)
		}
	}
}

// TestBellman checks the targets of -davi against the target network's h
// of each child evaluated on its own: min over the legal moves of
// 1 + max(h, 0) (with -floor, 1 + max(h, 0, the child's lower bound), but
// the cube's with -short), 1 next to the goal and 0 at it; and the moves
// of -greedy: one of that minimum, the undoing move next to the goal. The
// sliding-tile puzzle's boards have illegal moves.
func TestBellman(t *testing.T) {
	pz, err := slidingTiles(3, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, floor := range []bool{false, true} {
		checkBellman(t, pz, floor)
		if !testing.Short() { // the cube's pattern databases take 3 s to build
			checkBellman(t, cube(), floor)
		}
	}
}

// checkBellman checks the targets of a trainer of pz with -floor or not,
// as TestBellman says, on a scramble of 12 moves, with a network whose h
// of the goal is positive, so that the goal's 0 makes a difference.
func checkBellman[S comparable](t *testing.T, pz *puzzle[S], floor bool) {
	var m *model.Model
	logPi, h := make([]float64, pz.actions), make([]float64, 1)
	for seed := uint64(1); m == nil; seed++ {
		net, err := network(pz, "", "gbfs", 16, 1, seed)
		if err != nil {
			t.Fatal(err)
		}
		if err := model.NewEvaluator[S](net).Evaluate(pz.problem, []S{pz.goal}, logPi, h); err != nil {
			t.Fatal(err)
		}
		if h[0] > 0.01 {
			m = net
		}
	}
	tr := newTrainer(pz, model.NewTrainer(m, model.TrainConfig{LearningRate: 1e-3}), Settings{Step: 1, Sync: 1, DAVI: true, Floor: floor})
	rng := rand.New(rand.NewPCG(3, 4))
	states, undo := pz.unscramble(pz.scramble(rng, 12, 12))
	states, undo = append(states, pz.goal), append(undo, 0)
	cost, turns := make([]float32, len(states)), slices.Clone(undo)
	if err := tr.bellman(states, cost, turns); err != nil {
		t.Fatal(err)
	}
	eval := model.NewEvaluator[S](m)
	for j, s := range states {
		want, to := math.Inf(1), make([]float64, pz.actions)
		for a := range pz.actions {
			c, ok := pz.apply(s, a)
			if !ok {
				to[a] = math.Inf(1)
				continue
			}
			if err := eval.Evaluate(pz.problem, []S{c}, logPi, h); err != nil {
				t.Fatal(err)
			}
			hc := max(h[0], 0)
			if floor {
				hc = max(hc, pz.problem.Heuristic(c))
			}
			if c == pz.goal {
				hc = 0
			}
			to[a] = 1 + hc
			want = min(want, to[a])
		}
		switch {
		case s == pz.goal:
			want = 0
			if turns[j] != undo[j] {
				t.Errorf("the goal's move changed from %d to %d", undo[j], turns[j])
			}
		case j == len(states)-2:
			if want != 1 {
				t.Fatalf("one move from the goal, the independent target is %g; want 1", want)
			}
			if turns[j] != undo[j] {
				t.Errorf("one move from the goal: move %d; want the undoing move %d", turns[j], undo[j])
			}
		default:
			if to[turns[j]] > want+1e-5 {
				t.Errorf("state %d: move %d to 1 + h = %g; want a move to the least, %g", j, turns[j], to[turns[j]], want)
			}
		}
		if math.Abs(float64(cost[j])-want) > 1e-5 {
			t.Errorf("state %d: target %g; want %g", j, cost[j], want)
		}
	}
}

// TestWalk checks the sliding-tile scrambles: lengths in range, legal
// moves, none undoing the one before, and their states undone back to the
// goal.
func TestWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, size := range [][2]int{{2, 2}, {2, 3}, {3, 3}, {6, 6}, {7, 7}} {
		pz, err := slidingTiles(size[0], size[1])
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			sc := pz.scramble(rng, 5, 40)
			if len(sc) < 5 || len(sc) > 40 {
				t.Fatalf("%v: a scramble of %d moves; want 5 to 40", size, len(sc))
			}
			s := pz.goal
			for i, a := range sc {
				var ok bool
				if s, ok = pz.apply(s, a); !ok {
					t.Fatalf("%v: scramble %v: move %d is illegal", size, sc, i)
				}
				if i > 0 && a == sc[i-1]^1 {
					t.Fatalf("%v: scramble %v: move %d undoes the one before", size, sc, i)
				}
			}
			states, actions := pz.unscramble(sc)
			if states[0] != s {
				t.Fatalf("%v: the trajectory starts elsewhere than the scrambled board", size)
			}
			for i, a := range actions {
				if s, _ = pz.apply(s, a); i+1 < len(states) && s != states[i+1] {
					t.Fatalf("%v: action %d leads elsewhere than state %d", size, i, i+1)
				}
			}
			if s != pz.goal {
				t.Fatalf("%v: the trajectory ends away from the goal", size)
			}
		}
	}
}

// TestCap checks -cap: each target is the least of value iteration's and
// of the moves left of its scramble, which binds on some: the network
// first learns the moves left of scrambles of 30 moves, too many next to
// the goal.
func TestCap(t *testing.T) {
	pz, err := slidingTiles(3, 3)
	if err != nil {
		t.Fatal(err)
	}
	m, err := network(pz, "", "wastar", 0, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 9))
	pre := newTrainer(pz, model.NewTrainer(m, model.TrainConfig{LearningRate: 1e-2}), Settings{Step: 1})
	for range 50 {
		if _, err := pre.step([][]int{pz.scramble(rng, 30, 30)}); err != nil {
			t.Fatal(err)
		}
	}
	sc := pz.scramble(rng, 20, 20)
	capped := newTrainer(pz, model.NewTrainer(m.Clone(), model.TrainConfig{LearningRate: 1e-3}), Settings{Step: 1, Sync: 1000, DAVI: true, Cap: true})
	if _, err := capped.step([][]int{sc}); err != nil {
		t.Fatal(err)
	}
	plain := newTrainer(pz, model.NewTrainer(m.Clone(), model.TrainConfig{LearningRate: 1e-3}), Settings{Step: 1, Sync: 1000, DAVI: true})
	states, _ := pz.unscramble(sc)
	cost := make([]float32, len(states))
	if err := plain.bellman(states, cost, nil); err != nil {
		t.Fatal(err)
	}
	binds := 0
	for j, got := range capped.samples[0].CostToGo {
		left := float32(len(states) - j)
		if want := min(cost[j], left); got != want {
			t.Errorf("state %d: target %g; want min(%g, %g)", j, got, cost[j], left)
		}
		if left < cost[j] {
			binds++
		}
	}
	if binds == 0 {
		t.Errorf("the cap binds on no state; the test tells nothing")
	}
}
