package search

import (
	"context"
	"fmt"
	"math"
	"time"
)

// PUCTOptions are the options of PUCT.
type PUCTOptions struct {
	Options
	// C is the exploration constant; 0 means 1.
	C float64
}

// A puctNode is a node of the PUCT tree. The children of a node are
// created together, when it is expanded, and are contiguous in the arena.
type puctNode[S comparable] struct {
	state      S
	parent     int32
	firstChild int32
	// logPrior is log pi(action | parent), as the search uses it.
	logPrior  float32
	nChildren uint8
	action    uint8
	expanded  bool
	// dead marks a node below which no line can go on (no children, or
	// dead children only); selection skips it.
	dead bool
	// visits and costSum are the statistics of the node's simulations:
	// costSum sums estimated costs-to-go from the node.
	visits  int32
	costSum float64
	g       float64
}

// PUCT runs the PUCT algorithm of Silver et al. as used by Orseau & Lelis
// (2021), as their reference implementation did:
//
//   - A simulation descends from the root; at each node it takes the first
//     child, in action order, that was never visited, or else the child of
//     highest c·pi(a|n)·sqrt(N(n))/(1+N(child)) − Q̄(child), where Q̄ is the
//     mean estimated cost-to-go of the child normalised by the smallest and
//     largest such values seen in this search.
//   - Simulations collect up to BatchSize leaves, which are evaluated in one
//     Evaluator call (a leaf reached twice in a batch is evaluated once). On
//     the way down, each node receives a virtual loss: one visit with the
//     largest cost seen so far, taken back when the batch is evaluated.
//   - An evaluated leaf is expanded: its children are generated and tested
//     for the goal; its value, the cost of the path below each node plus
//     h(leaf), is backed up to the root. Repeated states are not pruned.
//
// Expansions count evaluated (expanded) nodes, the root included, and
// Options.Budget bounds them. Lines that cannot go on are marked dead and
// never selected; when the root is dead the search is Exhausted.
func PUCT[S comparable](ctx context.Context, p Problem[S], ev Evaluator[S], opts PUCTOptions) (res Result[S], err error) {
	start := time.Now()
	defer func() { res.Time = time.Since(start) }()
	A, batch, loss, deadline, err := opts.settings(p, start)
	if err != nil {
		return res, err
	}
	c := opts.C
	if c == 0 {
		c = 1
	}

	root := p.Root()
	if p.IsGoal(root) {
		res.Solved = true
		res.Trajectory = &Trajectory[S]{}
		return res, nil
	}
	t := &puctTree[S]{
		nodes:   []puctNode[S]{{state: root, parent: -1, firstChild: -1}},
		minCost: math.Inf(1),
		maxCost: math.Inf(-1),
		logPi:   make([]float64, batch*A),
		h:       make([]float64, batch),
		legal:   make([]bool, A),
		succ:    make([]S, A),
	}
	leaves := []int32{0}
	for {
		// Evaluate and expand the leaves.
		t.states = t.states[:0]
		for _, l := range leaves {
			t.states = append(t.states, t.nodes[l].state)
		}
		if err := ev.Evaluate(p, t.states, t.logPi[:len(leaves)*A], t.h[:len(leaves)]); err != nil {
			return res, fmt.Errorf("search: evaluate: %w", err)
		}
		res.Evaluations += int64(len(leaves))
		for i, l := range leaves {
			res.Expansions++
			goal := t.expand(p, l, t.logPi[i*A:(i+1)*A], opts.Renormalize, loss, &res)
			if goal >= 0 {
				res.Solved = true
				t.solution(goal, &res)
				return res, nil
			}
		}
		for i, l := range leaves {
			t.backup(l, t.h[i])
		}
		if t.nodes[0].dead {
			res.Exhausted = true
			return res, nil
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			res.TimedOut = true
			return res, nil
		}
		k := batch
		if opts.Budget > 0 {
			k = int(min(int64(k), opts.Budget-res.Expansions))
			if k <= 0 {
				return res, nil
			}
		}
		// Select the next batch of leaves.
		leaves = leaves[:0]
		for range k {
			l, ok := t.selectLeaf(c)
			if !ok {
				break
			}
			leaves = append(leaves, l)
		}
		t.clearVirtualLoss()
		if len(leaves) == 0 {
			// Every selection ran into a leaf already in the batch, or
			// everything is dead.
			if t.nodes[0].dead {
				res.Exhausted = true
				return res, nil
			}
			return res, fmt.Errorf("search: puct: no leaf to evaluate")
		}
	}
}

// puctTree is the state of one PUCT search.
type puctTree[S comparable] struct {
	nodes            []puctNode[S]
	minCost, maxCost float64
	// Virtual losses of the batch being selected: the nodes and the cost
	// added to each.
	virtual     []int32
	virtualCost []float64
	states      []S
	logPi, h    []float64
	legal       []bool
	succ        []S
}

