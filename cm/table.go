package cm

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// DefaultEpsLow is the reference's εlow: every expert's weight exp(β) is
// at least εlow, so the parameters lie in [ln εlow, 0].
const DefaultEpsLow = 1e-4

// A Table is the parameters of a context model: one row of A numbers β
// per known context, a context being a pair (mutex set, code), and an
// index from contexts to rows. Rows are numbered in order of creation.
// Every β lies in [ln εlow, 0]; a new row starts at β0 = (1 − 1/A)·ln εlow,
// the centre of the reference's "β-simplex" and of the regulariser.
//
// A Table is read by the searches of a snapshot at once and changed by
// nobody meanwhile: a learner changes a Clone.
type Table struct {
	layout Layout
	logLow float64
	index  []setIndex
	// rowSet and rowCode are the context of each row; beta is rows×A,
	// row-major.
	rowSet  []int32
	rowCode []uint64
	beta    []float64
	// denseCells counts the entries of the dense indexes.
	denseCells int
	// noDigest is set for a table read from a file without a digest
	// (NoDigest).
	noDigest bool
}

// NoDigest reports whether t was read (ReadTable, ReadTableFS,
// DecodeSnapshot, LoadLearner) from a file written without the SHA-256 of
// its tensors, before phs recorded it: such a file reads unchecked, and a
// caller should warn that corruption cannot be detected. It is false for
// a table made otherwise (NewTable, Clone, Prune).
func (t *Table) NoDigest() bool { return t.noDigest }

// A setIndex maps the codes of one mutex set to rows: densely (row+1, 0
// for unknown) when the set has at most denseLimit codes and the dense
// indexes of the table hold at most maxDenseCells entries, else a map.
type setIndex struct {
	dense  []int32
	sparse map[uint64]int32
}

// NewTable returns an empty table (no known context) of layout l, whose
// parameters lie in [ln epsLow, 0]; epsLow is in (0, 1), such as
// DefaultEpsLow.
func NewTable(l Layout, epsLow float64) (*Table, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	if !(epsLow > 0 && epsLow < 1) {
		return nil, fmt.Errorf("cm: εlow %g; want a number in (0, 1)", epsLow)
	}
	l.Sizes = slices.Clone(l.Sizes)
	return &Table{layout: l, logLow: math.Log(epsLow), index: make([]setIndex, len(l.Sizes))}, nil
}

// Layout returns the table's layout.
func (t *Table) Layout() Layout {
	l := t.layout
	l.Sizes = slices.Clone(l.Sizes)
	return l
}

// EpsLow returns εlow.
func (t *Table) EpsLow() float64 { return math.Exp(t.logLow) }

// Bounds returns the box of the parameters, [ln εlow, 0].
func (t *Table) Bounds() (lo, hi float64) { return t.logLow, 0 }

// Beta0 returns the parameters' value in a new row, (1 − 1/A)·ln εlow.
func (t *Table) Beta0() float64 { return (1 - 1/float64(t.layout.Actions)) * t.logLow }

// Rows returns the number of known contexts.
func (t *Table) Rows() int { return len(t.rowSet) }

// Row returns the row of context (set, code), or −1 if it is unknown.
func (t *Table) Row(set int, code uint64) int { return int(t.row(set, code)) }

// Beta returns the parameters of row r: the table's own memory, which
// must not be changed while searches use the table.
func (t *Table) Beta(r int) []float64 {
	A := t.layout.Actions
	return t.beta[r*A : (r+1)*A : (r+1)*A]
}

// Context returns the mutex set and the code of row r.
func (t *Table) Context(r int) (set int, code uint64) { return int(t.rowSet[r]), t.rowCode[r] }

// row returns the row of context (set, code), or −1.
func (t *Table) row(set int, code uint64) int32 {
	ix := &t.index[set]
	if ix.dense != nil {
		if code < uint64(len(ix.dense)) {
			return ix.dense[code] - 1
		}
		return -1
	}
	if r, ok := ix.sparse[code]; ok {
		return r
	}
	return -1
}

// addRow returns the row of context (set, code), appending one at β0 if
// it is unknown. It panics if code is out of the set's range.
func (t *Table) addRow(set int, code uint64) int32 {
	if r := t.row(set, code); r >= 0 {
		return r
	}
	size := t.layout.Sizes[set]
	if code >= size {
		panic(fmt.Sprintf("cm: code %d of mutex set %d out of its range [0, %d)", code, set, size))
	}
	r := int32(len(t.rowSet))
	ix := &t.index[set]
	switch {
	case ix.dense != nil:
		ix.dense[code] = r + 1
	case ix.sparse == nil && size <= denseLimit && t.denseCells+int(size) <= maxDenseCells:
		ix.dense = make([]int32, size)
		t.denseCells += int(size)
		ix.dense[code] = r + 1
	default:
		if ix.sparse == nil {
			ix.sparse = map[uint64]int32{}
		}
		ix.sparse[code] = r
	}
	t.rowSet = append(t.rowSet, int32(set))
	t.rowCode = append(t.rowCode, code)
	b0 := t.Beta0()
	for range t.layout.Actions {
		t.beta = append(t.beta, b0)
	}
	return r
}

