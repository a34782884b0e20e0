package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/internal/safetensors"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// readHeader returns the tensors' shapes and the metadata of the
// safetensors file at path, read from its header as another program would.
func readHeader(t *testing.T, path string) (map[string][]int, map[string]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(b)
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+n], &raw); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	shapes := map[string][]int{}
	var meta map[string]string
	for name, msg := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(msg, &meta); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			continue
		}
		var h struct {
			DType string `json:"dtype"`
			Shape []int  `json:"shape"`
		}
		if err := json.Unmarshal(msg, &h); err != nil {
			t.Fatalf("%s: %s: %v", path, name, err)
		}
		if h.DType != "F32" {
			t.Errorf("%s: %s: dtype %s, want F32", path, name, h.DType)
		}
		shapes[name] = h.Shape
	}
	return shapes, meta
}

// TestSavedShapes checks that the files of Save and Trainer.Save give each
// tensor its real shape, PyTorch's: [out, in, kh, kw] for the
// convolutions' weights, [out, in] for the dense layers', [out] for the
// biases, and the same shapes for the moment estimates.
func TestSavedShapes(t *testing.T) {
	cfg := configOf(t, "sokoban", "phsstar", 4, 6, 5)
	cfg.Filters, cfg.Hidden, cfg.Kernel = 3, 7, 2
	m, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := NewTrainer(m, TrainConfig{}).Save(dir); err != nil {
		t.Fatal(err)
	}
	flat := 3 * 4 * 3 // filters × (6−2) × (5−2)
	want := map[string][]int{
		"conv1.weight": {3, 4, 2, 2}, "conv1.bias": {3},
		"conv2.weight": {3, 3, 2, 2}, "conv2.bias": {3},
		"policy1.weight": {7, flat}, "policy1.bias": {7},
		"policy2.weight": {4, 7}, "policy2.bias": {4},
		"heuristic1.weight": {7, flat}, "heuristic1.bias": {7},
		"heuristic2.weight": {1, 7}, "heuristic2.bias": {1},
	}
	got, _ := readHeader(t, filepath.Join(dir, WeightsFile))
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: shapes\n%v\nwant\n%v", WeightsFile, got, want)
	}
	opt, meta := readHeader(t, filepath.Join(dir, OptimizerFile))
	wantOpt := map[string][]int{}
	for name, s := range want {
		wantOpt["m/"+name], wantOpt["v/"+name] = s, s
	}
	if fmt.Sprint(opt) != fmt.Sprint(wantOpt) || meta["step"] != "0" {
		t.Errorf("%s: shapes\n%v\nmetadata %v\nwant\n%v\nand step 0", OptimizerFile, opt, meta, wantOpt)
	}
}

// TestTrainerSaveLoadExact checks that Trainer.Save and LoadTrainer give
// back the weights, the moment estimates and the step count bit for bit,
// and that saving again writes the same files.
func TestTrainerSaveLoadExact(t *testing.T) {
	m, _ := New(tinyConfig(t, "phsh"), 9)
	tr := NewTrainer(m, TrainConfig{})
	for _, s := range samples(t, 2, 10) {
		if _, err := tr.Step(s); err != nil {
			t.Fatal(err)
		}
	}
	dir, again := t.TempDir(), t.TempDir()
	if err := tr.Save(dir); err != nil {
		t.Fatal(err)
	}
	back, err := LoadTrainer(dir, TrainConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if back.opt.T != tr.opt.T {
		t.Errorf("step %d, want %d", back.opt.T, tr.opt.T)
	}
	for i, p := range m.Params() {
		q := back.m.Params()[i]
		if !slices.Equal(q.Shape, p.Shape) || !sameBits(q.Data, p.Data) ||
			!sameBits(back.opt.M[i], tr.opt.M[i]) || !sameBits(back.opt.V[i], tr.opt.V[i]) {
			t.Errorf("%s: the loaded shape, weights or moments differ", p.Name)
		}
	}
	if err := back.Save(again); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{ConfigFile, WeightsFile, OptimizerFile} {
		a, _ := os.ReadFile(filepath.Join(dir, f))
		b, _ := os.ReadFile(filepath.Join(again, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: saving the loaded trainer writes another file", f)
		}
	}
}

// TestTrainerRestoreState checks that RestoreState undoes the steps
// taken since CopyState, bit for bit, also on threads' copies of the
// model: the steps taken again from there save the same files as the
// first time, on one thread and on two.
func TestTrainerRestoreState(t *testing.T) {
	ss := samples(t, 40, 12)
	if n := states(ss[2:]); n < 2*minShare {
		t.Fatalf("%d states: too few for 2 threads", n)
	}
	for _, threads := range []int{1, 2} {
		tr := NewTrainer(mustNew(t, tinyConfig(t, "phsh")), TrainConfig{LearningRate: 1e-2, Threads: threads})
		if _, err := tr.StepBatch(ss[:2]); err != nil {
			t.Fatal(err)
		}
		var st TrainerState
		tr.CopyState(&st)
		steps := func() []byte {
			t.Helper()
			for range 3 {
				if _, err := tr.StepBatch(ss[2:]); err != nil {
					t.Fatal(err)
				}
			}
			dir := t.TempDir()
			if err := tr.Save(dir); err != nil {
				t.Fatal(err)
			}
			var all []byte
			for _, f := range []string{WeightsFile, OptimizerFile} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, b...)
			}
			return all
		}
		first := steps()
		tr.RestoreState(&st)
		if tr.Steps() != 1 {
			t.Errorf("%d threads: %d steps after RestoreState, want 1", threads, tr.Steps())
		}
		if again := steps(); !bytes.Equal(again, first) {
			t.Errorf("%d threads: the steps after RestoreState end with other weights or moments", threads)
		}
		tr.CopyState(&st) // reuses st's memory
		tr.RestoreState(&st)
		if again := steps(); bytes.Equal(again, first) {
			t.Errorf("%d threads: the steps from a later state end as those from the first", threads)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("RestoreState of an empty TrainerState did not panic")
		}
	}()
	NewTrainer(mustNew(t, tinyConfig(t, "phsh")), TrainConfig{}).RestoreState(&TrainerState{})
}

