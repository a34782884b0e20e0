package cm

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomObjective returns the objective of k random trajectories over
// rows rows of A actions, M contexts per state, and a random point of
// the box.
func randomObjective(rng *rand.Rand, rows, A, M, k, maxLen int) (*objective, []float64, float64) {
	lo := math.Log(DefaultEpsLow)
	var trajs []trajectory
	for range k {
		n := 1 + rng.IntN(maxLen)
		tr := trajectory{}
		for range n {
			tr.actions = append(tr.actions, uint8(rng.IntN(A)))
			for range M {
				tr.rows = append(tr.rows, int32(rng.IntN(rows)))
			}
		}
		trajs = append(trajs, tr)
	}
	beta0 := (1 - 1/float64(A)) * lo
	o := newObjective(A, M, 10, beta0, trajs, 1)
	x := make([]float64, rows*A)
	for i := range x {
		x[i] = lo * rng.Float64()
	}
	return o, x, lo
}

// TestGradient compares the gradient with central finite differences.
func TestGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for trial := range 20 {
		o, x, _ := randomObjective(rng, 6, 4, 3, 1+rng.IntN(4), 5)
		if trial%2 == 0 {
			o.lambda = 0.1 // let the loss dominate
		}
		g := make([]float64, len(x))
		logF, C := o.gradient(x, g)
		if got := o.logValue(x); math.Abs(got-logF) > 1e-12*math.Abs(logF) {
			t.Fatalf("gradient's log F %g, logValue %g", logF, got)
		}
		F := func() float64 { return math.Exp(o.logValue(x)) }
		for i := range x {
			const h = 1e-6
			xi := x[i]
			x[i] = xi + h
			fp := F()
			x[i] = xi - h
			fm := F()
			x[i] = xi
			num := (fp - fm) / (2 * h)
			got := g[i] * math.Exp(C)
			if math.Abs(got-num) > 1e-4*math.Abs(num)+1e-6*math.Exp(o.logValue(x)) {
				t.Fatalf("trial %d, parameter %d: gradient %g, finite differences %g", trial, i, got, num)
			}
		}
	}
}

// TestGradientScales checks the gradient's scaling of the parts' sums
// (objective.gradient) on losses ℓ_k far apart, with trajectories of 1
// and of 150 steps in turn, against finite differences; and that it does
// not depend on the C of the previous call, whether far below or far
// above this one's.
func TestGradientScales(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	o, x, _ := randomObjective(rng, 8, 4, 3, 6, 1)
	for k := 1; k < len(o.trajs); k += 2 {
		tr := &o.trajs[k]
		for range 149 {
			tr.actions = append(tr.actions, uint8(rng.IntN(4)))
			tr.rows = append(tr.rows, int32(rng.IntN(8)), int32(rng.IntN(8)), int32(rng.IntN(8)))
		}
	}
	o = newObjective(o.A, o.M, 0.1, o.beta0, o.trajs, 1)
	g := make([]float64, len(x))
	logF, C := o.gradient(x, g)
	if lo, hi := slices.Min(o.ell), slices.Max(o.ell); hi-lo < 2*maxScaleGap {
		t.Fatalf("losses from %g to %g: not far enough apart", lo, hi)
	}
	for i := range x {
		const h = 1e-6
		xi := x[i]
		x[i] = xi + h
		fp := o.logValue(x)
		x[i] = xi - h
		fm := o.logValue(x)
		x[i] = xi
		// (log F)' = F'/F = g·e^C/F.
		num, got := (fp-fm)/(2*h), g[i]*math.Exp(C-logF)
		if math.Abs(got-num) > 1e-5*(1+math.Abs(num)) {
			t.Fatalf("parameter %d: (log F)' from the gradient %g, finite differences %g", i, got, num)
		}
	}
	for _, last := range []float64{C - 10*maxScaleGap, C + 10*maxScaleGap, C + 1000} {
		o.lastC = last
		g2 := make([]float64, len(x))
		logF2, C2 := o.gradient(x, g2)
		if logF2 != logF || C2 != C {
			t.Errorf("after C = %g: log F, C = %g, %g; want %g, %g", last, logF2, C2, logF, C)
		}
		for i := range g {
			if math.Abs(g2[i]-g[i]) > 1e-12*(1+math.Abs(g[i])) {
				t.Fatalf("after C = %g: g[%d] = %g, want %g", last, i, g2[i], g[i])
			}
		}
	}
}

// TestConvex checks F(θa + (1−θ)b) ≤ θF(a) + (1−θ)F(b) on 200 random
// segments, of the box and beyond.
func TestConvex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for seg := range 200 {
		o, a, lo := randomObjective(rng, 5, 4, 2, 1+rng.IntN(3), 4)
		b := make([]float64, len(a))
		spread := 1.0
		if seg%2 == 1 {
			spread = 3 // beyond the box
		}
		for i := range b {
			b[i] = spread * lo * rng.Float64()
		}
		x := make([]float64, len(a))
		F := func(th float64) float64 {
			for i := range x {
				x[i] = th*a[i] + (1-th)*b[i]
			}
			return math.Exp(o.logValue(x))
		}
		fa, fb := F(1), F(0)
		for _, th := range []float64{0.1, 0.25, 0.5, 0.75, 0.9} {
			if f := F(th); f > (th*fa+(1-th)*fb)*(1+1e-12) {
				t.Fatalf("segment %d: F(%g) = %g above the chord %g", seg, th, f, th*fa+(1-th)*fb)
			}
		}
	}
}

