package cm

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/phs-go/phs/internal/safetensors"
)

// compactFormatName is the metadata "format" of a table in the compact
// form (WriteCompactTable, and a quantised learner's files). See
// docs/MODEL_FORMAT.md.
const compactFormatName = "phs-cm-compact/1"

// The tensors of the compact form, with R rows, A actions and M mutex
// sets.
const (
	compactBeta   = "beta_q"     // U8 or U16 [R, A]: β = −q·scale of the row's set
	compactScales = "beta_scale" // F32 [M]: the scale of each mutex set, finite, ≥ 0
	compactCounts = "set_rows"   // I32 [M]: the number of rows of each mutex set
	compactCodes  = "code_delta" // U8 [B]: the codes, set by set, as LEB128 deltas
)

// WriteCompactTable writes t to the file name in the compact form of a
// table (docs/MODEL_FORMAT.md), with its parameters quantised to bits
// bits, 8 to 16, replacing it atomically (compressed if name ends in
// GzipSuffix): a trained model for test searches in A bytes a row (2A
// above 8 bits) and the varint of its code (1 to 10 bytes, the
// difference to the previous code of its mutex set), where WriteTable
// takes 4A + 12. Fewer bits compress better. ReadTable and ReadTableFS
// read it back as a table of the same layout, εlow and contexts, its
// rows sorted by context (mutex set, then code), whose policy is t's up
// to the quantisation of its parameters:
//
// Each row of t is shifted so that its largest β is 0, which changes no
// policy (the softmax of a sum of rows is the same when one row is
// shifted on every action) and keeps it in the box [ln εlow, 0]. Mutex
// set i has a scale s_i, the smallest shifted β of its rows over
// −(2^bits − 1), rounded up to a float32, and each shifted β is written
// as the q in 0..2^bits − 1 whose −q·s_i is nearest to it. The β read
// back, −q·s_i, or ln εlow when that is below it, is within s_i/2 of the
// shifted β (to a float64 rounding), and s_i/2 ≤ |ln εlow|/(2(2^bits −
// 1))·(1 + 2⁻²³): for εlow 1e-4, 0.0181 with 8 bits, 0.0045 with 10.
// So in a state whose known contexts are in the mutex sets K (one row
// each), each log-probability of the policy, mixed or not, is within
// Σ_{i∈K} s_i of t's. A learner started from the table read back
// (NewLearnerFrom) starts from the shifted, quantised parameters.
func WriteCompactTable(name string, t *Table, bits int) error {
	if bits < 8 || bits > 16 {
		return fmt.Errorf("cm: WriteCompactTable: %d bits; want 8 to 16", bits)
	}
	b, err := marshalCompact(t, bits, false, nil)
	if err == nil {
		err = writeFile(name, b)
	}
	if err != nil {
		return fmt.Errorf("cm: %w", err)
	}
	return nil
}

// marshalCompact returns t in the compact form, with q of bits bits (8
// to 16: beta_q U8 for 8, U16 above) and meta added to the metadata, which holds the
// SHA-256 of the tensors ("sha256"). Without exact,
// it shifts and rounds t's parameters as WriteCompactTable says; with
// exact, it writes them as they are, the scale of each mutex set that of
// gridScales, and returns an error unless each β reads back bit for bit
// (onGrid: a quantised learner's table).
func marshalCompact(t *Table, bits int, exact bool, meta map[string]string) ([]byte, error) {
	m, err := tableMeta(t, compactFormatName)
	if err != nil {
		return nil, err
	}
	maps.Copy(m, meta)
	M, A, R := len(t.layout.Sizes), t.layout.Actions, t.Rows()
	top := quantTop(bits)
	// shift returns the shift of row b: its largest β, or 0 with exact.
	shift := func(b []float64) float64 {
		if exact {
			return 0
		}
		return slices.Max(b)
	}
	var scales []float32
	if exact {
		if err := onGrid(t, bits); err != nil {
			return nil, err
		}
		scales = gridScales(t, bits)
	} else {
		// low[i] is the smallest shifted β of mutex set i, ≤ 0.
		low := make([]float64, M)
		for r := range R {
			b := t.Beta(r)
			hi := shift(b)
			set := t.rowSet[r]
			for _, v := range b {
				low[set] = min(low[set], v-hi)
			}
		}
		scales = make([]float32, M)
		for i, lo := range low {
			scales[i] = compactScale(lo, top)
		}
	}
	order := t.sortedRows()
	q := make([]uint16, 0, R*A)
	counts := make([]int32, M)
	codes := make([]byte, 0, 3*R)
	for i, r := range order {
		set, code := t.rowSet[r], t.rowCode[r]
		d := code
		if i > 0 && t.rowSet[order[i-1]] == set {
			d = code - t.rowCode[order[i-1]]
		}
		codes = binary.AppendUvarint(codes, d)
		counts[set]++
		b := t.Beta(int(r))
		s := shift(b)
		for _, v := range b {
			q = append(q, quantize(v-s, scales[set], top))
		}
	}
	var qt safetensors.Tensor
	if bits == 8 {
		q8 := make([]uint8, len(q))
		for i, v := range q {
			q8[i] = uint8(v)
		}
		qt = safetensors.U8([]int{R, A}, q8)
	} else {
		qt = safetensors.U16([]int{R, A}, q)
	}
	ts := map[string]safetensors.Tensor{
		compactBeta:   qt,
		compactScales: safetensors.F32([]int{M}, scales),
		compactCounts: safetensors.I32([]int{M}, counts),
		compactCodes:  safetensors.U8([]int{len(codes)}, codes),
	}
	m[safetensors.DigestKey] = safetensors.Digest(ts)
	return safetensors.Encode(ts, m)
}

