package scrambles

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/domain/rubiks"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/model"
)

// validCubes writes n scrambles of 1 to 3 turns to a file and returns its
// name.
func validCubes(t *testing.T, n int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	var b strings.Builder
	for range n {
		b.WriteString(rubiks.GenerateScramble(rng, 1, 3).Root().String() + "\n")
	}
	name := filepath.Join(t.TempDir(), "valid.txt")
	if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// validBoards writes n sliding-tile boards of rows×cols cells, 1 to 3
// moves from the goal, to a file and returns its name.
func validBoards(t *testing.T, rows, cols, n int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	var ps []*stp.Problem[stp.LargeState]
	for range n {
		ps = append(ps, stp.GenerateWalk[stp.LargeState](rng, rows, cols, 1, 3))
	}
	var b bytes.Buffer
	if err := stp.Write(&b, ps); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "valid.txt")
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// checkpointFiles returns the files of the checkpoint of run directory
// dir that resuming must reproduce exactly: the network, Adam's state,
// the target network; and the state without its times.
func checkpointFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, name := range []string{model.WeightsFile, model.OptimizerFile, model.ConfigFile, TargetFile} {
		b, err := os.ReadFile(filepath.Join(dir, CheckpointDir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	b, err := os.ReadFile(filepath.Join(dir, CheckpointDir, StateFile))
	if err != nil {
		t.Fatal(err)
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	st.Seconds, st.TrainSeconds, st.CPUSeconds, st.NextValid, st.TimeLimit, st.Rounds = 0, 0, 0, 0, 0, 0
	files[StateFile], _ = json.Marshal(st)
	return files
}

// TestRunDir checks that a run directory resumed after an interrupt,
// from another path, ends exactly as the same run uninterrupted: the same
// network, optimiser state, target network and generator; that its
// metrics have a row with a validation at every checkpoint; and that a
// resumption at its limits is ErrFinished and changes nothing.
func TestRunDir(t *testing.T) {
	common := []string{"-max", "4", "-n", "8", "-step", "4", "-lr", "3e-3", "-davi", "-sync", "3", "-greedy",
		"-valid-every", "1ns", "-valid-budget", "20", "-valid-floor=false", "-seed", "5", "-time", "1h"}
	t.Run("rubiks", func(t *testing.T) {
		checkRunDir(t, append([]string{"-units", "16", "-blocks", "1", "-valid", validCubes(t, 3)}, common...))
	})
	t.Run("stp", func(t *testing.T) {
		checkRunDir(t, append([]string{"-domain", "stp", "-size", "3x4", "-valid", validBoards(t, 3, 4, 3)}, common...))
	})
}

// checkRunDir checks a run of the flags args (three validation problems
// among them) as TestRunDir says.
func checkRunDir(t *testing.T, args []string) {
	tmp := t.TempDir()
	whole := filepath.Join(tmp, "whole")
	if err := Run(context.Background(), append([]string{"-dir", whole, "-rounds", "6"}, args...), io.Discard); err != nil {
		t.Fatal(err)
	}

	// Interrupted at once: one round, then a checkpoint.
	first := filepath.Join(tmp, "first")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Run(cancelled, append([]string{"-dir", first, "-rounds", "6"}, args...), io.Discard); err != nil {
		t.Fatal(err)
	}
	// Resumed to round 3, moved, resumed to the end.
	if err := Run(context.Background(), []string{"-resume", first, "-rounds", "3"}, io.Discard); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(tmp, "moved")
	if err := os.CopyFS(moved, os.DirFS(first)); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(first); err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), []string{"-resume", moved}, io.Discard); !errors.Is(err, ErrFinished) || !strings.Contains(err.Error(), "the 3 rounds") {
		t.Fatalf("resumed at its 3 rounds: %v; want ErrFinished", err)
	}
	var log bytes.Buffer
	if err := Run(context.Background(), []string{"-resume", moved, "-rounds", "6", "-time", "2h"}, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "resuming "+moved+" at round 3") {
		t.Errorf("the log of the resumption:\n%s", log.String())
	}
	want, got := checkpointFiles(t, whole), checkpointFiles(t, moved)
	for name, b := range want {
		if !bytes.Equal(b, got[name]) {
			t.Errorf("%s differs between the run interrupted and resumed and the run uninterrupted", name)
		}
	}

	b, err := os.ReadFile(filepath.Join(moved, MetricsJSONL))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := readRows(filepath.Join(moved, MetricsJSONL), 100)
	if err != nil {
		t.Fatal(err)
	}
	// Validations after every round but those that stopped: round 1 at
	// its interrupt, 3 and 6 at their limits.
	if len(rows) != 6 {
		t.Fatalf("%d rows of metrics; want 6:\n%s", len(rows), b)
	}
	for i, r := range rows {
		if i > 0 && (r.Seconds < rows[i-1].Seconds || r.CPUSeconds < rows[i-1].CPUSeconds) {
			t.Errorf("row %d: %g s, %g s of CPU; want no less than the row before's %g s, %g s", i, r.Seconds, r.CPUSeconds, rows[i-1].Seconds, rows[i-1].CPUSeconds)
		}
		if r.Round != i+1 || r.Steps != 2*(i+1) {
			t.Errorf("row %d: round %d, %d steps; want %d, %d", i, r.Round, r.Steps, i+1, 2*(i+1))
		}
		hasValid := r.Validation != nil
		if wantValid := r.Round != 1 && r.Round != 3 && r.Round != 6; hasValid != wantValid {
			t.Errorf("row %d: a validation %v; want %v", i, hasValid, wantValid)
		} else if hasValid && (r.Cubes != 3 || r.Solved > 3 || r.Expansions <= 0) {
			t.Errorf("row %d: validation %+v", i, *r.Validation)
		}
	}
	csv, err := os.ReadFile(filepath.Join(moved, MetricsCSV))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(csv)), "\n"); len(lines) != 7 || lines[0] != strings.Join(metricsColumns, ",") {
		t.Errorf("%s:\n%s", MetricsCSV, csv)
	}

	before := checkpointFiles(t, moved)
	if err := Run(context.Background(), []string{"-resume", moved, "-time", "1ns"}, io.Discard); !errors.Is(err, ErrFinished) || !strings.Contains(err.Error(), "already finished: the time limit") {
		t.Errorf("resumed past its time limit: %v; want ErrFinished", err)
	}
	after := checkpointFiles(t, moved)
	for name, b := range before {
		if !bytes.Equal(b, after[name]) {
			t.Errorf("%s changed on a resumption past the time limit", name)
		}
	}
	if _, err := os.Stat(filepath.Join(moved, ValidFile)); err != nil {
		t.Error(err)
	}
}

