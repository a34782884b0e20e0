package cm

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/internal/atomicfile"
	"github.com/phs-go/phs/internal/safetensors"
	"github.com/phs-go/phs/search"
)

// LearnerConfig holds the settings of a context model's learner, which
// it saves with its table. The zero values select the reference's.
type LearnerConfig struct {
	// EpsLow is εlow, in (0, 1): the parameters lie in [ln εlow, 0]; 0
	// means DefaultEpsLow.
	EpsLow float64 `json:"eps_low"`
	// Growth, finite and ≥ 0, spaces the optimisations: an update
	// optimises only if the solutions new or replaced since the last
	// optimisation are at least Growth times as many as the solutions
	// that optimisation covered (the first update always optimises); the
	// others only keep their solutions. 0 optimises at every update. As
	// every optimisation covers every solution kept, Growth g bounds the
	// total work of the optimisations of a run that keeps n solutions by
	// about (1 + 1/g) times that of one over n, whatever the number of
	// updates.
	Growth float64 `json:"growth"`
	// Bits, 0, 8 or 16, is the precision of the parameters that the
	// learner keeps. 0 keeps them exact, as float64s. 8 or 16 keeps them
	// quantised: after each optimisation, and when a learner starts from
	// a table (NewLearnerFrom), the table's rows are sorted by context
	// (mutex set, then code) and each β is snapped to the nearest point
	// of a grid of its mutex set, −q·s for q in 0..2^Bits − 1, or ln εlow
	// where −q·s is below it: s is the set's smallest β over
	// −(2^Bits − 1), rounded up to a float32 (0, and every β of the set
	// snapped to 0, when that is below 2⁻¹²⁶). Each β moves by at most
	// s/2 ≤ |ln εlow|/(2·(2^Bits − 1))·(1 + 2⁻²³): 0.018 for 8 bits and
	// 7.0e-5 for 16 with εlow 1e-4. No row is shifted, as
	// WriteCompactTable's are: the regulariser is not invariant under a
	// shift. The learner's files (Save) and its snapshots then hold the
	// table in the compact form (docs/MODEL_FORMAT.md), exactly: Bits/8
	// bytes a parameter and the varint of the difference of the row's
	// code to the previous one of its mutex set (1 to 10 bytes, 1.8 on
	// average for the Witness) instead of 8 bytes a parameter and 12 a
	// row.
	Bits int `json:"bits,omitempty"`
	// The optimisation of each update.
	OptimizerConfig
}

// check returns an error if a field of c is out of range, and otherwise
// fills in the defaults.
func (c *LearnerConfig) check() error {
	switch {
	case c.EpsLow != 0 && !(c.EpsLow > 0 && c.EpsLow < 1):
		return fmt.Errorf("εlow %g; want a number in (0, 1) (0: %g)", c.EpsLow, DefaultEpsLow)
	case !(c.Growth >= 0) || math.IsInf(c.Growth, 0):
		return fmt.Errorf("growth %g; want a finite number ≥ 0", c.Growth)
	case c.Bits != 0 && c.Bits != 8 && c.Bits != 16:
		return fmt.Errorf("bits %d; want 0 (exact), 8 or 16", c.Bits)
	}
	if err := c.OptimizerConfig.check(); err != nil {
		return err
	}
	if c.EpsLow == 0 {
		c.EpsLow = DefaultEpsLow
	}
	return nil
}

// A Learner trains a context model by LTS+CM's procedure, as a
// bootstrap.Learner: it keeps the latest solution of each problem solved
// (bootstrap.Solution.Index), and its updates minimise the LTS loss of all
// the solutions kept (Optimize's objective) from the current parameters,
// at every update or as LearnerConfig.Growth spaces them. The reference
// optimises once per pass over the problems: ProblemsPerUpdate equal to
// the number of problems does the same.
//
// An update that does not optimise keeps its solutions pending. One that
// optimises creates the rows they lack, at β0 (which changes no
// prediction), in a copy of the table, in the order of their problems and
// steps, then optimises the copy and keeps it: the table of a run depends
// only on its solutions. With LearnerConfig.Bits, the parameters are then
// snapped to their grids and the rows sorted, so the compact form holds
// every table exactly.
//
// Its snapshots are tables that nothing changes; they marshal to table.safetensors's format (the
// compact one with Bits), which DecodeSnapshot reads. docs/ALGORITHMS.md
// gives the procedure in full.
type Learner[S comparable] struct {
	cfg   LearnerConfig
	table *Table
	// trajs holds the latest solution of each problem optimised over, by
	// index, and pending those received since the last optimisation
	// (each replacing the one of trajs of its problem, if any).
	trajs   map[int]trajectory
	pending map[int]pendingSolution
	// opt counts the solutions of the last optimisation, and changed the
	// solutions new or replaced since (LearnerConfig.Growth).
	opt counts
	// noDigest is set by LoadLearner for files without a digest
	// (NoDigest).
	noDigest bool
	// legacyMix is the training mix in (0, 1) of a learner that an
	// earlier phs saved, whose snapshots' evaluators mixed their policy
	// with it; 0 for the others, whose searches mix it
	// (search.Options.Mix). A resumed run thus goes on as it began.
	legacyMix float64
}

