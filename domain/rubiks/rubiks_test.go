package rubiks

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

const solvedFacelets = "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"

// The README's example: the kociemba package's.
const (
	exampleCube     = "DRLUUBFBRBLURRLRUBLRDDFDLFUFUFFDBRDUBRUFLLFDDBFLUBLRBD"
	exampleSolution = "D2 R' D' F2 B D R2 D2 R' F2 D' F2 U' B2 L2 U2 D R2 U"
)

// The interfaces a Problem implements.
var (
	_ search.Heuristic[State]   = (*Problem)(nil)
	_ search.Encoder[State]     = (*Problem)(nil)
	_ search.ActionNamer[State] = (*Problem)(nil)
)

// moves returns the actions of a sequence in Singmaster's notation, X2
// spelling X X.
func moves(t testing.TB, seq string) []int {
	t.Helper()
	var as []int
	for _, m := range strings.Fields(seq) {
		a := 2 * strings.IndexByte(faceLetters, m[0])
		if a < 0 || len(m) > 2 {
			t.Fatalf("move %q", m)
		}
		switch m[1:] {
		case "":
			as = append(as, a)
		case "'":
			as = append(as, a+1)
		case "2":
			as = append(as, a, a)
		default:
			t.Fatalf("move %q", m)
		}
	}
	return as
}

func applyAll(s State, as []int) State {
	for _, a := range as {
		s, _ = Apply(s, a)
	}
	return s
}

