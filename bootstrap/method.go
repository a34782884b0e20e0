package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/phs-go/phs/search"
)

// Methods lists the algorithm names ParseMethod accepts, in the spelling
// that needs no shell quoting.
var Methods = []string{"phsstar", "phsh", "levints", "astar", "wastar", "gbfs", "puct", "phssafe"}

// A Method is a search algorithm with its parameters: one of the best-first
// algorithms of package search, or PUCT.
type Method struct {
	// Name is one of Methods.
	Name string
	// W is the weight of h for wastar; C is PUCT's exploration constant.
	W, C float64
}

// ParseMethod returns the method called name: "puct" or a name that
// search.ParseAlgorithm takes (the names in Methods and the usual spellings
// "phs*", "phs_h", "a*" and "wa*").
func ParseMethod(name string, w, c float64) (Method, error) {
	if strings.EqualFold(name, "puct") {
		return Method{Name: "puct", W: w, C: c}, nil
	}
	alg, err := search.ParseAlgorithm(name, w)
	if errors.Is(err, search.ErrUnknownAlgorithm) {
		return Method{}, fmt.Errorf("unknown algorithm %q (want %s)", name, strings.Join(Methods, ", "))
	}
	if err != nil {
		return Method{}, err
	}
	return Method{Name: alg.Name, W: w, C: c}, nil
}

// NewSolver returns a Solver that runs m with evaluator ev and options opts.
// The solver reuses its memory from one search to the next; give each
// goroutine its own.
func NewSolver[S comparable](m Method, ev search.Evaluator[S], opts search.Options) (Solver[S], error) {
	if m.Name == "puct" {
		popts := search.PUCTOptions{Options: opts, C: m.C}
		var e search.PUCTEngine[S]
		return func(ctx context.Context, p search.Problem[S]) (search.Result[S], error) {
			return e.Search(ctx, p, ev, popts)
		}, nil
	}
	alg, err := search.ParseAlgorithm(m.Name, m.W)
	if err != nil {
		return nil, err
	}
	var e search.Engine[S]
	return func(ctx context.Context, p search.Problem[S]) (search.Result[S], error) {
		return e.Search(ctx, p, ev, alg, opts)
	}, nil
}

// NewSolvers returns n solvers of method m with options opts, each with its
// own evaluator from newEval, for Solve.
func NewSolvers[S comparable](m Method, opts search.Options, n int, newEval func() search.Evaluator[S]) ([]Solver[S], error) {
	solvers := make([]Solver[S], n)
	for i := range solvers {
		s, err := NewSolver(m, newEval(), opts)
		if err != nil {
			return nil, err
		}
		solvers[i] = s
	}
	return solvers, nil
}
