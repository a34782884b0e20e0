package witness

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/phs-go/phs/internal/datasets/datasetstest"
)

// testSet returns the paper's test set, which is not in the repository:
// tests and benchmarks that need it skip unless PHS_DATA names a data
// directory (see package datasetstest).
func testSet(tb testing.TB) string {
	return datasetstest.Path(tb, "witness/puzzles_4x4_test.txt")
}

// testSetExcerpt is the start of the test set, its first 40 puzzles
// verbatim, kept in the repository: see testdata/README.
const testSetExcerpt = "testdata/puzzles_4x4_test-first40.txt"

func TestParse(t *testing.T) {
	ps := read(t, "testdata/small.txt")
	if len(ps) != 4 {
		t.Fatalf("%d puzzles, want 4", len(ps))
	}
	for i, want := range []struct {
		rows, cols, il, ic, gl, gc int
		colors                     map[[2]int]int
	}{
		{1, 2, 0, 0, 1, 2, map[[2]int]int{{0, 0}: 1, {0, 1}: 2}},
		{4, 4, 0, 0, 4, 0, map[[2]int]int{{0, 0}: 4, {0, 1}: 2, {0, 2}: 4, {1, 2}: 4, {1, 3}: 1, {2, 0}: 4, {2, 2}: 4, {3, 2}: 4, {3, 3}: 1}},
		{2, 2, 1, 1, 0, 2, nil},
		{3, 3, 0, 0, 3, 3, map[[2]int]int{{0, 0}: 1, {1, 1}: 2, {2, 2}: 3, {0, 2}: 4}},
	} {
		p := ps[i]
		il, ic := p.Init()
		gl, gc := p.Goal()
		if p.ID != "small.txt#"+string(rune('0'+i)) || p.Rows != want.rows || p.Cols != want.cols ||
			il != want.il || ic != want.ic || gl != want.gl || gc != want.gc {
			t.Errorf("puzzle %d: %s %dx%d init %d %d goal %d %d", i, p.ID, p.Rows, p.Cols, il, ic, gl, gc)
		}
		for r := range p.Rows {
			for c := range p.Cols {
				if got := p.Color(r, c); got != want.colors[[2]int{r, c}] {
					t.Errorf("puzzle %d cell %d %d: colour %d, want %d", i, r, c, got, want.colors[[2]int{r, c}])
				}
			}
		}
	}
	// Write gives back the file.
	var buf bytes.Buffer
	if err := Write(&buf, ps); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile("testdata/small.txt")
	if buf.String() != string(data) {
		t.Errorf("Write =\n%s\nwant\n%s", buf.String(), data)
	}
	// Fields in any order, spaces, CRLF line ends, several blank lines.
	other, err := Parse(strings.NewReader("\r\n\r\nColors:| 0 1 3\t \r\nGoal:  1 2\r\nSize:1\t2\r\n Init: 0 0\r\n\r\n\r\n"), "dir/x.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := other[0].String(); got != "Size: 1 2\nInit: 0 0\nGoal: 1 2\nColors: |0 1 3" || other[0].ID != "x.txt#0" {
		t.Errorf("%s: %q", other[0].ID, got)
	}
}

// readBack reads the n puzzles of file and checks that Write gives the file
// back (but for the blank line at its end).
func readBack(t *testing.T, file string, n int) []*Problem {
	t.Helper()
	ps := read(t, file)
	if len(ps) != n {
		t.Fatalf("%s: %d puzzles, want %d", file, len(ps), n)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, ps); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), append(bytes.TrimRight(data, "\n"), '\n')) {
		t.Errorf("%s: Write does not give the file back:\n%s", file, buf.Bytes())
	}
	return ps
}

