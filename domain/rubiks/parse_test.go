package rubiks

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// The excerpts of the test sets in testdata, and the names of the sets.
var fixtures = []struct{ excerpt, set string }{
	{"testdata/deepcubea_test_1000-first40.txt", "rubiks/deepcubea_test_1000.txt"},
	{"testdata/ltscm_test_1000-first40.txt", "rubiks/ltscm_test_1000.txt"},
}

// edit returns facelets with the facelets of the names set to the letters
// of to, in order.
func edit(t *testing.T, facelets string, to string, names ...string) string {
	t.Helper()
	b := []byte(facelets)
	for i, name := range names {
		b[9*strings.IndexByte(faceLetters, name[0])+int(name[1]-'0')] = to[i]
	}
	return string(b)
}

// rotate returns facelets with the colours of the three facelets of the
// names rotated: the first gets the last one's.
func rotate(t *testing.T, facelets string, names ...string) string {
	t.Helper()
	b := []byte(facelets)
	var k [3]int
	for i, name := range names {
		k[i] = 9*strings.IndexByte(faceLetters, name[0]) + int(name[1]-'0')
	}
	b[k[0]], b[k[1]], b[k[2]] = b[k[2]], b[k[0]], b[k[1]]
	return string(b)
}

// swap returns facelets with the facelets of each pair of names swapped.
func swap(t *testing.T, facelets string, names ...string) string {
	t.Helper()
	b := []byte(facelets)
	for i := 0; i < len(names); i += 2 {
		j := 9*strings.IndexByte(faceLetters, names[i][0]) + int(names[i][1]-'0')
		k := 9*strings.IndexByte(faceLetters, names[i+1][0]) + int(names[i+1][1]-'0')
		b[j], b[k] = b[k], b[j]
	}
	return string(b)
}

func TestParseFaceletsErrors(t *testing.T) {
	sv := solvedFacelets
	tests := []struct {
		name, in, want string
		unsolvable     bool
	}{
		{"empty", "", "0 facelets, want 54", false},
		{"short", sv[:53], "53 facelets, want 54", false},
		{"long", sv + "U", "55 facelets, want 54", false},
		{"letter", edit(t, sv, "X", "R3"), `facelet R3 (index 12): "X" is not one of U R F D L B`, false},
		{"lower case", edit(t, sv, "u", "U0"), `facelet U0 (index 0): "u" is not one of`, false},
		{"multibyte", "é" + sv[2:], `facelet U0 (index 0): "\xc3" is not one of`, false},
		{"count", edit(t, sv, "R", "U0"), "colour U on 8 facelets, want 9", false},
		{"centre", swap(t, sv, "U4", "R4"), "centre U4 is R, want U", false},
		{"mirrored corner", swap(t, sv, "R0", "F2"), "corner slot URF (U8 R0 F2): colours UFR are those of no corner cubie, clockwise", false},
		{"corner without U or D", swap(t, sv, "U8", "L0"), "corner slot URF (U8 R0 F2): colours LRF are those of no corner cubie", false},
		{"corner with U and D", swap(t, sv, "R0", "D0"), "corner slot URF (U8 R0 F2): colours UDF are those of no corner cubie", false},
		{"impossible edge", swap(t, sv, "R1", "D1"), "edge slot UR (U5 R1): colours UD are those of no edge cubie", false},
		{"edge of one colour", swap(t, sv, "R1", "U1"), "edge slot UR (U5 R1): colours UU are those of no edge cubie", false},
		{"corner twice", edit(t, sv, "URFDBL", "U6", "F0", "L2", "D8", "R8", "B6"), "corner URF appears twice", false},
		{"edge twice", swap(t, sv, "U5", "D1"), "edge DR appears twice", false},
		{"twist", edit(t, sv, "FUR", "U8", "R0", "F2"), "twist: the corner twists sum to 1, not a multiple of 3", true},
		{"two twists", edit(t, sv, "FURLUF", "U8", "R0", "F2", "U6", "F0", "L2"), "twist: the corner twists sum to 2", true},
		{"flip", swap(t, sv, "U5", "R1"), "flip: the edge flips sum to 1, not a multiple of 2", true},
		{"edge swap", swap(t, sv, "U5", "U7", "R1", "F1"), "parity: the corner permutation is even and the edge permutation odd", true},
		{"corner swap", swap(t, sv, "U8", "U6", "R0", "F0", "F2", "L2"), "parity: the corner permutation is odd and the edge permutation even", true},
		{"twist in a scramble", rotate(t, exampleCube, "U0", "L0", "B2"), "twist", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFacelets(tt.in)
			if err == nil {
				t.Fatalf("%q: no error, want %q", tt.in, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("%q: %v, want %q", tt.in, err, tt.want)
			}
			if errors.Is(err, ErrUnsolvable) != tt.unsolvable {
				t.Fatalf("%v: wraps ErrUnsolvable: %v", err, !tt.unsolvable)
			}
			// In a file, the error names the file and line (an empty
			// line is skipped).
			if tt.in == "" {
				return
			}
			in := solvedFacelets + "\n\n" + tt.in + "\n" + exampleCube + "\n"
			if _, err := Parse(strings.NewReader(in), "cubes.txt"); err == nil || !strings.HasPrefix(err.Error(), "rubiks: cubes.txt:3: ") {
				t.Fatalf("Parse: %v", err)
			}
			if _, err := New(tt.in, ""); err == nil || !strings.HasPrefix(err.Error(), "rubiks: ") {
				t.Fatalf("New: %v", err)
			}
		})
	}
}