func mustParse(t testing.TB, facelets string) State {
	t.Helper()
	s, err := ParseFacelets(facelets)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// randomStates returns n states: uniformly random cubes and scrambles of
// 1 to 30 turns.
func randomStates(n int) []State {
	rng := rand.New(rand.NewPCG(1, 2))
	ss := make([]State, n)
	for i := range ss {
		if i%2 == 0 {
			ss[i] = GenerateRandom(rng).Root()
		} else {
			ss[i] = GenerateScramble(rng, 1, 30).Root()
		}
	}
	return ss
}

func TestSolved(t *testing.T) {
	s := mustParse(t, solvedFacelets)
	if s != Solved() {
		t.Fatalf("parse of the solved cube: %+v, want %+v", s, Solved())
	}
	if got := Solved().String(); got != solvedFacelets {
		t.Fatalf("Solved().String() = %s", got)
	}
	p := &Problem{start: s}
	if !p.IsGoal(s) {
		t.Fatal("the solved cube is not a goal")
	}
	if p.IsGoal(State{}) {
		t.Fatal("the zero State is a goal")
	}
	for i := range 8 {
		if j, tw := s.Corner(i); j != i || tw != 0 {
			t.Errorf("corner slot %d: %d %d", i, j, tw)
		}
	}
	for i := range 12 {
		if j, f := s.Edge(i); j != i || f != 0 {
			t.Errorf("edge slot %d: %d %d", i, j, f)
		}
	}
}

// TestExampleSolution solves the README's example cube with its solution,
// which uses every face, and checks every prefix of the solution against
// the facelet model of the turns: the cube of each step is the facelet
// permutation of the turn applied to the facelets of the previous one.
func TestExampleSolution(t *testing.T) {
	s := mustParse(t, exampleCube)
	if got := s.String(); got != exampleCube {
		t.Fatalf("round trip: %s", got)
	}
	as := moves(t, exampleSolution)
	p, err := New(exampleCube, "example")
	if err != nil {
		t.Fatal(err)
	}
	if err := search.Replay(p, as); err != nil {
		t.Fatalf("the example solution does not solve the example: %v", err)
	}
	// Without its last turn, the solution does not solve it.
	if err := search.Replay(p, as[:len(as)-1]); err == nil {
		t.Fatal("a prefix of the solution solves the example")
	}
	// Clockwise and anticlockwise swapped, it does not.
	swapped := make([]int, len(as))
	for i, a := range as {
		swapped[i] = a ^ 1
	}
	if err := search.Replay(p, swapped); err == nil {
		t.Fatal("the solution with the directions swapped solves the example")
	}
}

// cycles is a facelet permutation given as cycles: in each cycle, the
// facelet of each name moves to the place of the next name.
func faceletPerm(t *testing.T, cycles [][]string) [54]int {
	t.Helper()
	var from [54]int // after the turn, facelet k holds what was at from[k]
	for k := range from {
		from[k] = k
	}
	index := func(name string) int {
		f := strings.IndexByte(faceLetters, name[0])
		if f < 0 || len(name) != 2 || name[1] < '0' || name[1] > '8' {
			t.Fatalf("facelet %q", name)
		}
		return 9*f + int(name[1]-'0')
	}
	for _, c := range cycles {
		for i, name := range c {
			from[index(c[(i+1)%len(c)])] = index(name)
		}
	}
	return from
}

// TestTurnFacelets checks U, R and F against their facelet cycles, worked
// out by hand from the geometry of the turns (README: U sends the top row
// of F to L, R sends the right column of F up to U), and their inverses
// against the inverse cycles, on random cubes.
func TestTurnFacelets(t *testing.T) {
	tests := []struct {
		action int
		cycles [][]string
	}{
		{0, [][]string{ // U
			{"U0", "U2", "U8", "U6"}, {"U1", "U5", "U7", "U3"},
			{"F0", "L0", "B0", "R0"}, {"F1", "L1", "B1", "R1"}, {"F2", "L2", "B2", "R2"},
		}},
		{2, [][]string{ // R
			{"R0", "R2", "R8", "R6"}, {"R1", "R5", "R7", "R3"},
			{"F2", "U2", "B6", "D2"}, {"F5", "U5", "B3", "D5"}, {"F8", "U8", "B0", "D8"},
		}},
		{4, [][]string{ // F
			{"F0", "F2", "F8", "F6"}, {"F1", "F5", "F7", "F3"},
			{"U6", "R0", "D2", "L8"}, {"U7", "R3", "D1", "L5"}, {"U8", "R6", "D0", "L2"},
		}},
	}
	states := append(randomStates(50), Solved())
	for _, tt := range tests {
		from := faceletPerm(t, tt.cycles)
		var inverse [54]int
		for k, j := range from {
			inverse[j] = k
		}
		for _, dir := range []struct {
			action int
			from   [54]int
		}{{tt.action, from}, {tt.action ^ 1, inverse}} {
			for _, s := range states {
				before := s.String()
				next, ok := Apply(s, dir.action)
				if !ok {
					t.Fatalf("%s illegal", ActionName(dir.action))
				}
				after := next.String()
				for k := range 54 {
					if after[k] != before[dir.from[k]] {
						t.Fatalf("%s of %s: %s, facelet %s is %c, want %c (from %s)", ActionName(dir.action), before, after,
							faceletName(k), after[k], before[dir.from[k]], faceletName(dir.from[k]))
					}
				}
			}
		}
	}
}

// A vec is a point or direction of the cube in space: x from L to R, y
// from D to U, z from B to F, each coordinate -1, 0 or 1.
type vec [3]int

func (v vec) dot(w vec) int { return v[0]*w[0] + v[1]*w[1] + v[2]*w[2] }

// geometry returns the cubie (its centre) and the normal of each facelet,
// from the layout that ParseFacelets documents.
func geometry() (pos, normal [54]vec) {
	for k := range 54 {
		f, r, c := k/9, k%9/3-1, k%3-1 // r and c from -1 to 1
		switch f {
		case U: // B at the top
			pos[k], normal[k] = vec{c, 1, r}, vec{0, 1, 0}
		case D: // F at the top
			pos[k], normal[k] = vec{c, -1, -r}, vec{0, -1, 0}
		case F:
			pos[k], normal[k] = vec{c, -r, 1}, vec{0, 0, 1}
		case B: // seen from behind: R on the left
			pos[k], normal[k] = vec{-c, -r, -1}, vec{0, 0, -1}
		case R: // F on the left
			pos[k], normal[k] = vec{1, -r, -c}, vec{1, 0, 0}
		case L: // B on the left
			pos[k], normal[k] = vec{-1, -r, c}, vec{-1, 0, 0}
		}
	}
	return pos, normal
}

// clockwise returns v turned a quarter turn clockwise about the axis n, as
// seen from the end of n: v' = n(n·v) - n×v.
func clockwise(v, n vec) vec {
	cross := vec{n[1]*v[2] - n[2]*v[1], n[2]*v[0] - n[0]*v[2], n[0]*v[1] - n[1]*v[0]}
	d := n.dot(v)
	return vec{n[0]*d - cross[0], n[1]*d - cross[1], n[2]*d - cross[2]}
}

// TestTurnsGeometry checks the 12 turns against a model of the cube in
// space, independent of the cubie tables: the clockwise turn of face f
// rotates the 9 cubies of its layer a quarter turn clockwise about the
// face's normal, as seen from outside, facelets and all.
func TestTurnsGeometry(t *testing.T) {
	pos, normal := geometry()
	index := make(map[[2]vec]int)
	for k := range 54 {
		index[[2]vec{pos[k], normal[k]}] = k
	}
	if len(index) != 54 {
		t.Fatal("two facelets in one place")
	}
	states := append(randomStates(50), Solved())
	for f := range 6 {
		n := normal[9*f+4]
		var from [54]int // after the turn, facelet k holds what was at from[k]
		moved := 0
		for k := range 54 {
			if pos[k].dot(n) != 1 {
				from[k] = k
				continue
			}
			to, ok := index[[2]vec{clockwise(pos[k], n), clockwise(normal[k], n)}]
			if !ok {
				t.Fatalf("facelet %s goes nowhere", faceletName(k))
			}
			from[to] = k
			if to != k {
				moved++
			}
		}
		if moved != 20 {
			t.Fatalf("face %c: %d facelets move, want 20", faceLetters[f], moved)
		}
		var inverse [54]int
		for k, j := range from {
			inverse[j] = k
		}
		for _, dir := range []struct {
			action int
			from   [54]int
		}{{2 * f, from}, {2*f + 1, inverse}} {
			for _, s := range states {
				before := s.String()
				next, _ := Apply(s, dir.action)
				after := next.String()
				for k := range 54 {
					if after[k] != before[dir.from[k]] {
						t.Fatalf("%s of %s: %s, facelet %s is %c, want %c (from %s)", ActionName(dir.action), before, after,
							faceletName(k), after[k], before[dir.from[k]], faceletName(dir.from[k]))
					}
				}
			}
		}
	}
}

// TestTurnsAsRotations checks the six clockwise turns alike: each rotates
// the 3x3 facelets of its face clockwise and moves 20 facelets (8 on its
// face, 3 on each of the 4 faces around it), none on the opposite face.
func TestTurnsAsRotations(t *testing.T) {
	for f := range 6 {
		var changed [54]bool
		for _, s := range randomStates(40) {
			before := s.String()
			next, _ := Apply(s, 2*f)
			after := next.String()
			for k := range 54 {
				changed[k] = changed[k] || after[k] != before[k]
				if k/9 == f {
					// Facelet (r, c) comes from (2-c, r): clockwise.
					r, c := k%9/3, k%3
					if src := 9*f + 3*(2-c) + r; after[k] != before[src] {
						t.Fatalf("%s: facelet %s is %c, want %c", ActionName(2*f), faceletName(k), after[k], before[src])
					}
				}
			}
		}
		n := 0
		for k, c := range changed {
			if !c {
				continue
			}
			n++
			if opp := (f + 3) % 6; k/9 == opp {
				t.Errorf("%s moves %s, on the opposite face", ActionName(2*f), faceletName(k))
			}
		}
		if n != 20 {
			t.Errorf("%s moves %d facelets, want 20", ActionName(2*f), n)
		}
	}
}

func TestActionNames(t *testing.T) {
	p := &Problem{start: Solved()}
	var names []string
	for a := range p.NumActions() {
		names = append(names, p.ActionName(a))
	}
	if got := strings.Join(names, " "); got != "U U' R R' F F' D D' L L' B B'" {
		t.Fatalf("names %s", got)
	}
	as, err := search.ParseActions(p, "U R' B")
	if err != nil || !slices.Equal(as, []int{0, 3, 10}) {
		t.Fatalf("ParseActions: %v %v", as, err)
	}
	if got := search.FormatActions(p, moves(t, exampleSolution)); !strings.HasPrefix(got, "D D R' D' F F B") {
		t.Fatalf("FormatActions: %s", got)
	}
	if _, ok := Apply(Solved(), -1); ok {
		t.Fatal("action -1 is legal")
	}
	if s, ok := Apply(Solved(), NumActions); ok || s != (State{}) {
		t.Fatal("action 12 is legal")
	}
}

// TestTurnGroup checks that each action and its inverse cancel, that four
// quarter turns of a face are nothing, that turns of opposite faces
// commute and those of adjacent faces do not, and that every turn keeps a
// cube legal.
func TestTurnGroup(t *testing.T) {
	for _, s := range randomStates(200) {
		for a := range NumActions {
			next, ok := Apply(s, a)
			if !ok {
				t.Fatalf("action %d illegal", a)
			}
			if next == s {
				t.Fatalf("%s leaves %s as it is", ActionName(a), s)
			}
			if back, _ := Apply(next, a^1); back != s {
				t.Fatalf("%s then %s of %s: %s", ActionName(a), ActionName(a^1), s, back)
			}
			if four := applyAll(s, []int{a, a, a, a}); four != s {
				t.Fatalf("%s four times: %s", ActionName(a), four)
			}
			if twice, thrice := applyAll(s, []int{a, a}), applyAll(s, []int{a ^ 1, a ^ 1}); twice != thrice {
				t.Fatalf("%s twice is not %s twice", ActionName(a), ActionName(a^1))
			}
			if _, err := NewState(next, ""); err != nil {
				t.Fatalf("%s of %s: %v", ActionName(a), s, err)
			}
			if got, err := ParseFacelets(next.String()); err != nil || got != next {
				t.Fatalf("%s of %s: round trip %v", ActionName(a), s, err)
			}
			for b := range NumActions {
				ab := applyAll(s, []int{a, b})
				ba := applyAll(s, []int{b, a})
				opposite := a/2 == b/2 || (a/2+3)%6 == b/2
				if (ab == ba) != opposite {
					t.Fatalf("%s and %s commute: %v", ActionName(a), ActionName(b), ab == ba)
				}
			}
		}
	}
}

func TestNewState(t *testing.T) {
	if _, err := NewState(State{}, ""); err == nil {
		t.Error("the zero State is accepted")
	}
	s := Solved()
	s.corners ^= 1 // twist a corner
	if _, err := NewState(s, ""); err == nil {
		t.Error("a twisted corner is accepted")
	}
	s = Solved()
	s.edges |= 1 << 62 // a bit above the fields
	if _, err := NewState(s, ""); err == nil {
		t.Error("a bit above the fields is accepted")
	}
	s = Solved()
	s.corners |= 31 // field 31
	if _, err := NewState(s, ""); err == nil {
		t.Error("corner field 31 is accepted")
	}
	p, err := NewState(mustParse(t, exampleCube), "x")
	if err != nil || p.String() != exampleCube || p.ID != "x" {
		t.Fatalf("NewState: %v %v", p, err)
	}
}

func TestScramble(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	counts := make(map[int]int)
	for range 2000 {
		as := Scramble(rng, 3, 7)
		if len(as) < 3 || len(as) > 7 {
			t.Fatalf("length %d", len(as))
		}
		counts[len(as)]++
		for i, a := range as {
			if a < 0 || a >= NumActions {
				t.Fatalf("action %d", a)
			}
			if i > 0 && a == as[i-1]^1 {
				t.Fatalf("%v: an immediate inverse", as)
			}
		}
	}
	if len(counts) != 5 {
		t.Fatalf("lengths %v", counts)
	}
	if as := Scramble(rng, 0, 0); len(as) != 0 {
		t.Fatalf("Scramble(0, 0) = %v", as)
	}
	// GenerateScramble applies the scramble of the same draws.
	a, b := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
	for range 100 {
		p := GenerateScramble(a, 1, 20)
		if want := applyAll(Solved(), Scramble(b, 1, 20)); p.Root() != want || p.ID != "" {
			t.Fatalf("GenerateScramble: %s, want %s", p.Root(), want)
		}
	}
	for _, lens := range [][2]int{{-1, 2}, {3, 2}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Scramble(%d, %d) does not panic", lens[0], lens[1])
				}
			}()
			Scramble(rng, lens[0], lens[1])
		}()
	}
}

