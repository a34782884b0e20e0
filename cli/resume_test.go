package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/cm"
)

// TestTrainMoved interrupts a run of each kind of learner, moves the
// directory tree that holds its run directory and its problem file to
// another place, removes the first, and resumes the run there from its
// directory alone: it ends byte for byte as the uninterrupted run.
// run.json names the problem file relative to the run directory, and no
// file of the run holds an absolute path. A run.json of an earlier phs,
// with absolute paths, still resumes; and a run directory moved without
// its problem file resumes with the file given anew, which must hold the
// run's problems. The context model is exact or quantised (-cm-bits 8,
// its checkpoint's table in the compact form).
func TestTrainMoved(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, learner string
		flags         []string
	}{
		{"network", "network", nil},
		{"context", "context", nil},
		{"context-bits-8", "context", []string{"-cm-bits", "8"}},
	} {
		t.Run(c.name, func(t *testing.T) { testTrainMoved(t, c.learner, c.flags...) })
	}
}

func testTrainMoved(t *testing.T, learner string, extra ...string) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "repo", "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	wit := trainingSet(t, filepath.Join(root, "repo", "data"))
	train := func(args ...string) {
		t.Helper()
		if _, errOut, err := runPHS(t, append([]string{"train"}, args...)...); err != nil {
			t.Fatalf("train %q: %v\n%s", args, err, errOut)
		}
	}
	flags := append([]string{"-domain", "witness", "-learner", learner, "-alg", "levints", "-budget", "50", "-update-every", "16", "-workers", "2"}, extra...)
	if learner == "network" {
		flags = append(flags, smallNetwork()...)
	}

	ref := filepath.Join(root, "ref")
	train(append(flags, "-iterations", "3", "-dir", ref, wit)...)
	if its := readMetrics(t, ref); len(its) != 3 || its[0].Solved == 0 || its[2].Updates == 0 {
		t.Fatalf("the uninterrupted run: %+v; the test needs problems solved from the first iteration on, and updates in the last", its)
	}
	if len(extra) > 0 {
		if b := readBytes(t, filepath.Join(ref, "checkpoint", cm.TableFile+cm.GzipSuffix)); !bytes.Contains(b, []byte(`"phs-cm-compact/1"`)) {
			t.Fatalf("the checkpoint of a run with %q does not hold its table in the compact form", extra)
		}
	}
	run := filepath.Join(root, "repo", "runs", "run")
	train(append(flags, "-iterations", "1", "-dir", run, wit)...)

	var saved struct {
		Files []string `json:"files"`
	}
	b, err := os.ReadFile(filepath.Join(run, runFile))
	if err == nil {
		err = json.Unmarshal(b, &saved)
	}
	if err != nil || !reflect.DeepEqual(saved.Files, []string{"../../data/w.txt"}) {
		t.Errorf("run.json names the files %q (%v); want them relative to the run directory", saved.Files, err)
	}
	noAbsolutePaths(t, run, root)

	// The tree moved.
	moved := t.TempDir()
	if err := os.CopyFS(moved, os.DirFS(root)); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "repo")); err != nil {
		t.Fatal(err)
	}
	run = filepath.Join(moved, "repo", "runs", "run")
	// As an earlier phs wrote run.json: the file's absolute path.
	relative, err := os.ReadFile(filepath.Join(run, runFile))
	if err != nil {
		t.Fatal(err)
	}
	abs, err := json.Marshal(filepath.Join(moved, "repo", "data", "w.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, runFile), bytes.Replace(relative, []byte(`"../../data/w.txt"`), abs, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	train("-resume", run, "-iterations", "2")
	if err := os.WriteFile(filepath.Join(run, runFile), relative, 0o644); err != nil {
		t.Fatal(err)
	}

	// The run directory alone moved, with the file given anew.
	alone := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(alone, os.DirFS(run)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runPHS(t, "train", "-resume", alone, "-iterations", "3"); err == nil || !strings.Contains(err.Error(), "w.txt") {
		t.Errorf("resume without the problem file: %v, want an error that names it", err)
	}
	other := filepath.Join(t.TempDir(), "w.txt")
	if _, _, err := runPHS(t, "generate", "witness", "-n", "40", "-size", "3x3", "-seed", "6", "-out", other); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runPHS(t, "train", "-resume", alone, "-iterations", "3", other); err == nil || !strings.Contains(err.Error(), "the checkpoint is for other problems") {
		t.Errorf("resume with other problems: %v", err)
	}
	train("-resume", alone, "-iterations", "3", filepath.Join(moved, "repo", "data", "w.txt"))
	if b, err := os.ReadFile(filepath.Join(alone, runFile)); err != nil || !bytes.Equal(b, relative) {
		t.Errorf("resume with the files given anew changed run.json: %s, %v", b, err)
	}
	train("-resume", run, "-iterations", "3")

	for _, dir := range []string{run, alone} {
		if got, want := withoutTimes(readMetrics(t, dir)), withoutTimes(readMetrics(t, ref)); len(got) != 3 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: metrics\n%+v\nwant\n%+v", dir, got, want)
		}
		sameCheckpoint(t, dir, ref)
	}
}

// withoutTimes returns the metrics with the wall times zeroed.
func withoutTimes(ms []bootstrap.Iteration) []bootstrap.Iteration {
	out := make([]bootstrap.Iteration, len(ms))
	for i, it := range ms {
		it.IterationS, it.WallS, it.LearnS, it.ValidS = 0, 0, 0, 0
		out[i] = it
	}
	return out
}

// sameCheckpoint checks that the checkpoints of run directories dir and
// ref hold the same files, byte for byte, but for state.json, which
// holds wall times.
func sameCheckpoint(t *testing.T, dir, ref string) {
	t.Helper()
	want, err := os.ReadDir(filepath.Join(ref, "checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadDir(filepath.Join(dir, "checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) < 4 {
		t.Errorf("%s: the checkpoint holds %d files, the uninterrupted run's %d", dir, len(got), len(want))
	}
	for _, e := range want {
		if e.Name() == "state.json" {
			continue
		}
		a, err := os.ReadFile(filepath.Join(ref, "checkpoint", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "checkpoint", e.Name())); err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: checkpoint/%s differs from the uninterrupted run's (%v)", dir, e.Name(), err)
		}
	}
}

// noAbsolutePaths fails t if a file of run directory dir holds root, the
// directory above it.
func noAbsolutePaths(t *testing.T, dir, root string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(root)) {
			t.Errorf("%s holds the path %s", path, root)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTrainInterruptedHint checks that an interrupted run says how to go
// on, and, with a time limit, that -time counts the time of every
// session.
func TestTrainInterruptedHint(t *testing.T) {
	dir := t.TempDir()
	wit := trainingSet(t, dir)
	for _, tc := range []struct {
		limit []string
		want  string
	}{
		{nil, "interrupted; checkpoint written; continue with: phs train -resume " + filepath.Join(dir, "run0")},
		{[]string{"-time", "2h"}, "continue with: phs train -resume " + filepath.Join(dir, "run1") + " (its -time 2h0m0s counts the training time of every session; -time replaces it)"},
	} {
		run := filepath.Join(dir, "run"+strconv.Itoa(len(tc.limit)/2))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var o, e bytes.Buffer
		args := append([]string{"train", "-domain", "witness", "-alg", "levints", "-budget", "50", "-dir", run}, tc.limit...)
		err := Run(ctx, append(args, wit), &o, &e, Shipped()...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("interrupted run %v: %v; want %q", tc.limit, err, tc.want)
		}
	}
}
