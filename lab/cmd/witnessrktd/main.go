// Command witnessrktd writes Witness puzzles in the format of the
// reference implementation of LTS+CM (google-deepmind/levintreesearch_cm,
// domains/witness/data/*.rktd), to train it on the same file as phs:
//
//	witnessrktd PUZZLES.txt > puzzles.rktd
//
// The output is one Racket list of the puzzles, in the file's order, each
// ((rows cols) (init-row init-col) (goal-row goal-col) (colours…)), the
// colours of the cells row-major, 0 where a cell has no bullet. Converted
// this way, the test file of phs (witness/puzzles_4x4_test.txt) is the
// reference's puzzles_1000_test.rktd in reverse order, puzzle by puzzle.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/phs-go/phs/domain/witness"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "witnessrktd:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return errors.New("usage: witnessrktd PUZZLES.txt > puzzles.rktd")
	}
	ps, err := witness.ReadFile(args[0])
	if err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	w.WriteString("(")
	for i, p := range ps {
		if i > 0 {
			w.WriteString(" ")
		}
		il, ic := p.Init()
		gl, gc := p.Goal()
		fmt.Fprintf(w, "((%d %d) (%d %d) (%d %d) (", p.Rows, p.Cols, il, ic, gl, gc)
		for r := range p.Rows {
			for c := range p.Cols {
				if r+c > 0 {
					w.WriteString(" ")
				}
				fmt.Fprint(w, p.Color(r, c))
			}
		}
		w.WriteString("))")
	}
	w.WriteString(")\n")
	return w.Flush()
}
