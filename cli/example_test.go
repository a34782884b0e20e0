package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/phs-go/phs/cli"
	"github.com/phs-go/phs/report"
)

// A walk is a problem of a domain of one's own: walk from 0 to a target
// by steps of +1 or -1.
type walk struct{ target int }

func (w walk) Root() int                  { return 0 }
func (w walk) NumActions() int            { return 2 }
func (w walk) Apply(s, a int) (int, bool) { return s + 1 - 2*a, true }
func (w walk) IsGoal(s int) bool          { return s == w.target }
func (w walk) Heuristic(s int) float64    { return float64(max(w.target-s, s-w.target)) }
func (w walk) ActionName(a int) string    { return "+-"[a : a+1] }

// parseWalks reads one target a line.
func parseWalks(r io.Reader, file string) ([]walk, error) {
	var ws []walk
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		n, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
		if err != nil {
			return nil, fmt.Errorf("walk: %s:%d: %v", file, line, err)
		}
		ws = append(ws, walk{n})
	}
	return ws, sc.Err()
}

// Example builds a phs command for a domain of its own, whose problems
// have a heuristic and action names, and runs "phs solve" on a file of
// it. A program's main is cli.Main(walks).
func Example() {
	walks := cli.NewDomain[int]("walk", parseWalks)

	dir, _ := os.MkdirTemp("", "walk")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "walks.txt")
	os.WriteFile(file, []byte("3\n-2\n"), 0o644)

	var out bytes.Buffer
	args := []string{"solve", "-domain", "walk", "-progress", "0", file}
	if err := cli.Run(context.Background(), args, &out, io.Discard, walks); err != nil {
		fmt.Println(err)
		return
	}
	recs, _ := report.ReadJSONL(&out, "stdout")
	for _, r := range recs {
		fmt.Println(r.Problem, r.Algorithm, r.Solved, r.Solution)
	}
	// Output:
	// walks.txt#0 gbfs true +++
	// walks.txt#1 gbfs true --
}
