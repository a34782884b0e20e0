package sokoban

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/phs-go/phs/internal/datasets/datasetstest"
	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

var (
	_ search.Heuristic[State] = (*Problem)(nil)
	_ search.Encoder[State]   = (*Problem)(nil)
)

// boxobanTest returns the Boxoban test set, which is not in the
// repository: tests and benchmarks that need it skip unless PHS_DATA names
// a data directory (see package datasetstest).
func boxobanTest(tb testing.TB) string {
	return datasetstest.Path(tb, "boxoban/unfiltered/test/000.txt")
}

// boxobanExcerpt is the start of the Boxoban test set, its first 40 levels
// verbatim, kept in the repository: see testdata/README.
const boxobanExcerpt = "testdata/boxoban-test-000-first40.txt"

func parse(t testing.TB, s string) []*Problem {
	t.Helper()
	ps, err := Parse(strings.NewReader(s), "l.txt")
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// play applies moves, letters of "UDLR", from the root of p and returns the
// state reached and the number of moves applied before an illegal one.
func play(p *Problem, moves string) (State, int) {
	s := p.Root()
	for i, m := range moves {
		t, ok := p.Apply(s, strings.IndexRune("UDLR", m))
		if !ok {
			return s, i
		}
		s = t
	}
	return s, len(moves)
}

func TestApply(t *testing.T) {
	for _, tc := range []struct {
		name, level, moves string
		// want is the board after the moves, or "" if the last is illegal.
		want string
		goal bool
	}{
		{"step", "#@ $.#", "R", "# @$.#", false},
		{"into a wall", "#@ $.#", "L", "", false},
		{"off the grid", "@ $.", "L", "", false},
		{"push onto floor", "#@$ .#", "R", "# @$.#", false},
		{"push onto goal", "#@$.#", "R", "# @*#", true},
		{"two pushes", "#@$ .#", "RR", "#  @*#", true},
		{"push off a goal", "#@* $.#", "R", "# +$$.#", false},
		{"push into a wall", "#@$#.#", "R", "", false},
		{"push into a box", "#@$$..#", "R", "", false},
		{"push off the grid", ".@$", "R", "", false},
		{"onto a goal", "#####\n#.@ #\n# $ #\n#   #\n#####", "L", "#####\n#+  #\n# $ #\n#   #\n#####", false},
		{"off a goal", "#+$ #", "R", "#.@$#", false},
		{"back onto a goal", "#+$ #", "RL", "#+ $#", false},
		{"push up", "#####\n# . #\n# $ #\n# @ #\n#####", "U", "#####\n# * #\n# @ #\n#   #\n#####", true},
		{"push down", "#####\n# @ #\n# $ #\n# . #\n#####", "D", "#####\n#   #\n# @ #\n# * #\n#####", true},
		{"push left", "#.$@#", "L", "#*@ #", true},
		{"push up into a wall", "#####\n# $ #\n# @.#\n#####", "U", "", false},
		{"push down off the grid", "#.#\n#@#\n#$#", "D", "", false},
		{"walk around and push", "######\n#    #\n#@$ .#\n######", "URRDL", "######\n#    #\n#$@ .#\n######", false},
		{"step, push into a box", "#######\n#@ $$.#\n#    .#\n#######", "RR", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.level)[0]
			s, n := play(p, tc.moves)
			if tc.want == "" {
				if n != len(tc.moves)-1 {
					t.Fatalf("%d of %q legal; want all but the last", n, tc.moves)
				}
				if got := p.Render(s); got != p.Render(mustPlay(t, p, tc.moves[:n])) {
					t.Fatalf("state changed by an illegal move:\n%s", got)
				}
				return
			}
			if n != len(tc.moves) {
				t.Fatalf("move %d of %q illegal", n, tc.moves)
			}
			if got := p.Render(s); got != tc.want {
				t.Errorf("board after %q:\n%s\nwant\n%s", tc.moves, got, tc.want)
			}
			if got := p.IsGoal(s); got != tc.goal {
				t.Errorf("IsGoal = %v, want %v", got, tc.goal)
			}
		})
	}
}

