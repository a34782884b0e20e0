package nn

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

const bogusLib = "/nonexistent/phs-test/libopenblas.so.0"

func TestChooseBackend(t *testing.T) {
	ob, why, err := chooseBackend("go", "")
	if ob != nil || why != "PHS_BLAS=go" || err != nil {
		t.Errorf("PHS_BLAS=go: got %v, %q, %v; want gonum", ob, why, err)
	}
	for _, choice := range []string{"", "auto"} {
		ob, why, err = chooseBackend(choice, bogusLib)
		if ob != nil || !strings.HasPrefix(why, "cannot load OpenBLAS: ") || err != nil {
			t.Errorf("PHS_BLAS=%q, a library that is absent: got %v, %q, %v; want the fallback to gonum", choice, ob, why, err)
		}
	}
	ob, _, err = chooseBackend("openblas", bogusLib)
	if ob != nil || err == nil {
		t.Fatalf("PHS_BLAS=openblas, a library that is absent: got %v, %v; want an error", ob, err)
	}
	if want := "nn: PHS_BLAS=openblas: cannot load OpenBLAS: "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("PHS_BLAS=openblas, a library that is absent: error %q, want it to start with %q", err, want)
	}
	if hasLoader && !strings.Contains(err.Error(), bogusLib) {
		t.Errorf("PHS_BLAS=openblas, a library that is absent: error %q does not name it", err)
	}
	ob, _, err = chooseBackend("fast", "")
	if ob != nil || err == nil || !strings.Contains(err.Error(), `PHS_BLAS="fast": want go, openblas`) {
		t.Errorf("PHS_BLAS=fast: got %v, %v; want an error", ob, err)
	}
}

// TestBackendMatchesEnv checks that Backend is what PHS_BLAS asks for.
// (Reading the variables here also makes them part of go test's cache key.)
func TestBackendMatchesEnv(t *testing.T) {
	choice, lib := os.Getenv(EnvBLAS), os.Getenv(EnvOpenBLASLib)
	os.Getenv("OPENBLAS_CORETYPE")
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
	if Backend != want || (openblas != nil) != (want == "openblas") {
		t.Errorf("%s=%q: Backend %q (OpenBLAS loaded: %v), want %q", EnvBLAS, choice, Backend, openblas != nil, want)
	}
	if !strings.HasPrefix(BackendInfo, Backend+" (") || !strings.HasSuffix(BackendInfo, ")") {
		t.Errorf("BackendInfo %q does not start with the backend %q", BackendInfo, Backend)
	}
	t.Logf("%s", BackendInfo)
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
	return append(env, extra...)
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

// TestBackendChild prints the backend chosen in a process started by
// runChild; otherwise it does nothing.
func TestBackendChild(t *testing.T) {
	if os.Getenv("NN_TEST_BACKEND_CHILD") != "1" {
		t.Skip("run by other tests in a new process")
	}
	fmt.Printf("backend=%s\ninfo=%s\n", Backend, BackendInfo)
}

// TestBackendEnvErrors checks what a process does when PHS_BLAS cannot be
// honoured: it stops while initialising, with the documented message.
func TestBackendEnvErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	wantLoad := []string{"panic: nn: PHS_BLAS=openblas: cannot load OpenBLAS: "}
	if hasLoader {
		wantLoad = append(wantLoad, bogusLib)
	}
	for _, tc := range []struct {
		env  []string
		want []string
	}{
		{[]string{"PHS_BLAS=openblas", "PHS_OPENBLAS_LIB=" + bogusLib}, wantLoad},
		{[]string{"PHS_BLAS=fast"}, []string{`panic: nn: PHS_BLAS="fast": want go, openblas`}},
	} {
		out, err := runChild(t, childEnv(tc.env...))
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Errorf("%v: the process did not fail (%v):\n%s", tc.env, err, out)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: the output does not contain %q:\n%s", tc.env, w, out)
			}
		}
		if strings.Contains(out, "backend=") {
			t.Errorf("%v: the process ran its tests:\n%s", tc.env, out)
		}
	}
	out, err := runChild(t, childEnv("PHS_BLAS=go", "PHS_OPENBLAS_LIB="+bogusLib))
	if err != nil || !strings.Contains(out, "backend=gonum\n") {
		t.Errorf("PHS_BLAS=go: %v:\n%s", err, out)
	}
	out, err = runChild(t, childEnv("PHS_OPENBLAS_LIB="+bogusLib))
	if err != nil || !strings.Contains(out, "backend=gonum\ninfo=gonum (pure Go; cannot load OpenBLAS: ") {
		t.Errorf("no PHS_BLAS, a library that is absent: %v:\n%s; want the fallback to gonum", err, out)
	}
}
