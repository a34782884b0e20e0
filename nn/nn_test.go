package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/phs-go/phs/internal/race"
)

func randSlice(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// checkGrad compares the analytic gradient g of loss with respect to the
// values v against central finite differences.
func checkGrad(t *testing.T, name string, v, g []float32, loss func() float64) {
	t.Helper()
	if err := gradError(v, g, loss); err != nil {
		t.Errorf("%s%v", name, err)
	}
}

// gradError returns an error describing the first value of v whose
// analytic gradient g differs from the central finite difference of loss,
// or whose gradients are all zero (a check that cannot fail).
func gradError(v, g []float32, loss func() float64) error {
	const eps = 1e-2
	for i := range v {
		old := v[i]
		v[i] = old + eps
		lp := loss()
		v[i] = old - eps
		lm := loss()
		v[i] = old
		num := (lp - lm) / (2 * eps)
		err := math.Abs(num-float64(g[i])) / math.Max(1, math.Abs(num)+math.Abs(float64(g[i])))
		if err > 5e-3 {
			return fmt.Errorf("[%d]: analytic %g, numeric %g", i, g[i], num)
		}
	}
	if len(v) > 0 && dot(g, g) == 0 {
		return fmt.Errorf(": zero gradient: the check cannot fail")
	}
	return nil
}

// TestGradErrorFails makes sure that the gradient check rejects wrong
// gradients: slightly scaled, shifted or zero.
func TestGradErrorFails(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	l := NewDense("d", rng, 5, 3)
	n := 2
	x, r := randSlice(rng, n*5), randSlice(rng, n*3)
	y := make([]float32, n*3)
	loss := func() float64 {
		l.Forward(x, n, y)
		return dot(y, r)
	}
	loss()
	l.Backward(x, n, r, nil)
	good := append([]float32(nil), l.Weight.Grad...)
	if err := gradError(l.Weight.Data, good, loss); err != nil {
		t.Fatalf("correct gradient rejected: %v", err)
	}
	for name, wrong := range map[string]func(i int, g float32) float32{
		"scaled by 1.05": func(_ int, g float32) float32 { return 1.05 * g },
		"one shifted by 0.05": func(i int, g float32) float32 {
			if i == 7 {
				return g + 0.05
			}
			return g
		},
		"zero": func(int, float32) float32 { return 0 },
	} {
		bad := make([]float32, len(good))
		for i, g := range good {
			bad[i] = wrong(i, g)
		}
		if err := gradError(l.Weight.Data, bad, loss); err == nil {
			t.Errorf("gradient %s accepted", name)
		}
	}
}

func TestConv2DGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, layout := range []Layout{NCHW, CNHW} {
		for _, c := range []struct{ outC, k, n int }{
			{2, 1, 2}, {2, 2, 2}, {2, 3, 2},
			{5, 1, 2}, // no more patch values (3) than filters: dW computed directly
		} {
			l := NewConv2D("c", rng, 3, 5, 4, c.outC, c.k)
			for i := range l.Bias.Data {
				l.Bias.Data[i] = float32(rng.NormFloat64())
			}
			n, k := c.n, c.k
			x := randSlice(rng, n*3*5*4)
			ysize := l.OutC * n * l.OutH() * l.OutW()
			r := randSlice(rng, ysize)
			y := make([]float32, ysize)
			col := make([]float32, l.ColSize(n))
			dcol := make([]float32, l.ColSize(n))
			loss := func() float64 {
				l.Forward(x, layout, n, y, col)
				return dot(y, r)
			}
			loss()
			dx := make([]float32, len(x))
			l.Backward(x, layout, n, r, dx, col, dcol)
			name := fmt.Sprintf("conv filters=%d k=%d n=%d layout=%v", c.outC, k, n, layout)
			checkGrad(t, name+" x", x, dx, loss)
			checkGrad(t, name+" weight", l.Weight.Data, l.Weight.Grad, loss)
			checkGrad(t, name+" bias", l.Bias.Data, l.Bias.Grad, loss)
		}
	}
}

