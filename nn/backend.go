package nn

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

// The environment variables that UseEnv reads.
const (
	// EnvBLAS is the choice of backend: "go" for gonum's pure-Go BLAS,
	// "openblas" for OpenBLAS, "auto" or nothing for OpenBLAS if it
	// loads, else gonum (see Use).
	EnvBLAS = "PHS_BLAS"
	// EnvOpenBLASLib names the OpenBLAS library to load, a file name that
	// the dynamic loader searches for or a path, instead of the usual
	// names (libopenblas.so.0 and libopenblas.so on Linux,
	// libopenblas.dylib on macOS).
	EnvOpenBLASLib = "PHS_OPENBLAS_LIB"
)

// A backend is a BLAS that Gemm runs on.
type backend struct {
	// name is what Backend returns, info what BackendInfo returns.
	name, info string
	// ob is the OpenBLAS that Gemm calls, nil for gonum.
	ob *openBLAS
}

var (
	// current is the backend in use, nil until one is chosen.
	current atomic.Pointer[backend]
	// useMu serialises the choices of a backend.
	useMu sync.Mutex
)

// Use makes Gemm run on the backend choice, one of:
//
//   - "go": gonum's pure-Go BLAS;
//   - "openblas": OpenBLAS, loaded from lib, or from the usual names if
//     lib is empty; an error if it does not load;
//   - "auto" or "": OpenBLAS if it loads, else gonum (BackendInfo then
//     says why OpenBLAS is not used).
//
// Any other choice is an error. On error the backend is unchanged. Loading
// OpenBLAS sets OPENBLAS_NUM_THREADS=1 and, on a CPU with AVX-512 when the
// environment does not set it, OPENBLAS_CORETYPE=SkylakeX in the process
// environment while the library loads (OpenBLAS reads both then), and
// restores them after.
//
// A program calls Use, or UseEnv, once, before its first product;
// products running while it changes the backend run on either. Without
// it, the first call of Gemm, Backend or BackendInfo chooses as UseEnv,
// and if UseEnv fails, uses gonum, with BackendInfo saying why.
func Use(choice, lib string) error {
	return use(choice, lib, fmt.Sprintf("backend %q", choice))
}

// use is Use, with what, the words that name the choice in errors and in
// BackendInfo.
func use(choice, lib, what string) error {
	b, err := choose(choice, lib, what)
	if err != nil {
		return err
	}
	useMu.Lock()
	current.Store(b)
	useMu.Unlock()
	return nil
}

// UseEnv calls Use with the values of the environment variables EnvBLAS
// (PHS_BLAS) and EnvOpenBLASLib (PHS_OPENBLAS_LIB). A command calls it when
// it starts, and reports its error as a mistake in its environment.
// Its errors start with "nn: PHS_BLAS=".
func UseEnv() error {
	choice := os.Getenv(EnvBLAS)
	return use(choice, os.Getenv(EnvOpenBLASLib), envWhat(choice))
}

// envWhat names the choice of EnvBLAS in errors and BackendInfo.
func envWhat(choice string) string {
	if choice == "go" || choice == "openblas" {
		return EnvBLAS + "=" + choice
	}
	return fmt.Sprintf("%s=%q", EnvBLAS, choice)
}

// Backend names the BLAS behind Gemm: "openblas" or "gonum" (see Use).
func Backend() string { return active().name }

// BackendInfo describes the BLAS behind Gemm in a line: for OpenBLAS, the
// library loaded, its version and build configuration as it reports them,
// and the kernels (core type) it chose; for gonum, why OpenBLAS is not
// used. It starts with Backend and a space.
func BackendInfo() string { return active().info }

// active returns the backend in use, choosing it as Use documents if none
// is yet.
func active() *backend {
	if b := current.Load(); b != nil {
		return b
	}
	useMu.Lock()
	defer useMu.Unlock()
	if b := current.Load(); b != nil {
		return b
	}
	choice := os.Getenv(EnvBLAS)
	b, err := choose(choice, os.Getenv(EnvOpenBLASLib), envWhat(choice))
	if err != nil {
		b = gonumBackend(err.Error())
	}
	current.Store(b)
	return b
}

// gonumBackend returns gonum's backend, not OpenBLAS for the reason why.
func gonumBackend(why string) *backend {
	return &backend{name: "gonum", info: "gonum (pure Go; " + why + ")"}
}

// choose returns the backend that Use(choice, lib) chooses; what names the
// choice in errors and in BackendInfo.
func choose(choice, lib, what string) (*backend, error) {
	names := openBLASNames
	if lib != "" {
		names = []string{lib}
	}
	switch choice {
	case "go":
		return gonumBackend(what), nil
	case "", "auto":
		ob, err := loadOpenBLAS(names)
		if err != nil {
			return gonumBackend(err.Error()), nil
		}
		return &backend{name: "openblas", info: ob.info, ob: ob}, nil
	case "openblas":
		ob, err := loadOpenBLAS(names)
		if err != nil {
			return nil, fmt.Errorf("nn: %s: %w", what, err)
		}
		return &backend{name: "openblas", info: ob.info, ob: ob}, nil
	}
	return nil, fmt.Errorf("nn: %s: want go, openblas, auto or nothing", what)
}

// gemm is Gemm on the backend in use.
func gemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if ob := active().ob; ob != nil {
		ob.sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	gonumGemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
