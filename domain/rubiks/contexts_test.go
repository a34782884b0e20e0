package rubiks

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// slotNames names the 20 slots of the contexts: the corner slots, then
// the edge slots.
var slotNames = func() (n [numSlots]string) {
	copy(n[:], cornerNames[:])
	copy(n[8:], edgeNames[:])
	return n
}()

// pairIndex returns the mutex set of the slots i < j.
func pairIndex(i, j int) int {
	k := 0
	for a := range numSlots {
		for b := a + 1; b < numSlots; b++ {
			if a == i && b == j {
				return k
			}
			k++
		}
	}
	panic("no pair")
}

// contextsOf returns the codes of the pairs of slots of s, the contexts
// but for the last action.
func contextsOf(s State) (pairs [numPairs]uint64) {
	var codes [NumContexts]uint64
	(&Problem{start: s}).Contexts(s, -1, s, codes[:])
	copy(pairs[:], codes[1:])
	return pairs
}

// slotValues decodes the 20 slot values from codes: v_0 from the pair
// (0, 1), v_j from the pair (0, j), after checking that every code is
// v_i·60 + v_j.
func slotValues(t *testing.T, codes [numPairs]uint64) (v [numSlots]int) {
	t.Helper()
	v[0] = int(codes[0] / 60)
	for j := 1; j < numSlots; j++ {
		v[j] = int(codes[j-1] % 60)
	}
	k := 0
	for i := range numSlots {
		for j := i + 1; j < numSlots; j++ {
			if want := uint64(v[i]*60 + v[j]); codes[k] != want {
				t.Fatalf("pair (%s, %s): code %d, want %d·60 + %d", slotNames[i], slotNames[j], codes[k], v[i], v[j])
			}
			k++
		}
	}
	return v
}

// faceletValues returns the 20 slot values of a cube read from its
// facelet string alone: the cubie of a slot is the one with the colours
// of its facelets, the twist of a corner the place of its U or D colour
// clockwise from the slot's U or D facelet, the flip of an edge 0 if the
// cubie's first colour is on the slot's first facelet.
func faceletValues(t *testing.T, facelets string) (v [numSlots]int) {
	t.Helper()
	color := func(k uint8) uint8 { return uint8(strings.IndexByte(faceLetters, facelets[k])) }
	for i, fs := range cornerFacelet {
		c := [3]uint8{color(fs[0]), color(fs[1]), color(fs[2])}
		found := false
		for j, want := range cornerColor {
			for tw := range 3 {
				if c[tw] == want[0] && c[(tw+1)%3] == want[1] && c[(tw+2)%3] == want[2] {
					v[i], found = 3*j+tw, true
				}
			}
		}
		if !found {
			t.Fatalf("%s: corner slot %s has colours %v, no cubie's", facelets, cornerNames[i], c)
		}
	}
	for i, fs := range edgeFacelet {
		c := [2]uint8{color(fs[0]), color(fs[1])}
		found := false
		for j, want := range edgeColor {
			for f := range 2 {
				if c[f] == want[0] && c[1-f] == want[1] {
					v[8+i], found = 3*(8+j)+f, true
				}
			}
		}
		if !found {
			t.Fatalf("%s: edge slot %s has colours %v, no cubie's", facelets, edgeNames[i], c)
		}
	}
	return v
}

func TestContextLayout(t *testing.T) {
	name, sizes := (&Problem{}).ContextLayout()
	if name != "rubiks v2" || NumContexts != 191 || len(sizes) != NumContexts || sizes[0] != 13 {
		t.Fatalf("layout %q with %d sets (the first of %d codes), NumContexts %d; want \"rubiks v2\", 191, 13", name, len(sizes), sizes[0], NumContexts)
	}
	for _, tc := range []struct {
		i, j int
		size uint64
	}{
		{URF, UFL, 23*60 + 24}, // two corners
		{DBL, DRB, 23*60 + 24},
		{URF, 8 + UR, 23*60 + 59}, // a corner and an edge
		{DRB, 8 + BR, 23*60 + 59},
		{8 + UR, 8 + UF, 58*60 + 59}, // two edges
		{8 + BL, 8 + BR, 58*60 + 59},
	} {
		if got := sizes[1+pairIndex(tc.i, tc.j)]; got != tc.size {
			t.Errorf("pair (%s, %s): %d codes, want %d", slotNames[tc.i], slotNames[tc.j], got, tc.size)
		}
	}
	sizes[0] = 0
	if _, again := (&Problem{}).ContextLayout(); again[0] == 0 {
		t.Error("ContextLayout returns a slice the caller can change under the next call")
	}
}

