package stp

// LowerBound returns a lower bound on the number of moves from s to the
// goal: the Manhattan distance plus the linear conflicts (Hansson, Mayer and
// Yung, 1992). Two tiles in their goal row (column) whose order in it is the
// reverse of their goal order are in conflict: one of them must leave the
// row (column) and come back, two moves the Manhattan distance does not
// count. For each row the bound adds two moves per tile outside a longest
// run of tiles in goal order (the fewest tiles whose removal leaves none in
// conflict), and likewise for each column; the row moves and the column
// moves are moves of different directions, so the sums add up. It is
// admissible, at least Heuristic(s), and 0 at the goal.
//
// It is meant for measuring solutions, not for searching: it costs
// O(rows·cols²) and allocates.
func (p *Problem[S]) LowerBound(s S) int {
	rows, cols := p.Rows, p.Cols
	tiles := s.tiles()
	extra := 0
	line := make([]int, 0, max(rows, cols))
	// Rows: the goal columns of the tiles that sit in their goal row.
	for r := range rows {
		line = line[:0]
		for c := range cols {
			if t := int(tiles[r*cols+c]); t != 0 && t/cols == r {
				line = append(line, t%cols)
			}
		}
		extra += 2 * (len(line) - longestIncreasing(line))
	}
	// Columns: the goal rows of the tiles that sit in their goal column.
	for c := range cols {
		line = line[:0]
		for r := range rows {
			if t := int(tiles[r*cols+c]); t != 0 && t%cols == c {
				line = append(line, t/cols)
			}
		}
		extra += 2 * (len(line) - longestIncreasing(line))
	}
	return s.manhattan(p.g) + extra
}

// longestIncreasing returns the length of a longest strictly increasing
// subsequence of x, in O(len(x)²): the lines are at most MaxLargeCells/2
// long.
func longestIncreasing(x []int) int {
	var best [MaxLargeCells / 2]int // best[i]: the longest ending at x[i]
	n := 0
	for i := range x {
		best[i] = 1
		for j := range i {
			if x[j] < x[i] {
				best[i] = max(best[i], best[j]+1)
			}
		}
		n = max(n, best[i])
	}
	return n
}
