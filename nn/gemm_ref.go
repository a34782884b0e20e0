package nn

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// gonum's Sgemm splits a product into blocks of 64×64 of c and runs them on
// new goroutines when there are at least 4 blocks. Gemm must run on the
// calling goroutine only, and allocate nothing, so gonumGemm hands it
// pieces of c of at most gonumRows×gonumCols, which it computes serially.
const (
	gonumRows = 64
	gonumCols = 3 * 64
)

// gonumGemm is Gemm on gonum's pure-Go implementation of blas32, serial.
func gonumGemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	ta, tb := blas.NoTrans, blas.NoTrans
	if tA {
		ta = blas.Trans
	}
	if tB {
		tb = blas.Trans
	}
	for i := 0; i < m; i += gonumRows {
		mb := min(gonumRows, m-i)
		// The rows i to i+mb of op(a).
		var as blas32.General
		if tA {
			as = blas32.General{Rows: k, Cols: mb, Stride: lda, Data: a[i:]}
		} else {
			as = blas32.General{Rows: mb, Cols: k, Stride: lda, Data: a[i*lda:]}
		}
		for j := 0; j < n; j += gonumCols {
			nb := min(gonumCols, n-j)
			// The columns j to j+nb of op(b).
			var bs blas32.General
			if tB {
				bs = blas32.General{Rows: nb, Cols: k, Stride: ldb, Data: b[j*ldb:]}
			} else {
				bs = blas32.General{Rows: k, Cols: nb, Stride: ldb, Data: b[j:]}
			}
			blas32.Gemm(ta, tb, alpha, as, bs, beta,
				blas32.General{Rows: mb, Cols: nb, Stride: ldc, Data: c[i*ldc+j:]})
		}
	}
}
