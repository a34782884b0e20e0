package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/phs-go/phs/lab"
)

// labDir is the lab's directory, seen from this package's.
const labDir = "../.."

// testConfig is the configuration of the tests: the data sets in DATA,
// the medium levels in TMP, one worker, every problem.
var testConfig = config{data: "DATA", limit: "10s", workers: 1, lab: labDir, tmp: "TMP"}

// TestJobCommands checks a job of each kind of each group: its program,
// its arguments (model, flags, input) and the record it writes, in the
// lab's layout, with the solutions the lab keeps.
func TestJobCommands(t *testing.T) {
	const (
		sokobanTest = "DATA/boxoban/unfiltered/test/000.txt"
		medium      = "TMP/medium-049-first200.txt"
		common      = "-workers 1 -progress 0"
	)
	for _, tc := range []struct {
		group, out string
		// argv is the job's command line when it writes OUT.
		argv string
		keep keep
	}{
		{"table1", "stp-wastar/lowlr/test",
			"test -out OUT -domain stp " + common + " -model ../models/stp -alg wastar -rounds 0 DATA/stp/puzzles_5x5_test.txt", keepAll},
		{"table1", "sokoban-astar/lowlr/fixed",
			"solve -out OUT -domain sokoban " + common + " -first 100 -model sokoban-astar/lowlr/model -alg astar -goal-test generation -timeout 10s " + sokobanTest, keepAll},
		{"table1", "sokoban-gbfs/lowlr/test",
			"test -out OUT -domain sokoban " + common + " -model sokoban-gbfs/lowlr/model -alg gbfs -rounds 9 " + sokobanTest, keepAll},
		{"table1", "witness-phsstar/test-puct",
			"test -out OUT -domain witness " + common + " -model witness-phsstar/model -alg puct -rounds 3 DATA/witness/puzzles_4x4_test.txt", keepAll},
		{"pruned", "experiments/sokoban-phsstar-pruned/test",
			"test -out OUT -domain sokoban " + common + " -model experiments/sokoban-phsstar-pruned/model -rounds 10 " + sokobanTest, keepAll},
		{"successors", "witness-ltscm/test",
			"test -out OUT -domain witness " + common + " -model ../models/witness/table.safetensors -batch 1 -rounds 10 DATA/witness/puzzles_4x4_test.txt", keepAll},
		{"sqrtlts", "experiments/sokoban-sqrtlts/test-sqrtlts-l",
			"test -out OUT -domain sokoban " + common + " -model experiments/sokoban-phsstar-pruned/model -batch 1 -alg sqrtlts:l -rounds 5 " + sokobanTest, keepCommitted},
		{"sqrtlts", "experiments/sokoban-sqrtlts/test-mix-sqrtlts-h",
			"test -out OUT -domain sokoban " + common + " -model experiments/sokoban-phsstar-pruned/model -batch 1 -alg sqrtlts:h -mix 0.01 -rounds 10 " + sokobanTest, keepCommitted},
		{"sqrtlts-training", "sokoban-sqrtlts-training/sqrtlts-h/test",
			"test -out OUT -domain sokoban " + common + " -model sokoban-sqrtlts-training/sqrtlts-h/model -rounds 10 " + sokobanTest, keepCommitted},
		{"shorter", "experiments/sokoban-shorter/test-new-T12",
			"solve -out OUT -domain sokoban " + common + " " + sokobanTest, keepCommitted},
		{"shorter", "experiments/sokoban-shorter/test-new-T4-reorder",
			"solve -out OUT -domain sokoban " + common + " -temperature 4 -shorten -reorder " + sokobanTest, keepCommitted},
		{"shorter", "experiments/sokoban-shorter/test-medium-dead-b16-reorder",
			"solve -out OUT -domain sokoban " + common + " -model sokoban-hard -batch 16 -shorten -reorder " + medium, keepCommitted},
		{"shorter", "experiments/sokoban-shorter/test-wastar",
			"solve -out OUT -domain sokoban " + common + " -model none -alg wastar -prune-deadlocks " + sokobanTest, keepCommitted},
		{"timings", "experiments/sokoban-shorter/tm-ship-3",
			"solve -out OUT -domain sokoban " + common + " -shorten -reorder " + medium, keepNone},
		{"timings", "experiments/sokoban-shorter/tm-wa-5",
			"solve -out OUT -domain sokoban " + common + " -model none -alg wastar -prune-deadlocks " + medium, keepNone},
		{"optima", "experiments/sokoban-shorter/optima-test",
			"-o OUT -workers 1 " + sokobanTest, keepAll},
		{"optima", "experiments/sokoban-shorter/optima-medium",
			"-o OUT -workers 1 " + medium, keepNone},
	} {
		js, _, err := jobs(testConfig, []string{tc.group}, lab.Domains)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(js, func(j job) bool { return j.Out == tc.out })
		if i < 0 {
			t.Errorf("%s: no job writes %s", tc.group, tc.out)
			continue
		}
		j := js[i]
		prog := "phs"
		if tc.group == "optima" {
			prog = "sokopt"
		}
		if got := strings.Join(j.argv("OUT"), " "); j.Prog != prog || got != tc.argv {
			t.Errorf("%s: %s %s\nwant %s %s", tc.out, j.Prog, got, prog, tc.argv)
		}
		if j.Group != tc.group || j.Keep != tc.keep {
			t.Errorf("%s: group %s, keep %d; want %s, %d", tc.out, j.Group, j.Keep, tc.group, tc.keep)
		}
	}
}

