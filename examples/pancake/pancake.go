package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
)

// MaxSize is the largest stack: a state packs 4 bits per pancake in a
// uint64.
const MaxSize = 16

// A State is a stack of pancakes, 4 bits each, the top one in the lowest
// bits; pancakes are numbered by size, from 0 (the smallest).
type State uint64

// at returns the pancake at position i from the top.
func (s State) at(i int) int { return int(s>>(4*i)) & 15 }

// A Problem is a stack to sort, smallest pancake on top, by flips: action a
// turns over the top a+2 pancakes.
type Problem struct {
	n     int
	start State
}

// New returns the problem of sorting stack, listed from the top: a
// permutation of 0..len(stack)-1, of 2 to MaxSize pancakes.
func New(stack []int) (*Problem, error) {
	n := len(stack)
	if n < 2 || n > MaxSize {
		return nil, fmt.Errorf("%d pancakes; want 2 to %d", n, MaxSize)
	}
	seen := make([]bool, n)
	var s State
	for i, x := range stack {
		if x < 0 || x >= n || seen[x] {
			return nil, fmt.Errorf("%v is not a permutation of 0 to %d", stack, n-1)
		}
		seen[x] = true
		s |= State(x) << (4 * i)
	}
	return &Problem{n: n, start: s}, nil
}

func (p *Problem) Root() State     { return p.start }
func (p *Problem) NumActions() int { return p.n - 1 }

// Apply flips the top a+2 pancakes.
func (p *Problem) Apply(s State, a int) (State, bool) {
	k := a + 2
	if a < 0 || k > p.n {
		return 0, false
	}
	t := s
	for i := range k {
		t &^= 15 << (4 * i)
		t |= State(s.at(k-1-i)) << (4 * i)
	}
	return t, true
}

func (p *Problem) IsGoal(s State) bool {
	for i := range p.n {
		if s.at(i) != i {
			return false
		}
	}
	return true
}

// Heuristic is the gap heuristic (Helmert, 2010): the number of adjacent
// pancakes, the plate below the bottom one included, whose sizes are not
// consecutive. A flip closes at most one gap, so it is consistent; it is 0
// at the goal alone.
func (p *Problem) Heuristic(s State) float64 {
	gaps := 0
	for i := range p.n {
		below := p.n // the plate
		if i+1 < p.n {
			below = s.at(i + 1)
		}
		if d := s.at(i) - below; d != 1 && d != -1 {
			gaps++
		}
	}
	return float64(gaps)
}

// ActionName spells action a as "F<k>", the flip of the top k pancakes.
func (p *Problem) ActionName(a int) string { return "F" + strconv.Itoa(a+2) }

// InputShape is one n×n plane: row i holds a one at the column of the size
// of the pancake at position i.
func (p *Problem) InputShape() (c, h, w int) { return 1, p.n, p.n }

func (p *Problem) Encode(s State, dst []float32) {
	clear(dst)
	for i := range p.n {
		dst[i*p.n+s.at(i)] = 1
	}
}

// Render draws the stack, one pancake a line, the top first.
func (p *Problem) Render(s State) string {
	var b strings.Builder
	for i := range p.n {
		x := s.at(i)
		b.WriteString(strings.Repeat(" ", p.n-1-x))
		b.WriteString(strings.Repeat("=", 2*x+1))
		b.WriteByte('\n')
	}
	return b.String()
}

// String returns the problem as Parse reads it: the pancakes of its stack,
// top first.
func (p *Problem) String() string {
	f := make([]string, p.n)
	for i := range p.n {
		f[i] = strconv.Itoa(p.start.at(i))
	}
	return strings.Join(f, " ")
}

// Parse reads stacks, one a line: the pancakes from the top, numbered by
// size from 0, separated by spaces. Blank lines and lines that start with
// '#' are skipped. Errors name the file and the line.
func Parse(r io.Reader, file string) ([]*Problem, error) {
	var ps []*Problem
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		var stack []int
		for _, f := range strings.Fields(string(text)) {
			x, err := strconv.Atoi(f)
			if err != nil {
				return nil, fmt.Errorf("pancake: %s:%d: %q is not a pancake", file, line, f)
			}
			stack = append(stack, x)
		}
		p, err := New(stack)
		if err != nil {
			return nil, fmt.Errorf("pancake: %s:%d: %v", file, line, err)
		}
		ps = append(ps, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("pancake: %s: %w", file, err)
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("pancake: %s: no stacks", file)
	}
	return ps, nil
}

// generator draws uniformly random stacks of -size pancakes.
type generator struct{ size int }

func (g *generator) Flags(fs *flag.FlagSet) {
	fs.IntVar(&g.size, "size", 8, fmt.Sprintf("pancakes per stack, 2 to %d", MaxSize))
}

func (g *generator) New(rng *rand.Rand) (func() string, error) {
	if g.size < 2 || g.size > MaxSize {
		return nil, fmt.Errorf("-size %d: want 2 to %d", g.size, MaxSize)
	}
	return func() string {
		p, _ := New(rng.Perm(g.size))
		return p.String()
	}, nil
}
