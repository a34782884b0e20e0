package lab_test

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/phs-go/phs/domain/rubiks"
	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/lab"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// committedProblems are the test problems of the lab's results that the
// repository holds: the first 40 of each set the lab tests on (test sets,
// held-back training levels), as fixtures of the domains, and the boards
// the lab generated for its tests, keyed by the data file the records
// name.
var committedProblems = map[string]func(t *testing.T) (replay func(i int, solution string) (int, error), n int){
	"puzzles_4x4_test.txt":    fixture[witness.State](witness.ReadFile, "../domain/witness/testdata/puzzles_4x4_test-first40.txt"),
	"000.txt":                 fixture[sokoban.State](sokoban.ReadFile, "../domain/sokoban/testdata/boxoban-test-000-first40.txt"),
	"medium-049-first200.txt": fixture[sokoban.State](sokoban.ReadFile, "../domain/sokoban/testdata/boxoban-medium-train-049-first40.txt"),
	"deepcubea_test_1000.txt": fixture[rubiks.State](rubiks.ReadFile, "../domain/rubiks/testdata/deepcubea_test_1000-first40.txt"),
	"ltscm_test_1000.txt":     fixture[rubiks.State](rubiks.ReadFile, "../domain/rubiks/testdata/ltscm_test_1000-first40.txt"),
	"puzzles_5x5_test.txt":    fixture[stp.State](stp.ReadFile[stp.State], "../domain/stp/testdata/puzzles_5x5_test-first40.txt"),
	"stp-6x6-test.txt":        fixture[stp.LargeState](stp.ReadFile[stp.LargeState], lab.PuzzlesDir+"/stp-6x6-test.txt"),
	"stp-7x7-test.txt":        fixture[stp.LargeState](stp.ReadFile[stp.LargeState], lab.PuzzlesDir+"/stp-7x7-test.txt"),
}

// fixture returns the entry of committedProblems of the problems that
// read takes from the file at path, relative to the lab.
func fixture[S comparable, P search.Problem[S]](read func(string) ([]P, error), path string) func(t *testing.T) (func(int, string) (int, error), int) {
	return func(t *testing.T) (func(int, string) (int, error), int) {
		ps, err := read(path)
		if err != nil {
			t.Fatal(err)
		}
		return replayer[S](ps), len(ps)
	}
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

// resultName matches the files of per-problem test results: test*.jsonl
// (Bootstrap tests) and fixed*.jsonl (fixed-limit tests), maybe gzipped.
var resultName = regexp.MustCompile(`^(test|fixed).*\.jsonl(\.gz)?$`)

// resultFiles returns the per-problem test results of the lab.
func resultFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && resultName.MatchString(d.Name()) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no committed test results")
	}
	return files
}

