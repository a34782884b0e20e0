package cm

import (
	"fmt"
	"slices"

	"github.com/phs-go/phs/search"
)

// A Contexter is a problem whose states have contexts for a context
// model: a fixed number M of mutex sets, each of which gives exactly one
// code in every state.
type Contexter[S comparable] interface {
	search.Problem[S]
	// ContextLayout returns the name of the problem's context set, which
	// tells it from the context sets of other domains, board sizes and
	// versions (such as "stp 5x5 v2"), and the number of codes of each of
	// its M mutex sets: the code of set i is in [0, sizes[i]). It is the
	// same for every call and for every problem whose states share the
	// meaning of their codes.
	ContextLayout() (name string, sizes []uint64)
	// Contexts writes to dst[i], for each mutex set i, the code in set i
	// of state s, reached from state parent by action a, or the root if a
	// is −1 (parent is then s): contexts such as the last action depend
	// on the edge, not on the state alone. len(dst) is M. It allocates
	// nothing.
	Contexts(parent S, a int, s S, dst []uint64)
}

// A Layout is the shape of a context model: the name of its domain's
// context set, its number of actions and the number of codes of each
// mutex set. A table fits the problems of one layout only.
type Layout struct {
	Name    string   `json:"name"`
	Actions int      `json:"actions"`
	Sizes   []uint64 `json:"sizes"`
}

// Limits of a layout, which bound the memory a file can make a loader
// allocate.
const (
	MaxActions    = 255
	MaxSets       = 1 << 16
	maxNameLen    = 256
	denseLimit    = 1 << 14 // sets with at most this many codes index rows densely,
	maxDenseCells = 1 << 22 // up to this many entries in all
	maxRowCount   = 1 << 28
)

// LayoutOf returns the layout of p, or an error if p is no Contexter or
// its layout is out of range.
func LayoutOf[S comparable](p search.Problem[S]) (Layout, error) {
	cp, ok := p.(Contexter[S])
	if !ok {
		return Layout{}, fmt.Errorf("cm: the problem has no contexts (no ContextLayout and Contexts methods)")
	}
	name, sizes := cp.ContextLayout()
	l := Layout{Name: name, Actions: p.NumActions(), Sizes: slices.Clone(sizes)}
	if err := l.check(); err != nil {
		return Layout{}, err
	}
	return l, nil
}

// check returns an error if l is out of range.
func (l Layout) check() error {
	switch {
	case l.Name == "" || len(l.Name) > maxNameLen:
		return fmt.Errorf("cm: layout name %q; want 1 to %d bytes", l.Name, maxNameLen)
	case l.Actions < 1 || l.Actions > MaxActions:
		return fmt.Errorf("cm: layout %s: %d actions; want 1 to %d", l.Name, l.Actions, MaxActions)
	case len(l.Sizes) < 1 || len(l.Sizes) > MaxSets:
		return fmt.Errorf("cm: layout %s: %d mutex sets; want 1 to %d", l.Name, len(l.Sizes), MaxSets)
	}
	for i, n := range l.Sizes {
		if n == 0 {
			return fmt.Errorf("cm: layout %s: mutex set %d has no code", l.Name, i)
		}
	}
	return nil
}

// equal reports whether l and m are the same layout.
func (l Layout) equal(m Layout) bool {
	return l.Name == m.Name && l.Actions == m.Actions && slices.Equal(l.Sizes, m.Sizes)
}

// match returns an error unless m, a problem's layout, is l.
func (l Layout) match(m Layout) error {
	switch {
	case l.Name != m.Name:
		return fmt.Errorf("cm: the model is for the context set %q, the problem has %q", l.Name, m.Name)
	case l.Actions != m.Actions:
		return fmt.Errorf("cm: the model has %d actions, the problem %d", l.Actions, m.Actions)
	case len(l.Sizes) != len(m.Sizes):
		return fmt.Errorf("cm: the model has %d mutex sets, the problem %d (context set %q)", len(l.Sizes), len(m.Sizes), l.Name)
	case !slices.Equal(l.Sizes, m.Sizes):
		return fmt.Errorf("cm: the model's mutex sets have other code ranges than the problem's (context set %q)", l.Name)
	}
	return nil
}
