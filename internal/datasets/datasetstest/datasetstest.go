// Package datasetstest finds the full data sets for the tests that need
// them. They are not in the repository (its tests use excerpts, in the
// testdata directories): the environment variable PHS_DATA names a data
// directory laid out as package datasets documents, such as the one that
// "phs data fetch" fills. Without it, those tests are skipped, with a
// message that says how to run them.
package datasetstest

import (
	"os"
	"path/filepath"
	"testing"
)

// Env is the environment variable that names the data directory.
const Env = "PHS_DATA"

// Dir returns the data directory that PHS_DATA names. If PHS_DATA is not
// set, it skips the test; if it names no directory, it fails the test.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv(Env)
	if dir == "" {
		tb.Skipf("needs the full data sets: set %s to a data directory (phs data fetch -dir DIR)", Env)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		tb.Fatalf("%s: %v", Env, err)
	}
	if !fi.IsDir() {
		tb.Fatalf("%s=%s: not a directory", Env, dir)
	}
	return dir
}

// Path returns the file of the data directory at path, a slash-separated
// path as package datasets's Manifest lists it, such as
// "stp/puzzles_5x5_test.txt". If PHS_DATA is not set, it skips the test; if
// the file is not there, it fails the test.
func Path(tb testing.TB, path string) string {
	tb.Helper()
	name := filepath.Join(Dir(tb), filepath.FromSlash(path))
	if _, err := os.Stat(name); err != nil {
		tb.Fatalf("%s: %v", Env, err)
	}
	return name
}