// TestRerootWeight checks the domain's rerooting weights: 1 for a state
// reached by pushing a box onto a goal, 0 otherwise, a box pushed off a
// goal or from a goal onto another included.
func TestRerootWeight(t *testing.T) {
	var _ search.Rerooting[State] = (*Problem)(nil)
	for _, tc := range []struct {
		name, level, before, move string
		want                      float64
	}{
		{"push onto a goal", "#.$@ #", "", "L", 1},
		{"push toward a goal", "#. $@#", "", "L", 0},
		{"walk", "#.$ @#", "", "L", 0},
		{"push off a goal", "#  *@#", "", "L", 0},
		{"from goal to goal", "######\n#.*@ #\n#$   #\n######", "", "L", 0},
		{"second box onto a goal", "######\n#.$@ #\n#.$  #\n######", "LRD", "L", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.level)[0]
			parent := mustPlay(t, p, tc.before)
			s := mustPlay(t, p, tc.before+tc.move)
			if got := p.RerootWeight(parent, s); got != tc.want {
				t.Errorf("RerootWeight after %q then %q = %g; want %g\n%s", tc.before, tc.move, got, tc.want, p.Render(s))
			}
		})
	}
}

func mustPlay(t *testing.T, p *Problem, moves string) State {
	t.Helper()
	s, n := play(p, moves)
	if n != len(moves) {
		t.Fatalf("move %d of %q illegal", n, moves)
	}
	return s
}

func TestApplyActionRange(t *testing.T) {
	p := parse(t, "#####\n# . #\n#.@$#\n# $ #\n#####")[0]
	for _, a := range []int{-1, 4, 1 << 40} {
		if _, ok := p.Apply(p.Root(), a); ok {
			t.Errorf("action %d legal", a)
		}
	}
	if p.NumActions() != 4 {
		t.Errorf("NumActions = %d", p.NumActions())
	}
	// From the root: up onto a goal, down a push into the wall, left onto a
	// goal, right a push into the wall.
	for a, want := range []bool{Up: true, Down: false, Left: true, Right: false} {
		if _, ok := p.Apply(p.Root(), a); ok != want {
			t.Errorf("action %d legal %v, want %v", a, ok, want)
		}
	}
}

// level7 is a small level, once level "; 7" of testdata/levels.txt, and
// sol7 a shortest solution of it, found by hand.
const (
	level7 = "#######\n#+    #\n# *$  #\n#  $ .#\n#######"
	sol7   = "DDRRRLURULL"
)

func TestReplay(t *testing.T) {
	p := parse(t, level7)[0]
	var actions []int
	for i, m := range sol7 {
		s := mustPlay(t, p, sol7[:i])
		if p.IsGoal(s) {
			t.Fatalf("goal after %d moves", i)
		}
		actions = append(actions, strings.IndexRune("UDLR", m))
	}
	if err := search.Replay[State](p, actions); err != nil {
		t.Fatal(err)
	}
	want := "#######\n#*@   #\n# *   #\n#    *#\n#######"
	if got := p.Render(mustPlay(t, p, sol7)); got != want {
		t.Errorf("goal board:\n%s\nwant\n%s", got, want)
	}
}

func TestOptimalLength(t *testing.T) {
	for _, tc := range []struct {
		level string
		want  int
	}{
		{"#@$.#", 1},
		{"#@$ .#", 2},
		{"#@*#", 0},
		// Two pushes of each box, and the player's walk to the left of the
		// lower box, two moves, before the four pushes and the walk above
		// the upper one, two moves.
		{"#######\n#. $  #\n#  @  #\n#  $ .#\n#######", 8},
		{level7, len(sol7)},
		// The box is stuck in a corner.
		{"#####\n#@ $#\n#.  #\n#####", -1},
	} {
		p := parse(t, tc.level)[0]
		if got := searchtest.BFS[State](p); got != tc.want {
			t.Errorf("shortest solution of\n%s\n%d moves, want %d", tc.level, got, tc.want)
		}
	}
}

func TestHeuristic(t *testing.T) {
	for _, tc := range []struct {
		level, moves string
		want         float64
	}{
		{"#@$.#", "", 1},
		{"#@$.#", "R", 0},
		{"#@$ .#", "", 2},
		{"#@*#", "", 0},
		// Walls do not count, and two boxes may share their nearest goal.
		{"######\n#$#..#\n#@$  #\n######", "", 2 + 2},
		{"#######\n#. $  #\n#  @  #\n#  $ .#\n#######", "", 2 + 2},
		{"#######\n#. $  #\n#  @  #\n#  $ .#\n#######", "LDR", 2 + 1},
		{level7, "", 0 + 1 + 2},
	} {
		p := parse(t, tc.level)[0]
		if got := p.Heuristic(mustPlay(t, p, tc.moves)); got != tc.want {
			t.Errorf("h after %q in\n%s\n= %g, want %g", tc.moves, tc.level, got, tc.want)
		}
	}
}

