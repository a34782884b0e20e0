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
		states, actions := unscramble(sc)
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
	} {
		err := Run(context.Background(), tc.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v; want an error with %q", tc.args, err, tc.want)
		}
	}
}

// TestBellman checks the targets of -davi against the target network's h
// of each child evaluated on its own: min over the turns of 1 + max(h, 0)
// (with -floor, 1 + max(h, 0, the child's rubiks.Problem.Heuristic), but
// with -short), 1 next to the solved cube and 0 at it; and the turns of
// -greedy: one of that minimum, the undoing turn next to the solved cube.
func TestBellman(t *testing.T) {
	// A network whose h of the solved cube is positive, so that the
	// solved child's 0 makes a difference.
	var m *model.Model
	logPi, h := make([]float64, rubiks.NumActions), make([]float64, 1)
	for seed := uint64(1); m == nil; seed++ {
		net, err := network("", "gbfs", 16, 1, seed)
		if err != nil {
			t.Fatal(err)
		}
		solved, _ := rubiks.NewState(rubiks.Solved(), "")
		if err := model.NewEvaluator[rubiks.State](net).Evaluate(solved, []rubiks.State{rubiks.Solved()}, logPi, h); err != nil {
			t.Fatal(err)
		}
		if h[0] > 0.01 {
			m = net
		}
	}
	for _, floor := range []bool{false, true} {
		if floor && testing.Short() {
			continue // the floor's pattern database takes 3 s to build
		}
		checkBellman(t, m, floor)
	}
}

// checkBellman checks the targets of a trainer of m with -floor or not,
// as TestBellman says.
func checkBellman(t *testing.T, m *model.Model, floor bool) {
	logPi, h := make([]float64, rubiks.NumActions), make([]float64, 1)
	tr := newTrainer(model.NewTrainer(m, model.TrainConfig{LearningRate: 1e-3}), 1, 1, true, false, floor)
	rng := rand.New(rand.NewPCG(3, 4))
	states, undo := unscramble(rubiks.Scramble(rng, 12, 12))
	states, undo = append(states, rubiks.Solved()), append(undo, 0)
	cost, turns := make([]float32, len(states)), slices.Clone(undo)
	if err := tr.bellman(states, cost, turns); err != nil {
		t.Fatal(err)
	}
	eval := model.NewEvaluator[rubiks.State](m)
	for j, s := range states {
		want, to := math.Inf(1), make([]float64, rubiks.NumActions)
		for a := range rubiks.NumActions {
			c, _ := rubiks.Apply(s, a)
			if err := eval.Evaluate(tr.cube, []rubiks.State{c}, logPi, h); err != nil {
				t.Fatal(err)
			}
			hc := max(h[0], 0)
			if floor {
				hc = max(hc, tr.cube.Heuristic(c))
			}
			if c == rubiks.Solved() {
				hc = 0
			}
			to[a] = 1 + hc
			want = min(want, to[a])
		}
		switch {
		case s == rubiks.Solved():
			want = 0
			if turns[j] != undo[j] {
				t.Errorf("the solved cube's turn changed from %d to %d", undo[j], turns[j])
			}
		case j == len(states)-2:
			if want != 1 {
				t.Fatalf("one turn from the goal, the independent target is %g; want 1", want)
			}
			if turns[j] != undo[j] {
				t.Errorf("one turn from the goal: turn %d; want the undoing turn %d", turns[j], undo[j])
			}
		default:
			if to[turns[j]] > want+1e-5 {
				t.Errorf("state %d: turn %d to 1 + h = %g; want a turn to the least, %g", j, turns[j], to[turns[j]], want)
			}
		}
		if math.Abs(float64(cost[j])-want) > 1e-5 {
			t.Errorf("state %d: target %g; want %g", j, cost[j], want)
		}
	}
}
