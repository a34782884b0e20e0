// Package datasets downloads, imports and verifies the public data sets that
// Orseau & Lelis (AAAI 2021, "Policy-Guided Heuristic Search with
// Guarantees") used: DeepMind's Boxoban levels for Sokoban, and the
// sliding-tile (STP) 5x5 and Witness 4x4 problem files of the authors'
// release.
//
// Every file is listed in a manifest (Manifest) with the path it takes under
// a data directory, its public URL, its size and its SHA-256. The layout
// under the data directory is:
//
//	boxoban/LICENSE
//	boxoban/unfiltered/train/000.txt ... 049.txt
//	boxoban/unfiltered/test/000.txt
//	stp/LICENSE
//	stp/puzzles_5x5_train.txt
//	stp/puzzles_5x5_test.txt
//	witness/LICENSE
//	witness/puzzles_4x4_train.txt
//	witness/puzzles_4x4_test.txt
//
// A file is put at its path only once its size and SHA-256 match the
// manifest, by renaming a verified NAME.part over it, so a reader of the
// data directory never sees a partial or unverified file.
package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A File is one file of a data set.
type File struct {
	Set    string // the data set it belongs to: one of Sets
	Path   string // where it goes: a slash-separated path relative to the data directory
	URL    string // where Fetch downloads it from; "" if no public URL serves it
	Size   int64  // its size in bytes
	SHA256 string // the SHA-256 of its content, in lowercase hexadecimal
}

// Sets lists the names of the data sets, in manifest order.
var Sets = []string{"sokoban", "stp", "witness"}

// Manifest returns a copy of the manifest of the paper's data sets: the
// files of Sets, in that order.
func Manifest() []File { return slices.Clone(manifest) }

// Select returns the files of the named data sets, in the order they have in
// files. A name is one of Sets, or "all" for every file. Select reports an
// error naming the first name that is neither.
func Select(files []File, names []string) ([]File, error) {
	want := make(map[string]bool)
	for _, n := range names {
		switch {
		case n == "all":
			for _, s := range Sets {
				want[s] = true
			}
		case slices.Contains(Sets, n):
			want[n] = true
		default:
			return nil, fmt.Errorf("unknown data set %q (want %s or all)", n, strings.Join(Sets, ", "))
		}
	}
	var sel []File
	for _, f := range files {
		if want[f.Set] {
			sel = append(sel, f)
		}
	}
	return sel, nil
}

// Mirror returns a copy of files in which each file's URL is base joined
// with its Path: the files as served by a server laid out like the data
// directory. It reports an error if base is not a valid URL.
func Mirror(files []File, base string) ([]File, error) {
	out := slices.Clone(files)
	for i := range out {
		u, err := url.JoinPath(base, out[i].Path)
		if err != nil {
			return nil, fmt.Errorf("mirror %q: %w", base, err)
		}
		out[i].URL = u
	}
	return out, nil
}

// A HashError reports content that does not match the manifest. The bad
// content has been removed.
type HashError struct {
	Path     string // the file's Path in the manifest
	Source   string // where the content came from: a URL or a local file
	Expected string // the SHA-256 in the manifest
	Actual   string // the SHA-256 of the content
	Size     int64  // the size in the manifest
	Got      int64  // the size of the content; Size+1 stands for any larger size
}

func (e *HashError) Error() string {
	msg := fmt.Sprintf("%s from %s: SHA-256 mismatch: expected %s, got %s", e.Path, e.Source, e.Expected, e.Actual)
	switch {
	case e.Got > e.Size:
		msg += fmt.Sprintf(" (more than the expected %d bytes)", e.Size)
	case e.Got < e.Size:
		msg += fmt.Sprintf(" (%d bytes, expected %d)", e.Got, e.Size)
	}
	return msg + "; removed it"
}

// progressStep is the number of bytes between two progress lines of a file
// larger than it.
var progressStep int64 = 1 << 20

// Fetch makes each file of files present and verified under dir, in order,
// downloading with client (http.DefaultClient if nil) those that are not.
//
// A file whose destination already has the manifest size and SHA-256 is
// skipped. Any other is downloaded from its URL into DEST.part: an existing
// .part shorter than the file is resumed with an HTTP Range request if the
// server answers 206 Partial Content, and restarted from the beginning if it
// answers 200 OK or 416 Range Not Satisfiable. When the download is
// complete, its size and SHA-256 are checked: on a match the .part is renamed
// over DEST; on a mismatch the .part is removed and Fetch returns a
// *HashError. A file with no URL, an HTTP status other than the one expected
// (the error names the URL and the status) or a transfer error (the .part is
// kept, to be resumed) is an error too.
//
// Fetch stops at the first error and returns it, naming the file. If ctx is
// done, Fetch stops, keeps the .part of the file under way and returns an
// error that wraps ctx.Err().
//
// Fetch writes a line to progress (nil for none) for each file, and for a
// file larger than 1 MiB a line with the bytes received every MiB.
func Fetch(ctx context.Context, client *http.Client, files []File, dir string, progress io.Writer) error {
	if client == nil {
		client = http.DefaultClient
	}
	return each(ctx, files, dir, progress, func(f File, dest string, progress io.Writer) error {
		return download(ctx, client, f, dest, progress)
	})
}

