package search_test

import (
	"context"
	"fmt"

	"github.com/phs-go/phs/search"
)

// lock is a combination lock whose digits, 0 to 9, are set one at a
// time. It clicks when the digits set so far are right: a subgoal that
// the domain sees and a policy does not.
type lock struct{ code []int }

// lockState is the number of digits set and their value, in base 10.
type lockState struct {
	set    int
	digits int
}

func (l lock) Root() lockState { return lockState{} }
func (l lock) NumActions() int { return 10 }
func (l lock) IsGoal(s lockState) bool {
	return s.set == len(l.code) && l.clicks(s)
}

func (l lock) Apply(s lockState, a int) (lockState, bool) {
	if s.set == len(l.code) {
		return s, false
	}
	return lockState{s.set + 1, 10*s.digits + a}, true
}

// clicks reports whether the digits of s are the first digits of the code.
func (l lock) clicks(s lockState) bool {
	want := 0
	for _, d := range l.code[:s.set] {
		want = 10*want + d
	}
	return s.digits == want
}

// RerootWeight makes lock a search.Rerooting problem: a node where the
// lock clicks is a rerooting point of weight 1, any other none.
func (l lock) RerootWeight(_, s lockState) float64 {
	if l.clicks(s) {
		return 1
	}
	return 0
}

// A domain can give √LTS its own rerooting points (search.Rerooting, the
// rerooter "d"): here the clicks of a combination lock. With a uniform
// policy, LevinTS opens a lock of 5 digits after trying most settings of
// its first 4; √LTS roots a new search at each click, and needs a few
// expansions a digit. Any domain can do the same: a problem that
// implements RerootWeight, searched with sqrtlts:d (SqrtLTS with
// DomainRerooter).
func ExampleRerooting() {
	l := lock{code: []int{7, 3, 9, 1, 4}}
	for _, name := range []string{"levints", "sqrtlts:d"} {
		alg, err := search.Parse(name)
		if err != nil {
			panic(err)
		}
		s, err := search.NewSolver[lockState](alg, search.Uniform[lockState]{}, search.Options{BatchSize: 1})
		if err != nil {
			panic(err)
		}
		res, err := s.Solve(context.Background(), l)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-9s solved %v, actions %v, %d expansions\n", alg, res.Solved, res.Actions, res.Expansions)
	}
	// Output:
	// levints   solved true, actions [7 3 9 1 4], 8503 expansions
	// sqrtlts:d solved true, actions [7 3 9 1 4], 33 expansions
}