// NoDigest reports whether l was read (LoadLearner) from files written
// without the SHA-256 of their tensors, before phs recorded it: a
// table.safetensors without its own (Table.NoDigest), or a cm.json
// without that of trajectories.safetensors. Such files load unchecked,
// and a caller should warn that corruption cannot be detected; Save
// writes the digests.
func (l *Learner[S]) NoDigest() bool { return l.noDigest }

// A pendingSolution is a solution that no optimisation has covered yet:
// for each step t, the action taken and the codes of the M contexts of
// the state it was taken in (codes[t·M : (t+1)·M]), each in its mutex
// set's range.
type pendingSolution struct {
	actions []uint8
	codes   []uint64
}

// counts are a learner's counts of solutions for LearnerConfig.Growth.
type counts struct {
	Covered int `json:"covered"`
	Changed int `json:"changed"`
}

var _ bootstrap.Learner[int] = (*Learner[int])(nil)

// NewLearner returns a Learner of an empty table of layout l (LayoutOf a
// problem gives it).
func NewLearner[S comparable](l Layout, cfg LearnerConfig) (*Learner[S], error) {
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("cm: learner: %w", err)
	}
	t, err := NewTable(l, cfg.EpsLow)
	if err != nil {
		return nil, err
	}
	return &Learner[S]{cfg: cfg, table: t, trajs: map[int]trajectory{}, pending: map[int]pendingSolution{}}, nil
}

// NewLearnerFrom returns a Learner that starts from the parameters of
// table t, which it does not change, with no solution kept: to go on
// from a trained model on other problems (a curriculum), as LTS+CM's
// reference does from one training file to the next. cfg's εlow (0:
// DefaultEpsLow) must be t's. With cfg.Bits, it starts from a copy of t
// whose rows are sorted by context and whose parameters are snapped to
// their grids (LearnerConfig.Bits).
func NewLearnerFrom[S comparable](t *Table, cfg LearnerConfig) (*Learner[S], error) {
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("cm: learner: %w", err)
	}
	if math.Abs(t.EpsLow()-cfg.EpsLow) > 1e-15*cfg.EpsLow {
		return nil, fmt.Errorf("cm: learner: εlow %g, the table's %g", cfg.EpsLow, t.EpsLow())
	}
	t = t.Clone()
	if cfg.Bits > 0 {
		t.sortRows()
		snapToGrid(t, cfg.Bits)
	}
	return &Learner[S]{cfg: cfg, table: t, trajs: map[int]trajectory{}, pending: map[int]pendingSolution{}}, nil
}

// Config returns the learner's settings, with the defaults filled in.
func (l *Learner[S]) Config() LearnerConfig { return l.cfg }

// Table returns the current table, which later updates do not change.
func (l *Learner[S]) Table() *Table { return l.table }

// Solutions returns the number of problems whose latest solution the
// learner keeps, pending or not.
func (l *Learner[S]) Solutions() int {
	n := len(l.trajs)
	for k := range l.pending {
		if _, ok := l.trajs[k]; !ok {
			n++
		}
	}
	return n
}

// CheckAlgorithm returns an error unless alg reads a policy: a context
// model has no heuristic (h = 0), which suits LevinTS.
func (l *Learner[S]) CheckAlgorithm(alg search.Algorithm) error {
	if !alg.NeedsPolicy() {
		return fmt.Errorf("cm: %s reads no policy, and a context model has nothing else", alg.Name())
	}
	return nil
}

// Learn replaces the kept solution of each problem of batch by the new
// one and, unless Growth says to wait (the update then has no steps and
// leaves the table and the snapshots as they were), optimises. It returns
// an error, changing nothing, if a solution is not one of a problem of
// the table's layout, and ctx's error, changing nothing, if ctx is done
// before the optimisation ends. The update's PolicyLoss is log F at the
// end times its steps, so that the metrics' mean is log F.
func (l *Learner[S]) Learn(ctx context.Context, batch []bootstrap.Solution[S]) (bootstrap.Update, error) {
	if err := ctx.Err(); err != nil {
		return bootstrap.Update{}, err
	}
	fresh := make(map[int]pendingSolution, len(batch))
	for _, s := range batch {
		p, err := pendingOf(l.table.layout, s)
		if err != nil {
			return bootstrap.Update{}, err
		}
		if len(p.actions) > 0 { // else the start is a goal: nothing to learn
			fresh[s.Index] = p
		}
	}
	opt := counts{l.opt.Covered, l.opt.Changed + len(fresh)}
	if opt.Covered > 0 && float64(opt.Changed) < l.cfg.Growth*float64(opt.Covered) || opt.Changed == 0 {
		maps.Copy(l.pending, fresh)
		l.opt = opt
		return bootstrap.Update{}, nil
	}
	pending := maps.Clone(l.pending)
	maps.Copy(pending, fresh)
	return l.optimize(ctx, pending)
}

