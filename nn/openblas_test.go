//go:build !noopenblas && ((linux && !android) || (darwin && !ios)) && (amd64 || arm64)

package nn

import (
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/ebitengine/purego"
)

// needOpenBLAS returns the OpenBLAS in use, or else loads one, or skips
// the test if there is none on this system.
func needOpenBLAS(t *testing.T) *openBLAS {
	t.Helper()
	if b := active(); b.ob != nil {
		return b.ob
	}
	ob, err := loadOpenBLAS(openBLASNames)
	if err != nil {
		t.Skipf("no OpenBLAS: %v", err)
	}
	return ob
}

// TestLoadNotOpenBLAS loads a library that is not OpenBLAS.
func TestLoadNotOpenBLAS(t *testing.T) {
	lib := "libm.so.6"
	if runtime.GOOS == "darwin" {
		lib = "/usr/lib/libSystem.B.dylib"
	}
	_, err := loadOpenBLAS([]string{bogusLib, lib})
	if err == nil {
		t.Fatalf("%s loaded as OpenBLAS", lib)
	}
	for _, want := range []string{"cannot load OpenBLAS: ", bogusLib, lib + ": not an OpenBLAS: "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q, want it to contain %q", err, want)
		}
	}
}

// TestLoadRestoresEnv checks that loading leaves the environment as it
// was, whether it loads or not.
func TestLoadRestoresEnv(t *testing.T) {
	for _, names := range [][]string{{bogusLib}, openBLASNames} {
		t.Setenv("OPENBLAS_NUM_THREADS", "")
		os.Unsetenv("OPENBLAS_NUM_THREADS")
		t.Setenv("OPENBLAS_CORETYPE", "")
		os.Unsetenv("OPENBLAS_CORETYPE")
		loadOpenBLAS(names)
		for _, k := range []string{"OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE"} {
			if v, set := os.LookupEnv(k); set {
				t.Errorf("%v: loading left %s=%q", names, k, v)
			}
		}
		t.Setenv("OPENBLAS_NUM_THREADS", "3")
		t.Setenv("OPENBLAS_CORETYPE", "Zen")
		loadOpenBLAS(names)
		if a, b := os.Getenv("OPENBLAS_NUM_THREADS"), os.Getenv("OPENBLAS_CORETYPE"); a != "3" || b != "Zen" {
			t.Errorf("%v: loading changed OPENBLAS_NUM_THREADS=3 and OPENBLAS_CORETYPE=Zen to %q and %q", names, a, b)
		}
	}
}

// TestOpenBLASOneThread checks that OpenBLAS runs on one thread.
func TestOpenBLASOneThread(t *testing.T) {
	ob := needOpenBLAS(t)
	h, err := purego.Dlopen(ob.lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		t.Fatal(err)
	}
	defer purego.Dlclose(h)
	fn, err := purego.Dlsym(h, "openblas_get_num_threads")
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := purego.SyscallN(fn); int32(n) != 1 {
		t.Errorf("OpenBLAS runs %d threads, want 1", int32(n))
	}
}

// TestOpenBLASCoreType checks in new processes that OPENBLAS_CORETYPE is
// set to SkylakeX while OpenBLAS loads exactly when the CPU has AVX-512
// and the environment does not set it.
func TestOpenBLASCoreType(t *testing.T) {
	needOpenBLAS(t)
	const note = "OPENBLAS_CORETYPE=SkylakeX set by phs"
	out, err := runChild(t, childEnv())
	if err != nil || !strings.Contains(out, "backend=openblas\n") {
		t.Fatalf("%v:\n%s", err, out)
	}
	if got := strings.Contains(out, note); got != hasAVX512() {
		t.Errorf("AVX-512: %v; the backend says:\n%s", hasAVX512(), out)
	}
	// Only an OpenBLAS built with DYNAMIC_ARCH chooses its kernels when it
	// is loaded.
	if hasAVX512() && strings.Contains(out, "DYNAMIC_ARCH") && !strings.Contains(out, "; core SkylakeX)") {
		t.Errorf("OpenBLAS did not choose its SkylakeX kernels:\n%s", out)
	}
	out, err = runChild(t, childEnv("OPENBLAS_CORETYPE=Haswell"))
	if err != nil || !strings.Contains(out, "backend=openblas\n") || strings.Contains(out, note) {
		t.Errorf("OPENBLAS_CORETYPE=Haswell: %v:\n%s", err, out)
	}
	if strings.Contains(out, "DYNAMIC_ARCH") && !strings.Contains(out, "; core Haswell)") {
		t.Errorf("OPENBLAS_CORETYPE=Haswell: OpenBLAS did not choose its Haswell kernels:\n%s", out)
	}
}

