package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/cm"
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
