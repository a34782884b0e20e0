package model

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/search"
)

func tinyConfig(alg string) Config {
	heads, _ := HeadsFor(alg)
	return Config{Domain: "stp", Algorithm: alg, Heads: heads, Channels: 9, Height: 3, Width: 3,
		Actions: 4, Filters: 3, Hidden: 5}
}

// samples returns trajectories of random 3x3 puzzles solved by A*.
func samples(t testing.TB, n int, seed uint64) []Sample {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var ss []Sample
	for len(ss) < n {
		p := stp.GenerateWalk(rng, 3, 3, 3, 12)
		res, err := search.BestFirst[stp.State](context.Background(), p, search.DomainHeuristic[stp.State]{}, search.AStar(), search.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Actions) == 0 {
			continue
		}
		tr := res.Trajectory
		s := Sample{Inputs: make([]float32, len(tr.States)*81), Actions: tr.Actions,
			CostToGo: make([]float32, len(tr.States)), Expansions: res.Expansions}
		for i, st := range tr.States {
			p.Encode(st, s.Inputs[i*81:(i+1)*81])
			s.CostToGo[i] = float32(tr.CostToGo(i))
		}
		ss = append(ss, s)
	}
	return ss
}

// TestLossGradients checks the gradients of every loss, through the whole
// network, against finite differences.
func TestLossGradients(t *testing.T) {
	s := samples(t, 1, 1)[0]
	s.Expansions = 3 // keeps the loss small for float32 differences
	rng := rand.New(rand.NewPCG(2, 2))
	for _, alg := range []string{"levints", "astar", "phsh", "puct"} {
		m, err := New(tinyConfig(alg), 3)
		if err != nil {
			t.Fatal(err)
		}
		// Positive biases keep the ReLUs away from their kink, where
		// finite differences are wrong (the nn tests check both sides).
		for _, p := range m.Params() {
			if !p.Decay {
				for i := range p.Data {
					p.Data[i] = float32(1 + rng.Float64())
				}
			}
		}
		tr := NewTrainer(m, TrainConfig{})
		loss := func() float64 {
			l, err := tr.gradients(s)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range m.Params() {
				p.ZeroGrad()
			}
			return l.Policy + l.Heuristic
		}
		for _, p := range m.Params() {
			p.ZeroGrad()
		}
		if _, err := tr.gradients(s); err != nil {
			t.Fatal(err)
		}
		grads := map[string][]float32{}
		for _, p := range m.Params() {
			grads[p.Name] = append([]float32(nil), p.Grad...)
			p.ZeroGrad()
		}
		nonzero := false
		for _, p := range m.Params() {
			for range 6 {
				i := rng.IntN(len(p.Data))
				old := p.Data[i]
				const eps = 2e-3
				p.Data[i] = old + eps
				lp := loss()
				p.Data[i] = old - eps
				lm := loss()
				p.Data[i] = old
				num := (lp - lm) / (2 * eps)
				g := float64(grads[p.Name][i])
				if math.Abs(num-g) > 2e-2*math.Max(1, math.Abs(num)) {
					t.Errorf("%s %s[%d]: analytic %g, numeric %g", alg, p.Name, i, g, num)
				}
				nonzero = nonzero || g != 0
			}
		}
		if !nonzero {
			t.Errorf("%s: all sampled gradients are zero", alg)
		}
	}
}