func TestParse(t *testing.T) {
	in := "\uFEFF" + solvedFacelets + "\r\n\n  \t" + exampleCube + " \n\n"
	ps, err := Parse(strings.NewReader(in), "dir/cubes.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].ID != "cubes.txt#0" || ps[1].ID != "cubes.txt#1" ||
		ps[0].Root() != Solved() || ps[1].String() != exampleCube {
		t.Fatalf("Parse: %v", ps)
	}
	for _, in := range []string{"", "\n\n", "\uFEFF"} {
		if _, err := Parse(strings.NewReader(in), "empty.txt"); err == nil || err.Error() != "rubiks: empty.txt: no cubes" {
			t.Errorf("Parse(%q): %v", in, err)
		}
	}
	long := solvedFacelets + "\n" + strings.Repeat("U", 1<<17) + "\n"
	if _, err := Parse(strings.NewReader(long), "long.txt"); err == nil || err.Error() != "rubiks: long.txt:2: line too long" {
		t.Errorf("a long line: %v", err)
	}
	// A byte-order mark is only skipped at the start.
	if _, err := Parse(strings.NewReader(solvedFacelets+"\n\uFEFF"+solvedFacelets), "bom.txt"); err == nil || !strings.HasPrefix(err.Error(), "rubiks: bom.txt:2: ") {
		t.Errorf("a byte-order mark on line 2: %v", err)
	}
	if _, err := ReadFile("testdata/no such file"); err == nil || !strings.HasPrefix(err.Error(), "rubiks: ") {
		t.Errorf("ReadFile: %v", err)
	}
}

// roundTrip parses a file, writes its cubes and parses them again, and
// checks that every cube is legal and comes back unchanged.
func roundTrip(t *testing.T, path string) []*Problem {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, ps); err != nil {
		t.Fatal(err)
	}
	// The files hold one facelet string per line, as Write writes them.
	if !bytes.Equal(buf.Bytes(), data) {
		t.Fatalf("%s: written differently", path)
	}
	again, err := Parse(&buf, path)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(path)
	for i, p := range ps {
		if again[i].Root() != p.Root() || again[i].ID != p.ID || !strings.HasPrefix(p.ID, base+"#") {
			t.Fatalf("%s: cube %d: %s %q, then %s %q", path, i, p, p.ID, again[i], again[i].ID)
		}
		if _, err := NewState(p.Root(), ""); err != nil {
			t.Fatalf("%s: %v", p.ID, err)
		}
		if p.IsGoal(p.Root()) {
			t.Fatalf("%s is solved", p.ID)
		}
	}
	return ps
}

func TestRoundTripFixtures(t *testing.T) {
	for _, f := range fixtures {
		if ps := roundTrip(t, f.excerpt); len(ps) != 40 {
			t.Fatalf("%s: %d cubes", f.excerpt, len(ps))
		}
	}
}

