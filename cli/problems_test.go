package cli

import (
	"context"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/phs-go/phs/domain/stp"
)

// TestFirstReadsOnlyFirst checks that solve -first N and test -first N
// read the first N problems of their files and nothing after them (a bad
// problem after them is not seen; a file after them is not opened, but
// must exist), in every shipped domain and in a domain without
// ParseFirst.
func TestFirstReadsOnlyFirst(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		domain, good, bad string
		n                 int
	}{
		{"stp", "1 0 2 3\n1 3 2 0\n", "1 2 x 0\n", 2},
		{"sokoban", sokobanFixture + "\n", "; 2\n#@$?#\n", 2},
		{"witness", "Size: 1 1\nInit: 0 0\nGoal: 1 1\nColors:\n\n", "Size: x\n", 1},
		{"rubiks", "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB\n", "UUU\n", 1},
	} {
		file := filepath.Join(dir, tc.domain+".txt")
		writeTo(t, file, tc.good+tc.bad)
		budget := []string{"-budget", "100", "-progress", "0"}
		for _, cmd := range [][]string{{"solve"}, {"test", "-rounds", "1"}} {
			args := append(append(append(cmd, "-domain", tc.domain, "-model", "none", "-first", strconv.Itoa(tc.n)), budget...), file)
			out, errOut, err := runPHS(t, args...)
			if err != nil {
				t.Errorf("%s -first %d of a file whose problem %d is bad: %v\n%s", strings.Join(args[:3], " "), tc.n, tc.n+1, err, errOut)
				continue
			}
			if cmd[0] == "solve" && len(decodeRecords(t, out)) != tc.n {
				t.Errorf("%s: %d records, want %d", strings.Join(args[:3], " "), len(decodeRecords(t, out)), tc.n)
			}
		}
		if _, _, err := runPHS(t, append([]string{"solve", "-domain", tc.domain, "-model", "none", "-first", strconv.Itoa(tc.n + 1)}, append(budget, file)...)...); err == nil {
			t.Errorf("%s: -first %d reads the bad problem without an error", tc.domain, tc.n+1)
		}
	}
	// A file after the first N problems is not read, but must exist.
	tiles := filepath.Join(dir, "stp.txt")
	if _, _, err := runPHS(t, "solve", "-domain", "stp", "-model", "none", "-first", "1", tiles, filepath.Join(dir, "missing.txt")); err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("-first 1 with a missing second file: %v; want an error that names it", err)
	}
	// -first N across files: 1 problem of the first file, 1 of the second.
	one := filepath.Join(dir, "one.txt")
	writeTo(t, one, "1 0 2 3\n")
	out, _, err := runPHS(t, "solve", "-domain", "stp", "-model", "none", "-first", "2", one, tiles)
	if recs := decodeRecords(t, out); err != nil || len(recs) != 2 || recs[1].Problem != "stp.txt#0" {
		t.Errorf("-first 2 of one.txt (1 puzzle) and stp.txt: %d records, %v", len(recs), err)
	}
	// A domain without ParseFirst reads its files whole.
	d := NewDomain[stp.State]("tiles", stp.Parse[stp.State])
	if err := Run(context.Background(), []string{"solve", "-domain", "tiles", "-first", "2", tiles}, io.Discard, io.Discard, d); err == nil || !strings.Contains(err.Error(), "stp.txt:3") {
		t.Errorf("a domain without ParseFirst: %v; want the error of the file's third line", err)
	}
}

// TestMaxProblems checks that the commands read at most maxProblems
// problems from their files, in all: more is an error that names the
// file and the bound, even in a domain without ParseFirst; -first N reads
// the first N.
func TestMaxProblems(t *testing.T) {
	defer func(n int) { maxProblems = n }(maxProblems)
	maxProblems = 3
	dir := t.TempDir()
	four := filepath.Join(dir, "four.txt")
	writeTo(t, four, "1 0 2 3\n1 3 2 0\n0 1 2 3\n1 0 2 3\n")
	two := filepath.Join(dir, "two.txt")
	writeTo(t, two, "1 0 2 3\n1 3 2 0\n")
	d := NewDomain[stp.State]("tiles", stp.Parse[stp.State])
	for _, tc := range []struct {
		args []string
		file string // the file named in the error; none for no error
	}{
		{[]string{"solve", "-domain", "stp", four}, "four.txt"},
		{[]string{"solve", "-domain", "stp", two, two}, "two.txt"},
		{[]string{"solve", "-domain", "stp", "-first", "3", four}, ""},
		{[]string{"solve", "-domain", "stp", "-first", "5", four}, "four.txt"},
		{[]string{"test", "-domain", "stp", "-rounds", "1", four}, "four.txt"},
		{[]string{"train", "-domain", "stp", "-dir", filepath.Join(dir, "run"), "-iterations", "1", four}, "four.txt"},
		{[]string{"solve", "-domain", "tiles", four}, "four.txt"},
	} {
		args := append([]string{tc.args[0], "-model", "none", "-budget", "100"}, tc.args[1:]...)
		if tc.args[0] == "train" {
			args = append([]string{"train", "-arch", "resnet", "-units", "8", "-budget", "100"}, tc.args[1:]...)
		}
		err := Run(context.Background(), args, io.Discard, io.Discard, append(Shipped(), d)...)
		switch {
		case tc.file == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.file != "" && (err == nil || !strings.Contains(err.Error(), tc.file) || !strings.Contains(err.Error(), "more than 3 problems")):
			t.Errorf("%v: %v; want an error that names %s and the bound, 3 problems", tc.args, err, tc.file)
		}
	}
}
