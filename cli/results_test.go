package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/report"
	"github.com/phs-go/phs/search"
)

// committedProblems are the test problems of the results committed under
// results/ that the repository holds: the first 40 of each test set, as
// fixtures of the domains, keyed by the data file the records name.
var committedProblems = map[string]func(t *testing.T) (replay func(i int, solution string) (int, error), n int){
	"puzzles_4x4_test.txt": func(t *testing.T) (func(int, string) (int, error), int) {
		ps, err := witness.ReadFile("../domain/witness/testdata/puzzles_4x4_test-first40.txt")
		if err != nil {
			t.Fatal(err)
		}
		return replayer[witness.State](ps), len(ps)
	},
	"000.txt": func(t *testing.T) (func(int, string) (int, error), int) {
		ps, err := sokoban.ReadFile("../domain/sokoban/testdata/boxoban-test-000-first40.txt")
		if err != nil {
			t.Fatal(err)
		}
		return replayer[sokoban.State](ps), len(ps)
	},
	"puzzles_5x5_test.txt": func(t *testing.T) (func(int, string) (int, error), int) {
		ps, err := stp.ReadFile("../domain/stp/testdata/puzzles_5x5_test-first40.txt")
		if err != nil {
			t.Fatal(err)
		}
		return replayer[stp.State](ps), len(ps)
	},
}

// replayer returns a function that replays a solution of the i-th of ps,
// as the records spell it, and returns its length.
func replayer[S comparable, P search.Problem[S]](ps []P) func(int, string) (int, error) {
	return func(i int, solution string) (int, error) {
		actions, err := search.ParseActions[S](ps[i], solution)
		if err != nil {
			return 0, err
		}
		return len(actions), search.Replay[S](ps[i], actions)
	}
}

// TestCommittedResults replays the solutions of the committed test results
// (results/*/test*.jsonl, and results/*/fixed*.jsonl of the fixed-limit
// tests) whose problems the repository holds: the first 40 of each test
// set. Each file must have records of some of them (a weak model may
// solve none), each solved record a solution of its length that reaches
// the goal.
func TestCommittedResults(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../results/*/test*.jsonl", "../results/*/fixed*.jsonl"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no committed test results")
	}
	type fixture struct {
		replay func(int, string) (int, error)
		n      int
	}
	loaded := map[string]*fixture{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := report.ReadJSONL(f, name)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		covered, replayed := 0, 0
		for _, r := range recs {
			file, index, ok := strings.Cut(r.Problem, "#")
			i, err := strconv.Atoi(index)
			if !ok || err != nil || committedProblems[file] == nil {
				t.Fatalf("%s: %s: no fixture for this problem", name, r.Problem)
			}
			if loaded[file] == nil {
				replay, n := committedProblems[file](t)
				loaded[file] = &fixture{replay, n}
			}
			fx := loaded[file]
			if i >= fx.n {
				continue
			}
			covered++
			if !r.Solved {
				continue
			}
			length, err := fx.replay(i, r.Solution)
			if err != nil {
				t.Errorf("%s: %s: %v", name, r.Problem, err)
			} else if length != r.Length {
				t.Errorf("%s: %s: a solution of %d actions, length %d", name, r.Problem, length, r.Length)
			}
			replayed++
		}
		if covered == 0 {
			t.Errorf("%s: no record of the first 40 problems", name)
		}
		t.Logf("%s: %d solutions replayed", name, replayed)
	}
}
