//go:build !race

// Package race tells whether the race detector is on, for the tests that
// count allocations: under it, sync.Pool drops a quarter of the values put
// in it, at random, so code that recycles memory through a pool (the
// calls to OpenBLAS, see package nn) allocates now and then.
package race

// Enabled reports whether the program was built with the race detector.
const Enabled = false