// TestLearnsHeuristic trains a heuristic network to predict the distance
// to the goal of 3x3 puzzles.
func TestLearnsHeuristic(t *testing.T) {
	ss := samples(t, 60, 4)
	cfg := tinyConfig("astar")
	cfg.Filters, cfg.Hidden = 16, 32
	m, _ := New(cfg, 5)
	tr := NewTrainer(m, TrainConfig{LearningRate: 3e-3})
	mse := func() float64 {
		var sum float64
		for _, s := range ss {
			l, _ := tr.gradients(s)
			sum += l.Heuristic
		}
		for _, p := range m.Params() {
			p.ZeroGrad()
		}
		return sum / float64(len(ss))
	}
	before := mse()
	for range 40 {
		for _, s := range ss {
			if _, err := tr.Step(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	after := mse()
	if after > 0.5 || after > before/10 {
		t.Errorf("MSE %g before training, %g after; want below 0.5", before, after)
	}
}

// TestLearnsPolicy trains a policy with the Levin loss on A*'s solutions
// and checks that it then predicts their actions.
func TestLearnsPolicy(t *testing.T) {
	ss := samples(t, 40, 6)
	cfg := tinyConfig("levints")
	cfg.Filters, cfg.Hidden = 16, 32
	m, _ := New(cfg, 7)
	tr := NewTrainer(m, TrainConfig{LearningRate: 1e-3})
	for range 30 {
		for _, s := range ss {
			if _, err := tr.Step(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	ev := NewEvaluator[stp.State](m)
	_ = ev
	var nll float64
	steps := 0
	for _, s := range ss {
		l, _ := tr.gradients(Sample{Inputs: s.Inputs, Actions: s.Actions, CostToGo: s.CostToGo, Expansions: 1})
		nll += l.Policy * float64(len(s.Actions))
		steps += len(s.Actions)
	}
	for _, p := range m.Params() {
		p.ZeroGrad()
	}
	if mean := nll / float64(steps); mean > 0.5 {
		t.Errorf("mean −log pi of the solutions' actions %g after training; want below 0.5 (uniform: %.2f)", mean, math.Log(4))
	}
}

func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	m, _ := New(tinyConfig("phsh"), 9)
	ss := samples(t, 3, 10)
	tr := NewTrainer(m, TrainConfig{})
	tr.Step(ss[0])
	if err := tr.Save(dir); err != nil {
		t.Fatal(err)
	}
	tr2, err := LoadTrainer(dir, TrainConfig{})
	if err != nil {
		t.Fatal(err)
	}
	// The same steps from the loaded trainer give the same weights.
	for _, s := range ss[1:] {
		tr.Step(s)
		tr2.Step(s)
	}
	for i, p := range m.Params() {
		if !equal(p.Data, tr2.Model().Params()[i].Data) {
			t.Fatalf("%s differs after resuming", p.Name)
		}
	}
	if tr2.Steps() != 3 {
		t.Errorf("%d steps", tr2.Steps())
	}
	m3, err := LoadFS(os.DirFS(filepath.Dir(dir)), filepath.Base(dir))
	if err != nil {
		t.Fatal(err)
	}
	if m3.Config().Heads != Both || m3.Config().Algorithm != "phsh" {
		t.Errorf("config %+v", m3.Config())
	}
	if err := m3.Check("stp", 9, 3, 3); err != nil {
		t.Error(err)
	}
	for _, tc := range []struct {
		domain  string
		c, h, w int
		msg     string
	}{{"sokoban", 9, 3, 3, "for the stp domain"}, {"stp", 16, 4, 4, "takes inputs of 9x3x3"}} {
		if err := m3.Check(tc.domain, tc.c, tc.h, tc.w); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Check(%s %dx%dx%d) = %v", tc.domain, tc.c, tc.h, tc.w, err)
		}
	}
	// A weights file of another shape is an error.
	other, _ := New(Config{Domain: "stp", Algorithm: "phsh", Heads: Both, Channels: 9, Height: 3, Width: 3, Actions: 4, Filters: 4, Hidden: 5}, 1)
	odir := t.TempDir()
	if err := Save(odir, other); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(odir, WeightsFile))
	os.WriteFile(filepath.Join(dir, WeightsFile), b, 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "shape") {
		t.Errorf("loading mismatched weights: %v", err)
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("loading an empty directory: no error")
	}
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestEvaluator(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	ps := []*stp.Problem{stp.GenerateRandom(rng, 3, 3), stp.GenerateRandom(rng, 3, 3)}
	for _, alg := range []string{"levints", "astar", "phsh"} {
		m, _ := New(tinyConfig(alg), 12)
		ev := NewEvaluator[stp.State](m)
		states := []stp.State{ps[0].Root(), ps[1].Root()}
		logPi, h := make([]float64, 8), make([]float64, 2)
		if err := ev.Evaluate(ps[0], states, logPi, h); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			var s float64
			for a := range 4 {
				s += math.Exp(logPi[i*4+a])
			}
			if math.Abs(s-1) > 1e-5 {
				t.Errorf("%s: policy sums to %g", alg, s)
			}
			if m.Config().Heads&Heuristic == 0 && h[i] != 0 {
				t.Errorf("%s: h = %g without a heuristic head", alg, h[i])
			}
		}
		// One state alone gives the same outputs as in the batch.
		logPi1, h1 := make([]float64, 4), make([]float64, 1)
		ev.Evaluate(ps[0], states[1:], logPi1, h1)
		for a := range 4 {
			if math.Abs(logPi1[a]-logPi[4+a]) > 1e-5 || math.Abs(h1[0]-h[1]) > 1e-5 {
				t.Fatalf("%s: batch and single evaluations differ", alg)
			}
		}
		allocs := testing.AllocsPerRun(20, func() { ev.Evaluate(ps[0], states, logPi, h) })
		if allocs != 0 {
			t.Errorf("%s: %g allocations per evaluation", alg, allocs)
		}
		big := stp.GenerateRandom(rng, 4, 4)
		if err := NewEvaluator[stp.State](m).Evaluate(big, []stp.State{big.Root()}, logPi, h); err == nil {
			t.Errorf("%s: evaluating a 4x4 puzzle with a 3x3 model: no error", alg)
		}
	}
}

func TestHeadsFor(t *testing.T) {
	for alg, want := range map[string]Heads{"phsstar": Both, "phsh": Both, "puct": Both, "phssafe": Both,
		"levints": Policy, "astar": Heuristic, "wastar": Heuristic, "gbfs": Heuristic} {
		if got, err := HeadsFor(alg); err != nil || got != want {
			t.Errorf("HeadsFor(%s) = %v, %v", alg, got, err)
		}
	}
	if _, err := HeadsFor("bfs"); err == nil {
		t.Error("HeadsFor(bfs): no error")
	}
}

func TestSafetensors(t *testing.T) {
	ts := map[string]tensor{"a": {shape: []int{2, 3}, data: []float32{1, 2, 3, 4, 5, 6}}, "b": {shape: []int{1}, data: []float32{-7}}}
	b, err := encodeSafetensors(ts, map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	back, meta, err := decodeSafetensors(b)
	if err != nil || meta["k"] != "v" || !equal(back["a"].data, ts["a"].data) || !equal(back["b"].data, ts["b"].data) {
		t.Fatalf("round trip: %v %v %v", back, meta, err)
	}
	for _, bad := range [][]byte{nil, b[:8], b[:len(b)-1], append([]byte{255, 255, 255, 255, 255, 255, 255, 255}, b[8:]...)} {
		if _, _, err := decodeSafetensors(bad); err == nil {
			t.Errorf("decoding %d corrupt bytes: no error", len(bad))
		}
	}
}

func FuzzDecodeSafetensors(f *testing.F) {
	b, _ := encodeSafetensors(map[string]tensor{"w": {shape: []int{2}, data: []float32{1, 2}}}, map[string]string{"x": "y"})
	f.Add(b)
	f.Add([]byte("\x10\x00\x00\x00\x00\x00\x00\x00{}              "))
	f.Fuzz(func(t *testing.T, in []byte) {
		ts, meta, err := decodeSafetensors(in)
		if err != nil {
			return
		}
		out, err := encodeSafetensors(ts, meta)
		if err != nil {
			t.Fatal(err)
		}
		again, _, err := decodeSafetensors(out)
		if err != nil || len(again) != len(ts) {
			t.Fatalf("re-encoding: %v", err)
		}
	})
}
