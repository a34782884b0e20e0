// Package rubiks implements the Rubik's cube (3x3x3) with the 12 quarter
// turns U U' R R' F F' D D' L L' B B' as actions, each of cost 1 (the
// quarter-turn metric). Action 2f turns face f a quarter turn clockwise as
// seen looking at the face, action 2f+1 anticlockwise, with the faces in the
// order U R F D L B (Singmaster's notation): the inverse of action a is
// a^1. The centres never move; the goal is the solved cube.
//
// Cubes are read and written as strings of 54 facelets in Kociemba's order
// (see ParseFacelets). A State holds the cubies: where each of the 8 corner
// and 12 edge cubies is and how it is turned.
//
// A Problem implements search.Heuristic[State] with an admissible and
// consistent bound built from a corner pattern database (see
// Problem.Heuristic), search.Encoder[State] with the colours of the
// facelets on the unfolded cube (see Problem.Encode), and the contexts of
// a context model (package cm: ContextLayout, Contexts), the pairs of
// cubie slots. Problem.Estimate, not a bound, adds edge pattern databases
// to guide searches that need no bound, such as WA*.
package rubiks

import (
	"errors"
	"fmt"
)

// Faces, in the order of the facelets and of the actions; also the colours,
// named after the face whose centre has them.
const (
	U = iota
	R
	F
	D
	L
	B
)

// faceLetters spells the faces (and colours) in order.
const faceLetters = "URFDLB"

// NumActions is the number of actions: 6 faces × 2 directions.
const NumActions = 12

// Corner cubies and corner slots (cubicles), in Kociemba's order: a corner
// is named after its faces clockwise from its U or D face.
const (
	URF = iota
	UFL
	ULB
	UBR
	DFR
	DLF
	DBL
	DRB
)

// Edge cubies and edge slots, in Kociemba's order.
const (
	UR = iota
	UF
	UL
	UB
	DR
	DF
	DL
	DB
	FR
	FL
	BL
	BR
)

// Facelet indices: face f's facelet k (0 to 8, row by row) is 9f+k.
const (
	u0 = 9 * iota
	r0
	f0
	d0
	l0
	b0
)

// cornerFacelet[i] lists the facelets of corner slot i, clockwise from the
// one on the U or D face; cornerColor[j] the colours of corner cubie j in
// the same order.
var (
	cornerFacelet = [8][3]uint8{
		{u0 + 8, r0 + 0, f0 + 2}, {u0 + 6, f0 + 0, l0 + 2},
		{u0 + 0, l0 + 0, b0 + 2}, {u0 + 2, b0 + 0, r0 + 2},
		{d0 + 2, f0 + 8, r0 + 6}, {d0 + 0, l0 + 8, f0 + 6},
		{d0 + 6, b0 + 8, l0 + 6}, {d0 + 8, r0 + 8, b0 + 6},
	}
	cornerColor = [8][3]uint8{
		{U, R, F}, {U, F, L}, {U, L, B}, {U, B, R},
		{D, F, R}, {D, L, F}, {D, B, L}, {D, R, B},
	}
)

// edgeFacelet[i] lists the two facelets of edge slot i, edgeColor[j] the
// colours of edge cubie j in the same order: the U or D facelet first, else
// the F or B one.
var (
	edgeFacelet = [12][2]uint8{
		{u0 + 5, r0 + 1}, {u0 + 7, f0 + 1}, {u0 + 3, l0 + 1}, {u0 + 1, b0 + 1},
		{d0 + 5, r0 + 7}, {d0 + 1, f0 + 7}, {d0 + 3, l0 + 7}, {d0 + 7, b0 + 7},
		{f0 + 5, r0 + 3}, {f0 + 3, l0 + 5}, {b0 + 5, l0 + 3}, {b0 + 3, r0 + 5},
	}
	edgeColor = [12][2]uint8{
		{U, R}, {U, F}, {U, L}, {U, B}, {D, R}, {D, F}, {D, L}, {D, B},
		{F, R}, {F, L}, {B, L}, {B, R},
	}
)

var cornerNames = [8]string{"URF", "UFL", "ULB", "UBR", "DFR", "DLF", "DBL", "DRB"}
var edgeNames = [12]string{"UR", "UF", "UL", "UB", "DR", "DF", "DL", "DB", "FR", "FL", "BL", "BR"}