// Flush optimises over the solutions kept, as an update that optimises
// does, if some are pending, whatever Growth says, and otherwise does
// nothing. A run whose last updates did not optimise ends with solutions
// pending, which its table does not cover: Flush makes a table of them
// all. It returns ctx's error, changing nothing, if ctx is done before
// the optimisation ends.
func (l *Learner[S]) Flush(ctx context.Context) (bootstrap.Update, error) {
	if len(l.pending) == 0 {
		return bootstrap.Update{}, nil
	}
	return l.optimize(ctx, l.pending)
}

// optimize optimises a copy of the table over the solutions kept with
// those of pending in their place, and makes it the learner's: with
// Bits, snapped to its grids and sorted by context, log F that of the
// snapped table.
func (l *Learner[S]) optimize(ctx context.Context, pending map[int]pendingSolution) (bootstrap.Update, error) {
	t := l.table.Clone()
	trajs := l.merge(t, pending)
	o := l.objective(t, trajs)
	res, err := optimize(ctx, o, t.beta, t.logLow, l.cfg.OptimizerConfig)
	if err != nil {
		return bootstrap.Update{}, err
	}
	if l.cfg.Bits > 0 {
		snapToGrid(t, l.cfg.Bits)
		res.LogF = o.logValue(t.beta)
		sortRows(t, trajs)
	}
	l.table, l.trajs, l.pending, l.opt = t, trajs, map[int]pendingSolution{}, counts{Covered: len(trajs)}
	return bootstrap.Update{Steps: res.Steps, PolicyLoss: res.LogF * float64(res.Steps)}, nil
}

// merge returns the solutions kept with those of pending in their place
// as trajectories over t, creating in t the rows of pending's new
// contexts, by problem index and then step. Without pending solutions it
// returns l.trajs itself.
func (l *Learner[S]) merge(t *Table, pending map[int]pendingSolution) map[int]trajectory {
	if len(pending) == 0 {
		return l.trajs
	}
	trajs := make(map[int]trajectory, len(l.trajs)+len(pending))
	maps.Copy(trajs, l.trajs)
	for _, k := range slices.Sorted(maps.Keys(pending)) {
		trajs[k] = pending[k].trajectory(t)
	}
	return trajs
}

// sortRows sorts the rows of t by context (Table.sortRows) and renumbers
// the rows of trajs, trajectories over t, to match, in place. No two
// trajectories share the memory of their rows: each was made by
// pendingSolution.trajectory or read from a file.
func sortRows(t *Table, trajs map[int]trajectory) {
	renum := t.sortRows()
	if renum == nil {
		return
	}
	for _, tr := range trajs {
		for i, r := range tr.rows {
			tr.rows[i] = renum[r]
		}
	}
}

// pendingOf returns the actions and context codes of solution s, which
// must be a solution of a problem of layout l.
func pendingOf[S comparable](l Layout, s bootstrap.Solution[S]) (pendingSolution, error) {
	pl, err := LayoutOf(s.Problem)
	if err != nil {
		return pendingSolution{}, err
	}
	if err := l.match(pl); err != nil {
		return pendingSolution{}, err
	}
	cp := s.Problem.(Contexter[S])
	M, A := len(l.Sizes), l.Actions
	tr := s.Trajectory
	if tr == nil || len(tr.States) != len(tr.Actions) {
		return pendingSolution{}, fmt.Errorf("cm: problem %d: a trajectory without as many states as actions", s.Index)
	}
	p := pendingSolution{actions: make([]uint8, len(tr.Actions)), codes: make([]uint64, len(tr.Actions)*M)}
	for i, st := range tr.States {
		a := tr.Actions[i]
		if a < 0 || a >= A {
			return pendingSolution{}, fmt.Errorf("cm: problem %d, step %d: action %d out of range", s.Index, i, a)
		}
		p.actions[i] = uint8(a)
		codes := p.codes[i*M : (i+1)*M]
		if i == 0 {
			cp.Contexts(st, -1, st, codes)
		} else {
			cp.Contexts(tr.States[i-1], tr.Actions[i-1], st, codes)
		}
		for set, code := range codes {
			if code >= l.Sizes[set] {
				return pendingSolution{}, fmt.Errorf("cm: problem %d, step %d: code %d of mutex set %d out of its range %d", s.Index, i, code, set, l.Sizes[set])
			}
		}
	}
	return p, nil
}

// trajectory returns p as a trajectory over t, creating the rows of its
// new contexts, step by step.
func (p pendingSolution) trajectory(t *Table) trajectory {
	M := len(t.layout.Sizes)
	tr := trajectory{actions: p.actions, rows: make([]int32, len(p.codes))}
	for i, code := range p.codes {
		tr.rows[i] = t.addRow(i%M, code)
	}
	return tr
}

// objective returns the objective of trajs over t, the trajectories in
// the order of their problems' indices.
func (l *Learner[S]) objective(t *Table, trajs map[int]trajectory) *objective {
	keys := make([]int, 0, len(trajs))
	for k := range trajs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	list := make([]trajectory, len(keys))
	for i, k := range keys {
		list[i] = trajs[k]
	}
	return newObjective(t.layout.Actions, len(t.layout.Sizes), l.cfg.Lambda, t.Beta0(), list, l.cfg.Threads)
}

