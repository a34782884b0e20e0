package nn

import "slices"

// OneHotRows is a batch of rows of 0s and 1s kept as the places of their
// 1s: the input of ForwardOneHotReLU. Reset starts a batch, and Append
// adds its rows; Reset reuses the memory of the previous batch.
type OneHotRows struct {
	cols  int
	start []int // row s's ones are idx[start[s]:start[s+1]]
	idx   []int32
	// Scratch of Conv2D.ForwardOneHotReLU: the pairs of an output
	// position and a place of an image (im2colOneHot), and zeros, the
	// bias of its transposition.
	pairs []int32
	zero  []float32
	// The windows that each input place meets, for a convolution of
	// geometry winKey (Conv2D.windows).
	winKey   [4]int
	winOff   []int32
	winPairs []int32
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
	return transposeWeight(l.Weight.Data, l.Out, l.In, dst)
}

// transposeWeight returns the transpose of w, out rows of in values, in
// dst if it has room for them.
func transposeWeight(w []float32, out, in int, dst []float32) []float32 {
	if cap(dst) < in*out {
		dst = make([]float32, in*out)
	}
	dst = dst[:in*out]
	transpose(w[:out*in], out, in, dst)
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
	y = y[:r.Len()*l.Out]
	oneHotAffine(r, wt, l.Bias.Data, y)
	addReLU(y, 0)
}

// oneHotAffine sets each row of y, rows of len(b) values, to b plus the
// rows of wt, rows of len(b) values too, that the row of r lists.
func oneHotAffine(r *OneHotRows, wt, b, y []float32) {
	out := len(b)
	for s := range r.Len() {
		row := y[s*out : (s+1)*out]
		copy(row, b)
		addRows(row, wt, r.idx[r.start[s]:r.start[s+1]])
	}
}

// TransposeWeight returns Wᵀ, l's weight as InC·K·K rows of OutC values,
// the weights of each input of a window to all the outputs:
// ForwardOneHotReLU's argument. It writes into dst if dst has room for
// them. It is a copy: it does not follow later changes of l's weight.
func (l *Conv2D) TransposeWeight(dst []float32) []float32 {
	return transposeWeight(l.Weight.Data, l.OutC, l.InC*l.K*l.K, dst)
}

// ForwardOneHotReLU is ForwardReLU for the images of r, rows of
// InC·InH·InW values in NCHW, given wt, l's weight transposed
// (TransposeWeight). The im2col of images of 0s and 1s is of 0s and 1s
// too, and goes to cols: a row per output position, listing the rows of
// wt that the 1s of its window meet. Each position's OutC outputs are
// then the bias plus those rows (as Dense.ForwardOneHotReLU), in t,
// n·OutH·OutW rows of OutC values, transposed to y (CNHW) through the
// ReLU. A one-hot image of C channels costs a sum of OutC values per 1
// and offset of the window, where ForwardReLU multiplies every input of
// every window by OutC weights: 3.7 times as fast for the 7x7
// sliding-tile puzzle's 49 ones of 2,401 inputs (BenchmarkConvOneHot).
// Its values differ from ForwardReLU's by rounding only (but a weight
// that is infinite or NaN times a 0 counts as 0 here). It panics if r's
// rows are not of InC·InH·InW values or wt is not of InC·K·K·OutC.
func (l *Conv2D) ForwardOneHotReLU(r, cols *OneHotRows, wt, y, t []float32) {
	if r.cols != l.InC*l.InH*l.InW || len(wt) != l.InC*l.K*l.K*l.OutC {
		panic("nn: Conv2D.ForwardOneHotReLU: images or weights of the wrong size")
	}
	l.im2colOneHot(r, cols)
	m, out := cols.Len(), l.OutC
	t, y = t[:m*out], y[:m*out]
	oneHotAffine(cols, wt, l.Bias.Data, t)
	cols.zero = slices.Grow(cols.zero[:0], m)[:m]
	transposeAddReLU(t, cols.zero, nil, out, y)
}

