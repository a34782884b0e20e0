package sokoban

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
// spaces count as blank), and a level may go without its "; N" line. A row
// is a string of
//
//	#  wall
//	   floor (a space; '-' and '_' are accepted too)
//	.  goal
//	$  box
//	*  box on a goal
//	@  player
//	+  player on a goal
//
// Every row of a level has the same length, and a level has at most
// MaxCells cells, one player, at least one box, and as many goals as boxes.
//
// name names the input in errors, which give its line, and its base name
// starts the IDs of the levels: "<base>#N", where N is the text after ';'
// (trimmed), or the level's position in the input, from 0, for a level
// without a "; N" line. Parse returns an error for an input without levels.
func Parse(r io.Reader, name string) ([]*Problem, error) {
	p := parser{name: name, base: filepath.Base(name)}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		p.line++
		if err := p.readLine(strings.TrimSuffix(sc.Text(), "\r")); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("sokoban: %s:%d: %w", name, p.line+1, err)
	}
	p.line++
	if err := p.flush(); err != nil {
		return nil, err
	}
	if len(p.levels) == 0 {
		return nil, fmt.Errorf("sokoban: %s: no levels", name)
	}
	return p.levels, nil
}

// A parser holds the state of Parse between lines.
type parser struct {
	name, base string
	line       int // number of the line being read, from 1
	levels     []*Problem
	// The level being read: its label, the line of its "; N" line (0 if
	// none), its rows and the line of its first row.
	label     string
	labelLine int
	rows      []string
	rowsLine  int
	cells     int // characters in rows
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return fmt.Errorf("sokoban: %s:%d: %w", p.name, line, fmt.Errorf(format, args...))
}

// readLine reads the next line of the input.
func (p *parser) readLine(text string) error {
	switch {
	case strings.HasPrefix(text, ";"):
		if err := p.flush(); err != nil {
			return err
		}
		p.label = strings.TrimSpace(text[1:])
		p.labelLine = p.line
		if p.label == "" {
			return p.errorf(p.line, "%q without a level number", text)
		}
	case strings.TrimLeft(text, " \t") == "":
		return p.flush()
	default:
		if len(p.rows) == 0 {
			p.rowsLine = p.line
		}
		p.rows = append(p.rows, text)
		if p.cells += len(text); p.cells > MaxCells {
			return p.errorf(p.rowsLine, "level of more than %d cells", MaxCells)
		}
	}
	return nil
}

// flush ends the level being read, if any.
func (p *parser) flush() error {
	if len(p.rows) == 0 {
		if p.labelLine != 0 {
			return p.errorf(p.labelLine, "level %q has no rows", p.label)
		}
		return nil
	}
	label := p.label
	if p.labelLine == 0 {
		label = strconv.Itoa(len(p.levels))
	}
	lv, err := p.level()
	if err != nil {
		return err
	}
	lv.label = label
	lv.ID = p.base + "#" + label
	p.levels = append(p.levels, lv)
	p.rows, p.cells, p.label, p.labelLine = p.rows[:0], 0, "", 0
	return nil
}

// level makes a Problem of the rows read.
func (p *parser) level() (*Problem, error) {
	cols := len(p.rows[0])
	lv := &Problem{rows: len(p.rows), cols: cols}
	players, boxes, goals := 0, 0, 0
	for r, row := range p.rows {
		line := p.rowsLine + r
		if len(row) != cols {
			return nil, p.errorf(line, "row of %d characters; the level's first row has %d", len(row), cols)
		}
		for c, ch := range []byte(row) {
			i := r*cols + c
			switch ch {
			case '#':
				setBit(&lv.walls, i)
			case ' ', '-', '_':
			case '.':
				setBit(&lv.goals, i)
				goals++
			case '$', '*':
				setBit(&lv.start.boxes, i)
				boxes++
				if ch == '*' {
					setBit(&lv.goals, i)
					goals++
				}
			case '@', '+':
				players++
				if players > 1 {
					return nil, p.errorf(line, "a second player in column %d", c+1)
				}
				lv.start.player = uint8(i)
				if ch == '+' {
					setBit(&lv.goals, i)
					goals++
				}
			default:
				return nil, p.errorf(line, "unknown character %q in column %d", ch, c+1)
			}
		}
	}
	switch {
	case players == 0:
		return nil, p.errorf(p.rowsLine, "level without a player")
	case boxes == 0:
		return nil, p.errorf(p.rowsLine, "level without boxes")
	case boxes != goals:
		return nil, p.errorf(p.rowsLine, "level with %d boxes and %d goals", boxes, goals)
	}
	lv.init()
	return lv, nil
}