// TestGenerateRandom checks that random cubes are legal and that every
// cubie goes to every slot with every orientation, about equally often.
func TestGenerateRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 24000
	var corner [8][24]int
	var edge [12][24]int
	byParity := [2]int{}
	for range n {
		p := GenerateRandom(rng)
		s := p.Root()
		if _, err := NewState(s, ""); err != nil {
			t.Fatal(err)
		}
		for i := range 8 {
			corner[i][s.corners>>(5*i)&31]++
		}
		for i := range 12 {
			edge[i][s.edges>>(5*i)&31]++
		}
		c := s.unpack()
		byParity[parity(c.cp[:])]++
	}
	// Each count is binomial with mean n/24 = 1000 and sd ≈ 31.
	for i := range 8 {
		for v, k := range corner[i] {
			if k < 850 || k > 1150 {
				t.Errorf("corner slot %d field %d: %d times in %d", i, v, k, n)
			}
		}
	}
	for i := range 12 {
		for v, k := range edge[i] {
			if k < 850 || k > 1150 {
				t.Errorf("edge slot %d field %d: %d times in %d", i, v, k, n)
			}
		}
	}
	if byParity[0] < n/2-500 || byParity[0] > n/2+500 {
		t.Errorf("even corner permutations: %d of %d", byParity[0], n)
	}
	a, b := GenerateRandom(rand.New(rand.NewPCG(9, 9))), GenerateRandom(rand.New(rand.NewPCG(9, 9)))
	if a.Root() != b.Root() {
		t.Fatal("GenerateRandom is not reproducible")
	}
}