// Import makes each file of files present and verified under dir, in order,
// copying those that are not from the same path under from, a local copy laid
// out like the data directory.
//
// A file whose destination already has the manifest size and SHA-256 is
// skipped. Any other is copied into DEST.part, checked, and renamed over
// DEST; if its size or SHA-256 does not match the manifest, the .part is
// removed (the source is left alone) and Import returns a *HashError naming
// the source file. A missing source file is an error.
//
// Import stops at the first error and returns it, naming the file. If ctx is
// done, Import stops, removes the .part of the file under way and returns an
// error that wraps ctx.Err().
//
// Import writes a line to progress (nil for none) for each file.
func Import(ctx context.Context, from, dir string, files []File, progress io.Writer) error {
	return each(ctx, files, dir, progress, func(f File, dest string, progress io.Writer) error {
		return copyFile(ctx, f, filepath.Join(from, filepath.FromSlash(f.Path)), dest, progress)
	})
}

// each makes the files present and verified under dir, in order: it skips
// those already there (check) and calls get for the others, stopping at the
// first error or when ctx is done.
func each(ctx context.Context, files []File, dir string, progress io.Writer, get func(f File, dest string, progress io.Writer) error) error {
	if progress == nil {
		progress = io.Discard
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		dest, ok, err := check(f, dir, progress)
		if err != nil {
			return err
		}
		if ok {
			continue
		}
		if err := get(f, dest, progress); err != nil {
			return err
		}
	}
	return nil
}

// check returns f's destination under dir, and whether it is already present
// with the manifest size and SHA-256 (reported to progress).
func check(f File, dir string, progress io.Writer) (dest string, ok bool, err error) {
	rel := filepath.FromSlash(f.Path)
	if !filepath.IsLocal(rel) {
		return "", false, fmt.Errorf("%s: not a local path", f.Path)
	}
	dest = filepath.Join(dir, rel)
	fi, err := os.Stat(dest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return dest, false, nil
	case err != nil:
		return "", false, err
	case !fi.Mode().IsRegular():
		return "", false, fmt.Errorf("%s: not a regular file", dest)
	case fi.Size() == f.Size:
		sum, err := hashFile(dest)
		if err != nil {
			return "", false, err
		}
		if sum == f.SHA256 {
			fmt.Fprintf(progress, "%s: present, verified\n", f.Path)
			return dest, true, nil
		}
	}
	fmt.Fprintf(progress, "%s: present but not as in the manifest; replacing it\n", f.Path)
	return dest, false, nil
}

// download fetches f into dest as Fetch describes.
func download(ctx context.Context, client *http.Client, f File, dest string, progress io.Writer) error {
	if f.URL == "" {
		return fmt.Errorf("%s: no public URL serves this file; import a copy with -from or download it from a mirror", f.Path)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	part := dest + ".part"
	pf, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		// Leave no empty .part behind a failed request.
		if fi, err := os.Stat(part); err == nil && fi.Size() == 0 {
			os.Remove(part)
		}
	}()
	defer pf.Close() // a no-op error after the explicit Close in finish

	h := sha256.New()
	offset, err := resumePoint(pf, f.Size, h)
	if err != nil {
		return fmt.Errorf("%s: %w", part, err)
	}
	resp, err := get(ctx, client, f.URL, offset)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	if offset > 0 && !resumes(resp, offset) {
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			if resp, err = get(ctx, client, f.URL, 0); err != nil {
				return fmt.Errorf("%s: %w", f.Path, err)
			}
		}
		fmt.Fprintf(progress, "%s: the server cannot resume; restarting\n", f.Path)
		if err := restart(pf, h); err != nil {
			return fmt.Errorf("%s: %w", part, err)
		}
		offset = 0
	}
	defer resp.Body.Close()
	if want := wantStatus(offset); resp.StatusCode != want {
		return fmt.Errorf("%s: GET %s: %s", f.Path, f.URL, resp.Status)
	}
	if offset > 0 {
		fmt.Fprintf(progress, "%s: resuming at byte %d of %d from %s\n", f.Path, offset, f.Size, f.URL)
	} else {
		fmt.Fprintf(progress, "%s: downloading %d bytes from %s\n", f.Path, f.Size, f.URL)
	}

	pw := &progressWriter{w: progress, path: f.Path, n: offset, size: f.Size}
	remaining := f.Size - offset
	n, err := io.Copy(io.MultiWriter(pf, h, pw), io.LimitReader(resp.Body, remaining+1))
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("%s: stopped at byte %d, kept %s: %w", f.Path, offset+n, part, ctxErr)
		}
		return fmt.Errorf("%s: GET %s: %w (kept %s to resume)", f.Path, f.URL, err, part)
	}
	return finish(pf, h, f, f.URL, offset+n, dest, progress)
}

