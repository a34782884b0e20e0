package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/internal/datasets"
)

var dataFixtures = map[string]string{
	"sokoban/levels.txt": "; 0\n#####\n#@$.#\n#####\n",
	"stp/tiles.txt":      "1 0 2 3\n",
}

// useDataFixtures makes "phs data fetch" work from a manifest of
// dataFixtures, with URLs that do not resolve, and returns a directory laid
// out like the data directory holding them, with corrupt in place of their
// content where given.
func useDataFixtures(t *testing.T, corrupt map[string]string) string {
	t.Helper()
	var files []datasets.File
	src := t.TempDir()
	for _, path := range []string{"sokoban/levels.txt", "stp/tiles.txt"} {
		content := dataFixtures[path]
		h := sha256.Sum256([]byte(content))
		set, _, _ := strings.Cut(path, "/")
		files = append(files, datasets.File{Set: set, Path: path, URL: "http://unused.invalid/" + path, Size: int64(len(content)), SHA256: hex.EncodeToString(h[:])})
		if c, ok := corrupt[path]; ok {
			content = c
		}
		p := filepath.Join(src, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := dataFiles
	dataFiles = func() []datasets.File { return files }
	t.Cleanup(func() { dataFiles = old })
	return src
}

func phsData(t *testing.T, args ...string) (stderr string, err error) {
	t.Helper()
	var o, e bytes.Buffer
	err = run(context.Background(), append([]string{"data"}, args...), &o, &e)
	if o.Len() > 0 {
		t.Errorf("phs data %q wrote to standard output: %q", args, o.String())
	}
	return e.String(), err
}

func TestDataUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"pull"},
		{"fetch", "boxoban"},
		{"fetch", "stp", "everything"},
		{"fetch", "-from", "x", "-mirror", "http://y", "stp"},
		{"fetch", "-mirror", "http://[::1", "stp"},
	} {
		_, err := phsData(t, args...)
		var u usageError
		if !errors.As(err, &u) || exitCode(err) != 2 {
			t.Errorf("phs data %q = %v, want a usage error", args, err)
		}
	}
}

func TestDataFetchMirror(t *testing.T) {
	src := useDataFixtures(t, nil)
	ts := httptest.NewServer(http.FileServer(http.Dir(src)))
	defer ts.Close()
	dir := t.TempDir()
	// Flags may follow the data-set names.
	stderr, err := phsData(t, "fetch", "stp", "-dir", dir, "-mirror", ts.URL)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "stp", "tiles.txt")); err != nil || string(b) != dataFixtures["stp/tiles.txt"] {
		t.Errorf("stp/tiles.txt = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sokoban")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("fetched a data set not asked for: %v", err)
	}
	for _, want := range []string{"stp/tiles.txt: downloading 8 bytes from " + ts.URL + "/stp/tiles.txt\n", "data fetch: 1 files of stp present and verified in " + dir + "\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}

	// With no name, every set; what is there is skipped.
	stderr, err = phsData(t, "fetch", "-dir", dir, "-mirror", ts.URL)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"stp/tiles.txt: present, verified\n", "sokoban/levels.txt: ok\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestDataFetchNotFound(t *testing.T) {
	useDataFixtures(t, nil)
	ts := httptest.NewServer(http.NotFoundHandler())
	defer ts.Close()
	_, err := phsData(t, "fetch", "all", "-dir", t.TempDir(), "-mirror", ts.URL+"/data")
	if err == nil || !strings.Contains(err.Error(), ts.URL+"/data/sokoban/levels.txt: 404") || exitCode(err) != 1 {
		t.Errorf("err = %v, want a 404 naming the URL, exit code 1", err)
	}
}

func TestDataFetchFrom(t *testing.T) {
	src := useDataFixtures(t, nil)
	dir := t.TempDir()
	stderr, err := phsData(t, "fetch", "-from", src, "-dir", dir, "sokoban", "stp")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for path, content := range dataFixtures {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path))); err != nil || string(b) != content {
			t.Errorf("%s = %q, %v", path, b, err)
		}
	}
}

func TestDataFetchFromCorrupted(t *testing.T) {
	src := useDataFixtures(t, map[string]string{"stp/tiles.txt": "1 0 3 2\n"})
	dir := t.TempDir()
	_, err := phsData(t, "fetch", "-from", src, "-dir", dir)
	var he *datasets.HashError
	if !errors.As(err, &he) || he.Path != "stp/tiles.txt" || exitCode(err) != 1 {
		t.Fatalf("err = %v, want a hash mismatch for stp/tiles.txt", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "stp", "tiles.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the corrupted file was put in place: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sokoban", "levels.txt")); err != nil {
		t.Errorf("the good file before it: %v", err)
	}
}

func TestDataFetchCanceled(t *testing.T) {
	src := useDataFixtures(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e bytes.Buffer
	err := run(ctx, []string{"data", "fetch", "-from", src, "-dir", t.TempDir()}, &o, &e)
	if !errors.Is(err, context.Canceled) || exitCode(err) != 130 {
		t.Errorf("err = %v, want context.Canceled, exit code 130", err)
	}
}

// TestDataFetchOffline checks that a fetch without network access says
// how to import a copy with -from, and leaves no empty directory.
func TestDataFetchOffline(t *testing.T) {
	useDataFixtures(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there: connections are refused
	dir := filepath.Join(t.TempDir(), "data")
	_, err = phsData(t, "fetch", "-dir", dir, "-mirror", closed)
	if err == nil || !strings.Contains(err.Error(), "-from DIR") || !strings.Contains(err.Error(), "boxoban/, stp/ and witness/") {
		t.Errorf("err = %v, want one that names -from and the data directory", err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("a failed fetch left %s", dir)
	}
}

// TestDataHelp checks that "phs data -h" names no path of the
// repository's development setup.
func TestDataHelp(t *testing.T) {
	out, _, err := runPHS(t, "data", "-h")
	if err != nil || !strings.Contains(out, "-from") || strings.Contains(out, "shared") {
		t.Errorf("phs data -h: %v\n%s", err, out)
	}
}
