package report_test

import (
	"os"

	"github.com/phs-go/phs/report"
)

// Write the JSON lines of two searches and the summary table of the
// paper's columns, with the median and maximum expansions.
func Example() {
	records := []report.Record{
		{Problem: "000.txt#0", Domain: "sokoban", Algorithm: "phsstar", Solved: true, Length: 30,
			Expansions: 1200, Generated: 3500, TimeS: 0.5, Budget: 2000, Solution: "UURDL"},
		{Problem: "000.txt#1", Domain: "sokoban", Algorithm: "phsstar", Budget: 2000},
	}
	jw := report.NewJSONLWriter(os.Stdout)
	s := report.Summary{Name: "phsstar"}
	for _, r := range records {
		if err := jw.Write(r); err != nil {
			panic(err)
		}
		s.Add(r)
	}
	if err := report.WriteTable(os.Stdout, s); err != nil {
		panic(err)
	}
	// Output:
	// {"problem":"000.txt#0","domain":"sokoban","algorithm":"phsstar","solved":true,"length":30,"expansions":1200,"generated":3500,"time_s":0.5,"budget":2000,"solution":"UURDL"}
	// {"problem":"000.txt#1","domain":"sokoban","algorithm":"phsstar","solved":false,"length":0,"expansions":0,"generated":0,"time_s":0,"budget":2000,"solution":""}
	//   algorithm  solved  length  expansions  time (s)  median exp.  max exp.
	//     phsstar     1/2    30.0      1200.0     0.500       1200.0      1200
}
