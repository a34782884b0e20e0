package search_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// Solve a maze with PHS*, a uniform policy and the maze's Manhattan
// heuristic, as the paper's Algorithm 1 does: the goal tested at
// expansion, one node evaluated at a time.
func ExampleBestFirst() {
	m := searchtest.ParseMaze(
		"S..#....",
		".#.#.##.",
		".#...#..",
		".####.#.",
		"......#G",
	)
	alg, err := search.ParseAlgorithm("phs*", 0)
	if err != nil {
		panic(err)
	}
	opts := search.Options{GoalAtExpansion: true, BatchSize: 1}
	res, err := search.BestFirst[int32](context.Background(), m, search.DomainHeuristic[int32]{}, alg, opts)
	if err != nil {
		panic(err)
	}
	var path strings.Builder
	for _, a := range res.Actions {
		path.WriteByte("UDLR"[a])
	}
	fmt.Println(alg, res.Solved, path.String(), res.Cost)
	// Output: phsstar true RRDDRRUURRRDDDD 15
}

// A worker keeps one Engine for all its problems: once it has grown to the
// largest search, an engine allocates only the solutions it returns.
func ExampleEngine() {
	var e search.Engine[int32]
	for _, alg := range []search.Algorithm{search.AStar(), search.WAStar(3), search.GBFS(), search.LevinTS()} {
		m := searchtest.ParseMaze(
			"S.....",
			".####.",
			"......",
			".####.",
			"G.....",
		)
		res, err := e.Search(context.Background(), m, search.DomainHeuristic[int32]{}, alg, search.Options{GoalAtExpansion: true})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-7v solved %v, length %d\n", alg, res.Solved, len(res.Actions))
	}
	// Output:
	// astar   solved true, length 4
	// wastar  solved true, length 4
	// gbfs    solved true, length 4
	// levints solved true, length 4
}