// A State is an arrangement of the cubies, in 16 bytes, its own key.
//
// Field i (bits 5i to 5i+4) of corners holds 3j+t for corner slot i, i <
// 8, when corner cubie j is in the slot with its U or D colour on the
// slot's facelet t, counting clockwise from the slot's U or D facelet (the
// twist, 0 to 2). Field i of edges holds 2j+f for edge slot i, i < 12,
// when edge cubie j is in the slot, flipped (f = 1) or not (f = 0): not
// when the cubie's first colour (U or D; F or B for a cubie of the middle
// layer) is on the slot's first facelet (on U or D; on F or B for a slot
// of the middle layer). The slots and cubies are numbered as in the
// constants URF to DRB and UR to BR; the other bits are zero. (This is
// Kociemba's cubie representation.)
//
// The zero State is not a cube; the solved cube is Solved().
type State struct {
	corners, edges uint64
}

// Solved returns the solved cube: every cubie in its own slot, none turned.
func Solved() State { return solved }

var solved = func() State {
	var s State
	for i := range 8 {
		s.corners |= uint64(3*i) << (5 * i)
	}
	for i := range 12 {
		s.edges |= uint64(2*i) << (5 * i)
	}
	return s
}()

// Corner returns the cubie in corner slot i, 0 ≤ i < 8, and its twist,
// 0 to 2 (see State).
func (s State) Corner(i int) (cubie, twist int) {
	v := int(s.corners >> (5 * i) & 31)
	return v / 3, v % 3
}

// Edge returns the cubie in edge slot i, 0 ≤ i < 12, and its flip, 0 or 1
// (see State).
func (s State) Edge(i int) (cubie, flip int) {
	v := int(s.edges >> (5 * i) & 31)
	return v >> 1, v & 1
}

// cubies is a cube in unpacked form: the cubie and orientation of each
// slot, as a cube is read, generated and checked.
type cubies struct {
	cp, co [8]uint8
	ep, eo [12]uint8
}

func (c *cubies) pack() State {
	var s State
	for i := range 8 {
		s.corners |= uint64(3*c.cp[i]+c.co[i]) << (5 * i)
	}
	for i := range 12 {
		s.edges |= uint64(2*c.ep[i]+c.eo[i]) << (5 * i)
	}
	return s
}

func (s State) unpack() cubies {
	var c cubies
	for i := range 8 {
		j, t := s.Corner(i)
		c.cp[i], c.co[i] = uint8(j), uint8(t)
	}
	for i := range 12 {
		j, f := s.Edge(i)
		c.ep[i], c.eo[i] = uint8(j), uint8(f)
	}
	return c
}

// ErrUnsolvable is wrapped by the errors about cubes made of real cubies
// that no sequence of turns can solve: a twisted corner, a flipped edge or
// two swapped cubies.
var ErrUnsolvable = errors.New("unsolvable")

// check returns an error unless c is a legal cube: every cubie once, the
// twists summing to a multiple of 3, the flips to a multiple of 2, and the
// permutations of the corners and of the edges of the same parity.
func (c *cubies) check() error {
	var seenC, seenE uint16
	twist, flip := 0, 0
	for i := range 8 {
		if c.cp[i] >= 8 || c.co[i] >= 3 {
			return fmt.Errorf("corner slot %s: cubie %d twist %d out of range", cornerNames[i], c.cp[i], c.co[i])
		}
		if seenC&(1<<c.cp[i]) != 0 {
			return fmt.Errorf("corner %s appears twice", cornerNames[c.cp[i]])
		}
		seenC |= 1 << c.cp[i]
		twist += int(c.co[i])
	}
	for i := range 12 {
		if c.ep[i] >= 12 || c.eo[i] >= 2 {
			return fmt.Errorf("edge slot %s: cubie %d flip %d out of range", edgeNames[i], c.ep[i], c.eo[i])
		}
		if seenE&(1<<c.ep[i]) != 0 {
			return fmt.Errorf("edge %s appears twice", edgeNames[c.ep[i]])
		}
		seenE |= 1 << c.ep[i]
		flip += int(c.eo[i])
	}
	if twist%3 != 0 {
		return fmt.Errorf("%w: twist: the corner twists sum to %d, not a multiple of 3 (a corner is twisted in place)", ErrUnsolvable, twist)
	}
	if flip%2 != 0 {
		return fmt.Errorf("%w: flip: the edge flips sum to %d, not a multiple of 2 (an edge is flipped in place)", ErrUnsolvable, flip)
	}
	if pc, pe := parity(c.cp[:]), parity(c.ep[:]); pc != pe {
		return fmt.Errorf("%w: parity: the corner permutation is %s and the edge permutation %s (two cubies are swapped)", ErrUnsolvable, parityName[pc], parityName[pe])
	}
	return nil
}

