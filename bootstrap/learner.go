package bootstrap

import (
	"context"
	"encoding"
	"errors"

	"github.com/phs-go/phs/search"
)

// A Learner is what a Bootstrap run trains: a policy and/or heuristic that
// learns from the solutions that the searches it guides find. The paper's
// network is one (package network); any other, such as a context model
// (package cm) or a table, plugs in the same way. S is the state type of the problems.
//
// The run calls a Learner's methods from one goroutine, never at once.
type Learner[S comparable] interface {
	// Learn updates the learner on the solutions of one group of
	// problems, in input order (never empty). The run is deterministic if
	// Learn is: any randomness it uses must come from state that Save
	// keeps. ctx is done when the run is interrupted or reaches its time
	// limit (Limits.TimeLimit): Learn should then stop, and return ctx's
	// error only with the learner as it was before the call (the learners
	// of packages network and cm do); the run then writes the checkpoint of the
	// state before the update, which a resumed run takes again. A Learn
	// that ctx interrupts after it changed the learner returns an error
	// that wraps ErrUpdateInterrupted: that error and any other stop the
	// run, without a checkpoint of the group.
	Learn(ctx context.Context, batch []Solution[S]) (Update, error)
	// Snapshot returns the learner as it is now, for the searches: a
	// value that later calls of Learn do not change.
	Snapshot() Snapshot[S]
	// Save writes the learner's whole state, its settings included, to
	// directory dir, which exists; the function that Resume is given
	// reads it back. The names state.json and anything ending in ".new"
	// or ".old" are the run's.
	Save(dir string) error
}

// ErrUpdateInterrupted is wrapped by the error of a Learner's Learn that
// ctx interrupted after it changed the learner: the run then stops with
// that error, without a checkpoint of the group.
var ErrUpdateInterrupted = errors.New("update interrupted")

// A Snapshot is a learner at one moment: it builds the evaluators of the
// searches, and it marshals to bytes so that workers in other processes
// (package cluster) can search with it, after decoding it with the
// decoder of its kind of learner (such as network.DecodeSnapshot).
type Snapshot[S comparable] interface {
	// NewEvaluator returns an evaluator of the snapshot for one
	// goroutine; several goroutines may call NewEvaluator at once.
	NewEvaluator() search.Evaluator[S]
	encoding.BinaryMarshaler
}

// A Solution is a solved problem, as a learner learns from it.
type Solution[S comparable] struct {
	// Index is the index of the problem in the run's tasks: a learner
	// that keeps one solution per problem (such as a context model,
	// package cm) tells the problems apart by it, across resumptions.
	Index   int
	Problem search.Problem[S]
	// Trajectory holds the solution's States and Actions, the
	// Expansions of its search and the NodeLoss of the run's options;
	// its LogPi is nil. A search in a pool's worker, or one that ended
	// before the checkpoint that a run resumed from, sends or keeps its
	// actions alone, and the run rebuilds the trajectory by replaying
	// them from the problem's start state; it leaves out LogPi, which
	// the search's evaluator gave and which the replay does not
	// recompute, from every trajectory, so that a learner gets the same
	// trajectories whether the run was interrupted or not (packages
	// network and cm read the states, the actions, the expansions and the
	// costs to go).
	Trajectory *search.Trajectory[S]
}

// An Update is what one call of Learner.Learn did: its number of
// optimiser steps (or whatever the learner counts) and the sums over
// them of the policy's and the heuristic's losses. The metrics report
// their means over an iteration.
type Update struct {
	Steps                     int
	PolicyLoss, HeuristicLoss float64
}

// A Shortener is a problem that shortens its solutions, for
// Config.ShortenLimit. Shorten returns a solution at most as long as
// actions, a solution of the problem, and the nodes it expanded, at most
// limit (> 0); its result must depend on actions and limit alone, and it
// must be safe for concurrent use (see stp.Problem.Shorten).
type Shortener interface {
	Shorten(actions []int, limit int) ([]int, int, error)
}

// An AlgorithmChecker is a Learner that can tell whether it can guide an
// algorithm (a network without a heuristic cannot guide A*). Train and
// Resume check it before the first search.
type AlgorithmChecker interface {
	CheckAlgorithm(alg search.Algorithm) error
}

// An Evaluator is a search.Evaluator that evaluates with the snapshot set
// last: one Solver's evaluator across the snapshots of a learner, so that
// the Solver, and its memory, lives on from one snapshot to the next.
// Like the evaluators of the snapshots, it is for one goroutine.
type Evaluator[S comparable] struct {
	ev    search.Evaluator[S]
	edge  search.EdgeEvaluator[S]
	check search.Checker[S]
}

// NewEvaluator returns an Evaluator of snap.
func NewEvaluator[S comparable](snap Snapshot[S]) *Evaluator[S] {
	e := &Evaluator[S]{}
	e.Set(snap)
	return e
}

// Set makes e evaluate with a new evaluator of snap from the next call of
// Evaluate on.
func (e *Evaluator[S]) Set(snap Snapshot[S]) {
	e.ev = snap.NewEvaluator()
	e.edge, _ = e.ev.(search.EdgeEvaluator[S])
	e.check, _ = e.ev.(search.Checker[S])
}

// Evaluate evaluates with the evaluator of the snapshot set last.
func (e *Evaluator[S]) Evaluate(p search.Problem[S], states []S, logPi, h []float64) error {
	return e.ev.Evaluate(p, states, logPi, h)
}

// EvaluateEdges evaluates with the evaluator of the snapshot set last:
// along the edges if it is a search.EdgeEvaluator, else by the states
// alone.
func (e *Evaluator[S]) EvaluateEdges(p search.Problem[S], parents []S, actions []int, states []S, logPi, h []float64) error {
	if e.edge != nil {
		return e.edge.EvaluateEdges(p, parents, actions, states, logPi, h)
	}
	return e.ev.Evaluate(p, states, logPi, h)
}

// Check checks p with the evaluator of the snapshot set last, if it is a
// search.Checker.
func (e *Evaluator[S]) Check(p search.Problem[S]) error {
	if e.check != nil {
		return e.check.Check(p)
	}
	return nil
}
