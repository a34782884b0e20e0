package cm

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// TestGzipTable checks that WriteTable and WriteCompactTable compress a
// file whose name ends in GzipSuffix, that ReadTable and ReadTableFS read
// it back as the uncompressed file reads, and that a truncated or
// corrupted compressed file is an error that names it.
func TestGzipTable(t *testing.T) {
	dir := t.TempDir()
	tb := sparseTable(t, rand.New(rand.NewPCG(5, 6)), 2000, DefaultEpsLow)
	for name, write := range map[string]func(string, *Table) error{"f32": WriteTable, "compact": writeCompact8} {
		plain := filepath.Join(dir, name+".safetensors")
		gz := plain + GzipSuffix
		for _, file := range []string{plain, gz} {
			if err := write(file, tb); err != nil {
				t.Fatal(err)
			}
		}
		raw, err := os.ReadFile(gz)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
			t.Fatalf("%s: no gzip header", gz)
		}
		want, err := ReadTable(plain)
		if err != nil {
			t.Fatal(err)
		}
		fsys := fstest.MapFS{"m/table.safetensors.gz": {Data: raw}}
		for _, read := range []func() (*Table, error){
			func() (*Table, error) { return ReadTable(gz) },
			func() (*Table, error) { return ReadTableFS(fsys, "m/table.safetensors.gz") },
		} {
			got, err := read()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(tableBytes(t, got), tableBytes(t, want)) {
				t.Errorf("%s: the compressed file reads as another table", name)
			}
		}
		bad := map[string][]byte{
			"truncated": raw[:len(raw)/2],
			"corrupted": append(append(append([]byte{}, raw[:len(raw)-8]...), ^raw[len(raw)-8]), raw[len(raw)-7:]...), // its CRC-32
			"plain":     []byte("not gzip"),
		}
		for what, b := range bad {
			file := filepath.Join(dir, what+GzipSuffix)
			if err := os.WriteFile(file, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadTable(file); err == nil || !strings.Contains(err.Error(), file) {
				t.Errorf("%s, %s: error %v; want one that names the file", name, what, err)
			}
		}
	}
}

// TestSaveCompressed checks that Learner.Save writes its table and
// solutions compressed and removes the uncompressed files of an earlier
// phs, and that LoadLearner reads both forms.
func TestSaveCompressed(t *testing.T) {
	lr, tasks := seedLearner(t)
	js, tb, tj := learnerFiles(t, lr)
	dir := t.TempDir()
	for name, b := range map[string][]byte{LearnerFile: js, TableFile: tb, TrajectoriesFile: tj} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	earlier, err := LoadLearner(dir, 0, tasks...)
	if err != nil {
		t.Fatalf("the uncompressed files: %v", err)
	}
	if err := earlier.Save(dir); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{LearnerFile, TableFile + GzipSuffix, TrajectoriesFile + GzipSuffix}
	if slices.Sort(want); !slices.Equal(names, want) {
		t.Errorf("the directory holds %v after Save; want %v", names, want)
	}
	again, err := LoadLearner(dir, 0, tasks...)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tableBytes(t, again.Table()), tableBytes(t, lr.Table())) || again.opt != lr.opt || len(again.trajs) != len(lr.trajs) {
		t.Error("the learner saved compressed loads as another")
	}
}

// TestLegacyMix checks that the training mix that an earlier phs wrote in
// cm.json's settings loads, mixes the policy of the learner's snapshots,
// and is saved again, so that its run resumes as it began; and that one
// out of range is an error.
func TestLegacyMix(t *testing.T) {
	lr, tasks := seedLearner(t)
	js, tb, tj := learnerFiles(t, lr)
	withMix := func(mix float64) []byte {
		var st map[string]any
		if err := json.Unmarshal(js, &st); err != nil {
			t.Fatal(err)
		}
		st["config"].(map[string]any)["mix"] = mix
		b, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	old, err := decodeLearner(withMix(DefaultTrainMix), tb, tj, tasks)
	if err != nil {
		t.Fatal(err)
	}
	if s := old.Snapshot().(*Snapshot[int32]); s.mix != DefaultTrainMix {
		t.Errorf("snapshot's mix %g; want %g", s.mix, DefaultTrainMix)
	}
	again, _, _ := learnerFiles(t, old)
	if !bytes.Contains(again, []byte(`"mix": 0.001`)) {
		t.Errorf("Save drops the legacy mix:\n%s", again)
	}
	if bytes.Contains(js, []byte(`"mix"`)) {
		t.Errorf("a new learner's settings hold a mix:\n%s", js)
	}
	if _, err := decodeLearner(withMix(2), tb, tj, tasks); err == nil || !strings.Contains(err.Error(), "mix 2") {
		t.Errorf("mix 2: err = %v", err)
	}
}
