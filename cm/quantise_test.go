package cm

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/internal/safetensors"
	"github.com/phs-go/phs/search"
)

// sameBits reports whether a and b hold the same float64s, bit for bit.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// quantiseTables returns random tables (sparseTable, of several εlow) and
// one of edge cases: a mutex set of β so small that its scale is below
// the smallest normal float32, sets whose smallest β is ln εlow or just
// above it, and a set of 0 and −0.
func quantiseTables(t *testing.T) []*Table {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	var tables []*Table
	for _, eps := range []float64{DefaultEpsLow, 1e-300, 0.5, 1 - 1e-9} {
		for _, n := range []int{0, 1, 50, 3000} {
			tb := sparseTable(t, rng, n, eps)
			lo, _ := tb.Bounds()
			for i, v := range tb.beta {
				tb.beta[i] = max(v, lo) // its constant row of −1 is below ln 0.5
			}
			tables = append(tables, tb)
		}
	}
	edge, err := NewTable(Layout{Name: "test v1", Actions: 3, Sizes: []uint64{4, 4, 4, 4}}, DefaultEpsLow)
	if err != nil {
		t.Fatal(err)
	}
	for set := range 4 {
		edge.addRow(set, 3)
		edge.addRow(set, 1)
	}
	lo, _ := edge.Bounds()
	negZero := math.Copysign(0, -1)
	copy(edge.beta, []float64{
		-1e-40, -3e-39, 0, -1e-45, negZero, -2e-40, // set 0: a scale below 2⁻¹²⁶
		lo, lo / 3, 0, -1, math.Nextafter(lo, 0), lo, // set 1: ln εlow
		math.Nextafter(lo, 0), -5, -1e-300, -7, -8, -9, // set 2: just above it
		negZero, 0, 0, 0, 0, negZero, // set 3: zeros
	})
	return append(tables, edge)
}

