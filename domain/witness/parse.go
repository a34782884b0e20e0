package witness

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

// ReadFile reads the puzzles of the file path (see Parse).
func ReadFile(path string) ([]*Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("witness: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// Fields of a puzzle, in the order Write writes them.
const (
	fieldSize = iota
	fieldInit
	fieldGoal
	fieldColors
	numFields
)

var fieldKeys = [numFields]string{"Size", "Init", "Goal", "Colors"}

// A block is a puzzle being read.
type block struct {
	line    [numFields]int // the line of each field, 0 while it is missing
	size    [2]int
	init    [2]int
	goal    [2]int
	bullets [MaxVertices][3]int // r, c, k
	n       int                 // bullets used
}

// Parse reads puzzles in the format of the paper's data: blocks of the four
// lines "Size: R C" (cells), "Init: l c" (entrance vertex), "Goal: l c"
// (exit vertex) and "Colors: |r c k|r c k..." ("|r c k" for each bullet,
// of colour k in cell (r, c); "Colors:" alone for none), in any order,
// blocks separated by blank lines. Every entry of Colors has its three
// integers: an entry cut short, as "|0 1" or an empty entry after a final
// '|', is an error. See the package documentation for the coordinates and
// CheckSize for the sizes accepted. A UTF-8 byte-order mark at the start
// of the input is skipped.
//
// name is used in errors ("witness: name:line: reason") and, by its base
// name, in the IDs: "<base>#<index>", the index counting puzzles from 0. A
// reader without puzzles is an error.
func Parse(r io.Reader, name string) ([]*Problem, error) { return ParseFirst(r, name, 0) }

// ParseFirst is Parse that returns after the first n puzzles (all for n ≤
// 0), reading no line after the blank line that ends the n-th: what
// follows is not checked.
func ParseFirst(r io.Reader, name string, n int) ([]*Problem, error) {
	base := filepath.Base(name)
	var ps []*Problem
	var b block
	fail := func(line int, err error) ([]*Problem, error) {
		return nil, fmt.Errorf("witness: %s:%d: %w", name, line, err)
	}
	lr := lines.NewReader(r, 1<<20)
	for lr.Next() {
		text := bytes.TrimSpace(lr.Bytes())
		if len(text) == 0 {
			if b.started() {
				p, l, err := b.problem()
				if err != nil {
					return fail(l, err)
				}
				p.ID = base + "#" + strconv.Itoa(len(ps))
				ps = append(ps, p)
				b = block{}
				if len(ps) == n {
					return ps, nil
				}
			}
			continue
		}
		if err := b.field(text, lr.Line()); err != nil {
			return fail(lr.Line(), err)
		}
	}
	if err := lr.Err(); err != nil {
		return fail(lr.Line(), err)
	}
	if b.started() {
		p, l, err := b.problem()
		if err != nil {
			return fail(l, err)
		}
		p.ID = base + "#" + strconv.Itoa(len(ps))
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("witness: %s: no puzzles", name)
	}
	return ps, nil
}

func (b *block) started() bool { return b.line != [numFields]int{} }

// start returns the first line of b.
func (b *block) start() int {
	first := 0
	for _, l := range b.line {
		if l != 0 && (first == 0 || l < first) {
			first = l
		}
	}
	return first
}

// field reads the line text, the line-th of the file, into b.
func (b *block) field(text []byte, line int) error {
	key, val, ok := bytes.Cut(text, []byte(":"))
	if !ok {
		return fmt.Errorf("want \"Key: value\", got %q", clip(text))
	}
	key = bytes.TrimSpace(key)
	f := 0
	for f < numFields && string(key) != fieldKeys[f] {
		f++
	}
	if f == numFields {
		return fmt.Errorf("unknown key %q (want Size, Init, Goal or Colors)", clip(key))
	}
	if b.line[f] != 0 {
		return fmt.Errorf("second %s line in the puzzle starting at line %d (missing blank line?)", fieldKeys[f], b.start())
	}
	b.line[f] = line
	var err error
	switch f {
	case fieldSize:
		err = ints(val, b.size[:])
	case fieldInit:
		err = ints(val, b.init[:])
	case fieldGoal:
		err = ints(val, b.goal[:])
	case fieldColors:
		err = b.colors(val)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", fieldKeys[f], err)
	}
	return nil
}

// colors reads the list of bullets val: empty, or "|r c k" for each bullet.
func (b *block) colors(val []byte) error {
	val = bytes.TrimSpace(val)
	if len(val) == 0 {
		return nil
	}
	if val[0] != '|' {
		return errors.New("want |r c k|r c k...")
	}
	rest := val[1:]
	for i := 1; ; i++ {
		item, after, more := bytes.Cut(rest, []byte("|"))
		if !more && len(bytes.TrimSpace(item)) == 0 {
			return fmt.Errorf("entry %d is empty: the line ends with '|' (cut short?)", i)
		}
		if b.n == len(b.bullets) {
			return fmt.Errorf("more than %d bullets", len(b.bullets))
		}
		if err := ints(item, b.bullets[b.n][:]); err != nil {
			return fmt.Errorf("entry %d %q: %w", i, clip(item), err)
		}
		b.n++
		if !more {
			return nil
		}
		rest = after
	}
}

// problem returns the puzzle of b, or the line of an error and the error.
func (b *block) problem() (*Problem, int, error) {
	for f, l := range b.line {
		if l == 0 {
			return nil, b.start(), fmt.Errorf("the puzzle starting here has no %s line", fieldKeys[f])
		}
	}
	p := &Problem{}
	if err := p.init3(b.size[0], b.size[1], b.init, b.goal); err != nil {
		f := fieldSize
		switch {
		case CheckSize(b.size[0], b.size[1]) != nil:
		case !p.onGrid(b.init):
			f = fieldInit
		default:
			f = fieldGoal
		}
		return nil, b.line[f], fmt.Errorf("%s: %w", fieldKeys[f], err)
	}
	for _, x := range b.bullets[:b.n] {
		err := p.setColor(x[0], x[1], x[2])
		if err == nil && x[2] == 0 {
			err = fmt.Errorf("cell %d %d: colour 0, want 1 to %d", x[0], x[1], MaxColors)
		}
		if err != nil {
			return nil, b.line[fieldColors], fmt.Errorf("Colors: %w", err)
		}
	}
	return p, 0, nil
}

// ints parses exactly len(dst) integers separated by spaces or tabs.
func ints(s []byte, dst []int) error {
	n := 0
	for {
		for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
			s = s[1:]
		}
		if len(s) == 0 {
			break
		}
		end := bytes.IndexAny(s, " \t")
		if end < 0 {
			end = len(s)
		}
		if n == len(dst) {
			return fmt.Errorf("want %d integers, got more", len(dst))
		}
		x, ok := atoi(s[:end])
		if !ok {
			return fmt.Errorf("bad integer %q", clip(s[:end]))
		}
		dst[n] = x
		n++
		s = s[end:]
	}
	if n < len(dst) {
		return fmt.Errorf("want %d integers, got %d", len(dst), n)
	}
	return nil
}

// atoi parses a decimal integer of at most 9 digits with an optional sign.
func atoi(s []byte) (int, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 9 {
		return 0, false
	}
	x := 0
	for _, ch := range s {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		x = 10*x + int(ch-'0')
	}
	if neg {
		x = -x
	}
	return x, true
}

// clip shortens s for an error message.
func clip(s []byte) []byte {
	if len(s) > 40 {
		return append(s[:37:37], "..."...)
	}
	return s
}

// Write writes puzzles in the format Parse reads, separated by blank lines.
func Write(w io.Writer, ps []*Problem) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for i, p := range ps {
		buf = buf[:0]
		if i > 0 {
			buf = append(buf, '\n')
		}
		buf = p.appendText(buf)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("witness: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("witness: %w", err)
	}
	return nil
}

// String returns the puzzle in the format Parse reads, without a final
// newline.
func (p *Problem) String() string { return string(p.appendText(nil)) }

func (p *Problem) appendText(b []byte) []byte {
	two := func(b []byte, key string, x, y int) []byte {
		b = append(b, key...)
		b = strconv.AppendInt(b, int64(x), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(y), 10)
		return append(b, '\n')
	}
	b = two(b, "Size: ", p.Rows, p.Cols)
	l, c := p.Init()
	b = two(b, "Init: ", l, c)
	l, c = p.Goal()
	b = two(b, "Goal: ", l, c)
	b = append(b, "Colors:"...)
	if p.bullets != 0 {
		b = append(b, ' ')
	}
	for r := range p.Rows {
		for c := range p.Cols {
			if k := p.Color(r, c); k != 0 {
				b = append(b, '|')
				b = strconv.AppendInt(b, int64(r), 10)
				b = append(b, ' ')
				b = strconv.AppendInt(b, int64(c), 10)
				b = append(b, ' ')
				b = strconv.AppendInt(b, int64(k), 10)
			}
		}
	}
	return b
}