// Clone returns a deep copy of t.
func (t *Table) Clone() *Table {
	c := &Table{
		layout:  t.Layout(),
		logLow:  t.logLow,
		index:   make([]setIndex, len(t.index)),
		rowSet:  slices.Clone(t.rowSet),
		rowCode: slices.Clone(t.rowCode),
		beta:    slices.Clone(t.beta),

		denseCells: t.denseCells,
	}
	for i, ix := range t.index {
		c.index[i] = setIndex{dense: slices.Clone(ix.dense)}
		if ix.sparse != nil {
			c.index[i].sparse = make(map[uint64]int32, len(ix.sparse))
			for k, v := range ix.sparse {
				c.index[i].sparse[k] = v
			}
		}
	}
	return c
}

// sortedRows returns t's rows in the order of their contexts: by mutex
// set, then by code.
func (t *Table) sortedRows() []int32 {
	order := make([]int32, t.Rows())
	for r := range order {
		order[r] = int32(r)
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(cmp.Compare(t.rowSet[a], t.rowSet[b]), cmp.Compare(t.rowCode[a], t.rowCode[b]))
	})
	return order
}

// sortRows puts t's rows in the order of their contexts (sortedRows), in
// place: t must not be in use by searches. It returns the new number of
// each row, by its old number, or nil if the rows were in that order.
func (t *Table) sortRows() []int32 {
	order := t.sortedRows()
	if slices.IsSortedFunc(order, cmp.Compare) {
		return nil
	}
	A := t.layout.Actions
	renum := make([]int32, len(order))
	sets, codes, beta := make([]int32, len(order)), make([]uint64, len(order)), make([]float64, len(t.beta))
	for i, r := range order {
		renum[r] = int32(i)
		set, code := t.rowSet[r], t.rowCode[r]
		sets[i], codes[i] = set, code
		copy(beta[i*A:(i+1)*A], t.Beta(int(r)))
		if ix := &t.index[set]; ix.dense != nil {
			ix.dense[code] = int32(i) + 1
		} else {
			ix.sparse[code] = int32(i)
		}
	}
	t.rowSet, t.rowCode, t.beta = sets, codes, beta
	return renum
}

// Prune returns a table of the rows of t whose parameters spread by more
// than tol (max β − min β > tol), in order, with the same layout and
// εlow. A row dropped adds at most tol to the log-probability ratios of
// any two actions in a state where its context occurs (it shifts the sum
// of every action by its own β, the softmax only by their differences):
// Prune(0) drops only the rows that change no policy, and a larger tol
// trades the policy's accuracy for a smaller table.
func (t *Table) Prune(tol float64) *Table {
	A := t.layout.Actions
	p := &Table{layout: t.Layout(), logLow: t.logLow, index: make([]setIndex, len(t.index))}
	for r := range t.Rows() {
		b := t.Beta(r)
		if slices.Max(b)-slices.Min(b) <= tol {
			continue
		}
		nr := p.addRow(int(t.rowSet[r]), t.rowCode[r])
		copy(p.beta[int(nr)*A:int(nr+1)*A], b)
	}
	return p
}

// logPolicy writes to out (len A) the log-policy of a state with context
// codes codes (len M): the normalised product of the experts of its
// known contexts, mixed with the uniform policy with weight mix. z is
// scratch of len A. It returns the number of known contexts; with none,
// the policy is uniform.
func (t *Table) logPolicy(codes []uint64, mix float64, z, out []float64) int {
	A := t.layout.Actions
	clear(z)
	known := 0
	for set, code := range codes {
		r := t.row(set, code)
		if r < 0 {
			continue
		}
		known++
		row := t.beta[int(r)*A : int(r)*A+A]
		for a, b := range row {
			z[a] += b
		}
	}
	if known == 0 {
		u := -math.Log(float64(A))
		for a := range out {
			out[a] = u
		}
		return 0
	}
	logSoftmax(z, out)
	if mix > 0 {
		u := mix / float64(A)
		for a, l := range out {
			out[a] = math.Log((1-mix)*math.Exp(l) + u)
		}
	}
	return known
}

// logSoftmax writes to out the log-softmax of z, max-shifted.
func logSoftmax(z, out []float64) {
	m := math.Inf(-1)
	for _, v := range z {
		m = max(m, v)
	}
	s := 0.0
	for _, v := range z {
		s += math.Exp(v - m)
	}
	lz := m + math.Log(s)
	for a, v := range z {
		out[a] = v - lz
	}
}