// Loss returns log F of the current table over the solutions kept,
// pending or not: what the next optimisation starts from. With pending
// solutions it computes it on a copy of the table with their rows.
func (l *Learner[S]) Loss() float64 {
	t := l.table
	if len(l.pending) > 0 {
		t = t.Clone()
	}
	return l.objective(t, l.merge(t, l.pending)).logValue(t.beta)
}

// Snapshot returns the current table.
func (l *Learner[S]) Snapshot() bootstrap.Snapshot[S] {
	return &Snapshot[S]{t: l.table, mix: l.legacyMix, bits: l.cfg.Bits}
}

// A Snapshot is a table that nothing changes, the mix of its evaluators
// (Learner.legacyMix) and the bits of its form (LearnerConfig.Bits: 0 for β as F64, 8 or 16
// for the compact form).
type Snapshot[S comparable] struct {
	t    *Table
	mix  float64
	bits int
}

// Table returns the snapshot's table.
func (s *Snapshot[S]) Table() *Table { return s.t }

// NewEvaluator returns an Evaluator of the table.
func (s *Snapshot[S]) NewEvaluator() search.Evaluator[S] {
	return &Evaluator[S]{t: s.t, mix: s.mix}
}

// MarshalBinary returns the table as a learner's table.safetensors holds
// it, exactly, so that a search gives the same result on any worker: in
// the format of table.safetensors, β as F64, or, for a learner with
// LearnerConfig.Bits, in the compact form of that many bits; with the
// mix in its metadata "mix".
func (s *Snapshot[S]) MarshalBinary() ([]byte, error) {
	return marshalLearnerTable(s.t, s.bits, map[string]string{"mix": strconv.FormatFloat(s.mix, 'g', -1, 64)})
}

// marshalLearnerTable returns t as a learner with Bits bits writes it,
// exactly, with meta added to its metadata: in the format of
// table.safetensors, β as F64, for 0 bits; else in the compact form,
// which it returns an error for unless each β of t is on its grid
// (LearnerConfig.Bits).
func marshalLearnerTable(t *Table, bits int, meta map[string]string) ([]byte, error) {
	if bits == 0 {
		return marshalTable(t, meta, false)
	}
	return marshalCompact(t, bits, true, meta)
}

// unmarshalLearnerTable returns the table of b, a learner's table or
// snapshot, its metadata and the bits of its form, checking every field:
// in the format of table.safetensors (0 bits), or in the compact form (8
// or 16 bits), each β then on the grid of its mutex set and each scale
// the grid's (gridScales), bit for bit, as a learner with Bits keeps and
// writes them.
func unmarshalLearnerTable(b []byte) (*Table, map[string]string, int, error) {
	return unmarshalAnyTable(b, learnerGrid)
}

// learnerGrid returns an error unless t, read from a compact table of
// bits bits whose tensors are ts, is on the grids of a learner with that
// many bits: each β on the grid of its mutex set and each scale of the
// file the grid's (gridScales), bit for bit.
func learnerGrid(t *Table, bits int, ts map[string]safetensors.Tensor) error {
	if err := onGrid(t, bits); err != nil {
		return fmt.Errorf("a learner's compact table: %w", err)
	}
	want := gridScales(t, bits)
	for i, s := range ts[compactScales].F32s() {
		if math.Float32bits(s) != math.Float32bits(want[i]) {
			return fmt.Errorf("a learner's compact table: mutex set %d: scale %v, its grid's %v", i, s, want[i])
		}
	}
	return nil
}

// tableForm describes the form of a learner's table of bits bits.
func tableForm(bits int) string {
	if bits == 0 {
		return fmt.Sprintf("β exact (format %q)", formatName)
	}
	return fmt.Sprintf("β quantised to %d bits (format %q)", bits, compactFormatName)
}

// DecodeSnapshot returns the snapshot that Snapshot.MarshalBinary wrote
// to b: the decoder of the workers of a context model's run. A file that
// is not such a snapshot is an error, a compact one included whose
// parameters are not on their grids (LearnerConfig.Bits).
func DecodeSnapshot[S comparable](b []byte) (bootstrap.Snapshot[S], error) {
	t, meta, bits, err := unmarshalLearnerTable(b)
	if err != nil {
		return nil, fmt.Errorf("cm: snapshot: %w", err)
	}
	mix, err := strconv.ParseFloat(meta["mix"], 64)
	if err != nil || !(mix >= 0 && mix < 1) {
		return nil, fmt.Errorf("cm: snapshot: mix %q; want a number in [0, 1)", meta["mix"])
	}
	return &Snapshot[S]{t: t, mix: mix, bits: bits}, nil
}

// Files of a learner's directory.
const (
	LearnerFile      = "cm.json"
	TableFile        = "table.safetensors"
	TrajectoriesFile = "trajectories.safetensors"
)

