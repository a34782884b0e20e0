package search

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// An Algorithm is one of the search algorithms of the package with its
// parameters: a best-first search whose evaluation function orders the open
// list (PHS*, PHS_h, LevinTS, A*, WA*, GBFS, PHS with safe state pruning,
// √LTS), PUCT, or beam search. It is a small comparable value; the zero Algorithm is PHS*, the
// default of phs. Build one with the functions below or with Parse; a
// Solver checks its parameters when it is built.
type Algorithm struct {
	kind kind
	// param is the weight w of h for A* and WA*, the exploration constant
	// c for PUCT, √LTS's constant weight or temperature α (see SqrtLTS),
	// the width of beam search, and 0 for the others.
	param float64
	// rr is √LTS's rerooter and levin its choice of the Levin cost; zero
	// for the others.
	rr    Rerooter
	levin bool
}

type kind uint8

// The kinds, in the order of AlgorithmNames.
const (
	phsStar kind = iota // the zero value
	phsh
	levinTS
	aStar
	wAStar
	gbfs
	puct
	phsSafe
	sqrtLTS
	beam
	policyBeam
	numKinds
)

// names holds the name of each kind, the one Parse takes and Name returns.
var names = [numKinds]string{"phsstar", "phsh", "levints", "astar", "wastar", "gbfs", "puct", "phssafe", "sqrtlts", "beam", "policybeam"}

// PHSStar is PHS* with phi(n) = (g(n)+h(n))/pi(n)^(1+h(n)/g(n)).
func PHSStar() Algorithm { return Algorithm{kind: phsStar} }

// PHSh is PHS with the evaluation function phi(n) = (g(n)+h(n))/pi(n).
func PHSh() Algorithm { return Algorithm{kind: phsh} }

// LevinTS is Levin tree search, phi(n) = g(n)/pi(n).
func LevinTS() Algorithm { return Algorithm{kind: levinTS} }

// AStar is A*, f(n) = g(n)+h(n). By default it tests the goal at expansion
// and keeps the cheaper of two nodes of a state, so that it returns a
// solution of least cost when h is admissible (see Solver.Solve). The
// paper's A* (its Table 1, from the reference implementation) tested the
// goal at generation and dropped every repeated state: Options.GoalTest
// GoalTestGeneration (phs -goal-test generation) reproduces it.
func AStar() Algorithm { return Algorithm{kind: aStar, param: 1} }

// WAStar is weighted A*, f(n) = g(n)+w·h(n), for a finite w ≥ 0.
func WAStar(w float64) Algorithm { return Algorithm{kind: wAStar, param: w} }

// GBFS is greedy best-first search, f(n) = h(n).
func GBFS() Algorithm { return Algorithm{kind: gbfs} }

// PUCT is the PUCT algorithm (Silver et al., 2016) with exploration constant
// c, a finite c > 0 (the paper's is 1), as Orseau & Lelis (2021) ran it. A
// descent from the root takes the first child not yet reached, in action
// order, else the child n' of n that minimises
// Q̄(n') − c·pi(n'|n)·sqrt(N(n))/(1+N(n')), Q the mean of the heuristic
// values backed up through n' and Q̄ its normalisation by the extremes seen.
// Descents collect up to Options.BatchSize leaves under virtual losses,
// which one Evaluator call evaluates; each leaf is then expanded and its h
// backed up. A node is tested for the goal when a descent first reaches it
// (NewSolver rejects another Options.GoalTest). Repeated states are not
// pruned; the search is Exhausted when every path from the root is dead.
//
// Every move costs Options.NodeLoss. Expansions counts the evaluated nodes,
// the root included, and Options.Budget bounds it; Evaluations equals
// Expansions. The context and Options.Timeout are checked every few hundred
// expansions. docs/ALGORITHMS.md gives the rules in full.
func PUCT(c float64) Algorithm { return Algorithm{kind: puct, param: c} }

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
// expansion (GoalTestExpansion: the appendix's algorithm exactly) and
// evaluates one node at a time (Options.BatchSize 1), and provided that the
// policy and h depend on the state alone, as with any Evaluator. With the
// other options it behaves as the other algorithms do.
func PHSSafe() Algorithm { return Algorithm{kind: phsSafe} }

// Beam is beam search of width w, 1 ≤ w ≤ MaxBeamWidth, which searches
// the tree layer by layer and keeps in each layer the w nodes of least h.
// The root is the first layer. Each node of a layer is expanded in turn;
// a child whose state a node of the search already has is dropped, as in
// the best-first searches, and a goal is returned when it is generated
// (NewSolver rejects another Options.GoalTest), so a solution is as long
// as the number of layers. The children are evaluated in batches of
// Options.BatchSize; the next layer is the w of least h, ties going to the
// child generated first, and its nodes are expanded in that order. The
// others are pruned for good: beam search is incomplete, and a beam that
// runs empty (no new child in a layer) ends the search unsolved with
// Result.Exhausted, though it pruned nodes it never expanded.
//
// Beam search reads the heuristic alone. Expansions counts the nodes
// expanded, Options.Budget bounds it, and a layer of a large beam with
// children of A actions costs a sort of up to w·A values. It finds short
// solutions when h ranks the states of a layer well, as networks trained
// on scrambles do for the Rubik's cube (Takano 2023; Chervov et al. 2025).
func Beam(w int) Algorithm { return Algorithm{kind: beam, param: float64(w)} }

