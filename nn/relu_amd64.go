//go:build !purego

package nn

import "golang.org/x/sys/cpu"

// haveAVX2 selects the assembly versions of the bias and ReLU pass.
var haveAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasAVX

//go:noescape
func addReLUAVX2(x []float32, b float32)

// addReLU replaces each value v of x by max(v+b, 0).
func addReLU(x []float32, b float32) {
	if haveAVX2 {
		addReLUAVX2(x, b)
		return
	}
	addReLUGo(x, b)
}

//go:noescape
func reluBackwardAVX2(y, dy []float32)

// ReLUBackward zeroes the gradient dy where the ReLU's output y is 0.
func ReLUBackward(y, dy []float32) {
	dy = dy[:len(y)]
	if haveAVX2 {
		n := len(y) &^ 7
		reluBackwardAVX2(y[:n], dy[:n])
		y, dy = y[n:], dy[n:]
	}
	reluBackwardGo(y, dy)
}