var parityName = [2]string{"even", "odd"}

// parity returns 0 if the permutation p of 0 to len(p)-1 is even, 1 if odd.
func parity(p []uint8) int {
	n := 0
	for i := range p {
		for j := i + 1; j < len(p); j++ {
			if p[i] > p[j] {
				n++
			}
		}
	}
	return n & 1
}

// A turn is an action in the form Apply uses: the four corner slots and
// four edge slots it fills, as bit offsets, each from which slot; the
// corner fields after the twist of each (ctwist[k][v] is field v twisted);
// and the flips, in place.
type turn struct {
	cdst, csrc, edst, esrc [4]uint8
	ctwist                 [4][32]uint8
	cmask, emask, eflip    uint64
}

// basic[f] is the clockwise quarter turn of face f as a cube: slot i
// receives the cubie of slot cp[i] of the cube it is applied to, twisted
// by co[i] more (Kociemba's basic move cubes).
var basic = [6]cubies{
	U: {
		cp: [8]uint8{UBR, URF, UFL, ULB, DFR, DLF, DBL, DRB},
		ep: [12]uint8{UB, UR, UF, UL, DR, DF, DL, DB, FR, FL, BL, BR},
	},
	R: {
		cp: [8]uint8{DFR, UFL, ULB, URF, DRB, DLF, DBL, UBR},
		co: [8]uint8{2, 0, 0, 1, 1, 0, 0, 2},
		ep: [12]uint8{FR, UF, UL, UB, BR, DF, DL, DB, DR, FL, BL, UR},
	},
	F: {
		cp: [8]uint8{UFL, DLF, ULB, UBR, URF, DFR, DBL, DRB},
		co: [8]uint8{1, 2, 0, 0, 2, 1, 0, 0},
		ep: [12]uint8{UR, FL, UL, UB, DR, FR, DL, DB, UF, DF, BL, BR},
		eo: [12]uint8{0, 1, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0},
	},
	D: {
		cp: [8]uint8{URF, UFL, ULB, UBR, DLF, DBL, DRB, DFR},
		ep: [12]uint8{UR, UF, UL, UB, DF, DL, DB, DR, FR, FL, BL, BR},
	},
	L: {
		cp: [8]uint8{URF, ULB, DBL, UBR, DFR, UFL, DLF, DRB},
		co: [8]uint8{0, 1, 2, 0, 0, 2, 1, 0},
		ep: [12]uint8{UR, UF, BL, UB, DR, DF, FL, DB, FR, UL, DL, BR},
	},
	B: {
		cp: [8]uint8{URF, UFL, UBR, DRB, DFR, DLF, ULB, DBL},
		co: [8]uint8{0, 0, 1, 2, 0, 0, 2, 1},
		ep: [12]uint8{UR, UF, UL, BR, DR, DF, DL, BL, FR, FL, UB, DB},
		eo: [12]uint8{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1},
	},
}

// mul returns the cube a followed by the move cube m.
func mul(a, m *cubies) cubies {
	var c cubies
	for i := range 8 {
		c.cp[i] = a.cp[m.cp[i]]
		c.co[i] = (a.co[m.cp[i]] + m.co[i]) % 3
	}
	for i := range 12 {
		c.ep[i] = a.ep[m.ep[i]]
		c.eo[i] = (a.eo[m.ep[i]] + m.eo[i]) % 2
	}
	return c
}

// twistBy[t][v] is the corner field v with t added to its twist, mod 3.
var twistBy = func() (tw [3][32]uint8) {
	for t := range 3 {
		for v := range 24 {
			tw[t][v] = uint8(v/3*3 + (v%3+t)%3)
		}
	}
	return tw
}()

// turns[a] is action a.
var turns = func() (ts [NumActions]turn) {
	for f := range 6 {
		cw := basic[f]
		acw := mul(&cw, &cw)
		acw = mul(&acw, &cw) // three clockwise turns
		ts[2*f] = makeTurn(&cw)
		ts[2*f+1] = makeTurn(&acw)
	}
	return ts
}()