// TestGroups checks the jobs of each group against the lab's lists: how
// many, each writing a record of its own, and of the domains asked for
// only; and that -first bounds every record.
func TestGroups(t *testing.T) {
	finished := 0
	for _, r := range lab.SqrtLTSTraining {
		done, _, err := r.Finished(labDir)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			finished++
		}
	}
	committedSuccessors := 0
	for _, sc := range lab.Successors {
		if sc.Model != "" {
			committedSuccessors++
		}
	}
	for _, tc := range []struct {
		group   string
		domains []string
		want    int
	}{
		{"table1", []string{"stp"}, 2*len(lab.Algorithms) + len(lab.Algorithms) - 1},
		{"table1", lab.Domains, len(lab.Domains) * (3*len(lab.Algorithms) - 1)},
		{"table1", nil, 0},
		{"pruned", lab.Domains, 1},
		{"pruned", []string{"witness", "stp"}, 0},
		{"successors", lab.Domains, committedSuccessors},
		{"sqrtlts", lab.Domains, len(lab.SqrtLTSTests)},
		{"sqrtlts-training", lab.Domains, finished},
		{"shorter", lab.Domains, len(lab.ShorterTests)},
		{"timings", lab.Domains, len(lab.ShorterTimings) * lab.ShorterTimingRuns},
		{"optima", []string{"sokoban"}, 2},
	} {
		js, _, err := jobs(testConfig, []string{tc.group}, tc.domains)
		if err != nil {
			t.Fatal(err)
		}
		if len(js) != tc.want {
			t.Errorf("%s on %v: %d jobs; want %d", tc.group, tc.domains, len(js), tc.want)
		}
		for _, j := range js {
			if j.Group != tc.group || !slices.Contains(tc.domains, j.Domain) {
				t.Errorf("%s on %v: a job of %s on %s", tc.group, tc.domains, j.Group, j.Domain)
			}
		}
	}

	c := testConfig
	c.first = 5
	js, _, err := jobs(c, groupNames(), lab.Domains)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range js {
		flag := "-first"
		if j.Prog == "sokopt" {
			flag = "-n"
		}
		if i := slices.Index(j.Args, flag); i < 0 || j.Args[i+1] != "5" || slices.Index(j.Args[i+1:], flag) >= 0 {
			t.Errorf("%s with -first 5: %v; want one %s 5", j.Out, j.Args, flag)
		}
	}
}

