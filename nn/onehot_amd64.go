//go:build !purego

package nn

// oneHotBlocks returns how many values of each row of out values the
// assembly of addRows and addToRows handles: the first multiple of 8, or
// 0 if the CPU has no AVX2 or there are no rows.
func oneHotBlocks(out int, idx []int32) int {
	if !haveAVX2 || len(idx) == 0 {
		return 0
	}
	return out &^ 7
}

//go:noescape
func addRowsAVX2(y, wt *float32, out, o8 int, idx *int32, k int)

// addRows adds the rows idx of wt, rows of len(y) values, to y, one after
// the other: the first multiple of 8 of the values in assembly where the
// CPU has it, the rest in Go, with the same result. The caller makes sure
// that each of idx is a row of wt.
func addRows(y, wt []float32, idx []int32) {
	o8 := oneHotBlocks(len(y), idx)
	if o8 > 0 {
		addRowsAVX2(&y[0], &wt[0], len(y), o8, &idx[0], len(idx))
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
	o8 := oneHotBlocks(len(x), idx)
	if o8 > 0 {
		addToRowsAVX2(&dst[0], &x[0], len(x), o8, &idx[0], len(idx))
	}
	addToRowsGo(dst, x, idx, o8)
}