// makeTurn returns the turn of the move cube m, which moves exactly four
// corners and four edges.
func makeTurn(m *cubies) turn {
	var t turn
	k := 0
	for i := range 8 {
		if m.cp[i] != uint8(i) {
			t.cdst[k], t.csrc[k], t.ctwist[k] = uint8(5*i), 5*m.cp[i], twistBy[m.co[i]]
			t.cmask |= 31 << (5 * i)
			k++
		}
	}
	if k != 4 {
		panic("rubiks: a quarter turn moves four corners")
	}
	k = 0
	for i := range 12 {
		if m.ep[i] != uint8(i) {
			t.edst[k], t.esrc[k] = uint8(5*i), 5*m.ep[i]
			t.emask |= 31 << (5 * i)
			t.eflip |= uint64(m.eo[i]) << (5 * i)
			k++
		}
	}
	if k != 4 {
		panic("rubiks: a quarter turn moves four edges")
	}
	return t
}

// Apply returns s after action a, 0 ≤ a < NumActions (see the package
// documentation), and true; or the zero State and false if a is not an
// action.
func Apply(s State, a int) (State, bool) {
	if uint(a) >= NumActions {
		return State{}, false
	}
	t := &turns[a]
	c, e := s.corners, s.edges
	c = c&^t.cmask |
		uint64(t.ctwist[0][c>>(t.csrc[0]&63)&31])<<(t.cdst[0]&63) |
		uint64(t.ctwist[1][c>>(t.csrc[1]&63)&31])<<(t.cdst[1]&63) |
		uint64(t.ctwist[2][c>>(t.csrc[2]&63)&31])<<(t.cdst[2]&63) |
		uint64(t.ctwist[3][c>>(t.csrc[3]&63)&31])<<(t.cdst[3]&63)
	e = (e&^t.emask |
		(e>>(t.esrc[0]&63)&31)<<(t.edst[0]&63) |
		(e>>(t.esrc[1]&63)&31)<<(t.edst[1]&63) |
		(e>>(t.esrc[2]&63)&31)<<(t.edst[2]&63) |
		(e>>(t.esrc[3]&63)&31)<<(t.edst[3]&63)) ^ t.eflip
	return State{c, e}, true
}

// ActionName returns the name of action a: "U", "U'", "R", "R'", "F",
// "F'", "D", "D'", "L", "L'", "B" or "B'".
func ActionName(a int) string { return actionNames[a] }

var actionNames = [NumActions]string{"U", "U'", "R", "R'", "F", "F'", "D", "D'", "L", "L'", "B", "B'"}

// A Problem is one cube to solve. It implements search.Heuristic[State],
// search.Encoder[State], search.ActionNamer[State] and the contexts of a
// context model (package cm: ContextLayout, Contexts). Its methods are
// safe for concurrent use.
type Problem struct {
	// ID is "<file base name>#<index>" for a cube read from a file (the
	// index counts cubes from 0), empty for a generated one.
	ID    string
	start State
}

// New returns the problem of solving the cube of the facelet string
// facelets (see ParseFacelets).
func New(facelets, id string) (*Problem, error) {
	s, err := ParseFacelets(facelets)
	if err != nil {
		return nil, fmt.Errorf("rubiks: %w", err)
	}
	return &Problem{ID: id, start: s}, nil
}

// NewState returns the problem of solving the cube s, which must be a
// legal cube (one that ParseFacelets returns or that turns make of one):
// it is an error if s is not.
func NewState(s State, id string) (*Problem, error) {
	c := s.unpack()
	if err := c.check(); err != nil || c.pack() != s {
		if err == nil {
			err = errors.New("a field out of range")
		}
		return nil, fmt.Errorf("rubiks: state: %w", err)
	}
	return &Problem{ID: id, start: s}, nil
}

// Root returns the start.
func (p *Problem) Root() State { return p.start }

// NumActions returns 12.
func (p *Problem) NumActions() int { return NumActions }

// Apply returns s after action a and true, or the zero State and false if a
// is not an action (see the package function Apply).
func (p *Problem) Apply(s State, a int) (State, bool) { return Apply(s, a) }

// IsGoal reports whether s is the solved cube.
func (p *Problem) IsGoal(s State) bool { return s == solved }

// ActionName returns the name of action a (see the package function
// ActionName).
func (p *Problem) ActionName(a int) string { return ActionName(a) }

// String returns the start as a facelet string, the file format.
func (p *Problem) String() string { return p.start.String() }

// InitialBudget is the initial expansion budget of the Bootstrap process
// and test for the cube: that of the cube in the code of LTS+CM (Orseau,
// Hutter and Lelis, IJCAI 2023); the PHS paper has no cube.
const InitialBudget = 21000
