package main

import (
	"bytes"
	"context"
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
	in := filepath.Join(dir, cm.TableFile)
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

// TestFlush prunes, with -flush, the table of a learner saved with
// solutions pending: the table written covers them (it has the rows of
// their contexts, which the saved table lacks), and the learner's files
// are left as they were. -flush refuses a table file, and -threads out
// of range.
func TestFlush(t *testing.T) {
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
	dir := t.TempDir()
	if err := lr.Save(dir); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(filepath.Join(dir, cm.TableFile))
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
	if after, _ := os.ReadFile(filepath.Join(dir, cm.TableFile)); !bytes.Equal(after, saved) {
		t.Error("-flush changed the run's table")
	}
	for _, args := range [][]string{{"-flush", "-out", out, filepath.Join(dir, cm.TableFile)}, {"-flush", "-threads", "0", "-out", out, dir}} {
		if err := run(args, new(bytes.Buffer)); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
