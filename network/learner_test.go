package network_test

import (
	"math"
	"strings"
	"testing"

	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/network"
	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// TestNewLearnerRejects checks that NewLearner and LearnerConfig.Validate
// refuse settings out of range, naming them.
func TestNewLearnerRejects(t *testing.T) {
	cfg := model.ConfigFor[int32]("maze", search.AStar(), searchtest.ParseMaze("S.....", "......", "......", "......", "......", ".....G"))
	cfg.Filters, cfg.Hidden = 8, 16
	m, err := model.New(cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		cfg     network.LearnerConfig
		threads int
		msg     string
	}{
		{"negative passes", network.LearnerConfig{Passes: -1}, 0, "passes"},
		{"negative trajectories per step", network.LearnerConfig{StepTrajectories: -1}, 0, "trajectories per step"},
		{"negative lr", network.LearnerConfig{LearningRate: -1}, 0, "learning rate"},
		{"NaN lr", network.LearnerConfig{LearningRate: math.NaN()}, 0, "learning rate"},
		{"infinite L2", network.LearnerConfig{L2: math.Inf(1)}, 0, "L2"},
		{"threads", network.LearnerConfig{}, -1, "threads"},
		{"too many threads", network.LearnerConfig{}, model.MaxThreads + 1, "threads"},
	} {
		if _, err := network.NewLearner[int32](m, tc.cfg, tc.threads); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.msg)
		}
		if tc.threads == 0 {
			if err := tc.cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%s: Validate: %v, want %q", tc.name, err, tc.msg)
			}
		}
	}
	if _, err := network.NewLearner[int32](m, network.LearnerConfig{}, 0); err != nil {
		t.Errorf("the defaults: %v", err)
	}
}
