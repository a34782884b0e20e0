//go:build !amd64 || purego

package nn

const haveAVX2 = false

// addReLU replaces each value v of x by max(v+b, 0).
func addReLU(x []float32, b float32) { addReLUGo(x, b) }

// addReLUs replaces each value x[i] by max(x[i]+b[i], 0); b must be at
// least as long as x.
func addReLUs(x, b []float32) { addReLUsGo(x, b[:len(x)]) }
