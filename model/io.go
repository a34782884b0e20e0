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

	"github.com/phs-go/phs/internal/atomicfile"
)

// File names in a model directory.
const (
	ConfigFile    = "config.json"
	WeightsFile   = "weights.safetensors"
	OptimizerFile = "optimizer.safetensors"
)

// Save writes m to directory dir, which it creates if needed: the
// configuration to config.json and the weights to weights.safetensors, each
// file replaced atomically.
func Save(dir string, m *Model) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	cfg, err := configJSON(m.cfg)
	if err != nil {
		return err
	}
	w, err := encodeSafetensors(params(m, ""), nil)
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

// params returns the tensors of m's parameters, their names prefixed.
func params(m *Model, prefix string) map[string]tensor {
	ts := map[string]tensor{}
	for _, p := range m.Params() {
		ts[prefix+p.Name] = tensor{shape: p.Shape, data: p.Data}
	}
	return ts
}

// Load reads a model saved by Save from directory dir. Errors name the
// file and what is wrong with it.
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
	var cfg Config
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("model: %s: %w", cfgName, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("model: %s: data after the configuration", cfgName)
	}
	if err := cfg.defaults(); err != nil {
		return nil, fmt.Errorf("model: %s: %w", cfgName, err)
	}
	m, err := New(cfg, 0)
	if err != nil {
		return nil, err
	}
	w, err := fs.ReadFile(fsys, path.Join(dir, WeightsFile))
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", name, err)
	}
	ts, _, err := decodeSafetensors(w)
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", filepath.Join(name, WeightsFile), err)
	}
	if err := fill(m, ts, ""); err != nil {
		return nil, fmt.Errorf("model: %s: %w", filepath.Join(name, WeightsFile), err)
	}
	return m, nil
}

// fill copies the tensors named prefix+parameter into m's parameters.
func fill(m *Model, ts map[string]tensor, prefix string) error {
	for _, p := range m.Params() {
		t, ok := ts[prefix+p.Name]
		if !ok {
			return fmt.Errorf("no tensor %q", prefix+p.Name)
		}
		if len(t.data) != len(p.Data) || !slices.Equal(t.shape, p.Shape) {
			return fmt.Errorf("tensor %q has shape %v, the configuration wants %v", prefix+p.Name, t.shape, p.Shape)
		}
		copy(p.Data, t.data)
	}
	return nil
}

// Save writes the model and the optimiser's state to directory dir.
func (t *Trainer) Save(dir string) error {
	if err := Save(dir, t.m); err != nil {
		return err
	}
	ts := map[string]tensor{}
	for i, p := range t.opt.Params {
		ts["m/"+p.Name] = tensor{shape: p.Shape, data: t.opt.M[i]}
		ts["v/"+p.Name] = tensor{shape: p.Shape, data: t.opt.V[i]}
	}
	b, err := encodeSafetensors(ts, map[string]string{"step": strconv.Itoa(t.opt.T)})
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, OptimizerFile), b); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// LoadTrainer reads what Trainer.Save wrote.
func LoadTrainer(dir string, cfg TrainConfig) (*Trainer, error) {
	m, err := Load(dir)
	if err != nil {
		return nil, err
	}
	t := NewTrainer(m, cfg)
	b, err := os.ReadFile(filepath.Join(dir, OptimizerFile))
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	ts, meta, err := decodeSafetensors(b)
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", OptimizerFile, err)
	}
	step, err := strconv.Atoi(meta["step"])
	if err != nil {
		return nil, fmt.Errorf("model: %s: bad step %q", OptimizerFile, meta["step"])
	}
	t.opt.T = step
	for i, p := range t.opt.Params {
		for _, mv := range []struct {
			prefix string
			dst    []float32
		}{{"m/", t.opt.M[i]}, {"v/", t.opt.V[i]}} {
			ts, ok := ts[mv.prefix+p.Name]
			if !ok || len(ts.data) != len(mv.dst) {
				return nil, fmt.Errorf("model: %s: missing or misshapen %s%s", OptimizerFile, mv.prefix, p.Name)
			}
			copy(mv.dst, ts.data)
		}
	}
	return t, nil
}
