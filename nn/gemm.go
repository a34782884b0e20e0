package nn

// Gemm computes c = alpha·op(a)·op(b) + beta·c for row-major matrices,
// where op(a) is m×k (a transposed if tA), op(b) is k×n (b transposed if tB)
// and c is m×n; lda, ldb and ldc are the row strides. It runs on the
// backend selected at build time: see Backend.
func Gemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	gemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
