package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// root is the repository's root, from this package's directory.
const root = "../../.."

// TestCommitted checks that the committed docs/RESULTS.md and the README's
// table are what the command writes from the lab's committed results:
// after a change of the results or of the generator, run
// "cd lab && go run ./cmd/results".
func TestCommitted(t *testing.T) {
	page, table, err := generate(filepath.Join(root, "lab"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, pageFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, page) {
		t.Errorf("%s differs from the generator's output: run \"cd lab && go run ./cmd/results\"", pageFile)
	}
	readme, err := os.ReadFile(filepath.Join(root, readmeFile))
	if err != nil {
		t.Fatal(err)
	}
	want, err := replaceTable(readme, table)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readme, want) {
		t.Errorf("the results table of %s differs from the generator's output: run \"cd lab && go run ./cmd/results\"", readmeFile)
	}
}

func TestReplaceTable(t *testing.T) {
	in := "a\n" + readmeBegin + "\nold\nlines\n" + readmeEnd + "\nb\n"
	got, err := replaceTable([]byte(in), []byte("new\n"))
	if want := "a\n" + readmeBegin + "\nnew\n" + readmeEnd + "\nb\n"; err != nil || string(got) != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{"a\n", readmeBegin + "\nno end\n", readmeEnd + "\n" + readmeBegin + "\n"} {
		if _, err := replaceTable([]byte(bad), nil); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestNum(t *testing.T) {
	for _, c := range []struct {
		x    float64
		dec  int
		want string
	}{
		{0, 0, "0"}, {999, 0, "999"}, {1000, 0, "1,000"}, {1234567.89, 1, "1,234,567.9"},
		{12.345, 3, "12.345"}, {100000, 1, "100,000.0"},
	} {
		if got := num(c.x, c.dec); got != c.want {
			t.Errorf("num(%v, %d) = %q; want %q", c.x, c.dec, got, c.want)
		}
	}
}

func TestDuration(t *testing.T) {
	for s, want := range map[float64]string{0: "0h00", 59: "0h01", 3600: "1h00", 22737: "6h19"} {
		if got := duration(s); got != want {
			t.Errorf("duration(%v) = %q; want %q", s, got, want)
		}
	}
}
