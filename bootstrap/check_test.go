package bootstrap

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// TestTrainRejects checks that Train refuses, before any search, the
// configurations out of range, a model without a head the algorithm reads
// and problems the model cannot evaluate.
func TestTrainRejects(t *testing.T) {
	tasks := mazes(4, 5)
	for _, tc := range []struct {
		name string
		edit func(*setup)
		msg  string
	}{
		{"no budget", func(s *setup) { s.cfg.Options.Budget = 0 }, "budget 0"},
		{"negative growth", func(s *setup) { s.cfg.Schedule = Double(-1) }, "growth -1"},
		{"shrinking growth", func(s *setup) { s.cfg.Schedule = Double(0.5) }, "growth 0.5"},
		{"infinite growth", func(s *setup) { s.cfg.Schedule = Double(math.Inf(1)) }, "growth +Inf"},
		{"negative factor", func(s *setup) { s.cfg.Schedule = LTSCM(-0.1) }, "factor -0.1"},
		{"NaN alpha", func(s *setup) { s.cfg.Schedule = LTSCMRef(math.NaN(), 8, 1.25) }, "α NaN"},
		{"schedule kind", func(s *setup) { s.cfg.Schedule = Schedule{kind: numScheduleKinds} }, "bad schedule"},
		{"ltscm skipping", func(s *setup) { s.cfg.Schedule, s.cfg.SkipSolvedAfter = LTSCM(0.1), 2 }, "skip solved after 0, not 2"},
		{"ltscm-ref skipping", func(s *setup) { s.cfg.Schedule, s.cfg.SkipSolvedAfter = LTSCMRef(2, 8, 1.25), 1 }, "schedule ltscm-ref:2,8,1.25 counts"},
		{"negative update", func(s *setup) { s.cfg.ProblemsPerUpdate = -1 }, "problems per update"},
		{"negative iterations", func(s *setup) { s.cfg.MaxIterations = -1 }, "max iterations"},
		{"negative workers", func(s *setup) { s.env.Workers = -1 }, "workers -1"},
		{"pool without async", func(s *setup) { s.env.Pool = &localWorkers[int32]{} }, "a pool without Async"},
		{"no dir", func(s *setup) { s.dir = "" }, "no run directory"},
		{"bad batch", func(s *setup) { s.cfg.Options.BatchSize = -3 }, "batch size"},
		{"bad weight", func(s *setup) { s.cfg.Algorithm = search.WAStar(-1) }, "weight"},
		{"policy for A*'s network", func(s *setup) { s.cfg.Algorithm = search.PHSStar() }, "reads a policy output"},
	} {
		s := newSetup(t, "astar")
		tc.edit(s)
		if _, _, err := s.train(t, context.Background(), tasks); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.msg)
		}
		if entries, _ := os.ReadDir(s.dir); len(entries) > 0 {
			t.Errorf("%s: the run directory holds %d entries", tc.name, len(entries))
		}
	}
	// A maze of another size than the network's, at the end of the set.
	s := newSetup(t, "astar")
	bad := append(mazes(3, 6), search.Task[int32]{ID: "big#0", Problem: searchtest.ParseMaze("S......", ".......", ".......", ".......", ".......", ".......", "......G")})
	if _, _, err := s.train(t, context.Background(), bad); err == nil || !strings.HasPrefix(err.Error(), "bootstrap: big#0: ") {
		t.Errorf("a maze of another size: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.dir, checkpointDir)); err == nil {
		t.Error("a checkpoint was written")
	}
}

