package datasets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/phs-go/phs/internal/datasets/datasetstest"
)

// fixtures are the files the test server serves: small, and one larger than
// the progress step the tests set.
var fixtures = []struct{ path, content string }{
	{"sokoban/levels/000.txt", "; 0\n#####\n#@$.#\n#####\n"},
	{"stp/puzzles.txt", strings.Repeat("1 0 2 3\n", 10)}, // 80 bytes
	{"witness/LICENSE", "test licence\n"},
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// testManifest returns the manifest of fixtures as served under base.
func testManifest(base string) []File {
	var files []File
	for _, fx := range fixtures {
		set, _, _ := strings.Cut(fx.path, "/")
		files = append(files, File{Set: set, Path: fx.path, URL: base + "/" + fx.path, Size: int64(len(fx.content)), SHA256: sum(fx.content)})
	}
	return files
}

// A server serves fixtures, with Range support unless noRange, and records
// the Range header of every request.
type server struct {
	noRange bool
	content map[string]string // served instead of the fixture, by path

	mu     sync.Mutex
	stall  map[string]int // send only this many bytes, then wait for the client to go away
	ranges []string       // Range header of each request for a fixture
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/")
	i := slices.IndexFunc(fixtures, func(fx struct{ path, content string }) bool { return fx.path == path })
	if i < 0 {
		http.NotFound(w, r)
		return
	}
	content := fixtures[i].content
	if c, ok := s.content[path]; ok {
		content = c
	}
	s.mu.Lock()
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	n, stall := s.stall[path]
	s.mu.Unlock()
	if stall {
		w.Header().Set("Content-Length", strconv.Itoa(len(content)))
		w.Write([]byte(content[:n]))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	if s.noRange {
		w.Write([]byte(content))
		return
	}
	http.ServeContent(w, r, path, time.Time{}, strings.NewReader(content))
}

func (s *server) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ranges)
}

// start serves s and returns the fixtures' manifest on it.
func start(t *testing.T, s *server) []File {
	t.Helper()
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return testManifest(ts.URL)
}

func setProgressStep(t *testing.T, n int64) {
	old := progressStep
	progressStep = n
	t.Cleanup(func() { progressStep = old })
}

// checkDir fails unless dir holds exactly the fixtures, with no .part left.
func checkDir(t *testing.T, dir string) {
	t.Helper()
	var got []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	var want []string
	for _, fx := range fixtures {
		want = append(want, fx.path)
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(fx.path)))
		if err != nil || string(b) != fx.content {
			t.Errorf("%s = %q, %v; want %q", fx.path, b, err, fx.content)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("files in the data directory: %q, want %q", got, want)
	}
}

func TestFetchFreshThenSkip(t *testing.T) {
	setProgressStep(t, 32)
	s := &server{}
	files := start(t, s)
	dir := t.TempDir()
	var progress bytes.Buffer
	if err := Fetch(context.Background(), nil, files, dir, &progress); err != nil {
		t.Fatal(err)
	}
	checkDir(t, dir)
	if got := s.requests(); !slices.Equal(got, []string{"", "", ""}) {
		t.Errorf("Range headers %q, want three requests without Range", got)
	}
	out := progress.String()
	for _, want := range []string{
		"sokoban/levels/000.txt: downloading 22 bytes from " + files[0].URL + "\n",
		"sokoban/levels/000.txt: ok\n",
		"stp/puzzles.txt: 80/80 bytes\n", // larger than the progress step
		"stp/puzzles.txt: ok\n",
		"witness/LICENSE: ok\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("progress lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "000.txt: 22/22") {
		t.Errorf("progress reports the bytes of a file smaller than the step:\n%s", out)
	}

	progress.Reset()
	if err := Fetch(context.Background(), nil, files, dir, &progress); err != nil {
		t.Fatal(err)
	}
	if got := s.requests(); len(got) != 3 {
		t.Errorf("second Fetch sent %d requests, want none", len(got)-3)
	}
	if got := strings.Count(progress.String(), ": present, verified\n"); got != 3 {
		t.Errorf("second Fetch: %d files reported present, want 3:\n%s", got, progress.String())
	}
	checkDir(t, dir)
}

func TestFetchReplacesWrongFile(t *testing.T) {
	s := &server{}
	files := start(t, s)
	dir := t.TempDir()
	for _, content := range []string{"wrong size", strings.Repeat("x", len(fixtures[1].content))} {
		path := filepath.Join(dir, "stp", "puzzles.txt")
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		var progress bytes.Buffer
		if err := Fetch(context.Background(), nil, files, dir, &progress); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(progress.String(), "stp/puzzles.txt: present but not as in the manifest; replacing it\n") {
			t.Errorf("progress does not report the replacement:\n%s", progress.String())
		}
		checkDir(t, dir)
	}
}

