package cm

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"

	"github.com/phs-go/phs/internal/safetensors"
)

// formatName is the metadata "format" of the files of a context model.
const formatName = "phs-cm/1"

// marshalTable returns t in the format of table.safetensors, with meta
// added to its metadata: β as F64, exactly, or with f32 as F32 (see
// betaF32). The metadata holds the SHA-256 of the tensors ("sha256").
func marshalTable(t *Table, meta map[string]string, f32 bool) ([]byte, error) {
	m, err := tableMeta(t, formatName)
	if err != nil {
		return nil, err
	}
	for k, v := range meta {
		m[k] = v
	}
	R, A := t.Rows(), t.layout.Actions
	beta := safetensors.F64([]int{R, A}, t.beta)
	if f32 {
		beta = safetensors.F32([]int{R, A}, betaF32(t.beta, t.logLow))
	}
	ts := map[string]safetensors.Tensor{
		"beta": beta,
		"set":  safetensors.I32([]int{R}, t.rowSet),
		"code": safetensors.U64([]int{R}, t.rowCode),
	}
	m[safetensors.DigestKey] = safetensors.Digest(ts)
	return safetensors.Encode(ts, m)
}

// tableMeta returns the metadata of a file of table t in the format
// format: "format", "layout" (the layout's JSON) and "eps_low" (decimal).
func tableMeta(t *Table, format string) (map[string]string, error) {
	lj, err := json.Marshal(t.layout)
	if err != nil {
		return nil, err
	}
	return map[string]string{
		"format":  format,
		"layout":  string(lj),
		"eps_low": strconv.FormatFloat(t.EpsLow(), 'g', -1, 64),
	}, nil
}

// betaF32 returns the parameters beta, each in the box [lo, 0], as
// float32s that are still in the box: each the nearest float32, or the
// next float32 toward 0 when the nearest is below lo. (No float32
// rounding of a number ≤ 0 is above 0.)
func betaF32(beta []float64, lo float64) []float32 {
	out := make([]float32, len(beta))
	for i, v := range beta {
		f := float32(v)
		if float64(f) < lo {
			f = math.Nextafter32(f, 0)
		}
		out[i] = f
	}
	return out
}

// tableOf returns the table of the tensors ts and metadata meta of a file
// in the format of table.safetensors, whose format name the caller
// checked.
func tableOf(ts map[string]safetensors.Tensor, meta map[string]string) (*Table, error) {
	t, err := emptyTableOf(meta)
	if err != nil {
		return nil, err
	}
	l := t.layout
	A := l.Actions
	st, err := get(ts, "set", "I32", -1)
	if err != nil {
		return nil, err
	}
	R := st.Shape[0]
	if R > maxRowCount {
		return nil, fmt.Errorf("%d rows; at most %d", R, maxRowCount)
	}
	ct, err := get(ts, "code", "U64", R)
	if err != nil {
		return nil, err
	}
	dtype := "F64"
	if bt, ok := ts["beta"]; ok {
		if bt.DType != "F64" && bt.DType != "F32" {
			return nil, fmt.Errorf("tensor \"beta\" is %s; want F64 or F32", bt.DType)
		}
		dtype = bt.DType
	}
	bt, err := get(ts, "beta", dtype, R, A)
	if err != nil {
		return nil, err
	}
	sets, codes := st.I32s(), ct.U64s()
	for i := range R {
		set, code := sets[i], codes[i]
		if set < 0 || int(set) >= len(l.Sizes) || code >= l.Sizes[set] {
			return nil, fmt.Errorf("row %d: context (%d, %d) out of the layout", i, set, code)
		}
		if r := t.addRow(int(set), code); r != int32(i) {
			return nil, fmt.Errorf("row %d: context (%d, %d) is row %d's too", i, set, code, r)
		}
	}
	if dtype == "F64" {
		t.beta = bt.F64s()
	} else {
		t.beta = make([]float64, R*A)
		for i, v := range bt.F32s() {
			t.beta[i] = float64(v)
		}
	}
	lo, hi := t.Bounds()
	for i, v := range t.beta {
		if !(v >= lo && v <= hi) {
			return nil, fmt.Errorf("row %d: β = %g out of [%g, %g]", i/A, v, lo, hi)
		}
	}
	return t, nil
}

