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
	res, err := search.BestFirst[stp.State](context.Background(), p, search.DomainHeuristic[stp.State]{}, search.AStar(), search.Options{GoalAtExpansion: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.ID, res.Solved, res.Actions)
	fmt.Println(p.Render(p.Root()))
	// Output:
	// tiles.txt#0 true [0 2]
	// 1 4 2
	// 3 . 5
	// 6 7 8
}
