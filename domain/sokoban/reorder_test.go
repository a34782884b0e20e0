package sokoban

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// twoRows has a box to push two cells right on each of two rows.
const twoRows = `
######
#@$ .#
#    #
# $ .#
######
`

func TestReorderSmall(t *testing.T) {
	for _, tc := range []struct {
		name, level, solution string
		want                  int
	}{
		// The boxes pushed in turns, one cell at a time: both runs of
		// the top box, then both of the bottom one.
		{"turns", twoRows, "RLDDRUURLDDR", 8},
		// Already the best order, with a detour in a walk.
		{"detour", twoRows, "RRDLLRLDRR", 8},
		{"best", twoRows, "RRDLLDRR", 8},
		// The bottom box first costs two moves more.
		{"bottom first", twoRows, "DDRRULLURR", 8},
		{"one box", "#@ $ .#", "RRR", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseOne(t, tc.level)
			actions, err := search.ParseActions[State](p, tc.solution)
			if err != nil {
				t.Fatal(err)
			}
			got, n, err := p.Reorder(actions, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if err := search.Replay[State](p, got); err != nil {
				t.Fatalf("%s does not replay: %v", search.FormatActions[State](p, got), err)
			}
			if len(got) != tc.want {
				t.Errorf("%s: %d moves; want %d", search.FormatActions[State](p, got), len(got), tc.want)
			}
			if n > 1000 {
				t.Errorf("%d expansions, more than the limit", n)
			}
		})
	}
}

// parseOne parses a level of one problem.
func parseOne(t *testing.T, level string) *Problem {
	t.Helper()
	ps, err := Parse(strings.NewReader(level), "test.txt")
	if err != nil {
		t.Fatal(err)
	}
	return ps[0]
}

func TestReorderErrors(t *testing.T) {
	p := parseOne(t, twoRows)
	for _, tc := range []struct{ solution, want string }{
		{"U", "move 1 of the solution (U) is illegal"},
		{"RR", "the 2 moves do not solve the level"},
		{"", "the 0 moves do not solve the level"},
	} {
		actions, err := search.ParseActions[State](p, tc.solution)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = p.Reorder(actions, 10)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p.ID) {
			t.Errorf("%q: error %v; want one with %q and the level's ID", tc.solution, err, tc.want)
		}
	}
}

// TestReorderManyBoxes checks that a level of more than MaxReorderBoxes
// boxes gets its solution back as it is, with no expansion, and that its
// moves are still checked.
func TestReorderManyBoxes(t *testing.T) {
	p := parseOne(t, `
######################
#@$.*****************#
#                    #
######################
`)
	for _, tc := range []struct {
		solution string
		err      bool
	}{{"DUR", false}, {"U", true}, {"DU", true}} {
		actions, err := search.ParseActions[State](p, tc.solution)
		if err != nil {
			t.Fatal(err)
		}
		got, n, err := p.Reorder(actions, 100)
		if tc.err {
			if err == nil {
				t.Errorf("%s: no error", tc.solution)
			}
			continue
		}
		if err != nil || n != 0 || !slices.Equal(got, actions) {
			t.Errorf("%s: %v, %d expansions, %v; want the solution as it is", tc.solution, got, n, err)
		}
	}
}

