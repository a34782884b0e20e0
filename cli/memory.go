package cli

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
)

// physicalMemory returns the machine's memory in bytes, as Linux's
// /proc/meminfo gives it, or 8 GiB where it cannot be read.
func physicalMemory() int64 {
	const fallback = 8 << 30
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return fallback
	}
	if n, ok := memTotal(b); ok {
		return n
	}
	return fallback
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
