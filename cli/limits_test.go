package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/phs-go/phs/domain/stp"
)

// reversed is a 5x5 puzzle that A* does not solve in a million expansions.
const reversed = "24 23 22 21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0\n"

// jsonRecords returns the JSON log records of stderr whose msg is msg.
func jsonRecords(t *testing.T, stderr, msg string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if !strings.HasPrefix(l, "{") {
			continue // the summary table
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		if rec["msg"] == msg {
			recs = append(recs, rec)
		}
	}
	return recs
}

// TestTestRoundsAndProgress checks that phs test stops after 10 rounds by
// default, and that it logs progress, its times in seconds.
func TestTestRoundsAndProgress(t *testing.T) {
	t.Parallel()
	hard := writeFile(t, "hard.txt", reversed)
	out, _, err := runPHS(t, "test", "-domain", "stp", "-model", "none", "-alg", "astar", "-budget", "1", "-progress", "0", hard)
	if err != nil {
		t.Fatal(err)
	}
	if recs := decodeRecords(t, out); len(recs) != 1 || recs[0].Solved || recs[0].Budget != 512 {
		t.Errorf("records %+v, want one unsolved with the budget of round 10, 512", recs)
	}
	_, errOut, err := runPHS(t, "test", "-domain", "stp", "-model", "none", "-alg", "astar", "-budget", "30000", "-rounds", "3", "-workers", "1", "-progress", "1ms", "-log", "json", hard)
	if err != nil {
		t.Fatal(err)
	}
	progress := jsonRecords(t, errOut, "progress")
	if len(progress) == 0 {
		t.Fatalf("no progress record:\n%s", errOut)
	}
	for _, msg := range []string{"progress", "round done"} {
		for _, rec := range jsonRecords(t, errOut, msg) {
			if _, ok := rec["elapsed_s"].(float64); !ok || rec["elapsed"] != nil {
				t.Errorf("%s record %v: want elapsed_s in seconds, no elapsed", msg, rec)
			}
		}
	}
	if e, _ := progress[len(progress)-1]["expansions"].(float64); e <= 0 {
		t.Errorf("progress records count no expansion: %v", progress)
	}
}

// cancelWriter cancels a context on its first write.
type cancelWriter struct {
	bytes.Buffer
	cancel context.CancelFunc
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	w.cancel()
	return w.Buffer.Write(p)
}

// TestInterruptedSummary checks that the summary of an interrupted solve
// or test says how many of the problems asked were attempted.
func TestInterruptedSummary(t *testing.T) {
	// The test's first round solves the 2x2 puzzles and not the last.
	tiles := writeFile(t, "tiles.txt", strings.Repeat(stpFixture, 20)+reversed)
	for _, cmd := range []string{"solve", "test"} {
		ctx, cancel := context.WithCancel(context.Background())
		out := &cancelWriter{cancel: cancel}
		var errOut bytes.Buffer
		err := run(ctx, []string{cmd, "-domain", "stp", "-model", "none", "-budget", "1", "-workers", "1", "-progress", "0", tiles}, out, &errOut)
		cancel()
		if exitCode(err) != 130 {
			t.Fatalf("%s: %v, want an interruption", cmd, err)
		}
		if !strings.Contains(errOut.String(), " of the 41 problems asked") {
			t.Errorf("%s: the summary does not say how many problems were attempted:\n%s", cmd, errOut.String())
		}
	}
}

// countingGenerator generates STP puzzles and cancels a context on its
// third problem.
type countingGenerator struct {
	calls  atomic.Int64
	cancel context.CancelFunc
}

func (g *countingGenerator) Flags(fs *flag.FlagSet) {}

func (g *countingGenerator) New(rng *rand.Rand) (func() string, error) {
	return func() string {
		if g.calls.Add(1) == 3 {
			g.cancel()
		}
		return stp.GenerateRandom[stp.State](rng, 3, 3).String()
	}, nil
}

// TestGenerateBounds checks that generate bounds -walk and stops at the
// next problem on Ctrl-C.
func TestGenerateBounds(t *testing.T) {
	if _, _, err := runPHS(t, "generate", "stp", "-walk", "1:1000000000"); exitCode(err) != 2 || !strings.Contains(err.Error(), "-walk") {
		t.Errorf("-walk 1:1000000000: %v, want a usage error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := &countingGenerator{cancel: cancel}
	d := NewDomain[stp.State]("tiles", stp.Parse[stp.State], WithGenerator(g))
	err := Run(ctx, []string{"generate", "tiles", "-n", "1000"}, io.Discard, io.Discard, d)
	if exitCode(err) != 130 || g.calls.Load() != 3 {
		t.Errorf("interrupted at the third problem: %v after %d problems, want an interruption after 3", err, g.calls.Load())
	}
}

// TestTrainKeepsCheckpointInterval checks that -checkpoint is kept in
// run.json for -resume.
func TestTrainKeepsCheckpointInterval(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wit := trainingSet(t, dir)
	run := filepath.Join(dir, "run")
	if _, errOut, err := runPHS(t, "train", "-domain", "witness", "-alg", "levints", "-iterations", "1", "-budget", "50", "-checkpoint", "1m", "-dir", run, wit); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	b, err := os.ReadFile(filepath.Join(run, runFile))
	if err != nil || !strings.Contains(string(b), `"checkpoint_every": "1m0s"`) {
		t.Errorf("run.json does not keep -checkpoint 1m: %s, %v", b, err)
	}
}

// TestTrainFailedStartLeavesNoDirectory checks that a training run that
// fails as it starts leaves no run directory.
func TestTrainFailedStartLeavesNoDirectory(t *testing.T) {
	dir := t.TempDir()
	wit := trainingSet(t, dir)
	run := filepath.Join(dir, "run")
	_, _, err := runPHS(t, "train", "-domain", "witness", "-alg", "levints", "-iterations", "1", "-budget", "50", "-cpuprofile", filepath.Join(dir, "missing", "cpu.prof"), "-dir", run, wit)
	if err == nil {
		t.Fatal("no error for a -cpuprofile in a missing directory")
	}
	if _, err := os.Stat(run); err == nil {
		t.Errorf("a failed start left %s", run)
	}
}

// TestUsageOnlyOnHelp checks that a usage error prints no usage text: the
// error alone, which Main prints once to standard error.
func TestUsageOnlyOnHelp(t *testing.T) {
	for _, args := range [][]string{
		{"solve", "-nonsense"},
		{"train", "-budget", "x"},
		{},
		{"frobnicate"},
		{"data"},
	} {
		out, errOut, err := runPHS(t, args...)
		if exitCode(err) != 2 || out != "" || errOut != "" {
			t.Errorf("%q: %v; printed %q and %q, want a usage error and nothing printed", args, err, out, errOut)
		}
	}
}
