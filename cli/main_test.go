package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/report"
)

// run runs the command line args with the shipped domains.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return Run(ctx, args, stdout, stderr, Shipped()...)
}

func runPHS(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var o, e bytes.Buffer
	err = run(context.Background(), args, &o, &e)
	return o.String(), e.String(), err
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const sokobanFixture = `; 0
######
#@$ .#
#    #
######

; 1
######
#@$. #
#  $.#
######
`

const stpFixture = "1 0 2 3\n1 3 2 0\n"

func decodeRecords(t *testing.T, s string) []report.Record {
	t.Helper()
	recs, err := report.ReadJSONL(strings.NewReader(s), "output")
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestSolve(t *testing.T) {
	sok := writeFile(t, "levels.txt", sokobanFixture)
	stp := writeFile(t, "tiles.txt", stpFixture)
	for _, tc := range []struct {
		args []string
		ids  []string
	}{
		{[]string{"-domain", "sokoban", "-alg", "gbfs", "-model", "none", sok}, []string{"levels.txt#0", "levels.txt#1"}},
		{[]string{"-domain", "sokoban", "-alg", "phs*", "-model", "none", "-batch", "1", "-workers", "1", sok}, []string{"levels.txt#0", "levels.txt#1"}},
		{[]string{"-domain", "stp", "-alg", "astar", "-model", "none", stp}, []string{"tiles.txt#0", "tiles.txt#1"}},
		{[]string{"-domain", "stp", "-alg", "puct", "-model", "none", stp}, []string{"tiles.txt#0", "tiles.txt#1"}},
		{[]string{"-domain", "stp", "-alg", "phssafe", "-model", "none", stp}, []string{"tiles.txt#0", "tiles.txt#1"}},
		{[]string{"-domain", "stp", "-alg", "sqrtlts", "-model", "none", stp}, []string{"tiles.txt#0", "tiles.txt#1"}},
		{[]string{"-domain", "stp", "-alg", "sqrtlts:h:10", "-model", "none", stp}, []string{"tiles.txt#0", "tiles.txt#1"}},
		{[]string{"-domain", "sokoban", "-alg", "sqrtlts:lh:1:levin", "-model", "none", sok}, []string{"levels.txt#0", "levels.txt#1"}},
		{[]string{"-domain", "sokoban", "-alg", "sqrtlts:l", "-model", "none", "-batch", "1", sok}, []string{"levels.txt#0", "levels.txt#1"}},
		{[]string{"-domain", "stp", "-alg", "astar", "-model", "none", "-first", "1", stp}, []string{"tiles.txt#0"}},
		{[]string{"-domain", "stp", "-alg", "astar", "-model", "none", "-first", "3", stp}, []string{"tiles.txt#0", "tiles.txt#1"}},
	} {
		out, errOut, err := runPHS(t, append([]string{"solve", "-progress", "0"}, tc.args...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, errOut)
		}
		recs := decodeRecords(t, out)
		if len(recs) != len(tc.ids) {
			t.Fatalf("%v: %d records, want %d", tc.args, len(recs), len(tc.ids))
		}
		for i, r := range recs {
			if r.Problem != tc.ids[i] || !r.Solved || len(r.Solution) != r.Length {
				t.Errorf("%v: record %d = %+v", tc.args, i, r)
			}
		}
		if n := len(tc.ids); !strings.Contains(errOut, fmt.Sprintf("%d/%d", n, n)) {
			t.Errorf("%v: no summary table on stderr:\n%s", tc.args, errOut)
		}
	}
}

func TestSolveOutAndRender(t *testing.T) {
	sok := writeFile(t, "levels.txt", sokobanFixture)
	outFile := filepath.Join(t.TempDir(), "r.jsonl")
	stdout, _, err := runPHS(t, "solve", "-domain", "sokoban", "-alg", "astar", "-model", "none", "-render", "-out", outFile, sok)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "step 1:") || !strings.Contains(stdout, "2/2") {
		t.Errorf("stdout lacks the rendering or the table:\n%s", stdout)
	}
	b, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	if recs := decodeRecords(t, string(b)); len(recs) != 2 {
		t.Errorf("%d records in -out file", len(recs))
	}
}

func TestUsageErrors(t *testing.T) {
	sok := writeFile(t, "levels.txt", sokobanFixture)
	bad := writeFile(t, "bad.txt", "; 0\n#####\n#@$x#\n#####\n")
	witNet := witnessNetwork(t, nil) // a policy alone
	for _, tc := range []struct {
		args  []string
		usage bool
		msg   string
	}{
		{nil, true, "no command"},
		{[]string{"frobnicate"}, true, "unknown command"},
		{[]string{"solve", sok}, true, "-domain is required"},
		{[]string{"solve", "-domain", "chess", sok}, true, "unknown domain"},
		{[]string{"solve", "-domain", "sokoban", "-alg", "dfs", sok}, true, "unknown algorithm"},
		{[]string{"solve", "-domain", "sokoban"}, true, "no problem files"},
		{[]string{"solve", "-domain", "sokoban", bad}, false, "bad.txt:3"},
		{[]string{"solve", "-domain", "sokoban", "missing.txt"}, false, "missing.txt"},
		{[]string{"solve", "-domain", "witness", "-model", witNet, "-alg", "phsh", "../examples/witness-4x4.txt"}, false, "phsh needs a heuristic"},
		{[]string{"solve", "-domain", "witness", "-model", witNet, "-alg", "gbfs", "../examples/witness-4x4.txt"}, false, "gbfs needs a heuristic"},
		{[]string{"generate", "witness", "-size", "4by4"}, true, "bad -size"},
		{[]string{"generate", "stp", "-walk", "9:3"}, true, "bad range"},
		{[]string{"generate", "witness", "-size", "8x8"}, true, "more than 64 vertices"},
		{[]string{"generate", "witness", "-size", "1x1"}, true, "at least 2 cells"},
		{[]string{"generate", "stp", "-size", "1x5"}, true, "want at least 2x2"},
		{[]string{"generate", "stp", "-size", "9x8"}, true, "more than 64 cells"},
		{[]string{"generate", "chess"}, true, "unknown domain"},
		{[]string{"train", "-domain", "witness"}, true, "-dir is required"},
		{[]string{"plot", "x"}, true, "-out is required"},
	} {
		_, _, err := runPHS(t, tc.args...)
		var u usageError
		if err == nil || !strings.Contains(err.Error(), tc.msg) || errors.As(err, &u) != tc.usage {
			t.Errorf("%q: err = %v (usage error: %v), want %q (usage error: %v)", tc.args, err, errors.As(err, &u), tc.msg, tc.usage)
		}
	}
}

// TestGenerateSolve generates problems and solves them with every
// algorithm, with and without the shipped model.
func TestGenerateSolve(t *testing.T) {
	dir := t.TempDir()
	wit := filepath.Join(dir, "w.txt")
	tiles := filepath.Join(dir, "t.txt")
	if _, _, err := runPHS(t, "generate", "witness", "-n", "6", "-size", "3x3", "-seed", "2", "-out", wit); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runPHS(t, "generate", "stp", "-n", "4", "-size", "3x3", "-walk", "5:12", "-out", tiles); err != nil {
		t.Fatal(err)
	}
	for _, alg := range []string{"phsstar", "phsh", "levints", "astar", "wastar", "gbfs", "puct", "phssafe"} {
		for _, tc := range []struct{ domain, file string }{{"witness", wit}, {"stp", tiles}} {
			out, errOut, err := runPHS(t, "solve", "-domain", tc.domain, "-alg", alg, "-model", "none", "-budget", "100000", tc.file)
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", tc.domain, alg, err, errOut)
			}
			for _, r := range decodeRecords(t, out) {
				if !r.Solved {
					t.Errorf("%s %s: %s not solved", tc.domain, alg, r.Problem)
				}
			}
		}
	}
}

