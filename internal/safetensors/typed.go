package safetensors

import (
	"encoding/binary"
	"math"
	"slices"
)

// F32 returns the F32 tensor of shape and values v.
func F32(shape []int, v []float32) Tensor {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return Tensor{"F32", shape, b}
}

// F64 returns the F64 tensor of shape and values v.
func F64(shape []int, v []float64) Tensor {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return Tensor{"F64", shape, b}
}

// U64 returns the U64 tensor of shape and values v.
func U64(shape []int, v []uint64) Tensor {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	return Tensor{"U64", shape, b}
}

// I64 returns the I64 tensor of shape and values v.
func I64(shape []int, v []int64) Tensor {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return Tensor{"I64", shape, b}
}

// I32 returns the I32 tensor of shape and values v.
func I32(shape []int, v []int32) Tensor {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return Tensor{"I32", shape, b}
}

// U16 returns the U16 tensor of shape and values v.
func U16(shape []int, v []uint16) Tensor {
	b := make([]byte, 0, 2*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint16(b, x)
	}
	return Tensor{"U16", shape, b}
}

// U8 returns the U8 tensor of shape and a copy of v.
func U8(shape []int, v []uint8) Tensor { return Tensor{"U8", shape, slices.Clone(v)} }

// The methods below read t.Data as values of 2, 4 or 8 bytes, whatever
// t.DType says: the caller checks the dtype.

// F32s returns the values of t as float32s.
func (t Tensor) F32s() []float32 {
	v := make([]float32, len(t.Data)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:]))
	}
	return v
}

// F64s returns the values of t as float64s.
func (t Tensor) F64s() []float64 {
	v := make([]float64, len(t.Data)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(t.Data[8*i:]))
	}
	return v
}

// U64s returns the values of t as uint64s.
func (t Tensor) U64s() []uint64 {
	v := make([]uint64, len(t.Data)/8)
	for i := range v {
		v[i] = binary.LittleEndian.Uint64(t.Data[8*i:])
	}
	return v
}

// I64s returns the values of t as int64s.
func (t Tensor) I64s() []int64 {
	v := make([]int64, len(t.Data)/8)
	for i := range v {
		v[i] = int64(binary.LittleEndian.Uint64(t.Data[8*i:]))
	}
	return v
}

// U16s returns the values of t as uint16s.
func (t Tensor) U16s() []uint16 {
	v := make([]uint16, len(t.Data)/2)
	for i := range v {
		v[i] = binary.LittleEndian.Uint16(t.Data[2*i:])
	}
	return v
}

// I32s returns the values of t as int32s.
func (t Tensor) I32s() []int32 {
	v := make([]int32, len(t.Data)/4)
	for i := range v {
		v[i] = int32(binary.LittleEndian.Uint32(t.Data[4*i:]))
	}
	return v
}
