package cli

import (
	"os"
	"syscall"
)

// readMemorySources returns what memoryLimit reads on Linux, and the
// value of an rlimit without a bound.
func readMemorySources() (memorySources, uint64) {
	var src memorySources
	src.meminfo, _ = os.ReadFile("/proc/meminfo")
	src.selfCgroup, _ = os.ReadFile("/proc/self/cgroup")
	src.cgroupFS = os.DirFS("/sys/fs/cgroup")
	for _, r := range []int{syscall.RLIMIT_AS, syscall.RLIMIT_DATA} {
		var l syscall.Rlimit
		if err := syscall.Getrlimit(r, &l); err == nil {
			src.rlimits = append(src.rlimits, l.Cur)
		}
	}
	return src, ^uint64(0) // RLIM_INFINITY
}
