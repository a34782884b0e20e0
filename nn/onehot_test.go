package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// oneHotRows returns n rows of in values with k ones each at random
// places (a place may come twice, and then holds 2), as dense rows and as
// OneHotRows.
func oneHotRows(rng *rand.Rand, n, in, k int) ([]float32, *OneHotRows) {
	x := make([]float32, n*in)
	r := new(OneHotRows)
	r.Reset(in)
	ones := make([]int32, k)
	for s := range n {
		for i := range ones {
			ones[i] = int32(rng.IntN(in))
			x[s*in+int(ones[i])]++
		}
		r.Append(ones)
	}
	return x, r
}

// TestForwardOneHotReLU checks ForwardOneHotReLU against ForwardReLU on
// the same rows up to rounding, on shapes around the assembly's blocks of
// 64 and 8 outputs, rows without ones among them, and the assembly
// against the Go code bit for bit.
func TestForwardOneHotReLU(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	close := func(x, y float32) bool { return math.Abs(float64(x-y)) <= 1e-5*(1+math.Abs(float64(y))) }
	const in = 37
	for _, out := range []int{1, 7, 8, 9, 64, 72, 77, 130} {
		for _, k := range []int{0, 1, 6} {
			for _, n := range []int{1, 3, directBatch + 1} {
				d := NewDense("d", rng, in, out)
				d.Bias.Data = randSlice(rng, out)
				x, r := oneHotRows(rng, n, in, k)
				if r.Len() != n {
					t.Errorf("Len = %d, want %d", r.Len(), n)
				}
				want, got := make([]float32, n*out), randSlice(rng, n*out)
				d.ForwardReLU(x, n, want, make([]float32, n*out))
				wt := d.TransposeWeight(nil)
				d.ForwardOneHotReLU(r, wt, got)
				if !slices.EqualFunc(got, want, close) {
					t.Errorf("%d rows of %d ones, %d outputs: ForwardOneHotReLU = %v, want %v", n, k, out, got, want)
				}

				// The last row's ones through addRows and addRowsGo.
				ones := r.idx[r.start[n-1]:]
				asm, goV := randSlice(rng, out), make([]float32, out)
				copy(goV, asm)
				addRows(asm, wt, ones)
				addRowsGo(goV, wt, ones, 0)
				if !slices.Equal(asm, goV) {
					t.Errorf("%d outputs: addRows = %v, addRowsGo = %v", out, asm, goV)
				}
			}
		}
	}
}

// TestConvForwardOneHotReLU checks Conv2D.ForwardOneHotReLU against
// ForwardReLU on the same images up to rounding: kernels of 1 to 3,
// images wider than high and high than wide, as many ones as places (so
// some places hold 2 and some windows none) and one 1 a cell, as the
// sliding-tile puzzle encodes its boards, and scratch reused from a
// larger batch.
func TestConvForwardOneHotReLU(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 24))
	close := func(x, y float32) bool { return math.Abs(float64(x-y)) <= 1e-5*(1+math.Abs(float64(y))) }
	var cols OneHotRows
	for _, c := range []struct{ inC, inH, inW, outC, k int }{
		{3, 4, 5, 8, 2}, {2, 5, 3, 9, 3}, {4, 3, 3, 7, 1}, {5, 3, 3, 16, 3}, {49, 7, 7, 32, 2},
	} {
		l := NewConv2D("c", rng, c.inC, c.inH, c.inW, c.outC, c.k)
		l.Bias.Data = randSlice(rng, c.outC)
		wt := l.TransposeWeight(nil)
		in, hw := c.inC*c.inH*c.inW, c.inH*c.inW
		for _, n := range []int{5, 1} {
			for _, perCell := range []bool{false, true} {
				x, r := oneHotRows(rng, n, in, hw)
				if perCell { // tile t at cell i: channel t
					x, r = make([]float32, n*in), new(OneHotRows)
					r.Reset(in)
					ones := make([]int32, hw)
					for s := range n {
						for i, t := range rng.Perm(hw) {
							ones[i] = int32((t%c.inC)*hw + i)
							x[s*in+int(ones[i])] = 1
						}
						r.Append(ones)
					}
				}
				m := n * l.OutH() * l.OutW()
				want, got := make([]float32, m*c.outC), randSlice(rng, m*c.outC)
				l.ForwardReLU(x, NCHW, n, want, make([]float32, l.ColSize(n)))
				l.ForwardOneHotReLU(r, &cols, wt, got, randSlice(rng, 5*m*c.outC))
				if !slices.EqualFunc(got, want, close) {
					t.Errorf("%+v, %d images, one 1 a cell %v: ForwardOneHotReLU = %v, want %v", c, n, perCell, got, want)
				}
			}
		}
	}
}

