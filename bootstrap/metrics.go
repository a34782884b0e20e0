package bootstrap

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"

	"github.com/phs-go/phs/internal/atomicfile"
	"github.com/phs-go/phs/internal/jsonl"
)

// Iteration holds the metrics of one Bootstrap iteration: one row of a
// learning curve.
type Iteration struct {
	Iteration int   `json:"iteration"`
	Budget    int64 `json:"budget"`
	// Attempted, Solved and New count the problems attempted, solved and
	// solved for the first time in this iteration; TotalSolved counts those
	// solved at least once so far.
	Attempted   int `json:"attempted"`
	Solved      int `json:"solved"`
	New         int `json:"new"`
	TotalSolved int `json:"total_solved"`
	// Expansions and Evaluations sum over the iteration's searches,
	// SolvedExpansions over those that solved their problem;
	// TotalExpansions over the whole run.
	Expansions       int64 `json:"expansions"`
	SolvedExpansions int64 `json:"solved_expansions"`
	TotalExpansions  int64 `json:"total_expansions"`
	Evaluations      int64 `json:"evaluations"`
	// SolvedSteps sums the lengths of the iteration's solutions, and
	// LearnedSteps those of the solutions the learner learned from: the
	// same without Config.ShortenLimit.
	SolvedSteps  int64 `json:"solved_steps"`
	LearnedSteps int64 `json:"learned_steps"`
	// ValidAttempted and ValidSolved count the validation problems
	// (Config.Validation) searched after the iteration's training pass,
	// those never solved before, and solved; ValidTotalSolved counts
	// those solved at least once so far; ValidExpansions sums over the
	// validation searches, which the other counts leave out, and ValidS
	// is their wall time, in seconds.
	ValidAttempted   int     `json:"valid_attempted,omitempty"`
	ValidSolved      int     `json:"valid_solved,omitempty"`
	ValidTotalSolved int     `json:"valid_total_solved,omitempty"`
	ValidExpansions  int64   `json:"valid_expansions,omitempty"`
	ValidS           float64 `json:"valid_s,omitempty"`
	// Updates counts optimiser steps; the losses are their means.
	Updates       int     `json:"updates"`
	PolicyLoss    float64 `json:"policy_loss"`
	HeuristicLoss float64 `json:"heuristic_loss"`
	// MeanStaleness and MaxStaleness say how many weight updates behind
	// the learner the searches of asynchronous training were, when their
	// results were learned from: the mean and the largest over the
	// iteration's searches. 0 in synchronous training.
	MeanStaleness float64 `json:"mean_staleness,omitempty"`
	MaxStaleness  int     `json:"max_staleness,omitempty"`
	// LearnS is the wall time of the learner's updates (Learner.Learn) in
	// the iteration, in seconds: in synchronous training, the part of
	// IterationS that no search ran.
	LearnS float64 `json:"learn_s"`
	// IterationS is the iteration's wall time, WallS the run's total wall
	// time at its end, both in seconds.
	IterationS float64 `json:"iteration_s"`
	WallS      float64 `json:"wall_s"`
	// Partial marks the iteration under way when the metrics were
	// written: the last row of a run's metrics files until it ends.
	Partial bool `json:"partial,omitempty"`
}

// Metrics file names in a run directory.
const (
	MetricsCSV   = "metrics.csv"
	MetricsJSONL = "metrics.jsonl"
)

var metricsHeader = []string{"iteration", "budget", "attempted", "solved", "new", "total_solved",
	"expansions", "solved_expansions", "total_expansions", "evaluations", "updates", "policy_loss", "heuristic_loss",
	"mean_staleness", "max_staleness", "learn_s", "iteration_s", "wall_s", "partial",
	"valid_attempted", "valid_solved", "valid_total_solved", "valid_expansions", "valid_s", "solved_steps", "learned_steps"}

func (it Iteration) csvRecord() []string {
	i := strconv.Itoa
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	return []string{i(it.Iteration), i64(it.Budget), i(it.Attempted), i(it.Solved), i(it.New),
		i(it.TotalSolved), i64(it.Expansions), i64(it.SolvedExpansions), i64(it.TotalExpansions), i64(it.Evaluations),
		i(it.Updates), f(it.PolicyLoss), f(it.HeuristicLoss), f(it.MeanStaleness), i(it.MaxStaleness),
		f(it.LearnS), f(it.IterationS), f(it.WallS),
		strconv.FormatBool(it.Partial),
		i(it.ValidAttempted), i(it.ValidSolved), i(it.ValidTotalSolved), i64(it.ValidExpansions), f(it.ValidS),
		i64(it.SolvedSteps), i64(it.LearnedSteps)}
}

// WriteMetricsCSV writes one CSV row per iteration, with a header.
func WriteMetricsCSV(w io.Writer, metrics []Iteration) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(metricsHeader); err != nil {
		return err
	}
	for _, it := range metrics {
		if err := cw.Write(it.csvRecord()); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteMetricsJSONL writes one JSON object per iteration and line.
func WriteMetricsJSONL(w io.Writer, metrics []Iteration) error {
	enc := json.NewEncoder(w)
	for _, it := range metrics {
		if err := enc.Encode(it); err != nil {
			return err
		}
	}
	return nil
}

// ReadMetricsJSONL reads what WriteMetricsJSONL wrote: one Iteration per
// line, in order; name, the file's name, say, is used in errors. Blank lines
// are skipped; every other line must hold one JSON object of an Iteration's
// fields, at most 16 MiB long, with no unknown field. Errors start with
// "name:line: ", where line counts from 1, and no iterations are returned
// with them.
func ReadMetricsJSONL(r io.Reader, name string) ([]Iteration, error) {
	return jsonl.Read[Iteration](r, name)
}

// writeMetrics replaces the metrics files of run directory dir.
func writeMetrics(dir string, metrics []Iteration) error {
	for _, f := range []struct {
		name  string
		write func(io.Writer, []Iteration) error
	}{{MetricsCSV, WriteMetricsCSV}, {MetricsJSONL, WriteMetricsJSONL}} {
		var buf bytes.Buffer
		if err := f.write(&buf, metrics); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, f.name), buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}
