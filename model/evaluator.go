package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/phs-go/phs/search"
)

// An Evaluator gives a search the policy and heuristic of a Model, a batch
// of states per network pass. It owns its scratch memory: give each
// goroutine its own Evaluator; they may share the Model.
type Evaluator[S comparable] struct {
	m  *Model
	ws workspace
	in []float32
}

// NewEvaluator returns an Evaluator of m.
func NewEvaluator[S comparable](m *Model) *Evaluator[S] { return &Evaluator[S]{m: m} }

var errNoEncoder = errors.New("model: the problem has no network encoding")

// Evaluate encodes the states with p, which must be a search.Encoder[S] of
// the model's input shape, and runs the network on them. A network without
// a policy gives a uniform one; one without a heuristic gives 0.
func (e *Evaluator[S]) Evaluate(p search.Problem[S], states []S, logPi, h []float64) error {
	enc, ok := p.(search.Encoder[S])
	if !ok {
		return errNoEncoder
	}
	cfg := &e.m.cfg
	c, hh, w := enc.InputShape()
	if c != cfg.Channels || hh != cfg.Height || w != cfg.Width {
		return e.m.Check(cfg.Domain, c, hh, w)
	}
	A := p.NumActions()
	if A != cfg.Actions {
		return fmt.Errorf("model: the problem has %d actions, the model %d", A, cfg.Actions)
	}
	n := len(states)
	size := c * hh * w
	if len(e.in) < n*size {
		e.in = make([]float32, max(n, 32)*size)
	}
	for i, s := range states {
		enc.Encode(s, e.in[i*size:(i+1)*size])
	}
	e.m.forward(&e.ws, e.in[:n*size], n)
	if cfg.Heads&Policy != 0 {
		for i, v := range e.ws.logits[:n*A] {
			logPi[i] = float64(v)
		}
	} else {
		u := -math.Log(float64(A))
		for i := range logPi[:n*A] {
			logPi[i] = u
		}
	}
	if cfg.Heads&Heuristic != 0 {
		for i, v := range e.ws.hout[:n] {
			h[i] = float64(v)
		}
	} else {
		clear(h[:n])
	}
	return nil
}
