package cm

import (
	"math"
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
type objective struct {
	A, M          int
	lambda, beta0 float64
	trajs         []trajectory
	steps         int // Σ T_k
	// scratch: per step z (steps·A) and the line's direction zd; per
	// trajectory ℓ_k.
	z, zl, zd, zs, ell []float64
}

// newObjective returns the objective of trajs, which have at least one
// step each, over parameters with A actions, M contexts per state,
// regulariser weight lambda and centre beta0.
func newObjective(A, M int, lambda, beta0 float64, trajs []trajectory) *objective {
	o := &objective{A: A, M: M, lambda: lambda, beta0: beta0, trajs: trajs}
	for _, tr := range trajs {
		o.steps += len(tr.actions)
	}
	o.z = make([]float64, o.steps*A)
	o.zd = make([]float64, o.steps*A)
	o.zl = make([]float64, o.steps*A)
	o.zs = make([]float64, o.steps*A)
	o.ell = make([]float64, len(trajs))
	return o
}

// sumRows writes to z, for each step, the sum of the rows of x of its
// contexts.
func (o *objective) sumRows(x, z []float64) {
	A, M := o.A, o.M
	clear(z)
	t := 0
	for _, tr := range o.trajs {
		for i := range tr.actions {
			zt := z[t*A : (t+1)*A]
			for _, r := range tr.rows[i*M : (i+1)*M] {
				for a, b := range x[int(r)*A : int(r)*A+A] {
					zt[a] += b
				}
			}
			t++
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
	A := o.A
	t := 0
	for k, tr := range o.trajs {
		l := math.Log(float64(len(tr.actions)))
		for _, a := range tr.actions {
			zt := z[t*A : (t+1)*A]
			l += lse(zt) - zt[a]
			t++
		}
		o.ell[k] = l
	}
	return lse(o.ell)
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
// max_k ℓ_k (0 without trajectories), and returns log F(x) and C.
func (o *objective) gradient(x, g []float64) (logF, C float64) {
	A, M := o.A, o.M
	o.sumRows(x, o.z)
	logL := o.losses(o.z)
	C = 0.0
	if len(o.ell) > 0 {
		C = math.Inf(-1)
		for _, l := range o.ell {
			C = max(C, l)
		}
	}
	scale := o.lambda * math.Exp(-C)
	for i, b := range x {
		g[i] = scale * (b - o.beta0)
	}
	var p [MaxActions]float64
	t := 0
	for k, tr := range o.trajs {
		e := math.Exp(o.ell[k] - C)
		for i, act := range tr.actions {
			zt := o.z[t*A : (t+1)*A]
			m := math.Inf(-1)
			for _, v := range zt {
				m = max(m, v)
			}
			s := 0.0
			for a, v := range zt {
				p[a] = math.Exp(v - m)
				s += p[a]
			}
			for a := range zt {
				p[a] = e * p[a] / s
			}
			p[act] -= e
			for _, r := range tr.rows[i*M : (i+1)*M] {
				gr := g[int(r)*A : int(r)*A+A]
				for a := range gr {
					gr[a] += p[a]
				}
			}
			t++
		}
	}
	return lse2(logL, math.Log(o.reg(x))), C
}

// A line is the restriction φ(α) = log F(x + α·d) of the objective to a
// line, without clipping to the box, with its per-step sums precomputed
// so that each evaluation costs one pass over the steps.
type line struct {
	o *objective
	// The regulariser is (λ/2)(r0 + 2α·r1 + α²·r2).
	r0, r1, r2 float64
}

// newLine returns the line of o through x in direction d.
func (o *objective) newLine(x, d []float64) *line {
	o.sumRows(x, o.zl)
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
	for i, z := range o.zl {
		o.zs[i] = z + alpha*o.zd[i]
	}
	r := o.lambda / 2 * (l.r0 + 2*alpha*l.r1 + alpha*alpha*l.r2)
	return lse2(o.losses(o.zs), math.Log(max(r, 0)))
}
