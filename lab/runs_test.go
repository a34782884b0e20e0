package lab_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/cli"
	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/lab/internal/scrambles"
	"github.com/phs-go/phs/model"
)

// TestRuns checks each run in progress, runs/NAME (README.md, "Runs in
// progress"), a run of "phs train" or of cmd/scrambles (checkScramblesRun).
// A run of phs train: its run.json names its problem files relative to the run
// directory, it has a checkpoint, and, where its problem files are found
// (always with PHS_DATA set, as in CI), it resumes: a copy of it, given
// its files anew, is resumed by "phs train -resume" to a time limit it
// has already passed, which loads and checks everything a resumption does
// (its problems against the checkpoint, the learner, a context model's
// solutions replayed) and stops before any search, its parameters
// unchanged.
func TestRuns(t *testing.T) {
	entries, err := os.ReadDir(runsDir)
	if os.IsNotExist(err) {
		return // no run in progress
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue // TestRunSizes names a stray file
		}
		t.Run(e.Name(), func(t *testing.T) { checkRun(t, filepath.Join(runsDir, e.Name())) })
	}
}

// checkRun checks the run in progress in dir, as TestRuns says.
func checkRun(t *testing.T, dir string) {
	if _, err := os.Stat(filepath.Join(dir, scrambles.SettingsFile)); err == nil {
		checkScramblesRun(t, dir)
		return
	}
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Files      []string `json:"files"`
		ValidFiles []string `json:"valid_files"`
	}
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatalf("%s/run.json: %v", dir, err)
	}
	if len(run.Files) == 0 {
		t.Fatalf("%s/run.json: no problem files", dir)
	}
	args := []string{"train", "-resume", "", "-time", "1ns", "-workers", "1", "-progress", "0"}
	var files []string
	missing := ""
	for i, f := range append(run.Files, run.ValidFiles...) {
		if filepath.IsAbs(f) {
			t.Errorf("%s/run.json: the absolute path %s; want it relative to the run directory", dir, f)
			continue
		}
		f = filepath.Join(dir, f)
		if _, err := os.Stat(f); err != nil {
			missing = f
		}
		if i < len(run.Files) {
			files = append(files, f)
		} else {
			args = append(args, "-valid", f)
		}
	}
	before := paramsData(t, filepath.Join(dir, "checkpoint"))
	if missing != "" {
		if os.Getenv("PHS_DATA") != "" {
			t.Fatalf("%s: its problem file %s is missing", dir, missing)
		}
		t.Logf("%s: not resumed: its problem file %s is missing (without PHS_DATA)", dir, missing)
		return
	}
	cp := t.TempDir()
	if err := os.CopyFS(cp, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(cp, ".lock"))
	args[2] = cp
	var stderr bytes.Buffer
	// A run that its time limit stopped is "already finished" at any
	// shorter limit: the resumption loaded it, and says so.
	runErr := cli.Run(context.Background(), append(args, files...), io.Discard, &stderr, cli.Shipped()...)
	switch {
	case runErr != nil && !strings.Contains(runErr.Error(), "already finished: the time limit"):
		t.Fatalf("%s: phs %s: %v\n%s", dir, strings.Join(args, " "), runErr, stderr.String())
	case runErr == nil && !strings.Contains(stderr.String(), "time limit"):
		t.Errorf("%s: resumed, and did not stop at its time limit:\n%s", dir, stderr.String())
	}
	if !bytes.Equal(before, paramsData(t, filepath.Join(cp, "checkpoint"))) {
		t.Errorf("%s: its parameters (checkpoint/) changed on a resumption that stopped at once", dir)
	}
}

// checkScramblesRun checks the run of cmd/scrambles in dir (its
// scrambles.json, lab/rubiks-curriculum/README.md): a copy of it is
// resumed to a time limit it has already passed, which loads and checks
// its settings, its checkpoint (network, optimiser, target network,
// generator) and its validation cubes and metrics, and stops before any
// training or search, its parameters unchanged. It needs no data set.
func checkScramblesRun(t *testing.T, dir string) {
	before := paramsData(t, filepath.Join(dir, scrambles.CheckpointDir))
	cp := t.TempDir()
	if err := os.CopyFS(cp, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(cp, scrambles.LockFile))
	var stderr bytes.Buffer
	err := scrambles.Run(context.Background(), []string{"-resume", cp, "-time", "1ns"}, &stderr)
	if !errors.Is(err, scrambles.ErrFinished) || !strings.Contains(err.Error(), "the time limit") {
		t.Fatalf("%s: scrambles -resume -time 1ns: %v, want it already finished at its time limit\n%s", dir, err, stderr.String())
	}
	if !bytes.Equal(before, paramsData(t, filepath.Join(cp, scrambles.CheckpointDir))) {
		t.Errorf("%s: its parameters (checkpoint/) changed on a resumption that stopped at once", dir)
	}
}

// tensorData returns the data of the safetensors file b, its tensors end
// to end after the header: the header's metadata may change (a checkpoint
// written by a later phs records the SHA-256 of its tensors there).
func tensorData(t *testing.T, b []byte) []byte {
	t.Helper()
	if len(b) < 8 || binary.LittleEndian.Uint64(b) > uint64(len(b)-8) {
		t.Fatalf("a safetensors file of %d bytes with a bad header length", len(b))
	}
	return b[8+binary.LittleEndian.Uint64(b):]
}

// paramsFile returns the file of the learner's parameters in checkpoint
// directory cp: a network's weights or a context model's table.
// paramsData returns the tensors' data of the parameters of the
// checkpoint directory cp: its network's weights or its context model's
// table, decompressed.
func paramsData(t *testing.T, cp string) []byte {
	t.Helper()
	for _, name := range []string{model.WeightsFile, cm.TableFile + cm.GzipSuffix, cm.TableFile} {
		b, err := os.ReadFile(filepath.Join(cp, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil && strings.HasSuffix(name, cm.GzipSuffix) {
			var z *gzip.Reader
			if z, err = gzip.NewReader(bytes.NewReader(b)); err == nil {
				b, err = io.ReadAll(z)
			}
		}
		if err != nil {
			t.Fatalf("%s: %v", cp, err)
		}
		return tensorData(t, b)
	}
	t.Fatalf("%s: no checkpoint: neither %s nor %s", cp, model.WeightsFile, cm.TableFile)
	return nil
}
