package witness

import (
	"fmt"
	"math/rand/v2"
)

// Generate returns a random puzzle of rows×cols cells from the distribution
// of the paper's data sets: the entrance is vertex (0, 0); the exit is drawn
// uniformly from the other border vertices; a uniformly random
// self-avoiding walk from the entrance (restarted when stuck) that reaches
// the exit cuts the cells into regions; puzzles with fewer than 4 regions
// (2 below 4x4) are rejected; each region gets a colour from 1 to 4,
// preferring colours not used yet, placed on each of its cells with
// probability 0.6; puzzles with fewer than 2 colours are rejected. The walk
// is a solution, so every puzzle is solvable. Generate panics if the size
// is below 2x2 or above MaxVertices vertices.
func Generate(rng *rand.Rand, rows, cols int) *Problem {
	if rows < 2 || cols < 2 || (rows+1)*(cols+1) > MaxVertices {
		panic("witness: Generate: bad size")
	}
	minRegions := 4
	if rows*cols < 16 {
		minRegions = 2
	}
	var border [][2]int
	for l := 0; l <= rows; l++ {
		for c := 0; c <= cols; c++ {
			if (l == 0 || l == rows || c == 0 || c == cols) && (l != 0 || c != 0) {
				border = append(border, [2]int{l, c})
			}
		}
	}
	for {
		p := &Problem{Rows: rows, Cols: cols, Goal: border[rng.IntN(len(border))], Colors: make([]uint8, rows*cols)}
		s := randomWalk(rng, p)
		if p.Regions(s) < minRegions {
			continue
		}
		if p.paint(rng, s) >= 2 {
			return p
		}
	}
}

// randomWalk draws self-avoiding walks from the entrance until one reaches
// the exit.
func randomWalk(rng *rand.Rand, p *Problem) State {
	goal := p.vertex(p.Goal[0], p.Goal[1])
	var next [4]State
	exit := p.ContinueAtExit
	p.ContinueAtExit = true
	defer func() { p.ContinueAtExit = exit }()
	for {
		s := p.Root()
		for int(s.tip) != goal {
			n := 0
			for a := range 4 {
				if t, ok := p.Apply(s, a); ok {
					next[n] = t
					n++
				}
			}
			if n == 0 {
				break // stuck: restart
			}
			s = next[rng.IntN(n)]
		}
		if int(s.tip) == goal {
			return s
		}
	}
}

// paint colours the regions of the line s and returns the number of
// colours placed.
func (p *Problem) paint(rng *rand.Rand, s State) int {
	var region [MaxVertices]int8
	nr := p.label(s, &region)
	var used [MaxColors + 1]bool
	placed := map[uint8]bool{}
	for r := range nr {
		var fresh []uint8
		for k := uint8(1); k <= MaxColors; k++ {
			if !used[k] {
				fresh = append(fresh, k)
			}
		}
		k := uint8(1 + rng.IntN(MaxColors))
		if len(fresh) > 0 {
			k = fresh[rng.IntN(len(fresh))]
		}
		used[k] = true
		for cell := range p.Colors {
			if int(region[cell]) == r && rng.Float64() < 0.6 {
				p.Colors[cell] = k
				placed[k] = true
			}
		}
	}
	return len(placed)
}

// GenerateSet returns n distinct random puzzles (see Generate), with IDs
// "generated#i".
func GenerateSet(rng *rand.Rand, n, rows, cols int) []*Problem {
	seen := map[string]bool{}
	var ps []*Problem
	for len(ps) < n {
		p := Generate(rng, rows, cols)
		key := p.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		p.ID = fmt.Sprintf("generated#%d", len(ps))
		ps = append(ps, p)
	}
	return ps
}
