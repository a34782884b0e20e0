package model

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/search"
)

// configOf returns the configuration of the paper's network for the
// algorithm called alg on inputs of c×h×w.
func configOf(t testing.TB, domain, alg string, c, h, w int) Config {
	t.Helper()
	a, err := search.Parse(alg)
	if err != nil {
		t.Fatal(err)
	}
	return ConfigFor[uint64](domain, a, imageProblem{c, h, w})
}

func tinyConfig(t testing.TB, alg string) Config {
	cfg := configOf(t, "stp", alg, 9, 3, 3)
	cfg.Filters, cfg.Hidden = 3, 5
	return cfg
}

// tinyResNet is tinyConfig with a ResNet trunk of two blocks of 6 units.
func tinyResNet(t testing.TB, alg string) Config {
	cfg := configOf(t, "stp", alg, 9, 3, 3)
	cfg.Arch, cfg.Units, cfg.Blocks, cfg.Hidden = ResNet, 6, 2, 5
	return cfg
}

// samples returns trajectories of random 3x3 puzzles solved by A*.
func samples(t testing.TB, n int, seed uint64) []Sample {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	solver, err := search.NewSolver[stp.State](search.AStar(), search.DomainHeuristic[stp.State]{}, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ss []Sample
	for len(ss) < n {
		p := stp.GenerateWalk[stp.State](rng, 3, 3, 3, 12)
		res, err := solver.Solve(context.Background(), p)
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
// network of each architecture, against finite differences: some values
// of every parameter of every layer, for the heads of LevinTS (the Levin
// loss), A* (the squared error), PHS_h (both) and PUCT (the cross-entropy
// and the squared error).
func TestLossGradients(t *testing.T) {
	ss := samples(t, 2, 1)
	ss[0].Expansions = 3 // keeps the loss small for float32 differences
	ss[1].Expansions = 2
	// A sample whose first and last states have no action to learn.
	part := ss[1]
	part.Actions = slices.Clone(part.Actions)
	part.Actions[0], part.Actions[len(part.Actions)-1] = NoAction, NoAction
	rng := rand.New(rand.NewPCG(2, 2))
	for _, arch := range []func(testing.TB, string) Config{tinyConfig, tinyResNet} {
		for _, batch := range [][]Sample{ss[:1], ss, {ss[0], part}} {
			for _, alg := range []string{"levints", "astar", "phsh", "puct"} {
				checkGradients(t, rng, arch(t, alg), batch)
			}
		}
	}
}

// checkGradients compares the gradients of the loss of batch, through the
// network of cfg, with finite differences.
func checkGradients(t *testing.T, rng *rand.Rand, cfg Config, batch []Sample) {
	t.Helper()
	alg := fmt.Sprintf("%v %v", cfg.Arch, cfg.Algorithm)
	m, err := New(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Positive biases keep most ReLUs away from their kink, where finite
	// differences are wrong (the nn tests check both sides); a value
	// whose differences cross a kink is not checked (the ReLUs' pattern,
	// reluPattern, differs at its two sides).
	for _, p := range m.Params() {
		if !p.Decay {
			for i := range p.Data {
				p.Data[i] = float32(1 + rng.Float64())
			}
		}
	}
	tr := NewTrainer(m, TrainConfig{})
	loss := func() float64 {
		l, err := tr.gradients(batch)
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
	if _, err := tr.gradients(batch); err != nil {
		t.Fatal(err)
	}
	grads := map[string][]float32{}
	for _, p := range m.Params() {
		grads[p.Name] = append([]float32(nil), p.Grad...)
		p.ZeroGrad()
	}
	nonzero := false
	var worst float64
	kinks := 0
	for _, p := range m.Params() {
		checked := 0
		for tries := 0; checked < 6 && tries < 100; tries++ {
			i := rng.IntN(len(p.Data))
			old := p.Data[i]
			const eps = 2e-3
			p.Data[i] = old + eps
			lp := loss()
			plus := reluPattern(m, &tr.ws, states(batch))
			p.Data[i] = old - eps
			lm := loss()
			minus := reluPattern(m, &tr.ws, states(batch))
			p.Data[i] = old
			if plus != minus {
				kinks++
				continue
			}
			checked++
			num := (lp - lm) / (2 * eps)
			g := float64(grads[p.Name][i])
			e := math.Abs(num-g) / math.Max(1, math.Abs(num))
			worst = max(worst, e)
			if e > 2e-2 {
				t.Errorf("%s, %d samples: %s[%d]: analytic %g, numeric %g", alg, len(batch), p.Name, i, g, num)
			}
			nonzero = nonzero || g != 0
		}
		if checked < 3 {
			t.Errorf("%s: %s: %d values checked, the others at a kink of a ReLU", alg, p.Name, checked)
		}
	}
	if !nonzero {
		t.Errorf("%s: all sampled gradients are zero", alg)
	}
	t.Logf("%s, %d samples, %d parameters: largest error %.2g (relative, or absolute below 1); %d values skipped at a kink",
		alg, len(batch), len(m.Params()), worst, kinks)
}

// reluPattern returns which outputs of the ReLUs of m are positive after a
// forward pass over n states with ws, as a string of '0' and '1'.
func reluPattern(m *Model, ws *workspace, n int) string {
	var acts [][]float32
	switch m.cfg.Arch {
	case Conv:
		acts = [][]float32{ws.a1[:m.cfg.Filters*n*m.conv1.OutH()*m.conv1.OutW()], ws.a2[:m.cfg.Filters*n*m.conv2.OutH()*m.conv2.OutW()]}
	case ResNet:
		acts = [][]float32{ws.res[:(2*m.cfg.Blocks+1)*n*m.cfg.Units]}
	}
	acts = append(acts, ws.hid[:n*m.hidden.Out])
	var b []byte
	for _, a := range acts {
		for _, v := range a {
			b = append(b, '0'+byte(max(0, min(1, math.Ceil(float64(v))))))
		}
	}
	return string(b)
}

// TestNoAction checks that states of action NoAction add nothing to the
// policy's loss and all their squared error to the heuristic's, and that
// an action below NoAction is an error.
func TestNoAction(t *testing.T) {
	s := samples(t, 1, 5)[0]
	m, err := New(tinyConfig(t, "phsh"), 3)
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTrainer(m, TrainConfig{})
	want, err := tr.gradients([]Sample{s})
	if err != nil {
		t.Fatal(err)
	}
	none := s
	none.Actions = slices.Repeat([]int{NoAction}, len(s.Actions))
	got, err := tr.gradients([]Sample{none})
	if err != nil {
		t.Fatal(err)
	}
	if got.Policy != 0 || got.Heuristic != want.Heuristic || want.Policy == 0 {
		t.Errorf("losses without actions %+v, with them %+v; want policy 0 and the same heuristic loss", got, want)
	}
	none.Actions[0] = NoAction - 1
	if _, err := tr.gradients([]Sample{none}); err == nil {
		t.Errorf("action %d: no error", NoAction-1)
	}
}

// TestLearnsHeuristic trains a heuristic network to predict the distance
// to the goal of 3x3 puzzles.
func TestLearnsHeuristic(t *testing.T) {
	ss := samples(t, 60, 4)
	cfg := tinyConfig(t, "astar")
	cfg.Filters, cfg.Hidden = 16, 32
	m, _ := New(cfg, 5)
	tr := NewTrainer(m, TrainConfig{LearningRate: 3e-3})
	mse := func() float64 {
		var sum float64
		for _, s := range ss {
			l, _ := tr.gradients([]Sample{s})
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
	cfg := tinyConfig(t, "levints")
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
		l, _ := tr.gradients([]Sample{{Inputs: s.Inputs, Actions: s.Actions, CostToGo: s.CostToGo, Expansions: 1}})
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
	cfg := tinyConfig(t, "phsh")
	cfg.Search.Temperature, cfg.Floor, cfg.ShortenFound = 2.5, true, 1000
	m, _ := New(cfg, 9)
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
	if m3.Config().Heads != Both || m3.Config().Algorithm != search.PHSh() || m3.Config().Search.Temperature != 2.5 || !m3.Config().Floor || m3.Config().ShortenFound != 1000 {
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
	// A weights file of another shape is an error; one with more data than
	// the configuration's parameters hold is refused before it is read.
	for _, tc := range []struct {
		filters, hidden int
		msg             string
	}{{2, 3, "shape"}, {4, 5, "1184 bytes of data, more than the 880 expected"}} {
		other, _ := New(Config{Domain: "stp", Algorithm: search.PHSh(), Heads: Both, PolicyLoss: Levin, HeuristicLoss: SquaredError, Channels: 9, Height: 3, Width: 3, Actions: 4, Filters: tc.filters, Hidden: tc.hidden}, 1)
		odir := t.TempDir()
		if err := Save(odir, other); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(odir, WeightsFile))
		os.WriteFile(filepath.Join(dir, WeightsFile), b, 0o644)
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("loading the weights of %d filters and %d hidden units: %v, want an error with %q", tc.filters, tc.hidden, err, tc.msg)
		}
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
	ps := []*stp.Problem[stp.State]{stp.GenerateRandom[stp.State](rng, 3, 3), stp.GenerateRandom[stp.State](rng, 3, 3)}
	for _, alg := range []string{"levints", "astar", "phsh"} {
		m, _ := New(tinyConfig(t, alg), 12)
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
		if allocs != 0 && !raceOpenBLAS() {
			t.Errorf("%s: %g allocations per evaluation", alg, allocs)
		}
		big := stp.GenerateRandom[stp.State](rng, 4, 4)
		if err := NewEvaluator[stp.State](m).Evaluate(big, []stp.State{big.Root()}, logPi, h); err == nil {
			t.Errorf("%s: evaluating a 4x4 puzzle with a 3x3 model: no error", alg)
		}
	}
}

// An encodedOnly problem is an Encoder without a heuristic.
type encodedOnly struct{ search.Encoder[stp.State] }

// TestEvaluatorFloor checks that a network with Config.Floor gives the
// larger of its heuristic and the problem's, bit for bit that of
// search.HeuristicFloor over the same network without it, and that its
// Check refuses a problem without a heuristic.
func TestEvaluatorFloor(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	p := stp.GenerateRandom[stp.State](rng, 3, 3)
	states := []stp.State{p.Root()}
	for range 30 {
		s := states[len(states)-1]
		for a := range 4 {
			if c, ok := p.Apply(s, a); ok && c != s {
				s = c
			}
		}
		states = append(states, s)
	}
	cfg := tinyConfig(t, "astar")
	plain, _ := New(cfg, 14)
	cfg.Floor = true
	floored, _ := New(cfg, 14)
	floored.CopyWeightsFrom(plain)
	n := len(states)
	logPi, h, want, netH := make([]float64, 4*n), make([]float64, n), make([]float64, n), make([]float64, n)
	if err := NewEvaluator[stp.State](floored).Evaluate(p, states, logPi, h); err != nil {
		t.Fatal(err)
	}
	if err := (search.HeuristicFloor[stp.State]{Evaluator: NewEvaluator[stp.State](plain)}).Evaluate(p, states, logPi, want); err != nil {
		t.Fatal(err)
	}
	NewEvaluator[stp.State](plain).Evaluate(p, states, logPi, netH)
	raised := 0
	for i, s := range states {
		if h[i] != want[i] || h[i] < p.Heuristic(s) || h[i] < netH[i] {
			t.Errorf("state %d: h %g, want max(network %g, problem %g)", i, h[i], netH[i], p.Heuristic(s))
		}
		if h[i] > netH[i] {
			raised++
		}
	}
	if raised == 0 {
		t.Error("the floor raised no state's heuristic: the test shows nothing")
	}
	ev := NewEvaluator[stp.State](floored)
	if err := ev.Check(encodedOnly{p}); err == nil || !strings.Contains(err.Error(), "floors") {
		t.Errorf("Check of a problem without a heuristic: %v, want an error about the floor", err)
	}
	if err := NewEvaluator[stp.State](plain).Check(encodedOnly{p}); err != nil {
		t.Errorf("Check of a problem without a heuristic, without the floor: %v", err)
	}
}

func TestHeadsFor(t *testing.T) {
	for alg, want := range map[search.Algorithm]Heads{search.PHSStar(): Both, search.PHSh(): Both, search.PUCT(1): Both,
		search.PHSSafe(): Both, search.LevinTS(): Policy, search.AStar(): Heuristic, search.WAStar(1.5): Heuristic, search.GBFS(): Heuristic} {
		if got := HeadsFor(alg); got != want {
			t.Errorf("HeadsFor(%v) = %v, want %v", alg, got, want)
		}
	}
}

func TestConfigFor(t *testing.T) {
	p := imageProblem{9, 4, 5}
	for _, tc := range []struct {
		alg                   search.Algorithm
		heads                 Heads
		policyLoss, heuristic Loss
	}{
		{search.PHSStar(), Both, Levin, SquaredError},
		{search.PUCT(2), Both, CrossEntropy, SquaredError},
		{search.LevinTS(), Policy, Levin, 0},
		{search.GBFS(), Heuristic, 0, SquaredError},
	} {
		cfg := ConfigFor[uint64]("image", tc.alg, p)
		want := Config{Domain: "image", Algorithm: tc.alg, Heads: tc.heads, PolicyLoss: tc.policyLoss,
			HeuristicLoss: tc.heuristic, Channels: 9, Height: 4, Width: 5, Actions: 4}
		if !reflect.DeepEqual(cfg, want) {
			t.Errorf("ConfigFor(%v) = %+v, want %+v", tc.alg, cfg, want)
		}
		if _, err := New(cfg, 1); err != nil {
			t.Errorf("%v: %v", tc.alg, err)
		}
	}
}

// TestConfigErrors checks that New rejects configurations whose heads and
// losses disagree and sizes out of bounds, such as a file could hold.
func TestConfigErrors(t *testing.T) {
	good := Config{Domain: "d", Heads: Both, PolicyLoss: Levin, HeuristicLoss: SquaredError, Channels: 4, Height: 10, Width: 10, Actions: 4}
	if _, err := New(good, 1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		msg  string
	}{
		{"no heads", func(c *Config) { c.Heads = 0 }, "bad heads"},
		{"no policy loss", func(c *Config) { c.PolicyLoss = 0 }, "policy loss"},
		{"heuristic loss as policy loss", func(c *Config) { c.PolicyLoss = SquaredError }, "policy loss squared-error"},
		{"policy loss without policy", func(c *Config) { c.Heads = Heuristic }, "without a policy head"},
		{"heuristic loss without heuristic", func(c *Config) { c.Heads = Policy }, "without a heuristic head"},
		{"floor without heuristic", func(c *Config) { c.Heads, c.HeuristicLoss, c.Floor = Policy, 0, true }, "floor without a heuristic head"},
		{"levin heuristic", func(c *Config) { c.HeuristicLoss = Levin }, "heuristic loss levin"},
		{"huge hidden", func(c *Config) { c.Hidden = 100000000 }, "hidden 100000000"},
		{"huge input", func(c *Config) { c.Height, c.Width = 5000, 5000 }, "input shape"},
		{"huge filters", func(c *Config) { c.Filters = 1 << 16 }, "filters"},
		{"huge kernel", func(c *Config) { c.Kernel = 100 }, "kernel 100"},
		{"too many actions", func(c *Config) { c.Actions = 256 }, "256 actions"},
		{"small input", func(c *Config) { c.Height = 2 }, "too small"},
		{"negative temperature", func(c *Config) { c.Search.Temperature = -1 }, "temperature -1"},
		{"infinite temperature", func(c *Config) { c.Search.Temperature = math.Inf(1) }, "temperature +Inf"},
		{"NaN temperature", func(c *Config) { c.Search.Temperature = math.NaN() }, "temperature NaN"},
		{"negative mix", func(c *Config) { c.Search.Mix = -0.5 }, "mix -0.5"},
		{"mix 1", func(c *Config) { c.Search.Mix = 1 }, "mix 1"},
		{"NaN mix", func(c *Config) { c.Search.Mix = math.NaN() }, "mix NaN"},
		{"mix without policy", func(c *Config) {
			c.Heads, c.PolicyLoss, c.Search.Mix = Heuristic, 0, 0.01
		}, "mix (0.01) without a policy head"},
		{"units in a conv network", func(c *Config) { c.Units = 8 }, "units 8 and blocks 0 in a conv network"},
		{"filters in a resnet", func(c *Config) { c.Arch, c.Filters = ResNet, 8 }, "filters 8"},
		{"negative units", func(c *Config) { c.Arch, c.Units = ResNet, -1 }, "units -1"},
		{"too many blocks", func(c *Config) { c.Arch, c.Blocks = ResNet, MaxBlocks+1 }, "65 blocks"},
		{"too many parameters", func(c *Config) { c.Arch, c.Units = ResNet, 1<<20 }, "parameters; want at most"},
		{"temperature without policy", func(c *Config) {
			c.Heads, c.PolicyLoss, c.Search.Temperature = Heuristic, 0, 2
		}, "temperature (2) without a policy head"},
		{"negative shorten_found", func(c *Config) { c.ShortenFound = -1 }, "shorten_found -1; want 0 to"},
		{"shorten_found too large", func(c *Config) { c.ShortenFound = MaxShortenFound + 1 }, "shorten_found 1073741825"},
	} {
		cfg := good
		tc.edit(&cfg)
		if _, err := New(cfg, 1); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.msg)
		}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: Validate: err = %v, want %q", tc.name, err, tc.msg)
		}
	}
	if err := good.Validate(); err != nil {
		t.Errorf("Validate(good) = %v", err)
	}
}

// TestSafetensors checks the float32 tensors of a model file.
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
	header := func(h string) []byte {
		out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
		return append(out, h...)
	}
	for _, tc := range []struct {
		name string
		in   []byte
		msg  string
	}{
		// Package internal/safetensors tests the checks of the format;
		// here, those of the model (F32 or F16, finite values) and one
		// passed on.
		{"dtype", append(header(`{"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}`), make([]byte, 8)...), `tensor "a": dtype "F64", want F32 or F16`},
		{"unknown dtype", append(header(`{"a":{"dtype":"BF16","shape":[1],"data_offsets":[0,2]}}`), make([]byte, 2)...), `dtype "BF16"`},
		{"F16 NaN", append(header(`{"w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}`), 0, 0x3c, 0x01, 0x7e), `tensor "w": value 1 of 2 is NaN`},
		{"F16 -Inf", append(header(`{"w":{"dtype":"F16","shape":[1],"data_offsets":[0,2]}}`), 0, 0xfc), `tensor "w": value 0 of 1 is -Inf`},
		{"truncated data", b[:len(b)-1], "do not fit"},
		{"NaN", append(header(`{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`), 0, 0, 0x80, 0x3f, 0, 0, 0xc0, 0x7f), `tensor "w": value 1 of 2 is NaN`},
		{"+Inf", append(header(`{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`), 0, 0, 0x80, 0x7f), `tensor "w": value 0 of 1 is +Inf`},
		{"-Inf", append(header(`{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`), 0, 0, 0x80, 0xff), `tensor "w": value 0 of 1 is -Inf`},
	} {
		_, _, err := decodeSafetensors(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.msg)
		}
	}
}

func FuzzReadSafetensors(f *testing.F) {
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
		for name, x := range ts {
			y := again[name]
			if fmt.Sprint(x.shape) != fmt.Sprint(y.shape) || len(x.data) != len(y.data) {
				t.Fatalf("%q: shape %v became %v", name, x.shape, y.shape)
			}
			for i := range x.data {
				if math.Float32bits(x.data[i]) != math.Float32bits(y.data[i]) {
					t.Fatalf("%q[%d]: %g became %g", name, i, x.data[i], y.data[i])
				}
			}
		}
	})
}

