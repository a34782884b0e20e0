// Package paths holds what the lab's commands ask of file names.
package paths

import (
	"os"
	"path/filepath"
)

// Same reports whether the names a and b are of the same file or
// directory: the same absolute path (whether or not it exists), or
// files that os.SameFile says are one (through a symbolic or a hard
// link).
func Same(a, b string) bool {
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	if errA == nil && errB == nil && absA == absB {
		return true
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
