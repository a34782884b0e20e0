package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/search"
)

// stpConfig returns the configuration of the network of alg for the
// rows×cols sliding-tile puzzle.
func stpConfig(t testing.TB, alg string, rows, cols int) Config {
	return configOf(t, "stp", alg, rows*cols, rows, cols)
}

// TestResNetConfig checks the defaults of the ResNet sizes, that each
// architecture refuses the other's sizes, and that inputs too small for
// the convolutions (the 2x3 puzzle) are an error for Conv only.
func TestResNetConfig(t *testing.T) {
	cfg := stpConfig(t, "phsh", 2, 3)
	if _, err := New(cfg, 1); err == nil || !strings.Contains(err.Error(), "too small for two 2x2 convolutions") {
		t.Errorf("a conv network for 2x3 puzzles: error %v", err)
	}
	cfg.Arch = ResNet
	m, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Config(); got.Units != DefaultUnits || got.Blocks != DefaultBlocks || got.Hidden != DefaultHidden || got.Filters != 0 || got.Kernel != 0 {
		t.Errorf("resnet defaults: %+v", got)
	}
	if got, want := len(m.Params()), 2+4*DefaultBlocks+8; got != want {
		t.Errorf("%d parameters, want %d", got, want)
	}
	n := 0
	for _, p := range m.Params() {
		n += len(p.Data)
	}
	if c := m.Config(); n != c.numParams() {
		t.Errorf("%d parameter values, numParams says %d", n, c.numParams())
	}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		msg  string
	}{
		{"filters", func(c *Config) { c.Filters = 8 }, "filters 8 and kernel 0 in a resnet network"},
		{"kernel", func(c *Config) { c.Kernel = 3 }, "kernel 3 in a resnet network"},
		{"conv with units", func(c *Config) { c.Arch, c.Units = Conv, 16 }, "units 16 and blocks 0 in a conv network"},
		{"conv with blocks", func(c *Config) { c.Arch, c.Height, c.Width, c.Channels, c.Blocks = Conv, 3, 3, 9, 1 }, "blocks 1 in a conv network"},
		{"negative units", func(c *Config) { c.Units = -1 }, "units -1"},
		{"huge units", func(c *Config) { c.Units = MaxSize + 1 }, "units 1048577"},
		{"no blocks", func(c *Config) { c.Blocks = -1 }, "-1 blocks"},
		{"too many blocks", func(c *Config) { c.Blocks = MaxBlocks + 1 }, "65 blocks"},
		{"too many parameters", func(c *Config) { c.Units = 1 << 13 }, "parameters; want at most"},
		{"bad arch", func(c *Config) { c.Arch = 7 }, "bad architecture 7"},
	} {
		c := cfg
		tc.edit(&c)
		if _, err := New(c, 1); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.msg)
		}
	}
	// The conv networks have a bound on their parameters too.
	c := configOf(t, "stp", "phsh", 9, 3, 3)
	c.Hidden = 1 << 20
	if _, err := New(c, 1); err == nil || !strings.Contains(err.Error(), "parameters; want at most") {
		t.Errorf("a conv network of %d parameters: error %v", c.numParams(), err)
	}
}

// TestArchJSON checks config.json: a conv network's has no field of the
// resnet (so that earlier versions read it), a resnet's names its
// architecture and sizes but no filters or kernel, a file without "arch"
// is a conv network, and an unknown architecture is an error.
func TestArchJSON(t *testing.T) {
	conv, _ := New(stpConfig(t, "phsh", 3, 3), 1)
	rcfg := stpConfig(t, "phsh", 2, 3)
	rcfg.Arch, rcfg.Units, rcfg.Blocks = ResNet, 12, 3
	res, _ := New(rcfg, 1)
	dir := t.TempDir()
	for _, tc := range []struct {
		m          *Model
		has, hasNo []string
	}{
		{conv, []string{`"filters": 32`, `"kernel": 2`, `"hidden": 128`}, []string{"arch", "units", "blocks"}},
		{res, []string{`"arch": "resnet"`, `"units": 12`, `"blocks": 3`, `"hidden": 128`}, []string{"filters", "kernel"}},
	} {
		if err := Save(dir, tc.m); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
		for _, s := range tc.has {
			if !bytes.Contains(b, []byte(s)) {
				t.Errorf("%v: config.json lacks %s:\n%s", tc.m.cfg.Arch, s, b)
			}
		}
		for _, s := range tc.hasNo {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%v: config.json has %s:\n%s", tc.m.cfg.Arch, s, b)
			}
		}
		back, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if back.Config().Arch != tc.m.cfg.Arch || len(back.Params()) != len(tc.m.Params()) {
			t.Errorf("%v: loaded %+v", tc.m.cfg.Arch, back.Config())
		}
	}
	// "arch": "conv" is the default, written or not.
	var c Config
	if err := json.Unmarshal([]byte(`{"arch": "conv"}`), &c); err != nil || c.Arch != Conv {
		t.Errorf(`"arch": "conv": %v, %v`, c.Arch, err)
	}
	if err := json.Unmarshal([]byte(`{"arch": "mlp"}`), &c); err == nil || !strings.Contains(err.Error(), `architecture "mlp", want conv or resnet`) {
		t.Errorf(`"arch": "mlp": error %v`, err)
	}
}

