package nn

import (
	"fmt"
	"os"
)

// The environment variables that choose the backend, read once when the
// package is initialised.
const (
	// EnvBLAS forces a backend: "go" for gonum's pure-Go BLAS, "openblas"
	// for OpenBLAS. Empty (or "auto") means OpenBLAS if it loads, else
	// gonum.
	EnvBLAS = "PHS_BLAS"
	// EnvOpenBLASLib names the OpenBLAS library to load, a file name that
	// the dynamic loader searches for or a path, instead of the usual
	// names (libopenblas.so.0 and libopenblas.so on Linux,
	// libopenblas.dylib on macOS).
	EnvOpenBLASLib = "PHS_OPENBLAS_LIB"
)

// Backend names the BLAS behind Gemm: "openblas" or "gonum". It is set
// when the package is initialised; do not modify it.
var Backend = "gonum"

// BackendInfo describes the backend in a line: for OpenBLAS, the library
// loaded, its version and build configuration as it reports them, and the
// kernels (core type) it chose; for gonum, why OpenBLAS is not used. It is
// set with Backend.
var BackendInfo = "gonum (pure Go)"

// openblas is the OpenBLAS that Gemm calls, nil for gonum.
var openblas *openBLAS

func init() {
	ob, why, err := chooseBackend(os.Getenv(EnvBLAS), os.Getenv(EnvOpenBLASLib))
	if err != nil {
		// A backend was forced and cannot be had: stop before any work is
		// done on another one.
		panic(err)
	}
	if ob == nil {
		BackendInfo = "gonum (pure Go; " + why + ")"
		return
	}
	openblas = ob
	Backend = "openblas"
	BackendInfo = ob.info
}

// chooseBackend returns the OpenBLAS to use, or nil and why for gonum,
// given the values of EnvBLAS (choice) and EnvOpenBLASLib (lib). With
// choice "" or "auto" it falls back to gonum when OpenBLAS does not load;
// with "openblas" that is an error, as is a choice it does not know.
func chooseBackend(choice, lib string) (ob *openBLAS, why string, err error) {
	names := openBLASNames
	if lib != "" {
		names = []string{lib}
	}
	switch choice {
	case "go":
		return nil, EnvBLAS + "=go", nil
	case "", "auto":
		ob, err := loadOpenBLAS(names)
		if err != nil {
			return nil, err.Error(), nil
		}
		return ob, "", nil
	case "openblas":
		ob, err := loadOpenBLAS(names)
		if err != nil {
			return nil, "", fmt.Errorf("nn: %s=openblas: %w", EnvBLAS, err)
		}
		return ob, "", nil
	}
	return nil, "", fmt.Errorf("nn: %s=%q: want go, openblas, auto or nothing", EnvBLAS, choice)
}

// gemm is Gemm on the backend chosen.
func gemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if openblas != nil {
		openblas.sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	gonumGemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