// FindTable returns the table file of the context model that path names,
// and whether it names one: path itself if it is a file (a table that
// WriteTable wrote), else the table of the learner saved in
// path/checkpoint (a training run's directory) or in path (Learner.Save),
// else path/TableFile, compressed (GzipSuffix) or not.
func FindTable(path string) (string, bool) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return "", false
	case fi.Mode().IsRegular():
		return path, true
	}
	for _, dir := range []string{filepath.Join(path, "checkpoint"), path} {
		if _, err := os.Stat(filepath.Join(dir, LearnerFile)); err == nil {
			return learnerFile(dir, TableFile), true
		}
	}
	if name := learnerFile(path, TableFile); exists(name) {
		return name, true
	}
	return "", false
}

// learnerFile returns the file of a learner's directory dir that holds
// base (TableFile or TrajectoriesFile): dir/base+GzipSuffix, which Save
// writes, if it exists, else dir/base, which an earlier phs wrote.
func learnerFile(dir, base string) string {
	if name := filepath.Join(dir, base+GzipSuffix); exists(name) {
		return name
	}
	return filepath.Join(dir, base)
}

// exists reports whether the file name exists.
func exists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// learnerState is what LearnerFile holds.
type learnerState struct {
	Config storedConfig `json:"config"`
	Layout Layout       `json:"layout"`
	// Solutions are the counts of LearnerConfig.Growth.
	Solutions counts `json:"solutions"`
	// TrajectoriesSHA256 is the SHA-256 of the tensors of
	// TrajectoriesFile (safetensors.Digest); empty in the files of a phs
	// that did not record it.
	TrajectoriesSHA256 string `json:"trajectories_sha256,omitempty"`
}

// storedConfig is a LearnerConfig as LearnerFile holds it, with the
// training mix of a learner that an earlier phs saved (Learner.legacyMix).
type storedConfig struct {
	LearnerConfig
	Mix float64 `json:"mix,omitempty"`
}

