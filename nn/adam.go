package nn

import "math"

// Adam is the Adam optimiser with the Keras defaults, and optional L2
// regularisation: with L2 = λ > 0, the loss gains λ·Σw² over the
// parameters marked Decay (the weights, not the biases), so their gradients
// gain 2λw before the step.
type Adam struct {
	LR, Beta1, Beta2, Eps, L2 float64
	// T counts the steps taken.
	T      int
	Params []*Param
	// M and V are the moment estimates, one slice per parameter.
	M, V [][]float32
}

// NewAdam returns Adam over params with learning rate lr (0 means 1e-4),
// β1 0.9, β2 0.999, ε 1e-7 and L2 weight l2.
func NewAdam(params []*Param, lr, l2 float64) *Adam {
	if lr == 0 {
		lr = 1e-4
	}
	a := &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-7, L2: l2, Params: params}
	for _, p := range params {
		a.M = append(a.M, make([]float32, len(p.Data)))
		a.V = append(a.V, make([]float32, len(p.Data)))
	}
	return a
}

// Step updates the parameters from their gradients and clears the
// gradients. It runs in AVX2 assembly on amd64 CPUs that have it, with the
// same values as the pure Go loop.
func (a *Adam) Step() {
	a.T++
	lr := a.LR * math.Sqrt(1-math.Pow(a.Beta2, float64(a.T))) / (1 - math.Pow(a.Beta1, float64(a.T)))
	b1, b2 := float32(a.Beta1), float32(a.Beta2)
	k := adamConsts{b1: b1, c1: 1 - b1, b2: b2, c2: 1 - b2, step: float32(lr), eps: float32(a.Eps)}
	for i, p := range a.Params {
		w := p.Data
		k.decay = 0
		if p.Decay {
			k.decay = float32(2 * a.L2)
		}
		adamUpdate(w, p.Grad[:len(w)], a.M[i][:len(w)], a.V[i][:len(w)], &k)
	}
}

// adamConsts are the constants of a step (the field order is the
// assembly's).
type adamConsts struct {
	decay, b1, c1, b2, c2, step, eps float32
}

// adamGo updates the weights w, with gradients g and moments m and v, all
// of the same length, and clears g. It computes in float32 throughout, as
// Keras keeps its variables, but for the square root (the same value as a
// float32 square root).
func adamGo(w, g, m, v []float32, k *adamConsts) {
	g, m, v = g[:len(w)], m[:len(w)], v[:len(w)]
	for j := range w {
		gj := g[j] + k.decay*w[j]
		mj := k.b1*m[j] + k.c1*gj
		vj := k.b2*v[j] + k.c2*gj*gj
		m[j], v[j] = mj, vj
		w[j] -= k.step * mj / (float32(math.Sqrt(float64(vj))) + k.eps)
		g[j] = 0
	}
}

// L2Penalty returns λ·Σw² over the parameters marked Decay.
func (a *Adam) L2Penalty() float64 {
	var s float64
	for _, p := range a.Params {
		if p.Decay {
			for _, w := range p.Data {
				s += float64(w) * float64(w)
			}
		}
	}
	return a.L2 * s
}
