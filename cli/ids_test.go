package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/search"
)

// TestWarnDuplicates checks the warnings of warnDuplicates on tasks of
// given IDs and files.
func TestWarnDuplicates(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ids, files []string
		want       string
	}{
		{"none", nil, nil, ""},
		{"distinct", []string{"a#0", "a#1", "b#0"}, []string{"a", "a", "b"}, ""},
		{"a file twice",
			[]string{"a#0", "a#1", "a#0", "a#1"}, []string{"d/a", "d/a", "d/a", "d/a"},
			`level=WARN msg="duplicate problem id" id=a#0 count=2 files=d/a` + "\n" +
				`level=WARN msg="duplicate problem id" id=a#1 count=2 files=d/a` + "\n"},
		{"one base name in two folders",
			[]string{"a#0", "a#0", "a#0"}, []string{"x/a", "y/a", "x/a"},
			`level=WARN msg="duplicate problem id" id=a#0 count=3 files="x/a, y/a"` + "\n"},
		{"in the order of first appearance",
			[]string{"b#1", "a#0", "b#2", "a#0", "b#1"}, []string{"b", "a", "b", "a", "b"},
			`level=WARN msg="duplicate problem id" id=b#1 count=2 files=b` + "\n" +
				`level=WARN msg="duplicate problem id" id=a#0 count=2 files=a` + "\n"},
	} {
		tasks := make([]search.Task[int], len(tc.ids))
		for i, id := range tc.ids {
			tasks[i].ID = id
		}
		var buf bytes.Buffer
		warnDuplicates(tasks, tc.files, testLogger(&buf))
		if buf.String() != tc.want {
			t.Errorf("%s: warnings\n%s\nwant\n%s", tc.name, buf.String(), tc.want)
		}
	}
}

// TestLoadDuplicates checks that loading problem files warns of the IDs
// that several problems have, and still loads every problem.
func TestLoadDuplicates(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	levels := write("levels.txt", "; 0\n#@$.#\n\n; 1\n#.$@#\n")
	relabelled := write("dup.txt", "; 3\n#@$.#\n\n; 4\n#.$@#\n\n; 3\n#+$*#\n")
	more := write("more.txt", "; 0\n#@$.#\n")
	other := write("other/levels.txt", "; 1\n#@$.#\n")
	tiles := write("tiles.txt", "1 0 2 3\n")
	sok := shippedDomain(t, "sokoban").(*domainOf[sokoban.State])
	for _, tc := range []struct {
		name  string
		files []string
		n     int
		want  string
	}{
		{"distinct", []string{levels, more}, 3, ""},
		{"a label twice in a file", []string{levels, relabelled}, 5,
			`level=WARN msg="duplicate problem id" id=dup.txt#3 count=2 files=` + relabelled + "\n"},
		{"a file twice", []string{levels, levels}, 4,
			`level=WARN msg="duplicate problem id" id=levels.txt#0 count=2 files=` + levels + "\n" +
				`level=WARN msg="duplicate problem id" id=levels.txt#1 count=2 files=` + levels + "\n"},
		{"one base name in two folders", []string{levels, other}, 3,
			`level=WARN msg="duplicate problem id" id=levels.txt#1 count=2 files="` + levels + ", " + other + "\"\n"},
	} {
		var buf bytes.Buffer
		tasks, err := sok.load(tc.files, 0, maxProblems, testLogger(&buf))
		if err != nil || len(tasks) != tc.n || buf.String() != tc.want {
			t.Errorf("%s: %d tasks, %v, warnings\n%s\nwant %d tasks, warnings\n%s", tc.name, len(tasks), err, buf.String(), tc.n, tc.want)
		}
	}
	var buf bytes.Buffer
	if tasks, err := shippedDomain(t, "stp").(*stpDomain).small.load([]string{tiles, tiles, tiles}, 0, maxProblems, testLogger(&buf)); err != nil || len(tasks) != 3 ||
		buf.String() != `level=WARN msg="duplicate problem id" id=tiles.txt#0 count=3 files=`+tiles+"\n" {
		t.Errorf("stp: %d tasks, %v, warnings\n%s", len(tasks), err, buf.String())
	}
}

// shippedDomain returns the shipped domain called name.
func shippedDomain(t *testing.T, name string) domain {
	t.Helper()
	for _, d := range Shipped() {
		if d.Name() == name {
			return d.d
		}
	}
	t.Fatalf("no shipped domain %q", name)
	return nil
}
