package safetensors

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
)

// header returns a file's first bytes: the length of h, then h.
func header(h string) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	return append(out, h...)
}

func TestRoundTrip(t *testing.T) {
	ts := map[string]Tensor{
		"f32": F32([]int{2, 3}, []float32{1, 2, 3, 4, 5, float32(math.Inf(1))}),
		"f64": F64([]int{2}, []float64{-1.5, math.NaN()}),
		"u64": U64([]int{1}, []uint64{math.MaxUint64}),
		"i64": I64([]int{2}, []int64{math.MinInt64, 7}),
		"i32": I32([]int{1, 2}, []int32{-3, math.MaxInt32}),
		"u16": U16([]int{2}, []uint16{1, math.MaxUint16}),
		"u8":  U8([]int{3}, []uint8{0, 1, 255}),
		"nil": F32([]int{0, 4}, nil),
	}
	b, err := Encode(ts, map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	if n := binary.LittleEndian.Uint64(b); n%8 != 0 || b[8] != '{' {
		t.Errorf("header of %d bytes starting with %q, want a multiple of 8 and a JSON object", n, b[8])
	}
	back, meta, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(meta, map[string]string{"k": "v"}) {
		t.Errorf("meta %v", meta)
	}
	if len(back) != len(ts) {
		t.Fatalf("%d tensors back, want %d", len(back), len(ts))
	}
	for n, x := range ts {
		y := back[n]
		if x.DType != y.DType || !reflect.DeepEqual(x.Shape, y.Shape) || !bytes.Equal(x.Data, y.Data) {
			t.Errorf("%s: %v became %v", n, x, y)
		}
	}
	if v := back["f32"].F32s(); v[0] != 1 || !math.IsInf(float64(v[5]), 1) {
		t.Errorf("F32s = %v", v)
	}
	if v := back["f64"].F64s(); v[0] != -1.5 || !math.IsNaN(v[1]) {
		t.Errorf("F64s = %v", v)
	}
	if v := back["u64"].U64s(); v[0] != math.MaxUint64 {
		t.Errorf("U64s = %v", v)
	}
	if v := back["i64"].I64s(); !reflect.DeepEqual(v, []int64{math.MinInt64, 7}) {
		t.Errorf("I64s = %v", v)
	}
	if v := back["i32"].I32s(); !reflect.DeepEqual(v, []int32{-3, math.MaxInt32}) {
		t.Errorf("I32s = %v", v)
	}
	if v := back["u16"].U16s(); !reflect.DeepEqual(v, []uint16{1, math.MaxUint16}) {
		t.Errorf("U16s = %v", v)
	}
	if again, err := Encode(back, meta); err != nil || !bytes.Equal(again, b) {
		t.Errorf("re-encoding: %v, equal %v", err, bytes.Equal(again, b))
	}
	// No metadata: no "__metadata__".
	b, err = Encode(map[string]Tensor{"a": U8([]int{1}, []uint8{9})}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := append(header(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}   `), 9); !bytes.Equal(b, want) {
		t.Errorf("Encode = %q, want %q", b, want)
	}
}

func TestEncodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    Tensor
		msg  string
	}{
		{"dtype", Tensor{"BF16", []int{1}, make([]byte, 2)}, `dtype "BF16"`},
		{"short", Tensor{"F32", []int{2}, make([]byte, 4)}, "4 bytes for shape [2] of F32"},
		{"long", Tensor{"U8", []int{2}, make([]byte, 3)}, "3 bytes for shape [2] of U8"},
		{"negative", Tensor{"U8", []int{-1}, nil}, "bytes for shape [-1]"},
	} {
		if _, err := Encode(map[string]Tensor{"a": tc.t}, nil); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.msg)
		}
	}
	if _, err := Encode(map[string]Tensor{"__metadata__": U8([]int{0}, nil)}, nil); err == nil {
		t.Error("a tensor named __metadata__: no error")
	}
}

// TestWrite checks that Write writes what Encode returns, its sources'
// data in pieces, and that a source that writes the wrong number of bytes
// or fails is an error that names it.
func TestWrite(t *testing.T) {
	ts := map[string]Tensor{"a": I32([]int{3}, []int32{1, -2, 3}), "b": U8([]int{2, 2}, []uint8{4, 5, 6, 7})}
	want, err := Encode(ts, map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	bytewise := func(data []byte) func(w io.Writer) error {
		return func(w io.Writer) error {
			for i := range data {
				if _, err := w.Write(data[i : i+1]); err != nil {
					return err
				}
			}
			return nil
		}
	}
	src := map[string]Source{}
	for n, x := range ts {
		src[n] = Source{x.DType, x.Shape, bytewise(x.Data)}
	}
	var buf bytes.Buffer
	digest, err := Write(&buf, src, map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("Write wrote\n%q\nEncode returns\n%q", buf.Bytes(), want)
	}
	if digest != Digest(ts) {
		t.Errorf("Write returned the digest %s, Digest %s", digest, Digest(ts))
	}
	fail := errors.New("disk full")
	for _, tc := range []struct {
		name  string
		write func(io.Writer) error
		msg   string
	}{
		{"short", bytewise(make([]byte, 11)), `tensor "a": 11 bytes for shape [3] of I32`},
		{"long", bytewise(make([]byte, 13)), `tensor "a": 13 bytes for shape [3] of I32`},
		{"error", func(io.Writer) error { return fail }, `tensor "a": disk full`},
	} {
		_, err := Write(io.Discard, map[string]Source{"a": {"I32", []int{3}, tc.write}}, nil)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v; want one with %q", tc.name, err, tc.msg)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	b, err := Encode(map[string]Tensor{"a": F32([]int{2, 3}, make([]float32, 6)), "b": I32([]int{1}, []int32{-7})}, map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		in   []byte
		msg  string
	}{
		{"empty", nil, "file of 0 bytes, shorter than"},
		{"7 bytes", b[:7], "file of 7 bytes, shorter than"},
		{"header only", b[:8], "header of"},
		{"truncated data", b[:len(b)-1], "do not fit"},
		{"trailing data", append(append([]byte(nil), b...), 0, 0, 0, 0), "the tensors end at"},
		{"huge header", append([]byte{255, 255, 255, 255, 255, 255, 255, 255}, b[8:]...), "header of 18446744073709551615 bytes, more than the 100000000 allowed"},
		{"header past the end", header("{}")[:9], "header of 2 bytes in a file of 9"},
		{"not an object", header("[1, 2]  "), "not a JSON object"},
		{"null", header("null    "), "not a JSON object"},
		{"blank", header("        "), "not a JSON object"},
		{"bad JSON", header(`{"a":}  `), "header"},
		{"trailing JSON", header(`{} {}   `), "header"},
		{"tensor not an object", header(`{"a":1}`), `tensor "a"`},
		{"dtype", append(header(`{"a":{"dtype":"BF16","shape":[1],"data_offsets":[0,2]}}`), make([]byte, 2)...), `tensor "a": dtype "BF16"`},
		{"shape", append(header(`{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}`), make([]byte, 4)...), "bad shape"},
		{"shape overflow", header(`{"a":{"dtype":"U8","shape":[65536,65536],"data_offsets":[0,0]}}`), "bad shape"},
		{"size", append(header(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`), make([]byte, 4)...), "do not fit"},
		{"dtype size", append(header(`{"a":{"dtype":"F64","shape":[1],"data_offsets":[0,4]}}`), make([]byte, 4)...), "do not fit"},
		{"negative offset", append(header(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[-1,0]}}`), make([]byte, 1)...), "do not fit"},
		{"reversed offsets", append(header(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[1,0]}}`), make([]byte, 1)...), "do not fit"},
		{"overlap", append(header(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`), make([]byte, 4)...), "overlap"},
		{"gap", append(header(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`), make([]byte, 8)...), "gap"},
		{"metadata", header(`{"__metadata__":{"a":1}}`), "__metadata__"},
	} {
		_, _, err := Decode(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.msg)
		}
	}
}

