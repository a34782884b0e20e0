// Package report writes and reads search results, one JSON object per
// problem and line (JSONL), and writes summary tables with the paper's
// columns (solved, mean length, mean expansions, mean time over the solved
// problems). Package chart draws charts of them.
package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/phs-go/phs/internal/jsonl"
)

// A Record is the outcome of one search on one problem, in the JSONL format
// of phs solve and phs test: one object per line, in input order.
type Record struct {
	// Problem is "<file base name>#<index>".
	Problem   string `json:"problem"`
	Domain    string `json:"domain"`
	Algorithm string `json:"algorithm"`
	Solved    bool   `json:"solved"`
	// Length is the number of actions of the solution (0 when unsolved).
	Length     int     `json:"length"`
	Expansions int64   `json:"expansions"`
	Generated  int64   `json:"generated"`
	TimeS      float64 `json:"time_s"`
	// Budget is the expansion budget of the search (0: none).
	Budget int64 `json:"budget"`
	// BeamWidth is the width of a beam search (Algorithm "beam" or
	// "policybeam"), which phs test widens round after round; 0 for the
	// other algorithms.
	BeamWidth int `json:"beam_width,omitempty"`
	// Solution spells the actions of the solution with the domain's action
	// names (search.FormatActions): "UURDL" for the shipped domains.
	Solution string `json:"solution"`
	// Stop says why an unsolved search ended: "budget", "timeout", "memory"
	// (the memory bound), "exhausted" (no solution exists), or "" when
	// solved or never attempted.
	Stop string `json:"stop,omitempty"`
	// ReorderExpansions is the part of Expansions spent by a pass that
	// shortened the solution after the search ("phs solve|test -reorder"), 0
	// for none.
	ReorderExpansions int64 `json:"reorder_expansions,omitempty"`
	// ShortenNodes is the number of nodes of the domain's pass that
	// shortened the solution after the search ("phs solve|test
	// -shorten-found"), 0 for none. Unlike ReorderExpansions, they are
	// not part of Expansions, which stays the search's alone; TimeS
	// includes the pass.
	ShortenNodes int64 `json:"shorten_nodes,omitempty"`
}

// A JSONLWriter writes records one JSON object per line.
type JSONLWriter struct {
	enc *json.Encoder
}

// NewJSONLWriter returns a writer of records to w.
func NewJSONLWriter(w io.Writer) *JSONLWriter {
	return &JSONLWriter{enc: json.NewEncoder(w)}
}

// Write writes r as one line.
func (w *JSONLWriter) Write(r Record) error {
	if err := w.enc.Encode(r); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// ReadJSONL reads the records of a JSONL file, such as a JSONLWriter
// writes, in order; name, the file's name, say, is used in errors. Blank
// lines are skipped; every other line must be at most 16 MiB long and hold
// one JSON object of a Record's fields, with no unknown field and a
// non-empty "problem". Errors start with "report: name:line: ",
// where line counts from 1, and no records are returned with them.
func ReadJSONL(r io.Reader, name string) ([]Record, error) {
	recs, err := jsonl.ReadCheck(r, name, func(rec Record) error {
		switch {
		case rec.Problem == "":
			return errors.New(`not a result record (no "problem")`)
		case rec.BeamWidth < 0 || rec.BeamWidth > 0 && rec.Algorithm != "beam" && rec.Algorithm != "policybeam":
			return fmt.Errorf("beam_width %d of algorithm %q; want 0, or more for beam and policybeam", rec.BeamWidth, rec.Algorithm)
		case rec.ReorderExpansions < 0 || rec.ReorderExpansions > rec.Expansions:
			return fmt.Errorf("reorder_expansions %d; want 0 to expansions (%d)", rec.ReorderExpansions, rec.Expansions)
		case rec.ShortenNodes < 0 || rec.ShortenNodes > 0 && !rec.Solved:
			return fmt.Errorf("shorten_nodes %d of a problem solved %t; want 0, or more for a solved one", rec.ShortenNodes, rec.Solved)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return recs, nil
}

// A Summary aggregates records: how many were attempted and solved, the
// sums behind the means over the solved ones, and the expansions of each
// solved one, for their median and maximum. Build it with Add.
type Summary struct {
	// Name labels the row, e.g. the algorithm.
	Name     string
	Problems int
	Solved   int
	// Sums over solved problems.
	Length, Expansions, TimeS float64
	// expansions are those of the solved problems, in the order added.
	expansions []int64
	// maxTime is the longest TimeS of a solved problem.
	maxTime float64
}

// Add counts r.
func (s *Summary) Add(r Record) {
	s.Problems++
	if !r.Solved {
		return
	}
	s.Solved++
	s.Length += float64(r.Length)
	s.Expansions += float64(r.Expansions)
	s.TimeS += r.TimeS
	s.maxTime = max(s.maxTime, r.TimeS)
	s.expansions = append(s.expansions, r.Expansions)
}

// MeanLength returns the mean solution length over solved problems (0 if none).
func (s *Summary) MeanLength() float64 { return s.mean(s.Length) }

// MeanExpansions returns the mean expansions over solved problems (0 if none).
func (s *Summary) MeanExpansions() float64 { return s.mean(s.Expansions) }

// MeanTime returns the mean wall time in seconds over solved problems (0 if none).
func (s *Summary) MeanTime() float64 { return s.mean(s.TimeS) }

// MedianExpansions returns the median of the expansions over solved
// problems, the mean of the middle two for an even count (0 if none). It
// sorts a copy: O(n log n) for n solved problems.
func (s *Summary) MedianExpansions() float64 {
	n := len(s.expansions)
	if n == 0 {
		return 0
	}
	e := slices.Sorted(slices.Values(s.expansions))
	if n%2 == 1 {
		return float64(e[n/2])
	}
	return (float64(e[n/2-1]) + float64(e[n/2])) / 2
}

// MaxExpansions returns the largest expansions of a solved problem (0 if
// none).
func (s *Summary) MaxExpansions() int64 {
	if len(s.expansions) == 0 {
		return 0
	}
	return slices.Max(s.expansions)
}

// MaxTime returns the longest wall time in seconds of a solved problem (0
// if none).
func (s *Summary) MaxTime() float64 { return s.maxTime }

func (s *Summary) mean(sum float64) float64 {
	if s.Solved == 0 {
		return 0
	}
	return sum / float64(s.Solved)
}

// WriteTable writes summaries as an aligned text table with the columns of
// the paper's result tables, then the median and the maximum of the
// expansions, which show how much of the mean a few hard problems make.
// Means, medians and maxima are over solved problems; "-" when none.
func WriteTable(w io.Writer, rows ...Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "algorithm\tsolved\tlength\texpansions\ttime (s)\tmedian exp.\tmax exp.\t")
	for _, s := range rows {
		if s.Solved == 0 {
			fmt.Fprintf(tw, "%s\t%d/%d\t-\t-\t-\t-\t-\t\n", s.Name, s.Solved, s.Problems)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%.1f\t%.1f\t%.3f\t%.1f\t%d\t\n", s.Name, s.Solved, s.Problems,
			s.MeanLength(), s.MeanExpansions(), s.MeanTime(), s.MedianExpansions(), s.MaxExpansions())
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