// TestParseTestSet reads the first 40 puzzles of the paper's test set, kept
// in testdata, writes them back, checks facts of a few and solves each.
func TestParseTestSet(t *testing.T) {
	ps := readBack(t, testSetExcerpt, 40)
	// IDs are "<file base name>#<index>", from 0.
	if ps[0].ID != "puzzles_4x4_test-first40.txt#0" || ps[17].ID != "puzzles_4x4_test-first40.txt#17" ||
		ps[39].ID != "puzzles_4x4_test-first40.txt#39" {
		t.Errorf("IDs %s, %s, %s", ps[0].ID, ps[17].ID, ps[39].ID)
	}
	p := ps[0]
	if gl, gc := p.Goal(); p.Rows != 4 || p.Cols != 4 || gl != 4 || gc != 0 || p.Color(1, 3) != 1 {
		t.Errorf("first puzzle:\n%s", p)
	}
	// The first puzzle is the second of testdata/small.txt.
	if small := read(t, "testdata/small.txt"); p.String() != small[1].String() {
		t.Errorf("first puzzle:\n%s\nwant\n%s", p, small[1])
	}
	for i, p := range ps {
		il, ic := p.Init()
		if p.ID != "puzzles_4x4_test-first40.txt#"+itoa(i) || p.Rows != 4 || p.Cols != 4 || il != 0 || ic != 0 {
			t.Errorf("puzzle %d: %s, %dx%d, init %d %d", i, p.ID, p.Rows, p.Cols, il, ic)
		}
		// Every puzzle has a solution, which replays to the goal.
		s, ok := p.Root(), true
		for _, a := range solve(p) {
			if s, ok = p.Apply(s, a); !ok {
				break
			}
		}
		if !ok || !p.IsGoal(s) {
			t.Errorf("%s: no solution", p.ID)
		}
	}
	// Facts of a few puzzles, found when the excerpt was made: the exit,
	// the number of bullets of each colour 1 to 4, and h at the start.
	for _, tc := range []struct {
		i, gl, gc int
		bullets   [MaxColors]int
		h         float64
	}{
		{0, 4, 0, [MaxColors]int{2, 1, 0, 6}, 4},
		{1, 0, 3, [MaxColors]int{1, 2, 0, 1}, 3},
		{2, 4, 2, [MaxColors]int{0, 5, 0, 2}, 6},
		{3, 1, 0, [MaxColors]int{2, 9, 1, 0}, 1},
		{38, 4, 3, [MaxColors]int{1, 0, 11, 0}, 7},
		{39, 4, 0, [MaxColors]int{0, 4, 1, 2}, 4},
	} {
		p := ps[tc.i]
		var bullets [MaxColors]int
		for _, k := range colorsOf(p) {
			if k != 0 {
				bullets[k-1]++
			}
		}
		if gl, gc := p.Goal(); gl != tc.gl || gc != tc.gc || bullets != tc.bullets || p.Heuristic(p.Root()) != tc.h {
			t.Errorf("%s: exit %d %d, bullets %v, h %g; want %d %d, %v, %g",
				p.ID, gl, gc, bullets, p.Heuristic(p.Root()), tc.gl, tc.gc, tc.bullets, tc.h)
		}
	}
}

// TestParseTestSetFull reads the whole test set (PHS_DATA), writes it back
// and checks that the excerpt in testdata is its start.
func TestParseTestSetFull(t *testing.T) {
	testSet := testSet(t)
	ps := readBack(t, testSet, 1000)
	p := ps[0]
	if gl, gc := p.Goal(); p.ID != "puzzles_4x4_test.txt#0" || ps[999].ID != "puzzles_4x4_test.txt#999" ||
		p.Rows != 4 || p.Cols != 4 || gl != 4 || gc != 0 || p.Color(1, 3) != 1 {
		t.Errorf("first puzzle:\n%s", p)
	}
	// The first puzzles have solutions.
	for _, p := range ps[:20] {
		if solve(p) == nil {
			t.Errorf("%s: no solution", p.ID)
		}
	}
	data, err := os.ReadFile(testSet)
	if err != nil {
		t.Fatal(err)
	}
	excerpt, err := os.ReadFile(testSetExcerpt)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, excerpt) {
		t.Errorf("%s is not the start of %s", testSetExcerpt, testSet)
	}
}