// TestResumeBadState checks that a checkpoint whose state.json is out of
// range is reported with the file and the field, not a panic.
func TestResumeBadState(t *testing.T) {
	tasks := mazes(8, 7)
	s := newSetup(t, "levints")
	s.cfg.MaxIterations = 1
	if _, _, err := s.train(t, context.Background(), tasks); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(s.dir, checkpointDir, stateFile)
	good, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	s.env.Limits = &Limits{MaxIterations: 2}
	for _, tc := range []struct {
		field string
		value any
		msg   string
	}{
		{"next", -5, "next -5"},
		{"next", 9, "next 9"},
		{"iteration", 0, "iteration 0"},
		{"iteration", 3, "iteration 3 after 1 finished iterations; want 2"},
		{"metrics", []any{}, "iteration 2 after 0 finished iterations"},
		{"metrics", []map[string]any{{"iteration": 2, "budget": 8}}, "metrics: entry 1 is of iteration 2"},
		{"metrics", []map[string]any{{"iteration": 1, "budget": 8, "expansions": 5, "total_expansions": 9}}, "total expansions 9; the iterations sum to 5"},
		{"metrics", []map[string]any{{"iteration": 1, "budget": 8, "attempted": 2, "solved": 3}}, "iteration 1: counts out of range"},
		{"metrics", []map[string]any{{"iteration": 1, "budget": 8, "expansions": 5, "solved_expansions": 6, "total_expansions": 5}}, "iteration 1: counts out of range"},
		{"metrics", []map[string]any{{"iteration": 1, "budget": 8, "solved_expansions": -1}}, "iteration 1: counts out of range"},
		{"current", map[string]any{"expansions": 5, "solved_expansions": 6}, "current: 6 expansions of solved problems, of 5"},
		{"current", map[string]any{"solved_expansions": -1}, "current: -1 expansions"},
		{"budget", 0, "budget 0"},
		{"valid_solved", "AAA=", "valid_solved has 2 entries for 0 validation problems"},
		{"valid_reached", 3, "valid_reached 3 after 1 finished iterations"},
		{"metrics", []map[string]any{{"iteration": 1, "budget": 8, "valid_total_solved": 1}}, "iteration 1: counts out of range"},
		{"config", map[string]any{"algorithm": "levints", "options": map[string]any{"budget": 8}, "validation": map[string]any{"problems": 8, "target": 0.5}}, "8 validation problems of 8"},
		{"config", map[string]any{"algorithm": "levints", "options": map[string]any{"budget": 8}, "validation": map[string]any{"problems": 2, "target": 2}}, "validation target 2"},
		{"solved_now", "AAA=", "solved_now has 2 entries"},
		{"problems", 7, "7 problems"},
		{"bogus", 1, "unknown field"},
		{"rng", "AAA=", "a checkpoint of an earlier phs"},
		{"config", map[string]any{"algorithm": "wastar:-1", "options": map[string]any{"budget": 8}}, "weight -1"},
		{"config", map[string]any{"algorithm": "levints"}, "config: budget 0"},
		{"config", nil, "config: budget 0"},
		{"config", map[string]any{"algorithm": "levints", "options": map[string]any{"budget": 8}, "schedule": "ltscm:-1"}, "factor -1"},
		{"config", map[string]any{"algorithm": "levints", "options": map[string]any{"budget": 8}, "schedule": "triple"}, `unknown schedule "triple"`},
		{"config", map[string]any{"algorithm": "levints", "options": map[string]any{"budget": 8}, "budget_growth": 0.5}, "growth 0.5"},
		{"config", map[string]any{"algorithm": "levints", "options": map[string]any{"budget": 8}, "budget_growth": 1.5, "schedule": "double:2"}, "both a schedule"},
		{"config", map[string]any{"algorithm": "levints", "options": map[string]any{"budget": 8}, "bogus": 1}, `unknown field "bogus"`},
	} {
		var st map[string]any
		if err := json.Unmarshal(good, &st); err != nil {
			t.Fatal(err)
		}
		st[tc.field] = tc.value
		b, _ := json.Marshal(st)
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := s.resume(context.Background(), tasks)
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s = %v: err = %v, want %s and %q", tc.field, tc.value, err, name, tc.msg)
		}
	}
}

// TestRunDirectory checks the life of a run directory: a run interrupted
// before its first update can be resumed; two runs cannot share a
// directory; a resume checks the algorithm and the problems; a directory
// that cannot be written is an error before any search.
func TestRunDirectory(t *testing.T) {
	tasks := mazes(8, 8)
	s := newSetup(t, "levints")
	s.cfg.MaxIterations = 1
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := s.train(t, ctx, tasks); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before the first update: %v", err)
	}
	m, metrics, err := s.resume(context.Background(), tasks)
	if err != nil || len(metrics) != 1 || m == nil {
		t.Fatalf("resume of a run cancelled before its first update: %d iterations, %v", len(metrics), err)
	}
	// The checkpoint holds the configuration whole.
	if got, err := ReadConfig(s.dir); err != nil || !reflect.DeepEqual(got, withDefaults(t, s.cfg)) {
		t.Errorf("ReadConfig = %+v, %v; want %+v", got, err, s.cfg)
	}

	unlock, err := lockRun(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	s.env.Limits = &Limits{MaxIterations: 2}
	if _, _, err := s.resume(context.Background(), tasks); !errors.Is(err, ErrLocked) {
		t.Errorf("resume of a locked run: %v, want ErrLocked", err)
	}
	other := newSetup(t, "levints")
	other.dir = s.dir
	if _, _, err := other.train(t, context.Background(), tasks); !errors.Is(err, ErrLocked) {
		t.Errorf("train in a locked directory: %v, want ErrLocked", err)
	}
	unlock()

	if _, _, err := s.resume(context.Background(), mazes(8, 9)); err == nil || !strings.Contains(err.Error(), "other problems") {
		t.Errorf("resume with other problems: %v", err)
	}
	// Raised limits go on, and are saved.
	if _, metrics, err := s.resume(context.Background(), tasks); err != nil || len(metrics) != 2 {
		t.Errorf("resume with 2 iterations: %d iterations, %v", len(metrics), err)
	}
	if got, err := ReadConfig(s.dir); err != nil || got.MaxIterations != 2 {
		t.Errorf("the checkpoint's limit after a resumption that raised it: %d, %v", got.MaxIterations, err)
	}

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := newSetup(t, "levints")
	bad.dir = filepath.Join(file, "run")
	if _, _, err := bad.train(t, context.Background(), tasks); err == nil {
		t.Error("a run directory below a file: no error")
	}
}

// withDefaults returns cfg with its defaults filled in.
func withDefaults(t *testing.T, cfg Config) Config {
	t.Helper()
	if err := cfg.check(); err != nil {
		t.Fatal(err)
	}
	return cfg
}