// testNet is the network of package model (docs/MODEL_FORMAT.md) made of
// this package's layers: two convolutions with ReLU, then a policy branch
// (dense, ReLU, dense, log-softmax) and a heuristic branch (dense, ReLU,
// dense).
type testNet struct {
	c, h, w, actions       int
	conv1, conv2           *Conv2D
	pol1, pol2, heu1, heu2 *Dense
}

func newTestNet(rng *rand.Rand, c, h, w int) *testNet {
	const filters, kernel, hidden, actions = 32, 2, 128, 4
	nt := &testNet{c: c, h: h, w: w, actions: actions}
	nt.conv1 = NewConv2D("conv1", rng, c, h, w, filters, kernel)
	nt.conv2 = NewConv2D("conv2", rng, filters, nt.conv1.OutH(), nt.conv1.OutW(), filters, kernel)
	flat := filters * nt.conv2.OutH() * nt.conv2.OutW()
	nt.pol1, nt.pol2 = NewDense("policy1", rng, flat, hidden), NewDense("policy2", rng, hidden, actions)
	nt.heu1, nt.heu2 = NewDense("heuristic1", rng, flat, hidden), NewDense("heuristic2", rng, hidden, 1)
	for _, p := range nt.params() {
		if !p.Decay { // non-zero biases
			copy(p.Data, randSlice(rng, len(p.Data)))
		}
	}
	return nt
}

func (nt *testNet) params() []*Param {
	return []*Param{nt.conv1.Weight, nt.conv1.Bias, nt.conv2.Weight, nt.conv2.Bias,
		nt.pol1.Weight, nt.pol1.Bias, nt.pol2.Weight, nt.pol2.Bias,
		nt.heu1.Weight, nt.heu1.Bias, nt.heu2.Weight, nt.heu2.Bias}
}

