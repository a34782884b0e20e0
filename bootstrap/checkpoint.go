package bootstrap

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/phs-go/phs/internal/atomicfile"
	"github.com/phs-go/phs/search"
)

// state is everything a training run needs to go on after a restart,
// besides the learner: the checkpoint's state.json.
type state struct {
	// Config is the run's configuration.
	Config Config `json:"config"`
	// Iteration is the current iteration, from 1; Next is the position in
	// its list of problems of the next one to attempt.
	Iteration int   `json:"iteration"`
	Next      int   `json:"next"`
	Budget    int64 `json:"budget"`
	// Solved[i] is 1 if training problem i was ever solved; SolvedNow[i]
	// if it was solved in the current iteration; Streak[i] counts the
	// consecutive attempted iterations, up to 255, that solved it.
	Solved    []byte `json:"solved"`
	SolvedNow []byte `json:"solved_now"`
	Streak    []byte `json:"streak"`
	// ValidSolved[j] is 1 if validation problem j (Config.Validation) was
	// ever solved, ValidTried[j] if the validation pass of the current
	// iteration searched it; ValidReached is the iteration at whose end
	// the validation target was reached, 0 before.
	ValidSolved  []byte `json:"valid_solved,omitempty"`
	ValidTried   []byte `json:"valid_tried,omitempty"`
	ValidReached int    `json:"valid_reached,omitempty"`
	// Current accumulates the metrics of the current iteration; the loss
	// and staleness fields hold sums until the iteration ends.
	Current Iteration `json:"current"`
	// Group holds the searches of the iteration that ended and that the
	// learner had not learned from yet, by position: the group under way's
	// (ended before an interruption, the time limit or a periodic
	// checkpoint) and, in an asynchronous run, some of the next groups'. A
	// resumed run takes them as they are and runs the others.
	Group []searchRecord `json:"group,omitempty"`
	// Metrics are the finished iterations.
	Metrics []Iteration `json:"metrics"`
	// ElapsedS is the run's wall time so far in seconds.
	ElapsedS float64 `json:"elapsed_s"`
	// Done reports that training reached a stopping condition.
	Done bool `json:"done"`
	// Problems is the number of problems, training and validation, and
	// ProblemsSHA256 their fingerprint (ProblemsHash), checked on resume.
	Problems       int    `json:"problems"`
	ProblemsSHA256 string `json:"problems_sha256"`
}

// A searchRecord is a search of the current iteration that ended, as
// state.Group keeps it: enough to count it in the metrics and to rebuild
// its trajectory by replaying its actions from its problem's start state.
type searchRecord struct {
	// Pos is the search's position in the iteration's order of problems
	// (the problems not skipped, by index), Problem the index of its
	// problem in the tasks.
	Pos     int `json:"pos"`
	Problem int `json:"problem"`
	// Solved, Expansions and Evaluations are those of the search's
	// result; Actions is its solution, if solved.
	Solved      bool  `json:"solved,omitempty"`
	Expansions  int64 `json:"expansions"`
	Evaluations int64 `json:"evaluations"`
	Actions     []int `json:"actions,omitempty"`
	// Staleness is, in an asynchronous run, how many updates behind the
	// learner the snapshot of the search was at the checkpoint, at most
	// the updates of the iteration so far; 0 in a synchronous run.
	Staleness int64 `json:"staleness,omitempty"`
}

