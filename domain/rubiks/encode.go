package rubiks

import "strings"

// Shape of the encoding: one plane per colour over the unfolded cube.
const (
	encPlanes = 6
	encHeight = 9
	encWidth  = 12
	encSize   = encHeight * encWidth
)

// InputShape returns 6 planes of 9×12 pixels.
func (p *Problem) InputShape() (c, h, w int) { return encPlanes, encHeight, encWidth }

// Encode writes the colours of the facelets of s to dst, of length
// 6·9·12, in CHW order: plane c has a 1 at the pixel of each facelet of
// colour c (the colours in the order U R F D L B) and 0 elsewhere. The
// pixels are the cube unfolded as a cross, as ParseFacelets draws it: U in
// rows 0 to 2 and columns 3 to 5, then L, F, R, B side by side in rows 3
// to 5, then D in rows 6 to 8 under F, each face's 3×3 facelets as seen
// from outside. The 54 pixels outside the cross are 0 in every plane.
// Pixels side by side are facelets side by side on the cube, within a face
// and across the 5 edges of the cube that the cross keeps (U–F, F–D, L–F,
// F–R, R–B); the cross cuts the other 7.
func (p *Problem) Encode(s State, dst []float32) {
	dst = dst[:encPlanes*encSize]
	clear(dst)
	var buf [54]int32
	for _, j := range p.AppendOnes(s, buf[:0]) {
		dst[j] = 1
	}
}

// AppendOnes appends to dst the places of the 54 ones of Encode's
// encoding of s, one a facelet, and returns the extended slice.
func (p *Problem) AppendOnes(s State, dst []int32) []int32 {
	var col [54]byte
	s.facelets(&col)
	for k, c := range col {
		dst = append(dst, int32(int(c)*encSize+int(pixel[k])))
	}
	return dst
}

// pixel[k] is the pixel of facelet k: row·12 + column.
var pixel = func() (px [54]uint8) {
	// The row and column of the top left facelet of each face.
	corner := [6][2]int{U: {0, 3}, R: {3, 6}, F: {3, 3}, D: {6, 3}, L: {3, 0}, B: {3, 9}}
	for k := range px {
		f, r, c := k/9, k%9/3, k%3
		px[k] = uint8((corner[f][0]+r)*encWidth + corner[f][1] + c)
	}
	return px
}()

// Render draws s as the unfolded cube of Encode and ParseFacelets, one
// line per row of facelets, the rows joined by '\n' without a final one:
// the letter of each facelet's colour, a space between two faces side by
// side, U and D above and below F.
func (p *Problem) Render(s State) string {
	var col [54]byte
	s.facelets(&col)
	var b strings.Builder
	row := func(f, r int) {
		for c := range 3 {
			b.WriteByte(faceLetters[col[9*f+3*r+c]])
		}
	}
	for r := range 3 {
		b.WriteString("    ")
		row(U, r)
		b.WriteByte('\n')
	}
	for r := range 3 {
		for i, f := range []int{L, F, R, B} {
			if i > 0 {
				b.WriteByte(' ')
			}
			row(f, r)
		}
		b.WriteByte('\n')
	}
	for r := range 3 {
		b.WriteString("    ")
		row(D, r)
		if r < 2 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
