package safetensors

import (
	"encoding/binary"
	"math"
)

// F16 returns the F16 tensor of shape and values v, each rounded to the
// nearest IEEE 754 binary16 (half precision), ties to even: 11
// significant bits, subnormals below 2^−14, ±Inf at and beyond 65520 (the
// caller checks the range; FromF16 tells what a value became).
func F16(shape []int, v []float32) Tensor {
	b := make([]byte, 0, 2*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint16(b, ToF16(x))
	}
	return Tensor{"F16", shape, b}
}

// F16s returns the values of t, F16, as float32s, exactly.
func (t Tensor) F16s() []float32 {
	v := make([]float32, len(t.Data)/2)
	for i := range v {
		v[i] = FromF16(binary.LittleEndian.Uint16(t.Data[2*i:]))
	}
	return v
}

// ToF16 returns the IEEE 754 binary16 nearest to x, ties to even: ±Inf
// for |x| ≥ 65520, a quiet NaN for a NaN.
func ToF16(x float32) uint16 {
	b := math.Float32bits(x)
	sign := uint16(b>>16) & 0x8000
	exp, mant := int(b>>23&0xff), b&0x7fffff
	switch e := exp - 127 + 15; {
	case exp == 0xff && mant != 0:
		return sign | 0x7e00
	case e >= 0x1f:
		return sign | 0x7c00
	case e > 0: // normal: drop 13 bits; a carry out of the mantissa
		// raises the exponent, to Inf past the largest.
		h := sign | uint16(e)<<10 | uint16(mant>>13)
		if rem := mant & 0x1fff; rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
			h++
		}
		return h
	case exp == 0 || e < -10: // below half the least subnormal, 2^−25
		return sign
	default: // subnormal: the value in units of 2^−24, rounded; 1024
		// of them is the least normal, whose bits it has.
		full, shift := mant|0x800000, uint(14-e)
		m := full >> shift
		rem, half := full&(1<<shift-1), uint32(1)<<(shift-1)
		if rem > half || rem == half && m&1 == 1 {
			m++
		}
		return sign | uint16(m)
	}
}

// FromF16 returns the value of the IEEE 754 binary16 h, exactly.
func FromF16(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp, mant := uint32(h>>10&0x1f), uint32(h&0x3ff)
	switch exp {
	case 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case 0:
		v := float32(mant) / (1 << 24)
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}