// TestConvBackwardOneHot checks Conv2D.BackwardOneHot's gradients, added
// to those a layer holds, against Backward's on the same images up to
// rounding, on the shapes of TestConvForwardOneHotReLU.
func TestConvBackwardOneHot(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 25))
	close := func(x, y float32) bool { return math.Abs(float64(x-y)) <= 1e-4*(1+math.Abs(float64(y))) }
	for _, c := range []struct{ inC, inH, inW, outC, k int }{
		{3, 4, 5, 8, 2}, {2, 5, 3, 9, 3}, {4, 3, 3, 7, 1}, {5, 3, 3, 16, 3}, {49, 7, 7, 32, 2},
	} {
		for _, n := range []int{1, 6} {
			in := c.inC * c.inH * c.inW
			x, r := oneHotRows(rng, n, in, c.inH*c.inW)
			want, got := NewConv2D("c", rng, c.inC, c.inH, c.inW, c.outC, c.k), NewConv2D("c", nil, c.inC, c.inH, c.inW, c.outC, c.k)
			copy(got.Weight.Data, want.Weight.Data)
			want.Weight.Grad, want.Bias.Grad = randSlice(rng, len(want.Weight.Data)), randSlice(rng, c.outC)
			copy(got.Weight.Grad, want.Weight.Grad)
			copy(got.Bias.Grad, want.Bias.Grad)
			m := n * want.OutH() * want.OutW()
			dy := randSlice(rng, m*c.outC)
			col := make([]float32, want.ColSize(n))
			want.Forward(x, NCHW, n, make([]float32, m*c.outC), col)
			want.Backward(x, NCHW, n, dy, nil, col, make([]float32, want.ColSize(n)))
			var cols OneHotRows
			got.ForwardOneHotReLU(r, &cols, got.TransposeWeight(nil), make([]float32, m*c.outC), make([]float32, m*c.outC))
			got.BackwardOneHot(&cols, dy, randSlice(rng, m*c.outC), randSlice(rng, len(want.Weight.Data)))
			if !slices.EqualFunc(got.Weight.Grad, want.Weight.Grad, close) || !slices.EqualFunc(got.Bias.Grad, want.Bias.Grad, close) {
				t.Errorf("%+v, %d images: BackwardOneHot's gradients %v and %v, want %v and %v",
					c, n, got.Weight.Grad, got.Bias.Grad, want.Weight.Grad, want.Bias.Grad)
			}
		}
	}
}

