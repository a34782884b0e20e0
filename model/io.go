package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/phs-go/phs/internal/atomicfile"
	"github.com/phs-go/phs/internal/safetensors"
)

// File names in a model directory.
const (
	ConfigFile    = "config.json"
	WeightsFile   = "weights.safetensors"
	OptimizerFile = "optimizer.safetensors"
)

// Save writes m to directory dir, which it creates if needed: the
// configuration to config.json, with the SHA-256 of the weights' tensors
// (weights_sha256), and the weights to weights.safetensors, one F32
// tensor per parameter, named and shaped as the parameter (see Params and
// docs/MODEL_FORMAT.md), each file replaced atomically.
func Save(dir string, m *Model) error { return save(dir, m, safetensors.F32) }

// SaveF16 is Save with the weights in half precision, F16 tensors: half
// the file, each weight rounded to the nearest binary16 (11 significant
// bits; below 2^−14 in steps of 2^−24), which Load reads back exactly. A
// weight of magnitude 65520 or more, beyond the range, is an error.
func SaveF16(dir string, m *Model) error {
	for _, p := range m.Params() {
		for i, v := range p.Data {
			if h := safetensors.ToF16(v); h&0x7fff == 0x7c00 {
				return fmt.Errorf("model: parameter %s: value %d, %g, beyond half precision's ±65504", p.Name, i, v)
			}
		}
	}
	return save(dir, m, safetensors.F16)
}

// save is Save with the tensors made by enc.
func save(dir string, m *Model, enc func([]int, []float32) safetensors.Tensor) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	ts := stored(params(m, ""), enc)
	cfg, err := configJSON(m.cfg, safetensors.Digest(ts))
	if err != nil {
		return err
	}
	w, err := safetensors.Encode(ts, nil)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, WeightsFile), w); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, ConfigFile), cfg); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// MarshalWeights returns m's weights as weights.safetensors holds them.
func MarshalWeights(m *Model) ([]byte, error) { return encodeSafetensors(params(m, ""), nil) }

// UnmarshalWeights sets m's weights from b, in the format of
// weights.safetensors, with the shapes of m's parameters (see Load). On
// error, m's weights may be partly changed.
func UnmarshalWeights(m *Model, b []byte) error {
	ts, _, err := decodeSafetensors(b)
	if err == nil {
		err = fill(m, ts, "")
	}
	if err != nil {
		return fmt.Errorf("model: weights: %w", err)
	}
	return nil
}

// MarshalModel returns m whole, its configuration and its weights, in one
// safetensors file: the weights as weights.safetensors holds them, and
// the configuration, as config.json holds it, in the metadata "config".
// It is the form in which a learner's snapshot travels to workers.
func MarshalModel(m *Model) ([]byte, error) {
	cfg, err := json.Marshal(m.cfg)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return encodeSafetensors(params(m, ""), map[string]string{"config": string(cfg)})
}

// UnmarshalModel returns the model that MarshalModel wrote to b, checking
// the configuration as Load does.
func UnmarshalModel(b []byte) (*Model, error) {
	ts, meta, err := decodeSafetensors(b)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	var cfg Config
	dec := json.NewDecoder(strings.NewReader(meta["config"]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("model: configuration: %w", err)
	}
	if err := cfg.defaults(); err != nil {
		return nil, fmt.Errorf("model: configuration: %w", err)
	}
	m := newModel(cfg, nil)
	if err := fill(m, ts, ""); err != nil {
		return nil, fmt.Errorf("model: weights: %w", err)
	}
	return m, nil
}

// params returns the tensors of m's parameters, their names prefixed.
func params(m *Model, prefix string) map[string]tensor {
	ts := map[string]tensor{}
	for _, p := range m.Params() {
		ts[prefix+p.Name] = tensor{shape: p.Shape, data: p.Data}
	}
	return ts
}

// Load reads a model saved by Save from directory dir. Each tensor of
// weights.safetensors must have its parameter's shape; a convolution's
// weight may also have the flattened shape [out, in·kh·kw] of files written
// before the tensors carried their real shapes (docs/MODEL_FORMAT.md). The
// tensors must have the SHA-256 that config.json records; files written
// before it was recorded load unchecked, and the model's NoDigest says
// so. Errors name the file and what is wrong with it.
func Load(dir string) (*Model, error) { return load(os.DirFS(dir), ".", dir) }

// LoadFS reads a model saved by Save from directory dir of fsys.
func LoadFS(fsys fs.FS, dir string) (*Model, error) { return load(fsys, dir, dir) }

// load reads the model in directory dir of fsys; name is dir as errors
// show it. Unknown fields of config.json are an error, and its sizes are
// bounded (see Config), so that a bad file cannot exhaust the memory.
func load(fsys fs.FS, dir, name string) (*Model, error) {
	cfgName := filepath.Join(name, ConfigFile)
	b, err := fs.ReadFile(fsys, path.Join(dir, ConfigFile))
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", name, err)
	}
	var file configFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("model: %s: %w", cfgName, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("model: %s: data after the configuration", cfgName)
	}
	cfg, err := file.config()
	if err == nil {
		err = cfg.defaults()
	}
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", cfgName, err)
	}
	if file.WeightsSHA256 != "" {
		if err := safetensors.ValidDigest(file.WeightsSHA256); err != nil {
			return nil, fmt.Errorf("model: %s: weights_sha256: %w", cfgName, err)
		}
	}
	m, err := New(cfg, 0)
	if err != nil {
		return nil, err
	}
	weightsName := filepath.Join(name, WeightsFile)
	w, err := safetensors.ReadFile(fsys, path.Join(dir, WeightsFile), dataBytes(m))
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", weightsName, err)
	}
	ts, sum, _, err := decodeDigest(w)
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", weightsName, err)
	}
	if err := fill(m, ts, ""); err != nil {
		return nil, fmt.Errorf("model: %s: %w", weightsName, err)
	}
	if file.WeightsSHA256 == "" {
		m.noDigest = true
	} else if err := safetensors.CheckDigest(sum, file.WeightsSHA256); err != nil {
		return nil, fmt.Errorf("model: %s: %w (%s's weights_sha256)", weightsName, err, ConfigFile)
	}
	return m, nil
}

