//go:build !unix

package atomicfile

func umask() uint32 { return 0 }
