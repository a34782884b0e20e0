//go:build !purego

package nn

//go:noescape
func gatherAVX2(dst, src *float32, n, rows, run, rowStride, sampleStride, srcLen int)

// gather copies, for s < n and r < rows, the run values at
// src[s·sampleStride + r·rowStride] to dst[(s·rows+r)·run], in AVX2
// assembly where the CPU has it. It panics if dst or src is too short.
func gather(dst, src []float32, n, rows, run, rowStride, sampleStride int) {
	if !checkGather(dst, src, n, rows, run, rowStride, sampleStride) {
		return
	}
	if haveAVX2 {
		gatherAVX2(&dst[0], &src[0], n, rows, run, rowStride, sampleStride, len(src))
		return
	}
	gatherGo(dst, src, n, rows, run, rowStride, sampleStride)
}

//go:noescape
func scatterAddAVX2(dst, src *float32, n, rows, run, rowStride, sampleStride int)

// scatterAdd adds, for s < n and r < rows, the run values at
// src[(s·rows+r)·run] to those at dst[s·sampleStride + r·rowStride], in
// AVX2 assembly where the CPU has it. It panics if dst or src is too short.
func scatterAdd(dst, src []float32, n, rows, run, rowStride, sampleStride int) {
	if !checkGather(src, dst, n, rows, run, rowStride, sampleStride) {
		return
	}
	if haveAVX2 {
		scatterAddAVX2(&dst[0], &src[0], n, rows, run, rowStride, sampleStride)
		return
	}
	scatterAddGo(dst, src, n, rows, run, rowStride, sampleStride)
}
