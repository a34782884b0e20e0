package sokoban

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

// ReadFile reads the levels of a file.
func ReadFile(path string) ([]*Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sokoban: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads levels in the Boxoban format: each level is a line "; N"
// followed by its rows (# wall, space floor, . goal, $ box, @ player, and
// also * box on a goal, + player on a goal); levels are separated by blank
// lines, and the "; N" lines may be left out. Rows shorter than the longest
// are padded with floor; the border of the grid acts as a wall. name is
// used in errors and IDs.
func Parse(r io.Reader, name string) ([]*Problem, error) {
	base := filepath.Base(name)
	var ps []*Problem
	var rows []string
	header, start := "", 0
	// flush ends the current level; an error names the line it is about.
	flush := func(at int) (int, error) {
		if len(rows) == 0 {
			if header != "" {
				return at, fmt.Errorf("level %q has no rows", header)
			}
			return 0, nil
		}
		idx := header
		if idx == "" {
			idx = strconv.Itoa(len(ps))
		}
		p, errLine, err := parseLevel(rows, start)
		if err != nil {
			return errLine, err
		}
		p.ID = base + "#" + idx
		ps = append(ps, p)
		rows, header = nil, ""
		return 0, nil
	}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		switch {
		case strings.HasPrefix(text, ";"):
			if at, err := flush(line); err != nil {
				return nil, fmt.Errorf("sokoban: %s:%d: %w", name, at, err)
			}
			header = strings.TrimSpace(text[1:])
			if header == "" {
				return nil, fmt.Errorf("sokoban: %s:%d: \";\" without a level number", name, line)
			}
		case strings.TrimSpace(text) == "":
			if at, err := flush(line); err != nil {
				return nil, fmt.Errorf("sokoban: %s:%d: %w", name, at, err)
			}
		default:
			if len(rows) == 0 {
				start = line
			}
			rows = append(rows, text)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("sokoban: %s: %w", name, err)
	}
	if at, err := flush(line + 1); err != nil {
		return nil, fmt.Errorf("sokoban: %s:%d: %w", name, at, err)
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("sokoban: %s: no levels", name)
	}
	return ps, nil
}

// parseLevel reads the rows of a level whose first row is line first. An
// error comes with the line it is about.
func parseLevel(rows []string, first int) (*Problem, int, error) {
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	p := &Problem{Rows: len(rows), Cols: cols}
	if p.Rows*p.Cols > MaxCells {
		return nil, first, fmt.Errorf("level of %dx%d cells: more than %d", p.Rows, p.Cols, MaxCells)
	}
	players, boxes, goals := 0, 0, 0
	for r, row := range rows {
		for c, ch := range []byte(row) {
			i := r*cols + c
			switch ch {
			case '#':
				setBit(&p.walls, i)
			case ' ', '-', '_':
			case '.':
				setBit(&p.goals, i)
				goals++
			case '$':
				setBit(&p.start.boxes, i)
				boxes++
			case '*':
				setBit(&p.start.boxes, i)
				setBit(&p.goals, i)
				boxes++
				goals++
			case '@', '+':
				if ch == '+' {
					setBit(&p.goals, i)
					goals++
				}
				players++
				if players > 1 {
					return nil, first + r, fmt.Errorf("a second player in column %d", c+1)
				}
				p.start.player = uint8(i)
			default:
				return nil, first + r, fmt.Errorf("unknown character %q in column %d", ch, c+1)
			}
		}
	}
	switch {
	case players == 0:
		return nil, first, errors.New("the level has no player")
	case boxes == 0:
		return nil, first, errors.New("the level has no boxes")
	case boxes != goals:
		return nil, first, fmt.Errorf("the level has %d boxes and %d goals", boxes, goals)
	}
	p.init()
	return p, 0, nil
}