// TestReorderBruteForce compares Reorder, on the long solutions GBFS finds
// for Boxoban levels, with a breadth-first search of every interleaving of
// the same runs move by move, and checks the limit.
func TestReorderBruteForce(t *testing.T) {
	ps, err := ReadFile("testdata/boxoban-test-000-first40.txt")
	if err != nil {
		t.Fatal(err)
	}
	shorter := 0
	for _, p := range ps[:12] {
		p := p.PruneDeadlocks()
		r, err := searchtest.Solve[State](context.Background(), p, search.DomainHeuristic[State]{}, search.GBFS(), search.Options{Budget: 50000})
		if err != nil || !r.Solved {
			t.Fatalf("%s: GBFS: %v, solved %v", p.ID, err, r.Solved)
		}
		got, n, err := p.Reorder(r.Actions, 1_000_000)
		if err != nil {
			t.Fatal(err)
		}
		if err := search.Replay[State](p, got); err != nil {
			t.Fatalf("%s: %v", p.ID, err)
		}
		want := interleavings(t, p, r.Actions)
		if len(got) != want {
			t.Errorf("%s: %d moves, %d expansions, from %d; the best interleaving has %d", p.ID, len(got), n, len(r.Actions), want)
		}
		if len(got) < len(r.Actions) {
			shorter++
		}
		// With too small a limit, the solution comes back as it was.
		if n > 1 {
			same, m, err := p.Reorder(r.Actions, n-1)
			if err != nil || m != n-1 || len(same) != len(r.Actions) {
				t.Errorf("%s: limit %d: %d moves, %d expansions, %v; want %d moves", p.ID, n-1, len(same), m, err, len(r.Actions))
			}
		}
	}
	if shorter == 0 {
		t.Errorf("no solution of GBFS was shortened")
	}
}

// interleavings returns the length of a shortest solution of p that makes
// the runs of pushes of actions in any order that keeps the order of the
// runs of each box, each run without a break, and may leave out the runs
// between two times a box is on the same cell: a breadth-first search of
// single moves (leaving out runs costs none) over the state, the runs of
// each box done and the pushes left of the run under way.
func interleavings(t *testing.T, p *Problem, actions []int) int {
	t.Helper()
	// The pushes, each box named by its cell at the start.
	type push struct{ box, dir int }
	var pushes []push
	at := map[int]int{}
	for i := range MaxCells {
		if p.start.Box(i) {
			at[i] = i
		}
	}
	starts := maps.Clone(at)
	s := p.Root()
	for _, a := range actions {
		u, _ := p.Apply(s, a)
		if c := u.Player(); s.Box(c) {
			b := at[c]
			delete(at, c)
			at[int(p.next[4*c+a])] = b
			pushes = append(pushes, push{b, a})
		}
		s = u
	}
	// The runs: the pushes of a box in one direction, one after the
	// other, split where the box is on a cell it is on at another time.
	type runOf struct{ dir, count int }
	runs := map[int][]runOf{}
	cellsAfter := map[int][]int{} // the cell of each box after each of its runs
	visits := map[[2]int]int{}    // how many times a box is on a cell
	cell := maps.Clone(starts)    // the cell of each box
	for b := range starts {
		cellsAfter[b] = []int{b}
		visits[[2]int{b, b}]++
	}
	for _, q := range pushes {
		cell[q.box] = int(p.next[4*cell[q.box]+q.dir])
		visits[[2]int{q.box, cell[q.box]}]++
	}
	for i, q := range pushes {
		cs := cellsAfter[q.box]
		from := cs[len(cs)-1]
		to := int(p.next[4*from+q.dir])
		if i > 0 && pushes[i-1] == q && visits[[2]int{q.box, from}] == 1 {
			rs := runs[q.box]
			rs[len(rs)-1].count++
			cs[len(cs)-1] = to
			continue
		}
		runs[q.box] = append(runs[q.box], runOf{q.dir, 1})
		cellsAfter[q.box] = append(cs, to)
	}
	type node struct {
		s     State
		cells string // the cell of each box, by its start cell
		done  string // the runs done of each box, by its start cell
		run   int    // the box of the run under way, or -1
		left  int    // its pushes left
	}
	allDone := func(n node) bool {
		for b, rs := range runs {
			if int(n.done[b]) != len(rs) {
				return false
			}
		}
		return true
	}
	cells := make([]byte, MaxCells)
	for b := range starts {
		cells[b] = byte(b)
	}
	root := node{s: p.Root(), cells: string(cells), done: string(make([]byte, MaxCells)), run: -1}
	// depth: of the nodes seen. A node first seen one move deeper may be
	// reached by leaving runs out at the depth of the frontier; it is
	// then taken at once, and once more, to no effect, later.
	depthOf := map[node]int{root: 0}
	frontier := []node{root}
	for depth := 0; len(frontier) > 0; depth++ {
		var next []node
		for i := 0; i < len(frontier); i++ {
			n := frontier[i]
			if n.run < 0 && allDone(n) {
				if !p.IsGoal(n.s) {
					t.Fatalf("%s: the runs done, the level is not solved", p.ID)
				}
				return depth
			}
			if n.run < 0 {
				// Leave runs out, at no cost.
				for b, cs := range cellsAfter {
					for j := int(n.done[b]) + 2; j < len(cs); j++ {
						if cs[j] != cs[n.done[b]] {
							continue
						}
						d := []byte(n.done)
						d[b] = byte(j)
						m := n
						m.done = string(d)
						if d, ok := depthOf[m]; !ok || d > depth {
							depthOf[m] = depth
							frontier = append(frontier, m)
						}
					}
				}
			}
			for a := range 4 {
				u, ok := p.Apply(n.s, a)
				if !ok {
					continue
				}
				m := n
				m.s = u
				if c := u.Player(); n.s.Box(c) {
					b := strings.IndexByte(n.cells, byte(c))
					rs := runs[b]
					i := int(n.done[b])
					switch {
					case n.run >= 0 && n.run != b, i == len(rs), rs[i].dir != a:
						continue
					case n.run < 0:
						m.run, m.left = b, rs[i].count
					}
					cs := []byte(m.cells)
					cs[b] = p.next[4*c+a]
					m.cells = string(cs)
					m.left--
					if m.left == 0 {
						d := []byte(m.done)
						d[b]++
						m.done, m.run = string(d), -1
					}
				} else if n.run >= 0 {
					continue
				}
				if _, ok := depthOf[m]; !ok {
					depthOf[m] = depth + 1
					next = append(next, m)
				}
			}
		}
		frontier = next
	}
	t.Fatalf("%s: no interleaving solves the level", p.ID)
	return 0
}

