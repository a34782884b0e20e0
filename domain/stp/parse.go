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

	"github.com/phs-go/phs/domain/internal/lines"
)

// ReadFile reads the puzzles of the file path, with state type S (see
// Parse).
func ReadFile[S Arrangement[S]](path string) ([]*Problem[S], error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("stp: %w", err)
	}
	defer f.Close()
	return Parse[S](f, path)
}

// Parse reads puzzles, with state type S, in the format of the paper's
// data (h-levin): one puzzle per line, the tiles of the cells row-major,
// separated by spaces or tabs, 0 for the blank. The grid is square, its
// side given by the count of numbers (16: 4x4, 25: 5x5), unless the line
// starts with "RxC:" (as in "2x3: 1 0 2 3 4 5"), which gives rows and
// columns. Blank lines are skipped, and so is a UTF-8 byte-order mark at
// the start of the input. Every puzzle must be solvable, and its size one
// that CheckSize[S] accepts: with State, the error about a board of more
// than MaxCells cells that LargeState holds wraps ErrLarge.
//
// name is used in errors ("stp: name:line: reason") and, by its base name,
// in the IDs: "<base>#<index>", the index counting puzzles from 0. A reader
// without puzzles is an error. The cost is linear in the input, a few
// allocations per puzzle.
func Parse[S Arrangement[S]](r io.Reader, name string) ([]*Problem[S], error) {
	return parse[S](r, name, 0)
}

// ParseFirst is Parse that returns after the first n puzzles (all for n ≤
// 0), reading no line after them: what follows them is not checked.
func ParseFirst[S Arrangement[S]](r io.Reader, name string, n int) ([]*Problem[S], error) {
	return parse[S](r, name, n)
}

// parse reads the first n puzzles of r (all for n ≤ 0).
func parse[S Arrangement[S]](r io.Reader, name string, n int) ([]*Problem[S], error) {
	var zero S
	capacity := zero.capacity()
	base := filepath.Base(name)
	var ps []*Problem[S]
	var buf [MaxLargeCells]int
	lr := lines.NewReader(r, 1<<20)
	for lr.Next() {
		text := bytes.TrimSpace(lr.Bytes())
		if len(text) == 0 {
			continue
		}
		rows, cols, err := parseLine(text, capacity, &buf)
		var p *Problem[S]
		if err == nil {
			p, err = newProblem[S](rows, cols, buf[:rows*cols], base+"#"+strconv.Itoa(len(ps)))
		}
		if err != nil {
			return nil, fmt.Errorf("stp: %s:%d: %w", name, lr.Line(), err)
		}
		ps = append(ps, p)
		if len(ps) == n {
			return ps, nil
		}
	}
	if err := lr.Err(); err != nil {
		return nil, fmt.Errorf("stp: %s:%d: %w", name, lr.Line(), err)
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("stp: %s: no puzzles", name)
	}
	return ps, nil
}

var errSizePrefix = errors.New(`want "RxC:" with R and C numbers`)

// parseLine reads the size of a puzzle, which checkSize accepts for a
// state type of capacity cells, and its tiles into buf.
func parseLine(text []byte, capacity int, buf *[MaxLargeCells]int) (rows, cols int, err error) {
	if size, rest, ok := bytes.Cut(text, []byte(":")); ok {
		r, c, ok := bytes.Cut(size, []byte("x"))
		var err1, err2 error
		rows, err1 = strconv.Atoi(string(bytes.TrimSpace(r)))
		cols, err2 = strconv.Atoi(string(bytes.TrimSpace(c)))
		if !ok || err1 != nil || err2 != nil {
			return 0, 0, fmt.Errorf("size prefix %q: %w", size, errSizePrefix)
		}
		if err := checkSize(rows, cols, capacity); err != nil {
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
		if err := checkSize(side, side, capacity); err != nil {
			return 0, 0, fmt.Errorf("%d tiles: %w", count, err)
		}
		rows, cols = side, side
	}
	if count != rows*cols {
		return 0, 0, fmt.Errorf("%d tiles for %dx%d cells, want %d", count, rows, cols, rows*cols)
	}
	return rows, cols, nil
}

// Write writes puzzles in the format Parse reads, one line each, as String
// does. The error is the first of w's, if any.
func Write[S Arrangement[S]](w io.Writer, ps []*Problem[S]) error {
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
