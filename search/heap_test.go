package search

import (
	"math/rand/v2"
	"testing"
)

// TestHeapOrder checks that the open list pops by increasing priority and,
// among equal priorities, decreasing depth.
func TestHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var q nodeHeap
	n := 0
	check := func(k int) {
		t.Helper()
		prev := q.pop()
		for range k - 1 {
			x := q.pop()
			if less(&x, &prev) {
				t.Fatalf("popped (%g, depth %d) after (%g, depth %d)", x.priority, x.depth, prev.priority, prev.depth)
			}
			prev = x
		}
	}
	for range 1000 {
		q.push(heapEntry{priority: float64(rng.IntN(5)), depth: uint32(rng.IntN(20)), index: int32(n)})
		n++
	}
	check(500)
	for range 300 {
		q.push(heapEntry{priority: float64(rng.IntN(5)), depth: uint32(rng.IntN(20)), index: int32(n)})
	}
	check(q.len())
	if q.len() != 0 {
		t.Fatalf("%d entries left", q.len())
	}
}
