package stp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/search"
)

func Example() {
	ps, err := stp.Parse[stp.State](strings.NewReader("1 4 2 3 0 5 6 7 8\n"), "tiles.txt")
	if err != nil {
		panic(err)
	}
	p := ps[0]
	solver, err := search.NewSolver[stp.State](search.AStar(), search.DomainHeuristic[stp.State]{}, search.Options{GoalTest: search.GoalTestExpansion})
	if err != nil {
		panic(err)
	}
	res, err := solver.Solve(context.Background(), p)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.ID, res.Solved, search.FormatActions(p, res.Actions))
	fmt.Println(p.Render(p.Root()))
	// Output:
	// tiles.txt#0 true UL
	// 1 4 2
	// 3 . 5
	// 6 7 8
}

func ExampleProblem_Apply() {
	p, err := stp.New[stp.State](2, 3, []int{1, 2, 0, 3, 4, 5}, "tiny")
	if err != nil {
		fmt.Println(err)
		return
	}
	s := p.Root()
	fmt.Println("h =", p.Heuristic(s))
	for _, a := range []int{stp.Left, stp.Left, stp.Up} {
		next, ok := p.Apply(s, a)
		fmt.Printf("%c legal: %v\n", "UDLR"[a], ok)
		if ok {
			s = next
		}
	}
	fmt.Println(p.Render(s))
	fmt.Println("goal:", p.IsGoal(s), "h =", p.Heuristic(s))
	fmt.Println(p)
	// Output:
	// h = 2
	// L legal: true
	// L legal: true
	// U legal: false
	// . 1 2
	// 3 4 5
	// goal: true h = 0
	// 2x3: 1 2 0 3 4 5
}

// A file whose board sizes are not known in advance is read with State
// and, if it has a board of more than stp.MaxCells cells, with LargeState;
// code generic over the state type serves both.
func ExampleParse_anySize() {
	text := "1 0 2 3\n7x7: 1 0"
	for t := 2; t < 49; t++ {
		text += fmt.Sprint(" ", t)
	}
	if ps, err := stp.Parse[stp.State](strings.NewReader(text), "any.txt"); err == nil {
		describe(ps)
	} else if errors.Is(err, stp.ErrLarge) {
		fmt.Println(err)
		ps, err := stp.Parse[stp.LargeState](strings.NewReader(text), "any.txt")
		if err != nil {
			panic(err)
		}
		describe(ps)
	}
	// Output:
	// stp: any.txt:2: size 7x7: more than 25 cells: a board for LargeState
	// any.txt#0: 2x2, h = 1
	// any.txt#1: 7x7, h = 1
}

// describe prints the ID, size and Manhattan distance of each puzzle.
func describe[S stp.Arrangement[S]](ps []*stp.Problem[S]) {
	for _, p := range ps {
		fmt.Printf("%s: %dx%d, h = %g\n", p.ID, p.Rows, p.Cols, p.Heuristic(p.Root()))
	}
}
