//go:build !unix

package bootstrap

import (
	"fmt"
	"os"
)

// lockRun creates dir if needed. This system has no flock: two trainings
// in one directory are not detected.
func lockRun(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	return func() {}, nil
}