// FuzzReorder checks that whatever Reorder returns for a sequence of moves
// that solves a level replays and is no longer, and that it refuses the
// others with an error that names the level.
func FuzzReorder(f *testing.F) {
	for _, s := range []string{"RLDDRUURLDDR", "RRDLLDRR", "DDRRULLURR", "RRR", "", "UDLR"} {
		f.Add(s)
	}
	p, err := Parse(strings.NewReader(twoRows), "fuzz.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var actions []int
		for _, c := range in {
			if a := strings.IndexRune("UDLR", c); a >= 0 {
				actions = append(actions, a)
			}
		}
		got, n, err := p[0].Reorder(actions, 100)
		if err != nil {
			if search.Replay[State](p[0], actions) == nil || !strings.Contains(err.Error(), p[0].ID) {
				t.Fatalf("%q: %v", in, err)
			}
			return
		}
		if err := search.Replay[State](p[0], got); err != nil || len(got) > len(actions) || n > 100 {
			t.Fatalf("%q: %d moves, %d expansions, replay: %v", in, len(got), n, err)
		}
	})
}

func BenchmarkReorder(b *testing.B) {
	ps, err := ReadFile("testdata/boxoban-test-000-first40.txt")
	if err != nil {
		b.Fatal(err)
	}
	var solutions [][]int
	for _, p := range ps[:10] {
		r, err := searchtest.Solve[State](context.Background(), p, search.DomainHeuristic[State]{}, search.GBFS(), search.Options{Budget: 50000})
		if err != nil || !r.Solved {
			b.Fatalf("%s: GBFS: %v", p.ID, err)
		}
		solutions = append(solutions, r.Actions)
	}
	b.ReportAllocs()
	expansions := 0
	for b.Loop() {
		for i, s := range solutions {
			_, n, err := ps[i].Reorder(s, 1_000_000)
			if err != nil {
				b.Fatal(err)
			}
			expansions += n
		}
	}
	b.ReportMetric(float64(expansions)/float64(b.N), "expansions/op")
}
