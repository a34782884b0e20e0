package witness

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// bulletProbability is the probability that a cell of a region gets the
// region's bullet.
const bulletProbability = 0.6

// Generate returns a random puzzle of rows×cols cells from the distribution
// of the paper's data sets, as the reference generator draws it:
//
//   - the entrance is vertex (0, 0); the exit is drawn uniformly from the
//     list of border vertices (0, c) and (rows, c) for 1 ≤ c ≤ cols, then
//     (l, 0) and (l, cols) for 1 ≤ l ≤ rows, in which the corner
//     (rows, cols) appears twice (in the paper's 4x4 training set it is the
//     exit of 20% of the puzzles);
//   - a line is drawn from the entrance by uniformly random moves,
//     restarted when it is stuck, until it reaches the exit;
//   - the puzzle is rejected if the line cuts the cells into fewer than
//     minimum regions: 2, or 4 from 4 rows on, or 5 from 10 rows on;
//   - each region in turn draws a colour from 1 to 4, uniformly among the
//     colours not placed yet while some remain (uniformly among all of
//     them for puzzles of 1 or 2 rows), and places it on each of its cells
//     with probability 0.6;
//   - the puzzle is rejected if fewer than 2 colours were placed.
//
// The line is a solution, so every puzzle is solvable. Generate panics if
// CheckSize rejects the size or the grid has a single cell.
func Generate(rng *rand.Rand, rows, cols int) *Problem {
	p, _ := generate(rng, rows, cols)
	return p
}

// generate returns a puzzle and the line it was made from.
func generate(rng *rand.Rand, rows, cols int) (*Problem, State) {
	if err := CheckSize(rows, cols); err != nil || rows*cols < 2 {
		panic(fmt.Sprintf("witness: Generate: bad size %dx%d", rows, cols))
	}
	minRegions := 2
	if rows >= 10 {
		minRegions = 5
	} else if rows >= 4 {
		minRegions = 4
	}
	p := &Problem{}
	var regions [MaxVertices]uint64
	for {
		var goal [2]int
		switch i := rng.IntN(2 * (rows + cols)); {
		case i < cols:
			goal = [2]int{0, i + 1}
		case i < 2*cols:
			goal = [2]int{rows, i - cols + 1}
		case i < 2*cols+rows:
			goal = [2]int{i - 2*cols + 1, 0}
		default:
			goal = [2]int{i - 2*cols - rows + 1, cols}
		}
		if err := p.init3(rows, cols, [2]int{0, 0}, goal); err != nil {
			panic(err) // cannot happen: the size was checked
		}
		s := p.walk(rng)
		n := p.regions(s, &regions)
		if n < minRegions {
			continue
		}
		if p.paint(rng, regions[:n], rows > 2) >= 2 {
			return p, s
		}
	}
}

// walk draws random lines from the entrance until one reaches the exit.
func (p *Problem) walk(rng *rand.Rand) State {
	var next [4]State
	for {
		s := p.Root()
		for p.tip(s) != p.exit {
			n := 0
			for a := range 4 {
				if t, ok := p.Apply(s, a); ok {
					next[n] = t
					n++
				}
			}
			if n == 0 {
				break // stuck: start again
			}
			s = next[rng.IntN(n)]
		}
		if p.tip(s) == p.exit {
			return s
		}
	}
}

// paint places the bullets of the regions (see Generate) and returns the
// number of colours placed.
func (p *Problem) paint(rng *rand.Rand, regions []uint64, preferNew bool) int {
	var placed [MaxColors + 1]bool
	n := 0
	for _, region := range regions {
		var k int
		if preferNew && n < MaxColors {
			// The j-th colour not placed yet.
			j := rng.IntN(MaxColors - n)
			for k = 1; placed[k] || j > 0; k++ {
				if !placed[k] {
					j--
				}
			}
		} else {
			k = 1 + rng.IntN(MaxColors)
		}
		some := false
		for m := region; m != 0; m &= m - 1 {
			if rng.Float64() < bulletProbability {
				p.place(m&-m, k)
				some = true
			}
		}
		if some && !placed[k] {
			placed[k] = true
			n++
		}
	}
	return n
}

// GenerateSet returns n distinct puzzles drawn by Generate (duplicates are
// drawn again), with IDs "generated#<index>".
func GenerateSet(rng *rand.Rand, n, rows, cols int) []*Problem {
	g := NewSetGenerator(rng, rows, cols)
	ps := make([]*Problem, n)
	for i := range ps {
		ps[i] = g.Next()
	}
	return ps
}

// A SetGenerator draws distinct puzzles one at a time, as GenerateSet does,
// for sets too large to hold: it keeps 80 bytes per puzzle drawn.
type SetGenerator struct {
	rng        *rand.Rand
	rows, cols int
	seen       map[setKey]bool
}

type setKey struct {
	exit  uint64
	color [MaxColors + 1]uint64
}

// NewSetGenerator returns a generator of puzzles of rows×cols cells.
func NewSetGenerator(rng *rand.Rand, rows, cols int) *SetGenerator {
	return &SetGenerator{rng: rng, rows: rows, cols: cols, seen: make(map[setKey]bool)}
}

// Next returns a puzzle drawn by Generate that differs from every puzzle
// the generator returned before, with ID "generated#<index>".
func (g *SetGenerator) Next() *Problem {
	for {
		p := Generate(g.rng, g.rows, g.cols)
		k := setKey{p.exit, p.color}
		if g.seen[k] {
			continue
		}
		p.ID = "generated#" + strconv.Itoa(len(g.seen))
		g.seen[k] = true
		return p
	}
}
