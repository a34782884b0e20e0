package search

import (
	"fmt"
	"math"
	"unsafe"
)

// puctCheckEvery is the number of expansions between two looks at the
// context and the clock.
const puctCheckEvery = 256

// A puctNode is a node of the PUCT tree, stored in an arena. The children of
// a node are created together when it is expanded and lie contiguously in
// the arena, in action order.
type puctNode[S comparable] struct {
	// sum is the sum of the values backed up through the node: the
	// heuristic values of the evaluated nodes of its subtree, itself
	// included.
	sum float64
	// parent is the index of the parent, -1 for the root; first is the
	// index of the first child, -1 while the node is not expanded.
	parent, first int32
	// visits counts the values in sum; virtual counts the virtual losses
	// the batch being selected put on the node.
	visits, virtual int32
	// prior is pi(action | parent), logPrior its logarithm, as the search
	// uses them.
	prior, logPrior float32
	state           S
	nChildren       uint8
	action          uint8
	// dead marks a node below which no path can go on: expanded with no
	// children, or with dead children only. Selection never enters it.
	dead bool
}

// search runs PUCT with exploration constant c on p with ev, within opts
// and lim, as PUCT describes, and fills res.
func (t *puctTree[S]) search(p Problem[S], ev Evaluator[S], c float64, opts *Options, lim *limits, res *Result[S]) error {
	root := p.Root()
	if p.IsGoal(root) {
		res.Solved = true
		res.Trajectory = &Trajectory[S]{NodeLoss: opts.NodeLoss}
		return nil
	}
	t.reset(root, p.NumActions(), opts.BatchSize)
	t.leaves = append(t.leaves, 0)
	edge, _ := ev.(EdgeEvaluator[S])
	maxNodes := lim.maxNodes(int(unsafe.Sizeof(puctNode[S]{})))
	nextCheck := int64(0)
	for {
		if err := t.evaluate(p, ev, edge, opts, res); err != nil {
			return err
		}
		if t.nodes[0].dead {
			res.Exhausted = true
			return nil
		}
		if lim.spent(res.Expansions) {
			return nil
		}
		if res.Expansions >= nextCheck {
			nextCheck = res.Expansions + puctCheckEvery
			timedOut, err := lim.check(res.Expansions)
			if err != nil || timedOut {
				res.TimedOut = timedOut
				return err
			}
		}
		k := opts.BatchSize
		if lim.budget > 0 {
			k = int(min(int64(k), lim.budget-res.Expansions))
		}
		if len(t.nodes)+k*t.A > maxNodes {
			res.OutOfMemory = true
			return nil
		}
		if goal := t.selectBatch(p, k, c); goal >= 0 {
			res.Solved = true
			t.solution(goal, opts.NodeLoss, res)
			return nil
		}
	}
}

// puctTree is the state of one PUCT search.
type puctTree[S comparable] struct {
	nodes []puctNode[S]
	A     int
	// lo and hi are the smallest and largest heuristic values of the
	// evaluated nodes below the root; seen tells whether there was any.
	lo, hi float64
	seen   bool
	// leaves is the batch to evaluate; touched lists the nodes that carry
	// virtual losses, and lossValue is the value of one virtual loss.
	leaves    []int32
	touched   []int32
	lossValue float64
	// Buffers of the evaluation and the expansion.
	states, parents []S
	actions         []int
	logPi, h        []float64
	legal           []bool
	succ            []S
}

// reset empties the tree but for root and sizes its buffers.
func (t *puctTree[S]) reset(root S, A, batch int) {
	t.A = A
	t.lo, t.hi, t.seen = 0, 0, false
	if t.nodes == nil {
		t.nodes = make([]puctNode[S], 0, 1<<12)
	}
	t.nodes = append(t.nodes[:0], puctNode[S]{state: root, parent: -1, first: -1})
	t.leaves, t.touched = t.leaves[:0], t.touched[:0]
	if len(t.h) < batch || len(t.logPi) < batch*A {
		t.logPi = make([]float64, batch*A)
		t.h = make([]float64, batch)
	}
	if len(t.legal) != A {
		t.legal = make([]bool, A)
		t.succ = make([]S, A)
	}
}

// evaluate evaluates the leaves of the batch (with edge, ev's
// EdgeEvaluator if it is one), takes back the virtual losses, expands the
// leaves and backs their values up.
func (t *puctTree[S]) evaluate(p Problem[S], ev Evaluator[S], edge EdgeEvaluator[S], opts *Options, res *Result[S]) error {
	A, k := t.A, len(t.leaves)
	t.states = t.states[:0]
	for _, l := range t.leaves {
		t.states = append(t.states, t.nodes[l].state)
	}
	logPi, h := t.logPi[:k*A], t.h[:k]
	var err error
	if edge != nil {
		t.parents, t.actions = t.parents[:0], t.actions[:0]
		for _, l := range t.leaves {
			n := &t.nodes[l]
			parent, a := n.state, -1
			if n.parent >= 0 {
				parent, a = t.nodes[n.parent].state, int(n.action)
			}
			t.parents, t.actions = append(t.parents, parent), append(t.actions, a)
		}
		err = edge.EvaluateEdges(p, t.parents, t.actions, t.states, logPi, h)
	} else {
		err = ev.Evaluate(p, t.states, logPi, h)
	}
	if err != nil {
		return fmt.Errorf("search: puct: evaluate: %w", err)
	}
	opts.shapePolicy(logPi, A)
	res.Evaluations += int64(k)
	for _, i := range t.touched {
		t.nodes[i].virtual = 0
	}
	t.touched = t.touched[:0]
	for j, l := range t.leaves {
		if err := t.expand(p, l, logPi[j*A:(j+1)*A], opts.Renormalize, res); err != nil {
			return err
		}
		if l == 0 {
			continue // the root's value is never used
		}
		v := h[j]
		for i := l; i > 0; i = t.nodes[i].parent {
			n := &t.nodes[i]
			n.visits++
			n.sum += v
		}
		if !t.seen {
			t.lo, t.hi, t.seen = v, v, true
		}
		t.lo, t.hi = min(t.lo, v), max(t.hi, v)
	}
	return nil
}