// trainingSet writes 40 generated 3x3 Witness puzzles to a file in dir
// and returns its path.
func trainingSet(t *testing.T, dir string) string {
	t.Helper()
	wit := filepath.Join(dir, "w.txt")
	if _, _, err := runPHS(t, "generate", "witness", "-n", "40", "-size", "3x3", "-seed", "5", "-out", wit); err != nil {
		t.Fatal(err)
	}
	return wit
}

// smallNetwork returns, with -short, the flags of a network smaller than
// the library's, for the tests of the command's wiring that train one.
func smallNetwork() []string {
	if testing.Short() {
		return []string{"-filters", "8", "-hidden", "16"}
	}
	return nil
}

// TestSqrtLTSIsLevinTS checks that phs solve with sqrtlts:levin (√LTS
// with the constant rerooter of weight 0 and the Levin cost) finds what
// levints finds, with as many expansions and generated nodes, on
// generated 4x4 Witness puzzles with the shipped context model, and on
// Sokoban levels and sliding-tile puzzles with a uniform policy.
func TestSqrtLTSIsLevinTS(t *testing.T) {
	wit := filepath.Join(t.TempDir(), "w.txt")
	if _, _, err := runPHS(t, "generate", "witness", "-n", "20", "-size", "4x4", "-seed", "7", "-out", wit); err != nil {
		t.Fatal(err)
	}
	sok := writeFile(t, "levels.txt", sokobanFixture)
	stp := writeFile(t, "tiles.txt", stpFixture+"3 1 2 4 0 5 6 7 8\n")
	for _, args := range [][]string{
		{"-domain", "witness", wit},
		{"-domain", "sokoban", "-model", "none", sok},
		{"-domain", "stp", "-model", "none", stp},
	} {
		var recs [2][]report.Record
		for i, alg := range []string{"levints", "sqrtlts:levin"} {
			out, errOut, err := runPHS(t, append([]string{"solve", "-alg", alg, "-progress", "0", "-workers", "1"}, args...)...)
			if err != nil {
				t.Fatalf("%s %v: %v\n%s", alg, args, err, errOut)
			}
			recs[i] = decodeRecords(t, out)
		}
		if len(recs[0]) == 0 || len(recs[0]) != len(recs[1]) {
			t.Fatalf("%v: %d and %d records", args, len(recs[0]), len(recs[1]))
		}
		for i, a := range recs[0] {
			b := recs[1][i]
			if a.Problem != b.Problem || a.Solved != b.Solved || a.Expansions != b.Expansions || a.Generated != b.Generated || a.Solution != b.Solution {
				t.Errorf("%v: levints %+v\nsqrtlts:levin %+v", args, a, b)
			}
		}
	}
}

