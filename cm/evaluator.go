package cm

import (
	"fmt"
	"math"

	"github.com/phs-go/phs/search"
)

// DefaultTrainMix is the reference's weight of the uniform policy in the
// policy of its training searches (search.Options.Mix); its tests use 0.
const DefaultTrainMix = 0.001

// An Evaluator is the policy of a context model, a search.EdgeEvaluator with
// h = 0 for LevinTS: for each state, the product of the experts of its
// known contexts, π(a|s) ∝ exp(Σ_c β[c][a]) over the contexts c of s that
// the table knows (unknown ones are skipped; with none known, the policy
// is uniform). (search.Options.Mix mixes it with the uniform policy.)
//
// It owns its scratch memory: give each goroutine its own Evaluator; they
// may share the Table, which nobody must change meanwhile. After its
// first call, Evaluate allocates nothing.
type Evaluator[S comparable] struct {
	t     *Table
	mix   float64 // a Snapshot's (Learner.legacyMix)
	codes []uint64
	z     []float64
	roots []int // −1s: the actions of Evaluate
}

// NewEvaluator returns an Evaluator of t.
func NewEvaluator[S comparable](t *Table) *Evaluator[S] { return &Evaluator[S]{t: t} }

// Check returns an error unless p is a Contexter of the table's layout.
func (e *Evaluator[S]) Check(p search.Problem[S]) error {
	l, err := LayoutOf(p)
	if err != nil {
		return err
	}
	return e.t.layout.match(l)
}

// Evaluate evaluates each state as if it were the root, by
// EvaluateEdges with no incoming action: the searches call EvaluateEdges
// instead.
func (e *Evaluator[S]) Evaluate(p search.Problem[S], states []S, logPi, h []float64) error {
	for len(e.roots) < len(states) {
		e.roots = append(e.roots, -1)
	}
	return e.EvaluateEdges(p, states, e.roots[:len(states)], states, logPi, h)
}

// EvaluateEdges writes the log-policy of each state, reached from
// parents[i] by actions[i] (−1 for the root), to logPi and 0 to h. p
// must pass Check; EvaluateEdges checks only that it is a Contexter with
// the table's number of actions. An empty table gives the uniform policy
// without computing any context.
func (e *Evaluator[S]) EvaluateEdges(p search.Problem[S], parents []S, actions []int, states []S, logPi, h []float64) error {
	A := e.t.layout.Actions
	if p.NumActions() != A {
		return fmt.Errorf("cm: the model has %d actions, the problem %d", A, p.NumActions())
	}
	clear(h[:len(states)])
	if e.t.Rows() == 0 {
		u := -math.Log(float64(A))
		for i := range logPi[:len(states)*A] {
			logPi[i] = u
		}
		return nil
	}
	cp, ok := p.(Contexter[S])
	if !ok {
		return fmt.Errorf("cm: the problem has no contexts (no ContextLayout and Contexts methods)")
	}
	if e.codes == nil {
		e.codes = make([]uint64, len(e.t.layout.Sizes))
		e.z = make([]float64, A)
	}
	for i, s := range states {
		cp.Contexts(parents[i], actions[i], s, e.codes)
		e.t.logPolicy(e.codes, e.mix, e.z, logPi[i*A:(i+1)*A])
	}
	return nil
}