// TestSnapToGrid snaps random tables and tables of edge cases to grids
// of 8 and 16 bits: each β moves by at most half its set's scale (or to
// 0 from above −2⁻¹¹⁰, in a set whose scale would be below the smallest
// normal float32), stays in the box, 0 not −0, and is a fixed point
// (the scales and the parameters of the table snapped again are the
// same, onGrid accepts it); the compact file of the snapped table reads
// back bit for bit, its rows sorted by context, in R·A·bits/8 bytes of
// beta_q; and onGrid and the exact writer refuse a table off its grids.
func TestSnapToGrid(t *testing.T) {
	for _, bits := range []int{8, 16} {
		top := quantTop(bits)
		for i, want := range quantiseTables(t) {
			name := fmt.Sprintf("%d bits, table %d", bits, i)
			A, lo := want.layout.Actions, want.logLow
			snapped := want.Clone()
			snapToGrid(snapped, bits)
			scales := gridScales(want, bits)
			if got := gridScales(snapped, bits); !slices.Equal(got, scales) {
				t.Fatalf("%s: scales %v after snapping, %v before", name, got, scales)
			}
			for j, v := range snapped.beta {
				s := float64(scales[want.rowSet[j/A]])
				tol := s / 2 * (1 + 1e-9)
				if s == 0 {
					tol = 0x1p-110
				}
				if d := math.Abs(v - want.beta[j]); !(d <= tol) || v < lo || v > 0 || math.Signbit(v) && v == 0 {
					t.Fatalf("%s: β[%d] = %v snapped to %v, want within %g in [%g, 0], not −0", name, j, want.beta[j], v, tol, lo)
				}
				if s > float64(compactScale(lo, top)) {
					t.Fatalf("%s: scale %g, above |ln εlow|/%g", name, s, top)
				}
			}
			again := snapped.Clone()
			snapToGrid(again, bits)
			if !sameBits(again.beta, snapped.beta) {
				t.Fatalf("%s: snapping twice changes the table", name)
			}
			if err := onGrid(snapped, bits); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			b, err := marshalCompact(snapped, bits, true, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, _, gotBits, err := unmarshalAnyTable(b, nil)
			if err != nil || gotBits != bits || got.Rows() != snapped.Rows() {
				t.Fatalf("%s: read back: %v, %d bits", name, err, gotBits)
			}
			if !slices.IsSorted(got.sortedRows()) {
				t.Errorf("%s: rows read back not sorted", name)
			}
			for r := range got.Rows() {
				set, code := got.Context(r)
				if w := snapped.Row(set, code); w < 0 || !sameBits(got.Beta(r), snapped.Beta(w)) {
					t.Fatalf("%s: context (%d, %d): β %v read back, want %v", name, set, code, got.Beta(r), snapped.Beta(w))
				}
			}
			ts, _, err := safetensors.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(ts[compactBeta].Data); n != snapped.Rows()*A*bits/8 {
				t.Errorf("%s: %d bytes of beta_q for %d rows", name, n, snapped.Rows())
			}
			if sameBits(want.beta, snapped.beta) {
				continue
			}
			if err := onGrid(want, bits); err == nil || !strings.Contains(err.Error(), "is not on the grid") {
				t.Errorf("%s: onGrid of the table before snapping: %v", name, err)
			}
			if _, err := marshalCompact(want, bits, true, nil); err == nil || !strings.Contains(err.Error(), "is not on the grid") {
				t.Errorf("%s: the exact compact form of the table before snapping: %v", name, err)
			}
		}
	}
}

// TestSortRows checks that sortRows sorts a table's rows by context in
// place, with their parameters and an index that finds them, returns
// each row's new number, and nil for a sorted table; rows added after
// it are appended.
func TestSortRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tb := sparseTable(t, rng, 500, DefaultEpsLow)
	want := tb.Clone()
	renum := tb.sortRows()
	if len(renum) != want.Rows() || tb.Rows() != want.Rows() {
		t.Fatalf("%d new numbers, %d rows; want %d", len(renum), tb.Rows(), want.Rows())
	}
	for r := range want.Rows() {
		set, code := want.Context(r)
		nr := int(renum[r])
		if s, c := tb.Context(nr); tb.Row(set, code) != nr || s != set || c != code || !sameBits(tb.Beta(nr), want.Beta(r)) {
			t.Fatalf("row %d (%d, %d) became row %d, (%d, %d), found at %d, β %v; want %v", r, set, code, nr, s, c, tb.Row(set, code), tb.Beta(nr), want.Beta(r))
		}
	}
	for r := 1; r < tb.Rows(); r++ {
		ps, pc := tb.Context(r - 1)
		if s, c := tb.Context(r); ps > s || ps == s && pc >= c {
			t.Fatalf("row %d: context (%d, %d) after (%d, %d)", r, s, c, ps, pc)
		}
	}
	if renum := tb.sortRows(); renum != nil {
		t.Error("sortRows of a sorted table renumbers its rows")
	}
	if want.Row(4, 12345) >= 0 {
		t.Fatal("the table has the context (4, 12345): the test adds it")
	}
	if r := tb.addRow(4, 12345); int(r) != want.Rows() || tb.Row(4, 12345) != int(r) {
		t.Errorf("a row added after sorting: %d, found at %d; want %d", r, tb.Row(4, 12345), want.Rows())
	}
}