// TestHeaderCap checks that a header longer than MaxHeader is refused
// before anything is allocated for it, by Decode and ReadFile.
func TestHeaderCap(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		size int64
		msg  string
	}{
		{MaxHeader, 8 + MaxHeader, ""},
		{MaxHeader + 1, 8 + MaxHeader + 1, "header of 100000001 bytes, more than the 100000000 allowed"},
		{2 << 30, 8 + 2<<30, "header of 2147483648 bytes, more than the 100000000 allowed"},
		{math.MaxUint64, 8, "more than the 100000000 allowed"},
		{9, 16, "header of 9 bytes in a file of 16"},
		{0, 7, "header of 0 bytes in a file of 7"},
	} {
		err := CheckHeaderLength(tc.n, tc.size)
		if (tc.msg == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("CheckHeaderLength(%d, %d) = %v, want %q", tc.n, tc.size, err, tc.msg)
		}
	}
	// Decode: the cap is checked first.
	b := binary.LittleEndian.AppendUint64(nil, MaxHeader+1)
	if _, _, err := Decode(append(b, "{}"...)); err == nil || !strings.Contains(err.Error(), "more than the 100000000 allowed") {
		t.Errorf("Decode: %v", err)
	}
	// ReadFile: a sparse file of 2 GB whose header says so.
	name := filepath.Join(t.TempDir(), "huge.safetensors")
	if err := os.WriteFile(name, binary.LittleEndian.AppendUint64(nil, 2<<30), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(name, 8+2<<30); err != nil {
		t.Fatalf("cannot make a sparse file: %v", err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadFile(os.DirFS(filepath.Dir(name)), filepath.Base(name), 1<<30)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "header of 2147483648 bytes, more than the 100000000 allowed") {
		t.Errorf("ReadFile: %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("ReadFile allocated %d bytes", alloc)
	}
}

func TestReadFile(t *testing.T) {
	good, err := Encode(map[string]Tensor{"a": U8([]int{4}, []uint8{1, 2, 3, 4})}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		"good":  {Data: good},
		"short": {Data: good[:5]},
		"bad":   {Data: good[:9]},
	}
	if b, err := ReadFile(fsys, "good", 4); err != nil || !bytes.Equal(b, good) {
		t.Errorf("good: %v", err)
	}
	for _, tc := range []struct {
		name    string
		maxData int64
		msg     string
	}{
		{"good", 3, "4 bytes of data, more than the 3 expected"},
		{"short", 4, "file of 5 bytes, shorter than the 8-byte header length"},
		{"bad", 4, "in a file of 9"},
		{"absent", 4, "absent"},
	} {
		if _, err := ReadFile(fsys, tc.name, tc.maxData); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.msg)
		}
	}
}

