package main

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// saved writes a small heuristic network of 3x3 puzzles and returns its
// directory and the network.
func saved(t *testing.T) (string, *model.Model) {
	t.Helper()
	ps, err := stp.Parse[stp.State](strings.NewReader("1 2 0 3 4 5 6 7 8\n"), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.ConfigFor[stp.State]("stp", search.WAStar(1.5), ps[0])
	cfg.Arch, cfg.Units, cfg.Blocks = model.ResNet, 8, 1
	m, err := model.New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "net")
	if err := model.Save(dir, m); err != nil {
		t.Fatal(err)
	}
	return dir, m
}

// TestShip checks that ship writes the network's weights, in half
// precision with -f16, under the configuration the flags say, and only
// those changes.
func TestShip(t *testing.T) {
	src, m := saved(t)
	for _, f16 := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "out")
		args := []string{"-alg", "beam:8", "-budget", "80", "-batch", "16", "-shorten-found", "5000", "-meta", "trained_by=a test", "-meta", "k=v", "-out", out, src}
		if f16 {
			args = append([]string{"-f16"}, args...)
		}
		var o strings.Builder
		if err := run(args, &o); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(o.String(), "beam:8") {
			t.Errorf("output %q does not name the algorithm", o.String())
		}
		got, err := model.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		want := m.Config()
		want.Algorithm, want.Search.Budget, want.Search.BatchSize, want.ShortenFound = search.Beam(8), 80, 16, 5000
		want.Meta = map[string]string{"trained_by": "a test", "k": "v"}
		c := got.Config()
		if c.Algorithm != want.Algorithm || c.Search != want.Search || len(c.Meta) != 2 || c.Meta["k"] != "v" || c.Meta["trained_by"] != "a test" || c.Units != want.Units || c.Floor != want.Floor || c.ShortenFound != want.ShortenFound {
			t.Errorf("f16 %v: config %+v, want %+v", f16, c, want)
		}
		tol := 0.0
		if f16 {
			tol = 1.0 / 1024
		}
		gp, wp := got.Params(), m.Params()
		for i := range wp {
			for j, w := range wp[i].Data {
				if d := math.Abs(float64(gp[i].Data[j] - w)); d > tol*math.Abs(float64(w)) {
					t.Fatalf("f16 %v: %s[%d] = %g, want %g", f16, wp[i].Name, j, gp[i].Data[j], w)
				}
			}
		}
		if st, err := os.Stat(filepath.Join(out, model.WeightsFile)); err == nil && f16 {
			if full, _ := os.Stat(filepath.Join(src, model.WeightsFile)); st.Size() >= full.Size()*3/4 {
				t.Errorf("-f16: %d bytes, the F32 file %d", st.Size(), full.Size())
			}
		}
	}
	// Without flags, the configuration stays.
	out := filepath.Join(t.TempDir(), "same")
	if err := run([]string{"-out", out, src}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got, err := model.Load(out); err != nil || got.Config().Algorithm != m.Config().Algorithm || got.Config().Search != m.Config().Search {
		t.Errorf("no flags: %v, %v; want the network's configuration", got, err)
	}
}

// TestShipErrors checks the errors of the command line.
func TestShipErrors(t *testing.T) {
	src, _ := saved(t)
	out := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		args  []string
		usage bool
		want  string
	}{
		{[]string{src}, true, "-out"},
		{[]string{"-out", out}, true, "MODEL"},
		{[]string{"-out", src, src}, true, "is MODEL"},
		{[]string{"-alg", "nope", "-out", out, src}, true, "-alg"},
		{[]string{"-alg", "phsstar", "-out", out, src}, true, "no head"},
		{[]string{"-meta", "k", "-out", out, src}, true, "KEY=VALUE"},
		{[]string{"-meta", "k=1", "-meta", "k=2", "-out", out, src}, true, "twice"},
		{[]string{"-batch", "100000000", "-out", out, src}, true, "batch"},
		{[]string{"-shorten-found", "1073741825", "-out", out, src}, true, "shorten_found 1073741825"},
		{[]string{"-out", out, filepath.Join(t.TempDir(), "missing")}, false, "missing"},
	} {
		err := run(c.args, io.Discard)
		var u usageError
		if err == nil || errors.As(err, &u) != c.usage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v (usage error %v), want one with %q", c.args, err, errors.As(err, &u), c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed ship wrote -out")
	}
}
