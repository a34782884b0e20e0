package searchtest

import (
	"strings"
	"testing"

	"github.com/phs-go/phs/search"
)

// brokenOnes is a Maze whose AppendOnes is wrong as its mode says.
type brokenOnes struct {
	*Maze
	mode string
}

func (b brokenOnes) AppendOnes(s int32, dst []int32) []int32 {
	ones := b.Maze.AppendOnes(s, dst)
	switch b.mode {
	case "missing":
		return ones[:len(ones)-1]
	case "twice":
		return append(ones, ones[len(ones)-1])
	case "out":
		return append(ones, int32(3*b.W*b.H))
	case "overwrites":
		return append(ones[:0], ones[1:]...)
	}
	return ones
}

// TestCheckOneHot checks that CheckOneHot passes the maze's encoding and
// catches each way an AppendOnes can disagree with Encode.
func TestCheckOneHot(t *testing.T) {
	m := ParseMaze(
		"S.#",
		".#.",
		"..G",
	)
	states := []int32{0, 1, 3, 8}
	if err := CheckOneHot[int32](m, states); err != nil {
		t.Errorf("the maze: %v", err)
	}
	for mode, want := range map[string]string{
		"missing":    "Encode wrote 1",
		"twice":      "twice",
		"out":        "place 27",
		"overwrites": "overwrote",
	} {
		var p search.OneHotEncoder[int32] = brokenOnes{m, mode}
		if err := CheckOneHot(p, states); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: CheckOneHot = %v, want an error with %q", mode, err, want)
		}
	}
}
