// Package nn provides the small float32 neural-network layers that guide
// the searches: 2-D convolutions, dense layers, ReLU and log-softmax, with
// backpropagation, Glorot initialisation and the Adam optimiser.
//
// Tensors are plain []float32 slices. A batch of images enters a network in
// NCHW order (sample, channel, row, column); between convolutions,
// activations are kept in CNHW order (channel, sample, row, column), which
// lets a convolution of a whole batch be one matrix product: the
// convolution is im2col followed by GEMM. Dense layers take and give
// row-major matrices, one row per sample.
//
// The matrix products go through Gemm, on one of two backends (Backend
// says which):
//
//   - OpenBLAS, single-threaded, when its shared library loads: the
//     package loads it at run time, without cgo (libopenblas.so.0 or
//     libopenblas.so on Linux, libopenblas.dylib on macOS; amd64 and arm64);
//   - otherwise gonum's pure-Go BLAS.
//
// Importing the package does nothing: the backend is chosen by Use or
// UseEnv, which a program calls when it starts, or else by the first
// product. The environment variable PHS_BLAS, which UseEnv reads, forces
// one: "go" for gonum, "openblas" for OpenBLAS; UseEnv returns an error if
// OpenBLAS is forced and does not load, or if PHS_BLAS has another value.
// PHS_OPENBLAS_LIB names the library to load instead of the usual names
// (a file name or a path). OpenBLAS reads OPENBLAS_CORETYPE when it is
// loaded; when that is not set and the CPU has AVX-512, the package sets it
// to SkylakeX while loading, so that OpenBLAS uses its AVX-512 kernels even
// on CPUs newer than itself, which it may otherwise treat as AVX2-only.
// The two backends' results differ by rounding only. The build tag
// noopenblas leaves the loader out: pure Go only, and, with CGO_ENABLED=0,
// a statically linked program (the loader makes it dynamically linked).
//
// Layers hold their parameters; the scratch memory of a pass belongs to
// the caller, so that several goroutines may run forward passes of one
// network at once, each with its own buffers.
package nn

import (
	"math"
	"math/rand/v2"
)

// A Param is a trainable tensor and the gradient accumulated for it.
type Param struct {
	Name string
	// Shape is the tensor's shape; Data and Grad hold its values in
	// row-major order (the last index varies fastest), as many as the
	// product of Shape.
	Shape []int
	Data  []float32
	Grad  []float32
	// Decay reports whether L2 regularisation applies (weights, not biases).
	Decay bool
}

// NewParam returns a zero parameter of the given shape.
func NewParam(name string, decay bool, shape ...int) *Param {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return &Param{Name: name, Shape: shape, Data: make([]float32, n), Grad: make([]float32, n), Decay: decay}
}

// GlorotUniform fills p with values drawn uniformly from ±sqrt(6/(fanIn+fanOut)),
// the Keras default initialisation.
func (p *Param) GlorotUniform(rng *rand.Rand, fanIn, fanOut int) {
	limit := math.Sqrt(6 / float64(fanIn+fanOut))
	for i := range p.Data {
		p.Data[i] = float32((2*rng.Float64() - 1) * limit)
	}
}

// ZeroGrad clears the gradient.
func (p *Param) ZeroGrad() { clear(p.Grad) }

// A Conv2D is a convolution with valid padding and stride 1 of InC×InH×InW
// images by OutC kernels of K×K.
type Conv2D struct {
	InC, InH, InW, OutC, K int
	// Weight has shape [OutC, InC, K, K], row-major, the layout of
	// PyTorch's nn.Conv2d weight: y[o, i, j] = Bias[o] + Σ_{c,ky,kx}
	// Weight[o, c, ky, kx]·x[c, i+ky, j+kx] (a cross-correlation, as in
	// PyTorch and Keras). Read flat, it is the OutC × (InC·K·K) matrix of
	// the convolution's matrix product. Bias has shape [OutC].
	Weight, Bias *Param
}

// NewConv2D returns a convolution initialised from rng as Keras does, or
// with zero weights if rng is nil.
func NewConv2D(name string, rng *rand.Rand, inC, inH, inW, outC, k int) *Conv2D {
	l := &Conv2D{InC: inC, InH: inH, InW: inW, OutC: outC, K: k,
		Weight: NewParam(name+".weight", true, outC, inC, k, k),
		Bias:   NewParam(name+".bias", false, outC)}
	if rng != nil {
		l.Weight.GlorotUniform(rng, inC*k*k, outC*k*k)
	}
	return l
}