// planes draws the planes of an encoding: '#' for 1, '.' for 0.
func planes(t *testing.T, enc []float32, h, w int) []string {
	t.Helper()
	var out []string
	for pl := range len(enc) / (h * w) {
		var b strings.Builder
		for i := range h * w {
			if i > 0 && i%w == 0 {
				b.WriteByte('\n')
			}
			switch v := enc[pl*h*w+i]; v {
			case 1:
				b.WriteByte('#')
			case 0:
				b.WriteByte('.')
			default:
				t.Fatalf("plane %d pixel %d = %g", pl, i, v)
			}
		}
		out = append(out, b.String())
	}
	return out
}

func TestEncode(t *testing.T) {
	p := parse(t, "#####\n#+$ #\n# * #\n#####")[0]
	c, h, w := p.InputShape()
	if c != 4 || h != 4 || w != 5 {
		t.Fatalf("InputShape = %d, %d, %d; want 4, 4, 5", c, h, w)
	}
	dst := make([]float32, c*h*w)
	for _, tc := range []struct {
		moves string
		want  [4]string
	}{
		{"", [4]string{
			PlaneWall:   "#####\n#...#\n#...#\n#####",
			PlanePlayer: ".....\n.#...\n.....\n.....",
			PlaneBox:    ".....\n..#..\n..#..\n.....",
			PlaneGoal:   ".....\n.#...\n..#..\n.....",
		}},
		{"R", [4]string{
			PlaneWall:   "#####\n#...#\n#...#\n#####",
			PlanePlayer: ".....\n..#..\n.....\n.....",
			PlaneBox:    ".....\n...#.\n..#..\n.....",
			PlaneGoal:   ".....\n.#...\n..#..\n.....",
		}},
	} {
		for i := range dst {
			dst[i] = 9 // Encode overwrites everything.
		}
		p.Encode(mustPlay(t, p, tc.moves), dst)
		for pl, got := range planes(t, dst, h, w) {
			if got != tc.want[pl] {
				t.Errorf("after %q, plane %d:\n%s\nwant\n%s", tc.moves, pl, got, tc.want[pl])
			}
		}
	}
}

func TestParse(t *testing.T) {
	in := "; 3\r\n#####\r\n#@$.#\r\n#####\r\n\r\n" + // CRLF
		"  \n\n" + // blank lines of spaces
		"#####\n-@*_#\n#####\n" + // no "; N" line; '-' and '_' floors
		"; 12 \n" + // a header right after a level
		"#####\n#.$@#\n#####\n" +
		"\n; x\n#####\n#+$*#\n#####\n"
	ps, err := Parse(strings.NewReader(in), "dir/l.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ id, board string }{
		{"l.txt#3", "#####\n#@$.#\n#####"},
		{"l.txt#1", "#####\n @* #\n#####"},
		{"l.txt#12", "#####\n#.$@#\n#####"},
		{"l.txt#x", "#####\n#+$*#\n#####"},
	}
	if len(ps) != len(want) {
		t.Fatalf("%d levels, want %d", len(ps), len(want))
	}
	for i, w := range want {
		if ps[i].ID != w.id || ps[i].Render(ps[i].Root()) != w.board {
			t.Errorf("level %d: %s\n%s\nwant %s\n%s", i, ps[i].ID, ps[i].Render(ps[i].Root()), w.id, w.board)
		}
	}
	p := parse(t, "; x\n.\n$\n@\n")[0]
	if _, h, w := p.InputShape(); h != 3 || w != 1 || p.Render(p.Root()) != ".\n$\n@" {
		t.Errorf("shape of %s: %dx%d", p.ID, h, w)
	}
}