// dataBytes is the size in bytes of the values of m's parameters, as
// weights.safetensors holds them.
func dataBytes(m *Model) int64 {
	var n int64
	for _, p := range m.Params() {
		n += 4 * int64(len(p.Data))
	}
	return n
}

// fill copies the tensors named prefix+parameter into m's parameters.
func fill(m *Model, ts map[string]tensor, prefix string) error {
	for _, p := range m.Params() {
		name := prefix + p.Name
		t, ok := ts[name]
		if !ok {
			return fmt.Errorf("no tensor %q", name)
		}
		if err := copyTensor(p.Data, p.Shape, name, t); err != nil {
			return err
		}
	}
	return nil
}

// copyTensor copies the values of t, the tensor called name, to dst, the
// values of a parameter of the given shape. t must have that shape or, for
// a convolution's weight, its legacy shape (see legacyShape).
func copyTensor(dst []float32, shape []int, name string, t tensor) error {
	ok := slices.Equal(t.shape, shape) || slices.Equal(t.shape, legacyShape(shape))
	if !ok || len(t.data) != len(dst) {
		return fmt.Errorf("tensor %q has shape %v, the configuration wants %v", name, t.shape, shape)
	}
	copy(dst, t.data)
	return nil
}

// legacyShape returns the other shape that Load and LoadTrainer accept for
// a parameter of the given shape, or nil if there is none. Files written
// before the tensors carried their real shapes stored a convolution's
// weight [out, in, kh, kw] as the matrix [out, in·kh·kw]; its values are in
// the same order in both, so such a tensor is read as it is. The other
// parameters had their real shapes already.
func legacyShape(shape []int) []int {
	if len(shape) != 4 {
		return nil
	}
	return []int{shape[0], shape[1] * shape[2] * shape[3]}
}

// Save writes the trainer to directory dir: the model's files, as Save
// writes them, and optimizer.safetensors, with Adam's step count (metadata
// "step"), the SHA-256 of its tensors (metadata "sha256") and its moment
// estimates, one pair of tensors per parameter, "m/" and "v/" followed by
// the parameter's name, in the parameter's shape.
func (t *Trainer) Save(dir string) error {
	if err := Save(dir, t.m); err != nil {
		return err
	}
	ts := map[string]tensor{}
	for i, p := range t.opt.Params {
		ts["m/"+p.Name] = tensor{shape: p.Shape, data: t.opt.M[i]}
		ts["v/"+p.Name] = tensor{shape: p.Shape, data: t.opt.V[i]}
	}
	st := stored(ts, safetensors.F32)
	b, err := safetensors.Encode(st, map[string]string{"step": strconv.Itoa(t.opt.T), safetensors.DigestKey: safetensors.Digest(st)})
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, OptimizerFile), b); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// LoadTrainer reads what Trainer.Save wrote to directory dir, with the
// model as Load reads it; each moment estimate must have its parameter's
// shape, or the legacy shape Load accepts for it, and the tensors the
// SHA-256 of the file's metadata "sha256" (without one, as Trainer.Save
// wrote before it recorded it, the model's NoDigest is true).
func LoadTrainer(dir string, cfg TrainConfig) (*Trainer, error) {
	m, err := Load(dir)
	if err != nil {
		return nil, err
	}
	t := NewTrainer(m, cfg)
	name := filepath.Join(dir, OptimizerFile)
	b, err := safetensors.ReadFile(os.DirFS(dir), OptimizerFile, 2*dataBytes(m))
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", name, err)
	}
	ts, sum, meta, err := decodeDigest(b)
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", name, err)
	}
	step, err := strconv.Atoi(meta["step"])
	if err != nil {
		return nil, fmt.Errorf("model: %s: bad step %q", name, meta["step"])
	}
	t.opt.T = step
	for i, p := range t.opt.Params {
		for _, mv := range []struct {
			prefix string
			dst    []float32
		}{{"m/", t.opt.M[i]}, {"v/", t.opt.V[i]}} {
			tn := mv.prefix + p.Name
			x, ok := ts[tn]
			if !ok {
				return nil, fmt.Errorf("model: %s: no tensor %q", name, tn)
			}
			if err := copyTensor(mv.dst, p.Shape, tn, x); err != nil {
				return nil, fmt.Errorf("model: %s: %w", name, err)
			}
		}
	}
	if want, ok := meta[safetensors.DigestKey]; !ok {
		m.noDigest = true
	} else if err := safetensors.CheckDigest(sum, want); err != nil {
		return nil, fmt.Errorf("model: %s: %w", name, err)
	}
	return t, nil
}
