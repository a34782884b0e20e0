package safetensors

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestF16RoundTrip checks every binary16: FromF16 then ToF16 gives its
// bits back, a NaN a NaN.
func TestF16RoundTrip(t *testing.T) {
	for h := range 1 << 16 {
		x := FromF16(uint16(h))
		got := ToF16(x)
		if isNaN := h&0x7c00 == 0x7c00 && h&0x3ff != 0; isNaN {
			if !math.IsNaN(float64(x)) || got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
				t.Fatalf("NaN %#04x: %v, back %#04x", h, x, got)
			}
			continue
		}
		if got != uint16(h) {
			t.Fatalf("%#04x: %v, back %#04x", h, x, got)
		}
	}
}

// nearestF16 is ToF16 by search: the positive binary16s, in increasing
// order of their bits, are in increasing order of value, Inf (0x7c00)
// next after 65504 as 65536 would be.
func nearestF16(x float32) uint16 {
	a := math.Abs(float64(x))
	val := func(h uint16) float64 {
		if h == 0x7c00 {
			return 65536
		}
		return float64(FromF16(h))
	}
	lo, hi := uint16(0), uint16(0x7c00)
	if a >= val(hi) {
		lo = hi
	}
	for hi-lo > 1 { // val(lo) ≤ a < val(hi)
		mid := lo + (hi-lo)/2
		if val(mid) <= a {
			lo = mid
		} else {
			hi = mid
		}
	}
	h := lo
	if d0, d1 := a-val(lo), val(hi)-a; lo != hi && (d1 < d0 || d1 == d0 && lo&1 == 1) {
		h = hi
	}
	if math.Signbit(float64(x)) {
		h |= 0x8000
	}
	return h
}

// TestToF16 checks ToF16 against nearestF16 on the edges of the range and
// of the subnormals, on ties, and on random values of every magnitude.
func TestToF16(t *testing.T) {
	xs := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 65504, 65519.99, 65520, 65536, 1e10, -1e10,
		0x1p-14, 0x1p-24, 0x1p-25, 0x1.000002p-25, 0x1.8p-24, 0x1p-26, 0x1p-149, 0x1.ffcp-15, 0x1.ffep-15,
		1 + 0x1p-11, 1 + 0x3p-11, 1 + 0x1p-11 + 0x1p-20, float32(math.Inf(1)), float32(math.Inf(-1))}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		// 2^−31 to 2^18: half's zeros, subnormals, normals and infinities.
		exp := uint32(127 - 31 + r.IntN(50))
		xs = append(xs, math.Float32frombits(r.Uint32()&0x807fffff|exp<<23))
	}
	for _, x := range xs {
		if math.IsNaN(float64(x)) {
			continue
		}
		if got, want := ToF16(x), nearestF16(x); got != want {
			t.Fatalf("ToF16(%g = %#08x) = %#04x (%g); want %#04x (%g)", x, math.Float32bits(x), got, FromF16(got), want, FromF16(want))
		}
	}
}