// TestParseBOM checks that a UTF-8 byte-order mark at the start of the
// input is skipped, and only there.
func TestParseBOM(t *testing.T) {
	excerpt, err := os.ReadFile(boxobanExcerpt)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in    string
		n     int
		first string // the first level, as String writes it
	}{
		{"\uFEFF" + string(excerpt), 40, strings.SplitN(string(excerpt), "\n\n", 2)[0]},
		{"\uFEFF; 7\r\n#@$.#\r\n", 1, "; 7\n#@$.#"},
		{"\uFEFF#@$.#\n\n#.$@#\n", 2, "; 0\n#@$.#"},
	} {
		ps, err := Parse(strings.NewReader(tc.in), "l.txt")
		if err != nil || len(ps) != tc.n || ps[0].String() != tc.first {
			t.Errorf("Parse(%.40q) = %d levels, %v; want %d levels, the first\n%s", tc.in, len(ps), err, tc.n, tc.first)
		}
	}
	// Elsewhere a byte-order mark is an error.
	for _, in := range []string{"; 1\n\uFEFF#@$.#\n", "#@$.#\n\uFEFF##\n"} {
		if _, err := Parse(strings.NewReader(in), "l.txt"); err == nil || err.Error() != "sokoban: l.txt:2: unknown character 'ï' in column 1" {
			t.Errorf("Parse(%q) = %v, want an unknown character on line 2", in, err)
		}
	}
}

// TestParseSizes checks that every level of a file has the size of the
// first one: a Boxoban level cut short, or with spaces at the end of its
// rows, is an error, not another level.
func TestParseSizes(t *testing.T) {
	data, err := os.ReadFile(boxobanExcerpt)
	if err != nil {
		t.Fatal(err)
	}
	// lines are those of the first 10 levels of the excerpt: level N is
	// on lines 12N+1 ("; N") to 12N+11, then a blank line.
	lines := strings.Split(string(data), "\n")[:12*10]
	edit := func(f func(l []string) []string) string {
		return strings.Join(f(slices.Clone(lines)), "\n")
	}
	for _, tc := range []struct {
		name, in, err string
	}{
		{"level 5 cut to 7 rows",
			edit(func(l []string) []string { return slices.Delete(l, 12*5+8, 12*5+11) }),
			`sokoban: l.txt:61: level "5" is 7x10 (rows x columns), but the first level, line 1, is 10x10`},
		{"last level cut to 7 rows",
			edit(func(l []string) []string { return l[:12*9+8] }),
			`sokoban: l.txt:109: level "9" is 7x10 (rows x columns), but the first level, line 1, is 10x10`},
		{"spaces at the end of the rows of level 3",
			edit(func(l []string) []string {
				for i := 12*3 + 1; i < 12*3+11; i++ {
					l[i] += "  "
				}
				return l
			}),
			`sokoban: l.txt:37: level "3" is 10x12 (rows x columns), but the first level, line 1, is 10x10`},
		{"spaces at the end of a row of level 3",
			edit(func(l []string) []string { l[12*3+4] += "  "; return l }),
			`sokoban: l.txt:41: row of 12 characters; the level's first row has 10`},
		{"levels without a header",
			"#@$.#\n\n#@$.#\n#   #\n",
			`sokoban: l.txt:3: level "1" is 2x5 (rows x columns), but the first level, line 1, is 1x5`},
		{"a short first level",
			"; a\n#@$.#\n\n; b\n#####\n#@$.#\n#####\n",
			`sokoban: l.txt:4: level "b" is 3x5 (rows x columns), but the first level, line 1, is 1x5`},
	} {
		_, err := Parse(strings.NewReader(tc.in), "l.txt")
		if err == nil || err.Error() != tc.err {
			t.Errorf("%s: Parse = %v, want %s", tc.name, err, tc.err)
		}
	}
	// Levels of one size other than 10x10 are fine.
	if ps := parse(t, "#@$.#\n\n; 4\n#.$@#\n\n#+$*#\n"); len(ps) != 3 {
		t.Errorf("%d levels, want 3", len(ps))
	}
}

func TestReadFile(t *testing.T) {
	ps, err := ReadFile("testdata/levels.txt")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	if got := strings.Join(ids, " "); got != "levels.txt#0 levels.txt#12" {
		t.Errorf("IDs %s", got)
	}
	if _, h, w := ps[1].InputShape(); h != 10 || w != 10 {
		t.Errorf("level 12 is %dx%d", h, w)
	}
	if _, err := ReadFile("testdata/missing.txt"); err == nil || !strings.HasPrefix(err.Error(), "sokoban: open testdata/missing.txt") {
		t.Errorf("missing file: %v", err)
	}
}