// TestLineMatchesObjective checks that a line's φ(α) is log F(x + αd).
func TestLineMatchesObjective(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	o, x, _ := randomObjective(rng, 7, 4, 3, 5, 6)
	d := make([]float64, len(x))
	for i := range d {
		d[i] = rng.NormFloat64()
	}
	o.gradient(x, make([]float64, len(x)))
	ln := o.newLine(x, d)
	y := make([]float64, len(x))
	for _, al := range []float64{0, 0.3, 1, 2.5} {
		for i := range y {
			y[i] = x[i] + al*d[i]
		}
		got := ln.at(al)
		if want := o.logValue(y); math.Abs(got-want) > 1e-10*math.Abs(want) {
			t.Errorf("φ(%g) = %g, log F = %g", al, got, want)
		}
	}
}

// TestObjectiveThreads checks that the objective's sums over parts of
// the trajectories on several goroutines give the values, gradients and
// lines of one goroutine, up to rounding, and that the parts cover the
// trajectories.
func TestObjectiveThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	one, x, _ := randomObjective(rng, 500, 4, 10, 400, 100) // about 20,000 steps
	d := make([]float64, len(x))
	for i := range d {
		d[i] = rng.NormFloat64()
	}
	g1 := make([]float64, len(x))
	logF1, C1 := one.gradient(x, g1)
	ln1 := one.newLine(x, d)
	for _, threads := range []int{2, 3, 64} {
		o := newObjective(one.A, one.M, one.lambda, one.beta0, one.trajs, threads)
		if want := min(threads, one.steps/minPartSteps); len(o.parts) != want {
			t.Errorf("%d threads: %d parts, want %d", threads, len(o.parts), want)
		}
		k, st := 0, 0
		for _, p := range o.parts {
			if p.k0 != k || p.t0 != st || p.k1 < p.k0 {
				t.Fatalf("%d threads: parts %+v do not follow each other", threads, o.parts)
			}
			k, st = p.k1, p.t1
		}
		if k != len(o.trajs) || st != o.steps {
			t.Fatalf("%d threads: parts end at trajectory %d, step %d; want %d, %d", threads, k, st, len(o.trajs), o.steps)
		}
		g := make([]float64, len(x))
		logF, C := o.gradient(x, g)
		if math.Abs(logF-logF1) > 1e-12*math.Abs(logF1) || C != C1 {
			t.Errorf("%d threads: log F, C = %g, %g; one thread %g, %g", threads, logF, C, logF1, C1)
		}
		for i := range g {
			if math.Abs(g[i]-g1[i]) > 1e-12*(1+math.Abs(g1[i])) {
				t.Fatalf("%d threads: g[%d] = %g; one thread %g", threads, i, g[i], g1[i])
			}
		}
		ln := o.newLine(x, d)
		for _, al := range []float64{0, 0.1, 1} {
			if a, b := ln.at(al), ln1.at(al); math.Abs(a-b) > 1e-12*math.Abs(b) {
				t.Errorf("%d threads: φ(%g) = %g; one thread %g", threads, al, a, b)
			}
		}
	}
}

// TestDeltaSecant checks the line search on convex functions: its point
// x satisfies the quasi-exact criterion f(0) − f(x) ≥ f(x) − min f.
func TestDeltaSecant(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(float64) float64
		min  float64
		xq   float64
	}{
		{"quadratic", func(x float64) float64 { return (x - 3) * (x - 3) }, 0, 0.5},
		{"quadratic near", func(x float64) float64 { return (x - 0.1) * (x - 0.1) }, 0, 0.5},
		{"exp", func(x float64) float64 { return math.Exp(x) - 2*x }, 2 - 2*math.Log(2), 0.5},
		{"far", func(x float64) float64 { return math.Abs(x-100) + 0.01*x }, 1, 0.5},
		{"quartic", func(x float64) float64 { return math.Pow(x-0.7, 4) }, 0, 0.2},
	} {
		calls := 0
		f := func(x float64) float64 { calls++; return c.f(x) }
		x, y := deltaSecant(f, 0, c.xq, f(0), f(c.xq), 1)
		if y != c.f(x) {
			t.Errorf("%s: returned f(%g) = %g, want %g", c.name, x, y, c.f(x))
		}
		if gap := y - c.min; c.f(0)-y < gap-1e-12 {
			t.Errorf("%s: x = %g, f(x) = %g: decrease %g < gap %g", c.name, x, y, c.f(0)-y, gap)
		}
		if calls > 60 {
			t.Errorf("%s: %d evaluations", c.name, calls)
		}
	}
}

