package search_test

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// This file checks the engine against the paper's theory, with values
// computed here independently of the engine: phi in plain arithmetic,
// phi+(n) the largest phi on the path to n, and the bounds of the paper's
// theorems over explicitly enumerated trees.

// mix is a hash for deterministic pseudo-random policies and heuristics.
func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// unit returns a number in [0, 1) drawn from x.
func unit(x uint64) float64 { return float64(mix(x)>>11) / (1 << 53) }

// logPhi returns log phi of a node for the policy-guided algorithms,
// computed in plain space from its definition.
func logPhi(alg string, g, logPi, h float64) float64 {
	h = max(h, 0)
	pi := math.Exp(logPi)
	switch alg {
	case "levints":
		return math.Log(g / pi)
	case "phsh", "phssafe":
		return math.Log((g + h) / pi)
	case "phsstar":
		if g == 0 {
			return math.Inf(-1)
		}
		return math.Log((g + h) / math.Pow(pi, 1+h/g))
	}
	panic(alg)
}

// A randTree is a finite tree of branching B and depth D whose nodes are
// their paths, with a pseudo-random policy, heuristic and goal set drawn
// from Seed. Goals are at depth 1 or more.
type randTree struct {
	B, D     int
	Seed     uint64
	GoalRate float64
	// Sharp scales the logits of the policy.
	Sharp float64
}

type treeNode struct {
	id    uint64 // the path: digits in base B, with a leading 1
	depth int
}

func (t randTree) Root() treeNode  { return treeNode{id: 1} }
func (t randTree) NumActions() int { return t.B }
func (t randTree) IsGoal(n treeNode) bool {
	return n.depth > 0 && unit(n.id^t.Seed^0x600d) < t.GoalRate
}
func (t randTree) Apply(n treeNode, a int) (treeNode, bool) {
	if n.depth == t.D {
		return treeNode{}, false
	}
	return treeNode{n.id*uint64(t.B) + uint64(a), n.depth + 1}, true
}

// policy writes the log-policy of node id to dst.
func (t randTree) policy(id uint64, dst []float64) {
	z := 0.0
	for a := range dst {
		dst[a] = t.Sharp * unit(id^t.Seed^uint64(a+1)<<56)
		z += math.Exp(dst[a])
	}
	for a := range dst {
		dst[a] -= math.Log(z)
	}
}

// heuristic is a pseudo-random value in [-1, 6): negative values test the
// clipping.
func (t randTree) heuristic(id uint64) float64 { return 7*unit(id^t.Seed^0x4e4e) - 1 }

func (t randTree) Evaluate(p search.Problem[treeNode], states []treeNode, logPi, h []float64) error {
	for i, s := range states {
		t.policy(s.id, logPi[i*t.B:(i+1)*t.B])
		h[i] = t.heuristic(s.id)
	}
	return nil
}

// enumerated is a tree node with its values.
type enumerated struct {
	g, logPi, phiPlus float64
	goal, belowGoal   bool // belowGoal: a proper ancestor is a goal
	parentPhiPlus     float64
	children          []int // indices in the enumeration
}

// enumerate lists every node of t with its g, pi and phi+ under alg.
func (t randTree) enumerate(alg string, loss float64) []enumerated {
	var out []enumerated
	pol := make([]float64, t.B)
	var walk func(n treeNode, g, logPi, phiPlus float64, belowGoal bool) int
	walk = func(n treeNode, g, logPi, parentPhiPlus float64, belowGoal bool) int {
		phiPlus := max(parentPhiPlus, logPhi(alg, g, logPi, t.heuristic(n.id)))
		goal := t.IsGoal(n)
		i := len(out)
		out = append(out, enumerated{g: g, logPi: logPi, phiPlus: phiPlus, goal: goal, belowGoal: belowGoal, parentPhiPlus: parentPhiPlus})
		if n.depth == t.D {
			return i
		}
		t.policy(n.id, pol)
		lp := append([]float64(nil), pol...)
		for a := range t.B {
			c, _ := t.Apply(n, a)
			j := walk(c, g+loss, logPi+lp[a], phiPlus, belowGoal || goal)
			out[i].children = append(out[i].children, j)
		}
		return i
	}
	walk(t.Root(), 0, 0, math.Inf(-1), false)
	return out
}

// pathPhiPlus returns phi+ of the node reached by actions in t.
func (t randTree) pathPhiPlus(alg string, loss float64, actions []int) float64 {
	pol := make([]float64, t.B)
	n := t.Root()
	g, logPi := 0.0, 0.0
	phiPlus := logPhi(alg, g, logPi, t.heuristic(n.id))
	for _, a := range actions {
		t.policy(n.id, pol)
		n, _ = t.Apply(n, a)
		g, logPi = g+loss, logPi+pol[a]
		phiPlus = max(phiPlus, logPhi(alg, g, logPi, t.heuristic(n.id)))
	}
	return phiPlus
}

