package rubiks

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/phs-go/phs/domain/internal/lines"
)

// faceletName returns the name of facelet k, such as "R3" (face R, index
// 3: the first of its middle row).
func faceletName(k int) string {
	return faceLetters[k/9:k/9+1] + strconv.Itoa(k%9)
}

// ParseFacelets returns the cube of a facelet string: 54 letters of
// "URFDLB", the facelets of the faces U, R, F, D, L, B, 9 per face, row by
// row seen from outside, U with B at the top, D with F at the top, the
// others with U at the top (Kociemba's order). Each letter names the face
// whose centre has the facelet's colour: the solved cube is
// "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB". Facelet 9f+k
// is facelet k of face f ("R3"):
//
//	           U0 U1 U2
//	           U3 U4 U5
//	           U6 U7 U8
//	L0 L1 L2   F0 F1 F2   R0 R1 R2   B0 B1 B2
//	L3 L4 L5   F3 F4 F5   R3 R4 R5   B3 B4 B5
//	L6 L7 L8   F6 F7 F8   R6 R7 R8   B6 B7 B8
//	           D0 D1 D2
//	           D3 D4 D5
//	           D6 D7 D8
//
// It is an error, which says why, if the string is not a legal cube: not
// 54 letters of "URFDLB"; a colour not on 9 facelets; a centre that is not
// its face's letter; three corner facelets or two edge facelets whose
// colours are those of no cubie (in clockwise order for a corner); a cubie
// twice; and, wrapping ErrUnsolvable, a twisted corner (the twists do not
// sum to a multiple of 3), a flipped edge (the flips are odd) or two
// swapped cubies (the corner and edge permutations of different parities).
func ParseFacelets(facelets string) (State, error) {
	if n := len(facelets); n != 54 {
		return State{}, fmt.Errorf("%d facelets, want 54", n)
	}
	var col [54]uint8
	var count [6]int
	for k := range 54 {
		f := strings.IndexByte(faceLetters, facelets[k])
		if f < 0 {
			return State{}, fmt.Errorf("facelet %s (index %d): %q is not one of U R F D L B", faceletName(k), k, facelets[k:k+1])
		}
		col[k] = uint8(f)
		count[f]++
	}
	for f, n := range count {
		if n != 9 {
			return State{}, fmt.Errorf("colour %c on %d facelets, want 9", faceLetters[f], n)
		}
	}
	for f := range 6 {
		if c := col[9*f+4]; c != uint8(f) {
			return State{}, fmt.Errorf("centre %s is %c, want %c", faceletName(9*f+4), faceLetters[c], faceLetters[f])
		}
	}
	var c cubies
	for i, fl := range cornerFacelet {
		// The twist is the position of the U or D colour.
		t := 0
		for t < 3 && col[fl[t]] != U && col[fl[t]] != D {
			t++
		}
		j := 0
		if t < 3 {
			for j < 8 && (cornerColor[j][0] != col[fl[t]] || cornerColor[j][1] != col[fl[(t+1)%3]] || cornerColor[j][2] != col[fl[(t+2)%3]]) {
				j++
			}
		}
		if t == 3 || j == 8 {
			return State{}, fmt.Errorf("corner slot %s (%s %s %s): colours %c%c%c are those of no corner cubie, clockwise",
				cornerNames[i], faceletName(int(fl[0])), faceletName(int(fl[1])), faceletName(int(fl[2])),
				faceLetters[col[fl[0]]], faceLetters[col[fl[1]]], faceLetters[col[fl[2]]])
		}
		c.cp[i], c.co[i] = uint8(j), uint8(t)
	}
	for i, fl := range edgeFacelet {
		a, b := col[fl[0]], col[fl[1]]
		j := 0
		for j < 12 && !(edgeColor[j] == [2]uint8{a, b} || edgeColor[j] == [2]uint8{b, a}) {
			j++
		}
		if j == 12 {
			return State{}, fmt.Errorf("edge slot %s (%s %s): colours %c%c are those of no edge cubie",
				edgeNames[i], faceletName(int(fl[0])), faceletName(int(fl[1])), faceLetters[a], faceLetters[b])
		}
		c.ep[i] = uint8(j)
		if edgeColor[j][0] != a {
			c.eo[i] = 1
		}
	}
	if err := c.check(); err != nil {
		return State{}, err
	}
	return c.pack(), nil
}

