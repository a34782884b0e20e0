package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/report"
	"github.com/phs-go/phs/search"
)

const excerpt = "../../domain/sokoban/testdata/boxoban-test-000-first40.txt"

// optima runs sokopt on the first n levels of the excerpt and returns its
// records.
func optima(t *testing.T, n string) []optimum {
	t.Helper()
	var out, errs bytes.Buffer
	if err := run(context.Background(), []string{"-n", n, excerpt}, &out, &errs); err != nil {
		t.Fatal(err, errs.String())
	}
	var recs []optimum
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var r optimum
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestOptima(t *testing.T) {
	levels, err := sokoban.ReadFile(excerpt)
	if err != nil {
		t.Fatal(err)
	}
	recs := optima(t, "6")
	if len(recs) != 6 {
		t.Fatalf("%d records; want 6", len(recs))
	}
	for i, r := range recs {
		p := levels[i]
		if r.Problem != p.ID || r.Error != "" {
			t.Fatalf("record %d: %+v", i, r)
		}
		want, err := sokoban.Optimal(p, 1<<22)
		if err != nil {
			t.Fatal(err)
		}
		actions, err := search.ParseActions[sokoban.State](p, r.Solution)
		if err == nil {
			err = search.Replay[sokoban.State](p, actions)
		}
		if err != nil || len(actions) != r.Optimal || r.Optimal != len(want.Actions) || r.Pushes != want.Pushes {
			t.Errorf("record %d: %+v (%v); want %d moves, %d pushes", i, r, err, len(want.Actions), want.Pushes)
		}
	}
}

func TestOptimaLimit(t *testing.T) {
	var out, errs bytes.Buffer
	if err := run(context.Background(), []string{"-n", "1", "-limit", "10", excerpt}, &out, &errs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"error":"state limit reached"`) {
		t.Fatalf("output %s; want a state limit error", out.String())
	}
}

// TestOptimaNoSolution checks the record of a level without a solution:
// its box is in a corner that is no goal.
func TestOptimaNoSolution(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dead.txt")
	if err := os.WriteFile(path, []byte("; 0\n#####\n#$ .#\n#  @#\n#####\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if err := run(context.Background(), []string{path}, &out, &errs); err != nil {
		t.Fatal(err, errs.String())
	}
	if !strings.Contains(out.String(), `"error":"no solution"`) {
		t.Fatalf("output %s; want no solution", out.String())
	}
}

// TestGaps measures two results files: the optimal solutions themselves,
// and solutions one detour (a step and its way back) longer.
func TestGaps(t *testing.T) {
	levels, err := sokoban.ReadFile(excerpt)
	if err != nil {
		t.Fatal(err)
	}
	recs := optima(t, "4")
	dir := t.TempDir()
	write := func(name string, detour bool) string {
		var b bytes.Buffer
		w := report.NewJSONLWriter(&b)
		for i, r := range recs {
			sol := r.Solution
			if detour {
				sol = detourOf(t, levels[i], sol)
			}
			if err := w.Write(report.Record{Problem: r.Problem, Domain: "sokoban", Solved: true, Length: len(sol), Solution: sol}); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b.Bytes(), 0o666); err != nil {
			t.Fatal(err)
		}
		return path
	}
	opt, long := write("opt.jsonl", false), write("long.jsonl", true)
	var out, errs bytes.Buffer
	if err := run(context.Background(), []string{"-n", "4", "-o", filepath.Join(dir, "o.jsonl"), excerpt, opt, long}, &out, &errs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("output:\n%s", out.String())
	}
	for i, want := range []string{"4 4 29.50 29.50 0.00 0 4", "4 4 31.50 29.50 2.00 2 0"} {
		if got := strings.Join(strings.Fields(lines[i+1])[1:], " "); got != want {
			t.Errorf("row %q; want %q", got, want)
		}
	}

	// A solution that does not solve its level is an error.
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"problem":"boxoban-test-000-first40.txt#0","solved":true,"length":1,"solution":"U"}`+"\n"), 0o666)
	if err := run(context.Background(), []string{"-n", "1", "-o", filepath.Join(dir, "o.jsonl"), excerpt, bad}, &out, &errs); err == nil {
		t.Error("a wrong solution: no error")
	}
}

// detourOf returns sol with a step and its way back inserted where both
// are legal.
func detourOf(t *testing.T, p *sokoban.Problem, sol string) string {
	t.Helper()
	actions, err := search.ParseActions[sokoban.State](p, sol)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Root()
	for i, a := range actions {
		for b := range 4 {
			u, ok := p.Apply(s, b)
			if !ok || u.Player() == s.Player() {
				continue
			}
			if v, ok := p.Apply(u, b^1); ok && v == s {
				return sol[:i] + "UDLR"[b:b+1] + "UDLR"[b^1:b^1+1] + sol[i:]
			}
		}
		s, _ = p.Apply(s, a)
	}
	t.Fatalf("%s: no detour", p.ID)
	return ""
}