// ProblemsHash returns the hexadecimal SHA-256 of the tasks, in order: of
// each ID and of the network encoding of each start state. Resume checks
// that a run goes on with the problems it started with; package cluster,
// that a worker has the learner's problems.
func ProblemsHash[S comparable](tasks []search.Task[S]) string {
	h := sha256.New()
	var x []float32
	var b []byte
	for _, t := range tasks {
		fmt.Fprintf(h, "%d:%s;", len(t.ID), t.ID)
		enc, ok := t.Problem.(search.Encoder[S])
		if !ok {
			continue
		}
		c, hh, w := enc.InputShape()
		x = slices.Grow(x[:0], c*hh*w)[:c*hh*w]
		enc.Encode(enc.Root(), x)
		b = b[:0]
		for _, v := range x {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

const (
	checkpointDir = "checkpoint"
	stateFile     = "state.json"
)

// ErrLocked is the error of Train and Resume for a run directory that
// another training run is using.
var ErrLocked = errors.New("another training run is using the directory")

// ErrTrainingDone is the error of Resume for a run that has already
// finished: every problem solved, or a limit of its Config reached.
var ErrTrainingDone = errors.New("bootstrap: training already finished")

// newState returns the state of a fresh run of cfg over n problems of
// fingerprint hash.
func newState(cfg Config, n int, hash string) *state {
	v := cfg.Validation.Problems
	st := &state{
		Config:         cfg,
		Iteration:      1,
		Budget:         cfg.Options.Budget,
		Solved:         make([]byte, n-v),
		SolvedNow:      make([]byte, n-v),
		Streak:         make([]byte, n-v),
		Problems:       n,
		ProblemsSHA256: hash,
	}
	if v > 0 {
		st.ValidSolved, st.ValidTried = make([]byte, v), make([]byte, v)
	}
	return st
}

// check returns an error naming the first field of st that cannot be the
// state of a run over n problems (any number if n < 0), and otherwise
// fills in the defaults of its configuration.
func (st *state) check(n int) error {
	if err := st.Config.check(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if n < 0 {
		n = st.Problems
	}
	v := st.Config.Validation.Problems
	switch {
	case st.Problems != n:
		return fmt.Errorf("problems: the checkpoint is for %d problems, got %d", st.Problems, n)
	case v >= n:
		return fmt.Errorf("%d validation problems of %d; want fewer", v, n)
	case st.ValidReached < 0 || st.ValidReached > len(st.Metrics) || (st.ValidReached > 0 && st.ValidReached < len(st.Metrics)-1):
		return fmt.Errorf("valid_reached %d after %d finished iterations; want 0, or one of the last two", st.ValidReached, len(st.Metrics))
	case st.Iteration < 1:
		return fmt.Errorf("iteration %d; want >= 1", st.Iteration)
	case st.Next < 0 || st.Next > n-v:
		return fmt.Errorf("next %d; want 0 to %d", st.Next, n-v)
	case st.Budget <= 0:
		return fmt.Errorf("budget %d; want > 0", st.Budget)
	case st.ElapsedS < 0 || math.IsNaN(st.ElapsedS):
		return fmt.Errorf("elapsed_s %g; want >= 0", st.ElapsedS)
	}
	n -= v
	for _, f := range []struct {
		name string
		b    []byte
		n    int
		what string
	}{
		{"solved", st.Solved, n, "training"}, {"solved_now", st.SolvedNow, n, "training"}, {"streak", st.Streak, n, "training"},
		{"valid_solved", st.ValidSolved, v, "validation"}, {"valid_tried", st.ValidTried, v, "validation"},
	} {
		if len(f.b) != f.n {
			return fmt.Errorf("%s has %d entries for %d %s problems", f.name, len(f.b), f.n, f.what)
		}
	}
	if st.Iteration != len(st.Metrics)+1 {
		return fmt.Errorf("iteration %d after %d finished iterations; want %d", st.Iteration, len(st.Metrics), len(st.Metrics)+1)
	}
	var total int64
	for i, it := range st.Metrics {
		total += it.Expansions
		switch {
		case it.Iteration != i+1:
			return fmt.Errorf("metrics: entry %d is of iteration %d; want %d", i+1, it.Iteration, i+1)
		case it.Partial:
			return fmt.Errorf("metrics: iteration %d is marked partial", it.Iteration)
		case it.Budget <= 0 || it.Attempted < 0 || it.Solved < 0 || it.Solved > it.Attempted || it.New < 0 || it.New > it.Solved ||
			it.TotalSolved < 0 || it.TotalSolved > n || it.Expansions < 0 || it.Evaluations < 0 || it.Updates < 0 ||
			it.SolvedExpansions < 0 || it.SolvedExpansions > it.Expansions || it.SolvedSteps < 0 || it.LearnedSteps < 0 ||
			it.ValidAttempted < 0 || it.ValidSolved < 0 || it.ValidSolved > it.ValidAttempted || it.ValidTotalSolved < 0 ||
			it.ValidTotalSolved > v || it.ValidExpansions < 0:
			return fmt.Errorf("metrics: iteration %d: counts out of range", it.Iteration)
		case it.TotalExpansions != total:
			return fmt.Errorf("metrics: iteration %d: total expansions %d; the iterations sum to %d", it.Iteration, it.TotalExpansions, total)
		}
	}
	// The schedule reads the expansions of the solved problems.
	if c := st.Current; c.SolvedExpansions < 0 || c.SolvedExpansions > c.Expansions {
		return fmt.Errorf("current: %d expansions of solved problems, of %d; want 0 to all", c.SolvedExpansions, c.Expansions)
	}
	for i := range n {
		if st.Solved[i] > 1 || st.SolvedNow[i] > 1 || (st.SolvedNow[i] == 1 && st.Solved[i] == 0) {
			return fmt.Errorf("solved/solved_now: bad flags %d/%d for problem %d", st.Solved[i], st.SolvedNow[i], i)
		}
	}
	for j := range v {
		if st.ValidSolved[j] > 1 || st.ValidTried[j] > 1 {
			return fmt.Errorf("valid_solved/valid_tried: bad flags %d/%d for validation problem %d", st.ValidSolved[j], st.ValidTried[j], j)
		}
	}
	return st.checkGroup()
}

// checkGroup returns an error naming the first record of st.Group that
// cannot be a search of the iteration under way that the learner has not
// learned from: out of order, at a position learned from or past the
// iteration's problems (past the group under way, in a synchronous run),
// of another problem than that of its position, with counts or a
// staleness out of range.
// The replay of the solutions, which needs the problems, is Resume's.
func (st *state) checkGroup() error {
	if len(st.Group) == 0 {
		return nil
	}
	order := st.attemptOrder(st.Config.SkipSolvedAfter)
	// A synchronous run searches the group under way alone, with the
	// learner as it is; the snapshot of an asynchronous run's search is
	// at most the updates of the iteration so far behind it.
	ppu := st.Config.ProblemsPerUpdate
	end, maxStale := len(order), int64((st.Next+ppu-1)/ppu)
	if !st.Config.Async {
		end, maxStale = min(st.Next+ppu, end), 0
	}
	prev := st.Next - 1
	for i, g := range st.Group {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("group: record %d (position %d): %s", i+1, g.Pos, fmt.Sprintf(format, args...))
		}
		switch {
		case g.Pos <= prev:
			return bad("after position %d; want positions in increasing order from next, %d", prev, st.Next)
		case g.Pos >= end:
			return bad("want positions below %d", end)
		case g.Problem != order[g.Pos]:
			return bad("problem %d; the position is problem %d's", g.Problem, order[g.Pos])
		case g.Expansions < 0 || g.Expansions > st.Budget:
			return bad("%d expansions; want 0 to the budget, %d", g.Expansions, st.Budget)
		case g.Evaluations < 0:
			return bad("%d evaluations; want >= 0", g.Evaluations)
		case !g.Solved && len(g.Actions) > 0:
			return bad("actions without a solution")
		case g.Staleness < 0 || g.Staleness > maxStale:
			return bad("staleness %d; want 0 to %d", g.Staleness, maxStale)
		}
		prev = g.Pos
	}
	return nil
}

// loadState returns the directory of the checkpoint in run directory dir
// and its state, checked for a run over n problems (any number if n < 0).
func loadState(dir string, n int) (string, *state, error) {
	cp := filepath.Join(dir, checkpointDir)
	if _, err := os.Stat(cp); errors.Is(err, os.ErrNotExist) {
		// A crash between the two renames of writeCheckpoint leaves the
		// previous checkpoint under its old name.
		if _, err := os.Stat(cp + ".old"); err == nil {
			cp += ".old"
		}
	}
	name := filepath.Join(cp, stateFile)
	b, err := os.ReadFile(name)
	if err != nil {
		return "", nil, fmt.Errorf("bootstrap: resume %s: %w", dir, err)
	}
	st, err := decodeState(b, n)
	if err != nil {
		return "", nil, fmt.Errorf("bootstrap: resume: %s: %w", name, err)
	}
	return cp, st, nil
}

// decodeState returns the state that b, the content of a state.json,
// holds, checked for a run over n problems (any number if n < 0).
func decodeState(b []byte, n int) (*state, error) {
	var st state
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		if strings.Contains(err.Error(), `unknown field "rng"`) {
			return nil, errors.New("a checkpoint of an earlier phs, without the run's configuration; it cannot be resumed")
		}
		return nil, err
	}
	if err := st.check(n); err != nil {
		return nil, err
	}
	return &st, nil
}

// finished reports whether training is over, after elapsed seconds: every
// problem solved (without validation), the iteration after the validation
// target was reached ended, or a limit of the run reached.
func (st *state) finished(elapsed float64) bool {
	cfg := &st.Config
	return (cfg.Validation.Problems == 0 && st.totalSolved() == len(st.Solved)) ||
		(st.ValidReached > 0 && len(st.Metrics) > st.ValidReached) ||
		(cfg.MaxIterations > 0 && len(st.Metrics) >= cfg.MaxIterations) ||
		(cfg.TimeLimit > 0 && elapsed >= cfg.TimeLimit.Seconds())
}

// attemptOrder returns the problems the current iteration attempts, in order.
func (st *state) attemptOrder(skipAfter int) []int {
	order := make([]int, 0, len(st.Solved))
	for k := range st.Solved {
		if skipAfter > 0 && int(st.Streak[k]) >= skipAfter {
			continue
		}
		order = append(order, k)
	}
	return order
}

// summary returns the metrics of the current iteration as it stands after
// elapsed seconds of training.
func (st *state) summary(elapsed float64) Iteration {
	it := st.Current
	it.Iteration = st.Iteration
	it.Budget = st.Budget
	it.TotalSolved = st.totalSolved()
	it.ValidTotalSolved = count(st.ValidSolved)
	it.TotalExpansions = it.Expansions
	if len(st.Metrics) > 0 {
		it.TotalExpansions += st.Metrics[len(st.Metrics)-1].TotalExpansions
	}
	if it.Updates > 0 {
		it.PolicyLoss /= float64(it.Updates)
		it.HeuristicLoss /= float64(it.Updates)
	}
	if it.Attempted > 0 {
		it.MeanStaleness /= float64(it.Attempted)
	}
	it.WallS = elapsed
	return it
}

func (st *state) totalSolved() int { return count(st.Solved) }

// count returns the number of flags set in flags.
func count(flags []byte) int {
	n := 0
	for _, s := range flags {
		n += int(s)
	}
	return n
}

// writeCheckpoint writes the learner and the state to dir/checkpoint and the
// metrics to dir/metrics.csv and dir/metrics.jsonl. The checkpoint is
// written to a new directory that then replaces the old one, so that a
// crash at any moment leaves a complete checkpoint.
func writeCheckpoint[S comparable](dir string, l Learner[S], st *state) error {
	wrap := func(err error) error { return fmt.Errorf("bootstrap: checkpoint of %s: %w", dir, err) }
	cp := filepath.Join(dir, checkpointDir)
	tmp, old := cp+".new", cp+".old"
	if err := os.RemoveAll(tmp); err != nil {
		return wrap(err)
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return wrap(err)
	}
	if err := l.Save(tmp); err != nil {
		return wrap(err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		return wrap(err)
	}
	if err := atomicfile.WriteFile(filepath.Join(tmp, stateFile), b); err != nil {
		return wrap(err)
	}
	if err := os.RemoveAll(old); err != nil {
		return wrap(err)
	}
	if err := os.Rename(cp, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return wrap(err)
	}
	if err := os.Rename(tmp, cp); err != nil {
		return wrap(err)
	}
	if err := os.RemoveAll(old); err != nil {
		return wrap(err)
	}
	metrics := st.Metrics
	if st.Current.Attempted > 0 {
		it := st.summary(st.ElapsedS)
		it.Partial = true
		metrics = append(metrics[:len(metrics):len(metrics)], it)
	}
	if err := writeMetrics(dir, metrics); err != nil {
		return wrap(err)
	}
	return nil
}