// expand generates the children of leaf l, whose policy is logPi.
func (t *puctTree[S]) expand(p Problem[S], l int32, logPi []float64, renormalize bool, res *Result[S]) error {
	if len(t.nodes) > math.MaxInt32-t.A {
		return fmt.Errorf("search: puct: more than %d nodes", math.MaxInt32-t.A)
	}
	res.Expansions++
	if len(t.nodes)+t.A > cap(t.nodes) {
		// Double the arena: append grows large slices by less.
		grown := make([]puctNode[S], len(t.nodes), 2*cap(t.nodes)+t.A)
		copy(grown, t.nodes)
		t.nodes = grown
	}
	state := t.nodes[l].state
	maxLog := math.Inf(-1)
	for a := range t.A {
		t.succ[a], t.legal[a] = p.Apply(state, a)
		if t.legal[a] {
			maxLog = max(maxLog, logPi[a])
		}
	}
	logZ := 0.0
	if renormalize && !math.IsInf(maxLog, 0) {
		sum := 0.0
		for a, ok := range t.legal {
			if ok {
				sum += math.Exp(logPi[a] - maxLog)
			}
		}
		logZ = maxLog + math.Log(sum)
	}
	first := int32(len(t.nodes))
	for a, ok := range t.legal {
		if !ok {
			continue
		}
		lp := logPi[a] - logZ
		t.nodes = append(t.nodes, puctNode[S]{
			state: t.succ[a], parent: l, first: -1, action: uint8(a),
			prior: float32(math.Exp(lp)), logPrior: float32(lp),
		})
	}
	n := &t.nodes[l]
	n.first = first
	n.nChildren = uint8(int32(len(t.nodes)) - first)
	res.Generated += int64(n.nChildren)
	if n.nChildren == 0 {
		t.markDead(l)
	}
	return nil
}

// markDead marks l dead, and every ancestor whose children are then all
// dead.
func (t *puctTree[S]) markDead(l int32) {
	for l >= 0 {
		t.nodes[l].dead = true
		par := t.nodes[l].parent
		if par < 0 {
			return
		}
		pn := &t.nodes[par]
		for i := pn.first; i < pn.first+int32(pn.nChildren); i++ {
			if !t.nodes[i].dead {
				return
			}
		}
		l = par
	}
}

// selectBatch fills t.leaves with up to k distinct leaves for evaluation,
// stopping after k descents that end at a leaf already in the batch. It
// returns the index of a goal node a descent reached, or -1.
func (t *puctTree[S]) selectBatch(p Problem[S], k int, c float64) int32 {
	t.leaves = t.leaves[:0]
	t.lossValue = 0
	if t.seen {
		t.lossValue = t.hi
	}
	for failed := 0; len(t.leaves) < k && failed < k; {
		i := int32(0)
		for t.nodes[i].first >= 0 {
			i = t.bestChild(i, c)
			n := &t.nodes[i]
			if n.virtual == 0 {
				t.touched = append(t.touched, i)
			}
			n.virtual++
		}
		if t.nodes[i].virtual > 1 {
			failed++
			continue
		}
		if p.IsGoal(t.nodes[i].state) {
			return i
		}
		t.leaves = append(t.leaves, i)
	}
	return -1
}

// bestChild returns the child of the expanded, live node n that a descent
// takes.
func (t *puctTree[S]) bestChild(n int32, c float64) int32 {
	nd := &t.nodes[n]
	lo, hi := nd.first, nd.first+int32(nd.nChildren)
	total := int32(0)
	for i := lo; i < hi; i++ {
		ch := &t.nodes[i]
		v := ch.visits + ch.virtual
		if v == 0 && !ch.dead {
			return i
		}
		total += v
	}
	cSqrt := c * math.Sqrt(float64(total))
	spread := t.hi - t.lo
	best, bestScore := int32(-1), math.Inf(1)
	for i := lo; i < hi; i++ {
		ch := &t.nodes[i]
		if ch.dead {
			continue
		}
		v := float64(ch.visits + ch.virtual)
		q := 0.0
		if spread > 0 {
			mean := (ch.sum + float64(ch.virtual)*t.lossValue) / v
			q = (mean - t.lo) / spread
		}
		score := q - cSqrt*float64(ch.prior)/(1+v)
		if best < 0 || score < bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// solution fills res with the path from the root to node goal.
func (t *puctTree[S]) solution(goal int32, loss float64, res *Result[S]) {
	steps := 0
	for i := goal; t.nodes[i].parent >= 0; i = t.nodes[i].parent {
		steps++
	}
	tr := &Trajectory[S]{
		States:     make([]S, steps),
		Actions:    make([]int, steps),
		LogPi:      make([]float64, steps),
		Expansions: res.Expansions,
		NodeLoss:   loss,
	}
	j := steps - 1
	for i := goal; t.nodes[i].parent >= 0; i = t.nodes[i].parent {
		n := &t.nodes[i]
		tr.States[j] = t.nodes[n.parent].state
		tr.Actions[j] = int(n.action)
		tr.LogPi[j] = float64(n.logPrior)
		j--
	}
	res.Cost = float64(steps) * loss
	res.Actions = tr.Actions
	res.Trajectory = tr
}
