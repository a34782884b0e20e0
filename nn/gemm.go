package nn

import "fmt"

// Gemm computes c = alpha·op(a)·op(b) + beta·c for row-major matrices,
// where op(a) is m×k (a transposed if tA), op(b) is k×n (b transposed if tB)
// and c is m×n; lda, ldb and ldc are the row strides, each at least the
// number of columns of its matrix as stored. It panics if a stride is too
// small or a slice too short for its matrix. It runs on the calling
// goroutine only, allocates nothing (once the backend is chosen), and runs
// on the backend in use: see Use.
func Gemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	ar, ac := m, k
	if tA {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB {
		br, bc = n, k
	}
	checkMatrix("a", a, ar, ac, lda)
	checkMatrix("b", b, br, bc, ldb)
	checkMatrix("c", c, m, n, ldc)
	gemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// checkMatrix panics unless s holds a rows×cols matrix of stride ld.
func checkMatrix(name string, s []float32, rows, cols, ld int) {
	if rows < 0 || cols < 0 || ld < max(1, cols) || rows > 0 && cols > 0 && len(s) < (rows-1)*ld+cols {
		panic(fmt.Sprintf("nn: Gemm: %s: %d values with stride %d cannot hold a %d×%d matrix", name, len(s), ld, rows, cols))
	}
}
