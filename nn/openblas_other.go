//go:build noopenblas || !(((linux && !android) || (darwin && !ios)) && (amd64 || arm64))

package nn

import (
	"errors"
	"runtime"
)

// hasLoader reports whether this build can load OpenBLAS: only on Linux
// and macOS, on amd64 and arm64, and without the build tag noopenblas.
const hasLoader = false

// openBLASNames is empty: there is no loader.
var openBLASNames []string

// An openBLAS is a loaded OpenBLAS library; there is none on this system.
type openBLAS struct{ info string }

func loadOpenBLAS([]string) (*openBLAS, error) {
	return nil, errors.New("cannot load OpenBLAS: this build of phs loads it only on linux and darwin, amd64 and arm64, without the tag noopenblas; this is " + runtime.GOOS + "/" + runtime.GOARCH)
}

func (*openBLAS) sgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	panic("nn: no OpenBLAS in this build")
}
