package nn

// OneHotRows is a batch of rows of 0s and 1s kept as the places of their
// 1s: the input of ForwardOneHotReLU. Reset starts a batch, and Append
// adds its rows; Reset reuses the memory of the previous batch.
type OneHotRows struct {
	cols  int
	start []int // row s's ones are idx[start[s]:start[s+1]]
	idx   []int32
}

// Reset empties r and makes its rows rows of cols values.
func (r *OneHotRows) Reset(cols int) {
	r.cols = cols
	r.start = append(r.start[:0], 0)
	r.idx = r.idx[:0]
}

// Append adds a row whose values are 1 at the places ones and 0
// elsewhere (a place listed twice counts twice). It panics if a place is
// not one of r's columns.
func (r *OneHotRows) Append(ones []int32) {
	for _, j := range ones {
		if j < 0 || int(j) >= r.cols {
			panic("nn: OneHotRows.Append: a place out of the row")
		}
	}
	r.idx = append(r.idx, ones...)
	r.start = append(r.start, len(r.idx))
}

// SetDense makes r the n rows of cols values of x and reports whether
// they are rows of r's kind: each value 0 or 1, at most max of them 1s.
// If not, it stops where it finds out and leaves r empty.
func (r *OneHotRows) SetDense(x []float32, n, cols, max int) bool {
	r.Reset(cols)
	for s := range n {
		for j, v := range x[s*cols : (s+1)*cols] {
			if v == 0 {
				continue
			}
			if v != 1 || len(r.idx) == max {
				r.Reset(cols)
				return false
			}
			r.idx = append(r.idx, int32(j))
		}
		r.start = append(r.start, len(r.idx))
	}
	return true
}

// Len returns the number of rows of r.
func (r *OneHotRows) Len() int { return max(len(r.start)-1, 0) }

// TransposeWeight returns Wᵀ, l's weight as In rows of Out values, the
// weights of each input to all the outputs: ForwardOneHotReLU's argument.
// It writes into dst if dst has room for In·Out values. It is a copy: it
// does not follow later changes of l's weight.
func (l *Dense) TransposeWeight(dst []float32) []float32 {
	if cap(dst) < l.In*l.Out {
		dst = make([]float32, l.In*l.Out)
	}
	dst = dst[:l.In*l.Out]
	for o := range l.Out {
		for j, w := range l.Weight.Data[o*l.In : (o+1)*l.In] {
			dst[j*l.Out+o] = w
		}
	}
	return dst
}

// ForwardOneHotReLU is ForwardReLU for the rows of r, given wt, l's weight
// transposed (TransposeWeight): it adds the Out weights of each 1 of a row
// to the bias, where ForwardReLU multiplies all In inputs by Out weights.
// One-hot encodings are mostly 0s, and it is the faster by far
// (BenchmarkForwardOneHot): the Rubik's cube's 648 inputs hold 54 ones.
// Its values differ from ForwardReLU's by rounding only (but a weight
// that is infinite or NaN times a 0 counts as 0 here). It panics if r's
// rows are not of In values or wt is not of In·Out.
func (l *Dense) ForwardOneHotReLU(r *OneHotRows, wt, y []float32) {
	if r.cols != l.In || len(wt) != l.In*l.Out {
		panic("nn: ForwardOneHotReLU: rows or weights of the wrong size")
	}
	n := r.Len()
	y = y[:n*l.Out]
	for s := range n {
		row := y[s*l.Out : (s+1)*l.Out]
		copy(row, l.Bias.Data)
		addRows(row, wt, r.idx[r.start[s]:r.start[s+1]])
	}
	addReLU(y, 0)
}

// BackwardOneHot is Backward for the rows of r, without the gradient of
// the inputs: it accumulates the gradients of the weight and the bias
// from dy (r.Len() × Out), through dwt, scratch of In·Out values. For
// each 1 of a row, it adds the row's Out values of dy to a row of dwt,
// the weight's gradient transposed, then adds dwt to it once: a sum of
// Out values a 1, where Backward multiplies every input by Out values.
// It panics if r's rows are not of In values.
func (l *Dense) BackwardOneHot(r *OneHotRows, dy, dwt []float32) {
	if r.cols != l.In {
		panic("nn: BackwardOneHot: rows of the wrong size")
	}
	dwt = dwt[:l.In*l.Out]
	clear(dwt)
	for s := range r.Len() {
		row := dy[s*l.Out : (s+1)*l.Out]
		addToRows(dwt, row, r.idx[r.start[s]:r.start[s+1]])
		for o, v := range row {
			l.Bias.Grad[o] += v
		}
	}
	for o := range l.Out {
		g := l.Weight.Grad[o*l.In : (o+1)*l.In]
		for j := range g {
			g[j] += dwt[j*l.Out+o]
		}
	}
}

// addToRowsGo adds x to the rows idx of dst, rows of len(x) values, one
// after the other, from the value o0 of each row on.
func addToRowsGo(dst, x []float32, idx []int32, o0 int) {
	out := len(x)
	if o0 == out {
		return
	}
	for _, j := range idx {
		row := dst[int(j)*out+o0 : (int(j)+1)*out]
		for o, v := range x[o0:] {
			row[o] += v
		}
	}
}

// addRowsGo adds the rows idx of wt, rows of len(y) values, to y, one
// after the other, from the value o0 of each row on.
func addRowsGo(y, wt []float32, idx []int32, o0 int) {
	out := len(y)
	if o0 == out {
		return
	}
	for _, j := range idx {
		w := wt[int(j)*out+o0 : (int(j)+1)*out]
		for o, v := range y[o0:] {
			y[o0+o] = v + w[o]
		}
	}
}