// TestRunDirErrors checks the errors of bad flags and run directories.
func TestRunDirErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	small := []string{"-units", "8", "-blocks", "1", "-n", "4", "-step", "4", "-max", "2"}
	if err := Run(context.Background(), append([]string{"-dir", dir, "-rounds", "1"}, small...), io.Discard); err != nil {
		t.Fatal(err)
	}
	valid := validCubes(t, 1)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"-dir", dir}, small...), "holds a run already"},
		{[]string{"-resume", dir, "-lr", "1"}, "-lr cannot change them"},
		{[]string{"-resume", t.TempDir()}, "not a run directory"},
		{[]string{"-out", dir, "-dir", dir}, "want one of"},
		{[]string{"-out", dir, "-valid", valid}, "-valid needs -dir"},
		{[]string{"-dir", dir, "-valid-every", "1m"}, "-valid-every needs -valid"},
		{[]string{"-dir", dir, "-floor"}, "-floor needs -davi"},
		{[]string{"-dir", dir, "-valid", valid, "-valid-budget", "0"}, "-valid-budget 0"},
		{[]string{"-dir", dir, "-valid", valid, "-valid-alg", "nope"}, "-valid-alg"},
		{[]string{"-dir", dir, "-save", "x"}, "-save"},
		{[]string{"-dir", filepath.Join(t.TempDir(), "r"), "-alg", "gbfs", "-units", "8", "-blocks", "1", "-valid", valid, "-valid-alg", "levints"}, "reads the policy"},
		{[]string{"-dir", filepath.Join(t.TempDir(), "r"), "-valid", filepath.Join(dir, "none")}, "none"},
		{[]string{"-dir", filepath.Join(t.TempDir(), "r"), "-domain", "stp", "-size", "3x3", "-valid", valid}, "valid.txt"},
		{[]string{"-dir", filepath.Join(t.TempDir(), "r"), "-domain", "stp", "-size", "3x3", "-valid", validBoards(t, 3, 4, 1)}, "3x4 board; want 3x3"},
	} {
		err := Run(context.Background(), tc.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%q) = %v; want an error with %q", tc.args, err, tc.want)
		}
	}
}
