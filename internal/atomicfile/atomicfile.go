// Package atomicfile writes files so that a crash leaves either the old
// content or the new one, never a mix.
package atomicfile

import (
	"os"
	"path/filepath"
)

// WriteFile writes data to a temporary file in path's directory, flushes it
// to disk and renames it over path.
func WriteFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after a successful rename, a no-op
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
