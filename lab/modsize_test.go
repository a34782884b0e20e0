package lab_test

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/model"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// maxModuleZip bounds the zip of the library module, what "go get
// github.com/phs-go/phs" downloads.
const maxModuleZip = 5 << 20

// countWriter counts the bytes written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// TestModuleZipSize builds the module zip of the library (the repository
// without this nested module, as the Go module proxy serves it) and fails
// above maxModuleZip.
func TestModuleZipSize(t *testing.T) {
	var n countWriter
	v := module.Version{Path: "github.com/phs-go/phs", Version: "v0.0.0"}
	if err := zip.CreateFromDir(&n, v, ".."); err != nil {
		t.Fatal(err)
	}
	t.Logf("module zip of %s: %d bytes (%.2f MiB)", v.Path, n, float64(n)/(1<<20))
	if n > maxModuleZip {
		t.Errorf("module zip of %d bytes; want at most %d (5 MiB)", n, maxModuleZip)
	}
}

// The size rules of the repository (CONTRIBUTING.md, "Sizes"), in bytes.
const (
	// maxModel bounds each model: a network's directory (its files) or a
	// context model's table file, in the lab or shipped in models/.
	maxModel = 24_000_000
	// maxLabModels bounds the model files of the lab, runs in progress
	// left out.
	maxLabModels = 120_000_000
	// maxLabRecords bounds the rest of the lab: everything but its model
	// files and its runs in progress.
	maxLabRecords = 30_000_000
	// maxRun bounds a run in progress, lab/runs/NAME, and maxRuns all of
	// them.
	maxRun  = 32_000_000
	maxRuns = 64_000_000
	// maxSubmission bounds what one submission adds to the repository.
	maxSubmission = 150_000_000
)

// runsDir holds the runs in progress, one directory each.
const runsDir = "runs"

// labFiles returns the lab's files that git tracks or would track (the
// untracked ones that .gitignore does not exclude, so that the rules hold
// before a commit), with their sizes, by path relative to the lab.
func labFiles(t *testing.T) map[string]int64 {
	t.Helper()
	out, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	files := map[string]int64{}
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		fi, err := os.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.ToSlash(name)] = fi.Size()
	}
	return files
}

// models groups the model files among files (paths with slashes, and
// their sizes) by model: a network is the directory of its
// weights.safetensors with its config.json, a context model's table
// (any other .safetensors file, compressed or not: .safetensors.gz) is a
// model alone.
func models(files map[string]int64) map[string][]string {
	m := map[string][]string{}
	for name := range files {
		dir, base := path.Split(name)
		switch {
		case base == model.WeightsFile:
			m[path.Clean(dir)] = append(m[path.Clean(dir)], name)
		case base == model.ConfigFile:
			if _, ok := files[dir+model.WeightsFile]; ok {
				m[path.Clean(dir)] = append(m[path.Clean(dir)], name)
			}
		case strings.HasSuffix(base, ".safetensors") || strings.HasSuffix(base, ".safetensors"+cm.GzipSuffix):
			m[name] = append(m[name], name)
		}
	}
	return m
}

