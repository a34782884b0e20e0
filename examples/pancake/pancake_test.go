package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/phs-go/phs/cli"
	"github.com/phs-go/phs/report"
	"github.com/phs-go/phs/search"
)

// phs runs the command line args with the pancake domain in process.
func phs(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	if err := cli.Run(context.Background(), args, &o, &e, domain); err != nil {
		t.Fatalf("%q: %v\n%s", args, err, e.String())
	}
	return o.String(), e.String()
}

// distances returns the length of a shortest solution of every stack of n
// pancakes, by breadth-first search from the goal (a flip is its own
// inverse).
func distances(n int) map[State]int {
	goal := make([]int, n)
	for i := range goal {
		goal[i] = i
	}
	p, _ := New(goal)
	dist := map[State]int{p.Root(): 0}
	queue := []State{p.Root()}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for a := range p.NumActions() {
			t, _ := p.Apply(s, a)
			if _, ok := dist[t]; !ok {
				dist[t] = dist[s] + 1
				queue = append(queue, t)
			}
		}
	}
	return dist
}

func readStacks(t *testing.T, file string) []*Problem {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps, err := Parse(f, file)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// TestSolveOptimal generates stacks with phs generate and solves them with
// A* and the gap heuristic, and with LevinTS, which under the uniform
// policy of -model none is breadth-first search: every solution replays
// and is as short as a breadth-first search of every stack finds.
func TestSolveOptimal(t *testing.T) {
	dir := t.TempDir()
	stacks := filepath.Join(dir, "stacks.txt")
	phs(t, "generate", "pancake", "-size", "7", "-n", "40", "-seed", "3", "-out", stacks)
	ps := readStacks(t, stacks)
	if len(ps) != 40 {
		t.Fatalf("%d stacks generated, want 40", len(ps))
	}
	dist := distances(7)
	for _, alg := range []string{"levints", "astar"} {
		out, _ := phs(t, "solve", "-domain", "pancake", "-alg", alg, "-progress", "0", stacks)
		recs, err := report.ReadJSONL(strings.NewReader(out), "stdout")
		if err != nil || len(recs) != len(ps) {
			t.Fatalf("%s: %d records, %v", alg, len(recs), err)
		}
		for i, r := range recs {
			actions, err := search.ParseActions(ps[i], r.Solution)
			if err != nil || !r.Solved {
				t.Fatalf("%s: %s: %+v, %v", alg, r.Problem, r, err)
			}
			if err := search.Replay(ps[i], actions); err != nil {
				t.Errorf("%s: %s: %v", alg, r.Problem, err)
			}
			if want := dist[ps[i].Root()]; r.Length != want {
				t.Errorf("%s: %s (%v): length %d, want %d", alg, r.Problem, ps[i], r.Length, want)
			}
		}
	}
	// Without -alg, the domain's default without a model: GBFS, as the
	// problems have a heuristic.
	out, _ := phs(t, "solve", "-domain", "pancake", "-progress", "0", stacks)
	if recs, _ := report.ReadJSONL(strings.NewReader(out), "stdout"); len(recs) != 40 || recs[0].Algorithm != "gbfs" {
		t.Errorf("default algorithm: %+v", recs[:1])
	}
}

// TestTrainResumeTest trains a tiny model, resumes the run and tests it,
// all through the phs commands.
func TestTrainResumeTest(t *testing.T) {
	dir := t.TempDir()
	stacks := filepath.Join(dir, "stacks.txt")
	phs(t, "generate", "pancake", "-size", "5", "-n", "15", "-out", stacks)
	// A sorted stack, solved at its root, gives training nothing to learn.
	f, err := os.OpenFile(stacks, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("0 1 2 3 4\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	run := filepath.Join(dir, "run")
	phs(t, "train", "-domain", "pancake", "-alg", "levints", "-iterations", "1", "-budget", "20", "-progress", "0", "-dir", run, stacks)
	phs(t, "train", "-resume", run, "-iterations", "2")
	var metrics []byte
	metrics, err = os.ReadFile(filepath.Join(run, "metrics.jsonl"))
	if err != nil || strings.Count(string(metrics), "\n") != 2 {
		t.Fatalf("metrics.jsonl after resuming to 2 iterations: %q, %v", metrics, err)
	}
	out, errOut := phs(t, "test", "-domain", "pancake", "-model", run, "-rounds", "3", "-progress", "0", stacks)
	recs, err := report.ReadJSONL(strings.NewReader(out), "stdout")
	if err != nil || len(recs) != 16 || recs[0].Algorithm != "levints" {
		t.Fatalf("test: %d records, %v\n%s", len(recs), err, errOut)
	}
}

// TestParse checks the file format: what String writes, Parse reads, and
// bad stacks are errors that name the file and the line.
func TestParse(t *testing.T) {
	ps, err := Parse(strings.NewReader("# stacks\n2 0 1\n\n3 1 0 2\n"), "s.txt")
	if err != nil || len(ps) != 2 || ps[0].String() != "2 0 1" || ps[1].String() != "3 1 0 2" {
		t.Fatalf("Parse: %v, %v", ps, err)
	}
	for _, bad := range []string{"1 1 0\n", "0 1 x\n", "0\n", "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", "# none\n"} {
		_, err := Parse(strings.NewReader(bad), "s.txt")
		if err == nil || !strings.Contains(err.Error(), "s.txt") {
			t.Errorf("Parse(%q): %v, want an error naming s.txt", bad, err)
		}
	}
}

// TestHeuristic checks that the gap heuristic is consistent and 0 at the
// goal alone, over every stack of 6 pancakes.
func TestHeuristic(t *testing.T) {
	p, _ := New([]int{0, 1, 2, 3, 4, 5})
	for s := range distances(6) {
		h := p.Heuristic(s)
		if (h == 0) != p.IsGoal(s) {
			t.Errorf("%x: h %g, goal %v", s, h, p.IsGoal(s))
		}
		for a := range p.NumActions() {
			u, _ := p.Apply(s, a)
			if h > 1+p.Heuristic(u) {
				t.Errorf("%x -> %x: h %g > 1 + %g", s, u, h, p.Heuristic(u))
			}
		}
	}
	if got := search.FormatActions(p, []int{0, 4}); got != "F2 F6" {
		t.Errorf("FormatActions = %q", got)
	}
	if !slices.Equal([]string{p.ActionName(0)}, []string{"F2"}) {
		t.Error(p.ActionName(0))
	}
}

// FuzzParse checks that Parse never panics and that what it reads, String
// writes back to the same stacks.
func FuzzParse(f *testing.F) {
	f.Add("2 0 1\n3 1 0 2\n")
	f.Add("# x\n\n0 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		ps, err := Parse(strings.NewReader(text), "f")
		if err != nil {
			return
		}
		var b strings.Builder
		for _, p := range ps {
			b.WriteString(p.String() + "\n")
		}
		again, err := Parse(strings.NewReader(b.String()), "f")
		if err != nil || len(again) != len(ps) {
			t.Fatalf("%q: %v", b.String(), err)
		}
		for i := range ps {
			if again[i].Root() != ps[i].Root() {
				t.Errorf("stack %d: %v, then %v", i, ps[i], again[i])
			}
		}
	})
}