// nearlyEqual reports whether a and b are equal within a relative 1e-5.
func nearlyEqual(a, b []float32) bool {
	return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Abs(float64(x-y)) <= 1e-5*math.Max(1, math.Abs(float64(y))) })
}

// sameBits reports whether a and b hold the same float32 bit patterns.
func sameBits(a, b []float32) bool {
	return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
}

// legacyTensors returns the tensors of m's parameters, their names
// prefixed, with the convolutions' weights flattened to [out, in·kh·kw] as
// files written before the real shapes had them.
func legacyTensors(m *Model, prefix string, data func(i int) []float32) map[string]tensor {
	ts := map[string]tensor{}
	for i, p := range m.Params() {
		shape := p.Shape
		if len(shape) == 4 {
			shape = []int{shape[0], shape[1] * shape[2] * shape[3]}
		}
		ts[prefix+p.Name] = tensor{shape: shape, data: data(i)}
	}
	return ts
}

// TestLegacyLayout checks that weights and optimiser files in the legacy
// layout (convolutions' weights flattened) load to the same model and
// optimiser state as files in the real shapes, and that other shapes are
// still refused.
func TestLegacyLayout(t *testing.T) {
	m, _ := New(tinyConfig(t, "phsh"), 9)
	tr := NewTrainer(m, TrainConfig{})
	for _, s := range samples(t, 2, 10) {
		if _, err := tr.Step(s); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if err := tr.Save(dir); err != nil {
		t.Fatal(err)
	}
	w, err := encodeSafetensors(legacyTensors(m, "", func(i int) []float32 { return m.Params()[i].Data }), nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := legacyTensors(m, "m/", func(i int) []float32 { return tr.opt.M[i] })
	for name, x := range legacyTensors(m, "v/", func(i int) []float32 { return tr.opt.V[i] }) {
		ts[name] = x
	}
	o, err := encodeSafetensors(ts, map[string]string{"step": strconv.Itoa(tr.opt.T)})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, WeightsFile), w, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, OptimizerFile), o, 0o644); err != nil {
		t.Fatal(err)
	}
	if shapes, _ := readHeader(t, filepath.Join(dir, WeightsFile)); fmt.Sprint(shapes["conv1.weight"]) != "[3 36]" {
		t.Fatalf("the legacy file has conv1.weight of shape %v, want [3 36]", shapes["conv1.weight"])
	}
	back, err := LoadTrainer(dir, TrainConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range m.Params() {
		if !sameBits(back.m.Params()[i].Data, p.Data) || !sameBits(back.opt.M[i], tr.opt.M[i]) || !sameBits(back.opt.V[i], tr.opt.V[i]) {
			t.Errorf("%s: the legacy file loads other weights or moments", p.Name)
		}
	}
	x := samples(t, 1, 11)[0].Inputs
	n := len(x) / 81
	var w1, w2 workspace
	m.forward(&w1, x, n)
	back.m.forward(&w2, x, n)
	// The weights are the same bits (checked above), but gonum's kernels
	// sum a dot product in an order that depends on where its vectors lie
	// in memory (they first align one on 16 bytes): the outputs are equal
	// up to rounding, not always bitwise.
	near := func(a, b []float32) bool {
		return slices.EqualFunc(a, b, func(x, y float32) bool {
			return math.Abs(float64(x-y)) <= 1e-6*max(1, math.Abs(float64(y)))
		})
	}
	if !near(w1.logits[:4*n], w2.logits[:4*n]) || !near(w1.hout[:n], w2.hout[:n]) {
		t.Errorf("the model loaded from the legacy file computes other outputs: %v and %v, %v and %v", w1.logits[:4*n], w2.logits[:4*n], w1.hout[:n], w2.hout[:n])
	}

	// Other flattenings, or a transposed matrix, are errors.
	for _, bad := range [][]int{{36, 3}, {3 * 36}, {3, 9, 4}} {
		ts := params(m, "")
		ts["conv1.weight"] = tensor{shape: bad, data: m.conv1.Weight.Data}
		b, err := encodeSafetensors(ts, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, WeightsFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), `tensor "conv1.weight" has shape`) {
			t.Errorf("conv1.weight of shape %v: error %v", bad, err)
		}
	}
	ts = params(m, "")
	ts["policy1.weight"] = tensor{shape: []int{m.pol1.In, m.pol1.Out}, data: m.pol1.Weight.Data}
	b, _ := encodeSafetensors(ts, nil)
	os.WriteFile(filepath.Join(dir, WeightsFile), b, 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), `tensor "policy1.weight" has shape`) {
		t.Errorf("a transposed policy1.weight: error %v", err)
	}
}