// TestResNetSavedShapes checks the names and shapes of a ResNet's tensors
// in weights.safetensors and optimizer.safetensors: PyTorch's, as
// docs/MODEL_FORMAT.md gives them.
func TestResNetSavedShapes(t *testing.T) {
	cfg := stpConfig(t, "phsstar", 2, 3)
	cfg.Arch, cfg.Units, cfg.Blocks, cfg.Hidden = ResNet, 5, 2, 7
	m, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := NewTrainer(m, TrainConfig{}).Save(dir); err != nil {
		t.Fatal(err)
	}
	want := map[string][]int{
		"input.weight": {5, 36}, "input.bias": {5},
		"blocks.0.fc1.weight": {5, 5}, "blocks.0.fc1.bias": {5},
		"blocks.0.fc2.weight": {5, 5}, "blocks.0.fc2.bias": {5},
		"blocks.1.fc1.weight": {5, 5}, "blocks.1.fc1.bias": {5},
		"blocks.1.fc2.weight": {5, 5}, "blocks.1.fc2.bias": {5},
		"policy1.weight": {7, 5}, "policy1.bias": {7},
		"policy2.weight": {4, 7}, "policy2.bias": {4},
		"heuristic1.weight": {7, 5}, "heuristic1.bias": {7},
		"heuristic2.weight": {1, 7}, "heuristic2.bias": {1},
	}
	got, _ := readHeader(t, filepath.Join(dir, WeightsFile))
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: shapes\n%v\nwant\n%v", WeightsFile, got, want)
	}
	opt, _ := readHeader(t, filepath.Join(dir, OptimizerFile))
	if len(opt) != 2*len(want) || fmt.Sprint(opt["m/blocks.1.fc2.weight"]) != "[5 5]" || fmt.Sprint(opt["v/input.weight"]) != "[5 36]" {
		t.Errorf("%s: shapes %v", OptimizerFile, opt)
	}
}

// TestResNetSaveLoad checks that a ResNet trained a few steps, saved and
// loaded, or marshalled and unmarshalled, computes what it computed, and
// that a trainer loaded from its files takes the same steps.
func TestResNetSaveLoad(t *testing.T) {
	ss := samples(t, 4, 12)
	for _, alg := range []string{"phsstar", "levints", "gbfs", "puct"} {
		m, err := New(tinyResNet(t, alg), 2)
		if err != nil {
			t.Fatal(err)
		}
		tr := NewTrainer(m, TrainConfig{LearningRate: 1e-2})
		tr.Step(ss[0])
		dir := t.TempDir()
		if err := tr.Save(dir); err != nil {
			t.Fatal(err)
		}
		back, err := LoadTrainer(dir, TrainConfig{LearningRate: 1e-2})
		if err != nil {
			t.Fatal(err)
		}
		b, err := MarshalModel(m)
		if err != nil {
			t.Fatal(err)
		}
		wire, err := UnmarshalModel(b)
		if err != nil {
			t.Fatal(err)
		}
		x := ss[1].Inputs
		n := len(x) / 81
		var w0, w1, w2 workspace
		m.forward(&w0, x, n)
		back.Model().forward(&w1, x, n)
		wire.forward(&w2, x, n)
		for _, w := range []*workspace{&w1, &w2} {
			if !nearlyEqual(w0.logits[:4*n], w.logits[:4*n]) || !nearlyEqual(w0.hout[:n], w.hout[:n]) {
				t.Errorf("%s: a loaded copy computes other outputs", alg)
			}
		}
		for _, s := range ss[1:] {
			tr.Step(s)
			back.Step(s)
		}
		for i, p := range m.Params() {
			if !nearlyEqual(p.Data, back.Model().Params()[i].Data) {
				t.Fatalf("%s: %s differs after resuming", alg, p.Name)
			}
		}
	}
}

