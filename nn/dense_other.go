//go:build !amd64 || purego

package nn

// transposeBlocks leaves all of transposeAddReLU's work to it.
func transposeBlocks(t, b, skip []float32, n int, y []float32) (n8, o8 int) { return 0, 0 }

// biasBlocks leaves all of addBiasReLU's work to it.
func biasBlocks(t, b, skip, y []float32, rows int) (o8 int) { return 0 }

// addRows adds the rows idx of wt, rows of len(y) values, to y, one
// after the other.
func addRows(y, wt []float32, idx []int32) { addRowsGo(y, wt, idx, 0) }

// addToRows adds x to the rows idx of dst, rows of len(x) values, one
// after the other.
func addToRows(dst, x []float32, idx []int32) { addToRowsGo(dst, x, idx, 0) }
