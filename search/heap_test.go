package search

import (
	"math/rand/v2"
	"testing"
)

// TestHeapOrder checks that the open list pops by increasing priority and,
// among equal priorities, decreasing g.
func TestHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var q nodeHeap
	for i := range 1000 {
		q.push(heapEntry{priority: float64(rng.IntN(5)), g: float32(rng.IntN(20)), index: int32(i)})
	}
	prev := q.pop()
	for q.len() > 0 {
		x := q.pop()
		if x.priority < prev.priority || (x.priority == prev.priority && x.g > prev.g) {
			t.Fatalf("popped (%g, g=%g) after (%g, g=%g)", x.priority, x.g, prev.priority, prev.g)
		}
		prev = x
	}
}
