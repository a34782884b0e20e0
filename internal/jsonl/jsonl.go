// Package jsonl reads JSON Lines files: one JSON object per line, as the
// result records of package report and the training metrics of package
// bootstrap are written.
package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxLine is the length in bytes of the longest line that Read and
// ReadCheck accept, not counting its line ending.
const MaxLine = 16 << 20

// Read decodes the lines of r, in order, into values of type T. It is
// ReadCheck without a check.
func Read[T any](r io.Reader, name string) ([]T, error) {
	return ReadCheck[T](r, name, nil)
}

// ReadCheck decodes the lines of r, in order, into values of type T, and
// returns them; it returns no values and no error for an input without
// objects.
//
// Lines end with "\n" or "\r\n"; the last may have no line ending. A line
// that is empty or holds only spaces, tabs and carriage returns is
// skipped. Any other line must hold exactly one JSON object, with optional
// spaces, tabs and carriage returns around it, and be at most MaxLine bytes
// long. The object is decoded as by encoding/json with
// DisallowUnknownFields: a name that matches no field of T is an error. If
// check is not nil, it is called on each decoded value, and an error it
// returns is an error of that line.
//
// Reading stops at the first error, which is returned with no values. Its
// message starts with "name:line: ", where name is the name argument (a
// file name, say) and line the number of the line at fault, counting from
// 1; a read error of r is wrapped, as are the errors of encoding/json and
// of check.
func ReadCheck[T any](r io.Reader, name string, check func(T) error) ([]T, error) {
	return readCheck(r, name, check, MaxLine)
}

// readCheck is ReadCheck with lines of at most maxLine bytes.
func readCheck[T any](r io.Reader, name string, check func(T) error, maxLine int) ([]T, error) {
	var vals []T
	sc := bufio.NewScanner(r)
	// Room for a line of maxLine bytes and its "\r\n". Lines of maxLine+1
	// and maxLine+2 bytes fit too, and are rejected below.
	sc.Buffer(nil, maxLine+2)
	line := 0
	for sc.Scan() {
		line++
		if err := sc.Err(); err != nil {
			// A read error cut this line short.
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		raw := sc.Bytes()
		if len(raw) > maxLine {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", name, line, maxLine)
		}
		b := bytes.Trim(raw, " \t\r")
		if len(b) == 0 {
			continue
		}
		v, err := decode[T](b)
		if err == nil && check != nil {
			err = check(v)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		vals = append(vals, v)
	}
	if err := sc.Err(); err != nil {
		// The error is in the line after the last one returned: a read
		// error before any of it was read, or a line too long to buffer.
		line++
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", name, line, maxLine)
		}
		return nil, fmt.Errorf("%s:%d: %w", name, line, err)
	}
	return vals, nil
}

// decode decodes b, a line without surrounding white space, which must be
// one JSON object and nothing more.
func decode[T any](b []byte) (T, error) {
	var v T
	if b[0] != '{' {
		return v, errors.New("not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return v, err
	}
	if dec.InputOffset() != int64(len(b)) {
		return v, fmt.Errorf("data after the object at byte %d", dec.InputOffset()+1)
	}
	return v, nil
}
