package model

import (
	"fmt"
	"math"

	"github.com/phs-go/phs/internal/safetensors"
)

// A tensor is a named float32 array with its shape, as stored in a
// safetensors file.
type tensor struct {
	shape []int
	data  []float32
}

// encodeSafetensors returns the safetensors encoding of tensors, all F32,
// and meta (see package internal/safetensors).
func encodeSafetensors(tensors map[string]tensor, meta map[string]string) ([]byte, error) {
	return safetensors.Encode(stored(tensors, safetensors.F32), meta)
}

// stored returns tensors as a safetensors file holds them, each made by
// enc (safetensors.F32 or F16).
func stored(tensors map[string]tensor, enc func([]int, []float32) safetensors.Tensor) map[string]safetensors.Tensor {
	ts := make(map[string]safetensors.Tensor, len(tensors))
	for n, t := range tensors {
		ts[n] = enc(t.shape, t.data)
	}
	return ts
}

// decodeSafetensors reads a safetensors file of F32 or F16 tensors (see
// safetensors.Decode for the checks of the format). Every value must be
// a finite number: a NaN or an infinity is an error that names its
// tensor.
func decodeSafetensors(b []byte) (map[string]tensor, map[string]string, error) {
	ts, _, meta, err := decodeDigest(b)
	return ts, meta, err
}

// decodeDigest is decodeSafetensors that also returns the digest of the
// file's tensors (safetensors.Digest).
func decodeDigest(b []byte) (map[string]tensor, string, map[string]string, error) {
	ts, meta, err := safetensors.Decode(b)
	if err != nil {
		return nil, "", nil, err
	}
	tensors := make(map[string]tensor, len(ts))
	for name, st := range ts {
		t := tensor{shape: st.Shape}
		switch st.DType {
		case "F32":
			t.data = st.F32s()
		case "F16":
			t.data = st.F16s()
		default:
			return nil, "", nil, fmt.Errorf("safetensors: tensor %q: dtype %q, want F32 or F16", name, st.DType)
		}
		for i, v := range t.data {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, "", nil, fmt.Errorf("safetensors: tensor %q: value %d of %d is %v", name, i, len(t.data), v)
			}
		}
		tensors[name] = t
	}
	return tensors, safetensors.Digest(ts), meta, nil
}
