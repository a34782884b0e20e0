package stp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// ReadFile reads the puzzles of the file path (see Parse).
func ReadFile(path string) ([]*Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("stp: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads puzzles in the format of the paper's data (h-levin): one
// puzzle per line, the tiles of the cells row-major, separated by spaces or
// tabs, 0 for the blank. The grid is square, its side given by the count of
// numbers (16: 4x4, 25: 5x5), unless the line starts with "RxC:" (as in
// "2x3: 1 0 2 3 4 5"), which gives rows and columns. Blank lines are
// skipped, and so is a UTF-8 byte-order mark at the start of the input.
// Every puzzle must be solvable, and its board no larger than MaxCells
// cells: the error about a larger board that a LargeProblem holds wraps
// ErrLarge (ParseLarge reads it).
//
// name is used in errors ("stp: name:line: reason") and, by its base name,
// in the IDs: "<base>#<index>", the index counting puzzles from 0. A reader
// without puzzles is an error.
func Parse(r io.Reader, name string) ([]*Problem, error) {
	return parse[*Problem](r, name, CheckSize, 0)
}

// ParseFirst is Parse that returns after the first n puzzles (all for n ≤
// 0), reading no line after them: what follows them is not checked.
func ParseFirst(r io.Reader, name string, n int) ([]*Problem, error) {
	return parse[*Problem](r, name, CheckSize, n)
}

// ReadFileLarge reads the puzzles of the file path (see ParseLarge).
func ReadFileLarge(path string) ([]*LargeProblem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("stp: %w", err)
	}
	defer f.Close()
	return ParseLarge(f, path)
}

// ParseLarge reads puzzles as Parse does, as LargeProblems: of any size
// that CheckLargeSize accepts, up to MaxLargeCells cells.
func ParseLarge(r io.Reader, name string) ([]*LargeProblem, error) {
	return parse[*LargeProblem](r, name, CheckLargeSize, 0)
}

// ParseLargeFirst is ParseLarge that returns after the first n puzzles
// (all for n ≤ 0), as ParseFirst does.
func ParseLargeFirst(r io.Reader, name string, n int) ([]*LargeProblem, error) {
	return parse[*LargeProblem](r, name, CheckLargeSize, n)
}

// parse reads the first n puzzles of r (all for n ≤ 0), whose sizes check
// accepts.
func parse[P *Problem | *LargeProblem](r io.Reader, name string, check func(rows, cols int) error, n int) ([]P, error) {
	base := filepath.Base(name)
	var ps []P
	var buf [MaxLargeCells]int
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if line == 1 {
			text = bytes.TrimPrefix(text, bom)
		}
		text = bytes.TrimSpace(text)
		if len(text) == 0 {
			continue
		}
		rows, cols, err := parseLine(text, check, &buf)
		var p P
		if err == nil {
			// Static calls, which keep buf on the stack.
			id := base + "#" + strconv.Itoa(len(ps))
			switch any(p).(type) {
			case *Problem:
				var q *Problem
				q, err = newProblem(rows, cols, buf[:rows*cols], id)
				p = any(q).(P)
			case *LargeProblem:
				var q *LargeProblem
				q, err = newLargeProblem(rows, cols, buf[:rows*cols], id)
				p = any(q).(P)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("stp: %s:%d: %w", name, line, err)
		}
		ps = append(ps, p)
		if len(ps) == n {
			return ps, nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("stp: %s:%d: %w", name, line+1, err)
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("stp: %s: no puzzles", name)
	}
	return ps, nil
}

// bom is the UTF-8 encoding of the byte-order mark U+FEFF.
var bom = []byte("\uFEFF")

var errSizePrefix = errors.New(`want "RxC:" with R and C numbers`)

// parseLine reads the size of a puzzle, which check accepts, and its tiles
// into buf.
func parseLine(text []byte, check func(rows, cols int) error, buf *[MaxLargeCells]int) (rows, cols int, err error) {
	if size, rest, ok := bytes.Cut(text, []byte(":")); ok {
		r, c, ok := bytes.Cut(size, []byte("x"))
		var err1, err2 error
		rows, err1 = strconv.Atoi(string(bytes.TrimSpace(r)))
		cols, err2 = strconv.Atoi(string(bytes.TrimSpace(c)))
		if !ok || err1 != nil || err2 != nil {
			return 0, 0, fmt.Errorf("size prefix %q: %w", size, errSizePrefix)
		}
		if err := check(rows, cols); err != nil {
			return 0, 0, err
		}
		text = rest
	}
	count := 0
	for f := range bytes.FieldsSeq(text) {
		t, err := strconv.Atoi(string(f))
		if err != nil {
			return 0, 0, fmt.Errorf("tile %q: not a number", f)
		}
		if count < len(buf) {
			buf[count] = t
		}
		count++
	}
	if rows == 0 {
		side := 1
		for side*side < count {
			side++
		}
		if side*side != count {
			return 0, 0, fmt.Errorf("%d tiles: not a square grid (prefix the line with \"RxC:\" for others)", count)
		}
		if err := check(side, side); err != nil {
			return 0, 0, fmt.Errorf("%d tiles: %w", count, err)
		}
		rows, cols = side, side
	}
	if count != rows*cols {
		return 0, 0, fmt.Errorf("%d tiles for %dx%d cells, want %d", count, rows, cols, rows*cols)
	}
	return rows, cols, nil
}

// Write writes puzzles, Problems or LargeProblems, in the format Parse and
// ParseLarge read, one line each.
func Write[P interface {
	*Problem | *LargeProblem
	appendText([]byte) []byte
}](w io.Writer, ps []P) error {
	bw := bufio.NewWriter(w)
	var b []byte
	for _, p := range ps {
		b = append(p.appendText(b[:0]), '\n')
		bw.Write(b) // a write error is kept for Flush
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("stp: %w", err)
	}
	return nil
}
