// Package search implements the search algorithms of Orseau & Lelis,
// "Policy-Guided Heuristic Search with Guarantees" (AAAI 2021), and their
// peers: one best-first engine whose evaluation function makes it PHS_h,
// PHS*, LevinTS, A*, WA* or GBFS (also PHS with safe state pruning, and
// √LTS, rerooted LevinTS, with its rerooters: see SqrtLTS), PUCT, and
// beam search (Beam).
//
// The package knows no domain and no network. A domain implements Problem for
// its own compact, comparable state type; a policy and/or heuristic reaches
// the search through the batched Evaluator interface.
//
// There is one way to run a search: choose an Algorithm (a constructor such
// as PHSStar, or Parse of its text form, such as "wastar:1.5"), build a
// Solver with NewSolver, which checks the algorithm, the options and the
// evaluator once, and call its Solve for each problem; SolveAll runs a set of tasks on several Solvers in
// parallel and returns the results in input order (SolveEach: as the
// searches end).
package search

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// A Problem is one search task: a start state, a fixed set of actions, a
// successor function and a goal test. S is the state type: a small value,
// bit-packed where it matters, that is also its own key for duplicate
// detection (two states are the same state if and only if they are ==).
type Problem[S comparable] interface {
	// Root returns the start state.
	Root() S
	// NumActions returns the number of actions, the same for every state.
	NumActions() int
	// Apply returns the successor of s under action a and true, or the zero
	// state and false if a is illegal in s.
	Apply(s S, a int) (S, bool)
	// IsGoal reports whether s is a goal state.
	IsGoal(s S) bool
}

// A Heuristic is a Problem that also estimates the cost-to-go of a state.
type Heuristic[S comparable] interface {
	Problem[S]
	// Heuristic returns an estimate of the cost from s to the nearest goal.
	Heuristic(s S) float64
}

// An Encoder is a Problem whose states can be given to a neural network as a
// float32 image of shape InputShape.
type Encoder[S comparable] interface {
	Problem[S]
	// InputShape returns the shape of the encoding as channels, height, width.
	InputShape() (c, h, w int)
	// Encode writes the encoding of s to dst, which has length c·h·w, in
	// channel-major (CHW) order, overwriting every element.
	Encode(s S, dst []float32)
}

// A OneHotEncoder is an Encoder whose encodings are one-hot: each value is
// 0 or 1, and few are 1s. Package model's networks read the places of
// the 1s rather than the encoding: a sum of a row of weights a 1 (and
// offset of a convolution's window) instead of a product over every
// value.
type OneHotEncoder[S comparable] interface {
	Encoder[S]
	// AppendOnes appends to dst the places, in Encode's encoding of s, of
	// its 1s, each once, and returns the extended slice: Encode writes 0
	// everywhere else.
	AppendOnes(s S, dst []int32) []int32
}

// An Evaluator gives the search its policy and heuristic, a batch of states
// at a time.
//
// For each i, Evaluate writes to logPi[i*A:(i+1)*A] the log-probabilities of
// the A = p.NumActions() actions in states[i] and to h[i] the heuristic value
// of states[i]. The log-probabilities of illegal actions may be anything: the
// search masks them. An evaluator that has no policy writes a uniform one;
// one that has no heuristic writes zero.
//
// An evaluator that needs more of a problem than Problem (a heuristic, an
// encoding of a given shape) also implements Checker, so that a problem
// that lacks it is an error before any search starts.
//
// An Evaluator need not be safe for concurrent use; give each goroutine its
// own.
type Evaluator[S comparable] interface {
	Evaluate(p Problem[S], states []S, logPi, h []float64) error
}

// An EdgeEvaluator is an Evaluator whose values of a state may also depend
// on how the search reached it: the state of its parent and the action
// taken there (a context model's last-action context, say). The searches
// call EvaluateEdges instead of Evaluate, with, for each i, actions[i] the
// action that led from parents[i] to states[i], or −1 for the root, whose
// parents[i] is its own state. Duplicates are still detected by state
// alone: of two nodes of one state, a search keeps the node it would keep
// with any evaluator, evaluated along its own edge.
type EdgeEvaluator[S comparable] interface {
	Evaluator[S]
	EvaluateEdges(p Problem[S], parents []S, actions []int, states []S, logPi, h []float64) error
}