// PolicyBeam is beam search of width w, 1 ≤ w ≤ MaxBeamWidth, guided by
// the policy alone, as EfficientCube searches the Rubik's cube (Takano
// 2023): a node's score is the log-probability of its path, and the next
// layer is the w children of the layer of greatest score, ties going to
// the child of the earlier node and action. A layer's children are
// scored from their parents' policies before they are generated: only the
// w kept are generated and evaluated, where Beam evaluates every child,
// so that a policy beam is as costly as a heuristic beam A times
// narrower (A actions). Otherwise it is Beam: a child whose state the
// search has is dropped (the next best takes its place), goals are tested
// at generation, the nodes of a layer are evaluated in batches of
// Options.BatchSize, Expansions counts the nodes of the layers and
// Options.Budget bounds it, and a beam that runs empty ends the search
// unsolved with Result.Exhausted. The policy is read as the evaluator
// gives it, over all the actions (an illegal action's child is not
// generated; Options.Renormalize, Temperature and Mix apply).
func PolicyBeam(w int) Algorithm { return Algorithm{kind: policyBeam, param: float64(w)} }

// The parameters that the plain names "wastar", "puct" and "beam" stand
// for, and the widest beam.
const (
	// DefaultW is the weight of h of WA* when the text names none.
	DefaultW = 1.5
	// DefaultC is PUCT's exploration constant when the text names none.
	DefaultC = 1.0
	// DefaultBeamWidth is the width of beam search when the text names
	// none.
	DefaultBeamWidth = 256
	// MaxBeamWidth is the largest width of beam search.
	MaxBeamWidth = 1 << 24
)

// ErrUnknownAlgorithm is the error of Parse for a name it does not know.
var ErrUnknownAlgorithm = errors.New("unknown algorithm")

// AlgorithmNames returns the names Parse takes, in the spelling that needs
// no shell quoting: a new slice at each call.
func AlgorithmNames() []string { return slices.Clone(names[:]) }

// Parse returns the algorithm of text, its name (one of AlgorithmNames)
// followed, for wastar, puct, beam and policybeam, by an optional ":" and
// its parameter: "wastar:3" is WAStar(3), "puct:2" is PUCT(2), "beam:1024"
// Beam(1024), "policybeam:1024" PolicyBeam(1024); "wastar" alone is
// WAStar(DefaultW), "puct" alone PUCT(DefaultC) and "beam" and
// "policybeam" alone of width DefaultBeamWidth. It also takes the
// usual spellings phs*, phs_star, phs_h, a* and wa*, in any case. It is
// the inverse of Algorithm.String (and MarshalText), and the one place
// that turns text into an Algorithm.
//
// √LTS is spelt
//
//	sqrtlts[:rerooter[:number]][:levin]
//
// where rerooter is c (ConstantRerooter, the default), h
// (HeuristicRerooter), l (ClusterRerooter) or lh
// (ClusterHeuristicRerooter); the number is the constant weight of c
// (default 0) or the temperature α of h and lh (default DefaultAlpha), and l
// takes none; a final "levin" selects the Levin cost over the slenderness
// cost. So "sqrtlts" is SqrtLTS(ConstantRerooter, 0, false): LTS from the
// root with the slenderness cost; "sqrtlts:levin" is the same search as
// levints; "sqrtlts:h:10" is √LTS-H with α = 10, "sqrtlts:l" √LTS-L,
// "sqrtlts:lh" √LTS-LH with α = 1.
func Parse(text string) (Algorithm, error) {
	name, param, hasParam := strings.Cut(text, ":")
	if strings.EqualFold(name, "sqrtlts") {
		return parseSqrtLTS(text, param, hasParam)
	}
	var a Algorithm
	switch strings.ToLower(name) {
	case "phsstar", "phs*", "phs_star":
		a = PHSStar()
	case "phsh", "phs_h":
		a = PHSh()
	case "levints":
		a = LevinTS()
	case "astar", "a*":
		a = AStar()
	case "wastar", "wa*":
		a = WAStar(DefaultW)
	case "gbfs":
		a = GBFS()
	case "puct":
		a = PUCT(DefaultC)
	case "phssafe":
		a = PHSSafe()
	case "beam":
		a = Beam(DefaultBeamWidth)
	case "policybeam":
		a = PolicyBeam(DefaultBeamWidth)
	default:
		return Algorithm{}, fmt.Errorf("search: %w %q (want %s)", ErrUnknownAlgorithm, name, strings.Join(names[:], ", "))
	}
	if hasParam {
		if a.kind != wAStar && a.kind != puct && !a.isBeam() {
			return Algorithm{}, fmt.Errorf("search: %q: %s takes no parameter", text, a.Name())
		}
		p, err := strconv.ParseFloat(param, 64)
		if a.isBeam() {
			var w int
			w, err = strconv.Atoi(param)
			p = float64(w)
		}
		if err != nil {
			return Algorithm{}, fmt.Errorf("search: %q: bad parameter %q", text, param)
		}
		a.param = p
	}
	return a, a.check()
}

