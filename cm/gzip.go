package cm

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/phs-go/phs/internal/atomicfile"
)

// GzipSuffix ends the name of a file compressed with gzip (RFC 1952).
// ReadTable, ReadTableFS, FindTable and LoadLearner read such a file's
// decompressed contents, WriteTable and WriteCompactTable compress a file
// whose name ends in it, and Learner.Save compresses the table and the
// solutions it writes. The quantised parameters and the actions take
// about half their bytes so: the table of a Sokoban learner of 3.5 M
// rows (8 bits) takes 7.1 MB instead of 17.7.
const GzipSuffix = ".gz"

// readData returns the contents of the file name, opened by open,
// decompressed if name ends in GzipSuffix. A decompressed file may be up
// to about 1,000 times as large as its compressed form (the limit of
// DEFLATE), and is held in memory whole.
func readData(open func(string) (io.ReadCloser, error), name string) ([]byte, error) {
	f, err := open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !strings.HasSuffix(name, GzipSuffix) {
		return io.ReadAll(f)
	}
	z, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<16))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// osOpen is os.Open for readData.
func osOpen(name string) (io.ReadCloser, error) { return os.Open(name) }

// fsOpen returns fsys's Open for readData.
func fsOpen(fsys fs.FS) func(string) (io.ReadCloser, error) {
	return func(name string) (io.ReadCloser, error) { return fsys.Open(name) }
}

// A fileWriter writes a file that takes the place of its name when
// committed (atomicfile), through a buffer, and through gzip at
// gzip.DefaultCompression if its name ends in GzipSuffix.
type fileWriter struct {
	f *atomicfile.File
	b *bufio.Writer
	z *gzip.Writer // nil for a file not compressed
	w io.Writer    // z or b
}

// createFile starts the file name.
func createFile(name string) (*fileWriter, error) {
	f, err := atomicfile.Create(name)
	if err != nil {
		return nil, err
	}
	fw := &fileWriter{f: f, b: bufio.NewWriterSize(f, 1<<16)}
	fw.w = fw.b
	if strings.HasSuffix(name, GzipSuffix) {
		// The default level: 7.1 MB in 1.3 s for the table above, where
		// BestSpeed takes 8.0 MB in 0.3 s; for the sliding-tile run's
		// table of 4.2 M rows (16 bits, 37.9 MB), 21.3 MB where
		// BestSpeed takes 23.3, which keeps its checkpoint within the
		// 32 MB of a run in progress for longer.
		fw.z, _ = gzip.NewWriterLevel(fw.b, gzip.DefaultCompression) // a valid level: no error
		fw.w = fw.z
	}
	return fw, nil
}

func (fw *fileWriter) Write(p []byte) (int, error) { return fw.w.Write(p) }

// Commit ends the file and renames it over its name; after an error, the
// name is as it was.
func (fw *fileWriter) Commit() error {
	if fw.z != nil {
		if err := fw.z.Close(); err != nil {
			fw.f.Abort()
			return err
		}
	}
	if err := fw.b.Flush(); err != nil {
		fw.f.Abort()
		return err
	}
	return fw.f.Commit()
}

// Abort removes the file, leaving its name as it was.
func (fw *fileWriter) Abort() { fw.f.Abort() }

// writeFile writes b to the file name, replacing it atomically, compressed
// if name ends in GzipSuffix.
func writeFile(name string, b []byte) error {
	fw, err := createFile(name)
	if err != nil {
		return err
	}
	if _, err := fw.Write(b); err != nil {
		fw.Abort()
		return err
	}
	return fw.Commit()
}
