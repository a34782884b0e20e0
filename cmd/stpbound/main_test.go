package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/phs-go/phs/report"
)

// repo is the repository's root, for the files the tests read after
// changing to a temporary directory.
var repo, _ = filepath.Abs("../..")

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixture writes the first 40 STP test puzzles under the test set's name
// and the records of those puzzles from each results file named in
// testdata (records of the lab's stp-phsstar row), and returns the puzzle
// file and the results files.
func fixture(t *testing.T, results ...string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	puzzles, err := os.ReadFile(filepath.Join(repo, "domain/stp/testdata/puzzles_5x5_test-first40.txt"))
	if err != nil {
		t.Fatal(err)
	}
	pf := "puzzles_5x5_test.txt"
	if err := os.WriteFile(pf, puzzles, 0o666); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, name := range results {
		f, err := os.Open(filepath.Join(repo, "cmd/stpbound/testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := report.ReadJSONL(f, name)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		w := report.NewJSONLWriter(&b)
		for _, r := range recs {
			_, index, _ := strings.Cut(r.Problem, "#")
			if i, err := strconv.Atoi(index); err == nil && i < 40 {
				if err := w.Write(r); err != nil {
					t.Fatal(err)
				}
			}
		}
		out := name
		if err := os.WriteFile(out, b.Bytes(), 0o666); err != nil {
			t.Fatal(err)
		}
		files = append(files, out)
	}
	return pf, files
}

func TestGolden(t *testing.T) {
	pf, files := fixture(t, "stp-phsstar-test.jsonl", "stp-phsstar-test-astar.jsonl")
	var out bytes.Buffer
	if err := run(append([]string{pf}, files...), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	golden := filepath.Join(repo, "cmd/stpbound/testdata/bound.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestErrors(t *testing.T) {
	pf, files := fixture(t, "stp-phsstar-test.jsonl")
	good, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(good), "\n")
	for _, tc := range []struct {
		name, record, want string
	}{
		{"other file", strings.Replace(first, "puzzles_5x5_test.txt#0", "other.txt#0", 1), `problem "other.txt#0" is not one of the 40 puzzles`},
		{"index out of range", strings.Replace(first, "#0", "#40", 1), `problem "puzzles_5x5_test.txt#40" is not one`},
		{"no index", strings.Replace(first, "#0", "#x", 1), "is not one of"},
		{"wrong length", strings.Replace(first, `"length":208`, `"length":207`, 1), "length 207, but a solution of 208 moves"},
		{"not a solution", strings.Replace(first, `"solution":"LD`, `"solution":"DD`, 1), "puzzles_5x5_test.txt#0: "},
		{"bad action", strings.Replace(first, `"solution":"LD`, `"solution":"XD`, 1), "puzzles_5x5_test.txt#0: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.record == first {
				t.Fatal("the fixture's first record changed: update the cases")
			}
			f := "r.jsonl"
			if err := os.WriteFile(f, []byte(tc.record+"\n"), 0o666); err != nil {
				t.Fatal(err)
			}
			err := run([]string{pf, f}, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "record 1") {
				t.Errorf("error %v, want one with %q and record 1", err, tc.want)
			}
		})
	}
	for _, args := range [][]string{nil, {pf}, {pf, "no-such-file.jsonl"}, {"no-such-file.txt", files[0]}} {
		if err := run(args, &bytes.Buffer{}); err == nil {
			t.Errorf("run(%q): no error", args)
		}
	}
}

// TestOptimalAndUnsolved: a solution as short as the bound counts as
// optimal, a file with no solved record prints dashes.
func TestOptimalAndUnsolved(t *testing.T) {
	t.Chdir(t.TempDir())
	// The blank two cells right of its goal: "LL" is optimal, bound 2.
	puzzles := "1 2 0 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24\n"
	files := map[string]string{
		"p.txt":        puzzles,
		"solved.jsonl": `{"problem":"p.txt#0","solved":true,"length":2,"solution":"LL"}` + "\n",
		"none.jsonl":   `{"problem":"p.txt#0","solved":false}` + "\n",
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := run([]string{"p.txt", "solved.jsonl", "none.jsonl"}, &out); err != nil {
		t.Fatal(err)
	}
	want := "       results  solved  length  lower bound  length/bound    max  optimal\n" +
		"  solved.jsonl       1     2.0          2.0         1.000  1.000        1\n" +
		"    none.jsonl       0       -            -             -      -        -\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
