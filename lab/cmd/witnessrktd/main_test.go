package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun converts the first 40 test puzzles of phs and compares the
// first two with the last two of the reference's puzzles_1000_test.rktd
// (the same puzzles in reverse order), and refuses bad arguments.
func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run([]string{"../../../domain/witness/testdata/puzzles_4x4_test-first40.txt"}, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	want := "(((4 4) (0 0) (4 0) (4 2 4 0 0 0 4 1 4 0 4 0 0 0 4 1)) ((4 4) (0 0) (0 3) (4 0 0 0 0 0 0 0 0 0 1 0 0 0 2 2)) "
	if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "))\n") || strings.Count(got, "((4 4)") != 40 {
		t.Errorf("got %.200q…, want 40 puzzles starting %q", got, want)
	}

	bad := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(bad, []byte("Size: 4 4\nInit: 9 9\nGoal: 4 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{nil, {"a", "b"}, {"missing.txt"}, {bad}} {
		if err := run(args, &out); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