// imageProblem is a problem whose states are seeds of random binary
// images of any shape: a stand-in for a domain at its real input size.
type imageProblem struct{ c, h, w int }

func (p imageProblem) Root() uint64                         { return 1 }
func (p imageProblem) NumActions() int                      { return 4 }
func (p imageProblem) Apply(s uint64, a int) (uint64, bool) { return s*4 + uint64(a), true }
func (p imageProblem) IsGoal(uint64) bool                   { return false }
func (p imageProblem) InputShape() (c, h, w int)            { return p.c, p.h, p.w }
func (p imageProblem) Encode(s uint64, dst []float32) {
	x := s*0x9e3779b97f4a7c15 + 1
	for i := range dst {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		dst[i] = float32(x >> 63) // 0 or 1
	}
}

// TestEvaluatorFullSize runs the paper's two-headed Sokoban network: no
// allocation per evaluation once warm, at the batch size of the search and
// at other sizes, and the same outputs whatever the batch.
func TestEvaluatorFullSize(t *testing.T) {
	p := &imageProblem{4, 10, 10} // a pointer: a struct would be boxed in every call
	m, err := New(Config{Domain: "sokoban", Algorithm: search.PHSStar(), Heads: Both, PolicyLoss: Levin, HeuristicLoss: SquaredError, Channels: 4, Height: 10, Width: 10, Actions: 4}, 1)
	if err != nil {
		t.Fatal(err)
	}
	states := make([]uint64, 40)
	for i := range states {
		states[i] = uint64(i + 1)
	}
	ev := NewEvaluator[uint64](m)
	logPi, h := make([]float64, 4*len(states)), make([]float64, len(states))
	if err := ev.Evaluate(p, states, logPi, h); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{32, 1, 7, 40} {
		allocs := testing.AllocsPerRun(5, func() {
			if err := ev.Evaluate(p, states[:n], logPi, h); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 && !raceOpenBLAS() {
			t.Errorf("batch %d: %g allocations per evaluation", n, allocs)
		}
	}
	// Batches of one give what the batch of 40 gave.
	ev.Evaluate(p, states, logPi, h)
	one := NewEvaluator[uint64](m)
	lp, hh := make([]float64, 4), make([]float64, 1)
	for i, s := range states {
		if err := one.Evaluate(p, []uint64{s}, lp, hh); err != nil {
			t.Fatal(err)
		}
		for a := range 4 {
			if d := math.Abs(lp[a] - logPi[4*i+a]); d > 1e-5 {
				t.Fatalf("state %d: log pi %g alone, %g in a batch", i, lp[a], logPi[4*i+a])
			}
		}
		if d := math.Abs(hh[0] - h[i]); d > 1e-4 {
			t.Fatalf("state %d: h %g alone, %g in a batch", i, hh[0], h[i])
		}
	}
	// A problem of another shape, or with another number of actions, is an
	// error.
	for _, bad := range []search.Problem[uint64]{imageProblem{4, 10, 9}, imageProblem{9, 9, 9}} {
		if err := ev.Evaluate(bad, states[:1], logPi, h); err == nil || !strings.Contains(err.Error(), "takes inputs of 4x10x10") {
			t.Errorf("%v: error %v", bad, err)
		}
	}
	if err := ev.Evaluate(search.Problem[uint64](noEncoding{}), states[:1], logPi, h); err == nil {
		t.Error("a problem without an encoding: no error")
	}
}

type noEncoding struct{ imageProblem }

// InputShape hides imageProblem's: noEncoding is not a search.Encoder.
func (noEncoding) InputShape() {}

func TestCloneAndCopyWeights(t *testing.T) {
	p := imageProblem{4, 10, 10}
	cfg := Config{Domain: "sokoban", Algorithm: search.LevinTS(), Heads: Policy, PolicyLoss: Levin, Channels: 4, Height: 10, Width: 10, Actions: 4}
	a, _ := New(cfg, 1)
	b, _ := New(cfg, 2)
	out := func(m *Model) []float64 {
		lp, h := make([]float64, 4), make([]float64, 1)
		if err := NewEvaluator[uint64](m).Evaluate(p, []uint64{3}, lp, h); err != nil {
			t.Fatal(err)
		}
		return lp
	}
	if fmt.Sprint(out(a)) == fmt.Sprint(out(b)) {
		t.Fatal("two seeds give the same network")
	}
	c := a.Clone()
	if fmt.Sprint(out(a)) != fmt.Sprint(out(c)) {
		t.Error("a clone computes something else")
	}
	c.Params()[0].Data[0] += 1
	if a.Params()[0].Data[0] == c.Params()[0].Data[0] {
		t.Error("a clone shares its weights")
	}
	if allocs := testing.AllocsPerRun(3, func() { b.CopyWeightsFrom(a) }); allocs != 0 {
		t.Errorf("CopyWeightsFrom: %g allocations", allocs)
	}
	if fmt.Sprint(out(a)) != fmt.Sprint(out(b)) {
		t.Error("CopyWeightsFrom: the copy computes something else")
	}
}

// TestSetModel checks that an evaluator switched to another model of the
// same configuration computes that model's outputs, and that a model of
// another configuration is refused.
func TestSetModel(t *testing.T) {
	p := imageProblem{4, 10, 10}
	cfg := Config{Domain: "sokoban", Algorithm: search.PHSh(), Heads: Both, PolicyLoss: Levin, HeuristicLoss: SquaredError, Channels: 4, Height: 10, Width: 10, Actions: 4}
	a, _ := New(cfg, 1)
	b, _ := New(cfg, 2)
	out := func(ev *Evaluator[uint64]) string {
		lp, h := make([]float64, 4), make([]float64, 1)
		if err := ev.Evaluate(p, []uint64{3}, lp, h); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(lp, h)
	}
	ev := NewEvaluator[uint64](a)
	fromA := out(ev)
	ev.SetModel(b)
	if got, want := out(ev), out(NewEvaluator[uint64](b)); got != want || got == fromA {
		t.Errorf("after SetModel: %s, want %s (and not a's %s)", got, want, fromA)
	}
	cfg.Hidden = 64
	c, _ := New(cfg, 1)
	defer func() {
		if recover() == nil {
			t.Error("SetModel accepted a model of another configuration")
		}
	}()
	ev.SetModel(c)
}

// TestSaveLoadOutputs checks that a saved and reloaded network computes
// exactly what it computed before, for every kind of heads.
func TestSaveLoadOutputs(t *testing.T) {
	p := &imageProblem{4, 10, 10}
	states := []uint64{1, 2, 3, 4, 5}
	for _, alg := range []string{"phsstar", "levints", "gbfs"} {
		cfg := configOf(t, "sokoban", alg, 4, 10, 10)
		cfg.Meta = map[string]string{"iteration": "7"}
		heads := cfg.Heads
		m, _ := New(cfg, 3)
		dir := filepath.Join(t.TempDir(), "new", "dir")
		if err := Save(dir, m); err != nil {
			t.Fatal(err)
		}
		back, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := back.Config(); got.Heads != heads || got.Meta["iteration"] != "7" || got.Filters != 32 || got.Hidden != 128 {
			t.Errorf("%s: config after loading: %+v", alg, got)
		}
		lp1, h1 := make([]float64, 20), make([]float64, 5)
		lp2, h2 := make([]float64, 20), make([]float64, 5)
		NewEvaluator[uint64](m).Evaluate(p, states, lp1, h1)
		NewEvaluator[uint64](back).Evaluate(p, states, lp2, h2)
		if fmt.Sprint(lp1, h1) != fmt.Sprint(lp2, h2) {
			t.Errorf("%s: outputs differ after loading", alg)
		}
		b, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
		if want := map[string]Heads{"phsstar": Both, "levints": Policy, "gbfs": Heuristic}[alg]; !strings.Contains(string(b), `"heads": "`+want.String()+`"`) {
			t.Errorf("%s: config.json does not name the heads:\n%s", alg, b)
		}
	}
}

// TestLoadErrors checks that a bad model directory is an error that names
// the file and the problem: unknown fields, sizes out of bounds, missing
// files.
func TestLoadErrors(t *testing.T) {
	good := configOf(t, "stp", "phsh", 9, 3, 3)
	m, err := New(good, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, config, msg string
	}{
		{"unknown field", `{"domain":"stp","algorithm":"phsh","heads":"both","policy_loss":"levin","heuristic_loss":"squared-error","channels":9,"height":3,"width":3,"actions":4,"hiden":128}`, `unknown field "hiden"`},
		{"huge hidden", `{"domain":"stp","algorithm":"phsh","heads":"both","policy_loss":"levin","heuristic_loss":"squared-error","channels":9,"height":3,"width":3,"actions":4,"hidden":100000000}`, "hidden 100000000"},
		{"bad loss", `{"domain":"stp","algorithm":"phsh","heads":"both","policy_loss":"l1","heuristic_loss":"squared-error","channels":9,"height":3,"width":3,"actions":4}`, `loss "l1"`},
		{"negative temperature", `{"domain":"stp","algorithm":"phsh","heads":"both","policy_loss":"levin","heuristic_loss":"squared-error","channels":9,"height":3,"width":3,"actions":4,"temperature":-2}`, "temperature -2"},
		{"two objects", `{"domain":"stp","algorithm":"phsh","heads":"both","policy_loss":"levin","heuristic_loss":"squared-error","channels":9,"height":3,"width":3,"actions":4} {}`, "data after"},
	} {
		dir := filepath.Join(t.TempDir(), "m")
		if err := Save(dir, m); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(tc.config), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(dir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, ConfigFile)) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err = %v, want %s and %q", tc.name, err, filepath.Join(dir, ConfigFile), tc.msg)
		}
	}
	dir := t.TempDir()
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("empty directory: err = %v, want its name", err)
	}
}