// TestLoadTrainerShapes checks that LoadTrainer refuses moment
// estimates of another shape than their parameter's, even with as many
// values.
func TestLoadTrainerShapes(t *testing.T) {
	m, _ := New(tinyConfig(t, "levints"), 9)
	tr := NewTrainer(m, TrainConfig{})
	dir := t.TempDir()
	if err := tr.Save(dir); err != nil {
		t.Fatal(err)
	}
	ts := map[string]tensor{}
	for i, p := range tr.opt.Params {
		ts["m/"+p.Name] = tensor{shape: p.Shape, data: tr.opt.M[i]}
		ts["v/"+p.Name] = tensor{shape: p.Shape, data: tr.opt.V[i]}
	}
	ts["v/policy2.weight"] = tensor{shape: []int{m.pol2.In, m.pol2.Out}, data: tr.opt.V[len(tr.opt.V)-2]}
	b, _ := encodeSafetensors(ts, map[string]string{"step": "0"})
	os.WriteFile(filepath.Join(dir, OptimizerFile), b, 0o644)
	if _, err := LoadTrainer(dir, TrainConfig{}); err == nil || !strings.Contains(err.Error(), `tensor "v/policy2.weight" has shape [5 4]`) {
		t.Errorf("a transposed v/policy2.weight: error %v", err)
	}
	delete(ts, "m/conv2.bias")
	b, _ = encodeSafetensors(ts, map[string]string{"step": "0"})
	os.WriteFile(filepath.Join(dir, OptimizerFile), b, 0o644)
	if _, err := LoadTrainer(dir, TrainConfig{}); err == nil || !strings.Contains(err.Error(), `no tensor "m/conv2.bias"`) {
		t.Errorf("no m/conv2.bias: error %v", err)
	}
}

// The golden files: encoded states of The Witness, and the outputs on them
// of testdata/witness-both (a
// small untrained network with both heads, made by New with seed 1) and of
// testdata/witness-resnet (a small untrained ResNet with both heads, 16
// units and 2 blocks, made by New with seed 7, its biases then drawn
// uniformly from [−0.5, 0.5)), as docs/MODEL_FORMAT.md and
// scripts/model_reference.py describe them.
const (
	goldenInputs  = "testdata/witness-inputs.npy"
	goldenOutputs = "testdata/witness-outputs.json"
)

// goldenModels are the model directories of the golden outputs.
var goldenModels = []string{"testdata/witness-both", "testdata/witness-resnet"}

// golden is the content of goldenOutputs.
type golden struct {
	Inputs string         `json:"inputs"`
	Models []goldenOutput `json:"models"`
}

// goldenOutput holds the outputs of one model: one row of log-policy per
// input, and h unless the model has no heuristic head.
type goldenOutput struct {
	Dir       string      `json:"dir"`
	LogPolicy [][]float32 `json:"log_policy,omitempty"`
	H         []float32   `json:"h,omitempty"`
}

