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
	ts := make(map[string]safetensors.Tensor, len(tensors))
	for n, t := range tensors {
		ts[n] = safetensors.F32(t.shape, t.data)
	}
	return safetensors.Encode(ts, meta)
}

// digest returns the SHA-256 of tensors as a safetensors file holds them
// (safetensors.Digest).
func digest(tensors map[string]tensor) string {
	ts := make(map[string]safetensors.Tensor, len(tensors))
	for n, t := range tensors {
		ts[n] = safetensors.F32(t.shape, t.data)
	}
	return safetensors.Digest(ts)
}

// decodeSafetensors reads a safetensors file of F32 tensors (see
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
		if st.DType != "F32" {
			return nil, "", nil, fmt.Errorf("safetensors: tensor %q: dtype %q, want F32", name, st.DType)
		}
		t := tensor{shape: st.Shape, data: st.F32s()}
		for i, v := range t.data {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, "", nil, fmt.Errorf("safetensors: tensor %q: value %d of %d is %v", name, i, len(t.data), v)
			}
		}
		tensors[name] = t
	}
	return tensors, safetensors.Digest(ts), meta, nil
}
