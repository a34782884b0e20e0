// Package atomicfile writes files so that a crash leaves either the old
// content or the new one, never a mix.
package atomicfile

import (
	"os"
	"path/filepath"
	"sync/atomic"
)

// Perm is the permission of the files the package creates, before the
// umask: those of os.Create but for execution, as for every file phs
// writes.
const Perm = 0o644

// processUmask is the umask, read once when the program starts, before
// other goroutines could create files while it is changed to be read.
var processUmask = umask()

// A File is a new file that takes the place of a path when it is
// committed: it is written to a temporary file in the path's directory.
type File struct {
	*os.File
	path string
}

// Create starts a file that Commit will rename over path, with permission
// Perm less the umask.
func Create(path string) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(os.FileMode(Perm &^ processUmask)); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &File{f, path}, nil
}

// skipSync, set by SkipSyncForTests, makes Commit leave the flush to disk
// to the system.
var skipSync atomic.Bool

// SkipSyncForTests makes Commit, and so WriteFile, leave the flush to disk
// to the system for the rest of the process: for the tests that write many
// checkpoints, whose time the flushes take on a busy disk, and that check
// nothing a crash of the machine would change. Programs do not call it.
func SkipSyncForTests() { skipSync.Store(true) }

// Commit flushes the file to disk, closes it and renames it over its path.
// After an error, the path is as it was and the temporary file is gone.
func (f *File) Commit() error {
	var err error
	if !skipSync.Load() {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Abort closes and removes the file, leaving its path as it was. After
// Commit it does nothing: the temporary name is gone.
func (f *File) Abort() {
	f.Close()
	os.Remove(f.Name())
}

// WriteFile writes data to a temporary file in path's directory, flushes it
// to disk and renames it over path, with permission Perm less the umask.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
