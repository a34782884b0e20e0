package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// room is a level small enough to enumerate every state reachable from
// its start.
const room = `; 1
#######
#     #
# $$  #
#  .. #
#   @ #
#######
`

// reachable returns every state reachable from p's start.
func reachable(p *sokoban.Problem) map[sokoban.State]bool {
	seen := map[sokoban.State]bool{p.Root(): true}
	queue := []sokoban.State{p.Root()}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for a := range p.NumActions() {
			if c, ok := p.Apply(s, a); ok && !seen[c] {
				seen[c] = true
				queue = append(queue, c)
			}
		}
	}
	return seen
}

// TestOffPath searches a small level with a fresh network and checks the
// states offpath draws against an enumeration of the level's states and
// against the path of the same search: each is reachable, none is on the
// path, none twice; and the levels written to the file are those states,
// labelled after their level.
func TestOffPath(t *testing.T) {
	dir := t.TempDir()
	levels := filepath.Join(dir, "room.txt")
	if err := os.WriteFile(levels, []byte(room), 0o644); err != nil {
		t.Fatal(err)
	}
	ps, err := sokoban.ReadFile(levels)
	if err != nil {
		t.Fatal(err)
	}
	p := ps[0]
	cfg := model.ConfigFor[sokoban.State]("sokoban", search.PHSStar(), p)
	cfg.Filters, cfg.Hidden, cfg.PruneDeadlocks = 4, 8, true
	m, err := model.New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	mdir := filepath.Join(dir, "model")
	if err := model.Save(mdir, m); err != nil {
		t.Fatal(err)
	}
	solver, err := search.NewSolver(search.PHSStar(), search.Evaluator[sokoban.State](model.NewEvaluator[sokoban.State](m)), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	off, n, err := offPath(context.Background(), solver, p, true)
	if err != nil {
		t.Fatal(err)
	}
	res, err := solver.Solve(context.Background(), p.PruneDeadlocks())
	if err != nil || !res.Solved {
		t.Fatalf("search: %v, solved %v", err, res.Solved)
	}
	all := reachable(p)
	onPath := map[sokoban.State]bool{}
	for _, s := range res.Trajectory.States {
		onPath[s] = true
	}
	seen := map[sokoban.State]bool{}
	for _, s := range off {
		switch {
		case !all[s]:
			t.Errorf("state not reachable:\n%s", p.Render(s))
		case onPath[s]:
			t.Errorf("state on the path:\n%s", p.Render(s))
		case seen[s]:
			t.Errorf("state twice:\n%s", p.Render(s))
		}
		seen[s] = true
	}
	t.Logf("%d expansions, %d states off the path of %d moves, %d states in all", n, len(off), len(res.Actions), len(all))
	if len(off) == 0 || int64(len(off)+len(onPath)) < n/2 {
		t.Fatalf("%d states off the path, %d on it, of %d expansions", len(off), len(onPath), n)
	}

	out := filepath.Join(dir, "off.txt")
	if err := run(context.Background(), []string{"-model", mdir, "-per", "3", "-o", out, levels}, io.Discard); err != nil {
		t.Fatal(err)
	}
	got, err := sokoban.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != min(3, len(off)) {
		t.Fatalf("%d levels written; want %d", len(got), min(3, len(off)))
	}
	renders := map[string]bool{}
	for _, s := range off {
		renders[p.Render(s)] = true
	}
	for i, q := range got {
		if want := "off.txt#room-1-" + string(rune('1'+i)); q.ID != want {
			t.Errorf("level %d: ID %q; want %q", i, q.ID, want)
		}
		if !renders[q.Render(q.Root())] {
			t.Errorf("level %s is no state off the path:\n%s", q.ID, q.Render(q.Root()))
		}
	}

	// An interrupted run leaves no file.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stopped := filepath.Join(dir, "stopped.txt")
	if err := run(ctx, []string{"-model", mdir, "-o", stopped, levels}, io.Discard); err == nil {
		t.Error("an interrupted run: no error")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("after an interrupted run, %d files in %s; want room.txt, off.txt, model/ and nothing else", len(entries), dir)
	}

	for _, args := range [][]string{
		{"-o", out, levels},
		{"-model", mdir, levels},
		{"-model", mdir, "-o", out},
		{"-model", mdir, "-o", out, "-per", "0", levels},
		{"-model", mdir, "-o", out, "-temperature", "-1", levels},
		{"-model", mdir, "-o", out, "-budget", "-1", levels},
		{"-model", filepath.Join(dir, "none"), "-o", out, levels},
		{"-model", mdir, "-o", out, filepath.Join(dir, "none.txt")},
	} {
		if err := run(context.Background(), args, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