// quantTop returns the largest q of a quantisation of bits bits, 8 to 16:
// 2^bits − 1. It panics for other bits.
func quantTop(bits int) float64 {
	if bits < 8 || bits > 16 {
		panic(fmt.Sprintf("cm: a quantisation of %d bits", bits))
	}
	return float64(int(1)<<bits - 1)
}

// compactScale returns the scale of a mutex set whose smallest (shifted)
// β is lo ≤ 0, for q in 0..top: −lo/top rounded up to a float32 (0 if lo
// is 0), so that every β of the set in [lo, 0] is −q·scale, to half a
// scale, for some q in 0..top.
func compactScale(lo, top float64) float32 {
	if lo == 0 {
		return 0
	}
	s := -lo / top
	f := float32(s)
	if float64(f) < s {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// quantize returns the q in 0..top whose −q·scale is nearest to v, a β in
// [top·(−scale), 0]; 0 if scale is 0.
func quantize(v float64, scale float32, top float64) uint16 {
	if scale == 0 {
		return 0
	}
	return uint16(min(max(math.Round(-v/float64(scale)), 0), top))
}

// dequantize returns the β of q and scale in the box [lo, 0]: −q·scale,
// exact in float64, or lo when that is below lo; 0 (not −0) when q is 0.
// The reader of the compact form and a quantised learner both compute β
// with it, so that a learner's β reads back bit for bit.
func dequantize(q uint16, scale float32, lo float64) float64 {
	if q == 0 {
		return 0
	}
	return max(-float64(q)*float64(scale), lo)
}

// minNormal32 is the smallest normal float32, 2⁻¹²⁶.
const minNormal32 = 0x1p-126

// gridScales returns the scale of the grid of each mutex set of t for a
// quantisation of bits bits (LearnerConfig.Bits): compactScale of the
// set's smallest β, for q in 0..2^bits − 1, or 0 if that is below the
// smallest normal float32 (every β of the set then above −2⁻¹¹⁸, snapped
// to 0). A set's grid is then the β = dequantize(q, scale, ln εlow) for q
// in 0..2^bits − 1, and the smallest β of the set is on it.
//
// The grid is a fixed point: snapping t to it (snapToGrid) leaves each
// set's smallest β at −(2^bits − 1)·scale, or ln εlow when that is below
// it, whose gridScales is the same scale, so that a snapped table is on
// its grid (onGrid) and writes exactly in the compact form.
func gridScales(t *Table, bits int) []float32 {
	low := make([]float64, len(t.layout.Sizes))
	A := t.layout.Actions
	for i, v := range t.beta {
		set := t.rowSet[i/A]
		low[set] = min(low[set], v)
	}
	top := quantTop(bits)
	scales := make([]float32, len(low))
	for i, lo := range low {
		if s := compactScale(lo, top); s >= minNormal32 {
			scales[i] = s
		}
	}
	return scales
}

// snapToGrid sets each β of t to the point of the grid of its mutex set
// (gridScales) nearest to it, the grid's smallest point being ln εlow
// when −(2^bits − 1)·scale is below it.
func snapToGrid(t *Table, bits int) {
	scales := gridScales(t, bits)
	top := quantTop(bits)
	A := t.layout.Actions
	for i, v := range t.beta {
		s := scales[t.rowSet[i/A]]
		t.beta[i] = dequantize(quantize(v, s, top), s, t.logLow)
	}
}

// onGrid returns an error that names the first β of t, in order of rows,
// that is not on the grid of bits bits of its mutex set (gridScales), bit
// for bit: that snapToGrid would change.
func onGrid(t *Table, bits int) error {
	scales := gridScales(t, bits)
	top := quantTop(bits)
	A := t.layout.Actions
	for i, v := range t.beta {
		r := i / A
		s := scales[t.rowSet[r]]
		if g := dequantize(quantize(v, s, top), s, t.logLow); math.Float64bits(g) != math.Float64bits(v) {
			return fmt.Errorf("row %d (mutex set %d, code %d), action %d: β = %v is not on the grid of %d bits of its set (scale %v): %v is", r, t.rowSet[r], t.rowCode[r], i%A, v, bits, s, g)
		}
	}
	return nil
}

// compactTableOf returns the table of the tensors ts and metadata meta of
// a file in the compact form, whose format name the caller checked, and
// the bits of its quantisation (8 for beta_q U8, 16 for U16), checking
// every field, and the sizes before it allocates the rows (each takes A
// or 2A bytes of beta_q and at least one of code_delta): a known tensor
// of its dtype and shape each, no other tensor; scales finite and ≥ 0;
// row counts ≥ 0, at most the set's number of codes, summing to the rows
// of beta_q; as many canonical varints (no needless continuation byte, no
// overflow) as rows, and no byte after them; codes strictly increasing
// within each set and below its number of codes.
func compactTableOf(ts map[string]safetensors.Tensor, meta map[string]string) (*Table, int, error) {
	t, err := emptyTableOf(meta)
	if err != nil {
		return nil, 0, err
	}
	l := t.layout
	M, A := len(l.Sizes), l.Actions
	for name := range ts {
		switch name {
		case compactBeta, compactScales, compactCounts, compactCodes:
		default:
			return nil, 0, fmt.Errorf("tensor %q in a compact table", name)
		}
	}
	bits, dtype := 8, "U8"
	if qt, ok := ts[compactBeta]; ok {
		switch qt.DType {
		case "U8":
		case "U16":
			bits, dtype = 16, "U16"
		default:
			return nil, 0, fmt.Errorf("tensor %q is %s; want U8 or U16", compactBeta, qt.DType)
		}
	}
	qt, err := get(ts, compactBeta, dtype, -1, A)
	if err != nil {
		return nil, 0, err
	}
	st, err := get(ts, compactScales, "F32", M)
	if err != nil {
		return nil, 0, err
	}
	nt, err := get(ts, compactCounts, "I32", M)
	if err != nil {
		return nil, 0, err
	}
	ct, err := get(ts, compactCodes, "U8", -1)
	if err != nil {
		return nil, 0, err
	}
	R := qt.Shape[0]
	switch {
	case R > maxRowCount:
		return nil, 0, fmt.Errorf("%d rows; at most %d", R, maxRowCount)
	case R > len(ct.Data):
		return nil, 0, fmt.Errorf("%d rows and %d bytes of codes; want at least a byte a row", R, len(ct.Data))
	}
	scales := st.F32s()
	for i, s := range scales {
		if !(s >= 0 && s <= math.MaxFloat32) {
			return nil, 0, fmt.Errorf("mutex set %d: scale %g; want a finite number ≥ 0", i, s)
		}
	}
	counts := nt.I32s()
	total := 0
	for i, n := range counts {
		if n < 0 || uint64(n) > l.Sizes[i] {
			return nil, 0, fmt.Errorf("mutex set %d: %d rows; want 0 to its %d codes", i, n, l.Sizes[i])
		}
		total += int(n)
	}
	if total != R {
		return nil, 0, fmt.Errorf("%d rows in the mutex sets, %d in %s", total, R, compactBeta)
	}
	t.rowSet = make([]int32, 0, R)
	t.rowCode = make([]uint64, 0, R)
	t.beta = make([]float64, 0, R*A)
	b := ct.Data
	for set, n := range counts {
		size := l.Sizes[set]
		var code uint64
		for j := range n {
			d, k := binary.Uvarint(b)
			row := t.Rows()
			switch {
			case k == 0:
				return nil, 0, fmt.Errorf("row %d: %s ends within a varint", row, compactCodes)
			case k < 0:
				return nil, 0, fmt.Errorf("row %d: a varint of %s overflows 64 bits", row, compactCodes)
			case k > 1 && b[k-1] == 0:
				return nil, 0, fmt.Errorf("row %d: a varint of %s ends with a needless zero byte", row, compactCodes)
			case j > 0 && d == 0:
				return nil, 0, fmt.Errorf("row %d: mutex set %d: code %d twice (delta 0)", row, set, code)
			case j == 0 && d >= size, j > 0 && d > size-1-code:
				return nil, 0, fmt.Errorf("row %d: mutex set %d: code past its %d codes (delta %d after code %d)", row, set, size, d, code)
			}
			b = b[k:]
			if j == 0 {
				code = d
			} else {
				code += d
			}
			t.addRow(set, code)
		}
	}
	if len(b) > 0 {
		return nil, 0, fmt.Errorf("%d bytes of %s after the code of the last row", len(b), compactCodes)
	}
	lo, _ := t.Bounds()
	if bits == 8 {
		for i, q := range qt.Data {
			t.beta[i] = dequantize(uint16(q), scales[t.rowSet[i/A]], lo)
		}
	} else {
		for i, q := range qt.U16s() {
			t.beta[i] = dequantize(q, scales[t.rowSet[i/A]], lo)
		}
	}
	return t, bits, nil
}
