package cli

import (
	"bufio"
	"bytes"
	"io/fs"
	"math"
	"path"
	"strconv"
	"strings"
)

// fallbackMemory is the memory bound where nothing bounds the process's
// memory that memoryLimit can read.
const fallbackMemory = 8 << 30

// memoryLimit returns the memory in bytes that the process may use: the
// least of the machine's memory (MemTotal of /proc/meminfo), the memory
// limits of its cgroup and of the cgroup's ancestors (v2 memory.max, v1
// memory.limit_in_bytes), and its soft limits RLIMIT_AS and RLIMIT_DATA;
// 8 GiB where none can be read (on other systems than Linux).
//
// It does not set the Go runtime's soft limit (debug.SetMemoryLimit): it
// bounds the heap, not the address space that RLIMIT_AS counts. Under
// ulimit -v of 3 GiB, a Go program holding 1.3 GiB and making garbage
// lived in 4 runs of 4 without it, and died with GOMEMLIMIT at 2.7 GiB (4
// of 4) or 1.5 GiB (2 of 3); holding 1.4 GiB, it died either way.
func memoryLimit() int64 {
	src, infinity := readMemorySources()
	return src.limit(infinity)
}

// softMemoryLimit returns the soft memory limit that Main sets, 0 for
// none (memorySources.softLimit).
func softMemoryLimit() int64 {
	src, infinity := readMemorySources()
	return src.softLimit(infinity)
}

// memorySources are what memoryLimit reads, each nil or empty where it
// cannot be read.
type memorySources struct {
	meminfo    []byte // the contents of /proc/meminfo
	selfCgroup []byte // the contents of /proc/self/cgroup
	cgroupFS   fs.FS  // the cgroup file system, /sys/fs/cgroup
	// rlimits are the soft limits of the process's address space and data
	// (RLIMIT_AS, RLIMIT_DATA), in bytes; RLIM_INFINITY is none.
	rlimits []uint64
}

// limit returns the least of the bounds of s, or fallbackMemory for none;
// infinity is the value of an rlimit without a bound (RLIM_INFINITY).
func (s memorySources) limit(infinity uint64) int64 {
	least := min(s.machine(), s.rlimit(infinity))
	if least == math.MaxInt64 {
		return fallbackMemory
	}
	return least
}

// rlimit returns the least of the rlimits of s, math.MaxInt64 for none.
func (s memorySources) rlimit(infinity uint64) int64 {
	least := int64(math.MaxInt64)
	for _, r := range s.rlimits {
		if r != infinity && r < math.MaxInt64 {
			least = min(least, int64(r))
		}
	}
	return least
}

// machine returns the least of MemTotal and of the cgroups' memory
// limits, math.MaxInt64 for none.
func (s memorySources) machine() int64 {
	least := int64(math.MaxInt64)
	if n, ok := memTotal(s.meminfo); ok {
		least = n
	}
	if s.cgroupFS != nil {
		least = min(least, cgroupLimit(s.cgroupFS, s.selfCgroup))
	}
	return least
}

// softLimit returns the Go runtime's soft memory limit for a process
// bounded by s (debug.SetMemoryLimit): 90% of the memory of the machine
// or of its cgroup, the least (machine), so that the garbage collector
// works harder as the heap nears it instead of letting it grow to twice
// what is live, or 0 for none: where neither can be read, or an rlimit
// bounds the process below it (see memoryLimit: the rlimits bound the
// address space, not the heap).
//
// A context model's optimisation over 49,992 sliding-tile solutions
// held most of a 24 GiB machine: without a soft limit, its process grew
// past 21 GB with 3 GB left (an earlier one had vanished under such
// pressure); with GOMEMLIMIT at 19 GiB it stayed at 20.2 GB to the end.
func (s memorySources) softLimit(infinity uint64) int64 {
	m := s.machine()
	if m == math.MaxInt64 || s.rlimit(infinity) < m {
		return 0
	}
	return m / 10 * 9
}

// memTotal returns the MemTotal of a /proc/meminfo, in bytes.
func memTotal(meminfo []byte) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 3 && string(f[0]) == "MemTotal:" && string(f[2]) == "kB" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil || kb <= 0 || kb > 1<<50 {
				return 0, false
			}
			return kb << 10, true
		}
	}
	return 0, false
}

// cgroupLimit returns the least memory limit of the cgroups of the
// process, as /proc/self/cgroup (selfCgroup) names them, in cgroupFS, the
// cgroup file system: that of its cgroup v2 (the line "0::PATH", the
// file PATH/memory.max) and of its cgroup v1 of the memory controller
// (the line "ID:CONTROLLERS:PATH" whose controllers include memory, the
// file memory/PATH/memory.limit_in_bytes), and of each of their
// ancestors up to the root, which bound it too. A file that is missing
// or unreadable bounds nothing (in a cgroup namespace, PATH may not
// exist, and the root is the process's cgroup); math.MaxInt64 for none.
func cgroupLimit(cgroupFS fs.FS, selfCgroup []byte) int64 {
	least := int64(math.MaxInt64)
	walk := func(dir, p, file string) {
		p = path.Clean("/" + p)
		for {
			if b, err := fs.ReadFile(cgroupFS, path.Join(dir, p, file)); err == nil {
				if n, ok := cgroupMemory(b); ok {
					least = min(least, n)
				}
			}
			if p == "/" {
				return
			}
			p = path.Dir(p)
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(selfCgroup))
	for sc.Scan() {
		id, rest, ok1 := strings.Cut(sc.Text(), ":")
		controllers, p, ok2 := strings.Cut(rest, ":")
		switch {
		case !ok1 || !ok2:
		case id == "0" && controllers == "":
			walk(".", p, "memory.max")
		case hasController(controllers, "memory"):
			walk("memory", p, "memory.limit_in_bytes")
		}
	}
	return least
}

// hasController reports whether the comma-separated list of cgroup v1
// controllers holds c.
func hasController(controllers, c string) bool {
	for x := range strings.SplitSeq(controllers, ",") {
		if x == c {
			return true
		}
	}
	return false
}

// cgroupMemory returns the limit in bytes of a memory.max (cgroup v2) or
// memory.limit_in_bytes (v1), and false for none: "max", v1's value
// without a limit (2⁶³ − 4096 on 64-bit systems: any value of 2⁶² or
// more), or anything but a number.
func cgroupMemory(b []byte) (int64, bool) {
	n, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil || n == 0 || n >= 1<<62 {
		return 0, false
	}
	return int64(n), true
}
