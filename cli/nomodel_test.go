package cli

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/domain/rubiks"
	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/report"
	"github.com/phs-go/phs/search"
)

// replayRecords checks that every record of recs is solved, by algorithm alg,
// and that its solution replays to the goal of the problem of the same
// index of ps.
func replayRecords[S comparable, P search.Problem[S]](t *testing.T, name string, recs []report.Record, ps []P, alg string) {
	t.Helper()
	if len(recs) != len(ps) {
		t.Fatalf("%s: %d records of %d problems", name, len(recs), len(ps))
	}
	for i, r := range recs {
		actions, err := search.ParseActions[S](ps[i], r.Solution)
		if err == nil {
			err = search.Replay[S](ps[i], actions)
		}
		if !r.Solved || r.Algorithm != alg || err != nil {
			t.Errorf("%s: %s: solved %v by %s, %d moves: %v; want solved by %s", name, r.Problem, r.Solved, r.Algorithm, r.Length, err, alg)
		}
	}
}

// generate runs "phs generate" with args and writes the problems to a
// file called name; it returns the file's path.
func generate(t *testing.T, name string, args ...string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), name)
	if _, errOut, err := runPHS(t, append(append([]string{"generate"}, args...), "-out", f)...); err != nil {
		t.Fatalf("generate %q: %v\n%s", args, err, errOut)
	}
	return f
}

// TestNoModelDefaults solves a few problems of each shipped domain with
// its default search without a model (-model none and no -alg), and
// replays the solutions: WA* for Sokoban and the sliding-tile puzzle, A*
// for The Witness. The Rubik's cube's, WA* with rubiks.Problem.Estimate,
// builds 65 MB of pattern databases (5 s of CPU time): it is in
// TestRubiksNoModel, not in -short.
func TestNoModelDefaults(t *testing.T) {
	solve := func(domain, file string, args ...string) []report.Record {
		t.Helper()
		args = append([]string{"solve", "-domain", domain, "-model", "none", "-progress", "0"}, append(args, file)...)
		out, errOut, err := runPHS(t, args...)
		if err != nil {
			t.Fatalf("%q: %v\n%s", args, err, errOut)
		}
		return decodeRecords(t, out)
	}

	levels := "../domain/sokoban/testdata/boxoban-test-000-first40.txt"
	ls, err := sokoban.ReadFile(levels)
	if err != nil {
		t.Fatal(err)
	}
	replayRecords[sokoban.State](t, "sokoban", solve("sokoban", levels, "-first", "5"), ls[:5], "wastar")

	for _, size := range []string{"3x3", "4x4"} {
		f := generate(t, size+".txt", "stp", "-size", size, "-n", "5", "-seed", "3")
		ps, err := stp.ReadFile[stp.State](f)
		if err != nil {
			t.Fatal(err)
		}
		replayRecords[stp.State](t, "stp "+size, solve("stp", f), ps, "wastar")
	}

	f := generate(t, "w.txt", "witness", "-n", "5", "-seed", "3")
	ws, err := witness.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	replayRecords[witness.State](t, "witness", solve("witness", f), ws, "astar")
}

