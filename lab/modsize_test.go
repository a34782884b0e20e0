package lab_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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

// maxTree bounds the working tree of a clone without .git, as "du -sb"
// measures it: its files and, at 4,096 bytes each, its directories.
const maxTree = 30_000_000

// TestTreeSize sums the sizes of the repository's files that git tracks
// and of their directories, and fails above maxTree.
func TestTreeSize(t *testing.T) {
	out, err := exec.Command("git", "-C", "..", "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var size int64
	dirs := map[string]bool{".": true}
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		fi, err := os.Lstat(filepath.Join("..", name))
		if err != nil {
			t.Fatal(err)
		}
		size += fi.Size()
		for d := filepath.Dir(name); !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	size += 4096 * int64(len(dirs))
	t.Logf("working tree: %d bytes in %d directories", size, len(dirs))
	if size > maxTree {
		t.Errorf("working tree of %d bytes; want at most %d (30 MB)", size, maxTree)
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
