package cm

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/phs-go/phs/internal/safetensors"
)

// withinF32 reports an error unless got is want with each β rounded to a
// float32 in the box: the same layout, εlow and rows, and each β within
// one float32 ulp of want's.
func withinF32(t *testing.T, got, want *Table) {
	t.Helper()
	if !got.layout.equal(want.layout) || got.logLow != want.logLow || got.Rows() != want.Rows() {
		t.Fatalf("table of %d rows, layout %v, ln εlow %g; want %d rows, %v, %g", got.Rows(), got.layout, got.logLow, want.Rows(), want.layout, want.logLow)
	}
	for r := range want.Rows() {
		if s, c := got.Context(r); s != int(want.rowSet[r]) || c != want.rowCode[r] {
			t.Fatalf("row %d: context (%d, %d), want (%d, %d)", r, s, c, want.rowSet[r], want.rowCode[r])
		}
	}
	lo, hi := want.Bounds()
	for i, w := range want.beta {
		g := got.beta[i]
		if ulp := math.Abs(float64(math.Nextafter32(float32(w), 1)) - float64(float32(w))); !(math.Abs(g-w) <= ulp) || g < lo || g > hi {
			t.Fatalf("β[%d] = %g, want %g within a float32 ulp, in [%g, %g]", i, g, w, lo, hi)
		}
	}
}

// TestWriteTableF32 writes random tables with WriteTable and reads them
// back: the same policy within float32 rounding in every state, from a
// file smaller by 4 bytes a parameter than the F64 of a checkpoint.
func TestWriteTableF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	for i, task := range grids(5, 7) {
		p := task.Problem.(*grid)
		tb := randomTable(t, p, rng)
		if len(tb.beta) < 4 {
			t.Fatalf("grid %d: %d parameters", i, len(tb.beta))
		}
		lo, _ := tb.Bounds()
		copy(tb.beta, []float64{lo, 0, math.Copysign(0, -1), math.Nextafter(lo, 0)})
		name := filepath.Join(dir, "model.safetensors")
		if err := WriteTable(name, tb); err != nil {
			t.Fatal(err)
		}
		got, err := ReadTable(name)
		if err != nil {
			t.Fatal(err)
		}
		withinF32(t, got, tb)

		codes := make([]uint64, len(tb.layout.Sizes))
		A := tb.layout.Actions
		z, want, out := make([]float64, A), make([]float64, A), make([]float64, A)
		for s := range int32(p.W * p.H) {
			p.Contexts(s, -1, s, codes)
			for _, mix := range []float64{0, DefaultTrainMix} {
				kw := tb.logPolicy(codes, mix, z, want)
				kg := got.logPolicy(codes, mix, z, out)
				for a := range out {
					if kg != kw || math.Abs(out[a]-want[a]) > 1e-5 {
						t.Fatalf("grid %d, state %d, mix %g: log π(%d) = %g of %d contexts, want %g of %d", i, s, mix, a, out[a], kg, want[a], kw)
					}
				}
			}
		}

		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		b64, err := marshalTable(tb, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		// The headers differ only in the digits of the offsets.
		if d := int64(len(b64)) - fi.Size() - 4*int64(len(tb.beta)); d < -16 || d > 16 {
			t.Errorf("grid %d: %d bytes in F32, %d in F64, for %d parameters", i, fi.Size(), len(b64), len(tb.beta))
		}
		t.Logf("grid %d: %d rows × %d actions: %d bytes in F32, %d in F64", i, tb.Rows(), A, fi.Size(), len(b64))
	}
}

