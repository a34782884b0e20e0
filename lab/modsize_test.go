package lab_test

import (
	"testing"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// maxModuleZip bounds the zip of the library module, what "go get
// github.com/phs-go/phs" downloads.
const maxModuleZip = 5 << 20

// countWriter counts the bytes written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// TestModuleZipSize builds the module zip of the library (the repository
// without this nested module, as the Go module proxy serves it) and fails
// above maxModuleZip.
func TestModuleZipSize(t *testing.T) {
	var n countWriter
	v := module.Version{Path: "github.com/phs-go/phs", Version: "v0.0.0"}
	if err := zip.CreateFromDir(&n, v, ".."); err != nil {
		t.Fatal(err)
	}
	t.Logf("module zip of %s: %d bytes (%.2f MiB)", v.Path, n, float64(n)/(1<<20))
	if n > maxModuleZip {
		t.Errorf("module zip of %d bytes; want at most %d (5 MiB)", n, maxModuleZip)
	}
}