// dataDir returns the directory of the project's data sets, $PHS_DATA, or
// skips the test.
func dataDir(t testing.TB) string {
	dir := os.Getenv("PHS_DATA")
	if dir == "" {
		t.Skip("PHS_DATA is not set: set it to the data directory (such as /work/shared/data) to test the full test sets")
	}
	return dir
}

// TestRoundTripTestSets reads the two full test sets: 1000 legal cubes
// each, all distinct, which the excerpts in testdata start.
func TestRoundTripTestSets(t *testing.T) {
	dir := dataDir(t)
	seen := make(map[State]string)
	for _, f := range fixtures {
		path := filepath.Join(dir, f.set)
		ps := roundTrip(t, path)
		if len(ps) != 1000 {
			t.Fatalf("%s: %d cubes", path, len(ps))
		}
		for _, p := range ps {
			if id, ok := seen[p.Root()]; ok {
				t.Fatalf("%s is %s", p.ID, id)
			}
			seen[p.Root()] = p.ID
		}
		data, _ := os.ReadFile(path)
		excerpt, err := os.ReadFile(f.excerpt)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, excerpt) {
			t.Fatalf("%s is not the start of %s", f.excerpt, path)
		}
	}
}

func TestWriteError(t *testing.T) {
	ps := []*Problem{{start: Solved()}}
	if err := Write(failWriter{}, ps); err == nil || !strings.HasPrefix(err.Error(), "rubiks: ") {
		t.Fatalf("Write: %v", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func FuzzParse(f *testing.F) {
	for _, fx := range fixtures {
		data, err := os.ReadFile(fx.excerpt)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Add(solvedFacelets)
	f.Add("\uFEFF" + exampleCube + "\n\n" + solvedFacelets + "\r\n")
	f.Add(strings.Replace(solvedFacelets, "UR", "RU", 1))
	f.Add(exampleCube[:53] + "\n")
	f.Add("UUUUUUUUU RRRRRRRRR")
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "rubiks: fuzz") {
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
			if again[i].Root() != p.Root() {
				t.Fatalf("round trip of %s: %s", p, again[i])
			}
			// Every cube read is legal, can be turned, encoded and bounded.
			if _, err := NewState(p.Root(), ""); err != nil {
				t.Fatal(err)
			}
			s, _ := Apply(p.Root(), i%NumActions)
			dst := make([]float32, 6*9*12)
			p.Encode(s, dst)
			if p.IsGoal(p.Root()) != (p.String() == solvedFacelets) {
				t.Fatalf("%s: IsGoal %v", p, p.IsGoal(p.Root()))
			}
		}
	})
}

// TestParseFirst checks that ParseFirst reads the first n cubes and
// nothing after them: a bad line, or a read error, past them is not seen.
func TestParseFirst(t *testing.T) {
	excerpt, err := os.ReadFile(fixtures[0].excerpt)
	if err != nil {
		t.Fatal(err)
	}
	all, err := Parse(bytes.NewReader(excerpt), "c.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(excerpt), "\n")
	for _, n := range []int{1, 3, len(all)} {
		head := strings.Join(lines[:n], "")
		for _, tail := range []io.Reader{strings.NewReader("not a cube\n"), iotest.ErrReader(errors.New("read past the cubes"))} {
			ps, err := ParseFirst(io.MultiReader(strings.NewReader(head), tail), "c.txt", n)
			if err != nil || len(ps) != n || ps[n-1].ID != all[n-1].ID || ps[n-1].Root() != all[n-1].Root() {
				t.Errorf("ParseFirst(%d) = %d cubes, %v; want the first %d", n, len(ps), err, n)
			}
		}
	}
	if ps, err := ParseFirst(bytes.NewReader(excerpt), "c.txt", 0); err != nil || len(ps) != len(all) {
		t.Errorf("ParseFirst(0) = %d cubes, %v; want all %d", len(ps), err, len(all))
	}
	if _, err := ParseFirst(strings.NewReader(lines[0]+"not a cube\n"), "c.txt", 2); err == nil || !strings.Contains(err.Error(), "c.txt:2:") {
		t.Errorf("ParseFirst(2) of a bad second cube: %v", err)
	}
}