// FuzzDecode checks that Decode refuses or accepts any input without
// panicking, and that what it accepts Encode writes back to a file that
// decodes to the same tensors.
func FuzzDecode(f *testing.F) {
	b, _ := Encode(map[string]Tensor{"w": F32([]int{2}, []float32{1, 2}), "i": I32([]int{1, 1}, []int32{3}), "u": U8([]int{0}, nil)}, map[string]string{"x": "y"})
	f.Add(b)
	f.Add(header(`{}      `))
	f.Add(append(header(`{"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}`), make([]byte, 8)...))
	f.Fuzz(func(t *testing.T, in []byte) {
		ts, meta, err := Decode(in)
		if err != nil {
			return
		}
		out, err := Encode(ts, meta)
		if err != nil {
			t.Fatalf("Encode of decoded tensors: %v", err)
		}
		again, meta2, err := Decode(out)
		if err != nil || len(again) != len(ts) || len(meta2) != len(meta) {
			t.Fatalf("re-decoding: %v", err)
		}
		for k, v := range meta {
			if meta2[k] != v {
				t.Fatalf("metadata %q: %q became %q", k, v, meta2[k])
			}
		}
		for name, x := range ts {
			y := again[name]
			if x.DType != y.DType || !reflect.DeepEqual(x.Shape, y.Shape) || !bytes.Equal(x.Data, y.Data) {
				t.Fatalf("%q: %v became %v", name, x, y)
			}
		}
		if final, err := Encode(again, meta2); err != nil || !bytes.Equal(final, out) {
			t.Fatalf("encoding is not stable: %v", err)
		}
	})
}

// TestDigest checks Digest against sha256sum of the bytes after the
// header of a file that Encode wrote, that it does not depend on the
// header (the metadata, the order of the tensors in the data, their
// shapes), that it depends on every byte and on which tensor has which
// data, and CheckDigest's errors.
func TestDigest(t *testing.T) {
	ts := map[string]Tensor{"b": U8([]int{2, 2}, []uint8{4, 5, 6, 7}), "a": I32([]int{3}, []int32{1, -2, 3})}
	b, err := Encode(ts, map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(b)
	sum := sha256.Sum256(b[8+n:])
	want := hex.EncodeToString(sum[:])
	if got := Digest(ts); got != want {
		t.Errorf("Digest = %s, the SHA-256 of the data %s", got, want)
	}
	// Another header: other metadata, the data of "b" first, another shape.
	other := header(`{"__metadata__":{"x":"y"},"b":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"a":{"dtype":"I32","shape":[3],"data_offsets":[4,16]}}`)
	other = append(other, 4, 5, 6, 7)
	other = append(other, b[8+n:8+n+12]...)
	decoded, _, err := Decode(other)
	if err != nil {
		t.Fatal(err)
	}
	if got := Digest(decoded); got != want {
		t.Errorf("Digest of the same tensors under another header = %s, want %s", got, want)
	}
	if err := CheckDigest(Digest(decoded), want); err != nil {
		t.Error(err)
	}
	swapped := map[string]Tensor{"a": ts["b"], "b": ts["a"]}
	flipped := map[string]Tensor{"a": ts["a"], "b": U8([]int{2, 2}, []uint8{4, 5, 6, 6})}
	for _, tc := range []struct {
		name    string
		tensors map[string]Tensor
		digest  string
		msg     string
	}{
		{"swapped", swapped, want, "the file is corrupt"},
		{"flipped", flipped, want, "SHA-256 is " + Digest(flipped)},
		{"short", ts, want[:63], "want 64 lower-case hexadecimal digits"},
		{"upper case", ts, strings.ToUpper(want), "want 64"},
		{"long", ts, strings.Repeat("a", 1000), "want 64"},
	} {
		if err := CheckDigest(Digest(tc.tensors), tc.digest); err == nil || !strings.Contains(err.Error(), tc.msg) || len(err.Error()) > 300 {
			t.Errorf("%s: %v; want an error with %q", tc.name, err, tc.msg)
		}
	}
}