// Save writes the learner to directory dir, which exists: its settings
// and layout to cm.json, its table to table.safetensors.gz (β as F64,
// exactly, or with LearnerConfig.Bits in the compact form, exactly) and
// the solutions it keeps, pending or not, to
// trajectories.safetensors.gz as their problems' indices and their
// actions alone (see docs/MODEL_FORMAT.md), each file compressed
// (GzipSuffix) and replaced atomically, cm.json last; it then removes the
// uncompressed files of an earlier phs. The table's metadata holds the
// SHA-256 of its tensors, cm.json that of the trajectories'. The
// contexts of the solutions' states are not written: LoadLearner
// rebuilds them by replaying the actions from the problems' start
// states. The solutions are written as they are read, in pieces: Save
// holds no second copy of them.
func (l *Learner[S]) Save(dir string) error {
	tb, err := marshalLearnerTable(l.table, l.cfg.Bits, nil)
	if err != nil {
		return fmt.Errorf("cm: %w", err)
	}
	if err := writeFile(filepath.Join(dir, TableFile+GzipSuffix), tb); err != nil {
		return fmt.Errorf("cm: %w", err)
	}
	fw, err := createFile(filepath.Join(dir, TrajectoriesFile+GzipSuffix))
	if err != nil {
		return fmt.Errorf("cm: %w", err)
	}
	digest, err := l.writeTrajectories(fw)
	if err != nil {
		fw.Abort()
		return fmt.Errorf("cm: %s: %w", TrajectoriesFile, err)
	}
	if err := fw.Commit(); err != nil {
		return fmt.Errorf("cm: %w", err)
	}
	js, err := l.settings(digest)
	if err != nil {
		return fmt.Errorf("cm: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, LearnerFile), js); err != nil {
		return fmt.Errorf("cm: %w", err)
	}
	for _, base := range []string{TableFile, TrajectoriesFile} {
		if err := os.Remove(filepath.Join(dir, base)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cm: %w", err)
		}
	}
	return nil
}

// settings returns the contents of cm.json, with trajectories, the
// digest of the tensors of trajectories.safetensors.
func (l *Learner[S]) settings(trajectories string) ([]byte, error) {
	js, err := json.MarshalIndent(learnerState{Config: storedConfig{l.cfg, l.legacyMix}, Layout: l.table.layout, Solutions: l.opt, TrajectoriesSHA256: trajectories}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(js, '\n'), nil
}

// writeTrajectories writes trajectories.safetensors to w: the solutions
// optimised over, then those pending, each as their problems' indices,
// lengths and actions, in the order of the indices. It returns the
// SHA-256 of the file's tensors (safetensors.Digest).
func (l *Learner[S]) writeTrajectories(w io.Writer) (string, error) {
	src := map[string]safetensors.Source{}
	addColumns(src, "", l.trajs, func(tr trajectory) []uint8 { return tr.actions })
	if len(l.pending) > 0 {
		addColumns(src, "pending_", l.pending, func(p pendingSolution) []uint8 { return p.actions })
	}
	return safetensors.Write(w, src, map[string]string{"format": formatName})
}

// addColumns adds to src the columns of trajectories.safetensors for the
// solutions of m, in the order of their problems' indices: prefix+"index"
// (I64), prefix+"length" (I32) and prefix+"action" (U8, end to end), of
// the actions that actions returns of each solution.
func addColumns[E any](src map[string]safetensors.Source, prefix string, m map[int]E, actions func(E) []uint8) {
	keys := make([]int, 0, len(m))
	total := 0
	for k, e := range m {
		keys = append(keys, k)
		total += len(actions(e))
	}
	slices.Sort(keys)
	// column writes the bytes that add appends for each solution in turn,
	// in pieces of about 64 KiB, through buf: the columns are written one
	// after the other.
	buf := make([]byte, 0, 1<<17)
	column := func(add func(b []byte, k int, actions []uint8) []byte) func(io.Writer) error {
		return func(w io.Writer) error {
			b := buf[:0]
			for _, k := range keys {
				if b = add(b, k, actions(m[k])); len(b) >= 1<<16 {
					if _, err := w.Write(b); err != nil {
						return err
					}
					b = b[:0]
				}
			}
			_, err := w.Write(b)
			return err
		}
	}
	src[prefix+"index"] = safetensors.Source{DType: "I64", Shape: []int{len(keys)}, Write: column(func(b []byte, k int, _ []uint8) []byte {
		return binary.LittleEndian.AppendUint64(b, uint64(k))
	})}
	src[prefix+"length"] = safetensors.Source{DType: "I32", Shape: []int{len(keys)}, Write: column(func(b []byte, _ int, a []uint8) []byte {
		return binary.LittleEndian.AppendUint32(b, uint32(len(a)))
	})}
	src[prefix+"action"] = safetensors.Source{DType: "U8", Shape: []int{total}, Write: column(func(b []byte, _ int, a []uint8) []byte {
		return append(b, a...)
	})}
}

// LoadLearner reads the learner that Learner.Save wrote to dir (its files
// compressed, or not as an earlier phs wrote them), whose
// optimisations run on threads goroutines (OptimizerConfig.Threads, which
// Save does not write). tasks are the run's problems, which the solutions
// are of: the file holds each solution's problem as its index in tasks
// and its actions, and LoadLearner rebuilds the contexts of its states by
// replaying the actions from the problem's start state. It needs no tasks
// for a learner without solutions, nor for the earlier form of the file,
// which holds the contexts (docs/MODEL_FORMAT.md); given tasks, it
// replays the solutions of that form too, and checks that its contexts
// are those of the replay.
//
// Every field is checked: a file that is not such a learner, whose table
// has another layout or other settings than cm.json, or whose solutions
// do not replay (an index outside tasks, a problem of another layout, an
// illegal action, a last state that is no goal, or a solution optimised
// over with a context that the table lacks) is an error. The replay does
// not tell other problems on which the actions happen to replay from the
// run's: bootstrap.Resume checks the problems (their IDs and start
// states) before it loads the learner.
func LoadLearner[S comparable](dir string, threads int, tasks ...search.Task[S]) (*Learner[S], error) {
	if threads < 0 || threads > MaxThreads {
		return nil, fmt.Errorf("cm: threads %d; want 1 to %d (0: 1)", threads, MaxThreads)
	}
	b, err := os.ReadFile(filepath.Join(dir, LearnerFile))
	if err != nil {
		return nil, fmt.Errorf("cm: %w", err)
	}
	tb, err := readData(osOpen, learnerFile(dir, TableFile))
	if err != nil {
		return nil, fmt.Errorf("cm: %w", err)
	}
	tj, err := readData(osOpen, learnerFile(dir, TrajectoriesFile))
	if err != nil {
		return nil, fmt.Errorf("cm: %w", err)
	}
	l, err := decodeLearner(b, tb, tj, tasks)
	if err != nil {
		return nil, fmt.Errorf("cm: %s: %w", dir, err)
	}
	l.cfg.Threads = threads
	return l, nil
}

// decodeLearner returns the learner of the three files' contents, the
// solutions of the problems of tasks.
func decodeLearner[S comparable](js, tb, tj []byte, tasks []search.Task[S]) (*Learner[S], error) {
	var st learnerState
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("%s: %w", LearnerFile, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: data after the settings", LearnerFile)
	}
	cfg := st.Config.LearnerConfig
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", LearnerFile, err)
	}
	if mix := st.Config.Mix; mix != 0 && !(mix > 0 && mix < 1) {
		return nil, fmt.Errorf("%s: mix %g; want a number in (0, 1)", LearnerFile, mix)
	}
	if st.TrajectoriesSHA256 != "" {
		if err := safetensors.ValidDigest(st.TrajectoriesSHA256); err != nil {
			return nil, fmt.Errorf("%s: trajectories_sha256: %w", LearnerFile, err)
		}
	}
	if cfg != st.Config.LearnerConfig {
		return nil, fmt.Errorf("%s: a setting is 0 (Save writes them all): %+v", LearnerFile, st.Config.LearnerConfig)
	}
	t, _, bits, err := unmarshalLearnerTable(tb)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", TableFile, err)
	}
	if bits != cfg.Bits {
		return nil, fmt.Errorf("%s: %s; %s says bits %d: %s", TableFile, tableForm(bits), LearnerFile, cfg.Bits, tableForm(cfg.Bits))
	}
	if !t.layout.equal(st.Layout) {
		return nil, fmt.Errorf("%s: the table's layout %q differs from %s's", TableFile, t.layout.Name, LearnerFile)
	}
	if math.Abs(t.EpsLow()-cfg.EpsLow) > 1e-15*cfg.EpsLow {
		return nil, fmt.Errorf("%s: εlow %g, %s says %g", TableFile, t.EpsLow(), LearnerFile, cfg.EpsLow)
	}
	trajs, pending, err := decodeTrajectories(tj, t, tasks, st.TrajectoriesSHA256)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", TrajectoriesFile, err)
	}
	if c := st.Solutions; c.Covered < 0 || c.Changed < 0 || c.Covered > len(trajs) || c.Changed < len(pending) {
		return nil, fmt.Errorf("%s: solutions %+v: want counts ≥ 0, covered at most the %d solutions optimised over, changed at least the %d pending", LearnerFile, c, len(trajs), len(pending))
	}
	noDigest := t.noDigest || st.TrajectoriesSHA256 == ""
	return &Learner[S]{cfg: cfg, table: t, trajs: trajs, pending: pending, opt: st.Solutions, noDigest: noDigest, legacyMix: st.Config.Mix}, nil
}

