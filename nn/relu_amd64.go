//go:build !purego

package nn

import "golang.org/x/sys/cpu"

// haveAVX2 selects the assembly versions of the bias and ReLU pass.
var haveAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasAVX

//go:noescape
func addReLUAVX2(x []float32, b float32)

//go:noescape
func addReLUsAVX2(x, b []float32)

// addReLU replaces each value v of x by max(v+b, 0).
func addReLU(x []float32, b float32) {
	if haveAVX2 {
		addReLUAVX2(x, b)
		return
	}
	addReLUGo(x, b)
}

// addReLUs replaces each value x[i] by max(x[i]+b[i], 0); b must be at
// least as long as x.
func addReLUs(x, b []float32) {
	b = b[:len(x)]
	if haveAVX2 {
		addReLUsAVX2(x, b)
		return
	}
	addReLUsGo(x, b)
}
