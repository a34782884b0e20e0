package cm

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/internal/safetensors"
)

// dataDigest returns the SHA-256 of the bytes after the header of the
// safetensors file b.
func dataDigest(t *testing.T, b []byte) string {
	t.Helper()
	n := binary.LittleEndian.Uint64(b)
	sum := sha256.Sum256(b[8+n:])
	return hex.EncodeToString(sum[:])
}

// fileMeta returns the metadata of the safetensors file b.
func fileMeta(t *testing.T, b []byte) map[string]string {
	t.Helper()
	_, meta, err := safetensors.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return meta
}

// withoutDigest returns the safetensors file b without the digest of its
// metadata, as files were written before it was recorded.
func withoutDigest(t testing.TB, b []byte) []byte {
	t.Helper()
	ts, meta, err := safetensors.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	delete(meta, safetensors.DigestKey)
	b, err = safetensors.Encode(ts, meta)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// reencode returns the safetensors file of ts and meta, with the digest
// of ts in meta if it holds one: a file made so, whose digest matches.
func reencode(t testing.TB, ts map[string]safetensors.Tensor, meta map[string]string) []byte {
	t.Helper()
	if _, ok := meta[safetensors.DigestKey]; ok {
		meta[safetensors.DigestKey] = safetensors.Digest(ts)
	}
	b, err := safetensors.Encode(ts, meta)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withoutTrajectoriesDigest returns the cm.json js without
// trajectories_sha256, as files were written before it was recorded.
func withoutTrajectoriesDigest(t testing.TB, js []byte) []byte {
	t.Helper()
	var st learnerState
	if err := json.Unmarshal(js, &st); err != nil {
		t.Fatal(err)
	}
	st.TrajectoriesSHA256 = ""
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// flipData flips one bit of the data of the safetensors file b, at the
// fraction f of it.
func flipData(b []byte, f float64) []byte {
	b = bytes.Clone(b)
	n := 8 + int(binary.LittleEndian.Uint64(b))
	b[n+int(f*float64(len(b)-n-1))] ^= 0x01
	return b
}

// TestTableDigest checks that every table file (WriteTable,
// WriteCompactTable, a learner's of 0 and 8 bits, a snapshot) records the
// SHA-256 of its tensors in its metadata, that ReadTable and
// DecodeSnapshot refuse one whose tensors do not match it, naming the
// file, and that a table without one reads, NoDigest saying so.
func TestTableDigest(t *testing.T) {
	dir := t.TempDir()
	tb := sparseTable(t, rand.New(rand.NewPCG(3, 4)), 50, DefaultEpsLow)
	files := map[string][]byte{}
	for name, write := range map[string]func(string, *Table) error{"f32": WriteTable, "compact": writeCompact8} {
		file := filepath.Join(dir, name+".safetensors")
		if err := write(file, tb); err != nil {
			t.Fatal(err)
		}
		files[name] = readFile(t, file)
	}
	for _, bits := range []int{0, 8} {
		lr, _ := seedLearnerConfig(t, LearnerConfig{Bits: bits, Growth: 1, OptimizerConfig: OptimizerConfig{MaxSteps: 5}})
		_, tbl, _ := learnerFiles(t, lr)
		files[tableForm(bits)] = tbl
		snap, err := lr.Snapshot().MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		files["snapshot "+tableForm(bits)] = snap
	}
	for name, b := range files {
		if got, want := fileMeta(t, b)[safetensors.DigestKey], dataDigest(t, b); got != want {
			t.Errorf("%s: sha256 %q in the metadata, want %s", name, got, want)
		}
		snapshot := strings.HasPrefix(name, "snapshot")
		read := func(b []byte) (*Table, error) {
			file := filepath.Join(dir, "read.safetensors")
			if err := os.WriteFile(file, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if snapshot {
				s, err := DecodeSnapshot[int32](b)
				if err != nil {
					return nil, err
				}
				return s.(*Snapshot[int32]).t, nil
			}
			return ReadTable(file)
		}
		if got, err := read(b); err != nil || got.NoDigest() {
			t.Errorf("%s: %v, NoDigest %v; want the table, checked", name, err, got != nil && got.NoDigest())
		}
		for _, f := range []float64{0, 0.5, 1} {
			_, err := read(flipData(b, f))
			if err == nil || !strings.Contains(err.Error(), "SHA-256") || !snapshot && !strings.Contains(err.Error(), "read.safetensors") {
				t.Errorf("%s with a bit flipped at %g of its data: %v; want an error that names the file and its SHA-256", name, f, err)
			}
		}
		if got, err := read(withoutDigest(t, b)); err != nil || !got.NoDigest() {
			t.Errorf("%s without a digest: %v, NoDigest %v; want the table, NoDigest true", name, err, got != nil && got.NoDigest())
		}
	}
}

// TestLearnerDigest checks that Learner.Save records the SHA-256 of the
// tensors of trajectories.safetensors in cm.json, that LoadLearner
// refuses trajectories that do not match it, naming the file, and that a
// learner's files without digests load, NoDigest saying so.
func TestLearnerDigest(t *testing.T) {
	lr, tasks := seedLearner(t)
	dir := t.TempDir()
	if err := lr.Save(dir); err != nil {
		t.Fatal(err)
	}
	js, tb, tj := readFile(t, filepath.Join(dir, LearnerFile)), readFile(t, filepath.Join(dir, TableFile+GzipSuffix)), readFile(t, filepath.Join(dir, TrajectoriesFile+GzipSuffix))
	var st map[string]any
	if err := json.Unmarshal(js, &st); err != nil {
		t.Fatal(err)
	}
	if got, want := st["trajectories_sha256"], dataDigest(t, tj); got != want {
		t.Errorf("cm.json's trajectories_sha256 is %v, want %s", got, want)
	}
	load := func(js, tb, tj []byte) (*Learner[int32], error) {
		d := t.TempDir()
		for name, b := range map[string][]byte{LearnerFile: js, TableFile: tb, TrajectoriesFile: tj} {
			if err := os.WriteFile(filepath.Join(d, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return LoadLearner(d, 0, tasks...)
	}
	if got, err := load(js, tb, tj); err != nil || got.NoDigest() {
		t.Fatalf("the saved learner: %v, NoDigest %v", err, got != nil && got.NoDigest())
	}
	for _, tc := range []struct {
		name       string
		js, tb, tj []byte
		msg        []string
	}{
		{"trajectories flipped", js, tb, flipData(tj, 0.99), []string{TrajectoriesFile, "SHA-256"}},
		{"table flipped", js, flipData(tb, 0.3), tj, []string{TableFile, "SHA-256"}},
		{"malformed digest", bytes.Replace(js, []byte(`"trajectories_sha256": "`), []byte(`"trajectories_sha256": "g`), 1), tb, tj, []string{LearnerFile, "hexadecimal"}},
	} {
		if _, err := load(tc.js, tc.tb, tc.tj); err == nil || !strings.Contains(err.Error(), tc.msg[0]) || !strings.Contains(err.Error(), tc.msg[1]) {
			t.Errorf("%s: %v; want an error with %q", tc.name, err, tc.msg)
		}
	}
	var old map[string]json.RawMessage
	if err := json.Unmarshal(js, &old); err != nil {
		t.Fatal(err)
	}
	delete(old, "trajectories_sha256")
	jsOld, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		js, tb, tj []byte
	}{{"no trajectories_sha256", jsOld, tb, tj}, {"a table without its digest", js, withoutDigest(t, tb), tj}} {
		if got, err := load(tc.js, tc.tb, tc.tj); err != nil || !got.NoDigest() {
			t.Errorf("%s: %v, NoDigest %v; want the learner, NoDigest true", tc.name, err, got != nil && got.NoDigest())
		}
	}
}
