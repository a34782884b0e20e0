package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// testLogger returns a text logger to w without times, for exact
// comparisons.
func testLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// TestLogJSON checks that -log json makes every line on standard error a
// JSON object, for a command that logs a warning and progress.
func TestLogJSON(t *testing.T) {
	tiles := writeFile(t, "tiles.txt", stpFixture)
	_, errOut, err := runPHS(t, "solve", "-domain", "stp", "-model", "none", "-log", "json", "-out", t.TempDir()+"/r.jsonl", tiles, tiles)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	warned := false
	for _, l := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Errorf("not JSON: %q", l)
			continue
		}
		warned = warned || rec["msg"] == "duplicate problem id"
	}
	if !warned {
		t.Errorf("no duplicate-id warning in\n%s", errOut)
	}
	if _, err := newLogger("xml", &bytes.Buffer{}); err == nil {
		t.Error("-log xml: no error")
	}
}