func TestFetchResume(t *testing.T) {
	content := fixtures[1].content
	for _, tc := range []struct {
		name    string
		noRange bool
		part    string // in stp/puzzles.txt.part before Fetch
		ranges  []string
		note    string // in the progress
	}{
		{"range", false, content[:30], []string{"", "bytes=30-", ""}, "stp/puzzles.txt: resuming at byte 30 of 80 from "},
		{"no range", true, content[:30], []string{"", "bytes=30-", ""}, "stp/puzzles.txt: the server cannot resume; restarting\n"},
		{"too long", false, content + "more", []string{"", "", ""}, "stp/puzzles.txt: downloading 80 bytes"},
		{"empty", false, "", []string{"", "", ""}, "stp/puzzles.txt: downloading 80 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &server{noRange: tc.noRange}
			files := start(t, s)
			dir := t.TempDir()
			part := filepath.Join(dir, "stp", "puzzles.txt.part")
			os.MkdirAll(filepath.Dir(part), 0o755)
			if err := os.WriteFile(part, []byte(tc.part), 0o644); err != nil {
				t.Fatal(err)
			}
			var progress bytes.Buffer
			if err := Fetch(context.Background(), nil, files, dir, &progress); err != nil {
				t.Fatal(err)
			}
			checkDir(t, dir)
			if got := s.requests(); !slices.Equal(got, tc.ranges) {
				t.Errorf("Range headers %q, want %q", got, tc.ranges)
			}
			if !strings.Contains(progress.String(), tc.note) {
				t.Errorf("progress lacks %q:\n%s", tc.note, progress.String())
			}
		})
	}
}