// OutH and OutW are the output's height and width.
func (l *Conv2D) OutH() int { return l.InH - l.K + 1 }

// OutW is the output's width.
func (l *Conv2D) OutW() int { return l.InW - l.K + 1 }

// ColSize returns the length of the scratch buffers of Forward and
// Backward for n samples: the im2col matrix, and room for Backward's
// transposed gradient of the weights.
func (l *Conv2D) ColSize(n int) int { return l.InC * l.K * l.K * max(n*l.OutH()*l.OutW(), l.OutC) }

// Layout tells how a batch of images is stored.
type Layout bool

// The layouts.
const (
	NCHW Layout = false
	CNHW Layout = true
)

// strides returns the distances between samples and between channels of a
// batch of n inputs in layout.
func (l *Conv2D) strides(layout Layout, n int) (sN, sC int) {
	if layout == NCHW {
		return l.InC * l.InH * l.InW, l.InH * l.InW
	}
	return l.InH * l.InW, n * l.InH * l.InW
}

// Forward computes y = conv(x) + bias for n samples: x in the given layout,
// y (OutC × n·OutH·OutW) in CNHW; col is scratch of ColSize(n).
func (l *Conv2D) Forward(x []float32, layout Layout, n int, y, col []float32) {
	l.forward(x, layout, n, y, col, false)
}

// ForwardReLU is Forward followed by ReLU on y, with the bias and the ReLU
// applied in one pass over y.
func (l *Conv2D) ForwardReLU(x []float32, layout Layout, n int, y, col []float32) {
	l.forward(x, layout, n, y, col, true)
}

func (l *Conv2D) forward(x []float32, layout Layout, n int, y, col []float32, relu bool) {
	l.im2col(x, layout, n, col)
	p := n * l.OutH() * l.OutW()
	kk := l.InC * l.K * l.K
	Gemm(false, false, l.OutC, p, kk, 1, l.Weight.Data, kk, col, p, 0, y, p)
	for o, b := range l.Bias.Data {
		row := y[o*p : (o+1)*p]
		if relu {
			addReLU(row, b)
		} else {
			for i := range row {
				row[i] += b
			}
		}
	}
}

// im2col writes col[(c·K+ky)·K+kx][(s·OutH+oy)·OutW+ox] = x[s, c, oy+ky, ox+kx].
func (l *Conv2D) im2col(x []float32, layout Layout, n int, col []float32) {
	oh, ow := l.OutH(), l.OutW()
	p := n * oh * ow
	sN, sC := l.strides(layout, n)
	for c := range l.InC {
		for ky := range l.K {
			for kx := range l.K {
				gather(col[((c*l.K+ky)*l.K+kx)*p:], x[c*sC+ky*l.InW+kx:], n, oh, ow, l.InW, sN)
			}
		}
	}
}

// checkGather reports whether gather, or scatterAdd with its slices
// swapped, has anything to do, and panics if the contiguous runs or the
// strided ones are too short for it.
func checkGather(runs, strided []float32, n, rows, run, rowStride, sampleStride int) bool {
	if n <= 0 || rows <= 0 || run <= 0 {
		return false
	}
	if len(runs) < n*rows*run || len(strided) < (n-1)*sampleStride+(rows-1)*rowStride+run {
		panic("nn: gather: slice too short")
	}
	return true
}

// gatherGo is gather in Go.
func gatherGo(dst, src []float32, n, rows, run, rowStride, sampleStride int) {
	for s := range n {
		for r := range rows {
			i := s*sampleStride + r*rowStride
			copy(dst[(s*rows+r)*run:(s*rows+r+1)*run], src[i:i+run])
		}
	}
}

// scatterAddGo is scatterAdd in Go.
func scatterAddGo(dst, src []float32, n, rows, run, rowStride, sampleStride int) {
	for s := range n {
		for r := range rows {
			d := dst[s*sampleStride+r*rowStride:][:run]
			for i, v := range src[(s*rows+r)*run : (s*rows+r+1)*run] {
				d[i] += v
			}
		}
	}
}