// A Checker is an Evaluator that can tell whether it can evaluate the states
// of a problem. Solver.Solve calls Check before it searches a problem, and
// SolveAll calls it for every problem before it starts the first search;
// Evaluate may then rely on what Check verified.
type Checker[S comparable] interface {
	Check(p Problem[S]) error
}

// An ActionNamer is a Problem whose actions have names, such as "U" for a
// move up; FormatActions spells solutions with them.
type ActionNamer[S comparable] interface {
	Problem[S]
	// ActionName returns the name of action a: short, without spaces.
	ActionName(a int) string
}

// FormatActions spells a sequence of actions of p: the names of an
// ActionNamer, run together when every name is one character long ("UDLR")
// and separated by spaces otherwise, or the action indices separated by
// spaces.
func FormatActions[S comparable](p Problem[S], actions []int) string {
	name, sep := actionNames(p)
	var b strings.Builder
	for i, a := range actions {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(name(a))
	}
	return b.String()
}

// ParseActions reads a sequence of actions of p as FormatActions spells
// it. It returns an error for a name or index that is no action of p.
func ParseActions[S comparable](p Problem[S], s string) ([]int, error) {
	name, sep := actionNames(p)
	index := make(map[string]int, p.NumActions())
	for a := range p.NumActions() {
		index[name(a)] = a
	}
	var tokens []string
	if sep == "" {
		tokens = strings.Split(s, "")
	} else {
		tokens = strings.Fields(s)
	}
	actions := make([]int, 0, len(tokens))
	for i, tok := range tokens {
		a, ok := index[tok]
		if !ok {
			return nil, fmt.Errorf("action %d: %q is no action", i+1, tok)
		}
		actions = append(actions, a)
	}
	return actions, nil
}

// actionNames returns the spelling of p's actions and their separator in
// a sequence: "" if every name is one character long, else a space.
func actionNames[S comparable](p Problem[S]) (name func(int) string, sep string) {
	nm, ok := p.(ActionNamer[S])
	if !ok {
		return strconv.Itoa, " "
	}
	for a := range p.NumActions() {
		if len(nm.ActionName(a)) != 1 {
			sep = " "
		}
	}
	return nm.ActionName, sep
}

// Replay applies actions from p's root and returns an error unless every
// action is legal and the last state is a goal.
func Replay[S comparable](p Problem[S], actions []int) error {
	s := p.Root()
	for i, a := range actions {
		if a < 0 || a >= p.NumActions() {
			return fmt.Errorf("step %d: action %d out of range", i+1, a)
		}
		t, ok := p.Apply(s, a)
		if !ok {
			return fmt.Errorf("step %d: action %d is illegal", i+1, a)
		}
		s = t
	}
	if !p.IsGoal(s) {
		return fmt.Errorf("after %d actions: not a goal", len(actions))
	}
	return nil
}

