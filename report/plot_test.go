package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestChartSave(t *testing.T) {
	dir := t.TempDir()
	c := Chart{Title: "t", XLabel: "x", YLabel: "y", LogY: true, Series: []Series{
		{Name: "a", X: []float64{1, 2, 3}, Y: []float64{1, 10, 100}},
		{Name: "b", X: []float64{1, 2}, Y: []float64{0, 5}},
	}}
	for _, tc := range []struct{ file, magic string }{
		{"c.png", "\x89PNG"}, {"c.svg", "<?xml"}, {"c.pdf", "%PDF"},
	} {
		path := filepath.Join(dir, tc.file)
		if err := c.Save(path); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte(tc.magic)) {
			t.Errorf("%s starts with %q, want %q", tc.file, b[:min(8, len(b))], tc.magic)
		}
	}
	if err := c.Save(filepath.Join(dir, "c.gif")); err == nil {
		t.Error("saving as .gif: no error")
	}
	bad := Chart{Series: []Series{{Name: "bad", X: []float64{1}, Y: nil}}}
	if err := bad.Save(filepath.Join(dir, "bad.png")); err == nil {
		t.Error("mismatched series: no error")
	}
}

func TestReadJSONL(t *testing.T) {
	var buf bytes.Buffer
	w := NewJSONLWriter(&buf)
	want := []Record{{Problem: "a#0", Solved: true, Length: 3, Expansions: 7, Solution: "UDL"}, {Problem: "a#1"}}
	for _, r := range want {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadJSONL(&buf, "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for _, tc := range []struct{ in, msg string }{
		{"{\"problem\":\"a\"}\n{bad\n", "x.jsonl:2"},
		{"{\"solved\":true}\n", "x.jsonl:1: not a result record"},
	} {
		_, err := ReadJSONL(strings.NewReader(tc.in), "x.jsonl")
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ReadJSONL(%q) = %v, want error containing %q", tc.in, err, tc.msg)
		}
	}
}