func TestParseErrors(t *testing.T) {
	const ok = "Size: 4 4\nInit: 0 0\nGoal: 4 0\n"
	for _, tc := range []struct{ in, msg string }{
		{"", "p.txt: no puzzles"},
		{"\n\n", "p.txt: no puzzles"},
		{ok, ":1: the puzzle starting here has no Colors line"},
		{"\n\nInit: 0 0\nGoal: 4 0\nColors:\n", ":3: the puzzle starting here has no Size line"},
		{"Size: 4\nInit: 0 0\nGoal: 4 0\nColors:\n", ":1: Size: want 2 integers, got 1"},
		{"Size: 4 4 4\nInit: 0 0\nGoal: 4 0\nColors:\n", ":1: Size: want 2 integers, got more"},
		{"Size: 0 4\nInit: 0 0\nGoal: 4 0\nColors:\n", ":1: Size: size 0x4: want at least 1x1"},
		{"Size: 8 7\nInit: 0 0\nGoal: 4 0\nColors:\n", ":1: Size: size 8x7: more than 64 vertices"},
		{"Size: 4 99999999\nInit: 0 0\nGoal: 4 0\nColors:\n", ":1: Size: size 4x99999999: more than"},
		{"Size: 4 9999999999\nInit: 0 0\nGoal: 4 0\nColors:\n", `:1: Size: bad integer "9999999999"`},
		{"Size: 4 4\nInit: 0 x\nGoal: 4 0\nColors:\n", `:2: Init: bad integer "x"`},
		{"Size: 4 4\nInit: 0 -1\nGoal: 4 0\nColors:\n", ":2: Init: entrance 0 -1 is not a vertex of a 4x4 grid"},
		{"Size: 4 4\nInit: 0 0\nGoal: 5 0\nColors:\n", ":3: Goal: exit 5 0 is not a vertex"},
		{"Size: 4 4\nInit: 0 0\nGoal: 0 0\nColors:\n", ":3: Goal: the entrance and the exit are the same vertex 0 0"},
		{ok + "Colors: |4 0 1\n", ":4: Colors: cell 4 0 is not in a 4x4 grid"},
		{ok + "Colors: |0 0 5\n", ":4: Colors: cell 0 0: colour 5, want 1 to 4"},
		{ok + "Colors: |0 0 0\n", ":4: Colors: cell 0 0: colour 0, want 1 to 4"},
		{ok + "Colors: |0 0 -2\n", ":4: Colors: cell 0 0: colour -2"},
		{ok + "Colors: |0 0 1|0 0 2\n", ":4: Colors: cell 0 0 has two bullets"},
		{ok + "Colors: 0 0 1\n", ":4: Colors: want |r c k|r c k..."},
		{ok + "Colors: |0 0 1||1 1 1\n", `:4: Colors: entry 2 "": want 3 integers, got 0`},
		{ok + "Colors: |0 0\n", `:4: Colors: entry 1 "0 0": want 3 integers, got 2`},
		{ok + "Colors: |0 0 1 2|1 1 1\n", `:4: Colors: entry 1 "0 0 1 2": want 3 integers, got more`},
		{ok + "Colors: " + strings.Repeat("|0 0 1", 65) + "\n", ":4: Colors: more than 64 bullets"},
		{ok + "Colours: |0 0 1\n", `:4: unknown key "Colours" (want Size, Init, Goal or Colors)`},
		{"Size 4 4\n", `:1: want "Key: value", got "Size 4 4"`},
		{ok + "Colors:\nSize: 4 4\n", ":5: second Size line in the puzzle starting at line 1 (missing blank line?)"},
		{ok + "Colors:\n\nSize: 4 4\nInit: 9 9\nGoal: 4 0\nColors:\n", ":7: Init: entrance 9 9"},
		{"Size: 4 4\n" + strings.Repeat("x", 2<<20) + "\n", ":2: line too long"},
	} {
		_, err := Parse(strings.NewReader(tc.in), "p.txt")
		if err == nil || !strings.HasPrefix(err.Error(), "witness: p.txt") || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Parse(%.40q) = %v, want an error with %q", tc.in, err, tc.msg)
		}
	}
	if _, err := ReadFile("testdata/missing.txt"); err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("ReadFile of a missing file: %v", err)
	}
}

// TestParseColorsCut checks that a Colors line cut short is an error, not
// a puzzle with fewer bullets: every entry has three integers, and the line
// ends with the last of them, as in the paper's data.
func TestParseColorsCut(t *testing.T) {
	const head = "Size: 4 4\nInit: 0 0\nGoal: 4 0\n"
	for _, tc := range []struct{ colors, msg string }{
		{"|0 0 1|1 1", `p.txt:4: Colors: entry 2 "1 1": want 3 integers, got 2`},
		{"|0 0 1|1", `p.txt:4: Colors: entry 2 "1": want 3 integers, got 1`},
		{"|0 0 1|", `p.txt:4: Colors: entry 2 is empty: the line ends with '|' (cut short?)`},
		{"|0 0 1|  ", `p.txt:4: Colors: entry 2 is empty: the line ends with '|'`},
		{"|", `p.txt:4: Colors: entry 1 is empty: the line ends with '|'`},
		{"|0 0 4|0 1 2|0 2 4|1 2 4|1 3 1|2 0 4|2 2 4|3 2 4|3 3", `p.txt:4: Colors: entry 9 "3 3": want 3 integers, got 2`},
	} {
		in := head + "Colors: " + tc.colors + "\n\n" + head + "Colors: |0 0 1\n"
		ps, err := Parse(strings.NewReader(in), "p.txt")
		if err == nil || !strings.HasPrefix(err.Error(), "witness: "+tc.msg) {
			t.Errorf("Colors: %s: Parse = %d puzzles, %v; want an error %q", tc.colors, len(ps), err, tc.msg)
		}
	}
	// What the paper's data holds, and what Write writes, is accepted.
	for _, colors := range []string{"", "|0 0 1", "|0 0 1|1 1 2", " | 0 0 1 | 1 1 2 "} {
		if _, err := Parse(strings.NewReader(head+"Colors:"+colors+"\n"), "p.txt"); err != nil {
			t.Errorf("Colors:%s: %v", colors, err)
		}
	}
}