// checkQuantised fails t unless lr's table is sorted by context and on
// its grids, and the rows of each solution optimised over are those of
// the contexts of its states, replayed from tasks.
func checkQuantised(t *testing.T, lr *Learner[int32], tasks []search.Task[int32]) {
	t.Helper()
	tb := lr.Table()
	if !slices.IsSorted(tb.sortedRows()) {
		t.Fatal("the table's rows are not sorted by context")
	}
	if err := onGrid(tb, lr.cfg.Bits); err != nil {
		t.Fatal(err)
	}
	M := len(tb.layout.Sizes)
	for k, tr := range lr.trajs {
		err := replay(tasks[k].Problem, tb.layout, tr.actions, func(i int, codes []uint64) error {
			for set, code := range codes {
				if r := tb.row(set, code); r != tr.rows[i*M+set] {
					return fmt.Errorf("step %d, mutex set %d: row %d, the context's is %d", i, set, tr.rows[i*M+set], r)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("problem %d: %v", k, err)
		}
	}
}

// TestQuantisedLearner checks that a learner of 8 or 16 bits has its
// table sorted by context and on its grids, with the solutions' rows
// renumbered, after every optimisation (updates, solutions replaced,
// Flush); that an update's log F is the loss of the snapped table; that
// it learns about as well as the exact learner; and that a learner
// started from a table sorts and snaps a copy, leaving a table that
// WriteCompactTable wrote as it reads on a grid of 8 bits.
func TestQuantisedLearner(t *testing.T) {
	tasks := grids(12, 19)
	sols := solveGrids(t, tasks)
	batches := [][]bootstrap.Solution[int32]{sols[:3], sols[3:5], {detour(t, tasks, sols[1]), sols[5]}, sols[6:9], sols[9:10], {detour(t, tasks, sols[9])}}
	exact := newGridLearner(t, tasks, LearnerConfig{Growth: 1, OptimizerConfig: OptimizerConfig{MaxSteps: 20}})
	for _, b := range batches {
		if _, err := exact.Learn(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := exact.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, bits := range []int{8, 16} {
		lr := newGridLearner(t, tasks, LearnerConfig{Bits: bits, Growth: 1, OptimizerConfig: OptimizerConfig{MaxSteps: 20}})
		optimised := 0
		check := func(u bootstrap.Update, err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			if u.Steps == 0 {
				return
			}
			optimised++
			checkQuantised(t, lr, tasks)
			if logF, loss := u.PolicyLoss/float64(u.Steps), lr.Loss(); math.Abs(logF-loss) > 1e-12*math.Abs(loss) {
				t.Errorf("%d bits: the update's log F %v, the loss of the table %v", bits, logF, loss)
			}
		}
		for _, b := range batches {
			check(lr.Learn(context.Background(), b))
		}
		check(lr.Flush(context.Background()))
		if optimised < 3 || len(lr.pending) > 0 {
			t.Fatalf("%d bits: %d optimisations, %d solutions pending; the test needs 3 and none", bits, optimised, len(lr.pending))
		}
		if lr.Table().Rows() != exact.Table().Rows() {
			t.Errorf("%d bits: %d rows, the exact learner's %d", bits, lr.Table().Rows(), exact.Table().Rows())
		}
		// The quantisation moves log F little: within 2% of the exact
		// learner's (a bound far above what it is).
		if q, e := lr.Loss(), exact.Loss(); math.Abs(q-e) > 0.02*math.Abs(e) {
			t.Errorf("%d bits: log F %v, the exact learner's %v", bits, q, e)
		}
		t.Logf("%d bits: log F %.6g, exact %.6g", bits, lr.Loss(), exact.Loss())

		src := exact.Table()
		before := tableBytes(t, src)
		from, err := NewLearnerFrom[int32](src, LearnerConfig{Bits: bits})
		if err != nil {
			t.Fatal(err)
		}
		checkQuantised(t, from, tasks)
		if !bytes.Equal(tableBytes(t, src), before) || from.Table().Rows() != src.Rows() {
			t.Errorf("%d bits: NewLearnerFrom changed the table it started from, or has %d rows of its %d", bits, from.Table().Rows(), src.Rows())
		}
	}
	name := filepath.Join(t.TempDir(), "compact.safetensors")
	if err := WriteCompactTable(name, exact.Table(), 8); err != nil {
		t.Fatal(err)
	}
	read, err := ReadTable(name)
	if err != nil {
		t.Fatal(err)
	}
	from, err := NewLearnerFrom[int32](read, LearnerConfig{Bits: 8})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tableBytes(t, from.Table()), tableBytes(t, read)) {
		t.Error("a table of WriteCompactTable is not on its grids of 8 bits")
	}
}

// quantisedFiles returns the files of lr.Save, decompressed: cm.json,
// table.safetensors
// and trajectories.safetensors.
func quantisedFiles(t *testing.T, lr *Learner[int32]) [3][]byte {
	t.Helper()
	js, tb, tj := learnerFiles(t, lr)
	return [3][]byte{js, tb, tj}
}

// TestQuantisedResume saves a learner of 0, 8 and 16 bits before each of
// its updates, which optimise or keep solutions pending (Growth 1), and
// before its Flush, loads each checkpoint with the run's problems, saves
// it again and goes on from it: the files saved again are the
// checkpoint's and the learner ends with the uninterrupted one's files,
// byte for byte. The table of a quantised learner is in the compact form.
func TestQuantisedResume(t *testing.T) {
	tasks := grids(12, 19)
	sols := solveGrids(t, tasks)
	batches := [][]bootstrap.Solution[int32]{sols[:3], sols[3:5], {detour(t, tasks, sols[1]), sols[5]}, sols[6:9], sols[9:10]}
	for _, bits := range []int{0, 8, 16} {
		cfg := LearnerConfig{Bits: bits, Growth: 1, OptimizerConfig: OptimizerConfig{MaxSteps: 15}}
		ref := newGridLearner(t, tasks, cfg)
		var saved [][3][]byte
		pending := 0
		for _, b := range batches {
			saved = append(saved, quantisedFiles(t, ref))
			if _, err := ref.Learn(context.Background(), b); err != nil {
				t.Fatal(err)
			}
			pending += min(len(ref.pending), 1)
		}
		saved = append(saved, quantisedFiles(t, ref))
		if _, err := ref.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		final := quantisedFiles(t, ref)
		if pending < 2 {
			t.Fatalf("%d bits: solutions pending at %d checkpoints; the test needs 2", bits, pending)
		}
		if compact := bytes.Contains(final[1], []byte(compactFormatName)); compact != (bits > 0) {
			t.Errorf("%d bits: the table in the compact form: %v", bits, compact)
		}
		for i, files := range saved {
			dir := t.TempDir()
			for j, name := range []string{LearnerFile, TableFile, TrajectoriesFile} {
				if err := os.WriteFile(filepath.Join(dir, name), files[j], 0o644); err != nil {
					t.Fatal(err)
				}
			}
			lr, err := LoadLearner(dir, 0, tasks...)
			if err != nil {
				t.Fatalf("%d bits, checkpoint %d: %v", bits, i, err)
			}
			if !equalFiles(quantisedFiles(t, lr), files) {
				t.Errorf("%d bits, checkpoint %d: the learner loaded saves other files", bits, i)
			}
			for _, b := range batches[i:] {
				if _, err := lr.Learn(context.Background(), b); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := lr.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			if !equalFiles(quantisedFiles(t, lr), final) {
				t.Errorf("%d bits: resumed from checkpoint %d, the learner ends with other files than the uninterrupted one", bits, i)
			}
		}
		R := ref.Table().Rows()
		t.Logf("%d bits: %d rows, table.safetensors of %d bytes (%.1f a row)", bits, R, len(final[1]), float64(len(final[1]))/float64(R))
	}
}

// equalFiles reports whether a and b hold the same three files.
func equalFiles(a, b [3][]byte) bool {
	return bytes.Equal(a[0], b[0]) && bytes.Equal(a[1], b[1]) && bytes.Equal(a[2], b[2])
}

// TestQuantisedSnapshot checks that the snapshot of a learner of 8 or 16
// bits marshals to the compact form, in fewer bytes than β as F64, and
// decodes to the same table, bit for bit, with its mix and bits, which
// marshals to the same bytes and evaluates as the learner's; and that
// DecodeSnapshot refuses a compact table off its grids.
func TestQuantisedSnapshot(t *testing.T) {
	tasks := grids(6, 23)
	sols := solveGrids(t, tasks)
	for _, bits := range []int{8, 16} {
		lr := newGridLearner(t, tasks, LearnerConfig{Bits: bits, OptimizerConfig: OptimizerConfig{MaxSteps: 10}})
		lr.legacyMix = 0.01
		if _, err := lr.Learn(context.Background(), sols); err != nil {
			t.Fatal(err)
		}
		b, err := lr.Snapshot().MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		exact, err := marshalTable(lr.Table(), nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(compactFormatName)) || len(b) >= len(exact) {
			t.Errorf("%d bits: a snapshot of %d bytes, β as F64 %d; want the compact form, smaller", bits, len(b), len(exact))
		}
		s, err := DecodeSnapshot[int32](b)
		if err != nil {
			t.Fatal(err)
		}
		snap := s.(*Snapshot[int32])
		if snap.mix != 0.01 || snap.bits != bits || !bytes.Equal(tableBytes(t, snap.t), tableBytes(t, lr.Table())) {
			t.Errorf("%d bits: decoded mix %g, bits %d, same table %v", bits, snap.mix, snap.bits, bytes.Equal(tableBytes(t, snap.t), tableBytes(t, lr.Table())))
		}
		if again, err := snap.MarshalBinary(); err != nil || !bytes.Equal(again, b) {
			t.Errorf("%d bits: the decoded snapshot marshals to other bytes (%v)", bits, err)
		}
		if got, want := policy(t, lr, tasks[0].Problem), evalPolicy(t, snap, tasks[0].Problem); !slices.Equal(got, want) {
			t.Errorf("%d bits: the decoded snapshot's policy %v, want %v", bits, got, want)
		}
		off := offGrid(t, b)
		if _, err := DecodeSnapshot[int32](off); err == nil || !strings.Contains(err.Error(), "is not on the grid") {
			t.Errorf("%d bits: a snapshot off its grids: %v", bits, err)
		}
	}
}

// evalPolicy returns the policy of snapshot s in the first 40 states of
// p, as policy does for a learner.
func evalPolicy(t *testing.T, s bootstrap.Snapshot[int32], p search.Problem[int32]) []float64 {
	t.Helper()
	states := make([]int32, 40)
	for i := range states {
		states[i] = int32(i)
	}
	logPi := make([]float64, 4*len(states))
	if err := s.NewEvaluator().Evaluate(p, states, logPi, make([]float64, len(states))); err != nil {
		t.Fatal(err)
	}
	return logPi
}

// offGrid returns the compact file b with the parameters of its rows
// made 1 (β = −scale) and the scale of each mutex set 1: a table whose
// grids, of a scale of 1/(2^bits − 1), do not hold β = −1.
func offGrid(t *testing.T, b []byte) []byte {
	t.Helper()
	ts, meta, err := safetensors.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	q := ts[compactBeta]
	if q.DType == "U8" {
		ts[compactBeta] = safetensors.U8(q.Shape, bytes.Repeat([]byte{1}, len(q.Data)))
	} else {
		v := make([]uint16, len(q.Data)/2)
		for i := range v {
			v[i] = 1
		}
		ts[compactBeta] = safetensors.U16(q.Shape, v)
	}
	s := ts[compactScales]
	ones := make([]float32, s.Shape[0])
	for i := range ones {
		ones[i] = 1
	}
	ts[compactScales] = safetensors.F32(s.Shape, ones)
	out := reencode(t, ts, meta)
	return out
}

// TestQuantisedLearnerRefuses checks that LoadLearner refuses a table
// whose form is not that of cm.json's bits, a compact table off its
// grids, and bits other than 0, 8 and 16; and that an exact learner's
// cm.json does not name bits, as before they existed.
func TestQuantisedLearnerRefuses(t *testing.T) {
	tasks := seedTasks()
	files := map[int][3][]byte{}
	for _, bits := range []int{0, 8, 16} {
		lr, _ := seedQuantised(t, bits)
		files[bits] = quantisedFiles(t, lr)
	}
	if bytes.Contains(files[0][0], []byte("bits")) {
		t.Errorf("an exact learner's %s names bits:\n%s", LearnerFile, files[0][0])
	}
	bits7 := bytes.Replace(files[8][0], []byte(`"bits": 8`), []byte(`"bits": 7`), 1)
	for _, c := range []struct {
		name       string
		js, tb, tj []byte
		err        string
	}{
		{"exact", files[0][0], files[0][1], files[0][2], ""},
		{"8 bits", files[8][0], files[8][1], files[8][2], ""},
		{"16 bits", files[16][0], files[16][1], files[16][2], ""},
		{"8 bits, exact table", files[8][0], files[0][1], files[8][2], `table.safetensors: β exact (format "phs-cm/1"); cm.json says bits 8`},
		{"exact, compact table", files[0][0], files[8][1], files[0][2], `table.safetensors: β quantised to 8 bits (format "phs-cm-compact/1"); cm.json says bits 0`},
		{"16 bits, table of 8", files[16][0], files[8][1], files[16][2], "cm.json says bits 16"},
		{"8 bits, table of 16", files[8][0], files[16][1], files[8][2], "cm.json says bits 8"},
		{"8 bits, off the grid", files[8][0], offGrid(t, files[8][1]), files[8][2], "is not on the grid of 8 bits"},
		{"16 bits, off the grid", files[16][0], offGrid(t, files[16][1]), files[16][2], "is not on the grid of 16 bits"},
		{"bits 7", bits7, files[8][1], files[8][2], "bits 7; want 0 (exact), 8 or 16"},
	} {
		_, err := decodeLearner(c.js, c.tb, c.tj, tasks)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.err)
		}
	}

	// The scales of a learner's compact table must be its grids', those
	// of mutex sets whose β are all 0 or without rows included.
	tb, err := NewTable(Layout{Name: "test v1", Actions: 2, Sizes: []uint64{4, 4, 4}}, DefaultEpsLow)
	if err != nil {
		t.Fatal(err)
	}
	tb.addRow(0, 1)
	tb.addRow(1, 2)
	lo, _ := tb.Bounds()
	copy(tb.beta, []float64{lo, -1, 0, 0})
	snapToGrid(tb, 8)
	b, err := marshalCompact(tb, 8, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts, meta, err := safetensors.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	s0 := ts[compactScales].F32s()[0]
	for _, c := range []struct {
		name   string
		scales []float32
		err    string
	}{
		{"the grid's", []float32{s0, 0, 0}, ""},
		{"a set of zeros", []float32{s0, 1, 0}, "mutex set 1: scale 1, its grid's 0"},
		{"a set without rows", []float32{s0, 0, 2}, "mutex set 2: scale 2, its grid's 0"},
		{"−0", []float32{s0, 0, float32(math.Copysign(0, -1))}, "mutex set 2: scale -0, its grid's 0"},
		{"twice the grid's, its β on the grid", []float32{2 * s0, 0, 0}, "mutex set 0: scale"},
		{"half the grid's: another table, on its grids", []float32{s0 / 2, 0, 0}, ""},
	} {
		ts[compactScales] = safetensors.F32([]int{3}, c.scales)
		f := reencode(t, ts, meta)
		if _, err := ReadTableFS(fstest.MapFS{"t": {Data: f}}, "t"); err != nil {
			t.Errorf("%s: ReadTable: %v", c.name, err)
		}
		_, _, _, err = unmarshalLearnerTable(f)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("scales %s: %v, want an error with %q", c.name, err, c.err)
		}
	}
}

// seedQuantised returns seedLearner's learner with bits bits, and its
// grids.
func seedQuantised(t testing.TB, bits int) (*Learner[int32], []search.Task[int32]) {
	return seedLearnerConfig(t, LearnerConfig{Bits: bits, Growth: 1, OptimizerConfig: OptimizerConfig{MaxSteps: 5}})
}
