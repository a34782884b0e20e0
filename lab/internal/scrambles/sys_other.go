//go:build !unix

package scrambles

import "time"

// lock does nothing where flock is missing: nothing stops two processes
// from running one directory.
func lock(string) (unlock func(), err error) { return func() {}, nil }

// cpuTime returns 0 where getrusage is missing: the metrics' cpu_seconds
// stay 0.
func cpuTime() time.Duration { return 0 }
