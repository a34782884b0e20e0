package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/search"
)

// TestPrune prunes a small table at several tolerances, from its file and
// from its directory, and refuses bad arguments.
func TestPrune(t *testing.T) {
	dir := t.TempDir()
	tb, err := cm.NewTable(cm.Layout{Name: "test v1", Actions: 2, Sizes: []uint64{4}}, cm.DefaultEpsLow)
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, cm.TableFile+cm.GzipSuffix)
	if err := cm.WriteTable(in, tb); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "pruned.safetensors")
	for _, src := range []string{in, dir} {
		var b bytes.Buffer
		if err := run([]string{"-tol", "0", "-out", out, src}, &b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "0 rows") {
			t.Errorf("%s: %q", src, b.String())
		}
		p, err := cm.ReadTable(out)
		if err != nil || p.Rows() != 0 {
			t.Fatalf("%s: %v rows, %v", src, p, err)
		}
	}
	for _, args := range [][]string{{"-out", out}, {in}, {"-tol", "-1", "-out", out, in}, {"-out", out, filepath.Join(dir, "missing")}, {"-out", out, t.TempDir()}} {
		if err := run(args, new(bytes.Buffer)); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
	os.Remove(out)
}

// TestCompact writes a trained table in the compact form with -compact,
// of 8 and of 12 bits, from its float32 file, and back to float32
// without -compact: the rows of -tol 0 each time, in fewer bytes in the
// compact form of 8 bits than in float32, and in fewer with 8 bits than
// with 12.
func TestCompact(t *testing.T) {
	tb := trainedLearner(t).Table().Prune(0)
	if tb.Rows() == 0 {
		t.Fatal("no row")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.safetensors")
	if err := cm.WriteTable(in, tb); err != nil {
		t.Fatal(err)
	}
	compact, back := filepath.Join(dir, "compact.safetensors"), filepath.Join(dir, "back.safetensors")
	compact12 := filepath.Join(dir, "compact12.safetensors.gz")
	for _, c := range []struct {
		args []string
		file string
		form string
	}{
		{[]string{"-compact", "-tol", "0", "-out", compact, in}, compact, "compact, 8 bits"},
		{[]string{"-out", back, compact}, back, "float32"},
		{[]string{"-compact", "-bits", "12", "-tol", "0", "-out", compact12, in}, compact12, "compact, 12 bits"},
	} {
		var b bytes.Buffer
		if err := run(c.args, &b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), fmt.Sprintf("%d rows, ", tb.Rows())) || !strings.Contains(b.String(), "(-tol 0, "+c.form+")") {
			t.Errorf("%v: output %q", c.args, b.String())
		}
		p, err := cm.ReadTable(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if p.Rows() != tb.Rows() {
			t.Errorf("%v: %d rows, want %d", c.args, p.Rows(), tb.Rows())
		}
		for r := range p.Rows() {
			if set, code := p.Context(r); tb.Row(set, code) < 0 {
				t.Fatalf("%v: row %d: context (%d, %d), which %s lacks", c.args, r, set, code, in)
			}
		}
	}
	a, _ := os.Stat(in)
	b, _ := os.Stat(compact)
	if b.Size() >= a.Size()/2 {
		t.Errorf("%d bytes compact, %d in float32", b.Size(), a.Size())
	}
	c8 := filepath.Join(dir, "compact8.safetensors.gz")
	if err := run([]string{"-compact", "-tol", "0", "-out", c8, in}, new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	if b8, b12 := fileSize(t, c8), fileSize(t, compact12); b8 >= b12 {
		t.Errorf("compressed: %d bytes with 8 bits, %d with 12; want fewer with 8", b8, b12)
	}
	for _, bits := range []string{"7", "17"} {
		var u usageError
		if err := run([]string{"-compact", "-bits", bits, "-out", c8, in}, new(bytes.Buffer)); !errors.As(err, &u) || !strings.Contains(err.Error(), "-bits "+bits) {
			t.Errorf("-bits %s: %v; want a usage error", bits, err)
		}
	}
	t.Logf("%d rows: %d bytes compact, %d in float32", tb.Rows(), b.Size(), a.Size())
}

func fileSize(t *testing.T, name string) int64 {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// trainedLearner returns a learner for 4x4 Witness puzzles that has
// optimised over the solutions of 4 sample puzzles, with the solutions of
// 2 more pending.
func trainedLearner(t *testing.T) *cm.Learner[witness.State] {
	t.Helper()
	ps, err := witness.ReadFile("../../../examples/witness-4x4.txt")
	if err != nil {
		t.Fatal(err)
	}
	l, err := cm.LayoutOf[witness.State](ps[0])
	if err != nil {
		t.Fatal(err)
	}
	lr, err := cm.NewLearner[witness.State](l, cm.LearnerConfig{Growth: 1, OptimizerConfig: cm.OptimizerConfig{MaxSteps: 5}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := search.NewSolver[witness.State](search.LevinTS(), search.Uniform[witness.State]{}, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sols []bootstrap.Solution[witness.State]
	for i, p := range ps[:6] {
		r, err := s.Solve(context.Background(), p)
		if err != nil || !r.Solved {
			t.Fatal(r, err)
		}
		sols = append(sols, bootstrap.Solution[witness.State]{Index: i, Problem: p, Trajectory: r.Trajectory})
	}
	for _, b := range [][]bootstrap.Solution[witness.State]{sols[:4], sols[4:]} {
		if _, err := lr.Learn(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	return lr
}

// TestFlush prunes, with -flush, the table of a learner saved with
// solutions pending: the table written covers them (it has the rows of
// their contexts, which the saved table lacks), and the learner's files
// are left as they were. -flush refuses a table file, and -threads out
// of range.
func TestFlush(t *testing.T) {
	lr := trainedLearner(t)
	runDir := t.TempDir()
	dir := filepath.Join(runDir, "checkpoint")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := lr.Save(dir); err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Abs("../../../examples/witness-4x4.txt")
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(runDir, examples)
	if err != nil {
		t.Fatal(err)
	}
	writeRun := func(js string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(runDir, "run.json"), []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeRun(fmt.Sprintf(`{"domain": "witness", "files": [%q]}`, rel))
	saved, err := os.ReadFile(filepath.Join(dir, cm.TableFile+cm.GzipSuffix))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "flushed.safetensors")
	var b bytes.Buffer
	if err := run([]string{"-flush", "-threads", "2", "-tol", "0", "-out", out, dir}, &b); err != nil {
		t.Fatal(err)
	}
	p, err := cm.ReadTable(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "flushed: 6 solutions") || p.Rows() <= lr.Table().Rows() {
		t.Errorf("-flush: %d rows, the saved table %d; output %q", p.Rows(), lr.Table().Rows(), b.String())
	}
	if after, _ := os.ReadFile(filepath.Join(dir, cm.TableFile+cm.GzipSuffix)); !bytes.Equal(after, saved) {
		t.Error("-flush changed the run's table")
	}
	for _, args := range [][]string{{"-flush", "-out", out, filepath.Join(dir, cm.TableFile+cm.GzipSuffix)}, {"-flush", "-threads", "0", "-out", out, dir}} {
		if err := run(args, new(bytes.Buffer)); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
	// The run's problems: another domain, a missing file, too few problems.
	for _, js := range []string{`{"domain": "maze", "files": ["x.txt"]}`, `{"domain": "witness", "files": ["missing.txt"]}`,
		`{"domain": "witness"}`, `{"domain": "witness", "files": [` + fmt.Sprintf("%q", writeFirst(t, examples, 3)) + `]}`} {
		writeRun(js)
		if err := run([]string{"-flush", "-tol", "0", "-out", out, dir}, new(bytes.Buffer)); err == nil {
			t.Errorf("run.json %s: no error", js)
		}
	}
}

// writeFirst writes the first n Witness puzzles of file to a new file,
// and returns its name.
func writeFirst(t *testing.T, file string, n int) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	name := filepath.Join(t.TempDir(), "first.txt")
	if err := os.WriteFile(name, []byte(strings.Join(lines[:min(len(lines), 5*n)], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestOutIsInput checks that -out may not be an input, however it is
// named (the same name, the table of the directory given, a symbolic or
// a hard link; with -flush, the learner's files and the run's problems
// too): a usage error, which leaves the input as it was.
func TestOutIsInput(t *testing.T) {
	lr := trainedLearner(t)
	runDir := t.TempDir()
	dir := filepath.Join(runDir, "checkpoint")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := lr.Save(dir); err != nil {
		t.Fatal(err)
	}
	problems := writeFirst(t, "../../../examples/witness-4x4.txt", 10)
	js := fmt.Sprintf(`{"domain": "witness", "files": [%q]}`, problems)
	if err := os.WriteFile(filepath.Join(runDir, "run.json"), []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, cm.TableFile+cm.GzipSuffix)
	other := t.TempDir()
	symlink, hardlink := filepath.Join(other, "symlink"), filepath.Join(other, "hardlink")
	if err := os.Symlink(in, symlink); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, hardlink); err != nil {
		t.Fatal(err)
	}
	files := []string{in, filepath.Join(dir, cm.LearnerFile), filepath.Join(dir, cm.TrajectoriesFile+cm.GzipSuffix), problems}
	saved := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		saved[f] = b
	}
	for _, args := range [][]string{
		{"-out", in, in},
		{"-out", in, dir},
		{"-out", in, runDir},
		{"-out", filepath.Join(dir, "..", "checkpoint", ".", cm.TableFile+cm.GzipSuffix), in},
		{"-out", symlink, in},
		{"-out", hardlink, dir},
		{"-compact", "-out", in, in},
		{"-flush", "-out", in, dir},
		{"-flush", "-out", filepath.Join(dir, cm.LearnerFile), dir},
		{"-flush", "-out", filepath.Join(dir, cm.TrajectoriesFile+cm.GzipSuffix), runDir},
		{"-flush", "-out", problems, dir},
	} {
		err := run(args, new(bytes.Buffer))
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), "-out") || !strings.Contains(err.Error(), "input") {
			t.Errorf("%v: %v; want a usage error that says -out is an input", args, err)
		}
		for _, f := range files {
			if b, err := os.ReadFile(f); err != nil || !bytes.Equal(b, saved[f]) {
				t.Errorf("%v: %s changed (%v)", args, f, err)
			}
		}
	}
}
