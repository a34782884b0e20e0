package cli

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"testing/fstest"
)

// TestMemoryLimit checks the default memory bound against fixtures: the
// least of MemTotal, the memory limits of the process's cgroup and of its
// ancestors (v2 memory.max, v1 memory.limit_in_bytes, "max" and v1's
// huge "unlimited" being no bound), RLIMIT_AS and RLIMIT_DATA (infinity
// being no bound), or 8 GiB where nothing bounds it; and the soft limit
// of the runtime that Main sets.
func TestMemoryLimit(t *testing.T) {
	const (
		kB        = 1 << 10
		GiB       = 1 << 30
		meminfo   = "MemTotal:       25165824 kB\nMemFree:  1 kB\n" // 24 GiB
		total     = 25165824 * kB
		v1Huge    = "9223372036854771712\n"
		rlimInf   = ^uint64(0)
		cgroupV2  = "0::/user.slice/run\n"
		cgroupV1  = "9:name=systemd:/\n4:cpu,memory:/docker/abc\n0::/\n"
		cgroupMix = "4:memory:/docker/abc\n0::/user.slice/run\n"
	)
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for _, tc := range []struct {
		name string
		src  memorySources
		want int64
	}{
		{"nothing", memorySources{}, 8 * GiB},
		{"MemTotal", memorySources{meminfo: []byte(meminfo)}, total},
		{"bad MemTotal", memorySources{meminfo: []byte("MemTotal: 5 MB\n")}, 8 * GiB},
		{"v2 max", memorySources{meminfo: []byte(meminfo), selfCgroup: []byte(cgroupV2), cgroupFS: fstest.MapFS{
			"user.slice/run/memory.max": file("max\n"), "user.slice/memory.max": file("max\n"),
		}}, total},
		{"v2 own", memorySources{meminfo: []byte(meminfo), selfCgroup: []byte(cgroupV2), cgroupFS: fstest.MapFS{
			"user.slice/run/memory.max": file("2147483648\n"), "user.slice/memory.max": file("max\n"),
		}}, 2 * GiB},
		{"v2 ancestor", memorySources{meminfo: []byte(meminfo), selfCgroup: []byte(cgroupV2), cgroupFS: fstest.MapFS{
			"user.slice/run/memory.max": file("max\n"), "user.slice/memory.max": file("3221225472\n"),
		}}, 3 * GiB},
		{"v2 namespace root", memorySources{meminfo: []byte(meminfo), selfCgroup: []byte(cgroupV2), cgroupFS: fstest.MapFS{
			"memory.max": file("1073741824\n"),
		}}, 1 * GiB},
		{"v2 above MemTotal", memorySources{meminfo: []byte(meminfo), selfCgroup: []byte(cgroupV2), cgroupFS: fstest.MapFS{
			"user.slice/run/memory.max": file("107374182400\n"),
		}}, total},
		{"v2 garbage", memorySources{meminfo: []byte(meminfo), selfCgroup: []byte(cgroupV2), cgroupFS: fstest.MapFS{
			"user.slice/run/memory.max": file("lots\n"), "user.slice/memory.max": file("-5\n"),
		}}, total},
		{"v1", memorySources{meminfo: []byte(meminfo), selfCgroup: []byte(cgroupV1), cgroupFS: fstest.MapFS{
			"memory/docker/abc/memory.limit_in_bytes": file("4294967296\n"), "memory/memory.limit_in_bytes": file(v1Huge),
		}}, 4 * GiB},
		{"v1 unlimited", memorySources{meminfo: []byte(meminfo), selfCgroup: []byte(cgroupV1), cgroupFS: fstest.MapFS{
			"memory/docker/abc/memory.limit_in_bytes": file(v1Huge), "memory/memory.limit_in_bytes": file(v1Huge),
		}}, total},
		{"v1 namespace root", memorySources{meminfo: []byte(meminfo), selfCgroup: []byte(cgroupV1), cgroupFS: fstest.MapFS{
			"memory/memory.limit_in_bytes": file("1073741824"),
		}}, 1 * GiB},
		{"v1 and v2", memorySources{meminfo: []byte(meminfo), selfCgroup: []byte(cgroupMix), cgroupFS: fstest.MapFS{
			"memory/docker/abc/memory.limit_in_bytes": file("4294967296\n"), "user.slice/run/memory.max": file("5368709120\n"),
		}}, 4 * GiB},
		{"RLIMIT_AS", memorySources{meminfo: []byte(meminfo), rlimits: []uint64{3 * GiB, rlimInf}}, 3 * GiB},
		{"RLIMIT_DATA", memorySources{meminfo: []byte(meminfo), rlimits: []uint64{rlimInf, 2 * GiB}}, 2 * GiB},
		{"rlimits infinite", memorySources{meminfo: []byte(meminfo), rlimits: []uint64{rlimInf, rlimInf}}, total},
		{"rlimit alone", memorySources{rlimits: []uint64{3 * GiB, rlimInf}}, 3 * GiB},
		{"the least of all", memorySources{meminfo: []byte(meminfo), selfCgroup: []byte(cgroupV2), cgroupFS: fstest.MapFS{
			"user.slice/memory.max": file("4294967296\n"),
		}, rlimits: []uint64{5 * GiB, 3 * GiB}}, 3 * GiB},
		{"the cgroup least", memorySources{meminfo: []byte(meminfo), selfCgroup: []byte(cgroupV2), cgroupFS: fstest.MapFS{
			"user.slice/memory.max": file("1073741824\n"),
		}, rlimits: []uint64{5 * GiB, 3 * GiB}}, 1 * GiB},
	} {
		if got := tc.src.limit(rlimInf); got != tc.want {
			t.Errorf("%s: limit %d, want %d", tc.name, got, tc.want)
		}
	}

	// The soft limit of the runtime: 90% of the machine's or the cgroup's
	// memory, none where neither is known or an rlimit is lower.
	cg := fstest.MapFS{"user.slice/run/memory.max": file("4294967296\n")}
	for _, tc := range []struct {
		name string
		src  memorySources
		want int64
	}{
		{"nothing", memorySources{}, 0},
		{"MemTotal", memorySources{meminfo: []byte(meminfo)}, total / 10 * 9},
		{"cgroup", memorySources{meminfo: []byte(meminfo), selfCgroup: []byte(cgroupV2), cgroupFS: cg}, 4 * GiB / 10 * 9},
		{"rlimit above", memorySources{meminfo: []byte(meminfo), rlimits: []uint64{100 * GiB, rlimInf}}, total / 10 * 9},
		{"rlimit below", memorySources{meminfo: []byte(meminfo), rlimits: []uint64{3 * GiB, rlimInf}}, 0},
		{"rlimit alone", memorySources{rlimits: []uint64{3 * GiB, rlimInf}}, 0},
	} {
		if got := tc.src.softLimit(rlimInf); got != tc.want {
			t.Errorf("%s: soft limit %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestMemoryLimitProcess runs the test binary again under ulimit -v (an
// RLIMIT_AS of 3 GiB), in which the default memory bound must be 3 GiB
// at most, and half of it shared among the workers.
func TestMemoryLimitProcess(t *testing.T) {
	if want := os.Getenv("PHS_TEST_MEMORY_LIMIT"); want != "" {
		w, _ := strconv.ParseInt(want, 10, 64)
		if got := memoryLimit(); got > w {
			t.Fatalf("memoryLimit() = %d under ulimit -v, want at most %d", got, w)
		}
		f := runFlags{memoryMiB: -1}
		if got := f.memoryBytes(2); got > w/4 {
			t.Fatalf("memoryBytes(2) = %d under ulimit -v, want at most %d", got, w/4)
		}
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("the memory limits are read on Linux only")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const kB = 3 << 20 // 3 GiB in kB
	cmd := exec.Command("sh", "-c", "ulimit -v "+strconv.Itoa(kB)+" && exec \"$0\" -test.run '^TestMemoryLimitProcess$'", exe)
	cmd.Env = append(os.Environ(), "PHS_TEST_MEMORY_LIMIT="+strconv.FormatInt(kB<<10, 10))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("under ulimit -v %d: %v\n%s", kB, err, out)
	}
}
