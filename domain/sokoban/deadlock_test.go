package sokoban

import (
	"math/bits"
	"math/rand/v2"
	"slices"
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
		bySubsets          bool // refused by the tables of sub-levels alone
	}{
		{"onto a live square", "#######\n#.    #\n#  $  #\n#  @  #\n#######", "LUR", true, false},
		{"onto a dead square", "#######\n#.    #\n#  $  #\n#  @  #\n#######", "LURR", false, false},
		{"against a wall without a goal", "######\n#   .#\n# $  #\n# @  #\n######", "RUL", false, false},
		{"along a wall to the goal", "#######\n#. $@ #\n#     #\n#######", "L", true, false},
		{"frozen pair off goals", "########\n#.  $ .#\n#  $   #\n#  @   #\n########", "U", false, false},
		{"frozen pair on goals", "#####\n#.* #\n#$  #\n#@  #\n#####", "U", true, false},
		{"two boxes, one goal along the wall", "#########\n#. $    #\n#     $ #\n#     @ #\n#.      #\n#########", "U", false, false},
		{"two boxes, two goals", "#########\n#.      #\n#  $  $ #\n#     @ #\n#.      #\n#########", "U", true, false},
		{"a walk is never refused", "#######\n#.    #\n#  $  #\n#  @  #\n#######", "LLR", true, false},
		// The box pushed up can go left onto the goal only from the
		// cell right of it, which only it gives onto.
		{"a box the player can no longer get behind", "#####\n#.  #\n# $##\n#$@ #\n#.  #\n#####", "U", false, true},
		// The box pushed left can leave the wall only upwards, from the
		// cell of the box below it, which can only go left, onto the
		// goal: the first box is then stuck at the top.
		{"two boxes in each other's way", "######\n## . #\n#    #\n## $@#\n#.$ *#\n######", "L", false, true},
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
			without := *q
			without.subsets = nil
			if _, ok := without.Apply(s, last); ok != tc.bySubsets && !tc.legal {
				t.Errorf("last move of %q legal = %v without the sub-levels, want %v", tc.moves, ok, tc.bySubsets)
			}
		})
	}
}

