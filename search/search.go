// Package search implements the search algorithms of Orseau & Lelis,
// "Policy-Guided Heuristic Search with Guarantees" (AAAI 2021), and their
// peers: one best-first engine whose evaluation function makes it PHS_h,
// PHS*, LevinTS, A*, WA* or GBFS (also PHS with safe state pruning), and PUCT.
//
// The package knows no domain and no network. A domain implements Problem for
// its own compact, comparable state type; a policy and/or heuristic reaches
// the search through the batched Evaluator interface.
package search

import (
	"fmt"
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

// An Evaluator gives the search its policy and heuristic, a batch of states
// at a time.
//
// For each i, Evaluate writes to logPi[i*A:(i+1)*A] the log-probabilities of
// the A = p.NumActions() actions in states[i] and to h[i] the heuristic value
// of states[i]. The log-probabilities of illegal actions may be anything: the
// search masks them. An evaluator that has no policy writes a uniform one;
// one that has no heuristic writes zero.
//
// An Evaluator need not be safe for concurrent use; give each goroutine its
// own.
type Evaluator[S comparable] interface {
	Evaluate(p Problem[S], states []S, logPi, h []float64) error
}

// Options control a search. The zero value is usable: no budget, batches of
// 32, the reference implementation's choices.
type Options struct {
	// Budget is the maximum number of expansions; 0 means no limit.
	Budget int64
	// Timeout is a wall-clock limit; 0 means none. A context passed to the
	// search may end it earlier.
	Timeout time.Duration
	// BatchSize is the number of states evaluated per Evaluator call; 0 means
	// 32. 1 evaluates every child on its own.
	BatchSize int
	// Renormalize renormalises the policy over the legal actions of each
	// state. The reference implementation used the network's full softmax
	// (false).
	Renormalize bool
	// GoalAtExpansion tests the goal when a node is expanded, as in the
	// paper's Algorithm 1, instead of when it is generated, as in the
	// reference implementation (the default).
	GoalAtExpansion bool
	// NodeLoss is the loss L(n) incurred by a node, which its g accumulates;
	// 0 means 1 (the paper's experiments).
	NodeLoss float64
}

// A Result is the outcome of one search. A search that ends without a
// solution (budget, timeout, exhausted space) is not an error: Solved is
// false and Exhausted or TimedOut tell why; an error is returned only when
// the evaluator fails or the caller's context is cancelled.
type Result[S comparable] struct {
	Solved bool
	// Exhausted reports that every reachable node was expanded without
	// finding a solution; TimedOut that Options.Timeout ran out.
	Exhausted, TimedOut bool
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
}

// CostToGo returns the distance to the goal of step t's state: len - t.
func (t *Trajectory[S]) CostToGo(step int) int { return len(t.Actions) - step }

// settings returns the values a search uses for opts, with the defaults
// filled in, after checking that p has 1 to 255 actions.
func (o Options) settings(p interface{ NumActions() int }, start time.Time) (A, batch int, loss float64, deadline time.Time, err error) {
	A = p.NumActions()
	if A <= 0 || A > 255 {
		return 0, 0, 0, deadline, fmt.Errorf("search: %d actions; want 1 to 255", A)
	}
	batch = o.BatchSize
	if batch <= 0 {
		batch = 32
	}
	loss = o.NodeLoss
	if loss == 0 {
		loss = 1
	}
	if o.Timeout > 0 {
		deadline = start.Add(o.Timeout)
	}
	return A, batch, loss, deadline, nil
}
