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