// TestResNetLoadErrors checks that Load, LoadTrainer, UnmarshalWeights
// and UnmarshalModel refuse a ResNet's files with a NaN or an infinity in
// a tensor, and that a tensor of the wrong shape is an error that names
// it.
func TestResNetLoadErrors(t *testing.T) {
	m, _ := New(tinyResNet(t, "phsh"), 1)
	for _, tc := range []struct {
		name, tensor string
		v            float32
	}{
		{"NaN", "blocks.1.fc2.bias", float32(math.NaN())},
		{"+Inf", "blocks.0.fc1.weight", float32(math.Inf(1))},
		{"-Inf", "input.weight", float32(math.Inf(-1))},
	} {
		dir := t.TempDir()
		tr := NewTrainer(m, TrainConfig{})
		if err := tr.Save(dir); err != nil {
			t.Fatal(err)
		}
		ts := params(m, "")
		bad := tensor{shape: ts[tc.tensor].shape, data: append([]float32(nil), ts[tc.tensor].data...)}
		bad.data[len(bad.data)-1] = tc.v
		ts[tc.tensor] = bad
		b, _ := encodeSafetensors(ts, nil)
		os.WriteFile(filepath.Join(dir, WeightsFile), b, 0o644)
		msg := fmt.Sprintf("tensor %q: value %d of %d is %v", tc.tensor, len(bad.data)-1, len(bad.data), tc.v)
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), WeightsFile) {
			t.Errorf("%s: Load: error %v, want one with %q", tc.name, err, msg)
		}
		if _, err := LoadTrainer(dir, TrainConfig{}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: LoadTrainer: error %v", tc.name, err)
		}
		if err := UnmarshalWeights(m.Clone(), b); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: UnmarshalWeights: error %v", tc.name, err)
		}
		cj, _ := json.Marshal(m.cfg)
		b, _ = encodeSafetensors(ts, map[string]string{"config": string(cj)})
		if _, err := UnmarshalModel(b); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: UnmarshalModel: error %v", tc.name, err)
		}
	}
	// A tensor of another shape.
	for _, name := range []string{"input.weight", "blocks.1.fc1.weight"} {
		dir := t.TempDir()
		Save(dir, m)
		ts := params(m, "")
		ts[name] = tensor{shape: []int{len(ts[name].data)}, data: ts[name].data}
		b, _ := encodeSafetensors(ts, nil)
		os.WriteFile(filepath.Join(dir, WeightsFile), b, 0o644)
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("tensor %q has shape", name)) {
			t.Errorf("%s flattened: error %v", name, err)
		}
	}
}