// expand generates the children of leaf l with the policy logPi and returns
// the index of a goal child, or -1.
func (t *puctTree[S]) expand(p Problem[S], l int32, logPi []float64, renormalize bool, loss float64, res *Result[S]) int32 {
	n := t.nodes[l]
	logZ := 0.0
	if renormalize {
		logZ = math.Inf(-1)
	}
	for a := range t.legal {
		s, ok := p.Apply(n.state, a)
		t.legal[a], t.succ[a] = ok, s
		if ok && renormalize {
			logZ = logAddExp(logZ, logPi[a])
		}
	}
	first := int32(len(t.nodes))
	goal := int32(-1)
	for a, ok := range t.legal {
		if !ok {
			continue
		}
		res.Generated++
		t.nodes = append(t.nodes, puctNode[S]{
			state: t.succ[a], parent: l, firstChild: -1, action: uint8(a),
			logPrior: float32(logPi[a] - logZ), g: n.g + loss,
		})
		if goal < 0 && p.IsGoal(t.succ[a]) {
			goal = int32(len(t.nodes) - 1)
		}
	}
	nd := &t.nodes[l]
	nd.expanded = true
	nd.firstChild = first
	nd.nChildren = uint8(int32(len(t.nodes)) - first)
	if nd.nChildren == 0 {
		t.markDead(l)
	}
	return goal
}

// markDead marks l dead, and its ancestors whose children are all dead.
func (t *puctTree[S]) markDead(l int32) {
	for l >= 0 {
		t.nodes[l].dead = true
		par := t.nodes[l].parent
		if par < 0 {
			return
		}
		pn := t.nodes[par]
		for i := pn.firstChild; i < pn.firstChild+int32(pn.nChildren); i++ {
			if !t.nodes[i].dead {
				return
			}
		}
		l = par
	}
}

// backup adds the value of leaf l, whose heuristic is h, to its ancestors.
func (t *puctTree[S]) backup(l int32, h float64) {
	h = max(h, 0)
	leafG := t.nodes[l].g
	for i := l; i >= 0; i = t.nodes[i].parent {
		n := &t.nodes[i]
		cost := leafG - n.g + h
		n.visits++
		n.costSum += cost
		if i != 0 {
			q := n.costSum / float64(n.visits)
			t.minCost = min(t.minCost, q)
			t.maxCost = max(t.maxCost, q)
		}
	}
}

// selectLeaf descends from the root to a node that was not evaluated and
// adds virtual losses along the way. It returns false if the descent ends
// at a leaf already selected in this batch, or at a dead root.
func (t *puctTree[S]) selectLeaf(c float64) (int32, bool) {
	i := int32(0)
	for {
		n := &t.nodes[i]
		if n.dead {
			return 0, false
		}
		vl := t.maxCost
		if math.IsInf(vl, -1) {
			vl = 0
		}
		t.virtual = append(t.virtual, i)
		t.virtualCost = append(t.virtualCost, vl)
		n.visits++
		n.costSum += vl
		if !n.expanded {
			// A leaf; a second visit in the same batch finds it with the
			// virtual visit of the first.
			return i, n.visits == 1
		}
		i = t.bestChild(i, c)
	}
}

// bestChild returns the child of n to descend to.
func (t *puctTree[S]) bestChild(n int32, c float64) int32 {
	nd := t.nodes[n]
	lo, hi := nd.firstChild, nd.firstChild+int32(nd.nChildren)
	for i := lo; i < hi; i++ {
		if !t.nodes[i].dead && t.nodes[i].visits == 0 {
			return i
		}
	}
	sqrtN := math.Sqrt(float64(nd.visits))
	spread := t.maxCost - t.minCost
	best, bestScore := int32(-1), math.Inf(-1)
	for i := lo; i < hi; i++ {
		ch := &t.nodes[i]
		if ch.dead {
			continue
		}
		q := 0.0
		if spread > 0 {
			q = (ch.costSum/float64(ch.visits) - t.minCost) / spread
		}
		score := c*math.Exp(float64(ch.logPrior))*sqrtN/(1+float64(ch.visits)) - q
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// clearVirtualLoss takes back the virtual losses of the batch.
func (t *puctTree[S]) clearVirtualLoss() {
	for k, i := range t.virtual {
		t.nodes[i].visits--
		t.nodes[i].costSum -= t.virtualCost[k]
	}
	t.virtual, t.virtualCost = t.virtual[:0], t.virtualCost[:0]
}

// solution fills res with the path from the root to node goal.
func (t *puctTree[S]) solution(goal int32, res *Result[S]) {
	steps := 0
	for i := goal; t.nodes[i].parent >= 0; i = t.nodes[i].parent {
		steps++
	}
	tr := &Trajectory[S]{
		States:     make([]S, steps),
		Actions:    make([]int, steps),
		LogPi:      make([]float64, steps),
		Expansions: res.Expansions,
	}
	j := steps - 1
	for i := goal; t.nodes[i].parent >= 0; i = t.nodes[i].parent {
		n := t.nodes[i]
		tr.States[j], tr.Actions[j], tr.LogPi[j] = t.nodes[n.parent].state, int(n.action), float64(n.logPrior)
		j--
	}
	res.Cost = t.nodes[goal].g
	res.Actions = tr.Actions
	res.Trajectory = tr
}
