//go:build unix

package atomicfile

import "syscall"

// umask returns the process's file mode creation mask. (Reading it means
// setting it; the two calls leave it as it was.)
func umask() uint32 {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return uint32(m)
}
