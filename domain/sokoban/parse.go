package sokoban

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/phs-go/phs/domain/internal/lines"
)

// ReadFile reads the levels of the file at path; see Parse.
func ReadFile(path string) ([]*Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sokoban: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads levels in the Boxoban format. A level is a line "; N"
// followed by its rows; levels are separated by blank lines (lines of
// spaces and tabs count as blank), and a level may go without its "; N"
// line. A row is a string of
//
//	#  wall
//	   floor (a space; '-' and '_' are accepted too)
//	.  goal
//	$  box
//	*  box on a goal
//	@  player
//	+  player on a goal
//
// Every row of a level has the same length, every level of the input has
// the size (rows and columns) of the first one, as in Boxoban, whose levels
// are all 10x10, and a level has at most MaxCells cells, one player, at
// least one box, and as many goals as boxes. Spaces at the end of a row are
// floor cells, not trimmed. A UTF-8 byte-order mark at the start of the
// input is skipped.
//
// name names the input in errors, "sokoban: name:line: reason", and its
// base name starts the IDs of the levels: "<base>#N", where N is the text
// after ';' (trimmed), or the level's position in the input, from 0, for a
// level without a "; N" line. An input without levels is an error.
func Parse(r io.Reader, name string) ([]*Problem, error) { return ParseFirst(r, name, 0) }

// ParseFirst is Parse that returns after the first n levels (all for n ≤
// 0), reading no line after the one that ends the n-th (a blank line or
// the next "; N" line): what follows is not checked.
func ParseFirst(r io.Reader, name string, n int) ([]*Problem, error) {
	p := parser{name: name, base: filepath.Base(name)}
	lr := lines.NewReader(r, bufio.MaxScanTokenSize)
	for lr.Next() {
		p.line = lr.Line()
		if err := p.readLine(lr.Bytes()); err != nil {
			return nil, err
		}
		if n > 0 && len(p.levels) == n {
			return p.levels, nil
		}
	}
	if err := lr.Err(); err != nil {
		return nil, fmt.Errorf("sokoban: %s:%d: %w", name, lr.Line(), err)
	}
	if err := p.flush(); err != nil {
		return nil, err
	}
	if len(p.levels) == 0 {
		return nil, fmt.Errorf("sokoban: %s: no levels", name)
	}
	return p.levels, nil
}

// A parser reads levels a line at a time.
type parser struct {
	name, base string
	line       int // number of the line being read, from 1
	levels     []*Problem
	firstLine  int // the line of the first level, of its "; N" line or first row
	// The level being read: its label and the line of its "; N" line (0
	// if none); the level itself and the line of its first row (nil and 0
	// before its first row), and what it holds so far.
	label                 string
	labelLine             int
	lv                    *Problem
	rowsLine              int
	players, boxes, goals int
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return fmt.Errorf("sokoban: %s:%d: %w", p.name, line, fmt.Errorf(format, args...))
}

// readLine reads the next line of the input.
func (p *parser) readLine(text []byte) error {
	switch {
	case len(text) > 0 && text[0] == ';':
		if err := p.flush(); err != nil {
			return err
		}
		p.label = string(bytes.TrimSpace(text[1:]))
		p.labelLine = p.line
		if p.label == "" {
			return p.errorf(p.line, "%q without a level number", text)
		}
		return nil
	case len(bytes.TrimLeft(text, " \t")) == 0:
		return p.flush()
	}
	if p.lv == nil {
		p.lv = &Problem{cols: len(text)}
		p.rowsLine = p.line
		p.players, p.boxes, p.goals = 0, 0, 0
	}
	lv := p.lv
	if len(text) != lv.cols {
		return p.errorf(p.line, "row of %d characters; the level's first row has %d", len(text), lv.cols)
	}
	if (lv.rows+1)*lv.cols > MaxCells {
		return p.errorf(p.rowsLine, "level of more than %d cells", MaxCells)
	}
	for c, ch := range text {
		i := lv.rows*lv.cols + c
		switch ch {
		case '#':
			setBit(&lv.walls, i)
		case ' ', '-', '_':
		case '.':
			setBit(&lv.goals, i)
			p.goals++
		case '$', '*':
			setBit(&lv.start.boxes, i)
			p.boxes++
			if ch == '*' {
				setBit(&lv.goals, i)
				p.goals++
			}
		case '@', '+':
			p.players++
			if p.players > 1 {
				return p.errorf(p.line, "a second player in column %d", c+1)
			}
			lv.start.player = uint8(i)
			if ch == '+' {
				setBit(&lv.goals, i)
				p.goals++
			}
		default:
			return p.errorf(p.line, "unknown character %q in column %d", ch, c+1)
		}
	}
	lv.rows++
	return nil
}

// flush ends the level being read, if any.
func (p *parser) flush() error {
	lv := p.lv
	if lv == nil {
		if p.labelLine != 0 {
			return p.errorf(p.labelLine, "level %q has no rows", p.label)
		}
		return nil
	}
	line := p.labelLine
	if line == 0 {
		line = p.rowsLine
	}
	label := p.label
	if p.labelLine == 0 {
		label = strconv.Itoa(len(p.levels))
	}
	if len(p.levels) > 0 {
		if first := p.levels[0]; lv.rows != first.rows || lv.cols != first.cols {
			return p.errorf(line, "level %q is %dx%d (rows x columns), but the first level, line %d, is %dx%d",
				label, lv.rows, lv.cols, p.firstLine, first.rows, first.cols)
		}
	} else {
		p.firstLine = line
	}
	switch {
	case p.players == 0:
		return p.errorf(p.rowsLine, "level without a player")
	case p.boxes == 0:
		return p.errorf(p.rowsLine, "level without boxes")
	case p.boxes != p.goals:
		return p.errorf(p.rowsLine, "level with %d boxes and %d goals", p.boxes, p.goals)
	}
	lv.ID = p.base + "#" + label
	lv.label = lv.ID[len(p.base)+1:]
	lv.init()
	p.levels = append(p.levels, lv)
	p.lv, p.label, p.labelLine = nil, "", 0
	return nil
}
