package stp

import (
	"fmt"
	"math/rand/v2"
)

// GenerateWalk returns the puzzle at the end of a random walk of the blank
// from the goal of a rows×cols grid, of a length drawn uniformly from
// [minLen, maxLen]; each step is drawn uniformly from the legal moves other
// than the one that undoes the previous step. (The walk may come back to
// earlier arrangements, so the puzzle may be closer to the goal than the
// walk is long.) The puzzle's ID is empty.
//
// GenerateWalk panics if CheckSize rejects the size or if the lengths are
// not 0 ≤ minLen ≤ maxLen.
func GenerateWalk(rng *rand.Rand, rows, cols, minLen, maxLen int) *Problem {
	if minLen < 0 || maxLen < minLen {
		panic(fmt.Sprintf("stp: GenerateWalk lengths [%d, %d]", minLen, maxLen))
	}
	p := &Problem{Rows: rows, Cols: cols, g: mustGeometry(rows, cols)}
	p.start = walk(rng, p.g.goal, p.Apply, minLen, maxLen)
	return p
}

// walk returns the end of a random walk from s, as GenerateWalk describes
// it, with apply the moves of the board.
func walk[S any](rng *rand.Rand, s S, apply func(S, int) (S, bool), minLen, maxLen int) S {
	undo := [4]int{Down, Up, Right, Left}
	last := -1
	var legal [4]int
	var next [4]S
	for range minLen + rng.IntN(maxLen-minLen+1) {
		k := 0
		for a := range 4 {
			if c, ok := apply(s, a); ok && (last < 0 || a != undo[last]) {
				legal[k], next[k] = a, c
				k++
			}
		}
		i := rng.IntN(k)
		last, s = legal[i], next[i]
	}
	return s
}

// GenerateRandom returns a puzzle of a rows×cols grid drawn uniformly from
// the solvable arrangements. The puzzle's ID is empty. It panics if
// CheckSize rejects the size.
func GenerateRandom(rng *rand.Rand, rows, cols int) *Problem {
	p := &Problem{Rows: rows, Cols: cols, g: mustGeometry(rows, cols)}
	for i, t := range solvablePerm(rng, rows, cols) {
		p.start.set(i, t)
	}
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

func mustGeometry(rows, cols int) *geometry {
	if err := CheckSize(rows, cols); err != nil {
		panic("stp: " + err.Error())
	}
	return geometryOf(rows, cols)
}

// GenerateWalkLarge is GenerateWalk for a LargeProblem: it panics if
// CheckLargeSize rejects the size or if the lengths are not
// 0 ≤ minLen ≤ maxLen.
func GenerateWalkLarge(rng *rand.Rand, rows, cols, minLen, maxLen int) *LargeProblem {
	if minLen < 0 || maxLen < minLen {
		panic(fmt.Sprintf("stp: GenerateWalkLarge lengths [%d, %d]", minLen, maxLen))
	}
	p := &LargeProblem{Rows: rows, Cols: cols, g: mustLargeGeometry(rows, cols)}
	p.start = walk(rng, p.g.goal, p.Apply, minLen, maxLen)
	return p
}

// GenerateRandomLarge is GenerateRandom for a LargeProblem: it panics if
// CheckLargeSize rejects the size.
func GenerateRandomLarge(rng *rand.Rand, rows, cols int) *LargeProblem {
	p := &LargeProblem{Rows: rows, Cols: cols, g: mustLargeGeometry(rows, cols)}
	p.start = largeState(solvablePerm(rng, rows, cols))
	return p
}

func mustLargeGeometry(rows, cols int) *largeGeometry {
	if err := CheckLargeSize(rows, cols); err != nil {
		panic("stp: " + err.Error())
	}
	return largeGeometryOf(rows, cols)
}