// TestContextsCubes checks the codes of the solved cube and of cubes one
// turn from it against slot values worked out by hand from the move
// cubes (Kociemba's): every other slot keeps its solved value 3i.
func TestContextsCubes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		moves  string
		values map[int]int // slot: value, the slots that differ from the solved cube
	}{
		{"solved", "", nil},
		{"U", "U", map[int]int{
			URF: 3 * UBR, UFL: 3 * URF, ULB: 3 * UFL, UBR: 3 * ULB,
			8 + UR: 3 * (8 + UB), 8 + UF: 3 * (8 + UR), 8 + UL: 3 * (8 + UF), 8 + UB: 3 * (8 + UL),
		}},
		{"F", "F", map[int]int{
			URF: 3*UFL + 1, UFL: 3*DLF + 2, DFR: 3*URF + 2, DLF: 3*DFR + 1,
			8 + UF: 3*(8+FL) + 1, 8 + DF: 3*(8+FR) + 1, 8 + FR: 3*(8+UF) + 1, 8 + FL: 3*(8+DF) + 1,
		}},
		{"R'", "R'", map[int]int{ // R' moves URF to DFR, DFR to DRB, DRB to UBR, UBR to URF
			URF: 3*UBR + 2, UBR: 3*DRB + 1, DRB: 3*DFR + 2, DFR: 3*URF + 1,
			8 + UR: 3 * (8 + BR), 8 + BR: 3 * (8 + DR), 8 + DR: 3 * (8 + FR), 8 + FR: 3 * (8 + UR),
		}},
	} {
		s := applyAll(Solved(), moves(t, tc.moves))
		v := slotValues(t, contextsOf(s))
		for i := range numSlots {
			want, ok := tc.values[i]
			if !ok {
				want = 3 * i
			}
			if v[i] != want {
				t.Errorf("%s: slot %s: value %d, want %d", tc.name, slotNames[i], v[i], want)
			}
		}
	}
	codes := contextsOf(Solved())
	for _, tc := range []struct {
		i, j int
		code uint64
	}{
		{URF, UFL, 3},
		{URF, 8 + BR, 57},
		{DRB, 8 + UR, 21*60 + 24},
		{8 + BL, 8 + BR, 54*60 + 57},
	} {
		if got := codes[pairIndex(tc.i, tc.j)]; got != tc.code {
			t.Errorf("solved: pair (%s, %s): code %d, want %d", slotNames[tc.i], slotNames[tc.j], got, tc.code)
		}
	}
}

// TestContextsFacelets checks the slot values of random cubes against
// those read from their facelets.
func TestContextsFacelets(t *testing.T) {
	for _, s := range append(randomStates(300), Solved()) {
		if got, want := slotValues(t, contextsOf(s)), faceletValues(t, s.String()); got != want {
			t.Fatalf("%s: slot values %v, from the facelets %v", s, got, want)
		}
	}
}

// TestContextsTurns checks, for each turn of random cubes, that the codes
// that change are those of the pairs with a slot of the turned face (a
// slot whose name has the face's letter): the four corners and four edges
// of the face each get another cubie.
func TestContextsTurns(t *testing.T) {
	states := append(randomStates(100), Solved())
	for a := range NumActions {
		face := faceLetters[a/2]
		touched := 0
		for _, n := range slotNames {
			if strings.IndexByte(n, face) >= 0 {
				touched++
			}
		}
		if touched != 8 {
			t.Fatalf("face %c has %d slots", face, touched)
		}
		for _, s := range states {
			next, _ := Apply(s, a)
			before, after := contextsOf(s), contextsOf(next)
			changed := 0
			k := 0
			for i := range numSlots {
				for j := i + 1; j < numSlots; j++ {
					moves := strings.IndexByte(slotNames[i], face) >= 0 || strings.IndexByte(slotNames[j], face) >= 0
					if (before[k] != after[k]) != moves {
						t.Fatalf("%s of %s: pair (%s, %s): code %d, then %d", ActionName(a), s, slotNames[i], slotNames[j], before[k], after[k])
					}
					if moves {
						changed++
					}
					k++
				}
			}
			if changed != numPairs-12*11/2 {
				t.Fatalf("%s: %d pairs changed, want %d", ActionName(a), changed, numPairs-66)
			}
		}
	}
}

