//go:build !noopenblas && ((linux && !android) || (darwin && !ios)) && (amd64 || arm64)

package nn

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"golang.org/x/sys/cpu"
)

// hasLoader reports whether this build can load OpenBLAS: only on Linux
// and macOS, on amd64 and arm64, and without the build tag noopenblas.
const hasLoader = true

// openBLASNames are the libraries tried, in order, when EnvOpenBLASLib is
// empty: the names the dynamic loader searches its usual directories for,
// then on macOS the places where Homebrew and MacPorts install OpenBLAS,
// outside those directories.
var openBLASNames = func() []string {
	if runtime.GOOS == "darwin" {
		return []string{"libopenblas.dylib",
			"/opt/homebrew/opt/openblas/lib/libopenblas.dylib",
			"/usr/local/opt/openblas/lib/libopenblas.dylib",
			"/opt/local/lib/libopenblas.dylib"}
	}
	return []string{"libopenblas.so.0", "libopenblas.so"}
}()

// An openBLAS is a loaded OpenBLAS library.
type openBLAS struct {
	// sgemmFn is the address of sgemm_, the Fortran interface, whose
	// arguments are all pointers: purego.SyscallN passes them without
	// reflection or allocation, which it cannot do for cblas_sgemm's float
	// arguments.
	sgemmFn uintptr
	// lib is the name it was loaded by; info is BackendInfo.
	lib, info string
}

// coreTypeAuto is the OpenBLAS core type set on CPUs with AVX-512 when the
// environment sets none.
const coreTypeAuto = "SkylakeX"

// loadOpenBLAS loads the first of the libraries names that loads and is
// usable, with OPENBLAS_NUM_THREADS=1 and, on a CPU with AVX-512 when
// OPENBLAS_CORETYPE is not set, OPENBLAS_CORETYPE=SkylakeX in the
// environment while it loads (OpenBLAS reads both when it is loaded; the
// environment is restored after), and sets it to run single-threaded.
func loadOpenBLAS(names []string) (*openBLAS, error) {
	defer setenvWhile("OPENBLAS_NUM_THREADS", "1")()
	autoCore := false
	if _, set := os.LookupEnv("OPENBLAS_CORETYPE"); !set && hasAVX512() {
		autoCore = true
		defer setenvWhile("OPENBLAS_CORETYPE", coreTypeAuto)()
	}
	var errs []string
	for _, name := range names {
		ob, err := openOpenBLAS(name)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if autoCore {
			ob.info += fmt.Sprintf("; OPENBLAS_CORETYPE=%s set by phs (the CPU has AVX-512)", coreTypeAuto)
		}
		return ob, nil
	}
	return nil, fmt.Errorf("cannot load OpenBLAS: %s", strings.Join(errs, "; "))
}

// hasAVX512 reports whether the CPU and the operating system support the
// AVX-512 instructions that OpenBLAS's SkylakeX kernels use.
func hasAVX512() bool {
	x := cpu.X86
	return x.HasAVX512F && x.HasAVX512CD && x.HasAVX512BW && x.HasAVX512DQ && x.HasAVX512VL
}

// setenvWhile sets the environment variable key to value and returns the
// function that restores it.
func setenvWhile(key, value string) (restore func()) {
	old, set := os.LookupEnv(key)
	os.Setenv(key, value)
	return func() {
		if set {
			os.Setenv(key, old)
		} else {
			os.Unsetenv(key)
		}
	}
}

// openOpenBLAS loads the library name, checks that it is an OpenBLAS with
// 32-bit integers and sets it to one thread.
func openOpenBLAS(name string) (*openBLAS, error) {
	h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, err // dlerror's message names the library
	}
	ob, err := bindOpenBLAS(h, name)
	if err != nil {
		purego.Dlclose(h)
		return nil, err
	}
	return ob, nil
}

