package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
)

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

// decodeSafetensors reads what encodeSafetensors writes (F32 tensors only).
func decodeSafetensors(b []byte) (map[string]tensor, map[string]string, error) {
	if len(b) < 8 {
		return nil, nil, errors.New("safetensors: file too short")
	}
	n := binary.LittleEndian.Uint64(b)
	if n > uint64(len(b)-8) {
		return nil, nil, fmt.Errorf("safetensors: header of %d bytes in a file of %d", n, len(b))
	}
	data := b[8+n:]
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b[8 : 8+n]))
	if err := dec.Decode(&raw); err != nil {
		return nil, nil, fmt.Errorf("safetensors: header: %w", err)
	}
	var meta map[string]string
	tensors := map[string]tensor{}
	for name, msg := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(msg, &meta); err != nil {
				return nil, nil, fmt.Errorf("safetensors: metadata: %w", err)
			}
			continue
		}
		var h tensorHeader
		if err := json.Unmarshal(msg, &h); err != nil {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		if h.DType != "F32" {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: dtype %s, want F32", name, h.DType)
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
			t.data[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[lo+4*int64(i):]))
		}
		tensors[name] = t
	}
	return tensors, meta, nil
}
