//go:build !amd64 || purego

package nn

// gather copies, for s < n and r < rows, the run values at
// src[s·sampleStride + r·rowStride] to dst[(s·rows+r)·run]. It panics if
// dst or src is too short.
func gather(dst, src []float32, n, rows, run, rowStride, sampleStride int) {
	if checkGather(dst, src, n, rows, run, rowStride, sampleStride) {
		gatherGo(dst, src, n, rows, run, rowStride, sampleStride)
	}
}

// scatterAdd adds, for s < n and r < rows, the run values at
// src[(s·rows+r)·run] to those at dst[s·sampleStride + r·rowStride]. It
// panics if dst or src is too short.
func scatterAdd(dst, src []float32, n, rows, run, rowStride, sampleStride int) {
	if checkGather(src, dst, n, rows, run, rowStride, sampleStride) {
		scatterAddGo(dst, src, n, rows, run, rowStride, sampleStride)
	}
}
