package model

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/internal/safetensors"
)

// TestSaveF16 saves a ResNet and a convolutional network in half
// precision: the file takes about half the bytes of F32's, Load reads each
// weight as its nearest binary16 exactly, with the digest checked, and
// the outputs stay within a thousandth of the network's; saved again with
// Save, the weights are those values. A weight beyond the range is an
// error.
func TestSaveF16(t *testing.T) {
	p := &imageProblem{4, 10, 10}
	states := []uint64{1, 2, 3, 4, 5, 6}
	for _, cfg := range []Config{configOf(t, "sokoban", "phsstar", 4, 10, 10), func() Config {
		c := configOf(t, "sokoban", "phsstar", 4, 10, 10)
		c.Arch, c.Units, c.Blocks = ResNet, 64, 2
		return c
	}()} {
		m, err := New(cfg, 5)
		if err != nil {
			t.Fatal(err)
		}
		dir32, dir16 := filepath.Join(t.TempDir(), "f32"), filepath.Join(t.TempDir(), "f16")
		if err := Save(dir32, m); err != nil {
			t.Fatal(err)
		}
		if err := SaveF16(dir16, m); err != nil {
			t.Fatal(err)
		}
		size := func(dir string) float64 {
			fi, err := os.Stat(filepath.Join(dir, WeightsFile))
			if err != nil {
				t.Fatal(err)
			}
			return float64(fi.Size())
		}
		if r := size(dir16) / size(dir32); r > 0.52 {
			t.Errorf("%v: the F16 file takes %.3f of the F32 file; want about half", cfg.Arch, r)
		}
		back, err := Load(dir16)
		if err != nil {
			t.Fatal(err)
		}
		if back.NoDigest() {
			t.Errorf("%v: no digest recorded", cfg.Arch)
		}
		for i, par := range m.Params() {
			got := back.Params()[i].Data
			for j, v := range par.Data {
				if want := safetensors.FromF16(safetensors.ToF16(v)); got[j] != want {
					t.Fatalf("%v: %s[%d] = %g; want %g, the nearest binary16 to %g", cfg.Arch, par.Name, j, got[j], want, v)
				}
			}
		}
		n := len(states)
		logPi32, h32 := make([]float64, n*cfg.Actions), make([]float64, n)
		logPi16, h16 := make([]float64, n*cfg.Actions), make([]float64, n)
		if err := NewEvaluator[uint64](m).Evaluate(p, states, logPi32, h32); err != nil {
			t.Fatal(err)
		}
		if err := NewEvaluator[uint64](back).Evaluate(p, states, logPi16, h16); err != nil {
			t.Fatal(err)
		}
		for i := range h32 {
			if d := math.Abs(h16[i] - h32[i]); d > 1e-3*max(1, math.Abs(h32[i])) {
				t.Errorf("%v: h of state %d: %g in F16, %g in F32", cfg.Arch, i, h16[i], h32[i])
			}
		}
		for i := range logPi32 {
			if d := math.Abs(logPi16[i] - logPi32[i]); d > 1e-3*max(1, math.Abs(logPi32[i])) {
				t.Errorf("%v: log pi %d: %g in F16, %g in F32", cfg.Arch, i, logPi16[i], logPi32[i])
			}
		}
		again := filepath.Join(t.TempDir(), "again")
		if err := Save(again, back); err != nil {
			t.Fatal(err)
		}
		if b, err := Load(again); err != nil || !equal(b.Params()[0].Data, back.Params()[0].Data) {
			t.Errorf("%v: saved again in F32: %v", cfg.Arch, err)
		}

		// A changed byte fails the digest.
		w := filepath.Join(dir16, WeightsFile)
		b, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)-1] ^= 1
		if err := os.WriteFile(w, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir16); err == nil || !strings.Contains(err.Error(), "weights_sha256") {
			t.Errorf("%v: a changed F16 file loads: %v", cfg.Arch, err)
		}
	}

	m, err := New(tinyConfig(t, "wastar"), 1)
	if err != nil {
		t.Fatal(err)
	}
	m.Params()[0].Data[2] = 70000
	if err := SaveF16(t.TempDir(), m); err == nil || !strings.Contains(err.Error(), "value 2, 70000, beyond") {
		t.Errorf("SaveF16 of a weight of 70000: %v; want an error", err)
	}
}