// TestTrainTestSqrtLTS trains √LTS-LH's two-headed network with phs
// train, tests it with phs test, solves with another rerooter on it, and
// refuses a rerooter that reads h with a policy-only network.
func TestTrainTestSqrtLTS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wit := trainingSet(t, dir)
	run := filepath.Join(dir, "run")
	if _, errOut, err := runPHS(t, append([]string{"train", "-domain", "witness", "-alg", "sqrtlts:lh:1", "-iterations", "1", "-budget", "50", "-dir", run}, append(smallNetwork(), wit)...)...); err != nil {
		t.Fatalf("train: %v\n%s", err, errOut)
	}
	if cfg := checkpointConfig(t, run); !strings.Contains(cfg, `"algorithm": "sqrtlts:lh:1"`) || !strings.Contains(cfg, `"heads": "both"`) {
		t.Errorf("the checkpoint's config.json:\n%s", cfg)
	}
	out, errOut, err := runPHS(t, "test", "-domain", "witness", "-model", run, "-budget", "10", wit)
	if err != nil {
		t.Fatalf("test: %v\n%s", err, errOut)
	}
	if recs := decodeRecords(t, out); len(recs) != 40 || recs[0].Algorithm != "sqrtlts" {
		t.Errorf("test: %d records, the first %+v", len(recs), recs[0])
	}
	out, errOut, err = runPHS(t, "solve", "-domain", "witness", "-model", run, "-alg", "sqrtlts:h:10", "-first", "3", "-progress", "0", wit)
	if err != nil {
		t.Fatalf("solve: %v\n%s", err, errOut)
	}
	for _, r := range decodeRecords(t, out) {
		if !r.Solved {
			t.Errorf("solve -alg sqrtlts:h:10: %+v", r)
		}
	}
	levin := filepath.Join(dir, "levin")
	if _, errOut, err := runPHS(t, append([]string{"train", "-domain", "witness", "-alg", "sqrtlts:l", "-iterations", "1", "-budget", "10", "-dir", levin}, append(smallNetwork(), wit)...)...); err != nil {
		t.Fatalf("train: %v\n%s", err, errOut)
	}
	if _, _, err := runPHS(t, "solve", "-domain", "witness", "-model", levin, "-alg", "sqrtlts:h", wit); err == nil || !strings.Contains(err.Error(), "heuristic") {
		t.Errorf("sqrtlts:h with a policy-only model: %v", err)
	}
}