// emptyTableOf returns a table without rows of the layout and εlow of the
// metadata meta of a table file: the layout's JSON in "layout" (no
// unknown field), εlow in decimal in "eps_low".
func emptyTableOf(meta map[string]string) (*Table, error) {
	var l Layout
	dec := json.NewDecoder(strings.NewReader(meta["layout"]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("layout: %w", err)
	}
	eps, err := strconv.ParseFloat(meta["eps_low"], 64)
	if err != nil {
		return nil, fmt.Errorf("eps_low: %w", err)
	}
	return NewTable(l, eps)
}

// WriteTable writes t to the file name in the format of a learner's
// table.safetensors, replacing it atomically: a trained model for test
// searches, without the learner's solutions. It writes β as F32, each
// parameter the nearest float32 in the box [ln εlow, 0] (the next one
// toward 0 when the nearest is below ln εlow): half the bytes of the F64
// that Learner.Save and Snapshot.MarshalBinary write exactly. A name
// ending in GzipSuffix is compressed.
func WriteTable(name string, t *Table) error {
	b, err := marshalTable(t, nil, true)
	if err == nil {
		err = writeFile(name, b)
	}
	if err != nil {
		return fmt.Errorf("cm: %w", err)
	}
	return nil
}

// ReadTable reads a table from the file name, such as the
// table.safetensors of a learner's directory (Learner.Save, β as F64), a
// file of WriteTable (β as F32) or one of WriteCompactTable (the compact
// form, its rows in the order of their contexts), checking every field,
// and its tensors against the SHA-256 of its metadata "sha256" (a file
// written before it was recorded reads unchecked: see Table.NoDigest).
// A name ending in GzipSuffix is decompressed.
func ReadTable(name string) (*Table, error) {
	b, err := readData(osOpen, name)
	if err != nil {
		return nil, fmt.Errorf("cm: %w", err)
	}
	return decodeTable(b, name)
}

// ReadTableFS is ReadTable for the file name of the file system fsys,
// such as a table embedded in a binary (embed.FS).
func ReadTableFS(fsys fs.FS, name string) (*Table, error) {
	b, err := readData(fsOpen(fsys), name)
	if err != nil {
		return nil, fmt.Errorf("cm: %w", err)
	}
	return decodeTable(b, name)
}

// decodeTable returns the table of b, the content of the file name: in
// the format of table.safetensors or in the compact form, as its metadata
// "format" says.
func decodeTable(b []byte, name string) (*Table, error) {
	t, _, _, err := unmarshalAnyTable(b, nil)
	if err != nil {
		return nil, fmt.Errorf("cm: %s: %w", name, err)
	}
	return t, nil
}

// unmarshalAnyTable returns the table of b, a file in the format of
// table.safetensors (tableOf) or in the compact form (compactTableOf), as
// its metadata "format" says, checking its tensors against the SHA-256 of
// its metadata "sha256", if any (else the table's NoDigest is true), then
// every field, with the file's metadata and the bits of its quantisation:
// 0 for the format of table.safetensors (β as F64 or F32), 8 or 16 for
// the compact form (beta_q U8 or U16). check, if not nil, checks a table
// of the compact form further, given its tensors.
func unmarshalAnyTable(b []byte, check func(t *Table, bits int, ts map[string]safetensors.Tensor) error) (*Table, map[string]string, int, error) {
	ts, meta, err := safetensors.Decode(b)
	if err != nil {
		return nil, nil, 0, err
	}
	if f := meta["format"]; f != formatName && f != compactFormatName {
		return nil, nil, 0, fmt.Errorf("format %q, want %q or %q", f, formatName, compactFormatName)
	}
	want, hasDigest := meta[safetensors.DigestKey]
	if hasDigest {
		if err := safetensors.CheckDigest(safetensors.Digest(ts), want); err != nil {
			return nil, nil, 0, err
		}
	}
	var t *Table
	bits := 0
	if meta["format"] == formatName {
		t, err = tableOf(ts, meta)
	} else {
		t, bits, err = compactTableOf(ts, meta)
		if err == nil && check != nil {
			err = check(t, bits, ts)
		}
	}
	if err != nil {
		return nil, nil, 0, err
	}
	t.noDigest = !hasDigest
	return t, meta, bits, nil
}
