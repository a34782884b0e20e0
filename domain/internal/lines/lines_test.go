package lines

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReader reads inputs whole and checks each line, its number, and
// the error and line number where reading stops.
func TestReader(t *testing.T) {
	for _, c := range []struct {
		name, in string
		size     int
		want     []string
		err      error
		errLine  int
	}{
		{"empty", "", 10, nil, nil, 0},
		{"endings", "a\r\nb\n\nc", 10, []string{"a", "b", "", "c"}, nil, 4},
		{"bom", "\uFEFFa \n\uFEFFb\n", 10, []string{"a ", "\uFEFFb"}, nil, 2},
		{"only a bom", "\uFEFF", 10, []string{""}, nil, 1},
		{"fits", "12345678\n", 9, []string{"12345678"}, nil, 1},
		{"too long", "ab\n123456789\nc\n", 9, []string{"ab"}, ErrTooLong, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(c.in), c.size)
			var got []string
			for r.Next() {
				if r.Line() != len(got)+1 {
					t.Errorf("line %d numbered %d", len(got)+1, r.Line())
				}
				got = append(got, string(r.Bytes()))
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
				t.Errorf("lines %q; want %q", got, c.want)
			}
			if !errors.Is(r.Err(), c.err) || r.Line() != c.errLine {
				t.Errorf("stopped with %v at line %d; want %v at %d", r.Err(), r.Line(), c.err, c.errLine)
			}
		})
	}
	r := NewReader(iotest.TimeoutReader(strings.NewReader("a\n")), 10)
	for r.Next() {
	}
	if !errors.Is(r.Err(), iotest.ErrTimeout) || r.Line() != 2 {
		t.Errorf("a failed read after line 1: %v at line %d; want %v at 2", r.Err(), r.Line(), iotest.ErrTimeout)
	}
}
