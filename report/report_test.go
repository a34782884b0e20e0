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
		median                float64
		max                   int64
		maxTime               float64
	}{
		{nil, 0, 0, 0, 0, 0, 0, 0},
		{[]Record{{Solved: false, Expansions: 100, TimeS: 3}}, 0, 0, 0, 0, 0, 0, 0},
		{[]Record{
			{Solved: true, Length: 10, Expansions: 100, TimeS: 1},
			{Solved: false, Length: 0, Expansions: 1000, TimeS: 9},
			{Solved: true, Length: 20, Expansions: 300, TimeS: 2},
		}, 2, 15, 200, 1.5, 200, 300, 2},
		{[]Record{
			{Solved: true, Length: 1, Expansions: 900},
			{Solved: true, Length: 1, Expansions: 5},
			{Solved: false, Expansions: 100000},
			{Solved: true, Length: 1, Expansions: 40},
		}, 3, 1, 315, 0, 40, 900, 0},
	}
	for i, tc := range tests {
		var s Summary
		for _, r := range tc.recs {
			s.Add(r)
		}
		if s.Problems != len(tc.recs) || s.Solved != tc.solved || s.MeanLength() != tc.length ||
			s.MeanExpansions() != tc.expand || s.MeanTime() != tc.timeS ||
			s.MedianExpansions() != tc.median || s.MaxExpansions() != tc.max || s.MaxTime() != tc.maxTime {
			t.Errorf("%d: got %+v (means %v %v %v, median %v, max %v, max time %v)", i, s,
				s.MeanLength(), s.MeanExpansions(), s.MeanTime(), s.MedianExpansions(), s.MaxExpansions(), s.MaxTime())
		}
	}
}

func TestWriteTable(t *testing.T) {
	var buf bytes.Buffer
	var a Summary
	a.Name = "phs*"
	for _, r := range []Record{
		{Solved: true, Length: 10, Expansions: 100, TimeS: 0.25},
		{Solved: true, Length: 20, Expansions: 200, TimeS: 0.75},
		{Solved: true, Length: 30, Expansions: 900, TimeS: 0.5},
	} {
		a.Add(r)
	}
	b := Summary{Name: "gbfs"}
	b.Add(Record{Expansions: 7})
	if err := WriteTable(&buf, a, b); err != nil {
		t.Fatal(err)
	}
	want := `  algorithm  solved  length  expansions  time (s)  median exp.  max exp.
       phs*     3/3    20.0       400.0     0.500        200.0       900
       gbfs     0/1       -           -         -            -         -
`
	if got := buf.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

func TestReadJSONL(t *testing.T) {
	var buf bytes.Buffer
	w := NewJSONLWriter(&buf)
	want := []Record{{Problem: "a#0", Solved: true, Length: 3, Expansions: 7, Solution: "UDL", ReorderExpansions: 2}, {Problem: "a#1"}}
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
}

func TestReadJSONLErrors(t *testing.T) {
	tests := []struct {
		name, in string
		// msg starts the error message.
		msg string
	}{
		{"syntax", "{\"problem\":\"a\"}\n{bad\n", "report: x.jsonl:2: invalid character"},
		{"no problem", "{\"solved\":true}\n", `report: x.jsonl:1: not a result record (no "problem")`},
		{"empty problem", "{\"problem\":\"a\"}\n\n\n{\"problem\":\"\"}\n", "report: x.jsonl:4: not a result record"},
		{"unknown field", "{\"problem\":\"a\",\"iteration\":1}\n", `report: x.jsonl:1: json: unknown field "iteration"`},
		{"wrong type", "{\"problem\":\"a\",\"solved\":1}\n", "report: x.jsonl:1: json: cannot unmarshal number"},
		{"two objects", "{\"problem\":\"a\"}{\"problem\":\"b\"}\n", "report: x.jsonl:1: data after the object"},
		{"not an object", "[]\n", "report: x.jsonl:1: not a JSON object"},
		{"reorder beyond expansions", "{\"problem\":\"a\",\"expansions\":3,\"reorder_expansions\":4}\n", "report: x.jsonl:1: reorder_expansions 4; want 0 to expansions (3)"},
		{"negative reorder", "{\"problem\":\"a\",\"reorder_expansions\":-1}\n", "report: x.jsonl:1: reorder_expansions -1"},
		{"negative shorten_nodes", "{\"problem\":\"a\",\"solved\":true,\"shorten_nodes\":-1}\n", "report: x.jsonl:1: shorten_nodes -1 of a problem solved true"},
		{"shorten_nodes unsolved", "{\"problem\":\"a\",\"shorten_nodes\":5}\n", "report: x.jsonl:1: shorten_nodes 5 of a problem solved false"},
		{"negative beam width", "{\"problem\":\"a\",\"algorithm\":\"beam\",\"beam_width\":-1}\n", "report: x.jsonl:1: beam_width -1"},
		{"beam width of another algorithm", "{\"problem\":\"a\",\"algorithm\":\"gbfs\",\"beam_width\":4}\n", "report: x.jsonl:1: beam_width 4 of algorithm \"gbfs\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadJSONL(strings.NewReader(tc.in), "x.jsonl")
			if got != nil || err == nil || !strings.HasPrefix(err.Error(), tc.msg) {
				t.Errorf("ReadJSONL(%q) = %+v, %v; want error starting with %q", tc.in, got, err, tc.msg)
			}
		})
	}
}

// FuzzReadJSONL checks that ReadJSONL does not panic, that its errors say
// where, and that the records it reads have a problem and read back the
// same after a JSONLWriter writes them.
func FuzzReadJSONL(f *testing.F) {
	for _, s := range []string{
		"",
		`{"problem":"000.txt#17","domain":"sokoban","algorithm":"phs*","solved":true,"length":3,"expansions":12,"generated":30,"time_s":0.5,"budget":2000,"solution":"UUR"}`,
		"{\"problem\":\"a\"}\r\n\n{\"problem\":\"b\",\"time_s\":1e-7}\n",
		"{\"solved\":true}\n",
		"{\"problem\":\"a\",\"x\":1}\n",
		"{\"problem\":\"\xff\"}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		recs, err := ReadJSONL(strings.NewReader(in), "in")
		if err != nil {
			if recs != nil || !strings.HasPrefix(err.Error(), "report: in:") {
				t.Errorf("got %+v, %v; want no records and an error starting with \"report: in:\"", recs, err)
			}
			return
		}
		var buf bytes.Buffer
		w := NewJSONLWriter(&buf)
		for _, r := range recs {
			if r.Problem == "" {
				t.Errorf("record without a problem: %+v", r)
			}
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		again, err := ReadJSONL(&buf, "again")
		if err != nil {
			t.Fatalf("reading what was written: %v", err)
		}
		if len(again) != len(recs) {
			t.Fatalf("read %d records, then %d", len(recs), len(again))
		}
		for i := range recs {
			if again[i] != recs[i] {
				t.Errorf("record %d: read %+v, then %+v", i, recs[i], again[i])
			}
		}
	})
}
