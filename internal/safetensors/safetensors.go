// Package safetensors reads and writes the safetensors format: an 8-byte
// little-endian header length, a JSON header (padded with spaces to a
// multiple of 8 bytes) mapping each tensor's name to its dtype, shape and
// data offsets, with an optional "__metadata__" map of strings, then the
// little-endian data, the tensors end to end. See docs/MODEL_FORMAT.md.
//
// The package knows the bytes of a tensor, not their meaning: the typed
// helpers (F32, F64, ...) convert between slices and little-endian bytes.
package safetensors

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math"
	"sort"
)

// MaxHeader is the length in bytes of the longest header read: 100 MB,
// the limit of the reference implementation.
const MaxHeader = 100_000_000

// A Tensor is an array of dtype DType and shape Shape, as its raw
// little-endian bytes.
type Tensor struct {
	DType string
	Shape []int
	Data  []byte
}

// dtypeSize is the size in bytes of the values of the dtypes read and
// written.
var dtypeSize = map[string]int{"F16": 2, "F32": 4, "F64": 8, "I64": 8, "U64": 8, "I32": 4, "U16": 2, "U8": 1}

type tensorHeader struct {
	DType       string   `json:"dtype"`
	Shape       []int    `json:"shape"`
	DataOffsets [2]int64 `json:"data_offsets"`
}

// count returns the number of values of a tensor of the given shape, at
// most math.MaxInt32, or false if a dimension is negative or the count
// larger.
func count(shape []int) (int64, bool) {
	c := int64(1)
	for _, d := range shape {
		if d < 0 || (d > 0 && c > math.MaxInt32/int64(d)) {
			return 0, false
		}
		c *= int64(d)
	}
	return c, true
}

// DigestKey is the metadata key under which a file holds the Digest of
// its own tensors.
const DigestKey = "sha256"