// TestConv2DDirect compares a convolution with its definition, for inputs
// in both layouts.
func TestConv2DDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	l := NewConv2D("c", rng, 2, 4, 5, 3, 2)
	l.Bias.Data = randSlice(rng, 3)
	for _, tc := range []struct {
		layout Layout
		n      int
	}{{NCHW, 3}, {CNHW, 3}} {
		layout, n := tc.layout, tc.n
		x := randSlice(rng, n*2*4*5)
		sN, sC := 40, 20 // NCHW
		if layout == CNHW {
			sN, sC = 20, n*20
		}
		y := make([]float32, 3*n*l.OutH()*l.OutW())
		l.Forward(x, layout, n, y, make([]float32, l.ColSize(n)))
		for o := range 3 {
			for s := range n {
				for oy := range l.OutH() {
					for ox := range l.OutW() {
						want := float64(l.Bias.Data[o])
						for c := range 2 {
							for ky := range 2 {
								for kx := range 2 {
									want += float64(l.Weight.Data[o*8+c*4+ky*2+kx]) * float64(x[s*sN+c*sC+(oy+ky)*5+ox+kx])
								}
							}
						}
						got := y[((o*n+s)*l.OutH()+oy)*l.OutW()+ox]
						if math.Abs(float64(got)-want) > 1e-4 {
							t.Fatalf("CNHW=%v n=%d: y[%d,%d,%d,%d] = %g, want %g", layout, n, o, s, oy, ox, got, want)
						}
					}
				}
			}
		}
	}
}

// TestParamShapes checks that the layers' parameters carry their real
// shapes, PyTorch's: [out, in, kh, kw] for a convolution's weight (the
// order TestConv2DDirect indexes it in), [out, in] for a dense layer's,
// [out] for the biases.
func TestParamShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	c := NewConv2D("c", rng, 2, 4, 5, 3, 2)
	d := NewDense("d", rng, 7, 4)
	for _, tc := range []struct {
		p     *Param
		shape []int
	}{
		{c.Weight, []int{3, 2, 2, 2}}, {c.Bias, []int{3}},
		{d.Weight, []int{4, 7}}, {d.Bias, []int{4}},
	} {
		n := 1
		for _, v := range tc.p.Shape {
			n *= v
		}
		if !slices.Equal(tc.p.Shape, tc.shape) || n != len(tc.p.Data) || n != len(tc.p.Grad) {
			t.Errorf("%s: shape %v with %d values, want %v", tc.p.Name, tc.p.Shape, len(tc.p.Data), tc.shape)
		}
	}
}

func TestDenseGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	l := NewDense("d", rng, 7, 4)
	l.Bias.Data = randSlice(rng, 4)
	n := 3
	x := randSlice(rng, n*7)
	r := randSlice(rng, n*4)
	y := make([]float32, n*4)
	loss := func() float64 {
		l.Forward(x, n, y)
		return dot(y, r)
	}
	loss()
	dx := make([]float32, len(x))
	l.Backward(x, n, r, dx)
	checkGrad(t, "dense x", x, dx, loss)
	checkGrad(t, "dense weight", l.Weight.Data, l.Weight.Grad, loss)
	checkGrad(t, "dense bias", l.Bias.Data, l.Bias.Grad, loss)
}

// TestStack checks that a stack of dense layers computes their outputs
// side by side, that the layers keep their values and share the stack's
// gradients, and that strided passes of a layer over the stack's output
// have the gradients of the composition.
func TestStack(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	a, b := NewDense("a", rng, 6, 3), NewDense("b", rng, 6, 2)
	a.Bias.Data, b.Bias.Data = randSlice(rng, 3), randSlice(rng, 2)
	n := 4
	x := randSlice(rng, n*6)
	ya, yb := make([]float32, n*3), make([]float32, n*2)
	a.Forward(x, n, ya)
	b.Forward(x, n, yb)
	aw := slices.Clone(a.Weight.Data)
	s := Stack("s", a, b)
	if !slices.Equal(a.Weight.Data, aw) || s.Out != 5 || s.In != 6 {
		t.Fatalf("Stack changed the layers' weights or has shape %dx%d", s.Out, s.In)
	}
	y := make([]float32, n*5)
	s.Forward(x, n, y)
	// Equal up to rounding: a backend may sum the products in another order
	// for another shape.
	close := func(a, b []float32) bool {
		return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Abs(float64(x-y)) <= 1e-5*(1+math.Abs(float64(y))) })
	}
	for i := range n {
		if !close(y[i*5:i*5+3], ya[i*3:i*3+3]) || !close(y[i*5+3:i*5+5], yb[i*2:i*2+2]) {
			t.Fatalf("row %d: stack %v, layers %v %v", i, y[i*5:i*5+5], ya[i*3:i*3+3], yb[i*2:i*2+2])
		}
	}

	// loss = r·c(relu(s(x))[:, 3:5]), c a layer over b's outputs in the stack's rows.
	c := NewDense("c", rng, 2, 3)
	r := randSlice(rng, n*3)
	z := make([]float32, n*3)
	loss := func() float64 {
		s.ForwardReLU(x, n, y, make([]float32, n*5))
		c.ForwardStrided(y[3:], 5, n, z)
		return dot(z, r)
	}
	loss()
	dy := make([]float32, n*5)
	c.BackwardStrided(y[3:], 5, n, r, dy[3:])
	ReLUBackward(y, dy)
	dx := make([]float32, len(x))
	s.Backward(x, n, dy, dx)
	checkGrad(t, "stack x", x, dx, loss)
	checkGrad(t, "c weight", c.Weight.Data, c.Weight.Grad, loss)
	checkGrad(t, "b weight (in the stack)", b.Weight.Data, b.Weight.Grad, loss)
	checkGrad(t, "b bias (in the stack)", b.Bias.Data, b.Bias.Grad, loss)
	if dot(a.Weight.Grad, a.Weight.Grad) != 0 {
		t.Error("a's weight has a gradient, though the loss does not read a's outputs")
	}
}

func TestActivationGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	x := randSlice(rng, 12)
	r := randSlice(rng, 12)
	y := make([]float32, 12)
	relu := func() float64 {
		copy(y, x)
		ReLU(y)
		return dot(y, r)
	}
	relu()
	dx := append([]float32(nil), r...)
	ReLUBackward(y, dx)
	checkGrad(t, "relu", x, dx, relu)

	lsm := func() float64 {
		copy(y, x)
		LogSoftmax(y, 4)
		return dot(y, r)
	}
	lsm()
	dx = append([]float32(nil), r...)
	LogSoftmaxBackward(y, dx, 4)
	checkGrad(t, "log-softmax", x, dx, lsm)
	for row := 0; row < 12; row += 4 {
		var s float64
		for _, v := range y[row : row+4] {
			s += math.Exp(float64(v))
		}
		if math.Abs(s-1) > 1e-5 {
			t.Errorf("softmax row sums to %g", s)
		}
	}
}

func TestGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, tc := range []struct {
		tA, tB  bool
		m, n, k int
	}{{false, false, 3, 4, 5}, {true, false, 6, 2, 3}, {false, true, 5, 7, 2}, {true, true, 4, 4, 4}, {false, false, 33, 70, 129},
		// Larger than gonumGemm's pieces in both dimensions.
		{false, false, 130, 400, 20}, {true, false, 65, 193, 17}, {false, true, 129, 385, 9}, {true, true, 70, 200, 11}} {
		a := randSlice(rng, tc.m*tc.k)
		b := randSlice(rng, tc.k*tc.n)
		c := randSlice(rng, tc.m*tc.n)
		want := make([]float64, len(c))
		for i := range tc.m {
			for j := range tc.n {
				s := 0.0
				for p := range tc.k {
					av := a[i*tc.k+p]
					if tc.tA {
						av = a[p*tc.m+i]
					}
					bv := b[p*tc.n+j]
					if tc.tB {
						bv = b[j*tc.k+p]
					}
					s += float64(av) * float64(bv)
				}
				want[i*tc.n+j] = 2*s + 0.5*float64(c[i*tc.n+j])
			}
		}
		lda, ldb := tc.k, tc.n
		if tc.tA {
			lda = tc.m
		}
		if tc.tB {
			ldb = tc.k
		}
		ref := append([]float32(nil), c...)
		Gemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, 2, a, lda, b, ldb, 0.5, c, tc.n)
		gonumGemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, 2, a, lda, b, ldb, 0.5, ref, tc.n)
		for i := range c {
			if math.Abs(float64(c[i])-want[i]) > 1e-3*(1+math.Abs(want[i])) || math.Abs(float64(c[i]-ref[i])) > 1e-3*(1+math.Abs(want[i])) {
				t.Fatalf("%+v (%s): c[%d] = %g, gonum %g, want %g", tc, Backend(), i, c[i], ref[i], want[i])
			}
		}
	}
}

// TestAdam minimises a quadratic with L2 and checks where it ends.
func TestAdam(t *testing.T) {
	p := NewParam("w", true, 3)
	target := []float32{1, -2, 3}
	opt := NewAdam([]*Param{p}, 0.05, 0.1)
	for range 3000 {
		for i := range p.Data {
			p.Grad[i] = 2 * (p.Data[i] - target[i])
		}
		opt.Step()
	}
	// The minimum of (w−t)² + 0.1·w² is t/1.1.
	for i := range p.Data {
		if want := target[i] / 1.1; math.Abs(float64(p.Data[i]-want)) > 1e-2 {
			t.Errorf("w[%d] = %g, want %g", i, p.Data[i], want)
		}
		if p.Grad[i] != 0 {
			t.Error("Step left a gradient")
		}
	}
	if opt.T != 3000 || math.Abs(opt.L2Penalty()-0.1*dot(p.Data, p.Data)) > 1e-6 {
		t.Errorf("T %d, penalty %g", opt.T, opt.L2Penalty())
	}
}