// TestJobsMatchLab checks every job against the lab's files: a model it
// names by its path is committed, it writes a record the lab keeps there
// (gzipped), and it keeps the solutions the committed record keeps.
func TestJobsMatchLab(t *testing.T) {
	js, _, err := jobs(testConfig, groupNames(), lab.Domains)
	if err != nil {
		t.Fatal(err)
	}
	outs := map[string]bool{}
	for _, j := range js {
		if outs[j.Out] {
			t.Errorf("two jobs write %s", j.Out)
		}
		outs[j.Out] = true
		if i := slices.Index(j.Args, "-model"); i >= 0 && strings.Contains(j.Args[i+1], "/") {
			if _, err := os.Stat(filepath.Join(labDir, j.Args[i+1])); err != nil {
				t.Errorf("%s: %v", j.Out, err)
			}
		}
		committed := filepath.Join(labDir, j.Out+".jsonl.gz")
		if got := solutionsKept(t, committed); got != j.Keep {
			t.Errorf("%s: keeps solutions %d; the committed record %d", j.Out, j.Keep, got)
		}
	}
}

// solutionsKept returns which solutions the records in the gzipped file
// at path keep.
func solutionsKept(t *testing.T, path string) keep {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err = io.ReadAll(z)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var first, rest, total, later int
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var rec struct {
			Problem  string
			Solution *string
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		_, index, _ := strings.Cut(rec.Problem, "#")
		i, err := strconv.Atoi(index)
		if err != nil {
			t.Fatalf("%s: problem %q", path, rec.Problem)
		}
		total++
		if i >= committedProblems {
			later++
		}
		if rec.Solution != nil {
			if i < committedProblems {
				first++
			} else {
				rest++
			}
		}
	}
	switch {
	case first+rest == total:
		return keepAll
	case first+rest == 0:
		return keepNone
	case rest == 0 && first == total-later:
		return keepCommitted
	}
	t.Fatalf("%s: %d of %d records keep their solutions", path, first+rest, total)
	return 0
}

// TestSkips checks the rows skipped: every row of the lab's lists whose
// model is not committed, or whose run stopped before its test, each
// with its reason, and no other; and that their models are indeed not
// in the lab.
func TestSkips(t *testing.T) {
	_, skips, err := jobs(testConfig, groupNames(), lab.Domains)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{} // the reason of each row skipped
	for _, sc := range lab.Successors {
		if sc.Model == "" {
			want[sc.Dir+"/"+sc.TestName()] = "model is not committed"
		}
	}
	for _, r := range lab.SqrtLTSTraining {
		done, _, err := r.Finished(labDir)
		if err != nil {
			t.Fatal(err)
		}
		if !done {
			want[lab.SqrtLTSTrainingDir+"/"+r.Name+"/test"] = "no test"
		}
	}
	if len(want) == 0 {
		t.Fatal("no row to skip: the test checks nothing")
	}
	for _, s := range skips {
		why, ok := want[s.Out]
		if !ok || !strings.Contains(s.Why, why) {
			t.Errorf("skipped %s: %s; want %q", s.Out, s.Why, why)
		}
		delete(want, s.Out)
		if _, err := os.Stat(filepath.Join(labDir, filepath.Dir(s.Out), "model")); err == nil && strings.Contains(s.Why, "not committed") {
			t.Errorf("skipped %s, but its model is committed", s.Out)
		}
	}
	for out := range want {
		t.Errorf("%s not skipped", out)
	}

	// Skips are of the domains asked for.
	_, skips, err = jobs(testConfig, groupNames(), []string{"witness", "stp"})
	if err != nil {
		t.Fatal(err)
	}
	if len(skips) != 0 {
		t.Errorf("witness and stp: skips %v; want none", skips)
	}
}

// TestParseGroups checks -groups.
func TestParseGroups(t *testing.T) {
	for _, tc := range []struct {
		list string
		want []string
		err  bool
	}{
		{"table1", []string{"table1"}, false},
		{"shorter,timings", []string{"shorter", "timings"}, false},
		{strings.Join(groupNames(), ","), groupNames(), false},
		{"", nil, true},
		{"table1,", nil, true},
		{"table", nil, true},
	} {
		got, err := parseGroups(tc.list)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("parseGroups(%q) = %v, %v; want %v, error %v", tc.list, got, err, tc.want, tc.err)
		}
	}
}

