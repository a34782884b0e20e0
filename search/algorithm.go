package search

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// An Algorithm is a best-first search algorithm: the evaluation function
// that orders the open list of the engine, over the path cost g, the log
// path probability logPi and the heuristic h of a node. Lower values are
// expanded first; ties go to the larger g, then to the node generated
// first.
//
// The zero Algorithm is not valid: use one of the functions below.
type Algorithm struct {
	// Name is the algorithm's name, as ParseAlgorithm takes it: "phsstar",
	// "phsh", "levints", "astar", "wastar", "gbfs" or "phssafe".
	Name string
	kind algKind
	w    float64
}

type algKind uint8

const (
	phsh algKind = iota + 1
	phsStar
	levinTS
	aStar
	gbfs
	phsSafe
)

// PHSh is PHS with the evaluation function phi(n) = (g(n)+h(n))/pi(n).
func PHSh() Algorithm { return Algorithm{Name: "phsh", kind: phsh} }

// PHSStar is PHS* with phi(n) = (g(n)+h(n))/pi(n)^(1+h(n)/g(n)).
func PHSStar() Algorithm { return Algorithm{Name: "phsstar", kind: phsStar} }

// LevinTS is Levin tree search, phi(n) = g(n)/pi(n).
func LevinTS() Algorithm { return Algorithm{Name: "levints", kind: levinTS} }

// AStar is A*, f(n) = g(n)+h(n).
func AStar() Algorithm { return Algorithm{Name: "astar", kind: aStar, w: 1} }

// WAStar is weighted A*, f(n) = g(n)+w·h(n).
func WAStar(w float64) Algorithm { return Algorithm{Name: "wastar", kind: aStar, w: w} }

// GBFS is greedy best-first search, f(n) = h(n).
func GBFS() Algorithm { return Algorithm{Name: "gbfs", kind: gbfs} }

// PHSSafe is PHS_h run with the safe state pruning of the paper's appendix
// (Algorithm "PHS with safe state pruning") in place of the duplicate
// detection of the other algorithms. Nodes of a state already seen are not
// dropped when generated; instead, for each state the engine remembers
// log(g/pi) and log pi of the last node of that state it expanded whose pi
// was at least that of the node remembered before (the appendix's update
// rule). A node taken from the open list is pruned, without counting as an
// expansion, if the remembered node has a g/pi no larger and a pi no smaller
// than its own. A generated child is dropped by the same test before it is
// evaluated; the appendix's lemma allows this too, since the remembered
// node was expanded before the child could be taken from the open list.
//
// The appendix compares phi = eta·g/pi, assuming that the heuristic factor
// eta depends on the state alone; then comparing phi is comparing g/pi. For
// PHS_h, eta = 1+h/g depends on g; comparing g/pi and pi keeps the pruning
// safe for any heuristic h >= 0: (g1+x)/pi1 <= (g2+x)/pi2 for every x >= 0.
// So the search returns a goal of least max-over-the-path phi among all the
// paths to goals, with the paper's bound, when it tests the goal at
// expansion (Options.GoalAtExpansion: the appendix's algorithm exactly) and
// evaluates one node at a time (Options.BatchSize 1), and provided that the
// policy and h depend on the state alone, as with any Evaluator. With the
// other options it behaves as the other algorithms do.
func PHSSafe() Algorithm { return Algorithm{Name: "phssafe", kind: phsSafe} }

// ErrUnknownAlgorithm is the error of ParseAlgorithm for a name it does not
// know.
var ErrUnknownAlgorithm = errors.New("unknown algorithm")

// ParseAlgorithm returns the algorithm called name: phsstar, phsh, levints,
// astar, wastar (with weight w), gbfs or phssafe. It also takes the usual
// spellings phs*, phs_star, phs_h, a* and wa*, in any case.
func ParseAlgorithm(name string, w float64) (Algorithm, error) {
	switch strings.ToLower(name) {
	case "phsstar", "phs*", "phs_star":
		return PHSStar(), nil
	case "phsh", "phs_h":
		return PHSh(), nil
	case "levints":
		return LevinTS(), nil
	case "astar", "a*":
		return AStar(), nil
	case "wastar", "wa*":
		if w < 0 || math.IsNaN(w) {
			return Algorithm{}, fmt.Errorf("search: wastar: bad weight %g", w)
		}
		return WAStar(w), nil
	case "gbfs":
		return GBFS(), nil
	case "phssafe":
		return PHSSafe(), nil
	}
	return Algorithm{}, fmt.Errorf("search: %w %q", ErrUnknownAlgorithm, name)
}

// String returns the algorithm's name.
func (a Algorithm) String() string { return a.Name }

// NeedsPolicy reports whether the algorithm reads the policy.
func (a Algorithm) NeedsPolicy() bool {
	return a.kind == phsh || a.kind == phsStar || a.kind == levinTS || a.kind == phsSafe
}

// NeedsHeuristic reports whether the algorithm reads the heuristic.
func (a Algorithm) NeedsHeuristic() bool { return a.kind != levinTS }

// Priority returns the algorithm's evaluation of a node of path cost g,
// log-probability logPi and heuristic value h; the engine expands the node
// of least priority first. For the policy-guided algorithms it is log phi:
// log((g+h)/pi) for PHS_h and PHSSafe, log((g+h)/pi^(1+h/g)) for PHS*
// (-Inf for the root, g = 0), log(g/pi) for LevinTS; they clip h at 0. For
// A* it is g+h, for WA* g+w·h, for GBFS h. NaN, such as PHS* gives for
// pi = 1 and h = +Inf, is +Inf.
func (a Algorithm) Priority(g, logPi, h float64) float64 {
	p := a.priority(g, logPi, h)
	if p != p {
		return math.Inf(1)
	}
	return p
}

func (a Algorithm) priority(g, logPi, h float64) float64 {
	switch a.kind {
	case phsh, phsSafe:
		return math.Log(g+max(h, 0)) - logPi
	case phsStar:
		h = max(h, 0)
		if g == 0 {
			return math.Inf(-1) // the root
		}
		return math.Log(g+h) - (1+h/g)*logPi
	case levinTS:
		return math.Log(g) - logPi
	case aStar:
		return g + a.w*h
	default: // gbfs
		return h
	}
}
