package jsonl

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// rec is the type the tests decode into.
type rec struct {
	A int       `json:"a"`
	B string    `json:"b,omitempty"`
	C []float64 `json:"c,omitempty"`
	D *struct {
		E bool `json:"e"`
	} `json:"d,omitempty"`
}

func TestRead(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []rec
	}{
		{"empty", "", nil},
		{"blank lines", "\n \t\r\n\r\n", nil},
		{"one", `{"a":1}`, []rec{{A: 1}}},
		{"one with newline", "{\"a\":1}\n", []rec{{A: 1}}},
		{"crlf", "{\"a\":1}\r\n{\"a\":2}\r\n", []rec{{A: 1}, {A: 2}}},
		{"blank lines between", "\n{\"a\":1}\n\n  \n{\"a\":2,\"b\":\"x\"}\n\n", []rec{{A: 1}, {A: 2, B: "x"}}},
		{"white space around", " \t{\"a\":1} \t\r\n", []rec{{A: 1}}},
		{"white space inside", "{ \"a\" : 1 , \"c\" : [ 1.5 , 2 ] }", []rec{{A: 1, C: []float64{1.5, 2}}}},
		{"empty object", "{}", []rec{{}}},
		{"nested", `{"a":3,"d":{"e":true}}`, []rec{{A: 3, D: &struct {
			E bool `json:"e"`
		}{true}}}},
		{"field names fold case", `{"A":4}`, []rec{{A: 4}}},
		{"null field", `{"a":null,"d":null}`, []rec{{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Read[rec](strings.NewReader(tc.in), "x.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, in string
		// msg starts the error message.
		msg string
	}{
		{"syntax", "{\"a\":1}\n{bad\n", "x.jsonl:2: invalid character 'b'"},
		{"truncated", "{\"a\":1", "x.jsonl:1: unexpected EOF"},
		{"line number counts blank lines", "\n\n{\"a\":1}\n\n{\"a\":\"x\"}\n", "x.jsonl:5: json: cannot unmarshal string"},
		{"unknown field", "{\"a\":1}\r\n{\"a\":1,\"z\":2}\r\n", `x.jsonl:2: json: unknown field "z"`},
		{"unknown nested field", `{"d":{"e":true,"f":1}}`, `x.jsonl:1: json: unknown field "f"`},
		{"two objects", `{"a":1}{"a":2}`, "x.jsonl:1: data after the object at byte 8"},
		{"two objects with space", `{"a":1} {"a":2}`, "x.jsonl:1: data after the object at byte 8"},
		{"trailing garbage", "{\"a\":1},\n", "x.jsonl:1: data after the object at byte 8"},
		{"object split over lines", "{\"a\":\n1}\n", "x.jsonl:1: unexpected EOF"},
		{"array", "[1]", "x.jsonl:1: not a JSON object"},
		{"null", "null", "x.jsonl:1: not a JSON object"},
		{"number", "{\"a\":1}\n1\n", "x.jsonl:2: not a JSON object"},
		{"string", `"{}"`, "x.jsonl:1: not a JSON object"},
		{"non-JSON white space", "\u00a0{\"a\":1}", "x.jsonl:1: not a JSON object"},
		{"form feed only", "\f", "x.jsonl:1: not a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Read[rec](strings.NewReader(tc.in), "x.jsonl")
			if err == nil || !strings.HasPrefix(err.Error(), tc.msg) {
				t.Errorf("Read(%q) = %+v, %v; want error starting with %q", tc.in, got, err, tc.msg)
			}
			if got != nil {
				t.Errorf("Read(%q) returned values %+v with its error", tc.in, got)
			}
		})
	}
}

// TestReadLongLines checks the lines of about the longest length: every
// case at a limit of 64 bytes, and the longest line and one byte more at
// MaxLine, through Read.
func TestReadLongLines(t *testing.T) {
	// line returns a line of n bytes that holds an object.
	line := func(n int) string {
		const pre, post = `{"b":"`, `"}`
		return pre + strings.Repeat("x", n-len(pre)-len(post)) + post
	}
	for _, limit := range []int{64, MaxLine} {
		tooLong := fmt.Sprintf("x.jsonl:2: line longer than %d bytes", limit)
		tests := []struct {
			name, in string
			// msg starts the error message; "" means no error.
			msg string
		}{
			{"limit", line(limit), ""},
			{"limit and newline", line(limit) + "\n", ""},
			{"limit and crlf", line(limit) + "\r\n{\"a\":1}\r\n", ""},
			{"limit+1", "{}\n" + line(limit+1), tooLong},
			{"limit+1 and newline", "{}\n" + line(limit+1) + "\n", tooLong},
			{"limit+1 and crlf", "{}\n" + line(limit+1) + "\r\n", tooLong},
			{"limit+2", "{}\n" + line(limit+2), tooLong},
			{"limit+3", "{}\n" + line(limit+3), tooLong},
		}
		for _, tc := range tests {
			if limit == MaxLine && tc.name != "limit" && tc.name != "limit+1" {
				continue
			}
			t.Run(fmt.Sprintf("%s=%d", tc.name, limit), func(t *testing.T) {
				var got []rec
				var err error
				if limit == MaxLine {
					got, err = Read[rec](strings.NewReader(tc.in), "x.jsonl")
				} else {
					got, err = readCheck[rec](strings.NewReader(tc.in), "x.jsonl", nil, limit)
				}
				if tc.msg == "" {
					if err != nil {
						t.Fatal(err)
					}
					if len(got) == 0 || len(got[0].B) != limit-8 {
						t.Errorf("got %d values, want the long one first", len(got))
					}
					return
				}
				if err == nil || !strings.HasPrefix(err.Error(), tc.msg) {
					t.Errorf("got error %v, want one starting with %q", err, tc.msg)
				}
			})
		}
	}
}

func TestReadReaderError(t *testing.T) {
	errRead := errors.New("disk on fire")
	tests := []struct {
		name, in string
		// line is the line the error names.
		line string
	}{
		{"no data", "", "x.jsonl:1: "},
		{"after a line", "{\"a\":1}\n", "x.jsonl:2: "},
		{"in a line", "{\"a\":1}\n{\"a\"", "x.jsonl:2: "},
		{"after an object", "{\"a\":1}\n{\"a\":2}", "x.jsonl:2: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := io.MultiReader(strings.NewReader(tc.in), iotest.ErrReader(errRead))
			got, err := Read[rec](r, "x.jsonl")
			if got != nil || !errors.Is(err, errRead) || err.Error() != tc.line+errRead.Error() {
				t.Errorf("got %+v, %v; want %s%v", got, err, tc.line, errRead)
			}
		})
	}
}

func TestReadCheck(t *testing.T) {
	errOdd := errors.New("odd")
	check := func(r rec) error {
		if r.A%2 != 0 {
			return errOdd
		}
		return nil
	}
	got, err := ReadCheck(strings.NewReader("{\"a\":2}\n\n{\"a\":4}\n"), "x.jsonl", check)
	if err != nil || !reflect.DeepEqual(got, []rec{{A: 2}, {A: 4}}) {
		t.Errorf("got %+v, %v; want [{A:2} {A:4}]", got, err)
	}
	got, err = ReadCheck(strings.NewReader("{\"a\":2}\n\n{\"a\":3}\n{\"a\":4}\n"), "x.jsonl", check)
	if got != nil || !errors.Is(err, errOdd) || err.Error() != "x.jsonl:3: odd" {
		t.Errorf("got %+v, %v; want x.jsonl:3: odd", got, err)
	}
}

func TestReadMap(t *testing.T) {
	// A map takes any names, so nothing is unknown.
	got, err := Read[map[string]any](strings.NewReader(`{"x":1,"y":[true]}`), "x.jsonl")
	want := []map[string]any{{"x": 1.0, "y": []any{true}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
}

// FuzzRead checks that Read does not panic, that its errors name the input
// and a line in it, and that what it reads comes back the same JSON values
// when written one object per line and read again.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"",
		"\n",
		`{"a":1}`,
		"{\"a\":1,\"b\":\"x\\u00e9\"}\r\n\n{\"c\":[1e300,-0.5],\"d\":{\"e\":true}}\n",
		"{\"a\":1}\n{bad\n",
		`{"a":1}{"a":2}`,
		`{"z":1}`,
		"null\n[1]\n",
		"{\"b\":\"\xff\"}",
		" \t{ \"A\" : 1 } \r",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := Read[rec](strings.NewReader(in), "in")
		if err != nil {
			if got != nil {
				t.Errorf("values %+v returned with error %v", got, err)
			}
			if !strings.HasPrefix(err.Error(), "in:") {
				t.Errorf("error %q does not start with the name", err)
			}
			return
		}
		if lines := strings.Count(in, "\n") + 1; len(got) > lines {
			t.Errorf("%d values from %d lines", len(got), lines)
		}
		var sb strings.Builder
		for _, v := range got {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			sb.Write(b)
			sb.WriteByte('\n')
		}
		again, err := Read[rec](strings.NewReader(sb.String()), "again")
		if err != nil {
			t.Fatalf("reading what was written: %v\n%s", err, sb.String())
		}
		// Compare the values as JSON: "c":[] reads as an empty slice, is
		// written as nothing (omitempty) and read again as nil, the same
		// JSON value.
		b1, err1 := json.Marshal(got)
		b2, err2 := json.Marshal(again)
		if err1 != nil || err2 != nil || string(b1) != string(b2) {
			t.Errorf("read %s, then %s after writing it (%v, %v)", b1, b2, err1, err2)
		}
	})
}