func TestRoundTrip(t *testing.T) {
	data, err := os.ReadFile("testdata/levels.txt")
	if err != nil {
		t.Fatal(err)
	}
	// A row of floor only, written as spaces, would end a level.
	for _, in := range []string{string(data), level7, "#.@$#\n\n; 5\n#.$@#\n", "; 5\n  _  \n.$ @ \n"} {
		for _, p := range parse(t, in) {
			again := parse(t, p.String())
			if len(again) != 1 || again[0].ID != p.ID || again[0].String() != p.String() || again[0].Root() != p.Root() {
				t.Errorf("Parse(String()) of %s:\n%s\ngave\n%s", p.ID, p, again[0])
			}
		}
	}
	p := parse(t, "; 7\n"+level7)[0]
	if got := p.String(); got != "; 7\n"+level7 {
		t.Errorf("String() = %q", got)
	}
	// Format of a later state: the level that starts there.
	s := p.Root()
	for a := range p.NumActions() {
		if c, ok := p.Apply(s, a); ok {
			s = c
			break
		}
	}
	if s == p.Root() {
		t.Fatal("no move from the start of level 7")
	}
	q := parse(t, p.Format(s, "moved"))
	if len(q) != 1 || q[0].ID != "l.txt#moved" || q[0].Render(q[0].Root()) != p.Render(s) {
		t.Errorf("Parse(Format(s)) = %v; want the level starting at\n%s", q, p.Render(s))
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{"", "sokoban: l.txt: no levels"},
		{"\n  \n", "sokoban: l.txt: no levels"},
		{"; 1\n#####\n#@$x#\n#####\n", "sokoban: l.txt:3: unknown character 'x' in column 4"},
		{"; 1\n#####\n#@\t.#\n#####\n", "sokoban: l.txt:3: unknown character '\\t' in column 3"},
		{"; 1\n######\n#@$@.#\n######\n", "sokoban: l.txt:3: a second player in column 4"},
		{"#+$@.#\n", "sokoban: l.txt:1: a second player in column 4"},
		{"; 1\n#####\n# $.#\n#####\n", "sokoban: l.txt:2: level without a player"},
		{"; 1\n#####\n#@$ #\n#####\n", "sokoban: l.txt:2: level with 1 boxes and 0 goals"},
		{"#@$$.*#", "sokoban: l.txt:1: level with 3 boxes and 2 goals"},
		{"#+  #", "sokoban: l.txt:1: level without boxes"},
		{"; 1\n#####\n#@$.#\n####\n", "sokoban: l.txt:4: row of 4 characters; the level's first row has 5"},
		{"#@$.#\n#   #\n#    #\n", "sokoban: l.txt:3: row of 6 characters; the level's first row has 5"},
		{"; 1\n\n; 2\n#@$.#\n", "sokoban: l.txt:1: level \"1\" has no rows"},
		{"#@$.#\n\n; 9\n", "sokoban: l.txt:3: level \"9\" has no rows"},
		{"; 1\n#@$.#\n;\n#@$.#\n", "sokoban: l.txt:3: \";\" without a level number"},
		{"; 1\n" + strings.Repeat("#@$.#"+strings.Repeat(" ", 20)+"\n", 1) + strings.Repeat("#"+strings.Repeat(" ", 24)+"\n", 5),
			"sokoban: l.txt:2: level of more than 128 cells"},
		{"@$." + strings.Repeat(" ", 126), "sokoban: l.txt:1: level of more than 128 cells"},
		{"@$.\n" + strings.Repeat("#", 1<<17), "sokoban: l.txt:2: line too long"},
	} {
		_, err := Parse(strings.NewReader(tc.in), "l.txt")
		if err == nil || err.Error() != tc.err {
			t.Errorf("Parse(%.40q) = %v, want %s", tc.in, err, tc.err)
		}
	}
}

func TestLargestLevel(t *testing.T) {
	// 128 cells, the player on the last one.
	for _, tc := range []struct {
		level string
		want  int
	}{
		// 8 rows of 16: a walk of 7+13 moves and a push.
		{".$" + strings.Repeat("-", 14) + "\n" + strings.Repeat(strings.Repeat("-", 16)+"\n", 6) + strings.Repeat("-", 15) + "@", 21},
		// 1 row of 128: a walk of 125 moves and a push.
		{".$" + strings.Repeat(" ", 125) + "@", 126},
	} {
		p := parse(t, tc.level)[0]
		if got := p.Root().Player(); got != 127 {
			t.Errorf("player on cell %d, want 127", got)
		}
		if r := p.Root(); !r.Box(1) || r.Box(0) || r.Box(-1) || r.Box(MaxCells) {
			t.Errorf("boxes on cells 0, 1, -1, %d: %v %v %v %v", MaxCells, r.Box(0), r.Box(1), r.Box(-1), r.Box(MaxCells))
		}
		if got := searchtest.BFS[State](p); got != tc.want {
			t.Errorf("%d moves, want %d", got, tc.want)
		}
	}
}