// Options are the settings of a search, exactly those that change its
// results: a small comparable value (==), which encoding/json writes with
// the field names of its tags (a Bootstrap checkpoint and a cluster's run
// spec carry it whole; Timeout in nanoseconds). The zero value is usable:
// no budget, batches of 32, the reference implementation's choices but for
// A*'s goal test (see GoalTest). NewSolver rejects values out of range.
// What does not change results, such as a progress counter
// (Solver.SetProgress), is set on the Solver.
type Options struct {
	// Budget is the maximum number of expansions, ≥ 0; 0 means no limit.
	// It is the initial budget of a schedule that changes it between
	// searches, through Solver.SetBudget (the Bootstrap process, the
	// Bootstrap test).
	Budget int64 `json:"budget,omitempty"`
	// Timeout is a wall-clock limit, ≥ 0; 0 means none. A context passed to
	// the search may end it earlier.
	Timeout time.Duration `json:"timeout,omitempty"`
	// BatchSize is the number of states evaluated per Evaluator call, from
	// 0 to MaxBatchSize; 0 means 32. 1 evaluates every child on its own;
	// LevinTS, whose priorities need no evaluation of the node itself,
	// then evaluates a node only when it expands it: the same search, with
	// as many evaluations as expansions instead of one per node generated.
	BatchSize int `json:"batch_size,omitempty"`
	// Renormalize renormalises the policy over the legal actions of each
	// state. The reference implementation used the network's full softmax
	// (false).
	Renormalize bool `json:"renormalize,omitempty"`
	// Temperature is the temperature T of the policy: finite and > 0; 0
	// means 1, the evaluator's policy as it is. The search uses in place
	// of the evaluator's policy pi the policy pi^(1/T) normalised over the
	// actions (temperature scaling of the network's logits): T > 1
	// flattens pi, T < 1 sharpens it. A larger T gives the path cost g and
	// the heuristic more weight against the policy, which can shorten the
	// solutions. The tempered policy is a
	// policy, so every guarantee of the algorithms holds with it in place
	// of pi, and Trajectory.LogPi holds its log-probabilities. Tempering
	// costs A exponentials per evaluated state. Only the algorithms that
	// read a policy (Algorithm.NeedsPolicy) take a T other than 1.
	Temperature float64 `json:"temperature,omitempty"`
	// Mix is the weight ε of the uniform policy in the policy of the
	// search, in [0, 1); 0 mixes nothing. The search uses (1−ε)·pi + ε/A
	// over the A actions in place of pi (after Temperature), so that no
	// action's probability falls below ε/A and a policy confidently wrong
	// about a step costs at most log(A/ε) at that step. The reference
	// implementation of √LTS (libpolicyts) searches with ε = 0.01. The
	// mixed policy is a policy, so every guarantee holds with it in place
	// of pi, and Trajectory.LogPi holds its log-probabilities. Mixing costs
	// A exponentials and logarithms per evaluated state. Only the
	// algorithms that read a policy (Algorithm.NeedsPolicy) take an ε
	// other than 0.
	Mix float64 `json:"mix,omitempty"`
	// GoalTest says when a node is tested for the goal: GoalTestDefault
	// (the zero value) is at expansion for A* and at generation for the
	// other best-first algorithms; PUCT takes only the default, beam
	// search the default and GoalTestGeneration. See
	// GoalTest. JSON spells it as its String.
	GoalTest GoalTest `json:"goal_test,omitempty"`
	// NodeLoss is the loss L(n) incurred by a node, which its g accumulates:
	// finite and ≥ 0; 0 means 1 (the paper's experiments).
	NodeLoss float64 `json:"node_loss,omitempty"`
	// MaxMemory bounds the memory of the search tree, in bytes, ≥ 0; 0
	// means no bound. The search estimates its memory from its number of
	// nodes and their size (Solver.Solve) and ends without a solution,
	// Result.OutOfMemory, when the estimate would pass the bound.
	MaxMemory int64 `json:"max_memory,omitempty"`
	// Shorten makes a best-first search return, in place of the path of
	// its tree to the goal it finds, a shortest path to that goal over
	// every edge it generated: the tree's and those to the children it
	// dropped as duplicates (see Solver.Solve). The search itself, its
	// order and its counts, are the same; the pass expands and evaluates
	// nothing, and costs a breadth-first search over the nodes and
	// edges of the tree at the end, and 12 bytes per dropped child,
	// which the estimate of MaxMemory leaves out. The
	// Trajectory is that path, with the log-probabilities of its actions
	// under the policies the search used. PHSSafe, PUCT and beam search
	// do not take it.
	Shorten bool `json:"shorten,omitempty"`
}

// A GoalTest says when the best-first algorithms test a node for the goal.
// It is a TextMarshaler and a TextUnmarshaler, for flags (flag.TextVar)
// and files, spelt as its String.
type GoalTest uint8

const (
	// GoalTestDefault is GoalTestExpansion for A* and GoalTestGeneration
	// for the other best-first algorithms (the reference implementation's
	// choice), and PUCT's own test for PUCT.
	GoalTestDefault GoalTest = iota
	// GoalTestGeneration tests a child when it is generated, before it is
	// evaluated, and returns the first goal child found, as the reference
	// implementation of Orseau & Lelis (2021) does: the search needs no
	// evaluation of the goal, but the path it returns need not be the one
	// the algorithm's order would have chosen. A* then drops repeated
	// states as the reference does (see Solver.Solve).
	GoalTestGeneration
	// GoalTestExpansion tests a node when it is taken from the open list,
	// as the paper's Algorithm 1 does: the goal returned is the first goal
	// in the algorithm's order, which the guarantees of the algorithms
	// need (see Solver.Solve).
	GoalTestExpansion
)

