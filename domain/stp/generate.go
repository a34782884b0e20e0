package stp

import (
	"fmt"
	"math/rand/v2"
)

// GenerateWalk returns the puzzle, with state type S, at the end of a
// random walk of the blank from the goal of a rows×cols grid, of a length
// drawn uniformly from [minLen, maxLen]; each step is drawn uniformly from
// the legal moves other than the one that undoes the previous step. (The
// walk may come back to earlier arrangements, so the puzzle may be closer
// to the goal than the walk is long.) The puzzle's ID is empty. The same
// rng state gives the same puzzle with State and with LargeState. The cost
// is linear in the length.
//
// GenerateWalk panics if CheckSize[S] rejects the size or if the lengths
// are not 0 ≤ minLen ≤ maxLen.
func GenerateWalk[S Arrangement[S]](rng *rand.Rand, rows, cols, minLen, maxLen int) *Problem[S] {
	if minLen < 0 || maxLen < minLen {
		panic(fmt.Sprintf("stp: GenerateWalk lengths [%d, %d]", minLen, maxLen))
	}
	p := mustGoalProblem[S](rows, cols)
	undo := [4]int{Down, Up, Right, Left}
	last := -1
	var legal [4]int
	var next [4]S
	s := p.goal
	for range minLen + rng.IntN(maxLen-minLen+1) {
		k := 0
		for a := range 4 {
			if c, ok := p.Apply(s, a); ok && (last < 0 || a != undo[last]) {
				legal[k], next[k] = a, c
				k++
			}
		}
		i := rng.IntN(k)
		last, s = legal[i], next[i]
	}
	p.start = s
	return p
}

// GenerateRandom returns a puzzle, with state type S, of a rows×cols grid
// drawn uniformly from the solvable arrangements. The puzzle's ID is
// empty. The same rng state gives the same puzzle with State and with
// LargeState. It panics if CheckSize[S] rejects the size.
func GenerateRandom[S Arrangement[S]](rng *rand.Rand, rows, cols int) *Problem[S] {
	p := mustGoalProblem[S](rows, cols)
	p.start = arrange[S](solvablePerm(rng, rows, cols))
	return p
}

// solvablePerm returns an arrangement of a rows×cols board drawn uniformly
// from the solvable ones.
func solvablePerm(rng *rand.Rand, rows, cols int) []int {
	tiles := rng.Perm(rows * cols)
	if !Solvable(rows, cols, tiles) {
		// Swapping two tiles that are not the blank flips the parity of the
		// permutation and keeps the blank: an involution that pairs every
		// unsolvable arrangement with a solvable one.
		i, j := 0, 1
		if tiles[i] == 0 {
			i = 2
		} else if tiles[j] == 0 {
			j = 2
		}
		tiles[i], tiles[j] = tiles[j], tiles[i]
	}
	return tiles
}

// mustGoalProblem is goalProblem that panics if CheckSize[S] rejects the
// size.
func mustGoalProblem[S Arrangement[S]](rows, cols int) *Problem[S] {
	if err := CheckSize[S](rows, cols); err != nil {
		panic("stp: " + err.Error())
	}
	return goalProblem[S](rows, cols)
}