// cellsOf returns the cells of the start of p that hold a box, and those
// that hold a goal.
func cellsOf(p *Problem) (boxes, goals []int) {
	board := strings.ReplaceAll(p.Render(p.Root()), "\n", "")
	for i, c := range board {
		if p.Root().Box(i) {
			boxes = append(boxes, i)
		}
		if c == '.' || c == '*' || c == '+' {
			goals = append(goals, i)
		}
	}
	return boxes, goals
}

// TestBoxoban reads the first 40 levels of the Boxoban test set, kept in
// testdata: their IDs, shapes and text, facts of a few of them, and a
// solution of each found by GBFS.
func TestBoxoban(t *testing.T) {
	data, err := os.ReadFile(boxobanExcerpt)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ReadFile(boxobanExcerpt)
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(strings.TrimSpace(string(data)), "\n\n")
	if len(ps) != 40 || len(blocks) != 40 {
		t.Fatalf("%d levels, %d blocks, want 40", len(ps), len(blocks))
	}
	// IDs are "<file base name>#<N>" with N of the "; N" line.
	if ps[0].ID != "boxoban-test-000-first40.txt#0" || ps[17].ID != "boxoban-test-000-first40.txt#17" ||
		ps[39].ID != "boxoban-test-000-first40.txt#39" {
		t.Errorf("IDs %s, %s, %s", ps[0].ID, ps[17].ID, ps[39].ID)
	}
	for i, p := range ps {
		c, h, w := p.InputShape()
		boxes, goals := cellsOf(p)
		if p.ID != fmt.Sprintf("boxoban-test-000-first40.txt#%d", i) || c != 4 || h != 10 || w != 10 ||
			len(boxes) != 4 || len(goals) != 4 || p.IsGoal(p.Root()) || p.String() != blocks[i] {
			t.Fatalf("level %d: %s, %dx%dx%d, boxes %v, goals %v:\n%s", i, p.ID, c, h, w, boxes, goals, p)
		}
		// Every level is solved by GBFS with the domain heuristic.
		res, err := searchtest.Solve[State](context.Background(), p, search.DomainHeuristic[State]{}, search.GBFS(), search.Options{})
		if err != nil || !res.Solved {
			t.Fatalf("%s: not solved: %v", p.ID, err)
		}
		if err := search.Replay[State](p, res.Actions); err != nil {
			t.Errorf("%s: %v", p.ID, err)
		}
	}
	// Facts of a few levels, found when the excerpt was made: the cell of
	// the player, the cells of the boxes and of the goals (row-major on the
	// 10x10 board), h at the start and the length of a shortest solution.
	for _, tc := range []struct {
		i, player    int
		boxes, goals []int
		h            float64
		shortest     int
	}{
		{0, 85, []int{27, 37, 66, 75}, []int{17, 23, 28, 36}, 10, 23},
		{1, 31, []int{22, 27, 32, 37}, []int{13, 18, 24, 25}, 10, 44},
		{2, 78, []int{37, 46, 66, 77}, []int{15, 25, 56, 87}, 6, 21},
		{3, 68, []int{22, 27, 32, 76}, []int{14, 17, 21, 54}, 8, 30},
		{6, 16, []int{21, 22, 24, 25}, []int{15, 44, 74, 81}, 12, 29},
	} {
		p := ps[tc.i]
		boxes, goals := cellsOf(p)
		if p.Root().Player() != tc.player || !slices.Equal(boxes, tc.boxes) || !slices.Equal(goals, tc.goals) || p.Heuristic(p.Root()) != tc.h {
			t.Errorf("%s: player %d, boxes %v, goals %v, h %g; want %d, %v, %v, %g",
				p.ID, p.Root().Player(), boxes, goals, p.Heuristic(p.Root()), tc.player, tc.boxes, tc.goals, tc.h)
		}
		if got := searchtest.BFS[State](p); got != tc.shortest {
			t.Errorf("%s: shortest solution of %d moves, want %d", p.ID, got, tc.shortest)
		}
	}
}

