package cm

import (
	"math"
	"sync"
)

// A trajectory is a solution as the loss reads it: for each step t, the
// action taken and the rows of the M contexts of the state it was taken
// in (rows[t·M : (t+1)·M]), all known.
type trajectory struct {
	actions []uint8
	rows    []int32
}

// An objective is the regularised LTS loss of a set of trajectories over
// the parameters β of a table (rows×A, row-major):
//
//	F(β) = Σ_k T_k/π_β(trajectory k) + (λ/2)·Σ (β − β0)²,
//
// π_β being the product of the softmax policies of the steps, without
// mixing. Each term log T_k − log π_β(k) is a sum of log-sum-exps of
// linear functions of β minus linear functions, hence convex; so is its
// exponential, and F. Its values are computed in log space.
//
// Its sums over the steps run on up to len(parts) goroutines, one part of
// the trajectories each; the per-step results do not depend on the
// number of parts, the gradient's sums over steps only through rounding.
type objective struct {
	A, M          int
	lambda, beta0 float64
	trajs         []trajectory
	steps         int // Σ T_k
	// scratch: per step z (steps·A) and the line's direction zd; per
	// trajectory ℓ_k.
	z, zl, zd, zs, ell []float64
	parts              []part
	// lastC is the C of the last gradient, NaN before the first.
	lastC float64
}

// A part is a run of consecutive trajectories, trajs[k0:k1], whose steps
// are t0..t1−1, with its buffer of the gradient: for each row r of the
// parameters, xg[2rA : (2r+1)A] holds x's row and xg[(2r+1)A : (2r+2)A]
// the part's sum of its terms of the gradient's row, scaled by e^(−s).
type part struct {
	k0, k1, t0, t1 int
	xg             []float64
	s              float64
}

// minPartSteps is the fewest steps of a part: below it, a goroutine costs
// more than it saves.
const minPartSteps = 4096

// newObjective returns the objective of trajs, which have at least one
// step each, over parameters with A actions, M contexts per state,
// regulariser weight lambda and centre beta0, whose sums run on up to
// threads goroutines (0 meaning 1).
func newObjective(A, M int, lambda, beta0 float64, trajs []trajectory, threads int) *objective {
	o := &objective{A: A, M: M, lambda: lambda, beta0: beta0, trajs: trajs, lastC: math.NaN()}
	for _, tr := range trajs {
		o.steps += len(tr.actions)
	}
	o.z = make([]float64, o.steps*A)
	o.zd = make([]float64, o.steps*A)
	o.zl = make([]float64, o.steps*A)
	o.zs = make([]float64, o.steps*A)
	o.ell = make([]float64, len(trajs))
	n := max(min(threads, o.steps/minPartSteps), 1)
	k, t := 0, 0
	for i := range n {
		p := part{k0: k, t0: t}
		for k < len(trajs) && (i == n-1 || t < (i+1)*o.steps/n) {
			t += len(trajs[k].actions)
			k++
		}
		p.k1, p.t1 = k, t
		o.parts = append(o.parts, p)
	}
	return o
}

// each calls f on every part, on a goroutine each but the first.
func (o *objective) each(f func(p *part)) {
	if len(o.parts) == 1 {
		f(&o.parts[0])
		return
	}
	var wg sync.WaitGroup
	for i := 1; i < len(o.parts); i++ {
		wg.Go(func() { f(&o.parts[i]) })
	}
	f(&o.parts[0])
	wg.Wait()
}

// sumRows writes to z, for each step, the sum of the rows of x of its
// contexts.
func (o *objective) sumRows(x, z []float64) {
	o.each(func(p *part) { o.sumRowsPart(p, x, z) })
}

func (o *objective) sumRowsPart(p *part, x, z []float64) {
	A, M := o.A, o.M
	t := p.t0
	for _, tr := range o.trajs[p.k0:p.k1] {
		for i := range tr.actions {
			rowSum(x, A, A, tr.rows[i*M:(i+1)*M], z[t*A:(t+1)*A])
			t++
		}
	}
}

