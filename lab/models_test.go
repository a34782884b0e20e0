package lab_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/lab"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// TestNetworks checks that the lab holds the network of each row of Table
// 1, of each finished √LTS run, of the table of DeepCubeA's puzzles and
// of the Sokoban network shipped until 2026-11-27, and no other: each loads, is the row's domain and algorithm, and its
// weights file is in the current layout (each tensor in its parameter's
// real shape, not the flattened legacy one that Load also accepts), and
// its config.json records the SHA-256 of its weights, which Load checks.
func TestNetworks(t *testing.T) {
	want := map[string]bool{}
	for _, r := range lab.Rows {
		want[filepath.Clean(r.Model)] = true
		m, err := model.Load(r.Model)
		if err != nil {
			t.Fatal(err)
		}
		if c := m.Config(); c.Domain != r.Domain || c.Algorithm.Name() != r.Algorithm {
			t.Errorf("%s: a network of %s %s, in the row of %s %s", r.Model, c.Domain, c.Algorithm, r.Domain, r.Algorithm)
		}
		b, err := os.ReadFile(filepath.Join(r.Model, model.WeightsFile))
		if err != nil {
			t.Fatal(err)
		}
		var header map[string]struct {
			Shape []int `json:"shape"`
		}
		if n := binary.LittleEndian.Uint64(b); n > uint64(len(b)-8) || json.Unmarshal(b[8:8+n], &header) != nil {
			t.Fatalf("%s: bad header", r.Model)
		}
		for _, p := range m.Params() {
			if got := header[p.Name].Shape; !slices.Equal(got, p.Shape) {
				t.Errorf("%s: %s has shape %v, want %v", r.Model, p.Name, got, p.Shape)
			}
		}
	}
	for _, p := range lab.Puzzles {
		want[filepath.Clean(p.Model)] = true // loaded by TestPuzzles
	}
	pruned := filepath.Join(lab.PrunedDir, "model")
	want[pruned] = true
	if m, err := model.Load(pruned); err != nil {
		t.Error(err)
	} else if c := m.Config(); c.Domain != "sokoban" || c.Algorithm != search.PHSStar() || !c.PruneDeadlocks {
		t.Errorf("%s: a network of %s %s, pruning %v; want sokoban PHS*, deadlocks pruned", pruned, c.Domain, c.Algorithm, c.PruneDeadlocks)
	}
	for _, r := range lab.SqrtLTSTraining {
		done, _, err := r.Finished(".")
		if err != nil {
			t.Fatal(err)
		}
		if !done {
			continue
		}
		dir := filepath.Join(lab.SqrtLTSTrainingDir, r.Name, "model")
		want[dir] = true
		m, err := model.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if c := m.Config(); c.Domain != "sokoban" || c.Algorithm.String() != r.Algorithm {
			t.Errorf("%s: a network of %s %s, in the run of sokoban %s", dir, c.Domain, c.Algorithm, r.Algorithm)
		}
	}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path == runsDir {
			return fs.SkipDir // runs in progress: TestRuns
		}
		if d.Name() != model.WeightsFile {
			return nil
		}
		if !want[filepath.Dir(path)] {
			t.Errorf("%s: a network of no row of Table 1 nor of a finished run of %s", path, lab.SqrtLTSTrainingDir)
		}
		if m, err := model.Load(filepath.Dir(path)); err != nil {
			t.Error(err)
		} else if m.NoDigest() {
			t.Errorf("%s: its %s records no weights_sha256", filepath.Dir(path), model.ConfigFile)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReferences checks that each reference's test reads, and that a
// test file with a bad field is an error that names its line.
func TestReferences(t *testing.T) {
	for _, r := range lab.References {
		s, err := r.Summarize(".")
		if err != nil || s.Problems != 1000 {
			t.Errorf("%s: %d problems, %v", r.Dir, s.Problems, err)
		}
	}
	for _, tc := range []struct{ csv, want string }{
		{"index,solved,expansions,length\n0,1,5,3\n1,0,9,0\n", ""},
		{"index,solved,expansions\n0,1,5\n", "header"},
		{"index,solved,expansions,length\n", "header"},
		{"index,solved,expansions,length\n0,1,5,3\n2,1,5,3\n", ":3:"},
		{"index,solved,expansions,length\n0,2,5,3\n", ":2:"},
		{"index,solved,expansions,length\n0,1,5,0\n", ":2:"},
		{"index,solved,expansions,length\n0,1,-5,3\n", ":2: column expansions"},
		{"index,solved,expansions,length\n0,1,x,3\n", ":2: column expansions"},
	} {
		dir := t.TempDir()
		var b bytes.Buffer
		z := gzip.NewWriter(&b)
		z.Write([]byte(tc.csv))
		z.Close()
		if err := os.WriteFile(filepath.Join(dir, "test.csv.gz"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := lab.Reference{Dir: "."}.Summarize(dir)
		switch {
		case tc.want == "" && (err != nil || s.Problems != 2 || s.Solved != 1 || s.Expansions != 5):
			t.Errorf("%q: %+v, %v", tc.csv, s, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v; want one with %q", tc.csv, err, tc.want)
		}
	}
}

// TestSuccessors checks that each successor's directory has its README,
// its Bootstrap test and the metrics of its training runs, and that its
// model, if committed, is a context model of its domain's layout.
func TestSuccessors(t *testing.T) {
	for _, sc := range lab.Successors {
		if _, err := os.Stat(filepath.Join(sc.Dir, "README.md")); err != nil {
			t.Error(err)
		}
		if _, err := lab.ResultFile(sc.Dir, sc.TestName()); err != nil {
			t.Error(err)
		}
		for _, d := range sc.Training {
			if _, err := lab.ReadCost(d); err != nil {
				t.Error(err)
			}
		}
		if sc.Model == "" {
			continue // not committed
		}
		tb, err := cm.ReadTable(sc.Model)
		if err != nil {
			t.Fatal(err)
		}
		if name := tb.Layout().Name; !strings.HasPrefix(name, sc.Domain+" ") {
			t.Errorf("%s: a context model of %q", sc.Dir, name)
		}
	}
}
