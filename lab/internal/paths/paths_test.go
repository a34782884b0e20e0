package paths

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSame checks the names of one file, of two, and of none.
func TestSame(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		x, y string
		want bool
	}{
		{a, a, true},
		{a, filepath.Join(dir, ".", "a"), true},
		{a, link, true},
		{dir, filepath.Join(dir, "sub", ".."), true},
		{missing, missing, true},
		{a, b, false},
		{a, missing, false},
		{missing, filepath.Join(dir, "other"), false},
		{".", "../../internal/paths", true},
		{".", "..", false},
	} {
		if got := Same(c.x, c.y); got != c.want {
			t.Errorf("Same(%s, %s) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}