// rowSum sets z to the sum of the rows of x of the given indices, row r
// being x[r·stride : r·stride+A], A = len(z). With 4 actions it keeps
// the sums in registers, so that the loads of the rows, which miss the
// cache, do not wait on one another.
func rowSum(x []float64, A, stride int, rows []int32, z []float64) {
	if A == 4 {
		var z0, z1, z2, z3 float64
		for _, r := range rows {
			row := x[int(r)*stride : int(r)*stride+4]
			z0 += row[0]
			z1 += row[1]
			z2 += row[2]
			z3 += row[3]
		}
		z[0], z[1], z[2], z[3] = z0, z1, z2, z3
		return
	}
	clear(z)
	for _, r := range rows {
		for a, b := range x[int(r)*stride : int(r)*stride+A] {
			z[a] += b
		}
	}
}

// lse returns log Σ exp(v).
func lse(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = max(m, x)
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for _, x := range v {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}

// lse2 returns log(exp a + exp b).
func lse2(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(a, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// losses sets o.ell[k] = log T_k − log π(k) from the step sums z and
// returns log L = log Σ_k exp ℓ_k.
func (o *objective) losses(z []float64) float64 {
	o.each(func(p *part) { o.lossesPart(p, z) })
	return lse(o.ell)
}

func (o *objective) lossesPart(p *part, z []float64) {
	A := o.A
	t := p.t0
	for k := p.k0; k < p.k1; k++ {
		tr := o.trajs[k]
		l := math.Log(float64(len(tr.actions)))
		for _, a := range tr.actions {
			zt := z[t*A : (t+1)*A]
			l += lse(zt) - zt[a]
			t++
		}
		o.ell[k] = l
	}
}

// reg returns (λ/2)·Σ (x − β0)².
func (o *objective) reg(x []float64) float64 {
	s := 0.0
	for _, b := range x {
		s += (b - o.beta0) * (b - o.beta0)
	}
	return o.lambda / 2 * s
}

// logValue returns log F(x).
func (o *objective) logValue(x []float64) float64 {
	o.sumRows(x, o.z)
	return lse2(o.losses(o.z), math.Log(o.reg(x)))
}

// gradient writes to g the gradient of F at x scaled by e^(−C), C =
// max_k ℓ_k (0 without trajectories), and returns log F(x) and C. It
// leaves in o.z the step sums at x (see newLine).
//
// Each part sums and scatters in one pass over its trajectories, one
// trajectory at a time: it sums the rows of x of a trajectory's steps,
// computes its ℓ_k, then adds its terms to the gradient's rows, which the
// sums just brought into the cache, as x and the part's gradient are
// interleaved, row by row, in the part's buffer (part.xg). As C is not
// known before every ℓ_k is, a part scales its gradient by e^(−s), s
// the C of the previous call and raised whenever a trajectory's ℓ_k
// exceeds it by more than maxScaleGap (the part's sums are then scaled
// down to the new s); the parts' sums are scaled to e^(−C) at the end.
func (o *objective) gradient(x, g []float64) (logF, C float64) {
	o.each(func(p *part) { o.gradientPart(p, x) })
	C = 0.0
	if len(o.ell) > 0 {
		C = math.Inf(-1)
		for _, l := range o.ell {
			C = max(C, l)
		}
	}
	for _, p := range o.parts {
		if p.s-C > maxScaleGap {
			// The previous C was so much larger than this one that
			// the part's terms may have underflowed: once more from C.
			o.lastC = C
			return o.gradient(x, g)
		}
	}
	o.lastC = C
	scale := o.lambda * math.Exp(-C)
	for i, b := range x {
		g[i] = scale * (b - o.beta0)
	}
	A := o.A
	for _, p := range o.parts {
		f := math.Exp(p.s - C)
		for r := range len(x) / A {
			gr := p.xg[(2*r+1)*A : (2*r+2)*A]
			for a, v := range gr {
				g[r*A+a] += f * v
			}
		}
	}
	return lse2(lse(o.ell), math.Log(o.reg(x))), C
}

// maxScaleGap bounds ℓ_k − s for the terms a part adds to its gradient,
// e^(ℓ_k − s) (see gradient), and s − C.
const maxScaleGap = 64

// gradientPart sets, for the trajectories of part p, the step sums of x
// in o.z and the losses ℓ_k in o.ell, and in p.xg the sum of their
// terms of the gradient scaled by e^(−p.s).
func (o *objective) gradientPart(p *part, x []float64) {
	A, M := o.A, o.M
	stride := 2 * A
	if n := len(x) * 2; len(p.xg) != n {
		p.xg = make([]float64, n)
	}
	for r := range len(x) / A {
		copy(p.xg[r*stride:r*stride+A], x[r*A:(r+1)*A])
		clear(p.xg[r*stride+A : (r+1)*stride])
	}
	p.s = math.NaN()
	var pr [MaxActions]float64
	t := p.t0
	for k := p.k0; k < p.k1; k++ {
		tr := o.trajs[k]
		// The step sums and the loss of trajectory k.
		l := math.Log(float64(len(tr.actions)))
		for i, act := range tr.actions {
			zt := o.z[(t+i)*A : (t+i+1)*A]
			rowSum(p.xg, A, stride, tr.rows[i*M:(i+1)*M], zt)
			l += lse(zt) - zt[act]
		}
		o.ell[k] = l
		switch {
		case math.IsNaN(p.s):
			p.s = o.lastC
			if math.IsNaN(p.s) || l > p.s+maxScaleGap {
				p.s = l
			}
		case l > p.s+maxScaleGap:
			f := math.Exp(p.s - l)
			for r := range len(x) / A {
				for a := range A {
					p.xg[r*stride+A+a] *= f
				}
			}
			p.s = l
		}
		// Its terms of the gradient.
		e := math.Exp(l - p.s)
		for i, act := range tr.actions {
			zt := o.z[t*A : (t+1)*A]
			m := math.Inf(-1)
			for _, v := range zt {
				m = max(m, v)
			}
			sum := 0.0
			for a, v := range zt {
				pr[a] = math.Exp(v - m)
				sum += pr[a]
			}
			for a := range zt {
				pr[a] = e * pr[a] / sum
			}
			pr[act] -= e
			for _, r := range tr.rows[i*M : (i+1)*M] {
				gr := p.xg[int(r)*stride+A : int(r+1)*stride]
				for a := range gr {
					gr[a] += pr[a]
				}
			}
			t++
		}
	}
	if math.IsNaN(p.s) { // no trajectory
		p.s = math.Inf(-1)
	}
}

// A line is the restriction φ(α) = log F(x + α·d) of the objective to a
// line, without clipping to the box, with its per-step sums precomputed
// so that each evaluation costs one pass over the steps.
type line struct {
	o *objective
	// The regulariser is (λ/2)(r0 + 2α·r1 + α²·r2).
	r0, r1, r2 float64
}

// newLine returns the line of o through x in direction d. The last
// call of gradient must have been at x: the line takes over the step sums
// that it left in o.z, so that a step of the optimiser sums the rows of x
// once.
func (o *objective) newLine(x, d []float64) *line {
	o.z, o.zl = o.zl, o.z
	o.sumRows(d, o.zd)
	l := &line{o: o}
	for i, b := range x {
		u := b - o.beta0
		l.r0 += u * u
		l.r1 += u * d[i]
		l.r2 += d[i] * d[i]
	}
	return l
}

// at returns φ(α).
func (l *line) at(alpha float64) float64 {
	o := l.o
	o.each(func(p *part) {
		for i := p.t0 * o.A; i < p.t1*o.A; i++ {
			o.zs[i] = o.zl[i] + alpha*o.zd[i]
		}
		o.lossesPart(p, o.zs)
	})
	r := o.lambda / 2 * (l.r0 + 2*alpha*l.r1 + alpha*alpha*l.r2)
	return lse2(lse(o.ell), math.Log(max(r, 0)))
}
