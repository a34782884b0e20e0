package bootstrap

import (
	"strings"
	"testing"
)

func TestParseMethod(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"phsstar", "phsstar"}, {"PHS*", "phsstar"}, {"phs_h", "phsh"}, {"LevinTS", "levints"},
		{"a*", "astar"}, {"wa*", "wastar"}, {"gbfs", "gbfs"}, {"phssafe", "phssafe"}, {"PUCT", "puct"},
	} {
		m, err := ParseMethod(tc.in, 1.5, 1)
		if err != nil || m.Name != tc.want {
			t.Errorf("ParseMethod(%q) = %q, %v; want %q", tc.in, m.Name, err, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		w    float64
		msg  string
	}{
		{"dfs", 1, "unknown algorithm \"dfs\" (want phsstar, phsh,"},
		{"", 1, "unknown algorithm"},
		{"wastar", -1, "bad weight -1"},
	} {
		if _, err := ParseMethod(tc.name, tc.w, 1); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseMethod(%q, %g): err = %v, want %q", tc.name, tc.w, err, tc.msg)
		}
	}
	for _, name := range Methods {
		if _, err := ParseMethod(name, 1.5, 1); err != nil {
			t.Errorf("ParseMethod(%q): %v", name, err)
		}
	}
}
