package cm

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// The safetensors files of a context model: an 8-byte little-endian
// header length, a JSON header (padded with spaces to a multiple of 8
// bytes) mapping each tensor's name to its dtype, shape and data offsets,
// and an optional "__metadata__" map of strings, then the little-endian
// data, the tensors end to end. See docs/MODEL_FORMAT.md.

// A tensor is a named array of one of the dtypes below, as raw
// little-endian bytes.
type tensor struct {
	dtype string
	shape []int
	data  []byte
}

// dtypeSize is the size in bytes of the dtypes a context model uses.
var dtypeSize = map[string]int{"F64": 8, "I64": 8, "U64": 8, "I32": 4, "U8": 1}

// maxHeader bounds the JSON header a reader accepts.
const maxHeader = 1 << 20

func f64Tensor(shape []int, v []float64) tensor {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return tensor{"F64", shape, b}
}

func u64Tensor(shape []int, v []uint64) tensor {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	return tensor{"U64", shape, b}
}

func i64Tensor(shape []int, v []int64) tensor {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return tensor{"I64", shape, b}
}

func i32Tensor(shape []int, v []int32) tensor {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return tensor{"I32", shape, b}
}

func u8Tensor(shape []int, v []uint8) tensor { return tensor{"U8", shape, slices.Clone(v)} }

func (t tensor) f64() []float64 {
	v := make([]float64, len(t.data)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(t.data[8*i:]))
	}
	return v
}

func (t tensor) u64() []uint64 {
	v := make([]uint64, len(t.data)/8)
	for i := range v {
		v[i] = binary.LittleEndian.Uint64(t.data[8*i:])
	}
	return v
}

func (t tensor) i64() []int64 {
	v := make([]int64, len(t.data)/8)
	for i := range v {
		v[i] = int64(binary.LittleEndian.Uint64(t.data[8*i:]))
	}
	return v
}

func (t tensor) i32() []int32 {
	v := make([]int32, len(t.data)/4)
	for i := range v {
		v[i] = int32(binary.LittleEndian.Uint32(t.data[4*i:]))
	}
	return v
}

type tensorHeader struct {
	DType       string   `json:"dtype"`
	Shape       []int    `json:"shape"`
	DataOffsets [2]int64 `json:"data_offsets"`
}

// encodeSafetensors returns the safetensors file of tensors and meta,
// the tensors in the order of their names.
func encodeSafetensors(tensors map[string]tensor, meta map[string]string) ([]byte, error) {
	names := make([]string, 0, len(tensors))
	for n := range tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	header := map[string]any{}
	if len(meta) > 0 {
		header["__metadata__"] = meta
	}
	var off int64
	for _, n := range names {
		t := tensors[n]
		size := int64(len(t.data))
		header[n] = tensorHeader{DType: t.dtype, Shape: t.shape, DataOffsets: [2]int64{off, off + size}}
		off += size
	}
	h, err := json.Marshal(header)
	if err != nil {
		return nil, err
	}
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	out := make([]byte, 8, 8+len(h)+int(off))
	binary.LittleEndian.PutUint64(out, uint64(len(h)))
	out = append(out, h...)
	for _, n := range names {
		out = append(out, tensors[n].data...)
	}
	return out, nil
}

// decodeSafetensors reads a safetensors file of the dtypes above, whose
// tensors' offsets must cover the data exactly, without gaps or
// overlaps. The tensors' data alias b.
func decodeSafetensors(b []byte) (map[string]tensor, map[string]string, error) {
	if len(b) < 8 {
		return nil, nil, fmt.Errorf("safetensors: file of %d bytes, shorter than the 8-byte header length", len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	if n > uint64(len(b)-8) || n > maxHeader {
		return nil, nil, fmt.Errorf("safetensors: header of %d bytes in a file of %d", n, len(b))
	}
	head := bytes.TrimLeft(b[8:8+n], " \t\r\n")
	if len(head) == 0 || head[0] != '{' {
		return nil, nil, errors.New("safetensors: the header is not a JSON object")
	}
	data := b[8+n:]
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(head, &raw); err != nil {
		return nil, nil, fmt.Errorf("safetensors: header: %w", err)
	}
	var meta map[string]string
	tensors := map[string]tensor{}
	type span struct {
		name   string
		lo, hi int64
	}
	var spans []span
	for name, msg := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(msg, &meta); err != nil {
				return nil, nil, fmt.Errorf("safetensors: __metadata__ is not a map of strings: %w", err)
			}
			continue
		}
		var h tensorHeader
		if err := json.Unmarshal(msg, &h); err != nil {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		size, ok := dtypeSize[h.DType]
		if !ok {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: dtype %q", name, h.DType)
		}
		count := int64(1)
		for _, d := range h.Shape {
			if d < 0 || (d > 0 && count > math.MaxInt32/int64(d)) {
				return nil, nil, fmt.Errorf("safetensors: tensor %q: bad shape %v", name, h.Shape)
			}
			count *= int64(d)
		}
		lo, hi := h.DataOffsets[0], h.DataOffsets[1]
		if lo < 0 || hi < lo || hi > int64(len(data)) || hi-lo != int64(size)*count {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: offsets %v do not fit shape %v of %s and %d data bytes", name, h.DataOffsets, h.Shape, h.DType, len(data))
		}
		tensors[name] = tensor{h.DType, h.Shape, data[lo:hi]}
		spans = append(spans, span{name, lo, hi})
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].lo != spans[j].lo {
			return spans[i].lo < spans[j].lo
		}
		return spans[i].hi < spans[j].hi
	})
	var end int64
	for _, s := range spans {
		if s.lo != end {
			return nil, nil, fmt.Errorf("safetensors: tensor %q starts at data byte %d, want %d (a gap or an overlap)", s.name, s.lo, end)
		}
		end = s.hi
	}
	if end != int64(len(data)) {
		return nil, nil, fmt.Errorf("safetensors: the tensors end at data byte %d, the file has %d", end, len(data))
	}
	return tensors, meta, nil
}

// get returns tensor name of ts, which must have the given dtype and
// shape (−1 in shape: any length there).
func get(ts map[string]tensor, name, dtype string, shape ...int) (tensor, error) {
	t, ok := ts[name]
	if !ok {
		return tensor{}, fmt.Errorf("no tensor %q", name)
	}
	if t.dtype != dtype || len(t.shape) != len(shape) {
		return tensor{}, fmt.Errorf("tensor %q is %s %v, want %s of %d dimensions", name, t.dtype, t.shape, dtype, len(shape))
	}
	for i, d := range shape {
		if d >= 0 && t.shape[i] != d {
			return tensor{}, fmt.Errorf("tensor %q has shape %v, want %v", name, t.shape, shape)
		}
	}
	return t, nil
}
