package rubiks

import (
	"fmt"
	"math/rand/v2"
)

// Scramble returns a random sequence of actions of a length drawn
// uniformly from [minLen, maxLen]: each action is drawn uniformly from the
// 11 that do not undo the previous one (the first from all 12). It panics
// unless 0 ≤ minLen ≤ maxLen.
func Scramble(rng *rand.Rand, minLen, maxLen int) []int {
	var moves []int
	scramble(rng, minLen, maxLen, func(a int) { moves = append(moves, a) })
	return moves
}

// scramble draws the actions of Scramble and calls do with each.
func scramble(rng *rand.Rand, minLen, maxLen int, do func(a int)) {
	if minLen < 0 || maxLen < minLen {
		panic(fmt.Sprintf("rubiks: scramble lengths [%d, %d]", minLen, maxLen))
	}
	n := minLen + rng.IntN(maxLen-minLen+1)
	last := -1
	for i := range n {
		a := 0
		if i == 0 {
			a = rng.IntN(NumActions)
		} else {
			// Draw from the 11 actions other than the inverse of the last.
			a = rng.IntN(NumActions - 1)
			if a >= last^1 {
				a++
			}
		}
		do(a)
		last = a
	}
}

// GenerateScramble returns the cube that the actions of Scramble(rng,
// minLen, maxLen) make of the solved cube. The scramble may come back to
// an earlier cube (as four turns of one face do), so the cube may be
// closer to the goal than the scramble is long, and even solved. The
// problem's ID is empty. It panics unless 0 ≤ minLen ≤ maxLen.
func GenerateScramble(rng *rand.Rand, minLen, maxLen int) *Problem {
	s := solved
	scramble(rng, minLen, maxLen, func(a int) { s, _ = Apply(s, a) })
	return &Problem{start: s}
}

// GenerateRandom returns a cube drawn uniformly from the legal cubes:
// random permutations of the corners and of the edges, two edges swapped
// if their parities differ, and random twists and flips but the last,
// which makes the sums right. The problem's ID is empty.
func GenerateRandom(rng *rand.Rand) *Problem {
	var c cubies
	for i, j := range rng.Perm(8) {
		c.cp[i] = uint8(j)
	}
	for i, j := range rng.Perm(12) {
		c.ep[i] = uint8(j)
	}
	if parity(c.cp[:]) != parity(c.ep[:]) {
		// An involution pairing the cubes of each corner permutation
		// with the edge permutations of the other parity.
		c.ep[0], c.ep[1] = c.ep[1], c.ep[0]
	}
	twist := 0
	for i := range 7 {
		c.co[i] = uint8(rng.IntN(3))
		twist += int(c.co[i])
	}
	c.co[7] = uint8((3 - twist%3) % 3)
	flip := 0
	for i := range 11 {
		c.eo[i] = uint8(rng.IntN(2))
		flip += int(c.eo[i])
	}
	c.eo[11] = uint8(flip % 2)
	return &Problem{start: c.pack()}
}
