package main

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

const levels = "../../../domain/sokoban/testdata/boxoban-test-000-first40.txt"

// TestRun trains a small fresh network (-model new) on the optimal
// solutions of 4 levels (sokoban.Optimal) for 50 epochs: its policy then
// gives their moves a higher mean log-probability than at the start.
// -symmetries 8 learns 8 times as many solutions. Bad records and flags
// are errors.
func TestRun(t *testing.T) {
	ps, err := sokoban.ReadFile(levels)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var lines []string
	var sols [][]int
	for i, p := range ps[:5] {
		if i == 2 {
			lines = append(lines, `{"problem":"`+p.ID+`","error":"state limit reached"}`)
			continue
		}
		r, err := sokoban.Optimal(p, 1e6)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(map[string]string{"problem": p.ID, "solution": search.FormatActions(p, r.Actions)})
		lines, sols = append(lines, string(b)), append(sols, r.Actions)
	}
	optima := write(t, dir, "optima.jsonl", strings.Join(lines, "\n")+"\n")

	// The network of -model new -filters 4 -hidden 8.
	cfg := model.ConfigFor[sokoban.State]("sokoban", search.PHSStar(), ps[0])
	cfg.Filters, cfg.Hidden, cfg.PruneDeadlocks = 4, 8, true
	m, err := model.New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	start := filepath.Join(dir, "start")
	if err := model.Save(start, m); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if err := run(context.Background(), []string{"-model", "new", "-filters", "4", "-hidden", "8", "-out", out, "-epochs", "50", "-lr", "3e-3", levels, optima}, io.Discard); err != nil {
		t.Fatal(err)
	}
	trained, err := model.Load(filepath.Join(out, "epoch-50"))
	if err != nil {
		t.Fatal(err)
	}
	before, after := meanLogPi(t, m, ps, sols), meanLogPi(t, trained, ps, sols)
	t.Logf("mean log π of the optimal moves: %.3f before, %.3f after", before, after)
	if !(after > before+0.1) {
		t.Errorf("mean log π of the optimal moves %.3f before, %.3f after training", before, after)
	}

	// -symmetries 8 learns each of the 4 solutions 8 times.
	var log strings.Builder
	if err := run(context.Background(), []string{"-model", start, "-out", out, "-symmetries", "8", levels, optima}, &log); err != nil {
		t.Fatal(err)
	}
	if want := "imitate: 32 examples (4 solutions and 0 dead ends, each under 8 symmetries; 1 records skipped)"; !strings.Contains(log.String(), want) {
		t.Errorf("-symmetries 8: log\n%s\nwant %q", log.String(), want)
	}

	// -dead 100: a level without a solution, its box in a corner, is
	// learnt as a dead end: the heuristic of its start rises towards 100,
	// that of the levels with a solution not. Without -dead it is skipped.
	dead := write(t, dir, "dead.txt", "; 0\n##########\n#$       #\n#        #\n#   .    #\n#        #\n#    @   #\n#        #\n#        #\n#        #\n##########\n")
	deadOpt := write(t, dir, "dead.jsonl", `{"problem":"dead.txt#0","error":"no solution"}`+"\n")
	log.Reset()
	if err := run(context.Background(), []string{"-model", start, "-out", out, "-symmetries", "8", levels, optima, dead, deadOpt}, &log); err != nil {
		t.Fatal(err)
	}
	if want := "imitate: 32 examples (4 solutions and 0 dead ends, each under 8 symmetries; 2 records skipped)"; !strings.Contains(log.String(), want) {
		t.Errorf("without -dead: log\n%s\nwant %q", log.String(), want)
	}
	log.Reset()
	if err := run(context.Background(), []string{"-model", start, "-out", out, "-dead", "100", "-epochs", "20", "-lr", "3e-3", "-symmetries", "8", levels, optima, dead, deadOpt}, &log); err != nil {
		t.Fatal(err)
	}
	if want := "imitate: 40 examples (4 solutions and 1 dead ends, each under 8 symmetries; 1 records skipped)"; !strings.Contains(log.String(), want) {
		t.Errorf("-dead 100: log\n%s\nwant %q", log.String(), want)
	}
	trained, err = model.Load(filepath.Join(out, "epoch-20"))
	if err != nil {
		t.Fatal(err)
	}
	dps, err := sokoban.ReadFile(dead)
	if err != nil {
		t.Fatal(err)
	}
	hBefore, hAfter := heuristic(t, m, dps[0]), heuristic(t, trained, dps[0])
	live := heuristic(t, trained, ps[0])
	t.Logf("h of the dead end: %.1f before, %.1f after; of a level with a solution %.1f", hBefore, hAfter, live)
	if !(hAfter > hBefore+50) || !(live < hAfter-50) {
		t.Errorf("h of the dead end: %.1f before, %.1f after; of a level with a solution %.1f; want the dead end near 100 and the level far below", hBefore, hAfter, live)
	}

	bad := write(t, dir, "bad.jsonl", `{"problem":"`+ps[0].ID+`","solution":"UUUU"}`+"\n")
	letter := write(t, dir, "letter.jsonl", `{"problem":"`+ps[0].ID+`","solution":"UZ"}`+"\n")
	unknown := write(t, dir, "unknown.jsonl", `{"problem":"x.txt#1","solution":"U"}`+"\n")
	for _, args := range [][]string{
		{"-out", out, levels, optima},
		{"-model", start, "-out", out, "-lr", "0", levels, optima},
		{"-model", start, "-out", out, "-epochs", "0", levels, optima},
		{"-model", start, "-out", out, levels},
		{"-model", start, "-out", out, levels, bad},
		{"-model", start, "-out", out, levels, letter},
		{"-model", start, "-out", out, levels, unknown},
		{"-model", filepath.Join(dir, "none"), "-out", out, levels, optima},
		{"-model", start, "-filters", "4", "-out", out, levels, optima},
		{"-model", "new", "-filters", "100000", "-out", out, levels, optima},
		{"-model", start, "-out", out, "-symmetries", "0", levels, optima},
		{"-model", start, "-out", out, "-symmetries", "9", levels, optima},
		{"-model", start, "-out", out, "-dead", "-1", levels, optima},
	} {
		if err := run(context.Background(), args, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	f := filepath.Join(dir, name)
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// heuristic returns m's heuristic of the start of level p.
func heuristic(t *testing.T, m *model.Model, p *sokoban.Problem) float64 {
	t.Helper()
	logPi, h := make([]float64, 4), make([]float64, 1)
	if err := model.NewEvaluator[sokoban.State](m).Evaluate(p, []sokoban.State{p.Root()}, logPi, h); err != nil {
		t.Fatal(err)
	}
	return h[0]
}

// meanLogPi returns the mean log-probability that m's policy gives the
// moves of the solutions sols of the levels without an error, in order.
func meanLogPi(t *testing.T, m *model.Model, ps []*sokoban.Problem, sols [][]int) float64 {
	t.Helper()
	ev := model.NewEvaluator[sokoban.State](m)
	var sum float64
	n := 0
	k := 0
	for i, p := range ps[:5] {
		if i == 2 {
			continue
		}
		s := p.Root()
		for _, a := range sols[k] {
			logPi, h := make([]float64, 4), make([]float64, 1)
			if err := ev.Evaluate(p, []sokoban.State{s}, logPi, h); err != nil {
				t.Fatal(err)
			}
			sum += logPi[a]
			n++
			s, _ = p.Apply(s, a)
		}
		k++
	}
	return sum / math.Max(float64(n), 1)
}