// TestTrainTestPlot trains a tiny model, interrupts nothing, resumes a
// finished run with a larger iteration limit, tests it and plots.
func TestTrainTestPlot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wit := trainingSet(t, dir)
	run := filepath.Join(dir, "run")
	if _, errOut, err := runPHS(t, append([]string{"train", "-domain", "witness", "-alg", "levints", "-iterations", "1", "-budget", "50", "-dir", run}, append(smallNetwork(), wit)...)...); err != nil {
		t.Fatalf("train: %v\n%s", err, errOut)
	}
	if _, _, err := runPHS(t, "train", "-domain", "witness", "-dir", run, wit); err == nil || !strings.Contains(err.Error(), "-resume") {
		t.Errorf("training into a used directory: %v", err)
	}
	if _, _, err := runPHS(t, "train", "-resume", run, "-alg", "astar"); err == nil || !strings.Contains(err.Error(), "-alg") {
		t.Errorf("changing -alg on resume: %v", err)
	}
	if _, errOut, err := runPHS(t, "train", "-resume", run, "-iterations", "2"); err != nil {
		t.Fatalf("resume: %v\n%s", err, errOut)
	}
	b, err := os.ReadFile(filepath.Join(run, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 2 {
		t.Errorf("%d iterations in metrics.jsonl, want 2", n)
	}
	out, errOut, err := runPHS(t, "test", "-domain", "witness", "-model", run, "-budget", "10", wit)
	if err != nil {
		t.Fatalf("test: %v\n%s", err, errOut)
	}
	recs := decodeRecords(t, out)
	if len(recs) != 40 {
		t.Fatalf("%d records, want 40", len(recs))
	}
	out, errOut, err = runPHS(t, "solve", "-domain", "witness", "-model", run, "-first", "5", wit)
	if err != nil {
		t.Fatalf("solve -first 5: %v\n%s", err, errOut)
	}
	seen := map[string]bool{}
	for _, r := range decodeRecords(t, out) {
		seen[r.Problem] = true
	}
	for i := range 5 {
		delete(seen, fmt.Sprintf("w.txt#%d", i))
	}
	if len(seen) != 0 || strings.Count(out, "\n") != 5 {
		t.Errorf("solve -first 5: records of other problems than the first 5:\n%s", out)
	}
	if _, _, err := runPHS(t, "test", "-domain", "witness", "-model", run, "-alg", "astar", wit); err == nil || !strings.Contains(err.Error(), "heuristic") {
		t.Errorf("astar with a policy-only model: %v", err)
	}
	res := filepath.Join(dir, "r.jsonl")
	var lines []string
	for _, r := range recs {
		b, _ := json.Marshal(r)
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(res, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"plot", "-out", filepath.Join(dir, "c.png"), run},
		{"plot", "-x", "expansions", "-out", filepath.Join(dir, "c.svg"), run},
		{"plot", "-profile", "-out", filepath.Join(dir, "p.png"), res},
	} {
		if _, _, err := runPHS(t, args...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
}

// TestShippedModelFallback checks that an algorithm reading an output the
// shipped model lacks runs without the model, as with -model none, and
// says so: a heuristic with The Witness's context model (a policy alone),
// a policy with the sliding-tile puzzle's network (a heuristic alone).
func TestShippedModelFallback(t *testing.T) {
	tiles := writeFile(t, "tiles.txt", stpFixture)
	for _, tc := range []struct {
		domain, alg, file, note string
		n                       int
	}{
		{"witness", "astar", "../examples/witness-4x4.txt",
			"the shipped witness context model is a policy alone, and astar reads a heuristic; using a uniform policy and the domain's heuristic", 8},
		{"stp", "levints", tiles,
			"the shipped stp network lacks the policy output that levints reads; using a uniform policy and the domain's heuristic", 2},
	} {
		args := []string{"solve", "-domain", tc.domain, "-alg", tc.alg, "-progress", "0", "-workers", "1", tc.file}
		stdout, stderr, err := runPHS(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stderr, tc.note) {
			t.Errorf("%s: stderr lacks the note %q:\n%s", tc.domain, tc.note, stderr)
		}
		none, _, err := runPHS(t, append(args, "-model", "none")...)
		if err != nil {
			t.Fatal(err)
		}
		recs, want := decodeRecords(t, stdout), decodeRecords(t, none)
		if len(recs) != tc.n || len(want) != tc.n {
			t.Fatalf("%s: %d records, %d with -model none; want %d", tc.domain, len(recs), len(want), tc.n)
		}
		for i, r := range recs {
			w := want[i]
			if !r.Solved || r.Algorithm != tc.alg || r.Expansions != w.Expansions || r.Generated != w.Generated || r.Solution != w.Solution {
				t.Errorf("%s: %+v; want solved by %s as with -model none: %+v", tc.domain, r, tc.alg, w)
			}
		}
	}
}

// TestTrainInterrupted checks what an interrupted training run reports:
// how to go on, and exit status 130; and that it can go on.
func TestTrainInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wit := trainingSet(t, dir)
	runDir := filepath.Join(dir, "run")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e bytes.Buffer
	err := run(ctx, []string{"train", "-domain", "witness", "-alg", "levints", "-iterations", "1", "-budget", "50", "-dir", runDir, wit}, &o, &e)
	if err == nil || !strings.Contains(err.Error(), "continue with: phs train -resume "+runDir) || exitCode(err) != 130 {
		t.Fatalf("interrupted train: %v (exit status %d)", err, exitCode(err))
	}
	if _, errOut, err := runPHS(t, "train", "-resume", runDir); err != nil {
		t.Fatalf("resume: %v\n%s", err, errOut)
	}
}

func TestProcsFor(t *testing.T) {
	for _, c := range []struct {
		backend, env string
		procs, want  int
	}{
		{"openblas", "", 2, 3},
		{"openblas", "", 1, 2},
		{"openblas", "2", 2, 2}, // the user's GOMAXPROCS stands
		{"gonum", "", 2, 2},
	} {
		if got := procsFor(c.backend, c.env, c.procs); got != c.want {
			t.Errorf("procsFor(%q, %q, %d) = %d, want %d", c.backend, c.env, c.procs, got, c.want)
		}
	}
}
