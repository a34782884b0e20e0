package cm

import (
	"fmt"

	"github.com/phs-go/phs/internal/safetensors"
)

// The files of a context model are safetensors files (package
// internal/safetensors) of F64, U64, I64, I32 and U8 tensors, with a
// "__metadata__" map of strings. See docs/MODEL_FORMAT.md.

// get returns tensor name of ts, which must have the given dtype and
// shape (−1 in shape: any length there).
func get(ts map[string]safetensors.Tensor, name, dtype string, shape ...int) (safetensors.Tensor, error) {
	t, ok := ts[name]
	if !ok {
		return safetensors.Tensor{}, fmt.Errorf("no tensor %q", name)
	}
	if t.DType != dtype || len(t.Shape) != len(shape) {
		return safetensors.Tensor{}, fmt.Errorf("tensor %q is %s %v, want %s of %d dimensions", name, t.DType, t.Shape, dtype, len(shape))
	}
	for i, d := range shape {
		if d >= 0 && t.Shape[i] != d {
			return safetensors.Tensor{}, fmt.Errorf("tensor %q has shape %v, want %v", name, t.Shape, shape)
		}
	}
	return t, nil
}
