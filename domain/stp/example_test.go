package stp_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/search"
)

func Example() {
	ps, err := stp.Parse(strings.NewReader("1 4 2 3 0 5 6 7 8\n"), "tiles.txt")
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
	p, err := stp.New(2, 3, []int{1, 2, 0, 3, 4, 5}, "tiny")
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