const tol = 1e-9

// TestPHSTheorems checks, on random trees with one node evaluated at a
// time, that PHS_h, PHS* and LevinTS testing the goal at expansion return
// a goal of least phi+ (Theorem "PHS upper bound") within the theorem's
// bound on the search loss, g(n*)/pi(n*) for LevinTS (Corollary), and
// that with the goal tested at generation they expand no node of phi+
// above that of the parent of some goal.
func TestPHSTheorems(t *testing.T) {
	for seed := range uint64(40) {
		tree := randTree{B: 2 + int(seed%3), D: 8 - 2*int(seed%3), Seed: mix(seed + 1), GoalRate: 0.005 + 0.05*unit(seed), Sharp: 4 * unit(seed^7)}
		for _, alg := range []search.Algorithm{search.LevinTS(), search.PHSh(), search.PHSStar(), search.PHSSafe()} {
			for _, loss := range []float64{1, 0.5} {
				nodes := tree.enumerate(alg.String(), loss)
				minGoal, minParent := math.Inf(1), math.Inf(1)
				for _, n := range nodes {
					if n.goal && !n.belowGoal {
						minGoal = min(minGoal, n.phiPlus)
						minParent = min(minParent, n.parentPhiPlus)
					}
				}
				name := fmt.Sprintf("seed %d %v loss %g", seed, alg, loss)

				// Goal at expansion: Algorithm 1.
				res, err := searchtest.Solve[treeNode](context.Background(), tree, tree, alg,
					search.Options{BatchSize: 1, GoalTest: search.GoalTestExpansion, NodeLoss: loss})
				if err != nil {
					t.Fatal(err)
				}
				if math.IsInf(minGoal, 1) {
					if res.Solved || !res.Exhausted {
						t.Errorf("%s: no goal, but solved %v exhausted %v", name, res.Solved, res.Exhausted)
					}
					continue
				}
				if !res.Solved {
					t.Fatalf("%s: not solved", name)
				}
				if err := search.Replay[treeNode](tree, res.Actions); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got := tree.pathPhiPlus(alg.String(), loss, res.Actions)
				if got > minGoal+tol {
					t.Errorf("%s: found a goal of phi+ %g, least is %g", name, got, minGoal)
				}
				// Theorem: the search loss is at most the loss of the
				// nodes of phi+ <= phi+(n*), which is at most
				// phi+(n*)·sum over the leaves of that set of g/phi+.
				var inSet int
				var sum float64
				for i, n := range nodes {
					if n.phiPlus > minGoal+tol {
						continue
					}
					inSet++
					if isLeaf(nodes, i, minGoal) {
						sum += n.g / math.Exp(n.phiPlus)
					}
				}
				searchLoss := float64(res.Expansions) * loss // the root's loss is 0, the goal's L
				if res.Expansions > int64(inSet-1) {
					t.Errorf("%s: %d expansions, %d nodes have phi+ <= phi+(n*)", name, res.Expansions, inSet)
				}
				if bound := math.Exp(minGoal) * sum; searchLoss > bound*(1+tol) {
					t.Errorf("%s: search loss %g above the theorem's bound %g", name, searchLoss, bound)
				}
				if alg == search.LevinTS() {
					goal := nodes[0]
					for _, n := range nodes {
						if n.goal && !n.belowGoal && math.Abs(n.phiPlus-minGoal) <= tol {
							goal = n
						}
					}
					if bound := goal.g / math.Exp(goal.logPi); searchLoss > bound*(1+tol) {
						t.Errorf("%s: search loss %g above g/pi = %g", name, searchLoss, bound)
					}
				}

				// Goal at generation: the search ends at the latest when
				// it expands the parent of a goal.
				res, err = searchtest.Solve[treeNode](context.Background(), tree, tree, alg,
					search.Options{BatchSize: 1, NodeLoss: loss})
				if err != nil || !res.Solved {
					t.Fatalf("%s, goal at generation: %v %v", name, res.Solved, err)
				}
				if err := search.Replay[treeNode](tree, res.Actions); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				inSet = 0
				for _, n := range nodes {
					if !n.goal && !n.belowGoal && n.phiPlus <= minParent+tol {
						inSet++
					}
				}
				if res.Expansions > int64(inSet) {
					t.Errorf("%s, goal at generation: %d expansions, %d non-goal nodes have phi+ <= %g", name, res.Expansions, inSet, minParent)
				}
			}
		}
	}
}

