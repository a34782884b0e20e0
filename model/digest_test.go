package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// TestWeightsDigest checks that Save records the SHA-256 of the weights'
// tensors in config.json and Trainer.Save that of the optimiser's state
// in its metadata, that Load, LoadFS and LoadTrainer refuse weights that
// do not match it (one finite weight changed, bytes flipped), naming the
// file, and that files without one load, with NoDigest saying so.
func TestWeightsDigest(t *testing.T) {
	m, _ := New(tinyConfig(t, "phsh"), 3)
	tr := NewTrainer(m, TrainConfig{})
	save := func(t *testing.T) string {
		t.Helper()
		dir := t.TempDir()
		if err := tr.Save(dir); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir := save(t)
	var cfg map[string]any
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, ConfigFile)), &cfg); err != nil {
		t.Fatal(err)
	}
	w, err := MarshalWeights(m)
	if err != nil {
		t.Fatal(err)
	}
	ts, _, err := decodeSafetensors(w)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg["weights_sha256"], weightsDigest(t, ts); got != want {
		t.Errorf("config.json's weights_sha256 is %v, want %s", got, want)
	}
	for _, load := range []func(string) (*Model, error){
		Load,
		func(dir string) (*Model, error) { return LoadFS(os.DirFS(dir), ".") },
		func(dir string) (*Model, error) {
			tr, err := LoadTrainer(dir, TrainConfig{})
			if err != nil {
				return nil, err
			}
			return tr.Model(), nil
		},
	} {
		got, err := load(dir)
		if err != nil || got.NoDigest() {
			t.Fatalf("files with their digests: %v, NoDigest %v", err, got != nil && got.NoDigest())
		}
	}

	// One weight at 3e38, finite: the values pass every other check.
	corrupt := func(t *testing.T, file string, change func(b []byte, data int)) string {
		t.Helper()
		dir := save(t)
		path := filepath.Join(dir, file)
		b := readFile(t, path)
		change(b, 8+int(binary.LittleEndian.Uint64(b)))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for _, tc := range []struct {
		name, file string
		change     func(b []byte, data int)
	}{
		{"a weight at 3e38", WeightsFile, func(b []byte, data int) {
			binary.LittleEndian.PutUint32(b[data+4:], math.Float32bits(3e38))
		}},
		{"50 bytes flipped", WeightsFile, func(b []byte, data int) {
			for i := range 50 {
				b[data+i*((len(b)-data)/50)] ^= 0x01
			}
		}},
		{"an optimiser's moment", OptimizerFile, func(b []byte, data int) {
			binary.LittleEndian.PutUint32(b[len(b)-4:], math.Float32bits(1e30))
		}},
	} {
		dir := corrupt(t, tc.file, tc.change)
		loads := []func() error{
			func() error { _, err := LoadTrainer(dir, TrainConfig{}); return err },
		}
		if tc.file == WeightsFile {
			loads = append(loads,
				func() error { _, err := Load(dir); return err },
				func() error {
					_, err := LoadFS(fstest.MapFS{
						"m/" + ConfigFile:  {Data: readFile(t, filepath.Join(dir, ConfigFile))},
						"m/" + WeightsFile: {Data: readFile(t, filepath.Join(dir, WeightsFile))},
					}, "m")
					return err
				})
		}
		for _, load := range loads {
			err := load()
			if err == nil || !strings.Contains(err.Error(), tc.file) || !strings.Contains(err.Error(), "SHA-256") {
				t.Errorf("%s: %v; want an error that names %s and its SHA-256", tc.name, err, tc.file)
			}
		}
	}

	// Files without a digest load, and say so.
	dir = save(t)
	cfgPath := filepath.Join(dir, ConfigFile)
	b := readFile(t, cfgPath)
	i := bytes.Index(b, []byte(`"weights_sha256"`))
	if i < 0 {
		t.Fatalf("no weights_sha256 in %s", b)
	}
	stripped := append(bytes.TrimRight(bytes.Clone(b[:i]), " \n,"), []byte("\n}\n")...)
	if err := os.WriteFile(cfgPath, stripped, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Load(dir); err != nil || !got.NoDigest() {
		t.Errorf("a config.json without weights_sha256: %v, NoDigest %v; want the model, NoDigest true", err, got != nil && got.NoDigest())
	}
	if err := os.WriteFile(cfgPath, bytes.Replace(b, []byte(`"weights_sha256": "`), []byte(`"weights_sha256": "x`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), ConfigFile) || !strings.Contains(err.Error(), "hexadecimal") {
		t.Errorf("a malformed weights_sha256: %v; want an error that names %s", err, ConfigFile)
	}
	if m2, _ := New(tinyConfig(t, "phsh"), 3); m2.NoDigest() {
		t.Error("a new model says its files had no digest")
	}
}

// weightsDigest returns the SHA-256 of the tensors ts as safetensors
// files hold them.
func weightsDigest(t *testing.T, ts map[string]tensor) string {
	t.Helper()
	b, err := encodeSafetensors(ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return digestOf(t, b)
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// digestOf returns the SHA-256 of the bytes after the header of the
// safetensors file b.
func digestOf(t *testing.T, b []byte) string {
	t.Helper()
	n := binary.LittleEndian.Uint64(b)
	sum := sha256.Sum256(b[8+n:])
	return hex.EncodeToString(sum[:])
}