// TestResNetEvaluator runs a ResNet on 2x3 puzzles, too small for the
// convolutions: no allocation per evaluation once warm, whatever the
// batch, and the same outputs alone as in a batch.
func TestResNetEvaluator(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	cfg := stpConfig(t, "phsh", 2, 3)
	cfg.Arch = ResNet
	m, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := stp.GenerateWalk[stp.State](rng, 2, 3, 5, 20)
	var states []stp.State
	s := p.Root()
	for len(states) < 40 {
		if next, ok := p.Apply(s, rng.IntN(4)); ok {
			s = next
			states = append(states, s)
		}
	}
	ev := NewEvaluator[stp.State](m)
	logPi, h := make([]float64, 4*len(states)), make([]float64, len(states))
	if err := ev.Evaluate(p, states, logPi, h); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{32, 1, 7, 40} {
		allocs := testing.AllocsPerRun(10, func() {
			if err := ev.Evaluate(p, states[:n], logPi, h); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 && !raceOpenBLAS() {
			t.Errorf("batch %d: %g allocations per evaluation", n, allocs)
		}
	}
	ev.Evaluate(p, states, logPi, h)
	lp, hh := make([]float64, 4), make([]float64, 1)
	for i, st := range states {
		if err := NewEvaluator[stp.State](m).Evaluate(p, []stp.State{st}, lp, hh); err != nil {
			t.Fatal(err)
		}
		var sum float64
		for a := range 4 {
			sum += math.Exp(lp[a])
			if d := math.Abs(lp[a] - logPi[4*i+a]); d > 1e-5 {
				t.Fatalf("state %d: log pi %g alone, %g in a batch", i, lp[a], logPi[4*i+a])
			}
		}
		if math.Abs(sum-1) > 1e-5 || math.Abs(hh[0]-h[i]) > 1e-4 {
			t.Fatalf("state %d: policy sums to %g; h %g alone, %g in a batch", i, sum, hh[0], h[i])
		}
	}
	big := stp.GenerateRandom[stp.State](rng, 3, 3)
	if err := ev.Evaluate(big, []stp.State{big.Root()}, logPi, h); err == nil || !strings.Contains(err.Error(), "takes inputs of 6x2x3") {
		t.Errorf("a 3x3 puzzle with a 2x3 model: error %v", err)
	}
}

// TestTrainStepAllocs checks that a training step of either architecture,
// on one thread, allocates nothing once its buffers have grown.
func TestTrainStepAllocs(t *testing.T) {
	ss := samples(t, 4, 13)
	for _, cfg := range []Config{tinyConfig(t, "phsh"), tinyResNet(t, "phsh"), tinyResNet(t, "puct")} {
		tr := NewTrainer(mustNew(t, cfg), TrainConfig{L2: 1e-3})
		if _, err := tr.StepBatch(ss); err != nil {
			t.Fatal(err)
		}
		for _, batch := range [][]Sample{ss, ss[1:2], ss[:3]} {
			allocs := testing.AllocsPerRun(10, func() {
				if _, err := tr.StepBatch(batch); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 && !raceOpenBLAS() {
				t.Errorf("%v %v, %d trajectories: %g allocations per step", cfg.Arch, cfg.Algorithm, len(batch), allocs)
			}
		}
		if allocs := testing.AllocsPerRun(10, func() { tr.Step(ss[2]) }); allocs != 0 && !raceOpenBLAS() {
			t.Errorf("%v %v: %g allocations per Step", cfg.Arch, cfg.Algorithm, allocs)
		}
	}
}

// TestResNetLearns trains a ResNet on the A* solutions of 3x3 puzzles:
// its heuristic predicts their distances to the goal, and its policy
// their actions.
func TestResNetLearns(t *testing.T) {
	ss := samples(t, 40, 14)
	cfg := tinyResNet(t, "phsh")
	cfg.Units, cfg.Hidden = 32, 32
	m := mustNew(t, cfg)
	tr := NewTrainer(m, TrainConfig{LearningRate: 1e-3})
	mean := func() (nll, mse float64) {
		steps := 0
		for _, s := range ss {
			l, _ := tr.gradients([]Sample{{Inputs: s.Inputs, Actions: s.Actions, CostToGo: s.CostToGo, Expansions: 1}})
			nll += l.Policy * float64(len(s.Actions))
			mse += l.Heuristic * float64(len(s.Actions))
			steps += len(s.Actions)
		}
		for _, p := range m.Params() {
			p.ZeroGrad()
		}
		return nll / float64(steps), mse / float64(steps)
	}
	nll0, mse0 := mean()
	for range 30 {
		for _, s := range ss {
			if _, err := tr.Step(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	nll, mse := mean()
	if nll > 0.5 || mse > 0.5 || mse > mse0/10 {
		t.Errorf("mean −log pi %.3g (%.3g before training, uniform %.2f), mean squared error of h %.3g (%.3g before); want both below 0.5",
			nll, nll0, math.Log(4), mse, mse0)
	}
}

// denseOnly hides a problem's AppendOnes, so that an Evaluator encodes
// its states densely.
type denseOnly struct{ search.Encoder[stp.LargeState] }

// badOnes is a problem whose AppendOnes gives a place past the encoding.
type badOnes struct{ *stp.Problem[stp.LargeState] }

func (b badOnes) AppendOnes(s stp.LargeState, dst []int32) []int32 {
	return append(b.Problem.AppendOnes(s, dst), 36*36)
}

// TestOneHotEvaluator checks that a ResNet's and a Conv network's
// outputs on the places of the ones of a search.OneHotEncoder are those
// on its dense encoding, up to rounding; that an Evaluator renews its
// copy of the input layer after CopyWeightsFrom, a Trainer's step and
// RestoreState; and that a place out of the encoding is an error.
func TestOneHotEvaluator(t *testing.T) {
	for _, arch := range []Arch{ResNet, Conv} {
		t.Run(arch.String(), func(t *testing.T) { testOneHotEvaluator(t, arch) })
	}
}

func testOneHotEvaluator(t *testing.T, arch Arch) {
	rng := rand.New(rand.NewPCG(4, 4))
	cfg := stpConfig(t, "phsh", 6, 6)
	if arch == ResNet {
		cfg.Arch, cfg.Units, cfg.Blocks, cfg.Hidden = ResNet, 20, 1, 9
	}
	m, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := stp.GenerateRandom[stp.LargeState](rng, 6, 6)
	states := []stp.LargeState{p.Root(), p.Goal()}
	for len(states) < 50 {
		if s, ok := p.Apply(states[len(states)-1], rng.IntN(4)); ok {
			states = append(states, s)
		}
	}
	eval := func(ev *Evaluator[stp.LargeState], p search.Problem[stp.LargeState]) ([]float64, []float64) {
		logPi, h := make([]float64, 4*len(states)), make([]float64, len(states))
		if err := ev.Evaluate(p, states, logPi, h); err != nil {
			t.Fatal(err)
		}
		return logPi, h
	}
	same := func(what string, a, b []float64) {
		t.Helper()
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-4*(1+math.Abs(b[i])) {
				t.Fatalf("%s: %d: %g, want %g", what, i, a[i], b[i])
			}
		}
	}
	ev := NewEvaluator[stp.LargeState](m)
	check := func(when string) {
		t.Helper()
		lp, h := eval(ev, p)
		wantLp, wantH := eval(NewEvaluator[stp.LargeState](m), denseOnly{p})
		same(when+", log-policy", lp, wantLp)
		same(when+", heuristic", h, wantH)
	}
	check("new")
	other, _ := New(cfg, 2)
	m.CopyWeightsFrom(other)
	check("after CopyWeightsFrom")
	tr := NewTrainer(m, TrainConfig{LearningRate: 0.1})
	smp := Sample{Inputs: make([]float32, 36*36), Actions: []int{1}, CostToGo: []float32{5}, Expansions: 1}
	p.Encode(p.Root(), smp.Inputs)
	var st TrainerState
	tr.CopyState(&st)
	if _, err := tr.Step(smp); err != nil {
		t.Fatal(err)
	}
	check("after a training step")
	tr.RestoreState(&st)
	check("after RestoreState")

	logPi, h := make([]float64, 4), make([]float64, 1)
	if err := ev.Evaluate(badOnes{p}, states[:1], logPi, h); err == nil || !strings.Contains(err.Error(), "place 1296 of an encoding of 1296") {
		t.Errorf("a place out of the encoding: error %v", err)
	}
}

// TestTrainOneHot checks that the training step of a ResNet and of a
// Conv network reads one-hot inputs as the places of their ones, and
// other inputs or too few states densely, and that its gradients on
// one-hot inputs are those of the dense way up to rounding.
func TestTrainOneHot(t *testing.T) {
	for name, cfg := range map[string]Config{"resnet": tinyResNet(t, "phsh"), "conv": tinyConfig(t, "phsh")} {
		t.Run(name, func(t *testing.T) { testTrainOneHot(t, cfg) })
	}
}

func testTrainOneHot(t *testing.T, cfg Config) {
	ss := samples(t, 3, 5)
	grads := func(share int) ([][]float32, bool) {
		defer func(s, r int) { oneHotShare, oneHotRows = s, r }(oneHotShare, oneHotRows)
		oneHotShare, oneHotRows = share, 1
		m, _ := New(cfg, 7)
		tr := NewTrainer(m, TrainConfig{})
		if _, err := tr.gradients(ss); err != nil {
			t.Fatal(err)
		}
		var g [][]float32
		for _, p := range m.Params() {
			g = append(g, p.Grad)
		}
		return g, tr.ws.oneHot
	}
	oneHot, read := grads(oneHotShare)
	dense, denseRead := grads(math.MaxInt)
	if !read || denseRead {
		t.Fatalf("one-hot inputs read as ones: %v; with no share of ones allowed: %v", read, denseRead)
	}
	for i, g := range oneHot {
		for j, v := range g {
			if w := dense[i][j]; math.Abs(float64(v-w)) > 1e-5*(1+math.Abs(float64(w))) {
				t.Fatalf("parameter %d[%d]: gradient %g from the ones, %g dense", i, j, v, w)
			}
		}
	}
	half := slices.Clone(ss)
	half[0].Inputs = slices.Clone(half[0].Inputs)
	half[0].Inputs[0] = 0.5
	m, _ := New(cfg, 7)
	tr := NewTrainer(m, TrainConfig{})
	defer func(r int) { oneHotRows = r }(oneHotRows)
	oneHotRows = 1
	if _, err := tr.gradients(half); err != nil || tr.ws.oneHot {
		t.Errorf("inputs with a 0.5: error %v, read as ones %v", err, tr.ws.oneHot)
	}
	oneHotRows = 10_000
	if _, err := tr.gradients(ss); err != nil || tr.ws.oneHot {
		t.Errorf("fewer states than oneHotRows: error %v, read as ones %v", err, tr.ws.oneHot)
	}
}
