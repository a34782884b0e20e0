package bootstrap

import (
	"context"
	"math"
	"testing"

	"github.com/phs-go/phs/model"
)

// TestTrainSqrtLTS trains √LTS's networks on tiny mazes through Train:
// the policy with the Levin loss, and with a rerooter that reads h (lh)
// the heuristic head too, with the squared error; the training solves
// mazes and both losses are finite and positive.
func TestTrainSqrtLTS(t *testing.T) {
	for _, tc := range []struct {
		alg   string
		heads model.Heads
	}{{"sqrtlts:lh:1", model.Policy | model.Heuristic}, {"sqrtlts:l", model.Policy}, {"sqrtlts:h:10:levin", model.Policy | model.Heuristic}} {
		s := newSetup(t, tc.alg)
		s.cfg.Options.Budget = 100
		s.cfg.Limits.MaxIterations = 2
		m, ms, err := s.train(t, context.Background(), mazes(16, 5))
		if err != nil {
			t.Fatalf("%s: %v", tc.alg, err)
		}
		c := m.Config()
		if c.Heads != tc.heads || c.PolicyLoss != model.Levin || c.Algorithm.String() != parse(t, tc.alg).String() {
			t.Errorf("%s: model heads %v, policy loss %v, algorithm %v", tc.alg, c.Heads, c.PolicyLoss, c.Algorithm)
		}
		solved, updates, hloss, ploss := 0, 0, 0.0, 0.0
		for _, it := range ms {
			solved += it.Solved
			updates += it.Updates
			hloss += it.HeuristicLoss
			ploss += it.PolicyLoss
		}
		if solved == 0 || updates == 0 || !(ploss > 0) || math.IsInf(ploss, 0) {
			t.Errorf("%s: %d solved, %d updates, policy loss %g", tc.alg, solved, updates, ploss)
		}
		if h := tc.heads&model.Heuristic != 0; h != (hloss > 0) || math.IsInf(hloss, 0) || math.IsNaN(hloss) {
			t.Errorf("%s: heuristic loss %g with heads %v", tc.alg, hloss, c.Heads)
		}
	}
}
