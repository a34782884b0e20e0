package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/internal/safetensors"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/models"
)

const noDigestWarning = "record no SHA-256 of their tensors"

// TestModelDigests checks that the shipped models and the files phs
// writes are read without a warning, that a model's files without the
// SHA-256 of their tensors are read with a warning that names the model
// (solve, test and train -model, train -resume), and that weights that
// do not match it are an error that names the file.
func TestModelDigests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tiles := "../domain/stp/testdata/puzzles_5x5_test-first40.txt"
	wit := "../domain/witness/testdata/puzzles_4x4_test-first40.txt"
	run := func(args ...string) (string, error) {
		t.Helper()
		if args[0] != "train" {
			args = append(args, "-first", "1")
		}
		_, errOut, err := runPHS(t, append(args, "-budget", "10", "-progress", "0")...)
		return errOut, err
	}
	for _, args := range [][]string{{"solve", "-domain", "stp", tiles}, {"solve", "-domain", "witness", wit}, {"solve", "-domain", "sokoban", "-model", "sokoban-hard", "../domain/sokoban/testdata/boxoban-test-000-first40.txt"}} {
		if errOut, err := run(args...); err != nil || strings.Contains(errOut, noDigestWarning) {
			t.Errorf("%v, with the shipped model: %v\n%s", args, err, errOut)
		}
	}

	shipped, err := models.Named("stp")
	if err != nil {
		t.Fatal(err)
	}
	net := filepath.Join(dir, "net")
	if err := model.Save(net, shipped.Network); err != nil {
		t.Fatal(err)
	}
	if errOut, err := run("solve", "-domain", "stp", "-model", net, tiles); err != nil || strings.Contains(errOut, noDigestWarning) {
		t.Errorf("a network that model.Save wrote: %v\n%s", err, errOut)
	}
	weights := filepath.Join(net, model.WeightsFile)
	saved := readBytes(t, weights)
	corrupt := append([]byte(nil), saved...)
	binary.LittleEndian.PutUint32(corrupt[len(corrupt)-4:], math.Float32bits(3e38))
	writeTo(t, weights, string(corrupt))
	if _, err := run("solve", "-domain", "stp", "-model", net, tiles); err == nil || !strings.Contains(err.Error(), weights) || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("a weight at 3e38: %v; want an error that names %s and its SHA-256", err, weights)
	}
	writeTo(t, weights, string(saved))
	config := filepath.Join(net, model.ConfigFile)
	var cfg map[string]any
	if err := json.Unmarshal(readBytes(t, config), &cfg); err != nil {
		t.Fatal(err)
	}
	delete(cfg, "weights_sha256")
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	writeTo(t, config, string(b))
	for _, args := range [][]string{
		{"solve", "-domain", "stp", "-model", net, tiles},
		{"test", "-domain", "stp", "-model", net, "-rounds", "1", tiles},
		{"train", "-domain", "stp", "-model", net, "-iterations", "1", "-workers", "1", "-dir", filepath.Join(dir, "run"), tiles},
	} {
		if errOut, err := run(args...); err != nil || !strings.Contains(errOut, noDigestWarning) || !strings.Contains(errOut, net) {
			t.Errorf("%s of a network without weights_sha256: %v; want a warning that names it\n%s", args[0], err, errOut)
		}
	}

	// A context model's table without its digest.
	w, err := models.Named("witness")
	if err != nil {
		t.Fatal(err)
	}
	table := filepath.Join(dir, "table.safetensors")
	if err := cm.WriteCompactTable(table, w.Table, 8); err != nil {
		t.Fatal(err)
	}
	writeTo(t, table, string(stripDigest(t, readBytes(t, table))))
	if errOut, err := run("solve", "-domain", "witness", "-model", table, wit); err != nil || !strings.Contains(errOut, noDigestWarning) || !strings.Contains(errOut, table) {
		t.Errorf("a table without its digest: %v; want a warning that names it\n%s", err, errOut)
	}

	// -resume of a context model's run whose files record no digest.
	ctxRun := filepath.Join(dir, "ctx")
	train := trainingSet(t, dir)
	if _, errOut, err := runPHS(t, "train", "-domain", "witness", "-learner", "context", "-iterations", "1", "-budget", "50", "-dir", ctxRun, train); err != nil {
		t.Fatalf("train: %v\n%s", err, errOut)
	}
	cp := filepath.Join(ctxRun, "checkpoint")
	// The table as an earlier phs wrote it: uncompressed, without a digest.
	gz := filepath.Join(cp, cm.TableFile+cm.GzipSuffix)
	writeTo(t, filepath.Join(cp, cm.TableFile), string(stripDigest(t, readBytes(t, gz))))
	if err := os.Remove(gz); err != nil {
		t.Fatal(err)
	}
	_, errOut, err := runPHS(t, "train", "-resume", ctxRun, "-iterations", "2")
	if err != nil || !strings.Contains(errOut, noDigestWarning) || !strings.Contains(errOut, cp) {
		t.Errorf("-resume of a checkpoint without digests: %v; want a warning that names it\n%s", err, errOut)
	}
}

// stripDigest returns the safetensors file b without the digest of its
// metadata, as files were written before it was recorded.
func stripDigest(t *testing.T, b []byte) []byte {
	t.Helper()
	ts, meta, err := safetensors.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	delete(meta, safetensors.DigestKey)
	if b, err = safetensors.Encode(ts, meta); err != nil {
		t.Fatal(err)
	}
	return b
}

// readBytes returns the contents of the file name, decompressed if its
// name ends in cm.GzipSuffix.
func readBytes(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, cm.GzipSuffix) {
		z, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(z); err != nil {
			t.Fatal(err)
		}
	}
	return b
}
