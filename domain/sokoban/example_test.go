package sokoban_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/search"
)

func Example() {
	ps, err := sokoban.Parse(strings.NewReader("; 3\n######\n#@$ .#\n######\n"), "tiny.txt")
	if err != nil {
		panic(err)
	}
	p := ps[0]
	res, err := search.BestFirst[sokoban.State](context.Background(), p, search.DomainHeuristic[sokoban.State]{}, search.GBFS(), search.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.ID, res.Solved, res.Actions)
	// Output: tiny.txt#3 true [3 3]
}
