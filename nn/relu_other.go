//go:build !amd64 || purego

package nn

const haveAVX2 = false

// addReLU replaces each value v of x by max(v+b, 0).
func addReLU(x []float32, b float32) { addReLUGo(x, b) }

// ReLUBackward zeroes the gradient dy where the ReLU's output y is 0.
func ReLUBackward(y, dy []float32) { reluBackwardGo(y, dy[:len(y)]) }