// TestNoShippedModelForSize checks that "phs solve" with no flags searches
// without a model, with the domain's default, problems of a size that the
// shipped model does not take (4x4 puzzles, small Sokoban levels), and
// says so; that it searches 6x6 puzzles with their own shipped model
// (stp-6x6), without trying the 5x5 model; and keeps the model for a size
// it takes.
func TestNoShippedModelForSize(t *testing.T) {
	f := generate(t, "6x6.txt", "stp", "-size", "6x6", "-n", "2", "-seed", "4")
	ps, err := stp.ReadFile[stp.LargeState](f)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runPHS(t, "solve", "-domain", "stp", "-workers", "1", "-progress", "0", f)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if strings.Contains(errOut, "takes none") {
		t.Errorf("the 5x5 network was tried on 6x6 puzzles, which have their own default:\n%s", errOut)
	}
	replayRecords[stp.LargeState](t, "stp 6x6", decodeRecords(t, out), ps, "beam")

	// A 4x4 puzzle, of the 5x5 network's state type, leaves it out.
	four := generate(t, "4x4.txt", "stp", "-size", "4x4", "-n", "2", "-walk", "10:20", "-seed", "4")
	fs, err := stp.ReadFile[stp.State](four)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, err = runPHS(t, "solve", "-domain", "stp", "-workers", "1", "-progress", "0", four)
	if err != nil || !strings.Contains(errOut, "shipped stp network takes none of the problems") || !strings.Contains(errOut, "as -model none") {
		t.Fatalf("4x4 puzzles: %v; want a warning that the shipped model is left out:\n%s", err, errOut)
	}
	replayRecords[stp.State](t, "stp 4x4", decodeRecords(t, out), fs, "wastar")

	sok := writeFile(t, "levels.txt", sokobanFixture)
	ls, err := sokoban.ReadFile(sok)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, err = runPHS(t, "solve", "-domain", "sokoban", "-progress", "0", sok)
	if err != nil || !strings.Contains(errOut, "shipped sokoban network takes none of the problems") {
		t.Fatalf("%v\n%s", err, errOut)
	}
	replayRecords[sokoban.State](t, "sokoban 4x6", decodeRecords(t, out), ls, "wastar")

	// A 5x5 puzzle keeps the shipped network, and its WA*.
	tiles := generate(t, "5x5.txt", "stp", "-size", "5x5", "-n", "1", "-walk", "10:20", "-seed", "4")
	out, errOut, err = runPHS(t, "solve", "-domain", "stp", "-progress", "0", tiles)
	if err != nil || strings.Contains(errOut, "takes none") {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if recs := decodeRecords(t, out); len(recs) != 1 || !recs[0].Solved {
		t.Errorf("5x5 with the shipped network: %+v", recs)
	}
}

// TestRubiksNoModel solves cubes scrambled by 8 or 9 turns with the cube's
// default search without a model (-model none), WA* with rubiks.Problem.Estimate, and
// replays the solutions, which may be some times longer (one of the four
// takes 50 turns). With -short, which leaves out the 5 s of CPU
// time that the pattern databases take to build, it checks the default
// alone (TestNoModelHeuristic checks its wiring).
func TestRubiksNoModel(t *testing.T) {
	var caps *capabilities
	for _, d := range Shipped() {
		if d.Name() == "rubiks" {
			caps = d.d.caps()
		}
	}
	if caps == nil || !caps.noModelH || caps.noModelAlg != search.WAStar(rubiksNoModelW) {
		t.Fatalf("the cube's search without a model: %+v, want wastar:%d with NoModelHeuristic", caps, rubiksNoModelW)
	}
	if testing.Short() {
		return
	}
	scramble := "8:9"
	f := generate(t, "cubes.txt", "rubiks", "-n", "4", "-scramble", scramble, "-seed", "5")
	ps, err := rubiks.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runPHS(t, "solve", "-domain", "rubiks", "-model", "none", "-progress", "0", f)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	recs := decodeRecords(t, out)
	replayRecords[rubiks.State](t, "rubiks", recs, ps, "wastar")
	for _, r := range recs {
		if r.Length > 60 {
			t.Errorf("%s: %d turns for a scramble of %s", r.Problem, r.Length, scramble)
		}
	}
}

// TestNoModelHeuristic checks that a domain's NoModelHeuristic guides its
// default search without a model, and -alg the problems' own heuristic.
func TestNoModelHeuristic(t *testing.T) {
	toward := func(l line, s int) float64 { return float64(max(l.target-s, s-l.target)) }
	d := NewDomain[int]("line", parseLines, NoModelHeuristic(toward))
	file := writeFile(t, "lines.txt", "30\n-20\n")
	// Batches of one: GBFS expands one node per step.
	run := func(args ...string) ([]report.Record, error) {
		var o strings.Builder
		err := Run(context.Background(), append(append([]string{"solve", "-domain", "line", "-batch", "1", "-progress", "0"}, args...), file), &o, io.Discard, d)
		if err != nil {
			return nil, err
		}
		return decodeRecords(t, o.String()), nil
	}
	recs, err := run()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		// GBFS heads straight for the target: one expansion per step.
		if !r.Solved || r.Algorithm != "gbfs" || r.Expansions > int64(r.Length) {
			t.Errorf("%+v, want solved by gbfs in one expansion per step", r)
		}
	}
	if _, err := run("-alg", "astar"); exitCode(err) != 2 || !strings.Contains(err.Error(), "the line domain has none") {
		t.Errorf("-alg astar: %v, want a usage error: the problems have no heuristic", err)
	}
	if recs, err := run("-alg", "levints"); err != nil || len(recs) != 2 || recs[0].Expansions <= int64(recs[0].Length) {
		t.Errorf("-alg levints: %v %+v, want a blind search", err, recs)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "NoModelHeuristic takes") {
			t.Errorf("panic %v, want one about NoModelHeuristic's type", r)
		}
	}()
	NewDomain[int]("line", parseLines, NoModelHeuristic(func(l line, s string) float64 { return 0 }))
}
