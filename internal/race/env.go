package race

import "strings"

// NoExitSleep returns env with the race detector's pause at exit turned
// off, for the processes of a test binary that its tests start: under the
// detector, each process sleeps 1 s as it exits, for the reports of the
// goroutines still running. The options of GORACE in env are kept, with
// atexit_sleep_ms=0 after them; env is not changed. Without the detector,
// GORACE does nothing.
func NoExitSleep(env []string) []string {
	out := make([]string, 0, len(env)+1)
	opts := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GORACE="); ok {
			opts = v + " "
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GORACE="+opts+"atexit_sleep_ms=0")
}
