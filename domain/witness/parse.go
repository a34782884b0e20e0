package witness

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ReadFile reads the puzzles of a file.
func ReadFile(path string) ([]*Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("witness: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads puzzles in the file format: blocks of the four lines
// "Size: R C", "Init: l c", "Goal: l c" and "Colors: |r c k|...", separated
// by blank lines. name is used in errors and, by its base name, in the
// problems' IDs.
func Parse(r io.Reader, name string) ([]*Problem, error) {
	base := filepath.Base(name)
	var ps []*Problem
	var p *Problem
	var field int // the next of the four fields of p
	start := 0    // line of p's first field
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	line := 0
	fail := func(err error) ([]*Problem, error) {
		return nil, fmt.Errorf("witness: %s:%d: %w", name, line, err)
	}
	finish := func() error {
		if p == nil {
			return nil
		}
		if field < 4 {
			return fmt.Errorf("puzzle starting at line %d has no %s line", start, fieldNames[field])
		}
		if err := p.check(); err != nil {
			return fmt.Errorf("puzzle starting at line %d: %w", start, err)
		}
		p.ID = fmt.Sprintf("%s#%d", base, len(ps))
		ps = append(ps, p)
		p = nil
		return nil
	}
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			if err := finish(); err != nil {
				line--
				return fail(err)
			}
			continue
		}
		key, val, ok := strings.Cut(text, ":")
		if !ok {
			return fail(fmt.Errorf("want \"Key: value\", got %q", text))
		}
		if p == nil {
			p, field, start = &Problem{}, 0, line
		}
		if field == 4 {
			return fail(fmt.Errorf("puzzle starting at line %d has more than four lines (missing blank line?)", start))
		}
		if key != fieldNames[field] {
			return fail(fmt.Errorf("want %s, got %q", fieldNames[field], key))
		}
		var err error
		switch field {
		case 0:
			err = ints(val, &p.Rows, &p.Cols)
			if err == nil && (p.Rows < 1 || p.Cols < 1 || (p.Rows+1)*(p.Cols+1) > MaxVertices) {
				err = fmt.Errorf("size %dx%d: want at least 1x1 and at most %d vertices", p.Rows, p.Cols, MaxVertices)
			}
			if err == nil {
				p.Colors = make([]uint8, p.Rows*p.Cols)
			}
		case 1:
			err = ints(val, &p.Init[0], &p.Init[1])
		case 2:
			err = ints(val, &p.Goal[0], &p.Goal[1])
		case 3:
			err = p.parseColors(val)
		}
		if err != nil {
			return fail(fmt.Errorf("%s: %w", key, err))
		}
		field++
	}
	if err := sc.Err(); err != nil {
		return fail(err)
	}
	if err := finish(); err != nil {
		return fail(err)
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("witness: %s: no puzzles", name)
	}
	return ps, nil
}

var fieldNames = [4]string{"Size", "Init", "Goal", "Colors"}

// ints parses exactly len(dst) integers separated by spaces.
func ints(s string, dst ...*int) error {
	f := strings.Fields(s)
	if len(f) != len(dst) {
		return fmt.Errorf("want %d integers, got %q", len(dst), strings.TrimSpace(s))
	}
	for i, x := range f {
		n, err := strconv.Atoi(x)
		if err != nil {
			return fmt.Errorf("bad integer %q", x)
		}
		*dst[i] = n
	}
	return nil
}

func (p *Problem) parseColors(s string) error {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if !strings.HasPrefix(s, "|") {
		return errors.New("want |r c k|...")
	}
	for _, item := range strings.Split(s[1:], "|") {
		if strings.TrimSpace(item) == "" {
			continue // a trailing '|'
		}
		var r, c, k int
		if err := ints(item, &r, &c, &k); err != nil {
			return err
		}
		switch {
		case r < 0 || r >= p.Rows || c < 0 || c >= p.Cols:
			return fmt.Errorf("cell %d %d is not in a %dx%d grid", r, c, p.Rows, p.Cols)
		case k < 1 || k > MaxColors:
			return fmt.Errorf("cell %d %d: colour %d, want 1 to %d", r, c, k, MaxColors)
		case p.Colors[r*p.Cols+c] != 0:
			return fmt.Errorf("cell %d %d has two colours", r, c)
		}
		p.Colors[r*p.Cols+c] = uint8(k)
	}
	return nil
}

// Write writes puzzles in the file format, separated by blank lines.
func Write(w io.Writer, ps []*Problem) error {
	bw := bufio.NewWriter(w)
	for i, p := range ps {
		if i > 0 {
			bw.WriteString("\n\n")
		}
		bw.WriteString(p.String())
	}
	bw.WriteString("\n")
	return bw.Flush()
}