func bindOpenBLAS(h uintptr, name string) (*openBLAS, error) {
	var sgemm, setThreads, getConfig, getCore uintptr
	for _, s := range []struct {
		addr *uintptr
		name string
	}{{&sgemm, "sgemm_"}, {&setThreads, "openblas_set_num_threads"}, {&getConfig, "openblas_get_config"}, {&getCore, "openblas_get_corename"}} {
		var err error
		if *s.addr, err = purego.Dlsym(h, s.name); err != nil {
			return nil, fmt.Errorf("%s: not an OpenBLAS: %w", name, err)
		}
	}
	var config, core func() string
	var setNumThreads func(int32)
	purego.RegisterFunc(&config, getConfig)
	purego.RegisterFunc(&core, getCore)
	purego.RegisterFunc(&setNumThreads, setThreads)
	cfg := config()
	if strings.Contains(cfg, "USE64BITINT") {
		// sgemm_ would read each 32-bit integer argument as 64 bits.
		return nil, fmt.Errorf("%s: OpenBLAS built with 64-bit integers (%s); phs needs the 32-bit interface", name, cfg)
	}
	// Parallelism comes from the search workers, not from BLAS threads.
	setNumThreads(1)
	info := fmt.Sprintf("openblas (%s: %s; core %s)", name, cfg, core())
	return &openBLAS{sgemmFn: sgemm, lib: name, info: info}, nil
}

// sgemmArgs holds the arguments of a call of sgemm_: the values it takes
// by reference, and args, what purego.SyscallN passes (pointers to them,
// to the matrices, and the two lengths of the character arguments that the
// Fortran calling convention appends and OpenBLAS ignores). An sgemmArgs
// is on the heap, where nothing moves, and a, b and c keep the matrices
// there and alive while sgemm_ runs. sgemmPool recycles them, so that Gemm
// allocates nothing: a variadic call of SyscallN would allocate its
// arguments on every call.
type sgemmArgs struct {
	transA, transB byte
	m, n, k        int32
	alpha, beta    float32
	lda, ldb, ldc  int32
	a, b, c        []float32
	args           [15]uintptr
}

// The indices in sgemmArgs.args of the matrices' addresses.
const (
	sgemmArgB = 6
	sgemmArgA = 8
	sgemmArgC = 11
)

var sgemmPool = sync.Pool{New: func() any {
	p := new(sgemmArgs)
	p.args = [15]uintptr{
		uintptr(unsafe.Pointer(&p.transA)), uintptr(unsafe.Pointer(&p.transB)),
		uintptr(unsafe.Pointer(&p.m)), uintptr(unsafe.Pointer(&p.n)), uintptr(unsafe.Pointer(&p.k)),
		uintptr(unsafe.Pointer(&p.alpha)),
		0, uintptr(unsafe.Pointer(&p.lda)), // b
		0, uintptr(unsafe.Pointer(&p.ldb)), // a
		uintptr(unsafe.Pointer(&p.beta)),
		0, uintptr(unsafe.Pointer(&p.ldc)), // c
		1, 1}
	return p
}}

// sgemm is Gemm on OpenBLAS. sgemm_ works on column-major matrices: a
// row-major matrix is the column-major matrix of its transpose, so it
// computes cᵀ = alpha·op(b)ᵀ·op(a)ᵀ + beta·cᵀ, as cblas_sgemm does for
// row-major matrices.
func (ob *openBLAS) sgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	p := sgemmPool.Get().(*sgemmArgs)
	p.transA, p.transB = trans(tB), trans(tA)
	p.m, p.n, p.k = int32(n), int32(m), int32(k)
	p.alpha, p.beta = alpha, beta
	p.lda, p.ldb, p.ldc = int32(ldb), int32(lda), int32(ldc)
	p.a, p.b, p.c = a, b, c
	p.args[sgemmArgB] = uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	p.args[sgemmArgA] = uintptr(unsafe.Pointer(unsafe.SliceData(a)))
	p.args[sgemmArgC] = uintptr(unsafe.Pointer(unsafe.SliceData(c)))
	purego.SyscallN(ob.sgemmFn, p.args[:]...)
	runtime.KeepAlive(p)
	p.a, p.b, p.c = nil, nil, nil
	sgemmPool.Put(p)
}

// trans returns the BLAS character of a transposition.
func trans(t bool) byte {
	if t {
		return 'T'
	}
	return 'N'
}
