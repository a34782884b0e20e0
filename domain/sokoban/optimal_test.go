package sokoban

import (
	"errors"
	"strings"
	"testing"

	"github.com/phs-go/phs/search"
)

// bfsLength returns the fewest moves that solve p by a plain breadth-first
// search of p's states, without pruning or heuristic, or -1 if there is no
// solution.
func bfsLength(p *Problem) int {
	depth := map[State]int{p.Root(): 0}
	frontier := []State{p.Root()}
	for len(frontier) > 0 {
		var next []State
		for _, s := range frontier {
			if p.IsGoal(s) {
				return depth[s]
			}
			for a := range 4 {
				t, ok := p.Apply(s, a)
				if _, dup := depth[t]; !ok || dup {
					continue
				}
				depth[t] = depth[s] + 1
				next = append(next, t)
			}
		}
		frontier = next
	}
	return -1
}

// checkOptimal checks that r is a solution of p of want moves, with its
// pushes counted right.
func checkOptimal(t *testing.T, p *Problem, r OptimalResult, want int) {
	t.Helper()
	if err := search.Replay[State](p, r.Actions); err != nil {
		t.Fatalf("%s: replay: %v", p.ID, err)
	}
	if len(r.Actions) != want {
		t.Fatalf("%s: %d moves; want %d", p.ID, len(r.Actions), want)
	}
	s, pushes := p.Root(), 0
	for _, a := range r.Actions {
		u, _ := p.Apply(s, a)
		if u.boxes != s.boxes {
			pushes++
		}
		s = u
	}
	if r.Pushes != pushes {
		t.Errorf("%s: Pushes %d; the solution has %d", p.ID, r.Pushes, pushes)
	}
}

func TestOptimalSmall(t *testing.T) {
	for _, tc := range []struct {
		name, level string
		want        int // by hand; -1: no solution
	}{
		{"one push", "#####\n#@$.#\n#####", 1},
		{"walk then push", "######\n#@   #\n#  $.#\n######", 3},
		{"push around", "######\n#    #\n# $  #\n#@  .#\n######", 6},
		{"corner dead", "#####\n#$  #\n#  .#\n# @ #\n#####", -1},
		{"two boxes", "#######\n#.$@$.#\n#######", 3},
		{"two boxes apart", "#########\n#. $@$ .#\n#       #\n#########", 6},
		{"dead box", "#####\n#@*.#\n#  $#\n#####", -1},
		{"solved", "#####\n#@* #\n#  *#\n#####", 0},
		{"straight", "#######\n#  #  #\n#@$  .#\n#     #\n#######", 3},
		{"three", "########\n#      #\n# $$$  #\n# ...@ #\n#      #\n########", 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := Parse(strings.NewReader(tc.level), "small.txt")
			if err != nil {
				t.Fatal(err)
			}
			p := ps[0]
			want := bfsLength(p)
			if want != tc.want {
				t.Fatalf("BFS: %d moves; want %d", want, tc.want)
			}
			r, err := Optimal(p, 1<<20)
			if want < 0 {
				if !errors.Is(err, ErrNoSolution) {
					t.Fatalf("Optimal = %v, %v; want no solution", r.Actions, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkOptimal(t, p, r, want)
		})
	}
}

// TestOptimalPruning checks on real levels that the pruning of Optimal
// leaves the optimum as it is: the same length as A* without pruning.
func TestOptimalPruning(t *testing.T) {
	ps, err := ReadFile(boxobanExcerpt)
	if err != nil {
		t.Fatal(err)
	}
	n := 40
	if testing.Short() {
		n = 8
	}
	const limit = 1 << 21
	checked := 0
	for _, p := range ps[:n] {
		plain, err := optimal(p, limit)
		if errors.Is(err, ErrLimit) {
			continue // too big to check without pruning in a test
		}
		if err != nil {
			t.Fatal(err)
		}
		r, err := Optimal(p, limit)
		if err != nil {
			t.Fatal(err)
		}
		checkOptimal(t, p, r, len(plain.Actions))
		if r.States > plain.States {
			t.Errorf("%s: %d states with pruning, %d without", p.ID, r.States, plain.States)
		}
		t.Logf("%s: %d moves, %d pushes, %d states (%d unpruned)", p.ID, len(r.Actions), r.Pushes, r.States, plain.States)
		checked++
	}
	if checked < n/2 {
		t.Fatalf("checked %d levels of %d", checked, n)
	}
}

// TestOptimalBFS checks Optimal against a plain breadth-first search on
// real levels small enough for it.
func TestOptimalBFS(t *testing.T) {
	ps, err := ReadFile(boxobanExcerpt)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{14, 16, 28, 35} {
		p := ps[i]
		r, err := Optimal(p, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		checkOptimal(t, p, r, bfsLength(p))
	}
}

func TestOptimalLimit(t *testing.T) {
	ps, err := ReadFile(boxobanExcerpt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Optimal(ps[0], 100); !errors.Is(err, ErrLimit) {
		t.Fatalf("Optimal with a limit of 100 states: %v; want ErrLimit", err)
	}
}