// randomLevel returns a small random level: a walled rectangle with inner
// walls, 1 to maxBoxes boxes and as many goals, and the player, in the
// format of Parse.
func randomLevel(r *rand.Rand, maxBoxes int) string {
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
	boxes := 1 + r.IntN(maxBoxes)
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
// search of the unpruned level finds no solution. On 1000 levels, 400 with
// -short.
func TestPruneDeadlocksSafe(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 1000
	if testing.Short() {
		n = 400
	}
	levels, refused, unmatched, bySubsets := 0, 0, 0, 0
	for levels < n {
		text := randomLevel(r, 3)
		if text == "" {
			continue
		}
		levels++
		p := parse(t, text)[0]
		q := p.PruneDeadlocks()
		without := *q
		without.subsets = nil
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
					if _, ok := without.Apply(s, a); ok {
						bySubsets++
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
	t.Logf("%d levels, %d pushes refused, %d with too few goals and no box on a dead square, %d by the sub-levels alone", levels, refused, unmatched, bySubsets)
	if refused < 100 || unmatched < 10 || bySubsets < 10 {
		t.Errorf("only %d pushes refused in %d levels, %d with too few goals, %d by the sub-levels alone: the test checks little", refused, levels, unmatched, bySubsets)
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
		text := randomLevel(r, 3)
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

// TestSolvableSubsets checks the tables of sub-levels against breadth-first
// search on random small levels: for every placement of k boxes on live
// cells and of the player on a free cell, the table says solvable exactly
// when forward search from there, the other boxes gone, brings the k boxes
// onto goals. k goes up to the level's boxes, past what PruneDeadlocks
// builds. On 150 levels, 50 with -short.
func TestSolvableSubsets(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n := 150
	if testing.Short() {
		n = 50
	}
	counts := map[bool]int{}
	for levels := 0; levels < n; {
		text := randomLevel(r, 3)
		if text == "" {
			continue
		}
		levels++
		q := parse(t, text)[0].PruneDeadlocks()
		cells := q.rows * q.cols
		for k := 1; k <= min(maxSubset, q.onGoals(State{boxes: q.goals})); k++ {
			table := q.solvableSubsets(k)
			if table == nil {
				t.Fatalf("no table of %d boxes for\n%s", k, text)
			}
			var box [maxSubset]uint8
			var place func(i int, from uint8)
			place = func(i int, from uint8) {
				if i == k {
					for c := range cells {
						var s State
						for _, b := range box[:k] {
							setBit(&s.boxes, int(q.liveCells[b]))
						}
						if has(q.walls, c) || has(s.boxes, c) {
							continue
						}
						s.player = uint8(c)
						want := subSolvedBFS(q, s)
						if got := hasIndex(table, subIndex(box[:k], s.player, cells)); got != want {
							t.Fatalf("table of %d boxes says solvable = %v, search %v, for\n%s", k, got, want, q.Render(s))
						}
						counts[want]++
					}
					return
				}
				for b := from; int(b) < len(q.liveCells); b++ {
					box[i] = b
					place(i+1, b+1)
				}
			}
			place(0, 0)
		}
	}
	t.Logf("placements: %d solvable, %d not", counts[true], counts[false])
	if counts[false] < 1000 {
		t.Errorf("only %d unsolvable placements: the test checks little", counts[false])
	}
}

// subSolvedBFS reports whether breadth-first search from s, on q without
// its pruning, reaches a state with every box on a goal; s may have fewer
// boxes than q has goals.
func subSolvedBFS(q *Problem, s State) bool {
	p := *q
	p.prune = false
	seen := map[State]bool{s: true}
	for queue := []State{s}; len(queue) > 0; queue = queue[1:] {
		x := queue[0]
		if x.boxes[0]&^p.goals[0] == 0 && x.boxes[1]&^p.goals[1] == 0 {
			return true
		}
		for a := range 4 {
			if y, ok := p.Apply(x, a); ok && !seen[y] {
				seen[y] = true
				queue = append(queue, y)
			}
		}
	}
	return false
}

// TestSubsetDeadlocked checks the lookups of Problem.subsetDeadlocked
// against breadth-first search of the sub-levels on random placements of
// up to 4 boxes in random small levels: a push of a box onto cell b is
// refused exactly when some set of at most maxSubset boxes, b among them
// and fewer than all, cannot be brought onto goals alone. Until 300
// placements of 4 boxes are refused and 300 not, 100 with -short.
func TestSubsetDeadlocked(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	n := 300
	if testing.Short() {
		n = 100
	}
	counts := map[bool]int{}
	for counts[true] < n || counts[false] < n {
		text := randomLevel(r, 4)
		if text == "" {
			continue
		}
		q := parse(t, text)[0].PruneDeadlocks()
		n := q.onGoals(State{boxes: q.goals})
		if len(q.liveCells) < n+1 {
			continue
		}
		// n boxes on live cells, the player on a free cell.
		live := slices.Clone(q.liveCells)
		r.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
		var s State
		for _, c := range live[:n] {
			setBit(&s.boxes, int(c))
		}
		player := r.IntN(q.rows * q.cols)
		if has(q.walls, player) || has(s.boxes, player) {
			continue
		}
		s.player = uint8(player)
		b := int(live[0])
		want := false
		for set := 1; set < 1<<n; set++ {
			// The subsets of the boxes live[:n] that hold live[0].
			if set&1 == 0 || bits.OnesCount(uint(set)) > min(maxSubset, n-1) {
				continue
			}
			sub := s
			sub.boxes = [2]uint64{}
			for i := range n {
				if set&(1<<i) != 0 {
					setBit(&sub.boxes, int(live[i]))
				}
			}
			if !subSolvedBFS(q, sub) {
				want = true
			}
		}
		if got := q.subsetDeadlocked(s, player, b); got != want {
			t.Fatalf("subsetDeadlocked = %v, want %v, for the box on cell %d of\n%s", got, want, b, q.Render(s))
		}
		if n == 4 {
			counts[want]++
		}
	}
}

// TestPruneDeadlocksLarge checks a level too large for the table of three
// boxes: PruneDeadlocks goes without it, keeps the smaller ones, and the
// shortest solution is unchanged.
func TestPruneDeadlocksLarge(t *testing.T) {
	// 8 rows of 16 cells, walls around: 48 live cells, 2,213,888
	// placements of three boxes. Four boxes each right of its goal, the
	// player below them.
	rows := make([]string, 8)
	for i := range rows {
		rows[i] = "#" + strings.Repeat(" ", 14) + "#"
	}
	rows[0], rows[7] = strings.Repeat("#", 16), strings.Repeat("#", 16)
	rows[3] = "#  .$ .$ .$ .$ #"
	rows[4] = "#           @  #"
	p := parse(t, strings.Join(rows, "\n"))[0]
	q := p.PruneDeadlocks()
	if len(q.subsets) != 3 {
		t.Fatalf("%d tables, want 3", len(q.subsets))
	}
	if q.subsets[0] == nil || q.subsets[1] == nil || q.subsets[2] != nil {
		t.Fatalf("tables of 1, 2 and 3 boxes built: %v %v %v; want the first two", q.subsets[0] != nil, q.subsets[1] != nil, q.subsets[2] != nil)
	}
	if a, b := searchtest.BFS[State](p), searchtest.BFS[State](q); a != b || a < 0 {
		t.Errorf("shortest solution %d moves, %d with pruning", a, b)
	}
}