// TestGoldenOutputs checks the outputs of the golden models
// on fixed inputs against the golden file, which holds what this code
// computed when it was written (go test ./model -run Golden -update
// rewrites both files). Other implementations of the forward pass, such as
// scripts/model_reference.py, are checked against the same file. The
// tolerance allows for the other rounding of other matrix-product
// libraries (OpenBLAS or pure Go: see package nn).
func TestGoldenOutputs(t *testing.T) {
	if *update {
		writeGoldenInputs(t)
	}
	x, shape := readNPY(t, goldenInputs)
	n := shape[0]
	var got golden
	got.Inputs = filepath.Base(goldenInputs)
	for _, dir := range goldenModels {
		m, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		c := m.Config()
		if want := []int{n, c.Channels, c.Height, c.Width}; !slices.Equal(shape, want) {
			t.Fatalf("%s: shape %v, %s takes %v", goldenInputs, shape, dir, want)
		}
		var w workspace
		m.forward(&w, x, n)
		out := goldenOutput{Dir: dir}
		if c.Heads&Policy != 0 {
			for i := range n {
				out.LogPolicy = append(out.LogPolicy, slices.Clone(w.logits[i*c.Actions:(i+1)*c.Actions]))
			}
		}
		if c.Heads&Heuristic != 0 {
			out.H = slices.Clone(w.hout[:n])
		}
		got.Models = append(got.Models, out)
	}
	if *update {
		b, err := json.MarshalIndent(got, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenOutputs, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(goldenOutputs)
	if err != nil {
		t.Fatal(err)
	}
	var want golden
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s: %v", goldenOutputs, err)
	}
	if len(want.Models) != len(got.Models) {
		t.Fatalf("%s: %d models, want %d", goldenOutputs, len(want.Models), len(got.Models))
	}
	const tol = 1e-4
	near := func(name string, got, want []float32) {
		if len(got) != len(want) {
			t.Errorf("%s: %d values, want %d", name, len(got), len(want))
			return
		}
		for i := range got {
			if d := math.Abs(float64(got[i] - want[i])); !(d <= tol*math.Max(1, math.Abs(float64(want[i])))) {
				t.Errorf("%s[%d] = %g, want %g", name, i, got[i], want[i])
			}
		}
	}
	for k, g := range got.Models {
		w := want.Models[k]
		if g.Dir != w.Dir || len(g.LogPolicy) != len(w.LogPolicy) || (g.H == nil) != (w.H == nil) {
			t.Fatalf("%s: model %d is %s with %d policy rows and h %v; want %s with %d and %v",
				goldenOutputs, k, w.Dir, len(w.LogPolicy), w.H != nil, g.Dir, len(g.LogPolicy), g.H != nil)
		}
		for i := range g.LogPolicy {
			near(fmt.Sprintf("%s log-policy %d", g.Dir, i), g.LogPolicy[i], w.LogPolicy[i])
		}
		near(g.Dir+" h", g.H, w.H)
	}
}

// writeGoldenInputs writes to goldenInputs the encodings of a few states of
// the sample Witness puzzles: for each of the first four, the empty line
// and lines of 3 and 7 moves drawn at random (or shorter, where a line
// cannot go on).
func writeGoldenInputs(t *testing.T) {
	ps, err := witness.ReadFile("../examples/witness-4x4.txt")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	c, h, w := ps[0].InputShape()
	size := c * h * w
	var x []float32
	n := 0
	for _, p := range ps[:4] {
		s := p.Root()
		for _, moves := range []int{0, 3, 4} {
			for range moves {
				for _, a := range rng.Perm(p.NumActions()) {
					if next, ok := p.Apply(s, a); ok {
						s = next
						break
					}
				}
			}
			x = append(x, make([]float32, size)...)
			p.Encode(s, x[n*size:])
			n++
		}
	}
	if err := os.WriteFile(goldenInputs, appendNPY(nil, x, n, c, h, w), 0o644); err != nil {
		t.Fatal(err)
	}
}

// appendNPY appends to b the NPY (version 1.0) encoding of x, a C-order
// little-endian float32 array of the given shape.
func appendNPY(b []byte, x []float32, shape ...int) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.Itoa(d)
	}
	header := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%s,), }", strings.Join(dims, ", "))
	// Magic, version and length take 10 bytes; the header ends with a
	// newline and pads the whole to a multiple of 64 bytes.
	header += strings.Repeat(" ", 63-(10+len(header))%64) + "\n"
	b = append(b, "\x93NUMPY\x01\x00"...)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(header)))
	b = append(b, header...)
	for _, v := range x {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

var npyShape = regexp.MustCompile(`^\{'descr': '<f4', 'fortran_order': False, 'shape': \(([0-9, ]+)\), \} *\n$`)

// readNPY reads the NPY file written by appendNPY at path.
func readNPY(t *testing.T, path string) ([]float32, []int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 10 || string(b[:8]) != "\x93NUMPY\x01\x00" {
		t.Fatalf("%s: not an NPY 1.0 file", path)
	}
	hl := int(binary.LittleEndian.Uint16(b[8:]))
	if len(b) < 10+hl {
		t.Fatalf("%s: truncated header", path)
	}
	match := npyShape.FindStringSubmatch(string(b[10 : 10+hl]))
	if match == nil {
		t.Fatalf("%s: header %q, want a C-order <f4 array", path, b[10:10+hl])
	}
	var shape []int
	count := 1
	for _, f := range strings.Split(match[1], ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		d, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("%s: shape %q", path, match[1])
		}
		shape = append(shape, d)
		count *= d
	}
	data := b[10+hl:]
	if len(data) != 4*count {
		t.Fatalf("%s: %d data bytes for shape %v", path, len(data), shape)
	}
	x := make([]float32, count)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return x, shape
}

