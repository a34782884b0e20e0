package bootstrap

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
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
		edit func(*Config)
		msg  string
	}{
		{"no budget", func(c *Config) { c.Budget = 0 }, "budget 0"},
		{"options budget", func(c *Config) { c.Options.Budget = 5 }, "Options.Budget"},
		{"negative growth", func(c *Config) { c.BudgetGrowth = -1 }, "budget growth -1"},
		{"shrinking growth", func(c *Config) { c.BudgetGrowth = 0.5 }, "budget growth 0.5"},
		{"infinite growth", func(c *Config) { c.BudgetGrowth = math.Inf(1) }, "budget growth"},
		{"negative update", func(c *Config) { c.ProblemsPerUpdate = -1 }, "problems per update"},
		{"negative passes", func(c *Config) { c.Passes = -1 }, "passes"},
		{"negative lr", func(c *Config) { c.LearningRate = -1 }, "learning rate"},
		{"NaN lr", func(c *Config) { c.LearningRate = math.NaN() }, "learning rate"},
		{"negative iterations", func(c *Config) { c.MaxIterations = -1 }, "max iterations"},
		{"no dir", func(c *Config) { c.Dir = "" }, "no run directory"},
		{"bad batch", func(c *Config) { c.Options.BatchSize = -3 }, "batch size"},
		{"bad weight", func(c *Config) { c.Algorithm = search.WAStar(-1) }, "weight"},
		{"policy for A*'s network", func(c *Config) { c.Algorithm = search.PHSStar() }, "reads a policy output"},
	} {
		cfg := trainConfig(t, "astar")
		tc.edit(&cfg)
		if _, err := Train(context.Background(), tasks, newModel(t, "astar"), cfg); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.msg)
		}
		if entries, _ := os.ReadDir(cfg.Dir); len(entries) > 0 {
			t.Errorf("%s: the run directory holds %d entries", tc.name, len(entries))
		}
	}
	// A maze of another size than the network's, at the end of the set.
	cfg := trainConfig(t, "astar")
	bad := append(mazes(3, 6), search.Task[int32]{ID: "big#0", Problem: searchtest.ParseMaze("S......", ".......", ".......", ".......", ".......", ".......", "......G")})
	if _, err := Train(context.Background(), bad, newModel(t, "astar"), cfg); err == nil || !strings.HasPrefix(err.Error(), "bootstrap: big#0: ") {
		t.Errorf("a maze of another size: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.Dir, checkpointDir)); err == nil {
		t.Error("a checkpoint was written")
	}
}

// TestResumeBadState checks that a checkpoint whose state.json is out of
// range is reported with the file and the field, not a panic.
func TestResumeBadState(t *testing.T) {
	tasks := mazes(8, 7)
	cfg := trainConfig(t, "levints")
	cfg.MaxIterations = 1
	if _, err := Train(context.Background(), tasks, newModel(t, "levints"), cfg); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(cfg.Dir, checkpointDir, stateFile)
	good, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxIterations = 2
	for _, tc := range []struct {
		field string
		value any
		msg   string
	}{
		{"next", -5, "next -5"},
		{"next", 9, "next 9"},
		{"iteration", 0, "iteration 0"},
		{"budget", 0, "budget 0"},
		{"solved_now", "AAA=", "solved_now has 2 entries"},
		{"problems", 7, "7 problems"},
		{"bogus", 1, "unknown field"},
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
		_, _, err := Resume(context.Background(), tasks, cfg)
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
	cfg := trainConfig(t, "levints")
	cfg.MaxIterations = 1
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Train(ctx, tasks, newModel(t, "levints"), cfg); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before the first update: %v", err)
	}
	m, metrics, err := Resume(context.Background(), tasks, cfg)
	if err != nil || len(metrics) != 1 || m == nil {
		t.Fatalf("resume of a run cancelled before its first update: %d iterations, %v", len(metrics), err)
	}

	unlock, err := lockRun(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxIterations = 2
	if _, _, err := Resume(context.Background(), tasks, cfg); !errors.Is(err, ErrLocked) {
		t.Errorf("resume of a locked run: %v, want ErrLocked", err)
	}
	other := trainConfig(t, "levints")
	other.Dir = cfg.Dir
	if _, err := Train(context.Background(), tasks, newModel(t, "levints"), other); !errors.Is(err, ErrLocked) {
		t.Errorf("train in a locked directory: %v, want ErrLocked", err)
	}
	unlock()

	if _, _, err := Resume(context.Background(), mazes(8, 9), cfg); err == nil || !strings.Contains(err.Error(), "other problems") {
		t.Errorf("resume with other problems: %v", err)
	}
	astar := cfg
	astar.Algorithm = search.AStar()
	if _, _, err := Resume(context.Background(), tasks, astar); err == nil || !strings.Contains(err.Error(), "made for levints, not astar") {
		t.Errorf("resume with another algorithm: %v", err)
	}

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := trainConfig(t, "levints")
	bad.Dir = filepath.Join(file, "run")
	if _, err := Train(context.Background(), tasks, newModel(t, "levints"), bad); err == nil {
		t.Error("a run directory below a file: no error")
	}
}