// decodeTrajectories reads the solutions of trajectories.safetensors:
// those optimised over, whose contexts must have rows in t, and those
// pending, whose codes must be in their mutex sets' ranges. In the
// current form, the file holds their actions alone, which it replays from
// the start states of their problems in tasks; in the earlier one, it
// also holds the rows (tensor "rows"), and the codes of those pending
// ("pending_codes"), which must be those of t's mutex sets and, with
// tasks, those of the replay. Its tensors must have the SHA-256 digest,
// unless it is empty.
func decodeTrajectories[S comparable](b []byte, t *Table, tasks []search.Task[S], digest string) (map[int]trajectory, map[int]pendingSolution, error) {
	ts, meta, err := safetensors.Decode(b)
	if err != nil {
		return nil, nil, err
	}
	if meta["format"] != formatName {
		return nil, nil, fmt.Errorf("format %q, want %q", meta["format"], formatName)
	}
	if digest != "" {
		if err := safetensors.CheckDigest(safetensors.Digest(ts), digest); err != nil {
			return nil, nil, fmt.Errorf("%w (%s's trajectories_sha256)", err, LearnerFile)
		}
	}
	_, earlier := ts["rows"]
	if _, ok := ts["pending_codes"]; ok && !earlier {
		return nil, nil, errors.New(`tensor "pending_codes" without "rows": a mix of the two forms`)
	}
	M, A := len(t.layout.Sizes), t.layout.Actions
	// problem returns the problem of index, that of the solution that
	// name describes, whose actions the caller replays; or nil, for a
	// file of the earlier form without tasks, which it checks without a
	// replay; or an error if the index is not that of a task.
	problem := func(name string, index int) (search.Problem[S], error) {
		switch {
		case index < len(tasks):
			return tasks[index].Problem, nil
		case len(tasks) > 0:
			return nil, fmt.Errorf("%s: problem %d; the run has %d", name, index, len(tasks))
		case !earlier:
			return nil, fmt.Errorf("%s: problem %d: the contexts of the solutions are rebuilt from the run's problems, and there are none", name, index)
		}
		return nil, nil
	}
	checkActions := func(name string, actions []uint8) error {
		for i, a := range actions {
			if int(a) >= A {
				return fmt.Errorf("%s, step %d: action %d out of range", name, i, a)
			}
		}
		return nil
	}
	trajs := map[int]trajectory{}
	column, dtype := "", "" // of the earlier form's contexts
	if earlier {
		column, dtype = "rows", "I32"
	}
	err = decodeSolutions(ts, "", column, dtype, M, safetensors.Tensor.I32s, func(name string, index int, actions []uint8, rows []int32) error {
		if _, dup := trajs[index]; dup {
			return fmt.Errorf("%s: a second solution of problem %d", name, index)
		}
		p, err := problem(name, index)
		if err != nil {
			return err
		}
		if err := checkActions(name, actions); err != nil {
			return err
		}
		if earlier {
			for i := range actions {
				for set, r := range rows[i*M : (i+1)*M] {
					if r < 0 || int(r) >= t.Rows() || t.rowSet[r] != int32(set) {
						return fmt.Errorf("%s, step %d: row %d is no context of mutex set %d", name, i, r, set)
					}
				}
			}
		}
		if p != nil {
			replayed := make([]int32, len(actions)*M)
			err := replay(p, t.layout, actions, func(i int, codes []uint64) error {
				for set, code := range codes {
					r := t.row(set, code)
					switch {
					case r < 0:
						return fmt.Errorf("step %d: the table has no row of the context (mutex set %d, code %d)", i, set, code)
					case earlier && r != rows[i*M+set]:
						return fmt.Errorf("step %d: row %d of mutex set %d is not that of the context of the state, %d", i, rows[i*M+set], set, r)
					}
					replayed[i*M+set] = r
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("%s (problem %d): %w", name, index, err)
			}
			rows = replayed
		}
		trajs[index] = trajectory{actions: actions, rows: rows}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	pending := map[int]pendingSolution{}
	if !slices.ContainsFunc([]string{"index", "length", "action", "codes"}, func(name string) bool { _, ok := ts["pending_"+name]; return ok }) {
		return trajs, pending, nil
	}
	if earlier {
		column, dtype = "codes", "U64"
	}
	err = decodeSolutions(ts, "pending_", column, dtype, M, safetensors.Tensor.U64s, func(name string, index int, actions []uint8, codes []uint64) error {
		if _, dup := pending[index]; dup {
			return fmt.Errorf("%s: a second pending solution of problem %d", name, index)
		}
		p, err := problem(name, index)
		if err != nil {
			return err
		}
		if err := checkActions(name, actions); err != nil {
			return err
		}
		if earlier {
			for i := range actions {
				for set, code := range codes[i*M : (i+1)*M] {
					if code >= t.layout.Sizes[set] {
						return fmt.Errorf("%s, step %d: code %d of mutex set %d out of its range %d", name, i, code, set, t.layout.Sizes[set])
					}
				}
			}
		}
		if p != nil {
			replayed := make([]uint64, len(actions)*M)
			err := replay(p, t.layout, actions, func(i int, c []uint64) error {
				if earlier && !slices.Equal(c, codes[i*M:(i+1)*M]) {
					return fmt.Errorf("step %d: the codes are not those of the contexts of the state", i)
				}
				copy(replayed[i*M:(i+1)*M], c)
				return nil
			})
			if err != nil {
				return fmt.Errorf("%s (problem %d): %w", name, index, err)
			}
			codes = replayed
		}
		pending[index] = pendingSolution{actions: actions, codes: codes}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return trajs, pending, nil
}

// decodeSolutions reads the tensors prefix+"index", prefix+"length" and
// prefix+"action" of ts and, unless values is "", prefix+values (dtype,
// [steps, M], read by conv), and calls f on each solution in turn: its
// name ("solution 3", "pending solution 3": its number in the file), its
// problem's index, its actions and its steps' values (nil without
// values). It checks the indices, the lengths and the shapes, f the rest.
func decodeSolutions[T any](ts map[string]safetensors.Tensor, prefix, values, dtype string, M int, conv func(safetensors.Tensor) []T, f func(name string, index int, actions []uint8, values []T) error) error {
	it, err := get(ts, prefix+"index", "I64", -1)
	if err != nil {
		return err
	}
	N := it.Shape[0]
	lt, err := get(ts, prefix+"length", "I32", N)
	if err != nil {
		return err
	}
	at, err := get(ts, prefix+"action", "U8", -1)
	if err != nil {
		return err
	}
	steps := at.Shape[0]
	var vs []T
	if values != "" {
		vt, err := get(ts, prefix+values, dtype, steps, M)
		if err != nil {
			return err
		}
		vs = conv(vt)
	}
	what := strings.ReplaceAll(prefix, "_", " ")
	index, lengths, actions := it.I64s(), lt.I32s(), at.Data
	pos := 0
	for k := range N {
		n := int(lengths[k])
		name := fmt.Sprintf("%ssolution %d", what, k)
		if index[k] < 0 || index[k] > math.MaxInt32 || n < 1 || n > steps-pos {
			return fmt.Errorf("%s: index %d, %d steps: out of range", name, index[k], n)
		}
		var v []T
		if vs != nil {
			v = vs[pos*M : (pos+n)*M]
		}
		if err := f(name, int(index[k]), slices.Clone(actions[pos:pos+n]), v); err != nil {
			return err
		}
		pos += n
	}
	if pos != steps {
		return fmt.Errorf("%d %ssteps, the solutions have %d", steps, what, pos)
	}
	return nil
}

// replay applies actions from the start state of p, which must be a
// Contexter of layout l, and calls f with each step's number and the
// codes of the M contexts of the state its action is taken in, reached by
// the step before (codes' memory is reused from call to call); f's error
// stops it. It returns an error if an action is out of range or illegal,
// a code out of its mutex set's range, or the last state no goal.
func replay[S comparable](p search.Problem[S], l Layout, actions []uint8, f func(step int, codes []uint64) error) error {
	pl, err := LayoutOf(p)
	if err != nil {
		return err
	}
	if err := l.match(pl); err != nil {
		return err
	}
	cp := p.(Contexter[S])
	codes := make([]uint64, len(l.Sizes))
	s := p.Root()
	parent, prev := s, -1
	for i, a := range actions {
		cp.Contexts(parent, prev, s, codes)
		for set, code := range codes {
			if code >= l.Sizes[set] {
				return fmt.Errorf("step %d: code %d of mutex set %d out of its range %d", i, code, set, l.Sizes[set])
			}
		}
		if err := f(i, codes); err != nil {
			return err
		}
		if int(a) >= l.Actions {
			return fmt.Errorf("step %d: action %d out of range", i, a)
		}
		next, ok := p.Apply(s, int(a))
		if !ok {
			return fmt.Errorf("step %d: action %d is illegal", i, a)
		}
		parent, prev, s = s, int(a), next
	}
	if !p.IsGoal(s) {
		return fmt.Errorf("after %d actions: not a goal", len(actions))
	}
	return nil
}