// isLeaf reports whether no child of nodes[i] has phi+ <= thr.
func isLeaf(nodes []enumerated, i int, thr float64) bool {
	for _, c := range nodes[i].children {
		if nodes[c].phiPlus <= thr+tol {
			return false
		}
	}
	return true
}

// TestSafePruning checks PHS with safe state pruning on mazes, with a
// pseudo-random policy and an inconsistent heuristic that depend on the
// state alone: it must return a goal node of least phi+ among all the
// paths of the maze (states repeat along paths), and expand no more nodes
// than the paths of phi+ at most that. The references are computed on the
// tree of paths, without any pruning.
func TestSafePruning(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	worse := 0
	defer func() {
		// Make sure that the mazes are hard enough for pruning to matter.
		if worse == 0 {
			t.Error("duplicate detection always found a goal of least phi+")
		}
	}()
	for i := range 60 {
		m, _ := randomMaze(rng, 3+rng.IntN(4), 3+rng.IntN(4))
		ev := mazeGuide{m: m, seed: mix(uint64(i)), sharp: 5}
		for _, loss := range []float64{1, 0.25} {
			name := fmt.Sprintf("maze %d loss %g\n%s", i, loss, m)
			best, count := pathsReference(m, ev, loss)
			res, err := searchtest.Solve[int32](context.Background(), m, ev, search.PHSSafe(),
				search.Options{BatchSize: 1, GoalTest: search.GoalTestExpansion, NodeLoss: loss})
			if err != nil || !res.Solved {
				t.Fatalf("%s: %v %v", name, res.Solved, err)
			}
			if err := search.Replay[int32](m, res.Actions); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got := ev.pathPhiPlus(m, loss, res.Actions)
			if got > best+tol {
				t.Errorf("%s: found a goal of phi+ %g, least is %g", name, got, best)
			}
			if res.Expansions > count(got)-1 {
				t.Errorf("%s: %d expansions, %d paths have phi+ <= %g", name, res.Expansions, count(got), got)
			}
			// Duplicate detection can only do worse.
			dd, err := searchtest.Solve[int32](context.Background(), m, ev, search.PHSh(),
				search.Options{BatchSize: 1, GoalTest: search.GoalTestExpansion, NodeLoss: loss})
			if err != nil || !dd.Solved {
				t.Fatalf("%s: PHS_h: %v %v", name, dd.Solved, err)
			}
			if ev.pathPhiPlus(m, loss, dd.Actions) > best+tol {
				worse++
			}
			if ev.pathPhiPlus(m, loss, dd.Actions) < best-tol {
				t.Errorf("%s: PHS_h beat the least phi+", name)
			}
		}
	}
}

// mazeGuide is an Evaluator for a maze with a pseudo-random policy and
// heuristic of each cell.
type mazeGuide struct {
	m     *searchtest.Maze
	seed  uint64
	sharp float64
}

func (g mazeGuide) policy(s int32, dst []float64) {
	z := 0.0
	for a := range dst {
		dst[a] = g.sharp * unit(uint64(s)^g.seed^uint64(a+1)<<40)
		z += math.Exp(dst[a])
	}
	for a := range dst {
		dst[a] -= math.Log(z)
	}
}

// heuristic is the Manhattan distance times a factor in [0, 2): neither
// admissible nor consistent.
func (g mazeGuide) heuristic(s int32) float64 {
	return g.m.Heuristic(s) * 2 * unit(uint64(s)^g.seed^0xabc)
}

func (g mazeGuide) Evaluate(p search.Problem[int32], states []int32, logPi, h []float64) error {
	for i, s := range states {
		g.policy(s, logPi[i*4:(i+1)*4])
		h[i] = g.heuristic(s)
	}
	return nil
}

func (g mazeGuide) pathPhiPlus(m *searchtest.Maze, loss float64, actions []int) float64 {
	pol := make([]float64, 4)
	s := m.Root()
	gc, logPi := 0.0, 0.0
	phiPlus := logPhi("phsh", gc, logPi, g.heuristic(s))
	for _, a := range actions {
		g.policy(s, pol)
		s, _ = m.Apply(s, a)
		gc, logPi = gc+loss, logPi+pol[a]
		phiPlus = max(phiPlus, logPhi("phsh", gc, logPi, g.heuristic(s)))
	}
	return phiPlus
}

// A pathNode is a node of the tree of paths of a maze.
type pathNode struct {
	cell           int32
	g, logPi, phiP float64
}

type pathQueue []pathNode

