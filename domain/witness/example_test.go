package witness_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/search"
)

func Example() {
	ps, err := witness.Parse(strings.NewReader("Size: 1 2\nInit: 0 0\nGoal: 1 2\nColors: |0 0 1|0 1 2\n"), "two.txt")
	if err != nil {
		panic(err)
	}
	p := ps[0]
	res, err := search.BestFirst[witness.State](context.Background(), p, search.DomainHeuristic[witness.State]{}, search.AStar(), search.Options{GoalAtExpansion: true})
	if err != nil {
		panic(err)
	}
	s := p.Root()
	for _, a := range res.Actions {
		s, _ = p.Apply(s, a)
	}
	fmt.Println(p.ID, res.Solved, len(res.Actions))
	fmt.Println(p.Render(s))
	// Output:
	// two.txt#0 true 3
	// . o-@
	//  1|2
	// S-o .
}
