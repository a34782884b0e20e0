//go:build !purego

package nn

//go:noescape
func transposeAddReLUAVX2(t, b, skip, y *float32, n, out, n8, o8 int)

// transposeBlocks does transposeAddReLU's work for s < n8 and o < o8, the
// multiples of 8 at most n and len(b), in AVX2 assembly, 8x8 values at a
// time, and returns n8 and o8; 0 and 0 if the CPU has no AVX2.
func transposeBlocks(t, b, skip []float32, n int, y []float32) (n8, o8 int) {
	out := len(b)
	n8, o8 = n&^7, out&^7
	if !haveAVX2 || n8 == 0 || o8 == 0 {
		return 0, 0
	}
	_, _ = t[out*n-1], y[n*out-1]
	transposeAddReLUAVX2(&t[0], &b[0], first(skip, n*out), &y[0], n, out, n8, o8)
	return n8, o8
}

//go:noescape
func addBiasReLUAVX2(t, b, skip, y *float32, rows, out, o8 int)

// biasBlocks does addBiasReLU's work for o < o8, the multiple of 8 at
// most len(b), in every row, in AVX2 assembly, and returns o8; 0 if the
// CPU has no AVX2.
func biasBlocks(t, b, skip, y []float32, rows int) (o8 int) {
	out := len(b)
	o8 = out &^ 7
	if !haveAVX2 || o8 == 0 || rows == 0 {
		return 0
	}
	_, _ = t[rows*out-1], y[rows*out-1]
	addBiasReLUAVX2(&t[0], &b[0], first(skip, rows*out), &y[0], rows, out, o8)
	return o8
}

// first returns the address of skip's first value, nil if skip is nil. It
// panics if skip, not nil, holds fewer than size values.
func first(skip []float32, size int) *float32 {
	if skip == nil {
		return nil
	}
	_ = skip[size-1]
	return &skip[0]
}
