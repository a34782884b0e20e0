// Package lines reads a text file a line at a time, as the domains'
// parsers read their problems: lines numbered from 1, without their line
// endings, the first without a UTF-8 byte-order mark.
package lines

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// ErrTooLong is the error of a line that does not fit in a Reader's
// buffer.
var ErrTooLong = errors.New("line too long")

// bom is the UTF-8 encoding of the byte-order mark U+FEFF.
var bom = []byte("\uFEFF")

// A Reader reads the lines of an input. Lines end with "\n" or "\r\n";
// the last may have no line ending.
type Reader struct {
	sc   *bufio.Scanner
	line int
}

// NewReader returns a Reader of r whose buffer grows to size bytes, size
// > 0: a line that does not fit in it with its ending is an error.
func NewReader(r io.Reader, size int) *Reader {
	if size <= 0 {
		panic("lines: NewReader with size ≤ 0")
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, size)
	return &Reader{sc: sc}
}

// Next reads the next line and reports whether there was one; at the end
// of the input or on an error, it returns false and Err says which.
func (r *Reader) Next() bool {
	if !r.sc.Scan() {
		return false
	}
	r.line++
	return true
}

// Bytes returns the line that Next read, without its ending, and for the
// first line without a byte-order mark. It is valid until the next call
// of Next.
func (r *Reader) Bytes() []byte {
	b := r.sc.Bytes()
	if r.line == 1 {
		b = bytes.TrimPrefix(b, bom)
	}
	return b
}

// Line returns the number of the line that Next read, from 1; after Next
// returns false, that of the line it could not read.
func (r *Reader) Line() int {
	if r.sc.Err() != nil {
		return r.line + 1
	}
	return r.line
}

// Err returns the error that ended the reading: nil at the end of the
// input, ErrTooLong for a line that does not fit in the Reader's buffer,
// or the error of the input.
func (r *Reader) Err() error {
	err := r.sc.Err()
	if errors.Is(err, bufio.ErrTooLong) {
		return ErrTooLong
	}
	return err
}
