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
// gradients.
func (a *Adam) Step() {
	a.T++
	lr := a.LR * math.Sqrt(1-math.Pow(a.Beta2, float64(a.T))) / (1 - math.Pow(a.Beta1, float64(a.T)))
	b1, b2 := float32(a.Beta1), float32(a.Beta2)
	c1, c2 := 1-b1, 1-b2
	step, eps := float32(lr), float32(a.Eps)
	for i, p := range a.Params {
		w := p.Data
		g := p.Grad[:len(w)]
		m, v := a.M[i][:len(w)], a.V[i][:len(w)]
		decay := float32(0)
		if p.Decay {
			decay = float32(2 * a.L2)
		}
		// float32 throughout, as Keras keeps its variables, but for the
		// square root.
		for j := range w {
			gj := g[j] + decay*w[j]
			mj := b1*m[j] + c1*gj
			vj := b2*v[j] + c2*gj*gj
			m[j], v[j] = mj, vj
			w[j] -= step * mj / (float32(math.Sqrt(float64(vj))) + eps)
		}
		p.ZeroGrad()
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
