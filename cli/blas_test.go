package cli

import (
	"errors"
	"strings"
	"testing"
)

// TestBadBLASEnv checks that a PHS_BLAS that cannot be honoured is a usage
// error of every command, before it does anything.
func TestBadBLASEnv(t *testing.T) {
	t.Setenv("PHS_BLAS", "bogus")
	for _, args := range [][]string{{"-version"}, {"generate", "stp", "-n", "1"}} {
		out, _, err := runPHS(t, args...)
		var u usageError
		if !errors.As(err, &u) || exitCode(err) != 2 || !strings.Contains(err.Error(), `PHS_BLAS="bogus": want go, openblas`) || out != "" {
			t.Errorf("%q with PHS_BLAS=bogus: stdout %q, error %v (exit status %d); want a usage error that names PHS_BLAS", args, out, err, exitCode(err))
		}
	}
}
