package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/phs-go/phs/lab"
)

// TestJobs checks the tests of one domain: the Bootstrap and the
// fixed-limit test of each row, and the PHS* network under the other
// algorithms, each writing its own file of the row.
func TestJobs(t *testing.T) {
	js := jobs(config{data: "data", limit: "10s"}, []string{"stp"})
	if want := 2*len(lab.Algorithms) + len(lab.Algorithms) - 1; len(js) != want {
		t.Fatalf("%d jobs; want %d", len(js), want)
	}
	outs := map[string]bool{}
	for _, j := range js {
		if outs[j.Out] {
			t.Errorf("two jobs write %s", j.Out)
		}
		outs[j.Out] = true
		if !strings.HasPrefix(j.Out, "stp-") || j.Args[len(j.Args)-1] != "data/stp/puzzles_5x5_test.txt" {
			t.Errorf("job %s: %v", j.Out, j.Args)
		}
	}
	for _, out := range []string{"stp-wastar/lowlr/test", "stp-wastar/lowlr/fixed", "stp-phsstar/test-puct", "stp-gbfs/test"} {
		if !outs[out] {
			t.Errorf("no job writes %s", out)
		}
	}
	for _, j := range js {
		if fixed := strings.HasSuffix(j.Out, "/fixed"); (j.Cmd == "solve") != fixed || (j.Cmd == "test") == fixed {
			t.Errorf("%s: phs %s; want solve for the fixed-limit tests, test for the others", j.Out, j.Cmd)
		}
		if j.Out == "stp-wastar/lowlr/test" && !slices.Contains(j.Args, "../models/stp") {
			t.Errorf("stp-wastar: %v; want the shipped model", j.Args)
		}
		// A* tests the goal at generation, as the paper's; no other.
		astar := slices.Contains(j.Args, "astar")
		if i := slices.Index(j.Args, "-goal-test"); astar != (i >= 0 && j.Args[i+1] == "generation") {
			t.Errorf("%s: %v", j.Out, j.Args)
		}
	}
}

// TestFinish checks that finish gzips the results, as the lab stores
// them, with no name nor time in the header (gzip -n), and leaves no
// temporary file and no stale plain out.jsonl, which lab.ResultFile would
// read first.
func TestFinish(t *testing.T) {
	results := []byte(`{"problem":"a#0"}` + "\n" + `{"problem":"a#1"}` + "\n")
	for _, stale := range []bool{false, true} {
		dir := t.TempDir()
		out := filepath.Join(dir, "fixed")
		tmp := out + ".jsonl.tmp"
		if err := os.WriteFile(tmp, results, 0o644); err != nil {
			t.Fatal(err)
		}
		if stale {
			if err := os.WriteFile(out+".jsonl", []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := finish(tmp, out); err != nil {
			t.Fatalf("stale %v: %v", stale, err)
		}
		for _, gone := range []string{tmp, out + ".jsonl"} {
			if _, err := os.Stat(gone); err == nil {
				t.Errorf("stale %v: %s left", stale, gone)
			}
		}
		f, err := os.Open(out + ".jsonl.gz")
		if err != nil {
			t.Fatal(err)
		}
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(z)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, results) {
			t.Errorf("stale %v: gunzipped %q; want %q", stale, got, results)
		}
		if z.Name != "" || !z.ModTime.IsZero() {
			t.Errorf("stale %v: header name %q, time %v; want neither", stale, z.Name, z.ModTime)
		}
	}
}