func TestFetchResumeBadPart(t *testing.T) {
	s := &server{}
	files := start(t, s)[1:2]
	dir := t.TempDir()
	part := filepath.Join(dir, "stp", "puzzles.txt.part")
	os.MkdirAll(filepath.Dir(part), 0o755)
	if err := os.WriteFile(part, []byte("not the start of the file"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Fetch(context.Background(), nil, files, dir, nil)
	var he *HashError
	if !errors.As(err, &he) || he.Path != "stp/puzzles.txt" || he.Expected != files[0].SHA256 {
		t.Fatalf("Fetch = %v, want a HashError for stp/puzzles.txt", err)
	}
	if _, err := os.Stat(part); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the bad .part is still there: %v", err)
	}
	// The next Fetch starts afresh.
	if err := Fetch(context.Background(), nil, files, dir, nil); err != nil {
		t.Fatal(err)
	}
}

func TestFetchHashMismatch(t *testing.T) {
	orig := fixtures[1].content
	for _, tc := range []struct {
		name, served string
		suffix       string // of the error message
	}{
		{"same size", strings.Repeat("9 9 9 9\n", 10), "; removed it"},
		{"shorter", orig[:40], " (40 bytes, expected 80); removed it"},
		{"longer", orig + "1 2 3 0\n", " (more than the expected 80 bytes); removed it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &server{content: map[string]string{"stp/puzzles.txt": tc.served}}
			files := start(t, s)
			dir := t.TempDir()
			err := Fetch(context.Background(), nil, files, dir, nil)
			var he *HashError
			if !errors.As(err, &he) {
				t.Fatalf("Fetch = %v, want a HashError", err)
			}
			actual := sum(tc.served)
			if tc.name == "longer" {
				actual = sum(tc.served[:81])
			}
			want := "stp/puzzles.txt from " + files[1].URL + ": SHA-256 mismatch: expected " + sum(orig) + ", got " + actual + tc.suffix
			if err.Error() != want {
				t.Errorf("error\n%s\nwant\n%s", err, want)
			}
			for _, p := range []string{"stp/puzzles.txt", "stp/puzzles.txt.part"} {
				if _, err := os.Stat(filepath.Join(dir, p)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s left behind: %v", p, err)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "sokoban", "levels", "000.txt")); err != nil {
				t.Errorf("the file before the bad one: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "witness")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Fetch went on after the error: %v", err)
			}
		})
	}
}

func TestFetchNotFound(t *testing.T) {
	files := start(t, &server{})
	files[0].URL += ".missing"
	dir := t.TempDir()
	err := Fetch(context.Background(), nil, files, dir, nil)
	if err == nil || !strings.Contains(err.Error(), files[0].URL+": 404 Not Found") {
		t.Errorf("Fetch = %v, want an error naming %s and 404", err, files[0].URL)
	}
	if _, err := os.Stat(filepath.Join(dir, "sokoban", "levels", "000.txt.part")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an empty .part was left behind: %v", err)
	}
}

func TestFetchNoURL(t *testing.T) {
	files := start(t, &server{})
	files[2].URL = ""
	dir := t.TempDir()
	err := Fetch(context.Background(), nil, files, dir, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "witness/LICENSE: no public URL") {
		t.Fatalf("Fetch = %v, want an error for witness/LICENSE having no URL", err)
	}
	// A file already present needs no URL.
	os.MkdirAll(filepath.Join(dir, "witness"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "witness", "LICENSE"), []byte(fixtures[2].content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Fetch(context.Background(), nil, files, dir, nil); err != nil {
		t.Fatal(err)
	}
	checkDir(t, dir)
}

// A cancelOnProgress cancels a context at the first progress line of the
// bytes of stp/puzzles.txt received.
type cancelOnProgress struct {
	cancel context.CancelFunc
	buf    bytes.Buffer
}

var bytesLine = regexp.MustCompile(`^stp/puzzles\.txt: \d+/80 bytes\n$`)

func (c *cancelOnProgress) Write(b []byte) (int, error) {
	if bytesLine.Match(b) {
		c.cancel()
	}
	return c.buf.Write(b)
}

func TestFetchCancel(t *testing.T) {
	setProgressStep(t, 8)
	s := &server{stall: map[string]int{"stp/puzzles.txt": 40}}
	files := start(t, s)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	progress := &cancelOnProgress{cancel: cancel}
	err := Fetch(ctx, nil, files, dir, progress)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Fetch = %v, want context.Canceled", err)
	}
	part, err := os.ReadFile(filepath.Join(dir, "stp", "puzzles.txt.part"))
	if err != nil || len(part) < 8 || !strings.HasPrefix(fixtures[1].content, string(part)) {
		t.Fatalf("kept .part = %q, %v; want a prefix of at least 8 bytes of the file", part, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "stp", "puzzles.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the interrupted file is in place: %v", err)
	}

	s.mu.Lock()
	s.stall = nil
	s.mu.Unlock()
	if err := Fetch(context.Background(), nil, files, dir, nil); err != nil {
		t.Fatal(err)
	}
	checkDir(t, dir)
	got := s.requests()
	if want := "bytes=" + strconv.Itoa(len(part)) + "-"; len(got) != 4 || got[2] != want {
		t.Errorf("Range headers %q, want the third %q", got, want)
	}
}

func TestFetchCanceledBefore(t *testing.T) {
	s := &server{}
	files := start(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Fetch(ctx, nil, files, t.TempDir(), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch = %v, want context.Canceled", err)
	}
	if got := s.requests(); len(got) != 0 {
		t.Errorf("%d requests sent after cancellation", len(got))
	}
}

// writeTree writes fixtures under a new directory, with content replacing
// some of them, and returns the directory.
func writeTree(t *testing.T, content map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, fx := range fixtures {
		c, ok := content[fx.path]
		if !ok {
			c = fx.content
		}
		path := filepath.Join(dir, filepath.FromSlash(fx.path))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestImport(t *testing.T) {
	files := testManifest("http://unused.invalid")
	from := writeTree(t, nil)
	dir := t.TempDir()
	var progress bytes.Buffer
	if err := Import(context.Background(), from, dir, files, &progress); err != nil {
		t.Fatal(err)
	}
	checkDir(t, dir)
	if want := "stp/puzzles.txt: copying from " + filepath.Join(from, "stp", "puzzles.txt") + "\n"; !strings.Contains(progress.String(), want) {
		t.Errorf("progress lacks %q:\n%s", want, progress.String())
	}

	// Files already in place are skipped, even if the source went bad.
	os.WriteFile(filepath.Join(from, "stp", "puzzles.txt"), []byte("bad"), 0o644)
	progress.Reset()
	if err := Import(context.Background(), from, dir, files, &progress); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(progress.String(), ": present, verified\n"); got != 3 {
		t.Errorf("%d files reported present, want 3:\n%s", got, progress.String())
	}
}

func TestImportCorrupted(t *testing.T) {
	files := testManifest("http://unused.invalid")
	bad := strings.Replace(fixtures[1].content, "3", "4", 1)
	from := writeTree(t, map[string]string{"stp/puzzles.txt": bad})
	dir := t.TempDir()
	err := Import(context.Background(), from, dir, files, nil)
	src := filepath.Join(from, "stp", "puzzles.txt")
	want := "stp/puzzles.txt from " + src + ": SHA-256 mismatch: expected " + files[1].SHA256 + ", got " + sum(bad) + "; removed it"
	var he *HashError
	if !errors.As(err, &he) || err.Error() != want {
		t.Fatalf("Import = %v, want HashError %q", err, want)
	}
	for _, p := range []string{"stp/puzzles.txt", "stp/puzzles.txt.part"} {
		if _, err := os.Stat(filepath.Join(dir, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s left behind: %v", p, err)
		}
	}
	if b, err := os.ReadFile(src); err != nil || string(b) != bad {
		t.Errorf("the source was changed: %q, %v", b, err)
	}
}

func TestImportMissing(t *testing.T) {
	files := testManifest("http://unused.invalid")
	from := writeTree(t, nil)
	os.Remove(filepath.Join(from, "witness", "LICENSE"))
	err := Import(context.Background(), from, t.TempDir(), files, nil)
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "witness/LICENSE: ") {
		t.Errorf("Import = %v, want a not-exist error for witness/LICENSE", err)
	}
}

func TestImportCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	files := testManifest("http://unused.invalid")
	if err := Import(ctx, writeTree(t, nil), t.TempDir(), files, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Import = %v, want context.Canceled", err)
	}
}

func TestSelect(t *testing.T) {
	files := testManifest("http://x")
	for _, tc := range []struct {
		names []string
		want  []string // paths; nil for an error
	}{
		{[]string{"all"}, []string{"sokoban/levels/000.txt", "stp/puzzles.txt", "witness/LICENSE"}},
		{[]string{"witness", "sokoban"}, []string{"sokoban/levels/000.txt", "witness/LICENSE"}},
		{[]string{"stp", "stp"}, []string{"stp/puzzles.txt"}},
		{[]string{"stp", "boxoban"}, nil},
		{[]string{"ALL"}, nil},
	} {
		sel, err := Select(files, tc.names)
		if tc.want == nil {
			if err == nil || !strings.Contains(err.Error(), strconv.Quote(tc.names[len(tc.names)-1])) {
				t.Errorf("Select(%q) = %v, want an error naming the bad name", tc.names, err)
			}
			continue
		}
		var got []string
		for _, f := range sel {
			got = append(got, f.Path)
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Select(%q) = %q, %v; want %q", tc.names, got, err, tc.want)
		}
	}
}

func TestMirror(t *testing.T) {
	files := []File{{Path: "boxoban/unfiltered/test/000.txt", URL: "https://example.org/x"}}
	for _, base := range []string{"http://mirror.test/data", "http://mirror.test/data/"} {
		got, err := Mirror(files, base)
		if err != nil || got[0].URL != "http://mirror.test/data/boxoban/unfiltered/test/000.txt" {
			t.Errorf("Mirror(%q) = %+v, %v", base, got, err)
		}
	}
	if files[0].URL != "https://example.org/x" {
		t.Error("Mirror changed its argument")
	}
	if _, err := Mirror(files, "http://[::1"); err == nil {
		t.Error("Mirror accepted a bad URL")
	}
}

func TestManifestWellFormed(t *testing.T) {
	files := Manifest()
	if len(files) != 58 {
		t.Errorf("%d files, want 58", len(files))
	}
	seen := make(map[string]bool)
	hexSum := regexp.MustCompile(`^[0-9a-f]{64}$`)
	for _, f := range files {
		if seen[f.Path] {
			t.Errorf("%s listed twice", f.Path)
		}
		seen[f.Path] = true
		if !slices.Contains(Sets, f.Set) || !filepath.IsLocal(f.Path) || !hexSum.MatchString(f.SHA256) || f.Size <= 0 {
			t.Errorf("bad entry %+v", f)
		}
		noURL := f.Set == "witness" && f.Path != "witness/LICENSE"
		if noURL != (f.URL == "") || f.URL != "" && !strings.HasPrefix(f.URL, "https://") {
			t.Errorf("%s: URL %q", f.Path, f.URL)
		}
	}
	for _, p := range []string{"boxoban/unfiltered/train/000.txt", "boxoban/unfiltered/train/049.txt", "boxoban/unfiltered/test/000.txt", "stp/puzzles_5x5_test.txt", "witness/puzzles_4x4_train.txt"} {
		if !seen[p] {
			t.Errorf("%s missing", p)
		}
	}
}

// TestManifestMatchesSharedData checks the manifest against a copy of the
// data sets (PHS_DATA).
func TestManifestMatchesSharedData(t *testing.T) {
	shared := datasetstest.Dir(t)
	for _, f := range Manifest() {
		path := filepath.Join(shared, filepath.FromSlash(f.Path))
		fi, err := os.Stat(path)
		if err != nil {
			t.Error(err)
			continue
		}
		got, err := hashFile(path)
		if err != nil || fi.Size() != f.Size || got != f.SHA256 {
			t.Errorf("%s: %d bytes, SHA-256 %s, %v; manifest: %d bytes, %s", f.Path, fi.Size(), got, err, f.Size, f.SHA256)
		}
	}
}