// TestBackwardOneHot checks BackwardOneHot's gradients, added to those a
// layer holds, against Backward's on the same rows up to rounding, on
// shapes around the assembly's blocks, and the assembly of its sums
// against the Go code bit for bit.
func TestBackwardOneHot(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 23))
	close := func(x, y float32) bool { return math.Abs(float64(x-y)) <= 1e-5*(1+math.Abs(float64(y))) }
	const in = 37
	for _, out := range []int{1, 7, 8, 9, 64, 72, 77, 130} {
		for _, n := range []int{1, 3, 40} {
			x, r := oneHotRows(rng, n, in, 5)
			dy := randSlice(rng, n*out)
			want, got := NewDense("d", rng, in, out), NewDense("d", nil, in, out)
			copy(got.Weight.Data, want.Weight.Data)
			want.Weight.Grad, want.Bias.Grad = randSlice(rng, in*out), randSlice(rng, out)
			copy(got.Weight.Grad, want.Weight.Grad)
			copy(got.Bias.Grad, want.Bias.Grad)
			want.Backward(x, n, dy, nil)
			got.BackwardOneHot(r, dy, randSlice(rng, in*out))
			if !slices.EqualFunc(got.Weight.Grad, want.Weight.Grad, close) || !slices.EqualFunc(got.Bias.Grad, want.Bias.Grad, close) {
				t.Errorf("%d rows, %d outputs: BackwardOneHot's gradients %v and %v, want %v and %v",
					n, out, got.Weight.Grad, got.Bias.Grad, want.Weight.Grad, want.Bias.Grad)
			}

			ones := r.idx[r.start[n-1]:]
			asm := randSlice(rng, in*out)
			goV := slices.Clone(asm)
			addToRows(asm, dy[:out], ones)
			addToRowsGo(goV, dy[:out], ones, 0)
			if !slices.Equal(asm, goV) {
				t.Errorf("%d outputs: addToRows and addToRowsGo differ", out)
			}
		}
	}
}

// TestSetDense checks that SetDense keeps the rows of 0s and 1s with at
// most max ones, as Append would, and refuses the others.
func TestSetDense(t *testing.T) {
	x := []float32{0, 1, 0, 1, 0, 0, 1, 1, 1}
	var want OneHotRows
	want.Reset(3)
	for _, ones := range [][]int32{{1}, {0}, {0, 1, 2}} {
		want.Append(ones)
	}
	var r OneHotRows
	if !r.SetDense(x, 3, 3, 5) || r.Len() != 3 || !slices.Equal(r.idx, want.idx) || !slices.Equal(r.start, want.start) {
		t.Errorf("SetDense kept %v from %v, want %v from %v", r.idx, r.start, want.idx, want.start)
	}
	for _, c := range []struct {
		name string
		x    []float32
		max  int
	}{{"too many ones", x, 4}, {"a 2", []float32{0, 2, 0}, 3}, {"a half", []float32{0.5, 0, 0}, 3}, {"a -1", []float32{0, 0, -1}, 3}} {
		if r.SetDense(c.x, len(c.x)/3, 3, c.max) || r.Len() != 0 {
			t.Errorf("%s: SetDense kept %d rows", c.name, r.Len())
		}
	}
}