var goalTestNames = [...]string{"default", "generation", "expansion"}

// String returns "default", "generation" or "expansion".
func (g GoalTest) String() string {
	if int(g) < len(goalTestNames) {
		return goalTestNames[g]
	}
	return "GoalTest(" + strconv.Itoa(int(g)) + ")"
}

// MarshalText returns the String of g, or an error for a value that is
// none of the constants.
func (g GoalTest) MarshalText() ([]byte, error) {
	if int(g) >= len(goalTestNames) {
		return nil, fmt.Errorf("search: bad goal test %d", g)
	}
	return []byte(g.String()), nil
}

// UnmarshalText sets g to the goal test that String spells text as.
func (g *GoalTest) UnmarshalText(text []byte) error {
	for i, name := range goalTestNames {
		if string(text) == name {
			*g = GoalTest(i)
			return nil
		}
	}
	return fmt.Errorf("search: goal test %q; want %s", text, strings.Join(goalTestNames[:], ", "))
}

// atExpansion reports whether alg, a best-first algorithm, tests the goal
// at expansion under g.
func (g GoalTest) atExpansion(alg Algorithm) bool {
	return g == GoalTestExpansion || g == GoalTestDefault && alg.kind == aStar
}

// MaxBatchSize is the largest Options.BatchSize.
const MaxBatchSize = 1 << 16

// Validate returns an error if a field of o is out of range, or is a
// setting that alg does not take: the error of NewSolver with o and alg.
func (o Options) Validate(alg Algorithm) error {
	switch {
	case o.Budget < 0:
		return fmt.Errorf("search: budget %d; want >= 0 (0: no limit)", o.Budget)
	case o.Timeout < 0:
		return fmt.Errorf("search: timeout %v; want >= 0 (0: none)", o.Timeout)
	case o.BatchSize < 0 || o.BatchSize > MaxBatchSize:
		return fmt.Errorf("search: batch size %d; want 1 to %d (0: 32)", o.BatchSize, MaxBatchSize)
	case !(o.NodeLoss >= 0) || math.IsInf(o.NodeLoss, 1):
		return fmt.Errorf("search: node loss %g; want a finite number >= 0 (0: 1)", o.NodeLoss)
	case !(o.Temperature >= 0) || math.IsInf(o.Temperature, 1):
		return fmt.Errorf("search: temperature %g; want a finite number > 0 (0: 1)", o.Temperature)
	case o.Temperature != 0 && o.Temperature != 1 && !alg.NeedsPolicy():
		return fmt.Errorf("search: %s reads no policy; temperature %g is for the algorithms that do", alg.Name(), o.Temperature)
	case !(o.Mix >= 0 && o.Mix < 1):
		return fmt.Errorf("search: mix %g; want a number in [0, 1)", o.Mix)
	case o.Mix != 0 && !alg.NeedsPolicy():
		return fmt.Errorf("search: %s reads no policy; mix %g is for the algorithms that do", alg.Name(), o.Mix)
	case o.MaxMemory < 0:
		return fmt.Errorf("search: max memory %d; want >= 0 (0: no bound)", o.MaxMemory)
	case o.Shorten && (alg.IsPUCT() || alg.kind == phsSafe):
		return fmt.Errorf("search: %s keeps no table of the states it generates; shorten is for the other best-first algorithms", alg.Name())
	case o.Shorten && alg.isBeam():
		return fmt.Errorf("search: %s generates no edge that shortens its solutions (it expands layer by layer); shorten is for the best-first algorithms", alg.Name())
	case o.GoalTest > GoalTestExpansion:
		return fmt.Errorf("search: bad goal test %d", o.GoalTest)
	case o.GoalTest != GoalTestDefault && alg.IsPUCT():
		return fmt.Errorf("search: puct tests the goal when a descent first reaches a node; goal test %s is for the best-first algorithms", o.GoalTest)
	case o.GoalTest == GoalTestExpansion && alg.isBeam():
		return fmt.Errorf("search: %s tests the goal when a node is generated; goal test %s is for the best-first algorithms", alg.Name(), o.GoalTest)
	}
	return nil
}