// resumePoint returns the length of the partial download in pf, positioned at
// its end, with h fed its content; a partial download that is not shorter
// than size cannot be resumed and is truncated.
func resumePoint(pf *os.File, size int64, h hash.Hash) (int64, error) {
	offset, err := pf.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, err
	}
	if offset == 0 {
		return 0, nil
	}
	if offset >= size {
		return 0, restart(pf, h)
	}
	if _, err := pf.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	if _, err := io.CopyN(h, pf, offset); err != nil {
		return 0, err
	}
	return offset, nil
}

// restart empties pf and h.
func restart(pf *os.File, h hash.Hash) error {
	h.Reset()
	if err := pf.Truncate(0); err != nil {
		return err
	}
	_, err := pf.Seek(0, io.SeekStart)
	return err
}

// get sends a GET request for rawURL, for the bytes from offset on if
// offset > 0.
func get(ctx context.Context, client *http.Client, rawURL string, offset int64) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	if offset > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", offset))
	}
	return client.Do(req)
}

func wantStatus(offset int64) int {
	if offset > 0 {
		return http.StatusPartialContent
	}
	return http.StatusOK
}

// resumes reports whether resp carries the bytes from offset on, or an error
// status that restarting would not cure.
func resumes(resp *http.Response, offset int64) bool {
	switch resp.StatusCode {
	case http.StatusOK, http.StatusRequestedRangeNotSatisfiable:
		return false
	case http.StatusPartialContent:
		start, ok := rangeStart(resp.Header.Get("Content-Range"))
		return ok && start == offset
	}
	return true
}

// rangeStart returns the first byte position of a Content-Range header value
// "bytes FIRST-LAST/TOTAL".
func rangeStart(cr string) (int64, bool) {
	rest, ok := strings.CutPrefix(cr, "bytes ")
	if !ok {
		return 0, false
	}
	first, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(first, 10, 64)
	return n, err == nil
}

// copyFile copies src into dest as Import describes.
func copyFile(ctx context.Context, f File, src, dest string, progress io.Writer) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	fmt.Fprintf(progress, "%s: copying from %s\n", f.Path, src)
	part := dest + ".part"
	pf, err := os.Create(part)
	if err != nil {
		return err
	}
	defer pf.Close() // a no-op error after the explicit Close in finish
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(pf, h), io.LimitReader(ctxReader{ctx, in}, f.Size+1))
	if err != nil {
		pf.Close()
		os.Remove(part)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("%s: %w", f.Path, ctxErr)
		}
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	return finish(pf, h, f, src, n, dest, progress)
}

// finish checks the n bytes written to pf, whose SHA-256 is in h, and renames
// pf over dest if they match f, or removes pf if they do not.
func finish(pf *os.File, h hash.Hash, f File, source string, n int64, dest string, progress io.Writer) error {
	err := pf.Sync()
	if cerr := pf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if n != f.Size || sum != f.SHA256 {
		os.Remove(pf.Name())
		return &HashError{Path: f.Path, Source: source, Expected: f.SHA256, Actual: sum, Size: f.Size, Got: n}
	}
	if err := os.Rename(pf.Name(), dest); err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	fmt.Fprintf(progress, "%s: ok\n", f.Path)
	return nil
}

// hashFile returns the SHA-256 of the file at path, in hexadecimal.
func hashFile(path string) (string, error) {
	file, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer file.Close()
	h := sha256.New()
	if _, err := io.Copy(h, file); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// A progressWriter counts the bytes written to it and reports every
// progressStep bytes of a file larger than progressStep.
type progressWriter struct {
	w       io.Writer
	path    string
	n, size int64
}

func (p *progressWriter) Write(b []byte) (int, error) {
	before := p.n
	p.n += int64(len(b))
	if p.size > progressStep && p.n/progressStep > before/progressStep {
		fmt.Fprintf(p.w, "%s: %d/%d bytes\n", p.path, p.n, p.size)
	}
	return len(b), nil
}

// A ctxReader reads from r until ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b)
}