// TestOneHotChecks checks that places out of the row, rows of another
// size than the layer's inputs and weights of another size are refused.
func TestOneHotChecks(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 22))
	d := NewDense("d", rng, 4, 8)
	rows := func(cols int) *OneHotRows {
		r := new(OneHotRows)
		r.Reset(cols)
		r.Append([]int32{0, int32(cols - 1)})
		return r
	}
	for name, f := range map[string]func(){
		"place -1": func() { rows(4).Append([]int32{-1}) },
		"place 4":  func() { rows(4).Append([]int32{1, 4}) },
		"rows":     func() { d.ForwardOneHotReLU(rows(5), d.TransposeWeight(nil), make([]float32, 8)) },
		"weights":  func() { d.ForwardOneHotReLU(rows(4), make([]float32, 31), make([]float32, 8)) },
		"backward": func() { d.BackwardOneHot(rows(5), make([]float32, 8), make([]float32, 40)) },
		"conv images": func() {
			l := NewConv2D("c", rng, 2, 3, 3, 4, 2)
			l.ForwardOneHotReLU(rows(17), new(OneHotRows), l.TransposeWeight(nil), make([]float32, 16), make([]float32, 16))
		},
		"conv backward": func() {
			l := NewConv2D("c", rng, 2, 3, 3, 4, 2)
			l.BackwardOneHot(rows(9), make([]float32, 16), make([]float32, 16), make([]float32, 32))
		},
		"conv weights": func() {
			l := NewConv2D("c", rng, 2, 3, 3, 4, 2)
			l.ForwardOneHotReLU(rows(18), new(OneHotRows), make([]float32, 31), make([]float32, 16), make([]float32, 16))
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestTransposeWeight checks TransposeWeight's values and its reuse of
// a buffer with room.
func TestTransposeWeight(t *testing.T) {
	d := NewDense("d", nil, 3, 2)
	copy(d.Weight.Data, []float32{1, 2, 3, 4, 5, 6})
	buf := make([]float32, 10)
	got := d.TransposeWeight(buf)
	if want := []float32{1, 4, 2, 5, 3, 6}; !slices.Equal(got, want) || &got[0] != &buf[0] {
		t.Errorf("TransposeWeight = %v (own buffer %v), want %v in the buffer", got, &got[0] == &buf[0], want)
	}
}

// BenchmarkForwardOneHot measures the Rubik's cube network's first layer
// (648 inputs, 54 of them ones, 128 outputs) on its search's batch of
// 1,024, as ForwardReLU computes it and as ForwardOneHotReLU does, its
// gradients by Backward and by BackwardOneHot, and TransposeWeight,
// which an evaluator runs once for the weights it reads.
func BenchmarkForwardOneHot(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n, in, out = 1024, 648, 128
	d := NewDense("d", rng, in, out)
	x, r := oneHotRows(rng, n, in, 54)
	y, tmp := make([]float32, n*out), make([]float32, n*out)
	b.Run("dense", func(b *testing.B) {
		for b.Loop() {
			d.ForwardReLU(x, n, y, tmp)
		}
	})
	wt := d.TransposeWeight(nil)
	b.Run("onehot", func(b *testing.B) {
		for b.Loop() {
			d.ForwardOneHotReLU(r, wt, y)
		}
	})
	dy, dwt := randSlice(rng, n*out), make([]float32, in*out)
	b.Run("backward/dense", func(b *testing.B) {
		for b.Loop() {
			d.Backward(x, n, dy, nil)
		}
	})
	b.Run("backward/onehot", func(b *testing.B) {
		for b.Loop() {
			d.BackwardOneHot(r, dy, dwt)
		}
	})
	b.Run("transpose", func(b *testing.B) {
		for b.Loop() {
			wt = d.TransposeWeight(wt)
		}
	})
}

// BenchmarkConvOneHot measures the first convolution of the 5x5 and 7x7
// sliding-tile puzzles' networks (25 or 49 channels, 32 filters of 2x2;
// 25 ones of 625 inputs, 49 of 2,401) on batches of 32, a search's, as
// ForwardReLU computes it and as ForwardOneHotReLU does.
func BenchmarkConvOneHot(b *testing.B) {
	for _, side := range []int{5, 7} {
		rng := rand.New(rand.NewPCG(2, 2))
		const n = 32
		c := side * side
		l := NewConv2D("c", rng, c, side, side, 32, 2)
		x, r := make([]float32, n*c*side*side), new(OneHotRows)
		r.Reset(c * side * side)
		ones := make([]int32, side*side)
		for s := range n {
			for i, t := range rng.Perm(side * side) {
				ones[i] = int32(t*side*side + i)
				x[s*c*side*side+int(ones[i])] = 1
			}
			r.Append(ones)
		}
		m := n * l.OutH() * l.OutW()
		y, col, t := make([]float32, m*32), make([]float32, l.ColSize(n)), make([]float32, m*32)
		b.Run(fmt.Sprintf("%dx%d/dense", side, side), func(b *testing.B) {
			for b.Loop() {
				l.ForwardReLU(x, NCHW, n, y, col)
			}
		})
		wt := l.TransposeWeight(nil)
		var cols OneHotRows
		b.Run(fmt.Sprintf("%dx%d/onehot", side, side), func(b *testing.B) {
			for b.Loop() {
				l.ForwardOneHotReLU(r, &cols, wt, y, t)
			}
		})
	}
}