// String returns the facelet string of s (see ParseFacelets).
func (s State) String() string {
	var b [54]byte
	s.facelets(&b)
	for k, c := range b {
		b[k] = faceLetters[c]
	}
	return string(b[:])
}

// facelets writes the colour of each facelet of s to col.
func (s State) facelets(col *[54]byte) {
	for f := range 6 {
		col[9*f+4] = byte(f)
	}
	for i, fl := range cornerFacelet {
		v := s.corners >> (5 * i) & 31
		cc := &cornerColors[i][v]
		col[fl[0]], col[fl[1]], col[fl[2]] = cc[0], cc[1], cc[2]
	}
	for i, fl := range edgeFacelet {
		v := s.edges >> (5 * i) & 31
		ec := &edgeColors[v]
		col[fl[0]], col[fl[1]] = ec[0], ec[1]
	}
}

// cornerColors[i][v] gives the colours of the facelets of corner slot i
// (in the order of cornerFacelet[i]) when its field is v; edgeColors[v]
// those of an edge slot.
var (
	cornerColors [8][32][3]byte
	edgeColors   [32][2]byte
)

func init() {
	for i := range 8 {
		for v := range 24 {
			j, t := v/3, v%3
			for n := range 3 {
				cornerColors[i][v][(n+t)%3] = cornerColor[j][n]
			}
		}
	}
	for v := range 24 {
		j, f := v>>1, v&1
		edgeColors[v][f] = edgeColor[j][0]
		edgeColors[v][1-f] = edgeColor[j][1]
	}
}

// ReadFile reads the cubes of the file path (see Parse).
func ReadFile(path string) ([]*Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("rubiks: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads cubes, one per line, each a facelet string (see
// ParseFacelets), with optional spaces or tabs around it. Blank lines are
// skipped, and so is a UTF-8 byte-order mark at the start of the input.
// Every cube must be legal.
//
// name is used in errors ("rubiks: name:line: reason") and, by its base
// name, in the IDs: "<base>#<index>", the index counting cubes from 0. A
// reader without cubes is an error.
func Parse(r io.Reader, name string) ([]*Problem, error) { return ParseFirst(r, name, 0) }

// ParseFirst is Parse that returns after the first n cubes (all for n ≤
// 0), reading no line after them: what follows them is not checked.
func ParseFirst(r io.Reader, name string, n int) ([]*Problem, error) {
	base := filepath.Base(name)
	var ps []*Problem
	lr := lines.NewReader(r, 1<<16)
	for lr.Next() {
		text := bytes.TrimSpace(lr.Bytes())
		if len(text) == 0 {
			continue
		}
		s, err := ParseFacelets(string(text))
		if err != nil {
			return nil, fmt.Errorf("rubiks: %s:%d: %w", name, lr.Line(), err)
		}
		ps = append(ps, &Problem{ID: base + "#" + strconv.Itoa(len(ps)), start: s})
		if len(ps) == n {
			return ps, nil
		}
	}
	if err := lr.Err(); err != nil {
		return nil, fmt.Errorf("rubiks: %s:%d: %w", name, lr.Line(), err)
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("rubiks: %s: no cubes", name)
	}
	return ps, nil
}

// Write writes the starts of problems in the format Parse reads, one
// facelet string per line.
func Write(w io.Writer, ps []*Problem) error {
	bw := bufio.NewWriter(w)
	for _, p := range ps {
		bw.WriteString(p.start.String()) // a write error is kept for Flush
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("rubiks: %w", err)
	}
	return nil
}
