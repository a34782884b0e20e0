package search_test

import (
	"context"
	"fmt"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// Solve a maze with PHS*, a uniform policy and the maze's Manhattan
// heuristic, as the paper's Algorithm 1 does: the goal tested at
// expansion, one node evaluated at a time.
func Example() {
	m := searchtest.ParseMaze(
		"S..#....",
		".#.#.##.",
		".#...#..",
		".####.#.",
		"......#G",
	)
	alg, err := search.Parse("phs*")
	if err != nil {
		panic(err)
	}
	opts := search.Options{GoalTest: search.GoalTestExpansion, BatchSize: 1}
	s, err := search.NewSolver[int32](alg, search.DomainHeuristic[int32]{}, opts)
	if err != nil {
		panic(err)
	}
	res, err := s.Solve(context.Background(), m)
	if err != nil {
		panic(err)
	}
	fmt.Println(alg, res.Solved, search.FormatActions(m, res.Actions), res.Cost)
	// Output: phsstar true RRDDRRUURRRDDDD 15
}

// A worker keeps one Solver for all its problems: once it has grown to the
// largest search, a solver allocates only the solutions it returns.
func ExampleSolver() {
	for _, alg := range []search.Algorithm{search.AStar(), search.WAStar(3), search.GBFS(), search.LevinTS(), search.PUCT(1)} {
		s, err := search.NewSolver[int32](alg, search.DomainHeuristic[int32]{}, search.Options{})
		if err != nil {
			panic(err)
		}
		var lengths []int
		for _, rows := range [][]string{
			{"S.....", ".####.", "......", ".####.", "G....."},
			{"S.#...", "..#.#.", "....#G"},
		} {
			res, err := s.Solve(context.Background(), searchtest.ParseMaze(rows...))
			if err != nil {
				panic(err)
			}
			lengths = append(lengths, len(res.Actions))
		}
		fmt.Printf("%-10v lengths %v\n", alg, lengths)
	}
	// Output:
	// astar      lengths [4 11]
	// wastar:3   lengths [4 11]
	// gbfs       lengths [4 11]
	// levints    lengths [4 11]
	// puct:1     lengths [4 11]
}

// SolveAll runs tasks on several solvers at once, with the results in input
// order.
func ExampleSolveAll() {
	tasks := []search.Task[int32]{
		{ID: "a", Problem: searchtest.ParseMaze("S..G")},
		{ID: "b", Problem: searchtest.ParseMaze("S#.", "...", ".#G")},
	}
	var solvers []*search.Solver[int32]
	for range 2 {
		s, err := search.NewSolver[int32](search.AStar(), search.DomainHeuristic[int32]{}, search.Options{})
		if err != nil {
			panic(err)
		}
		solvers = append(solvers, s)
	}
	err := search.SolveAll(context.Background(), tasks, solvers, func(i int, r search.Result[int32]) error {
		fmt.Println(tasks[i].ID, r.Solved, search.FormatActions(tasks[i].Problem, r.Actions))
		return nil
	})
	if err != nil {
		panic(err)
	}
	// Output:
	// a true RRR
	// b true DRRD
}