// check returns an error if a's parameter is out of range.
func (a Algorithm) check() error {
	switch {
	case a.kind >= numKinds:
		return fmt.Errorf("search: bad algorithm %d", a.kind)
	case a.kind == wAStar && !(a.param >= 0 && !math.IsInf(a.param, 1)):
		return fmt.Errorf("search: wastar: weight %g; want a finite number >= 0", a.param)
	case a.kind == puct && !(a.param > 0 && !math.IsInf(a.param, 1)):
		return fmt.Errorf("search: puct: exploration constant %g; want a finite number > 0", a.param)
	case a.isBeam() && !(a.param >= 1 && a.param <= MaxBeamWidth && a.param == math.Trunc(a.param)):
		return fmt.Errorf("search: %s: width %g; want a whole number from 1 to %d", a.Name(), a.param, MaxBeamWidth)
	case a.kind != sqrtLTS && (a.rr != 0 || a.levin):
		return fmt.Errorf("search: %s takes no rerooter", a.Name())
	case a.kind == sqrtLTS:
		return a.checkSqrtLTS()
	}
	return nil
}

// Name returns the algorithm's name, as Parse takes it, without the
// parameter.
func (a Algorithm) Name() string { return names[a.kind] }

// String returns the text form of a, which Parse reads back: the name,
// with the parameter of WA*, PUCT and beam search after a colon
// ("wastar:1.5", "puct:1", "beam:256") in the shortest spelling that
// reads back exactly.
func (a Algorithm) String() string {
	switch a.kind {
	case wAStar, puct:
		return a.Name() + ":" + strconv.FormatFloat(a.param, 'g', -1, 64)
	case beam, policyBeam:
		return a.Name() + ":" + strconv.Itoa(a.BeamWidth())
	case sqrtLTS:
		return a.sqrtLTSString()
	}
	return a.Name()
}

// MarshalText returns the text form of a, String.
func (a Algorithm) MarshalText() ([]byte, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	return []byte(a.String()), nil
}

// UnmarshalText sets a to the algorithm of the text form b, as Parse
// reads it.
func (a *Algorithm) UnmarshalText(b []byte) error {
	x, err := Parse(string(b))
	if err != nil {
		return err
	}
	*a = x
	return nil
}

// W returns the weight of h of A* (1) and WA*, and 0 for the others.
func (a Algorithm) W() float64 {
	if a.kind == aStar || a.kind == wAStar {
		return a.param
	}
	return 0
}

// C returns the exploration constant of PUCT, and 0 for the others.
func (a Algorithm) C() float64 {
	if a.kind == puct {
		return a.param
	}
	return 0
}

// BeamWidth returns the width of beam search (Beam, PolicyBeam), and 0
// for the others.
func (a Algorithm) BeamWidth() int {
	if a.isBeam() {
		return int(a.param)
	}
	return 0
}

// isBeam reports whether a is a beam search, Beam or PolicyBeam.
func (a Algorithm) isBeam() bool { return a.kind == beam || a.kind == policyBeam }

// withBeamWidth returns the beam search a with width w.
func (a Algorithm) withBeamWidth(w int) Algorithm {
	a.param = float64(w)
	return a
}

// IsPUCT reports whether a is PUCT rather than a best-first search.
func (a Algorithm) IsPUCT() bool { return a.kind == puct }

// NeedsPolicy reports whether the algorithm reads the policy: the PHS
// variants, LevinTS, √LTS, PUCT and PolicyBeam.
func (a Algorithm) NeedsPolicy() bool {
	switch a.kind {
	case phsStar, phsh, levinTS, puct, phsSafe, sqrtLTS, policyBeam:
		return true
	}
	return false
}

// NeedsHeuristic reports whether the algorithm reads the heuristic (Beam
// reads it alone): all but LevinTS, PolicyBeam and √LTS with a rerooter
// that reads none (ConstantRerooter, ClusterRerooter).
func (a Algorithm) NeedsHeuristic() bool {
	switch a.kind {
	case levinTS, policyBeam:
		return false
	case sqrtLTS:
		return a.rr == HeuristicRerooter || a.rr == ClusterHeuristicRerooter
	}
	return true
}