// TestAdamUpdate checks the update that Adam.Step runs (AVX2 assembly
// where the CPU has it) against the pure Go one, for every length up to 40
// and unaligned starts, with and without decay, with zero and huge
// gradients: the same values up to rounding (the assembly never fuses a
// multiply-add; Go may, with GOAMD64=v3), and a cleared gradient.
func TestAdamUpdate(t *testing.T) {
	if !haveAVX2 {
		t.Log("no AVX2: the update is the pure Go one")
	}
	rng := rand.New(rand.NewPCG(14, 14))
	near := func(a, b []float32) bool {
		return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Abs(float64(x-y)) <= 1e-6*(math.Abs(float64(y))+1e-30) })
	}
	for n := range 41 {
		for start := range 3 {
			for _, decay := range []float32{0, 0.02} {
				w := randSlice(rng, start+n)[start:]
				g := randSlice(rng, start+n)[start:]
				m := randSlice(rng, start+n)[start:]
				v := randSlice(rng, start+n)[start:]
				for i := range v {
					v[i] *= v[i]
					switch rng.IntN(8) {
					case 0:
						g[i] = 0
					case 1:
						g[i] *= 1e15
					}
				}
				k := adamConsts{decay: decay, b1: 0.9, c1: 0.1, b2: 0.999, c2: 0.001, step: 1e-3, eps: 1e-7}
				gw, gg, gm, gv := slices.Clone(w), slices.Clone(g), slices.Clone(m), slices.Clone(v)
				adamUpdate(gw, gg, gm, gv, &k)
				ww, wg, wm, wv := slices.Clone(w), slices.Clone(g), slices.Clone(m), slices.Clone(v)
				adamGo(ww, wg, wm, wv, &k)
				if !near(gw, ww) || !near(gm, wm) || !near(gv, wv) {
					t.Fatalf("n=%d decay=%g: adamUpdate gives w %v m %v v %v, want w %v m %v v %v", n, decay, gw, gm, gv, ww, wm, wv)
				}
				if slices.ContainsFunc(gg, func(x float32) bool { return x != 0 }) {
					t.Fatalf("n=%d: gradient left: %v", n, gg)
				}
			}
		}
	}
}

// BenchmarkAdam measures an Adam step over the parameters of the Sokoban
// network (529,861 values), as Step runs it and in pure Go.
func BenchmarkAdam(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const size = 529861
	w, g, m, v := randSlice(rng, size), randSlice(rng, size), randSlice(rng, size), make([]float32, size)
	k := adamConsts{b1: 0.9, c1: 0.1, b2: 0.999, c2: 0.001, step: 1e-4, eps: 1e-7}
	for _, f := range []struct {
		name   string
		update func(w, g, m, v []float32, k *adamConsts)
	}{{"step", adamUpdate}, {"go", adamGo}} {
		b.Run(f.name, func(b *testing.B) {
			for b.Loop() {
				f.update(w, g, m, v, &k)
			}
		})
	}
}