// Digest returns the SHA-256 of the data of tensors, in lower-case
// hexadecimal: each tensor's little-endian bytes, end to end, in the
// order of their names. It does not depend on the header (its order,
// spacing, padding and metadata, the tensors' offsets and shapes): a file
// whose header is written again keeps it, and a file can hold its own
// (DigestKey). Of a file that Write wrote, it is the SHA-256 of the bytes
// after the header.
func Digest(tensors map[string]Tensor) string {
	names := make([]string, 0, len(tensors))
	for n := range tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		h.Write(tensors[n].Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ValidDigest returns an error unless s has the form of a Digest: 64
// lower-case hexadecimal digits.
func ValidDigest(s string) error {
	if len(s) != 2*sha256.Size || bytes.ContainsFunc([]byte(s), func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') }) {
		return fmt.Errorf("SHA-256 %q: want 64 lower-case hexadecimal digits", clip(s))
	}
	return nil
}

// CheckDigest returns an error unless want, the digest that a file
// records, is valid (ValidDigest) and got, the Digest of the tensors read.
func CheckDigest(got, want string) error {
	if err := ValidDigest(want); err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("the tensors' SHA-256 is %s, not the %s recorded: the file is corrupt or was changed", got, want)
	}
	return nil
}

// clip returns s, cut to 80 bytes.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// Encode returns the safetensors file of tensors and meta, as Write
// writes it. Decode reads back what Encode writes.
func Encode(tensors map[string]Tensor, meta map[string]string) ([]byte, error) {
	src := make(map[string]Source, len(tensors))
	size := 0
	for n, t := range tensors {
		src[n] = Source{t.DType, t.Shape, func(w io.Writer) error {
			_, err := w.Write(t.Data)
			return err
		}}
		size += len(t.Data)
	}
	var buf bytes.Buffer
	buf.Grow(size + 1<<10)
	if _, err := Write(&buf, src, meta); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// A Source is a tensor whose data a function writes, for a tensor too
// large to hold in memory a second time as bytes.
type Source struct {
	DType string
	Shape []int
	// Write writes the tensor's little-endian data to w: as many bytes as
	// Shape holds values of DType.
	Write func(w io.Writer) error
}

// Write writes the safetensors file of the sources and meta (no
// "__metadata__" if meta is empty) to w, the tensors in the order of
// their names, and returns the Digest of its tensors. Each source must
// have a dtype above and write as many bytes as its shape holds values of
// that dtype; after an error, what w holds is no safetensors file. Write
// buffers nothing but the header: give it a buffered writer.
func Write(w io.Writer, sources map[string]Source, meta map[string]string) (string, error) {
	names := make([]string, 0, len(sources))
	for n := range sources {
		names = append(names, n)
	}
	sort.Strings(names)
	header := map[string]any{}
	if len(meta) > 0 {
		header["__metadata__"] = meta
	}
	sizes := make([]int64, len(names))
	var off int64
	for i, n := range names {
		t := sources[n]
		if n == "__metadata__" {
			return "", errors.New("safetensors: a tensor named __metadata__")
		}
		size, ok := dtypeSize[t.DType]
		if !ok {
			return "", fmt.Errorf("safetensors: tensor %q: dtype %q", n, t.DType)
		}
		c, ok := count(t.Shape)
		if !ok {
			return "", fmt.Errorf("safetensors: tensor %q: no number of bytes for shape %v", n, t.Shape)
		}
		sizes[i] = int64(size) * c
		header[n] = tensorHeader{DType: t.DType, Shape: t.Shape, DataOffsets: [2]int64{off, off + sizes[i]}}
		off += sizes[i]
	}
	h, err := json.Marshal(header)
	if err != nil {
		return "", err
	}
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	if err := binary.Write(w, binary.LittleEndian, uint64(len(h))); err != nil {
		return "", err
	}
	if _, err := w.Write(h); err != nil {
		return "", err
	}
	digest := sha256.New()
	for i, n := range names {
		t := sources[n]
		cw := countWriter{w: w, h: digest}
		if err := t.Write(&cw); err != nil {
			return "", fmt.Errorf("safetensors: tensor %q: %w", n, err)
		}
		if cw.n != sizes[i] {
			return "", fmt.Errorf("safetensors: tensor %q: %d bytes for shape %v of %s", n, cw.n, t.Shape, t.DType)
		}
	}
	return hex.EncodeToString(digest.Sum(nil)), nil
}

// A countWriter counts the bytes written through it, and hashes them.
type countWriter struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	return n, err
}

// CheckHeaderLength checks the length n of the header of a safetensors
// file of size bytes: at most MaxHeader, and within the file.
func CheckHeaderLength(n uint64, size int64) error {
	if n > MaxHeader {
		return fmt.Errorf("safetensors: header of %d bytes, more than the %d allowed", n, MaxHeader)
	}
	if size < 8 || n > uint64(size-8) {
		return fmt.Errorf("safetensors: header of %d bytes in a file of %d", n, size)
	}
	return nil
}

// Decode reads a safetensors file: the 8-byte little-endian length of the
// header (at most MaxHeader), the JSON header, then the data, which the
// tensors' data_offsets must cover exactly, without gaps or overlaps.
// Each tensor must have a dtype above, a shape of at most math.MaxInt32
// values, and as many bytes as its shape holds values. The tensors' data
// alias b.
func Decode(b []byte) (map[string]Tensor, map[string]string, error) {
	if len(b) < 8 {
		return nil, nil, fmt.Errorf("safetensors: file of %d bytes, shorter than the 8-byte header length", len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	if err := CheckHeaderLength(n, int64(len(b))); err != nil {
		return nil, nil, err
	}
	head := bytes.TrimLeft(b[8:8+n], " \t\r\n")
	if len(head) == 0 || head[0] != '{' {
		return nil, nil, errors.New("safetensors: the header is not a JSON object")
	}
	data := b[8+n:]
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(head, &raw); err != nil {
		return nil, nil, fmt.Errorf("safetensors: header: %w", err)
	}
	var meta map[string]string
	tensors := map[string]Tensor{}
	type span struct {
		name   string
		lo, hi int64
	}
	var spans []span
	for name, msg := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(msg, &meta); err != nil {
				return nil, nil, fmt.Errorf("safetensors: __metadata__ is not a map of strings: %w", err)
			}
			continue
		}
		var h tensorHeader
		if err := json.Unmarshal(msg, &h); err != nil {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		size, ok := dtypeSize[h.DType]
		if !ok {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: dtype %q", name, h.DType)
		}
		c, ok := count(h.Shape)
		if !ok {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: bad shape %v", name, h.Shape)
		}
		lo, hi := h.DataOffsets[0], h.DataOffsets[1]
		if lo < 0 || hi < lo || hi > int64(len(data)) || hi-lo != int64(size)*c {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: offsets %v do not fit shape %v of %s and %d data bytes", name, h.DataOffsets, h.Shape, h.DType, len(data))
		}
		tensors[name] = Tensor{h.DType, h.Shape, data[lo:hi:hi]}
		spans = append(spans, span{name, lo, hi})
	}
	// The data must be the tensors', end to end.
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].lo != spans[j].lo {
			return spans[i].lo < spans[j].lo
		}
		return spans[i].hi < spans[j].hi
	})
	var end int64
	for _, s := range spans {
		if s.lo != end {
			return nil, nil, fmt.Errorf("safetensors: tensor %q starts at data byte %d, want %d (a gap or an overlap)", s.name, s.lo, end)
		}
		end = s.hi
	}
	if end != int64(len(data)) {
		return nil, nil, fmt.Errorf("safetensors: the tensors end at data byte %d, the file has %d", end, len(data))
	}
	return tensors, meta, nil
}

// ReadFile returns the contents of the safetensors file name of fsys,
// whose tensors hold at most maxData bytes of data. It checks the length
// of the header (CheckHeaderLength) and of the data before it reads more
// than the first 8 bytes, so that a bad file cannot make it allocate more
// than 8+MaxHeader+maxData bytes. It does not decode the contents.
func ReadFile(fsys fs.FS, name string, maxData int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	var head [8]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("safetensors: file of %d bytes, shorter than the 8-byte header length", size)
		}
		return nil, err
	}
	n := binary.LittleEndian.Uint64(head[:])
	if err := CheckHeaderLength(n, size); err != nil {
		return nil, err
	}
	if data := size - 8 - int64(n); data > maxData {
		return nil, fmt.Errorf("safetensors: %d bytes of data, more than the %d expected", data, maxData)
	}
	b := make([]byte, size)
	copy(b, head[:])
	if _, err := io.ReadFull(f, b[8:]); err != nil {
		return nil, fmt.Errorf("safetensors: reading %d bytes: %w", size, err)
	}
	return b, nil
}
