//go:build !amd64 || purego

package nn

// transposeBlocks leaves all of transposeAddReLU's work to it.
func transposeBlocks(t, b, skip []float32, n int, y []float32) (n8, o8 int) { return 0, 0 }

// biasBlocks leaves all of addBiasReLU's work to it.
func biasBlocks(t, b, skip, y []float32, rows int) (o8 int) { return 0 }