// TestCommittedResults replays the solutions of the lab's test results
// (test*.jsonl and fixed*.jsonl, maybe gzipped) whose problems the
// repository holds: the first 40 of each test set. Each file must have
// records of some of them (a weak model may solve none), each solved
// record a solution of its length that reaches the goal.
func TestCommittedResults(t *testing.T) {
	type fixture struct {
		replay func(int, string) (int, error)
		n      int
	}
	loaded := map[string]*fixture{}
	for _, name := range resultFiles(t) {
		recs, err := lab.ReadRecords(name)
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

// TestRowFiles checks that each row of Table 1 has its directory, its
// README, the Bootstrap test and the fixed-limit test of its network, on
// the row's domain with the row's algorithm, and the metrics of each of
// its training runs.
func TestRowFiles(t *testing.T) {
	if len(lab.Rows) != len(lab.Domains)*len(lab.Algorithms) {
		t.Errorf("%d rows; want %d", len(lab.Rows), len(lab.Domains)*len(lab.Algorithms))
	}
	for _, r := range lab.Rows {
		if r.Dir != r.Domain+"-"+r.Algorithm {
			t.Errorf("row %s %s in %s", r.Domain, r.Algorithm, r.Dir)
		}
		if _, err := fs.Stat(os.DirFS("."), r.Dir+"/README.md"); err != nil {
			t.Error(err)
		}
		for _, name := range []string{"test", "fixed"} {
			p, err := lab.ResultFile(r.Final, name)
			if err != nil {
				t.Error(err)
				continue
			}
			recs, err := lab.ReadRecords(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, rec := range recs {
				if rec.Domain != r.Domain || rec.Algorithm != r.Algorithm {
					t.Fatalf("%s: %s: %s %s; want %s %s", p, rec.Problem, rec.Domain, rec.Algorithm, r.Domain, r.Algorithm)
				}
			}
		}
		if _, err := r.TrainingSeconds("."); err != nil {
			t.Error(err)
		}
	}
}

// TestReadOptima checks ReadOptima on good and bad records, and that the
// optima of the Sokoban searches for short solutions cover their levels.
func TestReadOptima(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     map[string]int
		err      string
	}{
		{"good", `{"problem":"a#0","optimal":3,"pushes":1,"states":9,"time_s":0.1,"solution":"RRR"}` + "\n" +
			`{"problem":"a#1","error":"state limit reached","states":4000000,"time_s":3.1}` + "\n",
			map[string]int{"a#0": 3}, ""},
		{"no optimum", `{"problem":"a#0","states":9}` + "\n", nil, `x.jsonl:1: not an optimum (problem "a#0", optimal 0)`},
		{"no problem", `{"optimal":3}` + "\n", nil, "x.jsonl:1: not an optimum"},
		{"bad json", `{"problem":"a#0","optimal":3}` + "\n{\n", nil, "x.jsonl:2: unexpected end of JSON input"},
	} {
		path := filepath.Join(t.TempDir(), "x.jsonl")
		if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := lab.ReadOptima(path)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, %v; want an error with %q", tc.name, got, err, tc.err)
			}
			continue
		}
		if err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	for _, tc := range lab.ShorterTests {
		optima, err := lab.ReadOptima(filepath.Join(lab.ShorterDir, "optima-"+tc.Set+".jsonl.gz"))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := lab.ReadRecords(filepath.Join(lab.ShorterDir, "test-"+tc.Name+".jsonl.gz"))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if opt, ok := optima[r.Problem]; !ok || r.Solved && r.Length < opt {
				t.Errorf("%s: %s: %d moves, optimum %d (%v)", tc.Name, r.Problem, r.Length, opt, ok)
			}
		}
	}
}

// TestPuzzles checks each row of the table of DeepCubeA's puzzles: a
// puzzle of lab.DeepCubeA, its test's records all of one domain and one
// algorithm, its model a network of that domain and algorithm, and the
// metrics of each of its training stages, and its boards, if any, the
// records' file.
func TestPuzzles(t *testing.T) {
	for _, p := range lab.Puzzles {
		if !slices.ContainsFunc(lab.DeepCubeA, func(d lab.DeepCubeAFigure) bool { return d.Puzzle == p.DeepCubeA }) {
			t.Errorf("%s: no puzzle %q in DeepCubeA's", p.Results, p.DeepCubeA)
		}
		name, err := lab.ResultFile(filepath.Dir(p.Results), filepath.Base(p.Results))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := lab.ReadRecords(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := model.Load(p.Model)
		if err != nil {
			t.Fatal(err)
		}
		c := m.Config()
		for _, r := range recs {
			if r.Domain != c.Domain || r.Algorithm != c.Algorithm.Name() {
				t.Fatalf("%s: %s: %s %s, by a network of %s %s", name, r.Problem, r.Domain, r.Algorithm, c.Domain, c.Algorithm)
			}
		}
		if _, err := p.CoreSeconds("."); err != nil {
			t.Error(err)
		}
		if p.Boards == "" {
			continue
		}
		lb, err := lab.BoardsBound(p.Boards)
		if err != nil {
			t.Fatal(err)
		}
		if file := filepath.Base(p.Boards); lb <= 0 || !strings.HasPrefix(recs[0].Problem, file+"#") {
			t.Errorf("%s: boards %s, mean bound %.1f, for the records of %s", name, p.Boards, lb, recs[0].Problem)
		}
	}
}