// Backward accumulates the gradients of the parameters from dy (CNHW, as
// Forward's y) and x, and, if dx is not nil, writes the gradient of x to dx
// (in layout). col and dcol are scratch of ColSize(n); col must hold
// Forward's im2col of x, as Forward left it.
func (l *Conv2D) Backward(x []float32, layout Layout, n int, dy, dx, col, dcol []float32) {
	p := n * l.OutH() * l.OutW()
	for o := range l.OutC {
		var s float32
		for _, v := range dy[o*p : (o+1)*p] {
			s += v
		}
		l.Bias.Grad[o] += s
	}
	kk := l.InC * l.K * l.K
	// dW += dy · colᵀ. OpenBLAS computes the transpose, col · dyᵀ, faster
	// when kk > OutC (with its SkylakeX kernels, for 32 filters and a
	// batch of 32: 116 against 91 GFLOP/s for kk = 36, the Witness's first
	// convolution; 141 against 99 for kk = 128), slower when kk < OutC
	// (90 against 103 for kk = 16). The transpose goes to dcol, free until
	// dcol = Wᵀ · dy below; ColSize leaves room for it.
	if kk > l.OutC {
		t := dcol[:kk*l.OutC]
		Gemm(false, true, kk, l.OutC, p, 1, col, p, dy, p, 0, t, l.OutC)
		for o := range l.OutC {
			g := l.Weight.Grad[o*kk : (o+1)*kk]
			for j := range g {
				g[j] += t[j*l.OutC+o]
			}
		}
	} else {
		Gemm(false, true, l.OutC, kk, p, 1, dy, p, col, p, 1, l.Weight.Grad, kk)
	}
	if dx == nil {
		return
	}
	// dcol = Wᵀ · dy, then col2im.
	Gemm(true, false, kk, p, l.OutC, 1, l.Weight.Data, kk, dy, p, 0, dcol, p)
	clear(dx[:n*l.InC*l.InH*l.InW])
	sN, sC := l.strides(layout, n)
	for c := range l.InC {
		for ky := range l.K {
			for kx := range l.K {
				scatterAdd(dx[c*sC+ky*l.InW+kx:], dcol[((c*l.K+ky)*l.K+kx)*p:], n, l.OutH(), l.OutW(), l.InW, sN)
			}
		}
	}
}

// A Dense layer computes y = x·Wᵀ + b for rows x of In values.
type Dense struct {
	In, Out int
	// Weight has shape [Out, In], row-major, the layout of PyTorch's
	// nn.Linear weight; Bias has shape [Out].
	Weight, Bias *Param
}

// NewDense returns a dense layer initialised from rng as Keras does, or
// with zero weights if rng is nil.
func NewDense(name string, rng *rand.Rand, in, out int) *Dense {
	l := &Dense{In: in, Out: out,
		Weight: NewParam(name+".weight", true, out, in),
		Bias:   NewParam(name+".bias", false, out)}
	if rng != nil {
		l.Weight.GlorotUniform(rng, in, out)
	}
	return l
}

// Stack returns a dense layer whose weight and bias are those of layers,
// which must all take inputs of the same size, one after the other, and
// makes the layers' parameters views into the stack's: the stack computes
// the outputs of all the layers, side by side in each row, in one matrix
// product, and the gradients it accumulates are the layers'. The layers'
// values are kept. It panics if the layers' input sizes differ.
func Stack(name string, layers ...*Dense) *Dense {
	out := 0
	for _, l := range layers {
		if l.In != layers[0].In {
			panic("nn: Stack: layers of different input sizes")
		}
		out += l.Out
	}
	in := layers[0].In
	s := &Dense{In: in, Out: out,
		Weight: NewParam(name+".weight", true, out, in),
		Bias:   NewParam(name+".bias", false, out)}
	o := 0
	for _, l := range layers {
		rebind(l.Weight, s.Weight, o*in, (o+l.Out)*in)
		rebind(l.Bias, s.Bias, o, o+l.Out)
		o += l.Out
	}
	return s
}

// rebind copies the values of p to those of dst from i to j, and makes p's
// values and gradient views of dst's there.
func rebind(p, dst *Param, i, j int) {
	copy(dst.Data[i:j], p.Data)
	p.Data, p.Grad = dst.Data[i:j:j], dst.Grad[i:j:j]
}

