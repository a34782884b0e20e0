package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestJSONLWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewJSONLWriter(&buf)
	recs := []Record{
		{Problem: "000.txt#17", Domain: "sokoban", Algorithm: "phs*", Solved: true, Length: 3,
			Expansions: 12, Generated: 30, TimeS: 0.5, Budget: 2000, Solution: "UUR"},
		{Problem: "000.txt#18", Domain: "sokoban", Algorithm: "phs*", Budget: 2000},
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(recs) {
		t.Fatalf("got %d lines, want %d", len(lines), len(recs))
	}
	want := `{"problem":"000.txt#17","domain":"sokoban","algorithm":"phs*","solved":true,"length":3,"expansions":12,"generated":30,"time_s":0.5,"budget":2000,"solution":"UUR"}`
	if lines[0] != want {
		t.Errorf("line 0 =\n%s\nwant\n%s", lines[0], want)
	}
	for i, l := range lines {
		var got Record
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatal(err)
		}
		if got != recs[i] {
			t.Errorf("round trip %d: got %+v, want %+v", i, got, recs[i])
		}
	}
}

func TestSummary(t *testing.T) {
	tests := []struct {
		recs                  []Record
		solved                int
		length, expand, timeS float64
	}{
		{nil, 0, 0, 0, 0},
		{[]Record{{Solved: false, Expansions: 100}}, 0, 0, 0, 0},
		{[]Record{
			{Solved: true, Length: 10, Expansions: 100, TimeS: 1},
			{Solved: false, Length: 0, Expansions: 1000, TimeS: 9},
			{Solved: true, Length: 20, Expansions: 300, TimeS: 2},
		}, 2, 15, 200, 1.5},
	}
	for i, tc := range tests {
		var s Summary
		for _, r := range tc.recs {
			s.Add(r)
		}
		if s.Problems != len(tc.recs) || s.Solved != tc.solved || s.MeanLength() != tc.length ||
			s.MeanExpansions() != tc.expand || s.MeanTime() != tc.timeS {
			t.Errorf("%d: got %+v (means %v %v %v)", i, s, s.MeanLength(), s.MeanExpansions(), s.MeanTime())
		}
	}
}

func TestWriteTable(t *testing.T) {
	var buf bytes.Buffer
	a := Summary{Name: "phs*", Problems: 2, Solved: 2, Length: 30, Expansions: 300, TimeS: 1}
	b := Summary{Name: "gbfs", Problems: 2}
	if err := WriteTable(&buf, a, b); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"solved", "2/2", "15.0", "150.0", "0.500", "0/2"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