// withDefaults returns o with the zero values that mean a default replaced
// by it.
func (o Options) withDefaults() Options {
	if o.BatchSize == 0 {
		o.BatchSize = 32
	}
	if o.NodeLoss == 0 {
		o.NodeLoss = 1
	}
	if o.Temperature == 0 {
		o.Temperature = 1
	}
	return o
}

// shapePolicy applies the temperature and then the mix of o, which has its
// defaults, to the rows of A log-probabilities in logPi.
func (o *Options) shapePolicy(logPi []float64, A int) {
	if o.Temperature != 1 {
		temper(logPi, A, o.Temperature)
	}
	if o.Mix != 0 {
		u := o.Mix / float64(A)
		for i, l := range logPi {
			logPi[i] = math.Log((1-o.Mix)*math.Exp(l) + u)
		}
	}
}

// temper replaces each of the rows of A log-probabilities in logPi with
// the log-probabilities of its policy at temperature t: the row divided by
// t, less the log of the sum of its exponentials. A row without a finite
// largest entry is left as it is. It costs A exponentials per row and
// allocates nothing.
func temper(logPi []float64, A int, t float64) {
	for r := 0; r+A <= len(logPi); r += A {
		row := logPi[r : r+A]
		m := math.Inf(-1)
		for a := range row {
			row[a] /= t
			m = max(m, row[a])
		}
		if math.IsInf(m, 0) || math.IsNaN(m) {
			continue
		}
		sum := 0.0
		for _, l := range row {
			sum += math.Exp(l - m)
		}
		logZ := m + math.Log(sum)
		for a := range row {
			row[a] -= logZ
		}
	}
}

// A Result is the outcome of one search. A search that ends without a
// solution (budget, timeout, memory bound, exhausted space) is not an
// error: Solved is false and Exhausted, TimedOut or OutOfMemory tell why
// (none of them: the budget); an error is returned only when the evaluator
// fails or the caller's context is cancelled.
type Result[S comparable] struct {
	Solved bool
	// Exhausted reports that every reachable node was expanded without
	// finding a solution (for beam search, that its beam ran empty); TimedOut that Options.Timeout ran out;
	// OutOfMemory that the tree reached Options.MaxMemory.
	Exhausted, TimedOut, OutOfMemory bool
	// Actions is the solution, one action index per step from the root.
	Actions []int
	// Cost is the path cost g of the solution node.
	Cost float64
	// Expansions counts nodes expanded (popped and their children generated),
	// Generated counts nodes generated, Evaluations counts states evaluated
	// by the Evaluator.
	Expansions, Generated, Evaluations int64
	// Time is the wall time of the search.
	Time time.Duration
	// Trajectory is the solution path, for learning; nil when not solved.
	Trajectory *Trajectory[S]
}

// The reasons a search ends unsolved, as Result.Stop spells them.
const (
	StopBudget    = "budget"
	StopExhausted = "exhausted"
	StopTimeout   = "timeout"
	StopMemory    = "memory"
)

// Stop returns why r, a search whose expansion budget was budget (0:
// none), ended: "" if solved, else StopExhausted, StopTimeout, StopMemory
// or, if it spent the budget, StopBudget. It returns "" for a search
// that ended unsolved otherwise (cancelled).
func (r *Result[S]) Stop(budget int64) string {
	switch {
	case r.Solved:
		return ""
	case r.Exhausted:
		return StopExhausted
	case r.TimedOut:
		return StopTimeout
	case r.OutOfMemory:
		return StopMemory
	case budget > 0 && r.Expansions >= budget:
		return StopBudget
	}
	return ""
}

// A Trajectory is a solution path as a learner needs it. For step t,
// States[t] is the state in which Actions[t] was taken; the goal state
// itself is not included. len(States) == len(Actions) == len(LogPi).
type Trajectory[S comparable] struct {
	States  []S
	Actions []int
	// LogPi[t] is log pi(Actions[t] | States[t]) as the search used it.
	LogPi []float64
	// Expansions is the number of expansions of the search that found this
	// trajectory (the Levin loss's N).
	Expansions int64
	// NodeLoss is the loss of each node, Options.NodeLoss.
	NodeLoss float64
}

// CostToGo returns the cost from the state of the given step to the goal,
// in the units of g: (len(Actions) - step)·NodeLoss.
func (t *Trajectory[S]) CostToGo(step int) float64 {
	return float64(len(t.Actions)-step) * t.NodeLoss
}
