package main

import (
	"fmt"
	"strings"

	"github.com/phs-go/phs/domain/sokoban"
)

// Symmetries of a level, as bits: flipCols mirrors the columns, flipRows
// the rows, and transpose, applied after them, swaps rows and columns.
// The eight values 0 to 7 are the symmetries of the square; 0 is the
// identity.
const (
	flipCols = 1 << iota
	flipRows
	transpose
)

// symmetric returns the image of level p under the symmetry sym (0 to 7)
// and the image of its solution moves (a string of U, D, L and R). The
// level's ID is p's with "~sym" after the base name of its file.
func symmetric(p *sokoban.Problem, moves string, sym int) (*sokoban.Problem, string, error) {
	rows := strings.Split(p.Render(p.Root()), "\n")
	nr, nc := len(rows), len(rows[0])
	cell := func(r, c int) byte {
		if sym&flipRows != 0 {
			r = nr - 1 - r
		}
		if sym&flipCols != 0 {
			c = nc - 1 - c
		}
		return rows[r][c]
	}
	outRows, outCols := nr, nc
	if sym&transpose != 0 {
		outRows, outCols = nc, nr
	}
	var b strings.Builder
	base, label, _ := strings.Cut(p.ID, "#")
	fmt.Fprintf(&b, "; %s\n", label)
	for r := range outRows {
		for c := range outCols {
			rr, cc := r, c
			if sym&transpose != 0 {
				rr, cc = c, r
			}
			ch := cell(rr, cc)
			if ch == ' ' {
				ch = '-'
			}
			b.WriteByte(ch)
		}
		b.WriteByte('\n')
	}
	ps, err := sokoban.Parse(strings.NewReader(b.String()), fmt.Sprintf("%s~%d", base, sym))
	if err != nil {
		return nil, "", err
	}
	m := []byte(moves)
	for i, a := range m {
		m[i] = symmetricMove(a, sym)
	}
	return ps[0], string(m), nil
}

// symmetricMove returns the image of move a (U, D, L or R) under sym.
func symmetricMove(a byte, sym int) byte {
	swap := func(a, x, y byte) byte {
		switch a {
		case x:
			return y
		case y:
			return x
		}
		return a
	}
	if sym&flipCols != 0 {
		a = swap(a, 'L', 'R')
	}
	if sym&flipRows != 0 {
		a = swap(a, 'U', 'D')
	}
	if sym&transpose != 0 {
		a = swap(swap(a, 'U', 'L'), 'D', 'R')
	}
	return a
}