// TestStepBatchMean checks that the loss and the gradients of a batch of
// trajectories are the means of those of each trajectory alone.
func TestStepBatchMean(t *testing.T) {
	ss := samples(t, 3, 9)
	for _, alg := range []string{"phsh", "puct"} {
		m, err := New(tinyConfig(t, alg), 4)
		if err != nil {
			t.Fatal(err)
		}
		tr := NewTrainer(m, TrainConfig{})
		var want Losses
		grads := map[string][]float64{}
		for _, s := range ss {
			l, err := tr.gradients([]Sample{s}) // accumulates the sum of the gradients
			if err != nil {
				t.Fatal(err)
			}
			want.Policy += l.Policy / 3
			want.Heuristic += l.Heuristic / 3
		}
		for _, p := range m.Params() {
			for _, g := range p.Grad {
				grads[p.Name] = append(grads[p.Name], float64(g)/3)
			}
			p.ZeroGrad()
		}
		got, err := tr.gradients(ss)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.Policy-want.Policy) > 1e-4*math.Abs(want.Policy) || math.Abs(got.Heuristic-want.Heuristic) > 1e-4*math.Abs(want.Heuristic)+1e-9 {
			t.Errorf("%s: batch losses %+v, mean of the losses %+v", alg, got, want)
		}
		for _, p := range m.Params() {
			for i, g := range p.Grad {
				if w := grads[p.Name][i]; math.Abs(float64(g)-w) > 1e-4*math.Max(1, math.Abs(w)) {
					t.Fatalf("%s: %s[%d]: batch gradient %g, mean %g", alg, p.Name, i, g, w)
				}
			}
		}
	}
	tr := NewTrainer(mustNew(t, tinyConfig(t, "phsh")), TrainConfig{})
	if _, err := tr.StepBatch(nil); err == nil {
		t.Error("StepBatch(nil): no error")
	}
}

