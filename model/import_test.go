package model

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/phs-go/phs/internal/race"
)

// TestImportChild, in a process started by TestImportHasNoEffect, prints
// the environment and whether OpenBLAS is loaded; otherwise it does
// nothing.
func TestImportChild(t *testing.T) {
	if os.Getenv("MODEL_TEST_IMPORT_CHILD") != "1" {
		t.Skip("run by TestImportHasNoEffect in a new process")
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("environ=%q\nopenblas loaded=%v\n", os.Environ(), strings.Contains(string(maps), "libopenblas"))
}

// TestImportHasNoEffect checks in new processes that importing the package
// (and so package nn) leaves the process as it was: it does not stop on a
// bad PHS_BLAS, loads no library and leaves the environment untouched.
func TestImportHasNoEffect(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/maps")
	}
	var base []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "PHS_BLAS" && k != "OPENBLAS_CORETYPE" && k != "OPENBLAS_NUM_THREADS" {
			base = append(base, kv)
		}
	}
	base = race.NoExitSleep(base)
	for _, extra := range [][]string{{"PHS_BLAS=bogus"}, {"PHS_BLAS=openblas", "PHS_OPENBLAS_LIB=/nonexistent/libopenblas.so.0"}, nil} {
		env := append(append(base[:len(base):len(base)], extra...), "MODEL_TEST_IMPORT_CHILD=1")
		cmd := exec.Command(os.Args[0], "-test.run=^TestImportChild$", "-test.v")
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%v: %v:\n%s", extra, err, out)
			continue
		}
		for _, want := range []string{fmt.Sprintf("environ=%q\n", env), "openblas loaded=false\n", "--- PASS: TestImportChild"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("%v: the output does not contain %q:\n%s", extra, want, out)
			}
		}
	}
}
