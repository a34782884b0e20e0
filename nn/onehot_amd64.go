//go:build !purego

package nn

//go:noescape
func addRowsAVX2(y, wt *float32, out, o8 int, idx *int32, k int)

// addRows adds the rows idx of wt, rows of len(y) values, to y, one after
// the other: the first multiple of 8 of the values in assembly where the
// CPU has it, the rest in Go, with the same result. The caller makes sure
// that each of idx is a row of wt.
func addRows(y, wt []float32, idx []int32) {
	out, o8 := len(y), 0
	if haveAVX2 && out >= 8 && len(idx) > 0 {
		o8 = out &^ 7
		addRowsAVX2(&y[0], &wt[0], out, o8, &idx[0], len(idx))
	}
	addRowsGo(y, wt, idx, o8)
}

//go:noescape
func addToRowsAVX2(dst, x *float32, out, o8 int, idx *int32, k int)

// addToRows adds x to the rows idx of dst, rows of len(x) values, one
// after the other: the first multiple of 8 of the values in assembly
// where the CPU has it, the rest in Go, with the same result. The caller
// makes sure that each of idx is a row of dst.
func addToRows(dst, x []float32, idx []int32) {
	out, o8 := len(x), 0
	if haveAVX2 && out >= 8 && len(idx) > 0 {
		o8 = out &^ 7
		addToRowsAVX2(&dst[0], &x[0], out, o8, &idx[0], len(idx))
	}
	addToRowsGo(dst, x, idx, o8)
}