// Forward computes y (n × Out) from x (n × In).
func (l *Dense) Forward(x []float32, n int, y []float32) { l.forward(x, l.In, n, y) }

// ForwardReLU is Forward followed by ReLU on y, through t, scratch of
// n·Out values: it computes the product as W·xᵀ into t, then adds the bias,
// applies the ReLU and transposes t into y in one pass. OpenBLAS runs the
// paper's wide layers faster this way: 2,048 inputs, 256 outputs and a
// batch of 32 at 142 GFLOP/s against 103 for x·Wᵀ with its SkylakeX
// kernels, 93 against 87 with Haswell's (BenchmarkSgemm's "hidden").
//
// From directBatch rows on, it computes x·Wᵀ into t instead, as fast there,
// and adds the bias and applies the ReLU row by row: no transposition.
func (l *Dense) ForwardReLU(x []float32, n int, y, t []float32) {
	t = t[:l.Out*n]
	if n >= directBatch {
		Gemm(false, true, n, l.Out, l.In, 1, x, l.In, l.Weight.Data, l.In, 0, t, l.Out)
		addBiasReLU(t, l.Bias.Data, nil, y[:n*l.Out])
		return
	}
	Gemm(false, true, l.Out, n, l.In, 1, l.Weight.Data, l.In, x, l.In, 0, t, n)
	transposeAddReLU(t, l.Bias.Data, nil, n, y[:n*l.Out])
}

// directBatch is the least batch for which the dense layers' ReLU passes
// compute x·Wᵀ rather than W·xᵀ: a layer of 256 inputs and 256 outputs
// takes as long either way from 512 rows on (5.5 ms for 4,096), where the
// transposing pass takes 0.29 ms and the row-wise one 0.09 (both in AVX2).
const directBatch = 256

// addBiasReLU sets y[s][o] = relu(t[s][o]+b[o]+skip[s][o]), without skip
// if it is nil, for t, y and skip of rows of len(b) values: the first
// multiple of 8 of each row in assembly where the CPU has it
// (biasBlocks), the rest here.
func addBiasReLU(t, b, skip, y []float32) {
	out := len(b)
	rows := len(t) / out
	o8 := biasBlocks(t, b, skip, y, rows)
	if o8 == out {
		return
	}
	for s := 0; s < rows*out; s += out {
		row, dst := t[s+o8:s+out], y[s+o8:s+out]
		bo := b[o8:]
		if skip == nil {
			for o, v := range row {
				dst[o] = relu(v + bo[o])
			}
			continue
		}
		sk := skip[s+o8 : s+out]
		for o, v := range row {
			dst[o] = relu(v + bo[o] + sk[o])
		}
	}
}

// ForwardResidualReLU computes y = ReLU(x·Wᵀ + b + skip) for n rows x of
// In values and skip of Out values, through t, scratch of n·Out values, as
// ForwardReLU does: the last layer of a residual block, whose skip
// connection adds the block's input. y may be skip. The gradients are
// those of Backward after ReLUBackward, plus the skip's: the gradient
// with respect to skip is that with respect to the ReLU's input.
func (l *Dense) ForwardResidualReLU(x, skip []float32, n int, y, t []float32) {
	t = t[:l.Out*n]
	if n >= directBatch {
		Gemm(false, true, n, l.Out, l.In, 1, x, l.In, l.Weight.Data, l.In, 0, t, l.Out)
		addBiasReLU(t, l.Bias.Data, skip[:n*l.Out], y[:n*l.Out])
		return
	}
	Gemm(false, true, l.Out, n, l.In, 1, l.Weight.Data, l.In, x, l.In, 0, t, n)
	transposeAddReLU(t, l.Bias.Data, skip[:n*l.Out], n, y[:n*l.Out])
}

// ForwardStrided is Forward for inputs whose rows are ldx ≥ In values
// apart, such as the output of one layer of a Stack.
func (l *Dense) ForwardStrided(x []float32, ldx, n int, y []float32) { l.forward(x, ldx, n, y) }

func (l *Dense) forward(x []float32, ldx, n int, y []float32) {
	Gemm(false, true, n, l.Out, l.In, 1, x, ldx, l.Weight.Data, l.In, 0, y, l.Out)
	for s := range n {
		row := y[s*l.Out : (s+1)*l.Out]
		for j, b := range l.Bias.Data {
			row[j] += b
		}
	}
}

