package search

import (
	"fmt"
	"math"
	"strings"
)

// An Algorithm is a best-first search algorithm: the evaluation function
// that orders the open list of the engine, over the path cost g, the log
// path probability logPi and the heuristic h of a node. Lower values are
// expanded first; ties go to the larger g.
type Algorithm struct {
	name string
	kind algKind
	w    float64
}

type algKind uint8

const (
	phsh algKind = iota
	phsStar
	levinTS
	aStar
	gbfs
	phsSafe
)

// PHSh is PHS with the evaluation function phi(n) = (g(n)+h(n))/pi(n).
func PHSh() Algorithm { return Algorithm{name: "phsh", kind: phsh} }

// PHSStar is PHS* with phi(n) = (g(n)+h(n))/pi(n)^(1+h(n)/g(n)).
func PHSStar() Algorithm { return Algorithm{name: "phs*", kind: phsStar} }

// LevinTS is Levin tree search, phi(n) = g(n)/pi(n).
func LevinTS() Algorithm { return Algorithm{name: "levints", kind: levinTS} }

// AStar is A*, f(n) = g(n)+h(n).
func AStar() Algorithm { return Algorithm{name: "astar", kind: aStar, w: 1} }

// WAStar is weighted A*, f(n) = g(n)+w·h(n).
func WAStar(w float64) Algorithm { return Algorithm{name: "wastar", kind: aStar, w: w} }

// GBFS is greedy best-first search, f(n) = h(n).
func GBFS() Algorithm { return Algorithm{name: "gbfs", kind: gbfs} }

// PHSSafe is PHS_h with the safe state pruning of the paper's appendix
// (Algorithm "PHS with safe state pruning"): duplicates are not rejected
// when generated; a node taken from the open list is pruned if an earlier
// node of the same state had a phi no larger and a pi no smaller, and the
// goal is tested when a node is expanded.
func PHSSafe() Algorithm { return Algorithm{name: "phssafe", kind: phsSafe} }

// ParseAlgorithm returns the algorithm called name: phsstar (or phs*), phsh,
// levints, astar, wastar (with weight w), gbfs or phssafe.
func ParseAlgorithm(name string, w float64) (Algorithm, error) {
	switch strings.ToLower(name) {
	case "phsstar", "phs*":
		return PHSStar(), nil
	case "phsh":
		return PHSh(), nil
	case "levints":
		return LevinTS(), nil
	case "astar":
		return AStar(), nil
	case "wastar":
		if w < 0 || math.IsNaN(w) {
			return Algorithm{}, fmt.Errorf("search: wastar: bad weight %g", w)
		}
		return WAStar(w), nil
	case "gbfs":
		return GBFS(), nil
	case "phssafe":
		return PHSSafe(), nil
	}
	return Algorithm{}, fmt.Errorf("search: unknown algorithm %q", name)
}

// String returns the algorithm's name.
func (a Algorithm) String() string { return a.name }

// NeedsPolicy reports whether the algorithm reads the policy.
func (a Algorithm) NeedsPolicy() bool {
	return a.kind == phsh || a.kind == phsStar || a.kind == levinTS || a.kind == phsSafe
}

// NeedsHeuristic reports whether the algorithm reads the heuristic.
func (a Algorithm) NeedsHeuristic() bool { return a.kind != levinTS }

// Priority returns the algorithm's evaluation of a node, in log space for
// the policy-guided algorithms: log phi for PHS_h, PHS* and LevinTS.
func (a Algorithm) Priority(g, logPi, h float64) float64 {
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
