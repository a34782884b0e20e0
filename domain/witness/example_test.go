package witness_test

import (
	"fmt"
	"strings"

	"github.com/phs-go/phs/domain/witness"
)

func Example() {
	const puzzle = `Size: 1 2
Init: 0 0
Goal: 1 2
Colors: |0 0 1|0 1 2
`
	ps, err := witness.Parse(strings.NewReader(puzzle), "two.txt")
	if err != nil {
		panic(err)
	}
	p := ps[0]
	for _, line := range []string{"URR", "RUR"} {
		s := p.Root()
		for _, m := range line {
			s, _ = p.Apply(s, strings.IndexRune("UDLR", m))
		}
		fmt.Println(p.ID, line, "solved:", p.IsGoal(s))
		fmt.Println(p.Render(s))
	}
	// Output:
	// two.txt#0 URR solved: false
	// o-o-@
	// |1 2
	// S + +
	// two.txt#0 RUR solved: true
	// + o-@
	//  1|2
	// S-o +
}
