package nn

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/phs-go/phs/internal/race"
)

const bogusLib = "/nonexistent/phs-test/libopenblas.so.0"

func TestChoose(t *testing.T) {
	b, err := choose("go", "", "PHS_BLAS=go")
	if err != nil || b.ob != nil || b.name != "gonum" || b.info != "gonum (pure Go; PHS_BLAS=go)" {
		t.Errorf("PHS_BLAS=go: got %+v, %v; want gonum", b, err)
	}
	for _, choice := range []string{"", "auto"} {
		b, err = choose(choice, bogusLib, "x")
		if err != nil || b.ob != nil || b.name != "gonum" || !strings.HasPrefix(b.info, "gonum (pure Go; cannot load OpenBLAS: ") {
			t.Errorf("PHS_BLAS=%q, a library that is absent: got %+v, %v; want the fallback to gonum", choice, b, err)
		}
	}
	b, err = choose("openblas", bogusLib, "PHS_BLAS=openblas")
	if b != nil || err == nil {
		t.Fatalf("PHS_BLAS=openblas, a library that is absent: got %+v, %v; want an error", b, err)
	}
	if want := "nn: PHS_BLAS=openblas: cannot load OpenBLAS: "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("PHS_BLAS=openblas, a library that is absent: error %q, want it to start with %q", err, want)
	}
	if hasLoader && !strings.Contains(err.Error(), bogusLib) {
		t.Errorf("PHS_BLAS=openblas, a library that is absent: error %q does not name it", err)
	}
	b, err = choose("fast", "", envWhat("fast"))
	if b != nil || err == nil || !strings.Contains(err.Error(), `nn: PHS_BLAS="fast": want go, openblas`) {
		t.Errorf("PHS_BLAS=fast: got %+v, %v; want an error", b, err)
	}
}

// TestUse checks that Use changes the backend, and leaves it as it was on
// error.
func TestUse(t *testing.T) {
	defer current.Store(active())
	if err := Use("go", ""); err != nil || Backend() != "gonum" || BackendInfo() != `gonum (pure Go; backend "go")` {
		t.Fatalf("Use(go): %v; backend %q", err, BackendInfo())
	}
	for _, choice := range []string{"fast", "openblas"} {
		err := Use(choice, bogusLib)
		if want := fmt.Sprintf("nn: backend %q: ", choice); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Use(%s, absent library): error %v, want one starting with %q", choice, err, want)
		}
		if Backend() != "gonum" {
			t.Errorf("Use(%s, absent library) changed the backend to %s", choice, BackendInfo())
		}
	}
}

// TestBackendMatchesEnv checks that the backend is what PHS_BLAS asks for,
// and that it is an error for UseEnv if it cannot be had. (Reading the
// variables here also makes them part of go test's cache key.)
func TestBackendMatchesEnv(t *testing.T) {
	choice, lib := os.Getenv(EnvBLAS), os.Getenv(EnvOpenBLASLib)
	os.Getenv("OPENBLAS_CORETYPE")
	if err := UseEnv(); err != nil {
		t.Fatal(err)
	}
	var want string
	switch choice {
	case "go":
		want = "gonum"
	case "openblas":
		want = "openblas"
	default:
		names := openBLASNames
		if lib != "" {
			names = []string{lib}
		}
		want = "gonum"
		if _, err := loadOpenBLAS(names); err == nil {
			want = "openblas"
		}
	}
	if b := active(); b.name != want || (b.ob != nil) != (want == "openblas") {
		t.Errorf("%s=%q: backend %q (OpenBLAS loaded: %v), want %q", EnvBLAS, choice, b.name, b.ob != nil, want)
	}
	if !strings.HasPrefix(BackendInfo(), Backend()+" (") || !strings.HasSuffix(BackendInfo(), ")") {
		t.Errorf("BackendInfo %q does not start with the backend %q", BackendInfo(), Backend())
	}
	t.Logf("%s", BackendInfo())
}

// childEnv is the environment without the variables that choose the
// backend, plus extra.
func childEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != EnvBLAS && k != EnvOpenBLASLib && k != "OPENBLAS_CORETYPE" {
			env = append(env, kv)
		}
	}
	return race.NoExitSleep(append(env, extra...))
}

// runChild runs TestBackendChild in a new process of the test binary, with
// the environment env, and returns its output.
func runChild(t *testing.T, env []string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBackendChild$")
	cmd.Env = append(env, "NN_TEST_BACKEND_CHILD=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestBackendChild, in a process started by runChild, prints whether a
// backend was chosen when the package was initialised, the environment,
// what UseEnv returns, and the backend in use; otherwise it does nothing.
func TestBackendChild(t *testing.T) {
	if os.Getenv("NN_TEST_BACKEND_CHILD") != "1" {
		t.Skip("run by other tests in a new process")
	}
	fmt.Printf("chosen at init=%v\n", current.Load() != nil)
	fmt.Printf("environ=%q\n", os.Environ())
	if os.Getenv("NN_TEST_USE_ENV") == "1" {
		fmt.Printf("UseEnv=%v\n", UseEnv())
	}
	fmt.Printf("backend=%s\ninfo=%s\n", Backend(), BackendInfo())
}

// TestBackendEnv checks in new processes what the package does with the
// environment: nothing when it is initialised; the first product falls
// back to gonum if PHS_BLAS cannot be honoured, and UseEnv says why.
func TestBackendEnv(t *testing.T) {
	wantLoad := "nn: PHS_BLAS=openblas: cannot load OpenBLAS: "
	if hasLoader {
		wantLoad += bogusLib
	}
	for _, tc := range []struct {
		env []string
		// useEnv is what UseEnv returns, info what BackendInfo starts with.
		useEnv, info string
	}{
		{[]string{"PHS_BLAS=openblas", "PHS_OPENBLAS_LIB=" + bogusLib}, wantLoad, "gonum (pure Go; " + wantLoad},
		{[]string{"PHS_BLAS=fast"}, `nn: PHS_BLAS="fast": want go, openblas, auto or nothing`, `gonum (pure Go; nn: PHS_BLAS="fast": want go`},
		{[]string{"PHS_BLAS=go", "PHS_OPENBLAS_LIB=" + bogusLib}, "<nil>", "gonum (pure Go; PHS_BLAS=go)"},
		{[]string{"PHS_OPENBLAS_LIB=" + bogusLib}, "<nil>", "gonum (pure Go; cannot load OpenBLAS: "},
	} {
		for _, useEnv := range []bool{false, true} {
			env := childEnv(tc.env...)
			if useEnv {
				env = append(env, "NN_TEST_USE_ENV=1")
			}
			out, err := runChild(t, env)
			if err != nil {
				t.Errorf("%v: %v:\n%s", tc.env, err, out)
				continue
			}
			want := []string{"chosen at init=false\n", fmt.Sprintf("environ=%q\n", append(env, "NN_TEST_BACKEND_CHILD=1")), "backend=gonum\ninfo=" + tc.info}
			if useEnv {
				want = append(want, "UseEnv="+tc.useEnv)
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("%v (UseEnv called: %v): the output does not contain %q:\n%s", tc.env, useEnv, w, out)
				}
			}
		}
	}
}