// TestFirstLevels checks that firstLevels keeps the lines before the
// (n+1)-th level, as awk '/^; /{n++} n<=N', and fails on a file of fewer
// levels.
func TestFirstLevels(t *testing.T) {
	const file = "; 0\n###\n#@#\n\n; 1\n###\n\n; 2\n#\n"
	for _, tc := range []struct {
		n    int
		want string
		err  bool
	}{
		{1, "; 0\n###\n#@#\n\n", false},
		{2, "; 0\n###\n#@#\n\n; 1\n###\n\n", false},
		{3, file, false},
		{4, "", true},
	} {
		dir := t.TempDir()
		src, dst := filepath.Join(dir, "049.txt"), filepath.Join(dir, "first.txt")
		if err := os.WriteFile(src, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		err := firstLevels(src, dst, tc.n)
		if tc.err {
			if err == nil {
				t.Errorf("n %d: no error; want one", tc.n)
			}
			continue
		}
		got, rerr := os.ReadFile(dst)
		if err != nil || rerr != nil || string(got) != tc.want {
			t.Errorf("n %d: %q, %v, %v; want %q", tc.n, got, err, rerr, tc.want)
		}
	}
}

// TestFinish checks that finish gzips the results, as the lab stores
// them, with no name nor time in the header (gzip -n), with the
// solutions it is asked to keep and every other member as it was, and
// leaves no temporary file and no stale plain out.jsonl, which
// lab.ResultFile would read first.
func TestFinish(t *testing.T) {
	rec := func(i int, sol bool) string {
		s := `{"problem":"a.txt#` + strconv.Itoa(i) + `","solved":true,"time_s":0.0125`
		if sol {
			s += `,"solution":"UR\"D"`
		}
		return s + `,"reorder_expansions":3}` + "\n"
	}
	results := rec(0, true) + rec(39, true) + rec(40, true) + rec(41, true)
	for _, tc := range []struct {
		keep  keep
		stale bool
		want  string
	}{
		{keepAll, false, results},
		{keepAll, true, results},
		{keepCommitted, false, rec(0, true) + rec(39, true) + rec(40, false) + rec(41, false)},
		{keepNone, true, rec(0, false) + rec(39, false) + rec(40, false) + rec(41, false)},
	} {
		dir := t.TempDir()
		out := filepath.Join(dir, "fixed")
		tmp := out + ".jsonl.tmp"
		if err := os.WriteFile(tmp, []byte(results), 0o644); err != nil {
			t.Fatal(err)
		}
		if tc.stale {
			if err := os.WriteFile(out+".jsonl", []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := finish(tmp, out, tc.keep); err != nil {
			t.Fatalf("keep %d, stale %v: %v", tc.keep, tc.stale, err)
		}
		for _, gone := range []string{tmp, out + ".jsonl"} {
			if _, err := os.Stat(gone); err == nil {
				t.Errorf("keep %d, stale %v: %s left", tc.keep, tc.stale, gone)
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
		if string(got) != tc.want {
			t.Errorf("keep %d, stale %v: gunzipped\n%s\nwant\n%s", tc.keep, tc.stale, got, tc.want)
		}
		if z.Name != "" || !z.ModTime.IsZero() {
			t.Errorf("keep %d, stale %v: header name %q, time %v; want neither", tc.keep, tc.stale, z.Name, z.ModTime)
		}
	}
}

// TestDropSolutionsErrors checks that dropSolutions fails, naming the
// line, on what is not a record.
func TestDropSolutionsErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		keep keep
		err  string
	}{
		{`{"problem":"a#0"}` + "\n{\n", keepNone, "line 2"},
		{`{"problem":"a"}` + "\n", keepCommitted, `line 1: problem "a": no index`},
		{`["problem"]` + "\n", keepNone, "line 1"},
	} {
		_, err := dropSolutions([]byte(tc.in), tc.keep)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: %v; want an error with %q", tc.in, err, tc.err)
		}
	}
}