// TestGemmChecks checks that Gemm refuses matrices that do not fit their
// slices, which OpenBLAS would read or write past. op(a) is 2×3, op(b)
// 3×4, c 2×4.
func TestGemmChecks(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		tA, tB               bool
		lenA, lda, lenB, ldb int
		lenC, ldc            int
		want                 string // "" for no panic
	}{
		{"fit", false, false, 6, 3, 12, 4, 8, 4, ""},
		{"fit, transposed, strided", true, true, 8, 3, 15, 4, 9, 5, ""},
		{"a too short", false, false, 5, 3, 12, 4, 8, 4, "nn: Gemm: a: 5 values with stride 3 cannot hold a 2×3 matrix"},
		{"a's stride too small", false, false, 6, 2, 12, 4, 8, 4, "nn: Gemm: a: 6 values with stride 2 cannot hold a 2×3 matrix"},
		{"b too short, transposed", false, true, 6, 3, 11, 3, 8, 4, "nn: Gemm: b: 11 values with stride 3 cannot hold a 4×3 matrix"},
		{"c too short", false, false, 6, 3, 12, 4, 8, 5, "nn: Gemm: c: 8 values with stride 5 cannot hold a 2×4 matrix"},
	} {
		got := func() (msg string) {
			defer func() {
				if r := recover(); r != nil {
					msg = fmt.Sprint(r)
				}
			}()
			a, b, c := make([]float32, tc.lenA), make([]float32, tc.lenB), make([]float32, tc.lenC)
			Gemm(tc.tA, tc.tB, 2, 4, 3, 1, a, tc.lda, b, tc.ldb, 0, c, tc.ldc)
			return ""
		}()
		if got != tc.want {
			t.Errorf("%s: panic %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestGemmAllocs checks that Gemm allocates nothing (gonum's Sgemm would
// start goroutines for products of this size).
func TestGemmAllocs(t *testing.T) {
	if race.Enabled && Backend() == "openblas" {
		t.Skip("the race detector makes the calls to OpenBLAS allocate: see package race")
	}
	rng := rand.New(rand.NewPCG(6, 6))
	m, n, k := 32, 2048, 128
	a, b, c := randSlice(rng, m*k), randSlice(rng, k*n), make([]float32, m*n)
	if allocs := testing.AllocsPerRun(5, func() { Gemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n) }); allocs != 0 {
		t.Errorf("%s: %g allocations per Gemm", Backend(), allocs)
	}
}

// BenchmarkSgemm measures Gemm on the products of the Sokoban network
// (4x10x10 input, 32 filters of 2x2, 128 hidden units per head) at batch
// 32, as the layers make them, and on a 128³ product for the BLAS's peak.
func BenchmarkSgemm(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, s := range []struct {
		name    string
		tA, tB  bool
		m, n, k int
	}{
		{"conv1", false, false, 32, 32 * 81, 4 * 4},
		{"conv2", false, false, 32, 32 * 64, 32 * 4},
		{"hidden", false, true, 256, 32, 32 * 64},
		{"conv2-dW", false, true, 32 * 4, 32, 32 * 64}, // transposed
		{"conv2-dcol", true, false, 32 * 4, 32 * 64, 32},
		{"hidden-dW", true, false, 256, 32 * 64, 32},
		{"hidden-dx", false, false, 32, 32 * 64, 256},
		{"square128", false, false, 128, 128, 128},
	} {
		m, n, k := s.m, s.n, s.k
		a, bb, c := randSlice(rng, m*k), randSlice(rng, k*n), make([]float32, m*n)
		lda, ldb := k, n
		if s.tA {
			lda = m
		}
		if s.tB {
			ldb = k
		}
		b.Run(fmt.Sprintf("%s/%s/%dx%dx%d", Backend(), s.name, m, n, k), func(b *testing.B) {
			for b.Loop() {
				Gemm(s.tA, s.tB, m, n, k, 1, a, lda, bb, ldb, 0, c, n)
			}
			b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkLayers measures the forward passes of the Sokoban network's
// layers at batch 32, bias and ReLU included, in GFLOP/s of the layer's
// own arithmetic (2 per multiply-add of its definition, whatever extra
// work the products do), to compare with BenchmarkSgemm's square128.
func BenchmarkLayers(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 32
	conv1 := NewConv2D("conv1", rng, 4, 10, 10, 32, 2)
	conv2 := NewConv2D("conv2", rng, 32, 9, 9, 32, 2)
	hidden := NewDense("hidden", rng, 32*64, 256)
	heads := NewDense("policy2", rng, 128, 4)
	x0, x1 := randSlice(rng, n*4*100), randSlice(rng, 32*n*81)
	x2, x3 := randSlice(rng, n*32*64), randSlice(rng, n*256)
	y := make([]float32, 32*n*81)
	col := make([]float32, max(conv1.ColSize(n), conv2.ColSize(n)))
	for _, l := range []struct {
		name string
		macs int // per sample
		run  func()
	}{
		{"conv1", 81 * 32 * 16, func() { conv1.ForwardReLU(x0, NCHW, n, y, col) }},
		{"conv2", 64 * 32 * 128, func() { conv2.ForwardReLU(x1, CNHW, n, y, col) }},
		{"hidden", 2048 * 256, func() { hidden.ForwardReLU(x2, n, y, col) }},
		{"policy2", 128 * 4, func() { heads.ForwardStrided(x3, 256, n, y) }},
	} {
		b.Run(fmt.Sprintf("%s/%s", Backend(), l.name), func(b *testing.B) {
			for b.Loop() {
				l.run()
			}
			b.ReportMetric(2*float64(l.macs*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// TestForwardReLU checks that the fused ForwardReLU of both layers equals
// Forward followed by ReLU, whatever the output buffer held before.
func TestForwardReLU(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	garbage := func(n int) []float32 {
		y := randSlice(rng, n)
		y[0] = float32(math.NaN())
		return y
	}
	close := func(x, y float32) bool { return math.Abs(float64(x-y)) <= 1e-6*(1+math.Abs(float64(y))) }
	d := NewDense("d", rng, 6, 5)
	d.Bias.Data = randSlice(rng, 5)
	// Below directBatch and from it on, where ForwardReLU and
	// ForwardResidualReLU compute the product the other way; the
	// residual's output is its skip, as in a residual block.
	for _, n := range []int{3, directBatch + 7} {
		x := randSlice(rng, n*6)
		want, got := garbage(n*5), garbage(n*5)
		d.Forward(x, n, want)
		skip := randSlice(rng, n*5)
		wantRes := slices.Clone(want)
		for i := range wantRes {
			wantRes[i] += skip[i]
		}
		ReLU(want)
		ReLU(wantRes)
		d.ForwardReLU(x, n, got, garbage(n*5))
		// Equal up to rounding: ForwardReLU computes the product transposed.
		if !slices.EqualFunc(got, want, close) {
			t.Errorf("dense, %d rows: ForwardReLU = %v, want %v", n, got, want)
		}
		d.ForwardResidualReLU(x, skip, n, skip, garbage(n*5))
		if !slices.EqualFunc(skip, wantRes, close) {
			t.Errorf("dense, %d rows: ForwardResidualReLU = %v, want %v", n, skip, wantRes)
		}
	}

	const n = 3
	c := NewConv2D("c", rng, 2, 4, 5, 3, 2)
	c.Bias.Data = randSlice(rng, 3)
	x := randSlice(rng, n*2*4*5)
	size := 3 * n * c.OutH() * c.OutW()
	col := make([]float32, c.ColSize(n))
	want, got := garbage(size), garbage(size)
	c.Forward(x, NCHW, n, want, col)
	ReLU(want)
	c.ForwardReLU(x, NCHW, n, got, col)
	if !slices.Equal(got, want) {
		t.Errorf("conv: ForwardReLU = %v, want %v", got, want)
	}
	if !slices.ContainsFunc(want, func(v float32) bool { return v == 0 }) || !slices.ContainsFunc(want, func(v float32) bool { return v > 0 }) {
		t.Error("the test needs negative and positive outputs")
	}
}

// BenchmarkIm2col measures the im2col of the paper's first convolution
// (kernel 2x2) on batches of 32: Sokoban's 4 channels of 10x10 (runs of 9
// values), the 5x5 and 6x6 sliding-tile puzzles' 25 of 5x5 and 36 of 6x6
// (runs of 4 and 5).
func BenchmarkIm2col(b *testing.B) {
	for _, c := range []struct {
		name   string
		ch, hw int
	}{{"sokoban", 4, 10}, {"stp5", 25, 5}, {"stp6", 36, 6}} {
		b.Run(c.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			l := NewConv2D("c", rng, c.ch, c.hw, c.hw, 32, 2)
			const n = 32
			x := randSlice(rng, n*c.ch*c.hw*c.hw)
			col := make([]float32, l.ColSize(n))
			for b.Loop() {
				l.im2col(x, NCHW, n, col)
			}
		})
	}
}

// TestAddReLU checks the bias and ReLU pass that the layers use, and the
// ReLU's backward pass (AVX2 assembly where the CPU has it), against the
// pure Go ones, for every length up to 40 and unaligned starts, with
// negative values, zeros of both signs and infinities; that a NaN stays a
// NaN, and that it stops the gradient.
func TestAddReLU(t *testing.T) {
	if !haveAVX2 {
		t.Log("no AVX2: the pass is the pure Go one")
	}
	rng := rand.New(rand.NewPCG(13, 13))
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), 1e-40, -1e-40}
	for n := range 41 {
		for start := range 3 {
			x := randSlice(rng, start+n)[start:]
			for i := range x {
				if rng.IntN(4) == 0 {
					x[i] = special[rng.IntN(len(special))]
				}
			}
			c := float32(rng.NormFloat64())
			got, want := slices.Clone(x), slices.Clone(x)
			addReLU(got, c)
			addReLUGo(want, c)
			if !equalFloats(got, want) {
				t.Fatalf("addReLU(%v, %g) = %v, want %v", x, c, got, want)
			}
			dy := randSlice(rng, n)
			got, want = slices.Clone(dy), slices.Clone(dy)
			ReLUBackward(x, got)
			reluBackwardGo(x, want)
			if !equalFloats(got, want) {
				t.Fatalf("ReLUBackward(%v, %v) = %v, want %v", x, dy, got, want)
			}
		}
	}
	nan := float32(math.NaN())
	x := []float32{1, nan, -1, nan, 2, 3, 4, 5, nan}
	dy := []float32{1, 1, 1, 1, 1, 1, 1, 1, 1}
	ReLUBackward(x, dy)
	if want := []float32{1, 0, 0, 0, 1, 1, 1, 1, 0}; !slices.Equal(dy, want) {
		t.Errorf("ReLUBackward with NaNs = %v, want %v", dy, want)
	}
	addReLU(x, 0)
	if !math.IsNaN(float64(x[1])) || !math.IsNaN(float64(x[3])) || x[2] != 0 {
		t.Errorf("addReLU with NaNs: %v", x)
	}
}

// TestGather checks the copy of strided runs that im2col uses, and the
// sum back into them of col2im (AVX2 assembly where the CPU has it),
// against the Go ones, for runs of 1 to 20 values: the same values, and
// nothing written outside the runs.
func TestGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 15))
	for run := 1; run <= 20; run++ {
		for _, c := range []struct{ n, rows, extra, gap int }{{1, 1, 0, 0}, {3, 4, 2, 5}, {2, 5, 0, 1}} {
			rowStride := run + c.extra
			sampleStride := c.rows*rowStride + c.gap
			src := randSlice(rng, (c.n-1)*sampleStride+(c.rows-1)*rowStride+run)
			size := c.n * c.rows * run
			got, want := randSlice(rng, size+9), make([]float32, size+9)
			copy(want, got)
			gather(got, src, c.n, c.rows, run, rowStride, sampleStride)
			gatherGo(want, src, c.n, c.rows, run, rowStride, sampleStride)
			if !slices.Equal(got, want) {
				t.Fatalf("run %d, %+v: gather = %v, want %v", run, c, got, want)
			}
			// And back: add the runs to the strided values, leaving the
			// values between the runs alone.
			gotS, wantS := slices.Clone(src), slices.Clone(src)
			scatterAdd(gotS, got, c.n, c.rows, run, rowStride, sampleStride)
			scatterAddGo(wantS, got, c.n, c.rows, run, rowStride, sampleStride)
			if !slices.Equal(gotS, wantS) {
				t.Fatalf("run %d, %+v: scatterAdd = %v, want %v", run, c, gotS, wantS)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("gather into a short slice did not panic")
		}
	}()
	gather(make([]float32, 5), make([]float32, 10), 2, 1, 3, 3, 3)
}

// equalFloats reports whether a and b hold the same values, NaNs equal
// and -0 equal to 0.
func equalFloats(a, b []float32) bool {
	return slices.EqualFunc(a, b, func(x, y float32) bool { return x == y || x != x && y != y })
}

// BenchmarkAddReLU measures the bias and ReLU pass over the output of the
// paper's second convolution on a Sokoban batch of 32 (32 filters of 2,048
// values), as the layers run it and in pure Go.
func BenchmarkAddReLU(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, bias := randSlice(rng, 32*2048), randSlice(rng, 32)
	for _, f := range []struct {
		name string
		pass func(x []float32, b float32)
	}{{"layers", addReLU}, {"go", addReLUGo}} {
		b.Run(f.name, func(b *testing.B) {
			for b.Loop() {
				for o, c := range bias {
					f.pass(x[o*2048:(o+1)*2048], c)
				}
			}
		})
	}
}

// BenchmarkDenseReLU measures ForwardReLU of a layer of 256 inputs and
// 256 outputs on a search's batch of 32, which it computes as W·xᵀ, and on
// a training step's 4,096, as x·Wᵀ (directBatch).
func BenchmarkDenseReLU(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	d := NewDense("d", rng, 256, 256)
	for _, n := range []int{32, 4096} {
		x, y, t := randSlice(rng, n*256), make([]float32, n*256), make([]float32, n*256)
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			for b.Loop() {
				d.ForwardReLU(x, n, y, t)
			}
		})
	}
}

// BenchmarkTransposeAddReLU measures the bias, ReLU and transposition pass
// of a dense layer of 256 units for a batch of 32, with and without the
// skip of a residual block.
func BenchmarkTransposeAddReLU(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	t, bias, y := randSlice(rng, 256*32), randSlice(rng, 256), make([]float32, 32*256)
	skip := randSlice(rng, 32*256)
	for _, c := range []struct {
		name string
		skip []float32
	}{{"plain", nil}, {"residual", skip}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				transposeAddReLU(t, bias, c.skip, 32, y)
			}
		})
	}
}

// TestTransposeAddReLU checks the dense layers' bias and ReLU passes,
// transposeAddReLU and addBiasReLU, with and without a skip (which may be
// y itself), against the formula, bit for bit, on shapes around the
// assembly's blocks of 8 and 8x8 values, with values of either sign, zeros
// of either sign and NaNs; nothing past y's n·len(b) values is written.
func TestTransposeAddReLU(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 16))
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), -float32(math.NaN()), 1e-40, -1e-40}
	for _, out := range []int{1, 5, 8, 13, 16, 24, 256} {
		for _, n := range []int{1, 7, 8, 9, 16, 17, 32, 37} {
			for _, c := range []struct {
				mode       string
				transposed bool
			}{{"plain", true}, {"skip", true}, {"in place", true}, {"plain", false}, {"skip", false}, {"in place", false}} {
				mode := c.mode
				tt, b := randSlice(rng, out*n), randSlice(rng, out)
				for i := range tt {
					if rng.IntN(8) == 0 {
						tt[i] = special[rng.IntN(len(special))]
					}
				}
				var skip []float32
				if mode != "plain" {
					// No NaN: the sign of the sum of two NaNs depends
					// on the order of the operands, which the compiler
					// chooses.
					skip = randSlice(rng, n*out)
				}
				want := make([]float32, n*out)
				for s := range n {
					for o := range out {
						v := tt[s*out+o] + b[o]
						if c.transposed {
							v = tt[o*n+s] + b[o]
						}
						if skip != nil {
							v += skip[s*out+o]
						}
						want[s*out+o] = relu(v)
					}
				}
				got := randSlice(rng, n*out+9)
				tail := slices.Clone(got[n*out:])
				if mode == "in place" {
					copy(got, skip)
					skip = got[:n*out]
				}
				if c.transposed {
					transposeAddReLU(tt, b, skip, n, got[:n*out])
				} else {
					addBiasReLU(tt, b, skip, got[:n*out])
				}
				for i, w := range want {
					if math.Float32bits(got[i]) != math.Float32bits(w) {
						t.Fatalf("%d rows of %d, %s, transposed %v: y[%d] = %v (%#x), want %v (%#x)",
							n, out, mode, c.transposed, i, got[i], math.Float32bits(got[i]), w, math.Float32bits(w))
					}
				}
				if !slices.Equal(got[n*out:], tail) {
					t.Fatalf("%d rows of %d, %s, transposed %v: wrote past y", n, out, mode, c.transposed)
				}
			}
		}
	}
}