func (q pathQueue) Len() int           { return len(q) }
func (q pathQueue) Less(i, j int) bool { return q[i].phiP < q[j].phiP }
func (q pathQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *pathQueue) Push(x any)        { *q = append(*q, x.(pathNode)) }
func (q *pathQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// pathsReference returns the least phi+ (PHS_h) of a goal node of the tree
// of paths of m, paths of any length with repeated cells, and a function
// that counts the nodes of that tree of phi+ at most a threshold.
func pathsReference(m *searchtest.Maze, g mazeGuide, loss float64) (float64, func(float64) int64) {
	root := pathNode{cell: m.Root(), phiP: logPhi("phsh", 0, 0, g.heuristic(m.Root()))}
	q := pathQueue{root}
	pol := make([]float64, 4)
	best := math.Inf(1)
	for q.Len() > 0 {
		n := heap.Pop(&q).(pathNode)
		if m.IsGoal(n.cell) {
			best = n.phiP
			break
		}
		g.policy(n.cell, pol)
		for a := range 4 {
			if c, ok := m.Apply(n.cell, a); ok {
				gc, lp := n.g+loss, n.logPi+pol[a]
				heap.Push(&q, pathNode{c, gc, lp, max(n.phiP, logPhi("phsh", gc, lp, g.heuristic(c)))})
			}
		}
	}
	count := func(thr float64) int64 {
		var k int64
		var walk func(n pathNode)
		walk = func(n pathNode) {
			if n.phiP > thr+tol {
				return
			}
			k++
			if m.IsGoal(n.cell) {
				return // the search stops at a goal
			}
			pol := make([]float64, 4)
			g.policy(n.cell, pol)
			for a := range 4 {
				if c, ok := m.Apply(n.cell, a); ok {
					gc, lp := n.g+loss, n.logPi+pol[a]
					walk(pathNode{c, gc, lp, max(n.phiP, logPhi("phsh", gc, lp, g.heuristic(c)))})
				}
			}
		}
		walk(root)
		return k
	}
	return best, count
}

// A graph is an explicit problem: next[s][a] is the successor of state s
// under action a (-1: illegal), prob[s][a] its probability and h[s] the
// heuristic value of s. It is its own Evaluator.
type graph struct {
	next [][2]int32
	prob [][2]float64
	h    []float64
	goal int32
}

func (g *graph) Root() int32         { return 0 }
func (g *graph) NumActions() int     { return 2 }
func (g *graph) IsGoal(s int32) bool { return s == g.goal }
func (g *graph) Apply(s int32, a int) (int32, bool) {
	t := g.next[s][a]
	return t, t >= 0
}

func (g *graph) Evaluate(p search.Problem[int32], states []int32, logPi, h []float64) error {
	for i, s := range states {
		logPi[2*i], logPi[2*i+1] = math.Log(g.prob[s][0]), math.Log(g.prob[s][1])
		h[i] = g.h[s]
	}
	return nil
}

// TestSafePruningInconsistent checks the case where comparing phi, as the
// appendix's algorithm does, is not safe for PHS_h, whose heuristic factor
// depends on g: state S is reached first by a long, likely path (g = 10,
// pi = 0.5, phi = 30 with h(S) = 5) and then directly (g = 1, pi = 0.1,
// phi = 60). The first node has the smaller phi and the larger pi, but
// through the unlikely edge from S to the goal (probability 0.01, h = 0)
// the second path gives phi+ = 2/0.001 = 2000 against 11/0.005 = 2200.
// Comparing g/pi (20 against 10) keeps the second node.
func TestSafePruningInconsistent(t *testing.T) {
	const (
		root  = 0
		s     = 10
		goal  = 11
		dead  = 12
		chain = 9 // states 1..9
		big   = 1e6
	)
	g := &graph{goal: goal}
	q := math.Pow(0.5/0.9, 1.0/chain) // pi = 0.5 at S through the chain
	add := func(next [2]int32, prob [2]float64, h float64) {
		g.next, g.prob, g.h = append(g.next, next), append(g.prob, prob), append(g.h, h)
	}
	add([2]int32{1, s}, [2]float64{0.9, 0.1}, 0) // the root
	for i := int32(1); i <= chain; i++ {
		next := i + 1
		if i == chain {
			next = s
		}
		add([2]int32{next, dead}, [2]float64{q, 1 - q}, 0)
	}
	add([2]int32{goal, dead}, [2]float64{0.01, 0.99}, 5) // S
	add([2]int32{-1, -1}, [2]float64{0.5, 0.5}, 0)       // the goal
	add([2]int32{-1, -1}, [2]float64{0.5, 0.5}, big)     // a dead end

	res, err := searchtest.Solve[int32](context.Background(), g, g, search.PHSSafe(),
		search.Options{BatchSize: 1, GoalTest: search.GoalTestExpansion})
	if err != nil || !res.Solved {
		t.Fatal(res, err)
	}
	if len(res.Actions) != 2 || res.Actions[0] != 1 || res.Actions[1] != 0 {
		t.Errorf("solution %v, want [1 0] through the direct edge to S", res.Actions)
	}
}