// TestModelSizes checks that each model, in the lab or shipped in the
// library's models/, is at most maxModel bytes on disk, and that the lab's
// model files, runs in progress left out, are at most maxLabModels in
// all.
func TestModelSizes(t *testing.T) {
	lab := labFiles(t)
	var labTotal int64
	for name, parts := range models(lab) {
		if strings.HasPrefix(name, runsDir+"/") {
			continue
		}
		var size int64
		for _, p := range parts {
			size += lab[p]
		}
		labTotal += size
		if size > maxModel {
			t.Errorf("lab/%s: a model of %d bytes; want at most %d (24 MB): store it compactly (docs/MODEL_FORMAT.md)", name, size, maxModel)
		}
	}
	t.Logf("lab models: %d bytes", labTotal)
	if labTotal > maxLabModels {
		t.Errorf("the lab's models take %d bytes; want at most %d (120 MB) in all", labTotal, maxLabModels)
	}
	shipped := map[string]int64{}
	err := filepath.WalkDir("../models", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		shipped[filepath.ToSlash(p)] = fi.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ms := models(shipped)
	if len(ms) == 0 {
		t.Fatal("no shipped model in ../models")
	}
	for name, parts := range ms {
		var size int64
		for _, p := range parts {
			size += shipped[p]
		}
		if size > maxModel {
			t.Errorf("%s: a shipped model of %d bytes; want at most %d (24 MB)", name, size, maxModel)
		}
	}
}

// TestLabRecords checks that the lab's records, all its files but its
// models and its runs in progress, take at most maxLabRecords bytes, and
// names the largest when they do not.
func TestLabRecords(t *testing.T) {
	files := labFiles(t)
	for _, parts := range models(files) {
		for _, p := range parts {
			delete(files, p)
		}
	}
	var size int64
	for name, n := range files {
		if strings.HasPrefix(name, runsDir+"/") {
			delete(files, name)
			continue
		}
		size += n
	}
	t.Logf("lab records: %d bytes in %d files", size, len(files))
	if size > maxLabRecords {
		t.Errorf("the lab's records take %d bytes; want at most %d (30 MB); the largest: %s", size, maxLabRecords, largest(files, 10))
	}
}

// TestRunSizes checks that each run in progress, lab/runs/NAME, takes at
// most maxRun bytes, and all of them at most maxRuns; lab/runs holds
// nothing else but its README.md.
func TestRunSizes(t *testing.T) {
	runs := map[string]int64{}
	byRun := map[string]map[string]int64{}
	for name, n := range labFiles(t) {
		rest, ok := strings.CutPrefix(name, runsDir+"/")
		if !ok {
			continue
		}
		run, _, ok := strings.Cut(rest, "/")
		if !ok && rest == "README.md" {
			continue // what the directory is for, with or without runs
		}
		if !ok {
			t.Errorf("lab/%s: a file in %s/; want one directory per run", name, runsDir)
			continue
		}
		runs[run] += n
		if byRun[run] == nil {
			byRun[run] = map[string]int64{}
		}
		byRun[run][name] = n
	}
	var total int64
	for run, n := range runs {
		total += n
		if n > maxRun {
			t.Errorf("lab/%s/%s: a run in progress of %d bytes; want at most %d (32 MB); the largest: %s", runsDir, run, n, maxRun, largest(byRun[run], 5))
		}
	}
	t.Logf("runs in progress: %d, %d bytes", len(runs), total)
	if total > maxRuns {
		t.Errorf("the runs in progress (lab/%s) take %d bytes; want at most %d (64 MB) in all", runsDir, total, maxRuns)
	}
}

// largest returns the n largest of files (by path, with sizes), for a
// message.
func largest(files map[string]int64, n int) string {
	names := slices.SortedFunc(maps.Keys(files), func(a, b string) int {
		return cmp.Or(cmp.Compare(files[b], files[a]), cmp.Compare(a, b))
	})
	var parts []string
	for _, name := range names[:min(n, len(names))] {
		parts = append(parts, fmt.Sprintf("lab/%s (%d bytes)", name, files[name]))
	}
	return strings.Join(parts, ", ")
}

// TestSubmissionSize checks that the commits from PHS_BASE (a commit; a
// developer sets it to the commit the session started from) to HEAD add
// at most maxSubmission bytes to the repository: the sizes of the objects
// they add, uncompressed, as git counts them. Without PHS_BASE it checks
// the last commit alone.
func TestSubmissionSize(t *testing.T) {
	base := os.Getenv("PHS_BASE")
	if base == "" {
		base = "HEAD^"
		if err := exec.Command("git", "rev-parse", "--verify", "-q", base).Run(); err != nil {
			base = "" // a repository of one commit: all of it
		}
	}
	args := []string{"rev-list", "--objects", "HEAD"}
	if base != "" {
		args = append(args, "^"+base)
	}
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	var ids strings.Builder
	for line := range strings.Lines(string(out)) {
		id, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		ids.WriteString(id + "\n")
	}
	cmd := exec.Command("git", "cat-file", "--batch-check=%(objectsize)")
	cmd.Stdin = strings.NewReader(ids.String())
	sizes, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file: %v", err)
	}
	var total int64
	for line := range strings.Lines(string(sizes)) {
		n, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
		if err != nil {
			t.Fatalf("git cat-file: %q: %v", line, err)
		}
		total += n
	}
	t.Logf("commits since %q add %d bytes", base, total)
	if total > maxSubmission {
		t.Errorf("the commits since %s add %d bytes to the repository; want at most %d (150 MB) a submission", base, total, maxSubmission)
	}
}

// maxPlainLog is the size above which a committed log is gzipped.
const maxPlainLog = 8 << 10

// TestCommittedGzipped checks that the lab commits its per-problem
// results (test*.jsonl, fixed*.jsonl) gzipped, as ./cmd/reproduce writes
// them, and its logs (*.log) gzipped when larger than maxPlainLog, which
// keeps the working tree under maxTree.
func TestCommittedGzipped(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	names := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	results := 0
	for _, name := range names {
		base := filepath.Base(name)
		switch {
		case resultName.MatchString(base):
			results++
			if !strings.HasSuffix(base, ".gz") {
				t.Errorf("%s: per-problem results committed plain; want %[1]s.gz (gzip -9 -n)", name)
			}
		case strings.HasSuffix(base, ".log"):
			fi, err := os.Lstat(name)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() > maxPlainLog {
				t.Errorf("%[1]s: a log of %[2]d bytes committed plain; want %[1]s.gz (gzip -9 -n) above %[3]d bytes", name, fi.Size(), maxPlainLog)
			}
		}
	}
	if results == 0 {
		t.Error("no committed per-problem results")
	}
}

// TestModelsGrouping checks how models groups model files.
func TestModelsGrouping(t *testing.T) {
	files := map[string]int64{
		"a/model/config.json":         1,
		"a/model/weights.safetensors": 2,
		"b/config.json":               3, // no weights beside it: a record
		"c/table.safetensors":         4,
		"c/full.safetensors":          5,
		"c/small.safetensors.gz":      7,
		"d/README.md":                 6,
	}
	got := models(files)
	for _, parts := range got {
		slices.Sort(parts)
	}
	want := map[string][]string{
		"a/model":                {"a/model/config.json", "a/model/weights.safetensors"},
		"c/table.safetensors":    {"c/table.safetensors"},
		"c/full.safetensors":     {"c/full.safetensors"},
		"c/small.safetensors.gz": {"c/small.safetensors.gz"},
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("models(%v) = %v, want %v", files, got, want)
	}
}
