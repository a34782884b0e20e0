package sokoban_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/search"
)

func Example() {
	const level = `; 3
#######
#@$  .#
#######
`
	ps, err := sokoban.Parse(strings.NewReader(level), "tiny.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	p := ps[0]
	s := p.Root()
	fmt.Println(p.ID, "h =", p.Heuristic(s))
	for _, a := range []int{sokoban.Right, sokoban.Right, sokoban.Right} {
		s, _ = p.Apply(s, a)
	}
	fmt.Println(p.Render(s))
	fmt.Println("solved:", p.IsGoal(s), "h =", p.Heuristic(s))
	_, ok := p.Apply(s, sokoban.Right) // the box would go into the wall
	fmt.Println("pushing on:", ok)
	// Output:
	// tiny.txt#3 h = 3
	// #######
	// #   @*#
	// #######
	// solved: true h = 0
	// pushing on: false
}

// Example_search solves a level with greedy best-first search guided by
// the package's heuristic.
func Example_search() {
	ps, err := sokoban.Parse(strings.NewReader("#######\n#. $  #\n#  @  #\n#  $ .#\n#######"), "two.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	p := ps[0]
	solver, err := search.NewSolver[sokoban.State](search.GBFS(), search.DomainHeuristic[sokoban.State]{}, search.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := solver.Solve(context.Background(), p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.ID, res.Solved, search.FormatActions(p, res.Actions))
	// Output: two.txt#0 true LDRRUULL
}

// ExampleProblem_PruneDeadlocks shows a push against a wall along which
// there is no goal: legal in the level, refused by its pruned copy.
func ExampleProblem_PruneDeadlocks() {
	ps, err := sokoban.Parse(strings.NewReader("#####\n#.@ #\n# $ #\n#   #\n#####"), "corner.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	p := ps[0]
	q := p.PruneDeadlocks()
	_, legal := p.Apply(p.Root(), sokoban.Down)
	_, kept := q.Apply(q.Root(), sokoban.Down)
	fmt.Println("push down:", legal, kept)
	_, legal = p.Apply(p.Root(), sokoban.Right)
	_, kept = q.Apply(q.Root(), sokoban.Right)
	fmt.Println("walk right:", legal, kept)
	// Output:
	// push down: true false
	// walk right: true true
}
