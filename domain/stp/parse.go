package stp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ReadFile reads the puzzles of a file.
func ReadFile(path string) ([]*Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("stp: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads one puzzle per line: the tiles of the cells, row-major,
// separated by spaces, 0 for the blank. The grid is square, its size given
// by the count of numbers, unless the line starts with "RxC:". Blank lines
// are skipped. name is used in errors and, by its base name, in the IDs
// ("<base>#<index>", the index counting puzzles from 0).
func Parse(r io.Reader, name string) ([]*Problem, error) {
	base := filepath.Base(name)
	var ps []*Problem
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		p, err := parseLine(text, fmt.Sprintf("%s#%d", base, len(ps)))
		if err != nil {
			return nil, fmt.Errorf("stp: %s:%d: %w", name, line, err)
		}
		ps = append(ps, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("stp: %s: %w", name, err)
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("stp: %s: no puzzles", name)
	}
	return ps, nil
}

func parseLine(text, id string) (*Problem, error) {
	rows, cols := 0, 0
	if size, rest, ok := strings.Cut(text, ":"); ok {
		r, c, ok := strings.Cut(size, "x")
		var err1, err2 error
		rows, err1 = strconv.Atoi(strings.TrimSpace(r))
		cols, err2 = strconv.Atoi(strings.TrimSpace(c))
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("bad size prefix %q: want RxC:", size)
		}
		text = rest
	}
	fields := strings.Fields(text)
	tiles := make([]int, len(fields))
	for i, f := range fields {
		t, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("bad tile %q", f)
		}
		tiles[i] = t
	}
	if rows == 0 {
		side := int(math.Sqrt(float64(len(tiles))))
		if side*side != len(tiles) {
			return nil, fmt.Errorf("%d tiles is not a square grid (prefix the line with RxC: for others)", len(tiles))
		}
		rows, cols = side, side
	}
	return New(rows, cols, tiles, id)
}

// Write writes puzzles, one line each.
func Write(w io.Writer, ps []*Problem) error {
	bw := bufio.NewWriter(w)
	for _, p := range ps {
		bw.WriteString(p.String())
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// GenerateWalk returns the puzzle at the end of a random walk of the blank
// from the goal, of a length drawn uniformly from [minLen, maxLen], that
// never undoes its previous move. (The walk may come back to earlier
// arrangements, so the puzzle may be closer to the goal than its length.)
func GenerateWalk(rng *rand.Rand, rows, cols, minLen, maxLen int) *Problem {
	n := rows * cols
	goal := make([]int, n)
	for i := range goal {
		goal[i] = i
	}
	p := mustNew(rows, cols, goal)
	s := p.goal
	last := -1
	undo := [4]int{Down, Up, Right, Left}
	for range minLen + rng.IntN(maxLen-minLen+1) {
		for {
			a := rng.IntN(4)
			if last >= 0 && a == undo[last] {
				continue
			}
			if t, ok := p.Apply(s, a); ok {
				s, last = t, a
				break
			}
		}
	}
	return mustNew(rows, cols, p.Tiles(s))
}

// GenerateRandom returns a puzzle drawn uniformly from the solvable
// arrangements.
func GenerateRandom(rng *rand.Rand, rows, cols int) *Problem {
	tiles := rng.Perm(rows * cols)
	if !Solvable(rows, cols, tiles) {
		// Swapping two tiles (not the blank) flips the parity: a bijection
		// between unsolvable and solvable arrangements.
		i, j := 0, 1
		if tiles[i] == 0 {
			i = 2
		} else if tiles[j] == 0 {
			j = 2
		}
		tiles[i], tiles[j] = tiles[j], tiles[i]
	}
	return mustNew(rows, cols, tiles)
}

func mustNew(rows, cols int, tiles []int) *Problem {
	p, err := New(rows, cols, tiles, "generated")
	if err != nil {
		panic(errors.Join(errors.New("stp: generator"), err))
	}
	return p
}