// TestBoxobanFull reads the whole Boxoban test set (PHS_DATA), and checks
// that the excerpt in testdata is its start.
func TestBoxobanFull(t *testing.T) {
	boxobanTest := boxobanTest(t)
	data, err := os.ReadFile(boxobanTest)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ReadFile(boxobanTest)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1000 {
		t.Fatalf("%d levels, want 1000", len(ps))
	}
	blocks := strings.Split(strings.TrimSpace(string(data)), "\n\n")
	for i, p := range ps {
		c, h, w := p.InputShape()
		boxes, goals := cellsOf(p)
		if p.ID != fmt.Sprintf("000.txt#%d", i) || c != 4 || h != 10 || w != 10 || len(boxes) != 4 || len(goals) != 4 || p.String() != blocks[i] {
			t.Fatalf("level %d: %s, %dx%dx%d, boxes %v, goals %v:\n%s", i, p.ID, c, h, w, boxes, goals, p)
		}
	}
	excerpt, err := os.ReadFile(boxobanExcerpt)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), string(excerpt)) {
		t.Errorf("%s is not the start of %s", boxobanExcerpt, boxobanTest)
	}
}

func TestAllocs(t *testing.T) {
	p := parse(t, level7)[0]
	q := p.PruneDeadlocks()
	s := p.Root()
	beside := mustPlay(t, q, "DDR") // the next Right pushes a box
	dst := make([]float32, 4*5*7)
	for name, f := range map[string]func(){
		"Apply":             func() { s, _ = p.Apply(p.Root(), Down) },
		"Apply pruned push": func() { s, _ = q.Apply(beside, Right) },
		"matched":           func() { q.matched(beside) },
		"subsetDeadlocked":  func() { q.subsetDeadlocked(beside, int(beside.player), 16) },
		"IsGoal":            func() { p.IsGoal(s) },
		"Heuristic":         func() { p.Heuristic(s) },
		"Encode":            func() { p.Encode(s, dst) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %g allocations", name, n)
		}
	}
}

func TestSearch(t *testing.T) {
	ps, err := ReadFile("testdata/levels.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(ps, parse(t, level7)[0]) {
		for _, alg := range []search.Algorithm{search.GBFS(), search.PHSStar(), search.AStar()} {
			res, err := searchtest.Solve[State](context.Background(), p, search.DomainHeuristic[State]{}, alg, search.Options{})
			if err != nil || !res.Solved {
				t.Fatalf("%s %v: not solved: %v", p.ID, alg, err)
			}
			if err := search.Replay[State](p, res.Actions); err != nil {
				t.Errorf("%s %v: %v", p.ID, alg, err)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("testdata/levels.txt")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		string(data),
		level7,
		"#@$.#\n\n#+*#\n",
		"; 3\n@\n$\n.\n",
		"; 1\r\n#@$.#\r\n",
		"#@$x#",
		"; 1\n\n; 2\n",
		"#-@*_#\n; 12\n@$.\n",
		"\uFEFF; 1\n#@$.#\n\n; 2\n#@$.#\n#   #\n",
		"#@$.#  \n#    \n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := Parse(strings.NewReader(in), "fuzz.txt")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "sokoban: fuzz.txt") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		for _, p := range ps {
			c, h, w := p.InputShape()
			if c != 4 || h*w > MaxCells {
				t.Fatalf("shape %d, %d, %d", c, h, w)
			}
			dst := make([]float32, c*h*w)
			s := p.Root()
			for a := range 4 {
				if t, ok := p.Apply(s, a); ok {
					p.IsGoal(t)
					p.Heuristic(t)
					p.Encode(t, dst)
				}
			}
			again, err := Parse(strings.NewReader(p.String()), "fuzz.txt")
			if err != nil || len(again) != 1 || again[0].String() != p.String() || again[0].ID != p.ID {
				t.Fatalf("round trip of %q: %v", p.String(), err)
			}
		}
	})
}

func benchLevel(b *testing.B) *Problem {
	ps, err := ReadFile("testdata/levels.txt")
	if err != nil {
		b.Fatal(err)
	}
	return ps[0]
}