// TestTrainerThreads checks that a Trainer with several threads takes the
// steps of one with a single thread, up to float rounding: the same losses
// and weights after a few steps, for batches of one trajectory and of
// many, with enough states for every thread and too few for some.
func TestTrainerThreads(t *testing.T) {
	ss := samples(t, 80, 11)
	if n := states(ss); n < 7*minShare {
		t.Fatalf("%d states: too few for 7 threads", n)
	}
	for _, alg := range []string{"phsh", "puct", "levints"} {
		for _, threads := range []int{2, 3, 7} {
			one := NewTrainer(mustNew(t, tinyConfig(t, alg)), TrainConfig{LearningRate: 1e-2})
			many := NewTrainer(mustNew(t, tinyConfig(t, alg)), TrainConfig{LearningRate: 1e-2, Threads: threads})
			for step, batch := range [][]Sample{ss, ss[:1], ss[10:40], {{Inputs: ss[0].Inputs[:81], Actions: ss[0].Actions[:1], CostToGo: ss[0].CostToGo[:1], Expansions: 3}}, ss[1:]} {
				want, err := one.StepBatch(batch)
				if err != nil {
					t.Fatal(err)
				}
				got, err := many.StepBatch(batch)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(got.Policy-want.Policy) > 1e-5*math.Abs(want.Policy) || math.Abs(got.Heuristic-want.Heuristic) > 1e-5*math.Abs(want.Heuristic)+1e-9 {
					t.Errorf("%s, %d threads, step %d: losses %+v, want %+v", alg, threads, step, got, want)
				}
				ps := one.Model().Params()
				for i, p := range many.Model().Params() {
					for j, w := range p.Data {
						if v := ps[i].Data[j]; math.Abs(float64(w-v)) > 1e-5*math.Max(1, math.Abs(float64(v))) {
							t.Fatalf("%s, %d threads, step %d: %s[%d] = %g, want %g", alg, threads, step, p.Name, j, w, v)
						}
					}
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("NewTrainer with -1 threads did not panic")
		}
	}()
	NewTrainer(mustNew(t, tinyConfig(t, "phsh")), TrainConfig{Threads: -1})
}

// states returns the number of states of ss.
func states(ss []Sample) int {
	n := 0
	for _, s := range ss {
		n += len(s.Actions)
	}
	return n
}

func mustNew(t *testing.T, cfg Config) *Model {
	t.Helper()
	m, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestConfigAlgorithm checks that config.json records the algorithm with
// its parameter, and that files that name wastar or puct without one
// load with the default.
func TestConfigAlgorithm(t *testing.T) {
	for _, tc := range []struct {
		alg  search.Algorithm
		text string
	}{{search.WAStar(3), "wastar:3"}, {search.PUCT(0.5), "puct:0.5"}, {search.PHSh(), "phsh"}} {
		cfg := configOf(t, "image", tc.alg.Name(), 2, 5, 5)
		cfg.Algorithm = tc.alg
		m, err := New(cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := Save(dir, m); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, ConfigFile))
		if err != nil || !strings.Contains(string(b), `"algorithm": "`+tc.text+`"`) {
			t.Errorf("config.json of %v: %s, %v", tc.alg, b, err)
		}
		if back, err := Load(dir); err != nil || back.Config().Algorithm != tc.alg {
			t.Errorf("%v: loaded %v, %v", tc.alg, back.Config().Algorithm, err)
		}
		if tc.alg.Name() == tc.text {
			continue
		}
		old := strings.Replace(string(b), tc.text, tc.alg.Name(), 1)
		if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
		want, _ := search.Parse(tc.alg.Name())
		if back, err := Load(dir); err != nil || back.Config().Algorithm != want || (want.W() != search.DefaultW && want.C() != search.DefaultC) {
			t.Errorf("old %s: loaded %v, %v; want %v", tc.alg.Name(), back.Config().Algorithm, err, want)
		}
	}
}

// TestLegacySearchOptions checks that a config.json written before
// Config.Search, with a top-level temperature and mix, loads them into
// Search, and that one with both forms is an error that names the file.
func TestLegacySearchOptions(t *testing.T) {
	cfg := tinyConfig(t, "phsh")
	cfg.Search = search.Options{Temperature: 2.5, Mix: 0.01}
	m, _ := New(cfg, 9)
	for _, tc := range []struct {
		name string
		edit func(map[string]any)
		err  string
	}{
		{"new", func(map[string]any) {}, ""},
		{"old", func(c map[string]any) { delete(c, "search"); c["temperature"], c["mix"] = 2.5, 0.01 }, ""},
		{"both", func(c map[string]any) { c["temperature"] = 2.5 }, `"temperature" or "mix" beside "search"`},
	} {
		dir := t.TempDir()
		if err := Save(dir, m); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, ConfigFile)
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var c map[string]any
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		tc.edit(c)
		if b, err = json.Marshal(c); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Load(dir)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), name) {
				t.Errorf("%s: err = %v; want %q naming %s", tc.name, err, tc.err, name)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case got.Config().Search != cfg.Search:
			t.Errorf("%s: search options %+v; want %+v", tc.name, got.Config().Search, cfg.Search)
		}
	}
}
