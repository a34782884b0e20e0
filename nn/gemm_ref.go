package nn

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// gonumGemm is Gemm on gonum's pure-Go implementation of blas32.
func gonumGemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	ta, tb := blas.NoTrans, blas.NoTrans
	ar, ac, br, bc := m, k, k, n
	if tA {
		ta, ar, ac = blas.Trans, k, m
	}
	if tB {
		tb, br, bc = blas.Trans, n, k
	}
	blas32.Gemm(ta, tb, alpha,
		blas32.General{Rows: ar, Cols: ac, Stride: lda, Data: a},
		blas32.General{Rows: br, Cols: bc, Stride: ldb, Data: b},
		beta,
		blas32.General{Rows: m, Cols: n, Stride: ldc, Data: c})
}