// projectedGD minimises F over the box by projected gradient descent on
// log F with backtracking (Armijo) steps: a slow but simple independent
// solver. log F is not convex, but its stationary points over the box
// are F's (its gradient is F's divided by F > 0), hence F's minimum.
func projectedGD(o *objective, x []float64, lo float64, iters int) float64 {
	g := make([]float64, len(x))
	y := make([]float64, len(x))
	step := 1.0
	for range iters {
		logF, C := o.gradient(x, g)
		e := math.Exp(C - logF)
		for {
			dec := 0.0
			for i := range x {
				y[i] = min(max(x[i]-step*e*g[i], lo), 0)
				dec += e * g[i] * (x[i] - y[i])
			}
			if o.logValue(y) <= logF-0.25*dec || step < 1e-30 {
				copy(x, y)
				step *= 2
				break
			}
			step /= 2
		}
	}
	return math.Exp(o.logValue(x))
}

// TestOptimizeReachesMinimum checks that iso-GD reaches the minimum that
// projected gradient descent run long finds, on small problems, and
// that the default stopping rule stops within a factor 2 of it. On 5
// problems, 3 with -short.
func TestOptimizeReachesMinimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	trials := 5
	if testing.Short() {
		trials = 3
	}
	for trial := range trials {
		o, x, lo := randomObjective(rng, 5, 4, 2, 2+rng.IntN(3), 5)
		if trial%2 == 1 {
			o.lambda = 1
		}
		ref := append([]float64(nil), x...)
		Fhalf := projectedGD(o, ref, lo, 10000)
		Fstar := projectedGD(o, ref, lo, 10000)
		if math.Abs(Fhalf-Fstar) > 1e-9*Fstar {
			t.Fatalf("trial %d: projected GD has not converged: %.12g, then %.12g", trial, Fhalf, Fstar)
		}

		y := append([]float64(nil), x...)
		res, err := optimize(context.Background(), o, y, lo, OptimizerConfig{Lambda: o.lambda, MaxSteps: 3000, GapFactor: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		F := math.Exp(o.logValue(y))
		if math.Abs(F-Fstar) > 1e-6*Fstar {
			t.Errorf("trial %d: iso-GD F = %.12g after %d steps (gap %g), projected GD %.12g", trial, F, res.Steps, res.Gap, Fstar)
		}
		for _, b := range y {
			if b < lo || b > 0 {
				t.Fatalf("β = %g out of the box", b)
			}
		}

		z := append([]float64(nil), x...)
		res, err = optimize(context.Background(), o, z, lo, OptimizerConfig{Lambda: o.lambda})
		if err != nil {
			t.Fatal(err)
		}
		if F := math.Exp(res.LogF); F > 2*Fstar || res.Steps > 200 || !(res.Gap <= 0.5) && res.Steps < 200 {
			t.Errorf("trial %d: default stop: F = %g (min %g), %d steps, gap %g", trial, F, Fstar, res.Steps, res.Gap)
		}
	}
}

// BenchmarkGradient measures one evaluation of the gradient over 100
// trajectories of up to 100 steps, 20 contexts per state, 2,000 rows.
func BenchmarkGradient(b *testing.B) {
	o, x, _ := randomObjective(rand.New(rand.NewPCG(8, 8)), 2000, 4, 20, 100, 100)
	g := make([]float64, len(x))
	for b.Loop() {
		o.gradient(x, g)
	}
	b.ReportMetric(float64(o.steps*b.N)/b.Elapsed().Seconds(), "steps/s")
}

// BenchmarkOptimize measures 20 steps of the optimisation with the
// reference's other settings from a random point, on the problem of
// BenchmarkGradient, and on one of the size of a Witness update (10,000
// trajectories of up to 30 steps, 126 contexts per state, 50,000 rows) on
// 1 and 2 threads.
func BenchmarkOptimize(b *testing.B) {
	for _, c := range []struct {
		name               string
		rows, M, k, maxLen int
		threads            int
	}{
		{"small", 2000, 20, 100, 100, 1},
		{"witness/threads=1", 50000, 126, 10000, 30, 1},
		{"witness/threads=2", 50000, 126, 10000, 30, 2},
	} {
		b.Run(c.name, func(b *testing.B) {
			o, x, lo := randomObjective(rand.New(rand.NewPCG(8, 8)), c.rows, 4, c.M, c.k, c.maxLen)
			o = newObjective(o.A, o.M, o.lambda, o.beta0, o.trajs, c.threads)
			y := make([]float64, len(x))
			steps := 0
			for b.Loop() {
				copy(y, x)
				res, err := optimize(context.Background(), o, y, lo, OptimizerConfig{MaxSteps: 20})
				if err != nil {
					b.Fatal(err)
				}
				steps += res.Steps
			}
			b.ReportMetric(float64(steps)/float64(b.N), "iterations")
		})
	}
}