// TestEncode checks the encoding of the solved cube against the drawing of
// the net, and that every cube has one colour per facelet pixel.
func TestEncode(t *testing.T) {
	p := &Problem{start: Solved()}
	c, h, w := p.InputShape()
	if c != 6 || h != 9 || w != 12 {
		t.Fatalf("shape %d %d %d", c, h, w)
	}
	net := []string{
		"   UUU      ",
		"   UUU      ",
		"   UUU      ",
		"LLLFFFRRRBBB",
		"LLLFFFRRRBBB",
		"LLLFFFRRRBBB",
		"   DDD      ",
		"   DDD      ",
		"   DDD      ",
	}
	dst := make([]float32, c*h*w)
	for i := range dst {
		dst[i] = 7 // overwritten
	}
	p.Encode(Solved(), dst)
	for y, row := range net {
		for x := range w {
			for k := range c {
				want := float32(0)
				if row[x] == faceLetters[k] {
					want = 1
				}
				if got := dst[k*h*w+y*w+x]; got != want {
					t.Fatalf("plane %c pixel (%d, %d) = %v, want %v", faceLetters[k], y, x, got, want)
				}
			}
		}
	}
	// A turned cube: each facelet pixel of the net has its colour.
	for _, s := range randomStates(20) {
		p.Encode(s, dst)
		f := s.String()
		for k := range 54 {
			px := int(pixel[k])
			for col := range c {
				want := float32(0)
				if f[k] == faceLetters[col] {
					want = 1
				}
				if dst[col*h*w+px] != want {
					t.Fatalf("%s: plane %d facelet %s: %v", f, col, faceletName(k), dst[col*h*w+px])
				}
			}
		}
		sum := float32(0)
		for _, v := range dst {
			sum += v
		}
		if sum != 54 {
			t.Fatalf("%s: %v ones, want 54", f, sum)
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { p.Encode(Solved(), dst) }); allocs != 0 {
		t.Errorf("Encode allocates %v times", allocs)
	}
	if err := searchtest.CheckOneHot(p, append(randomStates(20), Solved())); err != nil {
		t.Error(err)
	}
}

// TestRender reads the facelets back from the drawing.
func TestRender(t *testing.T) {
	p := &Problem{start: Solved()}
	for _, s := range randomStates(20) {
		lines := strings.Split(p.Render(s), "\n")
		if len(lines) != 9 {
			t.Fatalf("%d lines", len(lines))
		}
		var b strings.Builder
		for _, part := range [][2]int{{0, 4}, {3, 8}, {3, 4}, {6, 4}, {3, 0}, {3, 12}} { // U R F D L B: first row, column
			for r := range 3 {
				b.WriteString(lines[part[0]+r][part[1] : part[1]+3])
			}
		}
		if got := b.String(); got != s.String() {
			t.Fatalf("Render of %s:\n%s", s, p.Render(s))
		}
	}
}