// BenchmarkApply applies every action to the first 20,000 states that
// breadth-first search reaches in the first Boxoban level of the fixture,
// without and with PruneDeadlocks.
func BenchmarkApply(b *testing.B) {
	ps, err := ReadFile("testdata/boxoban-test-000-first40.txt")
	if err != nil {
		b.Fatal(err)
	}
	p := ps[0]
	states := []State{p.Root()}
	seen := map[State]bool{p.Root(): true}
	for i := 0; i < len(states) && len(states) < 20000; i++ {
		for a := range 4 {
			if next, ok := p.Apply(states[i], a); ok && !seen[next] {
				seen[next] = true
				states = append(states, next)
			}
		}
	}
	for _, pruned := range []bool{false, true} {
		q := p
		if pruned {
			q = p.PruneDeadlocks()
		}
		b.Run(fmt.Sprintf("pruned=%v", pruned), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range states {
					for a := range 4 {
						q.Apply(s, a)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*4*len(states)), "ns/apply")
		})
	}
}

// BenchmarkPruneDeadlocks builds the tables of PruneDeadlocks for the 40
// Boxoban levels of the fixture.
func BenchmarkPruneDeadlocks(b *testing.B) {
	ps, err := ReadFile("testdata/boxoban-test-000-first40.txt")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range ps {
			p.PruneDeadlocks()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ps)), "ns/level")
}

func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("testdata/levels.txt")
	if err != nil {
		b.Fatal(err)
	}
	fixture := string(data)
	n := 0
	for b.Loop() {
		ps, err := Parse(strings.NewReader(fixture), "levels.txt")
		if err != nil {
			b.Fatal(err)
		}
		n += len(ps)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "levels/s")
}

// BenchmarkReadBoxoban reads the 1000 levels of the Boxoban test set.
func BenchmarkReadBoxoban(b *testing.B) {
	boxobanTest := boxobanTest(b)
	n := 0
	for b.Loop() {
		ps, err := ReadFile(boxobanTest)
		if err != nil {
			b.Fatal(err)
		}
		n += len(ps)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "levels/s")
}

func BenchmarkHeuristic(b *testing.B) {
	p := benchLevel(b)
	s := p.Root()
	h := 0.0
	for b.Loop() {
		h += p.Heuristic(s)
	}
	_ = h
}

func BenchmarkEncode(b *testing.B) {
	p := benchLevel(b)
	c, h, w := p.InputShape()
	dst := make([]float32, c*h*w)
	s := p.Root()
	for b.Loop() {
		p.Encode(s, dst)
	}
}

// BenchmarkEngineGBFS measures the search engine with GBFS and the domain
// heuristic on a 10x10 level.
func BenchmarkEngineGBFS(b *testing.B) {
	p := benchLevel(b)
	e, err := search.NewSolver[State](search.GBFS(), search.DomainHeuristic[State]{}, search.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var exp int64
	for b.Loop() {
		res, err := e.Solve(context.Background(), p)
		if err != nil || !res.Solved {
			b.Fatal(err)
		}
		exp += res.Expansions
	}
	b.ReportMetric(float64(exp)/b.Elapsed().Seconds(), "exp/s")
}

// TestParseFirst checks that ParseFirst reads the first n levels and
// nothing after them: a bad line, or a read error, past them is not seen.
func TestParseFirst(t *testing.T) {
	excerpt, err := os.ReadFile(boxobanExcerpt)
	if err != nil {
		t.Fatal(err)
	}
	all, err := Parse(bytes.NewReader(excerpt), "l.txt")
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.SplitAfter(string(excerpt), "\n\n")
	for _, n := range []int{1, 3, len(all)} {
		head := strings.Join(blocks[:n], "")
		for _, tail := range []io.Reader{strings.NewReader("; x\n#?#\n"), iotest.ErrReader(errors.New("read past the levels"))} {
			ps, err := ParseFirst(io.MultiReader(strings.NewReader(head), tail), "l.txt", n)
			if err != nil || len(ps) != n || ps[n-1].String() != all[n-1].String() || ps[n-1].ID != all[n-1].ID {
				t.Errorf("ParseFirst(%d) = %d levels, %v; want the first %d", n, len(ps), err, n)
			}
		}
	}
	if ps, err := ParseFirst(bytes.NewReader(excerpt), "l.txt", 0); err != nil || len(ps) != len(all) {
		t.Errorf("ParseFirst(0) = %d levels, %v; want all %d", len(ps), err, len(all))
	}
	if _, err := ParseFirst(strings.NewReader(blocks[0]+"; 9\n#?#\n"), "l.txt", 2); err == nil || !strings.Contains(err.Error(), "unknown character") {
		t.Errorf("ParseFirst(2) of a bad second level: %v", err)
	}
}