// transposeAddReLU sets y[s][o] = relu(t[o][s]+b[o]+skip[s][o]), without
// skip if it is nil, for t of len(b) rows of n values and y and skip of n
// rows of len(b) values: the blocks of 8x8 values in assembly where the
// CPU has it (transposeBlocks), the rest here.
func transposeAddReLU(t, b, skip []float32, n int, y []float32) {
	out := len(b)
	n8, o8 := transposeBlocks(t, b, skip, n, y)
	transposeRect(t, b, skip, n, y, 0, n8, o8, out)
	transposeRect(t, b, skip, n, y, n8, n, 0, out)
}

// transposeRect does transposeAddReLU's work for s0 ≤ s < s1 and
// o0 ≤ o < o1, a row of y at a time.
func transposeRect(t, b, skip []float32, n int, y []float32, s0, s1, o0, o1 int) {
	out := len(b)
	for s := s0; s < s1; s++ {
		row := y[s*out+o0 : s*out+o1]
		if skip == nil {
			for k := range row {
				row[k] = relu(t[(o0+k)*n+s] + b[o0+k])
			}
			continue
		}
		sk := skip[s*out+o0 : s*out+o1]
		for k := range row {
			row[k] = relu(t[(o0+k)*n+s] + b[o0+k] + sk[k])
		}
	}
}

// Backward accumulates the parameters' gradients from dy (n × Out) and x,
// and writes the gradient of x to dx unless dx is nil.
func (l *Dense) Backward(x []float32, n int, dy, dx []float32) { l.BackwardStrided(x, l.In, n, dy, dx) }

// BackwardStrided is Backward for inputs x, and their gradients dx, whose
// rows are ldx ≥ In values apart; it writes only the first In values of
// each row of dx.
func (l *Dense) BackwardStrided(x []float32, ldx, n int, dy, dx []float32) {
	Gemm(true, false, l.Out, l.In, n, 1, dy, l.Out, x, ldx, 1, l.Weight.Grad, l.In)
	for s := range n {
		for o, v := range dy[s*l.Out : (s+1)*l.Out] {
			l.Bias.Grad[o] += v
		}
	}
	if dx != nil {
		Gemm(false, false, n, l.In, l.Out, 1, dy, l.Out, l.Weight.Data, l.In, 0, dx, ldx)
	}
}

// ReLU sets the negative values of x to 0.
func ReLU(x []float32) {
	for i, v := range x {
		x[i] = relu(v)
	}
}

// relu returns max(v, 0) without a branch: it clears every bit when the
// sign bit is set. (About half the values are negative, which defeats
// branch prediction.)
func relu(v float32) float32 {
	b := math.Float32bits(v)
	return math.Float32frombits(b &^ uint32(int32(b)>>31))
}

// addReLUGo is addReLU in Go.
func addReLUGo(x []float32, b float32) {
	for i, v := range x {
		x[i] = relu(v + b)
	}
}

// reluBackwardGo is ReLUBackward in Go.
func reluBackwardGo(y, dy []float32) {
	for i, v := range y {
		// Branch-free: keep dy where y > 0 (y is never negative).
		keep := uint32(0)
		if v > 0 {
			keep = ^uint32(0)
		}
		dy[i] = math.Float32frombits(math.Float32bits(dy[i]) & keep)
	}
}

// LogSoftmax replaces each row of k values of x by its log-softmax.
func LogSoftmax(x []float32, k int) {
	for r := 0; r+k <= len(x); r += k {
		row := x[r : r+k]
		m := row[0]
		for _, v := range row[1:] {
			m = max(m, v)
		}
		var s float64
		for _, v := range row {
			s += math.Exp(float64(v - m))
		}
		lse := m + float32(math.Log(s))
		for i := range row {
			row[i] -= lse
		}
	}
}

// LogSoftmaxBackward turns dy, the gradient with respect to the
// log-softmax y of rows of k values, into the gradient with respect to its
// input, in place: dx = dy − softmax·Σdy.
func LogSoftmaxBackward(y, dy []float32, k int) {
	for r := 0; r+k <= len(y); r += k {
		var s float32
		for _, v := range dy[r : r+k] {
			s += v
		}
		for i := r; i < r+k; i++ {
			dy[i] -= float32(math.Exp(float64(y[i]))) * s
		}
	}
}