// TestWriteTableBounds checks that the parameters at the bounds of the
// box, ln εlow and 0, stay in the box in F32, for εlow such that the
// float32 nearest ln εlow is below it.
func TestWriteTableBounds(t *testing.T) {
	below := 0
	dir := t.TempDir()
	for _, eps := range []float64{DefaultEpsLow, 1e-3, 1e-2, 0.05, 0.1, 0.2, 0.3, 0.5} {
		tb, err := NewTable(Layout{Name: "test v1", Actions: 2, Sizes: []uint64{4}}, eps)
		if err != nil {
			t.Fatal(err)
		}
		tb.addRow(0, 1)
		tb.addRow(0, 3)
		lo, _ := tb.Bounds()
		copy(tb.beta, []float64{lo, 0, math.Nextafter(lo, 0), math.Copysign(0, -1)})
		if float64(float32(lo)) < lo {
			below++
		}
		name := filepath.Join(dir, "model.safetensors")
		if err := WriteTable(name, tb); err != nil {
			t.Fatal(err)
		}
		got, err := ReadTable(name)
		if err != nil {
			t.Fatalf("εlow %g: %v", eps, err)
		}
		withinF32(t, got, tb)
	}
	if below == 0 {
		t.Error("no εlow whose ln rounds down in float32")
	}
}

// TestReadTableFS checks that ReadTableFS reads from a file system what
// ReadTable reads from the file, and that its errors name the file.
func TestReadTableFS(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := grids(1, 7)[0].Problem.(*grid)
	tb := randomTable(t, p, rng)
	dir := t.TempDir()
	name := filepath.Join(dir, "model.safetensors")
	if err := WriteTable(name, tb); err != nil {
		t.Fatal(err)
	}
	want, err := ReadTable(name)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		"m/table.safetensors": {Data: b},
		"m/bad.safetensors":   {Data: b[:len(b)-1]},
	}
	got, err := ReadTableFS(fsys, "m/table.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	if !got.layout.equal(want.layout) || got.logLow != want.logLow || !slices.Equal(got.rowSet, want.rowSet) ||
		!slices.Equal(got.rowCode, want.rowCode) || !slices.Equal(got.beta, want.beta) {
		t.Error("ReadTableFS reads another table than ReadTable")
	}
	for _, c := range []struct{ name, err string }{
		{"m/bad.safetensors", "cm: m/bad.safetensors: "},
		{"m/missing.safetensors", "cm: open m/missing.safetensors: "},
	} {
		if got, err := ReadTableFS(fsys, c.name); got != nil || err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("ReadTableFS(%q) = %v, %v; want an error with %q", c.name, got, err, c.err)
		}
	}
}

// TestReadTableRefuses checks that a table file whose β is out of the box
// in F32, or of another dtype, is refused.
func TestReadTableRefuses(t *testing.T) {
	tb, err := NewTable(Layout{Name: "test v1", Actions: 2, Sizes: []uint64{4}}, DefaultEpsLow)
	if err != nil {
		t.Fatal(err)
	}
	tb.addRow(0, 2)
	lo, _ := tb.Bounds()
	under := float32(lo)
	for float64(under) >= lo {
		under = math.Nextafter32(under, float32(math.Inf(-1)))
	}
	b, err := marshalTable(tb, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	ts, meta, err := safetensors.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		beta safetensors.Tensor
		ok   bool
		err  string
	}{
		{"in the box", safetensors.F32([]int{1, 2}, []float32{math.Nextafter32(under, 0), 0}), true, ""},
		{"below ln εlow", safetensors.F32([]int{1, 2}, []float32{under, -1}), false, "out of"},
		{"above 0", safetensors.F32([]int{1, 2}, []float32{-1, math.SmallestNonzeroFloat32}), false, "out of"},
		{"NaN", safetensors.F32([]int{1, 2}, []float32{float32(math.NaN()), -1}), false, "out of"},
		{"F32 of another shape", safetensors.F32([]int{2}, []float32{-1, -1}), false, "beta"},
		{"I32", safetensors.I32([]int{1, 2}, []int32{-1, -1}), false, "want F64 or F32"},
		{"U8", safetensors.U8([]int{1, 2}, []uint8{0, 0}), false, "want F64 or F32"},
	} {
		ts["beta"] = c.beta
		f := reencode(t, ts, meta)
		_, _, _, err := unmarshalAnyTable(f, nil)
		if c.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v", c.name, err)
		}
	}
}
