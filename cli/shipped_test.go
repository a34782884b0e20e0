package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/models"
	"github.com/phs-go/phs/report"
	"github.com/phs-go/phs/search"
)

// witnessNetwork saves a new untrained LevinTS network (a policy alone)
// for 4x4 Witness puzzles, its configuration changed by edit if not nil,
// in a new directory, and returns the directory.
func witnessNetwork(t *testing.T, edit func(*model.Config)) string {
	t.Helper()
	ps, err := witness.ReadFile("../examples/witness-4x4.txt")
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.ConfigFor[witness.State]("witness", search.LevinTS(), ps[0])
	if edit != nil {
		edit(&cfg)
	}
	return saveNetwork(t, cfg)
}

// saveNetwork saves a new untrained network of cfg in a new directory,
// and returns the directory.
func saveNetwork(t *testing.T, cfg model.Config) string {
	t.Helper()
	m, err := model.New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := model.Save(dir, m); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestShippedContextModel checks that solve and test without -model
// search The Witness with the shipped context model: LevinTS on its
// table, the same searches, node for node, as with -model naming the
// table's file, solving every puzzle of the bundled sample and of the
// first 40 test puzzles, every solution replaying; one node at a time
// unless -batch says otherwise; and far fewer
// expansions than LevinTS without a model.
func TestShippedContextModel(t *testing.T) {
	t.Parallel()
	table := filepath.Join("..", "models", "witness", cm.TableFile)
	records := func(cmd, file string, args ...string) []report.Record {
		t.Helper()
		args = append([]string{cmd, "-domain", "witness", "-progress", "0", "-workers", "1"}, append(args, file)...)
		out, errOut, err := runPHS(t, args...)
		if err != nil {
			t.Fatalf("%q: %v\n%s", args, err, errOut)
		}
		if strings.Contains(errOut, "WARN") {
			t.Errorf("%q: a warning:\n%s", args, errOut)
		}
		replayAll(t, out, file)
		return decodeRecords(t, out)
	}
	for _, cmd := range []string{"solve", "test"} {
		for _, file := range []string{"../examples/witness-4x4.txt", "../domain/witness/testdata/puzzles_4x4_test-first40.txt"} {
			got, want := records(cmd, file), records(cmd, file, "-model", table)
			if len(got) == 0 || len(got) != len(want) {
				t.Fatalf("%s %s: %d records without -model, %d with -model %s", cmd, file, len(got), len(want), table)
			}
			var exp int64
			for i, r := range got {
				w := want[i]
				if r.Problem != w.Problem || !r.Solved || r.Algorithm != "levints" || r.Expansions != w.Expansions ||
					r.Generated != w.Generated || r.Solution != w.Solution || r.Budget != w.Budget {
					t.Errorf("%s: %+v without -model, %+v with -model %s; want the same, solved by levints", cmd, r, w, table)
				}
				exp += r.Expansions
			}
			t.Logf("%s %s: %d solved, %.1f expansions on average", cmd, file, len(got), float64(exp)/float64(len(got)))
		}
	}
	// A context model searches one node at a time unless -batch says
	// otherwise.
	sample := "../examples/witness-4x4.txt"
	def, one, batched := records("solve", sample), records("solve", sample, "-batch", "1"), records("solve", sample, "-batch", "32")
	same := true
	for i := range def {
		if def[i].Expansions != one[i].Expansions || def[i].Solution != one[i].Solution {
			t.Errorf("%s: %+v by default, %+v with -batch 1; want the same", def[i].Problem, def[i], one[i])
		}
		same = same && def[i].Expansions == batched[i].Expansions
	}
	if same {
		t.Error("the sample: the same expansions by default as with -batch 32")
	}
	// Without a model, LevinTS is breadth-first search: of the sample, it
	// solves fewer in 2,000 expansions each, or the same in more.
	uniform, shipped := records("solve", "../examples/witness-4x4.txt", "-model", "none", "-alg", "levints", "-budget", "2000"),
		records("solve", "../examples/witness-4x4.txt", "-budget", "2000")
	var nu, eu, ns, es int64
	for i := range uniform {
		if uniform[i].Solved {
			nu, eu = nu+1, eu+uniform[i].Expansions
		}
		if shipped[i].Solved {
			ns, es = ns+1, es+shipped[i].Expansions
		}
	}
	if nu > ns || nu == ns && eu <= es {
		t.Errorf("the sample, budget 2,000: %d solved in %d expansions without a model, %d in %d with the shipped context model; want fewer, or more expansions, without", nu, eu, ns, es)
	}
}

// TestDefaultModelKinds checks DefaultModel for a domain of the caller's:
// a context model as the default searches as with -model; one for
// problems without contexts, a model that is neither kind or both, and
// an error of its loader other than models.ErrNoModel, stop solve and
// test before any search; an error that wraps models.ErrNoModel goes
// without a model.
func TestDefaultModelKinds(t *testing.T) {
	file := writeFile(t, "lines.txt", "7\n-6\n5\n-8\n")
	run := t.TempDir() + "/run"
	if err := Run(context.Background(), []string{"train", "-domain", "line", "-learner", "context", "-budget", "10", "-batch", "1", "-iterations", "6", "-dir", run, file},
		io.Discard, io.Discard, NewDomain[int]("line", parseCtxLines)); err != nil {
		t.Fatalf("train: %v", err)
	}
	tb, err := cm.ReadTable(filepath.Join(run, "checkpoint", cm.TableFile+cm.GzipSuffix))
	if err != nil {
		t.Fatal(err)
	}
	net, err := model.New(model.Config{Domain: "line", Algorithm: search.LevinTS(), Heads: model.Policy, PolicyLoss: model.Levin,
		Channels: 1, Height: 3, Width: 3, Actions: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	loader := func(m models.Model, err error) Option {
		return DefaultModel(func() (models.Model, error) { return m, err })
	}
	solve := func(d Domain, args ...string) ([]report.Record, string, error) {
		var o, e strings.Builder
		err := Run(context.Background(), append([]string{"solve", "-domain", "line", "-batch", "1", "-budget", "9", "-progress", "0"}, append(args, file)...), &o, &e, d)
		if err != nil {
			return nil, e.String(), err
		}
		return decodeRecords(t, o.String()), e.String(), nil
	}
	want, _, err := solve(NewDomain[int]("line", parseCtxLines), "-model", run)
	if err != nil {
		t.Fatal(err)
	}
	got, errOut, err := solve(NewDomain[int]("line", parseCtxLines, loader(models.Model{Table: tb}, nil)))
	if err != nil || len(got) != 4 || strings.Contains(errOut, "WARN") {
		t.Fatalf("a context model as the default: %d records, %v\n%s", len(got), err, errOut)
	}
	for i, r := range got {
		if w := want[i]; !r.Solved || r.Expansions != w.Expansions || r.Generated != w.Generated || r.Solution != w.Solution {
			t.Errorf("a context model as the default: %+v; want as with -model: %+v", r, w)
		}
	}
	uniform, _, err := solve(NewDomain[int]("line", parseLines, loader(models.Model{}, fmt.Errorf("models: %w for domain %q", models.ErrNoModel, "line"))))
	if err != nil || len(uniform) != 4 || countSolved(uniform) == 4 {
		t.Errorf("no default model: %v, %+v; want the searches of a uniform policy, which do not solve all 4 in 9 expansions", err, uniform)
	}

	broken := errors.New("broken")
	for _, tc := range []struct {
		name string
		d    Domain
		want string
	}{
		{"no contexts", NewDomain[int]("line", parseLines, loader(models.Model{Table: tb}, nil)),
			"solve: the line domain's shipped model: a context model, and the line domain has no contexts (cm.Contexter)"},
		{"neither", NewDomain[int]("line", parseCtxLines, loader(models.Model{}, nil)),
			"solve: the line domain's shipped model: want exactly one of a network and a context model"},
		{"both", NewDomain[int]("line", parseCtxLines, loader(models.Model{Network: net, Table: tb}, nil)),
			"solve: the line domain's shipped model: want exactly one of a network and a context model"},
		{"error", NewDomain[int]("line", parseCtxLines, loader(models.Model{}, broken)),
			"solve: the line domain's shipped model: broken"},
	} {
		recs, _, err := solve(tc.d)
		if err == nil || err.Error() != tc.want || recs != nil {
			t.Errorf("%s: %v, %d records; want the error %q", tc.name, err, len(recs), tc.want)
		}
		if tc.name == "error" && !errors.Is(err, broken) {
			t.Errorf("%s: %v does not wrap the loader's error", tc.name, err)
		}
	}
}

// countSolved returns the number of records of solved problems.
func countSolved(recs []report.Record) (n int) {
	for _, r := range recs {
		if r.Solved {
			n++
		}
	}
	return n
}

// TestNamedShippedModel checks that -model names a shipped model when no
// file has that name: solve searches the first 10 Boxoban test levels
// with sokoban-hard, its algorithm (PHS*) and its deadlock pruning,
// solving all of them with solutions that replay; the model of another
// domain is an error, and a file of that name is read instead.
func TestNamedShippedModel(t *testing.T) {
	levels, err := filepath.Abs("../domain/sokoban/testdata/boxoban-test-000-first40.txt")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := sokoban.ReadFile(levels)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	var out, errOut strings.Builder
	if err := Run(context.Background(), []string{"solve", "-domain", "sokoban", "-model", "sokoban-hard", "-budget", "4000", "-first", "10", "-progress", "0", levels},
		&out, &errOut, Shipped()...); err != nil {
		t.Fatalf("solve -model sokoban-hard: %v\n%s", err, errOut.String())
	}
	recs := decodeRecords(t, out.String())
	if len(recs) != 10 || countSolved(recs) != 10 {
		t.Fatalf("%d records, %d solved; want 10 of 10", len(recs), countSolved(recs))
	}
	for i, r := range recs {
		if r.Algorithm != "phsstar" {
			t.Errorf("level %d: algorithm %s, want the model's, phsstar", i, r.Algorithm)
		}
		actions, err := search.ParseActions(ps[i], r.Solution)
		if err == nil {
			err = search.Replay(ps[i], actions)
		}
		if err != nil {
			t.Errorf("level %d: %v", i, err)
		}
	}
	err = Run(context.Background(), []string{"solve", "-domain", "stp", "-model", "sokoban-hard", levels}, io.Discard, io.Discard, Shipped()...)
	if want := "solve: shipped sokoban-hard network is a sokoban model, not a stp one"; err == nil || err.Error() != want {
		t.Errorf("-domain stp -model sokoban-hard: %v; want %q", err, want)
	}
	if err := os.WriteFile("sokoban-hard", []byte("a file, not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = Run(context.Background(), []string{"solve", "-domain", "sokoban", "-model", "sokoban-hard", levels}, io.Discard, io.Discard, Shipped()...)
	if err == nil || strings.Contains(err.Error(), "shipped") {
		t.Errorf("-model sokoban-hard beside a file of that name: %v; want the error of reading the file", err)
	}
}