// im2colOneHot makes cols the im2col of the images of r, as im2col
// writes it but kept as the places of its 1s: the row of output position
// (s·OutH+oy)·OutW+ox lists (c·K+ky)·K+kx for each 1 of image s at
// channel c, row oy+ky and column ox+kx. For each image, it lists the
// pairs of a position and a place, counting the places of each
// position, then writes them position by position.
func (l *Conv2D) im2colOneHot(r, cols *OneHotRows) {
	oh, ow := l.OutH(), l.OutW()
	off, win := l.windows(cols)
	cols.Reset(l.InC * l.K * l.K)
	for s := range r.Len() {
		// next[q] counts the places of position q, then is where its next
		// one goes, and at last the end of its row: cols.start's entry.
		n0 := len(cols.start)
		cols.start = slices.Grow(cols.start, oh*ow)[:n0+oh*ow]
		next := cols.start[n0:]
		clear(next)
		pairs := cols.pairs[:0]
		for _, j := range r.idx[r.start[s]:r.start[s+1]] {
			p := win[off[j]:off[j+1]]
			for i := 0; i < len(p); i += 2 {
				next[p[i]]++
			}
			pairs = append(pairs, p...)
		}
		cols.pairs = pairs
		at := len(cols.idx)
		for q, c := range next {
			next[q] = at
			at += c
		}
		cols.idx = slices.Grow(cols.idx, at-len(cols.idx))[:at]
		for i := 0; i+1 < len(pairs); i += 2 {
			q := &next[pairs[i]]
			cols.idx[*q] = pairs[i+1]
			*q++
		}
	}
}

// windows returns, for each place j = (c·InH+y)·InW+x of an image of l's
// input, the pairs of an output position (oy·OutW+ox) whose window meets
// it and its place in that window, ((c·K+ky)·K+kx with oy+ky = y and
// ox+kx = x), in win[off[j]:off[j+1]], ky then kx increasing: the rows of
// im2colOneHot. It builds them in r's scratch the first time r meets l's
// geometry, and keeps them.
func (l *Conv2D) windows(r *OneHotRows) (off, win []int32) {
	key := [4]int{l.InC, l.InH, l.InW, l.K}
	if r.winKey == key && r.winOff != nil {
		return r.winOff, r.winPairs
	}
	k, oh, ow := l.K, l.OutH(), l.OutW()
	off, win = r.winOff[:0], r.winPairs[:0]
	for c := range l.InC {
		for y := range l.InH {
			for x := range l.InW {
				off = append(off, int32(len(win)))
				for ky := max(0, y-oh+1); ky <= min(k-1, y); ky++ {
					q, w := (y-ky)*ow+x, (c*k+ky)*k
					for kx := max(0, x-ow+1); kx <= min(k-1, x); kx++ {
						win = append(win, int32(q-kx), int32(w+kx))
					}
				}
			}
		}
	}
	off = append(off, int32(len(win)))
	r.winKey, r.winOff, r.winPairs = key, off, win
	return off, win
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
	oneHotGrads(r, dy, dwt, l.Weight.Grad, l.Bias.Grad)
}

// oneHotGrads accumulates in gw, out rows of r.cols values, and gb, out
// values, the gradients of the weight and the bias of an affine map
// whose inputs are the rows of r and the gradients of whose outputs are
// dy, rows of out values, through dwt, scratch of r.cols·out values.
func oneHotGrads(r *OneHotRows, dy, dwt, gw, gb []float32) {
	in, out := r.cols, len(gb)
	dwt = dwt[:in*out]
	clear(dwt)
	for s := range r.Len() {
		row := dy[s*out : (s+1)*out]
		addToRows(dwt, row, r.idx[r.start[s]:r.start[s+1]])
		for o, v := range row {
			gb[o] += v
		}
	}
	for o := range out {
		g := gw[o*in : (o+1)*in]
		for j := range g {
			g[j] += dwt[j*out+o]
		}
	}
}

// BackwardOneHot is Backward after ForwardOneHotReLU, without the
// gradient of the images: it accumulates the gradients of the weight and
// the bias from dy (CNHW, as ForwardOneHotReLU's y) and cols, the
// one-hot im2col that ForwardOneHotReLU left, through dyT and dwt,
// scratch of n·OutH·OutW·OutC and InC·K·K·OutC values. It transposes dy
// to dyT, a row of OutC values per output position, then adds each row
// to the rows of dwt, the weight's gradient transposed, that the
// position's row of cols lists, and dwt to the weight's gradient once
// (as Dense.BackwardOneHot). It panics if cols's rows are not of
// InC·K·K values.
func (l *Conv2D) BackwardOneHot(cols *OneHotRows, dy, dyT, dwt []float32) {
	if cols.cols != l.InC*l.K*l.K {
		panic("nn: Conv2D.BackwardOneHot: im2col rows of the wrong size")
	}
	m, out := cols.Len(), l.OutC
	dyT = dyT[:m*out]
	transpose(dy[:m*out], out, m, dyT)
	oneHotGrads(cols, dyT, dwt, l.Weight.Grad, l.Bias.Grad)
}

// transpose sets t[i·rows+o] = x[o·cols+i] for x of rows rows of cols
// values, reading 8 values of a row of x at a time.
func transpose(x []float32, rows, cols int, t []float32) {
	for i0 := 0; i0 < cols; i0 += 8 {
		i1 := min(i0+8, cols)
		for o := range rows {
			for i, v := range x[o*cols+i0 : o*cols+i1] {
				t[(i0+i)*rows+o] = v
			}
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
