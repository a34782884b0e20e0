//go:build unix

package bootstrap

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockFile is the file of a run directory that a training run holds locked.
const lockFile = ".lock"

// lockRun creates dir if needed and takes the lock of the run in it, so
// that two trainings cannot share a directory; unlock releases it. The lock
// is an advisory flock, released by the system if the process dies.
func lockRun(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("bootstrap: %s: %w", dir, ErrLocked)
		}
		return nil, fmt.Errorf("bootstrap: lock %s: %w", dir, err)
	}
	// Unlock before closing: a child forked meanwhile (by another
	// goroutine that starts a process) shares the locked open file until
	// it execs, so closing ours alone could leave the lock held.
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