// TestResidualBlock checks ForwardResidualReLU against Forward, the
// addition of the skip and ReLU, and the gradients of a residual block,
// relu(x + d2(relu(d1(x)))), through it, against finite differences.
func TestResidualBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	const n, w, hid = 3, 5, 4
	d1, d2 := NewDense("d1", rng, w, hid), NewDense("d2", rng, hid, w)
	d1.Bias.Data, d2.Bias.Data = randSlice(rng, hid), randSlice(rng, w)
	x, r := randSlice(rng, n*w), randSlice(rng, n*w)
	a, y, scratch := make([]float32, n*hid), make([]float32, n*w), make([]float32, n*max(w, hid))
	want := make([]float32, n*w)
	d1.ForwardReLU(x, n, a, scratch)
	d2.Forward(a, n, want)
	for i := range want {
		want[i] += x[i]
	}
	ReLU(want)
	y[0] = float32(math.NaN())
	d2.ForwardResidualReLU(a, x, n, y, scratch)
	if !slices.EqualFunc(y, want, func(x, y float32) bool { return math.Abs(float64(x-y)) <= 1e-6*(1+math.Abs(float64(y))) }) {
		t.Errorf("ForwardResidualReLU = %v, want %v", y, want)
	}
	if !slices.ContainsFunc(y, func(v float32) bool { return v == 0 }) || !slices.ContainsFunc(y, func(v float32) bool { return v > 0 }) {
		t.Error("the test needs negative and positive outputs")
	}
	// In place, on the skip.
	inPlace := slices.Clone(x)
	d2.ForwardResidualReLU(a, inPlace, n, inPlace, scratch)
	if !slices.Equal(inPlace, y) {
		t.Errorf("ForwardResidualReLU in place = %v, want %v", inPlace, y)
	}

	loss := func() float64 {
		d1.ForwardReLU(x, n, a, scratch)
		d2.ForwardResidualReLU(a, x, n, y, scratch)
		return dot(y, r)
	}
	loss()
	dz := slices.Clone(r)
	ReLUBackward(y, dz)
	da, dx := make([]float32, n*hid), make([]float32, n*w)
	d2.Backward(a, n, dz, da)
	ReLUBackward(a, da)
	d1.Backward(x, n, da, dx)
	for i, g := range dz {
		dx[i] += g
	}
	checkGrad(t, "block x", x, dx, loss)
	for _, p := range []*Param{d1.Weight, d1.Bias, d2.Weight, d2.Bias} {
		checkGrad(t, p.Name, p.Data, p.Grad, loss)
	}
}