// TestParseBOM checks that a UTF-8 byte-order mark at the start of the
// input is skipped, and only there.
func TestParseBOM(t *testing.T) {
	for _, name := range []string{"testdata/small.txt", testSetExcerpt} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		want := read(t, name)
		for _, in := range []string{"\uFEFF" + string(data), "\uFEFF" + strings.ReplaceAll(string(data), "\n", "\r\n")} {
			ps, err := Parse(strings.NewReader(in), name)
			if err != nil || len(ps) != len(want) {
				t.Errorf("%s with a byte-order mark: %d puzzles, %v; want %d", name, len(ps), err, len(want))
				continue
			}
			for i, p := range ps {
				if p.ID != want[i].ID || p.String() != want[i].String() {
					t.Errorf("%s with a byte-order mark: puzzle %d:\n%s\nwant\n%s", name, i, p, want[i])
				}
			}
		}
	}
	for _, in := range []string{"Size: 4 4\n\uFEFFInit: 0 0\nGoal: 4 0\nColors:\n", "\uFEFF\uFEFFSize: 4 4\nInit: 0 0\nGoal: 4 0\nColors:\n"} {
		if _, err := Parse(strings.NewReader(in), "p.txt"); err == nil || !strings.Contains(err.Error(), "unknown key") {
			t.Errorf("Parse(%q) = %v, want an unknown key", in, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("testdata/small.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(data))
	f.Add("Size: 1 1\nInit: 0 0\nGoal: 1 1\nColors: |0 0 1\n")
	f.Add("Size: 1 1\nInit: 0 0\nGoal: 1 1\nColors: |0 0 1|\n")
	f.Add("\uFEFFSize: 2 2\nInit: 0 0\nGoal: 2 2\nColors: |0 0 1|1 1\n")
	f.Add("Size: 7 7\nInit: 7 7\nGoal: 0 0\nColors:\n\n\n")
	f.Add("Colors: |1 2 3\nGoal: 3 1\nInit: 1 0\nSize: 3 3\n")
	f.Add("Size: 1 31\nInit: 1 31\nGoal: 0 1\nColors: |0 30 4|0 0 2\n\nSize: 2 3\nInit: 0 0\nGoal: 2 3\nColors:")
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "witness: fuzz") {
				t.Fatalf("error %q", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, ps); err != nil {
			t.Fatal(err)
		}
		again, err := Parse(&buf, "again")
		if err != nil || len(again) != len(ps) {
			t.Fatalf("round trip: %v", err)
		}
		for i, p := range ps {
			if again[i].String() != p.String() {
				t.Fatalf("round trip of %q: %q", p.String(), again[i].String())
			}
			// Every puzzle can be played, tested, encoded and drawn.
			c, h, w := p.InputShape()
			dst := make([]float32, c*h*w)
			s := p.Root()
			for range 8 {
				next, ok := State{}, false
				for a := range 4 {
					if next, ok = p.Apply(s, a); ok {
						break
					}
				}
				if !ok {
					break
				}
				s = next
				p.IsGoal(s)
				p.Heuristic(s)
				p.Encode(s, dst)
				p.Render(s)
			}
		}
	})
}

// TestParseFirst checks that ParseFirst reads the first n puzzles and
// nothing after them: a bad line, or a read error, past them is not seen.
func TestParseFirst(t *testing.T) {
	excerpt, err := os.ReadFile(testSetExcerpt)
	if err != nil {
		t.Fatal(err)
	}
	all, err := Parse(bytes.NewReader(excerpt), "w.txt")
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.SplitAfter(string(excerpt), "\n\n")
	for _, n := range []int{1, 3, len(all)} {
		head := strings.Join(blocks[:n], "")
		for _, tail := range []io.Reader{strings.NewReader("Size: x\n"), iotest.ErrReader(errors.New("read past the puzzles"))} {
			ps, err := ParseFirst(io.MultiReader(strings.NewReader(head), tail), "w.txt", n)
			if err != nil || len(ps) != n || ps[n-1].String() != all[n-1].String() || ps[n-1].ID != all[n-1].ID {
				t.Errorf("ParseFirst(%d) = %d puzzles, %v; want the first %d", n, len(ps), err, n)
			}
		}
	}
	if ps, err := ParseFirst(bytes.NewReader(excerpt), "w.txt", 0); err != nil || len(ps) != len(all) {
		t.Errorf("ParseFirst(0) = %d puzzles, %v; want all %d", len(ps), err, len(all))
	}
	if _, err := ParseFirst(strings.NewReader(blocks[0]+"Size: x\n"), "w.txt", 2); err == nil || !strings.Contains(err.Error(), "Size") {
		t.Errorf("ParseFirst(2) of a bad second puzzle: %v", err)
	}
}
