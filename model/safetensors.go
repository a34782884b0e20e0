package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"sort"
)

// maxHeader is the length in bytes of the longest safetensors header read:
// 100 MB, the limit of the reference implementation, some ten thousand
// times the header of a model of this package.
const maxHeader = 100_000_000

// A tensor is a named float32 array with its shape, as stored in a
// safetensors file.
type tensor struct {
	shape []int
	data  []float32
}

type tensorHeader struct {
	DType       string   `json:"dtype"`
	Shape       []int    `json:"shape"`
	DataOffsets [2]int64 `json:"data_offsets"`
}

// encodeSafetensors returns the safetensors encoding of tensors: an 8-byte
// little-endian header length, a JSON header (padded with spaces to a
// multiple of 8 bytes) and the little-endian data.
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
		size := int64(4 * len(t.data))
		header[n] = tensorHeader{DType: "F32", Shape: t.shape, DataOffsets: [2]int64{off, off + size}}
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
		for _, v := range tensors[n].data {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
		}
	}
	return out, nil
}

// readSafetensors returns the contents of the safetensors file name of
// fsys, whose tensors hold at most maxData bytes of data. It checks the
// length of the header (at most maxHeader bytes) and of the file before it
// reads more than the first 8 bytes, so that a bad file cannot make it
// allocate more than 8+maxHeader+maxData bytes.
func readSafetensors(fsys fs.FS, name string, maxData int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	var head [8]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("safetensors: file of %d bytes, shorter than the 8-byte header length", size)
		}
		return nil, err
	}
	n := binary.LittleEndian.Uint64(head[:])
	if err := checkHeaderLength(n, size); err != nil {
		return nil, err
	}
	if data := size - 8 - int64(n); data > maxData {
		return nil, fmt.Errorf("safetensors: %d bytes of data, more than the %d that the configuration's tensors take", data, maxData)
	}
	b := make([]byte, size)
	copy(b, head[:])
	if _, err := io.ReadFull(f, b[8:]); err != nil {
		return nil, fmt.Errorf("safetensors: reading %d bytes: %w", size, err)
	}
	return b, nil
}

// checkHeaderLength checks the length n of the header of a safetensors
// file of size bytes.
func checkHeaderLength(n uint64, size int64) error {
	if n > maxHeader {
		return fmt.Errorf("safetensors: header of %d bytes, more than the %d allowed", n, maxHeader)
	}
	if size < 8 || n > uint64(size-8) {
		return fmt.Errorf("safetensors: header of %d bytes in a file of %d", n, size)
	}
	return nil
}

// decodeSafetensors reads a safetensors file of F32 tensors: the 8-byte
// little-endian length of the header (at most maxHeader), the JSON header,
// then the data, which the tensors' data_offsets must cover exactly,
// without gaps or overlaps. Every value must be a finite number: a NaN or
// an infinity is an error that names its tensor.
func decodeSafetensors(b []byte) (map[string]tensor, map[string]string, error) {
	if len(b) < 8 {
		return nil, nil, fmt.Errorf("safetensors: file of %d bytes, shorter than the 8-byte header length", len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	if err := checkHeaderLength(n, int64(len(b))); err != nil {
		return nil, nil, err
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
		if h.DType != "F32" {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: dtype %q, want F32", name, h.DType)
		}
		count := int64(1)
		for _, d := range h.Shape {
			if d < 0 || (d > 0 && count > math.MaxInt32/int64(d)) {
				return nil, nil, fmt.Errorf("safetensors: tensor %q: bad shape %v", name, h.Shape)
			}
			count *= int64(d)
		}
		lo, hi := h.DataOffsets[0], h.DataOffsets[1]
		if lo < 0 || hi < lo || hi > int64(len(data)) || hi-lo != 4*count {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: offsets %v do not fit shape %v and %d data bytes", name, h.DataOffsets, h.Shape, len(data))
		}
		t := tensor{shape: h.Shape, data: make([]float32, count)}
		for i := range t.data {
			v := math.Float32frombits(binary.LittleEndian.Uint32(data[lo+4*int64(i):]))
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, nil, fmt.Errorf("safetensors: tensor %q: value %d of %d is %v", name, i, len(t.data), v)
			}
			t.data[i] = v
		}
		tensors[name] = t
		spans = append(spans, span{name, lo, hi})
	}
	// The data must be the tensors', end to end.
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
