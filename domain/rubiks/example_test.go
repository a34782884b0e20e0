package rubiks_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/phs-go/phs/domain/rubiks"
	"github.com/phs-go/phs/search"
)

func Example() {
	// The solved cube after R U F' L.
	ps, err := rubiks.Parse(strings.NewReader("BUUBUULRRBBBDRRDRRUDDUFFUFFRLLRDBRDBLLFLLFFFFLLDUBDUBD\n"), "cubes.txt")
	if err != nil {
		panic(err)
	}
	p := ps[0]
	solver, err := search.NewSolver[rubiks.State](search.AStar(), search.DomainHeuristic[rubiks.State]{}, search.Options{GoalTest: search.GoalTestExpansion})
	if err != nil {
		panic(err)
	}
	res, err := solver.Solve(context.Background(), p)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.ID, "h =", p.Heuristic(p.Root()))
	fmt.Println(res.Solved, search.FormatActions(p, res.Actions))
	// Output:
	// cubes.txt#0 h = 4
	// true L' F U' R'
}

func ExampleParseFacelets() {
	for _, f := range []string{
		"UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB",
		"UUUUUUUUURFRRRRRRRFRFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB",
		"UUUUURUUURURRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB",
		"UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBB",
	} {
		s, err := rubiks.ParseFacelets(f)
		fmt.Println(s == rubiks.Solved(), err)
	}
	// Output:
	// true <nil>
	// false unsolvable: parity: the corner permutation is even and the edge permutation odd (two cubies are swapped)
	// false unsolvable: flip: the edge flips sum to 1, not a multiple of 2 (an edge is flipped in place)
	// false 53 facelets, want 54
}

func ExampleScramble() {
	rng := rand.New(rand.NewPCG(1, 2))
	s := rubiks.Solved()
	var names []string
	for _, a := range rubiks.Scramble(rng, 4, 4) {
		names = append(names, rubiks.ActionName(a))
		s, _ = rubiks.Apply(s, a)
	}
	fmt.Println(strings.Join(names, " "))
	fmt.Println(s)
	// Output:
	// D' L' L' R
	// DUFDUFDURBRRBRRBRRLFDBFDBRDUDLUDBUDBFFFLLLLLLUBRUBFULF
}

func ExampleProblem_Render() {
	s, _ := rubiks.Apply(rubiks.Solved(), 4) // F
	p, err := rubiks.NewState(s, "F")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Render(p.Root()))
	// Output:
	//     UUU
	//     UUU
	//     LLL
	// LLD FFF URR BBB
	// LLD FFF URR BBB
	// LLD FFF URR BBB
	//     RRR
	//     DDD
	//     DDD
}
