//go:build !openblas

package nn

// Backend names the BLAS behind Gemm.
const Backend = "gonum"

func gemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	gonumGemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