// pass runs the network forward on n inputs x and backward from the
// output gradients dlogits and dh, from zero gradients. It returns the
// log-policy, the heuristic and the parameters' gradients.
func (nt *testNet) pass(x []float32, n int, dlogits, dh []float32) [][]float32 {
	for _, p := range nt.params() {
		p.ZeroGrad()
	}
	f := func(k int) []float32 { return make([]float32, k) }
	filters, hidden := nt.conv1.OutC, nt.pol1.Out
	p1, p2 := nt.conv1.OutH()*nt.conv1.OutW(), nt.conv2.OutH()*nt.conv2.OutW()
	flatN := filters * p2
	col1, col2 := f(nt.conv1.ColSize(n)), f(nt.conv2.ColSize(n))
	a1, a2, flat := f(filters*n*p1), f(filters*n*p2), f(n*flatN)
	nt.conv1.ForwardReLU(x, NCHW, n, a1, col1)
	nt.conv2.ForwardReLU(a1, CNHW, n, a2, col2)
	for ch := range filters { // CNHW to a row per sample
		for s := range n {
			copy(flat[s*flatN+ch*p2:][:p2], a2[(ch*n+s)*p2:][:p2])
		}
	}
	hp, logits, hh, h := f(n*hidden), f(n*nt.actions), f(n*hidden), f(n)
	nt.pol1.ForwardReLU(flat, n, hp, f(n*hidden))
	nt.pol2.Forward(hp, n, logits)
	LogSoftmax(logits, nt.actions)
	nt.heu1.ForwardReLU(flat, n, hh, f(n*hidden))
	nt.heu2.Forward(hh, n, h)

	dl, dflat, dflat2, dh1 := append([]float32(nil), dlogits...), f(n*flatN), f(n*flatN), f(n*hidden)
	LogSoftmaxBackward(logits, dl, nt.actions)
	nt.pol2.Backward(hp, n, dl, dh1)
	ReLUBackward(hp, dh1)
	nt.pol1.Backward(flat, n, dh1, dflat)
	nt.heu2.Backward(hh, n, dh, dh1)
	ReLUBackward(hh, dh1)
	nt.heu1.Backward(flat, n, dh1, dflat2)
	da2, da1, dcol := f(filters*n*p2), f(filters*n*p1), f(max(len(col1), len(col2)))
	for ch := range filters {
		for s := range n {
			for i := range p2 {
				da2[(ch*n+s)*p2+i] = dflat[s*flatN+ch*p2+i] + dflat2[s*flatN+ch*p2+i]
			}
		}
	}
	ReLUBackward(a2, da2)
	nt.conv2.Backward(a1, CNHW, n, da2, da1, col2, dcol)
	ReLUBackward(a1, da1)
	nt.conv1.Backward(x, NCHW, n, da1, nil, col1, dcol)

	out := [][]float32{logits, h}
	for _, p := range nt.params() {
		out = append(out, append([]float32(nil), p.Grad...))
	}
	return out
}

// TestOpenBLASMatchesGo runs the networks of the three domains (their
// input shapes; 32 filters of 2x2, 128 hidden units, 4 actions) forward
// and backward at batch 1 and 32 on OpenBLAS and on gonum, and compares
// the outputs and the gradients.
func TestOpenBLASMatchesGo(t *testing.T) {
	ob := needOpenBLAS(t)
	defer current.Store(active())
	rng := rand.New(rand.NewPCG(21, 21))
	for _, s := range []struct {
		name    string
		c, h, w int
	}{{"sokoban", 4, 10, 10}, {"witness", 9, 9, 9}, {"stp", 25, 5, 5}} {
		nt := newTestNet(rng, s.c, s.h, s.w)
		for _, n := range []int{1, 32} {
			x := make([]float32, n*s.c*s.h*s.w)
			for i := range x {
				if rng.IntN(4) == 0 {
					x[i] = 1
				}
			}
			dlogits, dh := randSlice(rng, n*nt.actions), randSlice(rng, n)
			current.Store(&backend{name: "openblas", info: ob.info, ob: ob})
			got := nt.pass(x, n, dlogits, dh)
			current.Store(gonumBackend("test"))
			want := nt.pass(x, n, dlogits, dh)
			names := []string{"log-policy", "heuristic"}
			for _, p := range nt.params() {
				names = append(names, "gradient of "+p.Name)
			}
			for i := range want {
				// The sums are of up to 2,048 products in float32, in
				// different orders: a tolerance relative to the tensor's
				// largest value, and absolute for values that are small
				// by cancellation.
				var scale float64
				for _, v := range want[i] {
					scale = max(scale, math.Abs(float64(v)))
				}
				if scale == 0 {
					t.Fatalf("%s, batch %d: %s is all zeros", s.name, n, names[i])
				}
				for j := range want[i] {
					if d := math.Abs(float64(got[i][j] - want[i][j])); d > 2e-5*scale+2e-6 || math.IsNaN(d) {
						t.Fatalf("%s, batch %d: %s[%d] = %g on OpenBLAS, %g on gonum", s.name, n, names[i], j, got[i][j], want[i][j])
					}
				}
			}
		}
	}
}