// TestLoadNonFinite checks that a NaN or an infinity in a weight or a
// moment estimate is an error that names the file and the tensor.
func TestLoadNonFinite(t *testing.T) {
	m, _ := New(tinyConfig(t, "phsh"), 3)
	tr := NewTrainer(m, TrainConfig{})
	for _, tc := range []struct {
		file, tensor string
		value        float32
	}{
		{WeightsFile, "conv2.weight", float32(math.NaN())},
		{WeightsFile, "heuristic2.bias", float32(math.Inf(1))},
		{OptimizerFile, "v/conv1.bias", float32(math.Inf(-1))},
	} {
		dir := t.TempDir()
		if err := tr.Save(dir); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, tc.file)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ts, meta, err := decodeSafetensors(b)
		if err != nil {
			t.Fatal(err)
		}
		x, ok := ts[tc.tensor]
		if !ok {
			t.Fatalf("%s has no tensor %q", tc.file, tc.tensor)
		}
		x.data[len(x.data)-1] = tc.value
		if b, err = encodeSafetensors(ts, meta); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("model: %s: safetensors: tensor %q: value %d of %d is %v", path, tc.tensor, len(x.data)-1, len(x.data), tc.value)
		_, err = LoadTrainer(dir, TrainConfig{})
		if err == nil || err.Error() != want {
			t.Errorf("LoadTrainer: %v, want %s", err, want)
		}
		if tc.file == WeightsFile {
			if _, err := Load(dir); err == nil || err.Error() != want {
				t.Errorf("Load: %v, want %s", err, want)
			}
			if err := UnmarshalWeights(m, b); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("tensor %q", tc.tensor)) {
				t.Errorf("UnmarshalWeights: %v, want an error that names %q", err, tc.tensor)
			}
		}
	}
}

// TestLoadHugeFile checks that a safetensors header longer than
// safetensors.MaxHeader, or more data than the model's parameters hold,
// is an error found before the file is read: Load allocates little for
// files of hundreds of megabytes (sparse files, which take no room on the
// disk).
func TestLoadHugeFile(t *testing.T) {
	m, _ := New(tinyConfig(t, "phsh"), 3)
	w, err := MarshalWeights(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		header uint64 // the header length written
		size   int64  // the file's size
		msg    string
	}{
		{"header over the limit", safetensors.MaxHeader + 1, 8 + safetensors.MaxHeader + 1 + dataBytes(m), "safetensors: header of 100000001 bytes, more than the 100000000 allowed"},
		{"header of 2 GB", 2 << 30, 8 + 2<<30, "safetensors: header of 2147483648 bytes, more than the 100000000 allowed"},
		{"data of 300 MB", binary.LittleEndian.Uint64(w), 300 << 20, "bytes of data, more than the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := Save(dir, m); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, WeightsFile)
			b := binary.LittleEndian.AppendUint64(nil, tc.header)
			b = append(b, w[8:]...)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, tc.size); err != nil {
				t.Skipf("cannot make a sparse file: %v", err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Load(dir)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), path) {
				t.Errorf("Load: %v, want an error that names %s and says %q", err, path, tc.msg)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
				t.Errorf("Load allocated %d bytes for a file of %d", alloc, tc.size)
			}
		})
	}
}
