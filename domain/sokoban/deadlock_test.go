package sokoban

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/phs-go/phs/search/searchtest"
)

// deadPicture draws the dead squares of q: x on a dead square, # on a wall,
// a space elsewhere.
func deadPicture(q *Problem) string {
	var b strings.Builder
	for i := range q.rows * q.cols {
		if i > 0 && i%q.cols == 0 {
			b.WriteByte('\n')
		}
		switch {
		case has(q.walls, i):
			b.WriteByte('#')
		case q.reach[i] == [2]uint64{}:
			b.WriteByte('x')
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func TestDeadSquares(t *testing.T) {
	for _, tc := range []struct{ level, want string }{
		{
			// Along the bottom and right walls a box never leaves the
			// wall, and the goal is on neither; the corner cell above the
			// right wall column too.
			"#######\n" +
				"#.    #\n" +
				"#  $  #\n" +
				"#   @ #\n" +
				"#######",
			"#######\n" +
				"#    x#\n" +
				"#    x#\n" +
				"#xxxxx#\n" +
				"#######",
		},
		{
			// A goal on a wall: its row is live up to the corners.
			"#######\n" +
				"#   . #\n" +
				"# $   #\n" +
				"#  @  #\n" +
				"#######",
			"#######\n" +
				"#x   x#\n" +
				"#x   x#\n" +
				"#xxxxx#\n" +
				"#######",
		},
		{
			// A corridor: a box on its end cell cannot be pushed, the
			// player having no room behind it.
			"#@$ .#",
			"#x   #",
		},
	} {
		q := parse(t, tc.level)[0].PruneDeadlocks()
		if got := deadPicture(q); got != tc.want {
			t.Errorf("dead squares of\n%s\n\ngot\n%s\n\nwant\n%s", tc.level, got, tc.want)
		}
	}
}

func TestPruneDeadlocksApply(t *testing.T) {
	for _, tc := range []struct {
		name, level, moves string
		legal              bool // the last move, with pruning
	}{
		{"onto a live square", "#######\n#.    #\n#  $  #\n#  @  #\n#######", "LUR", true},
		{"onto a dead square", "#######\n#.    #\n#  $  #\n#  @  #\n#######", "LURR", false},
		{"against a wall without a goal", "######\n#   .#\n# $  #\n# @  #\n######", "RUL", false},
		{"along a wall to the goal", "#######\n#. $@ #\n#     #\n#######", "L", true},
		{"frozen pair off goals", "########\n#.  $ .#\n#  $   #\n#  @   #\n########", "U", false},
		{"frozen pair on goals", "#####\n#.* #\n#$  #\n#@  #\n#####", "U", true},
		{"two boxes, one goal along the wall", "#########\n#. $    #\n#     $ #\n#     @ #\n#.      #\n#########", "U", false},
		{"two boxes, two goals", "#########\n#.      #\n#  $  $ #\n#     @ #\n#.      #\n#########", "U", true},
		{"a walk is never refused", "#######\n#.    #\n#  $  #\n#  @  #\n#######", "LLR", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.level)[0]
			q := p.PruneDeadlocks()
			prefix, last := tc.moves[:len(tc.moves)-1], strings.IndexRune("UDLR", rune(tc.moves[len(tc.moves)-1]))
			s := mustPlay(t, q, prefix)
			if _, ok := p.Apply(s, last); !ok {
				t.Fatalf("%q illegal without pruning", tc.moves)
			}
			if _, ok := q.Apply(s, last); ok != tc.legal {
				t.Errorf("last move of %q legal = %v with pruning, want %v, on\n%s", tc.moves, ok, tc.legal, q.Render(s))
			}
		})
	}
}

// randomLevel returns a small random level: a walled rectangle with inner
// walls, 1 to 3 boxes and as many goals, and the player, in the format of
// Parse.
func randomLevel(r *rand.Rand) string {
	rows, cols := 4+r.IntN(3), 4+r.IntN(3)
	grid := make([][]byte, rows)
	var floor [][2]int
	for i := range grid {
		grid[i] = []byte(strings.Repeat("#", cols))
		for j := 1; i > 0 && i < rows-1 && j < cols-1; j++ {
			if r.IntN(6) > 0 {
				grid[i][j] = ' '
				floor = append(floor, [2]int{i, j})
			}
		}
	}
	boxes := 1 + r.IntN(3)
	if len(floor) < 2*boxes+1 {
		return ""
	}
	r.Shuffle(len(floor), func(i, j int) { floor[i], floor[j] = floor[j], floor[i] })
	for k, c := range floor[:2*boxes+1] {
		grid[c[0]][c[1]] = "@$."[min(k, 2-k%2)] // @, then $ and . in turn
	}
	lines := make([]string, rows)
	for i, l := range grid {
		lines[i] = string(l)
	}
	return strings.Join(lines, "\n")
}

// TestPruneDeadlocksSafe checks PruneDeadlocks against brute force on
// random small levels: the shortest solution is unchanged, and every push
// that the pruned level refuses leads to a state from which breadth-first
// search of the unpruned level finds no solution.
func TestPruneDeadlocksSafe(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	levels, refused, unmatched := 0, 0, 0
	for levels < 1000 {
		text := randomLevel(r)
		if text == "" {
			continue
		}
		levels++
		p := parse(t, text)[0]
		q := p.PruneDeadlocks()
		if a, b := searchtest.BFS[State](p), searchtest.BFS[State](q); a != b {
			t.Fatalf("shortest solution of\n%s\n%d moves, %d with pruning", text, a, b)
		}
		seen := map[State]bool{p.Root(): true}
		queue := []State{p.Root()}
		for len(queue) > 0 && len(seen) < 5000 {
			s := queue[0]
			queue = queue[1:]
			for a := range 4 {
				next, ok := p.Apply(s, a)
				if !ok {
					continue
				}
				if _, kept := q.Apply(s, a); !kept {
					refused++
					if !q.matched(next) && !onDeadSquare(q, next) {
						unmatched++
					}
					dead := p.Render(next)
					if n := searchtest.BFS[State](parse(t, dead)[0]); n >= 0 {
						t.Fatalf("refused push %s leads to\n%s\nwhich has a solution of %d moves", p.ActionName(a), dead, n)
					}
				}
				if !seen[next] {
					seen[next] = true
					queue = append(queue, next)
				}
			}
		}
	}
	t.Logf("%d levels, %d pushes refused, %d with too few goals and no box on a dead square", levels, refused, unmatched)
	if refused < 100 || unmatched < 10 {
		t.Errorf("only %d pushes refused in %d levels, %d with too few goals: the test checks little", refused, levels, unmatched)
	}
}

// onDeadSquare reports whether a box of s is on a dead square of q.
func onDeadSquare(q *Problem, s State) bool {
	for i := range q.rows * q.cols {
		if s.Box(i) && q.reach[i] == [2]uint64{} {
			return true
		}
	}
	return false
}

// TestMatched checks Problem.matched against every assignment of boxes
// to goals on random small levels and random placements of their boxes.
func TestMatched(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	counts := map[bool]int{}
	for counts[true] < 200 || counts[false] < 200 {
		text := randomLevel(r)
		if text == "" {
			continue
		}
		q := parse(t, text)[0].PruneDeadlocks()
		var floor []int
		for i := range q.rows * q.cols {
			if !has(q.walls, i) {
				floor = append(floor, i)
			}
		}
		n := q.onGoals(State{boxes: q.goals}) // the goals, as many as the boxes
		r.Shuffle(len(floor), func(i, j int) { floor[i], floor[j] = floor[j], floor[i] })
		var s State
		for _, c := range floor[:n] {
			setBit(&s.boxes, c)
		}
		want := assignable(q, floor[:n], make([]bool, n))
		if got := q.matched(s); got != want {
			t.Fatalf("matched = %v, want %v, for\n%s", got, want, q.Render(s))
		}
		counts[want]++
	}
}

// assignable reports whether boxes can each be given a goal of their own
// that they reach, among the goals not taken, trying every assignment.
func assignable(q *Problem, boxes []int, taken []bool) bool {
	if len(boxes) == 0 {
		return true
	}
	for k := range taken {
		if !taken[k] && has(q.reach[boxes[0]], k) {
			taken[k] = true
			ok := assignable(q, boxes[1:], taken)
			taken[k] = false
			if ok {
				return true
			}
		}
	}
	return false
}