// TestContextsRange checks, on random scrambles and uniformly random
// cubes, that the slot values are a legal cube's (every cubie once,
// corners in corner slots, twists summing to a multiple of 3, flips to a
// multiple of 2), that every code is below its set's size, and that the
// codes of each set are as many as Contexts documents: 24·21 for two
// corner slots, 24·24 for a corner and an edge slot, 24·22 for two edge
// slots.
func TestContextsRange(t *testing.T) {
	_, sizes := (&Problem{}).ContextLayout()
	sizes = sizes[1:] // the pairs
	seen := make([][]bool, numPairs)
	for k := range seen {
		seen[k] = make([]bool, sizes[k])
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 20000 {
		var s State
		if n%4 == 0 {
			s = GenerateScramble(rng, 1, 25).Root()
		} else {
			s = GenerateRandom(rng).Root()
		}
		codes := contextsOf(s)
		for k, c := range codes {
			if c >= sizes[k] {
				t.Fatalf("%s: set %d: code %d, want < %d", s, k, c, sizes[k])
			}
			seen[k][c] = true
		}
		v := slotValues(t, codes)
		var cubies uint32
		twist, flip := 0, 0
		for i, x := range v {
			j, o := x/3, x%3
			if i < 8 && (j >= 8 || o > 2) || i >= 8 && (j < 8 || j >= 20 || o > 1) {
				t.Fatalf("%s: slot %s holds value %d", s, slotNames[i], x)
			}
			cubies |= 1 << j
			if i < 8 {
				twist += o
			} else {
				flip += o
			}
		}
		if cubies != 1<<20-1 || twist%3 != 0 || flip%2 != 0 {
			t.Fatalf("%s: slot values %v: cubies %b, twists sum to %d, flips to %d", s, v, cubies, twist, flip)
		}
	}
	k := 0
	for i := range numSlots {
		for j := i + 1; j < numSlots; j++ {
			n := 0
			for _, b := range seen[k] {
				if b {
					n++
				}
			}
			want := 24 * 24
			switch {
			case j < 8:
				want = 24 * 21
			case i >= 8:
				want = 24 * 22
			}
			if n != want {
				t.Errorf("pair (%s, %s): %d codes seen, want %d", slotNames[i], slotNames[j], n, want)
			}
			k++
		}
	}
}

// TestContextsLastAction checks the first code: the action that led to
// the cube, 12 at the root, the pairs being the cube's own.
func TestContextsLastAction(t *testing.T) {
	p := GenerateRandom(rand.New(rand.NewPCG(2, 3)))
	var codes [NumContexts]uint64
	p.Contexts(p.Root(), -1, p.Root(), codes[:])
	if codes[0] != 12 {
		t.Errorf("root: last action %d, want 12", codes[0])
	}
	for a := range NumActions {
		next, _ := p.Apply(p.Root(), a)
		p.Contexts(p.Root(), a, next, codes[:])
		if pairs := contextsOf(next); codes[0] != uint64(a) || [numPairs]uint64(codes[1:]) != pairs {
			t.Errorf("after %s: last action %d, want %d; or pairs other than the cube's", ActionName(a), codes[0], a)
		}
	}
}

func TestContextsAllocs(t *testing.T) {
	p := GenerateRandom(rand.New(rand.NewPCG(1, 3)))
	var codes [NumContexts]uint64
	if n := testing.AllocsPerRun(100, func() { p.Contexts(p.Root(), -1, p.Root(), codes[:]) }); n != 0 {
		t.Errorf("%v allocations per Contexts", n)
	}
}

// BenchmarkContexts measures the 191 context codes of a cube.
func BenchmarkContexts(b *testing.B) {
	p := GenerateRandom(rand.New(rand.NewPCG(1, 3)))
	var codes [NumContexts]uint64
	for b.Loop() {
		p.Contexts(p.Root(), -1, p.Root(), codes[:])
	}
}
