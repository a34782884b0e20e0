package lab

// A PaperRow is one row of a table of the paper (Orseau and Lelis,
// "Policy-Guided Heuristic Search with Guarantees", AAAI 2021): the
// problems solved, and the mean solution length, expansions and time in
// seconds over the solved ones. AtLeast marks the means the paper prints
// as lower bounds (not every problem solved); Solved 0 has no means.
type PaperRow struct {
	Solved                   int
	Length, Expansions, Time float64
	AtLeast                  bool
}

// key is a domain and an algorithm.
type key struct{ domain, alg string }

// Paper is Table 1 of the paper (label tab:test_results): each algorithm
// with its own network, the 1,000 test problems of each domain.
var Paper = map[key]PaperRow{
	{"sokoban", "puct"}:    {229, 24.9, 10021.3, 39.7, true},
	{"sokoban", "gbfs"}:    {914, 36.4, 5040.0, 34.0, true},
	{"sokoban", "astar"}:   {995, 32.7, 8696.8, 61.7, true},
	{"sokoban", "wastar"}:  {1000, 34.5, 3729.1, 25.5, false},
	{"sokoban", "levints"}: {1000, 40.1, 2640.4, 19.5, false},
	{"sokoban", "phsh"}:    {1000, 39.1, 2130.4, 18.6, false},
	{"sokoban", "phsstar"}: {1000, 37.6, 1522.1, 11.3, false},

	{"witness", "gbfs"}:    {290, 13.3, 10127.9, 44.6, true},
	{"witness", "astar"}:   {878, 13.6, 9022.3, 53.9, true},
	{"witness", "wastar"}:  {999, 14.6, 18345.2, 71.5, true},
	{"witness", "puct"}:    {1000, 15.4, 4212.1, 23.6, false},
	{"witness", "phsstar"}: {1000, 15.0, 781.5, 5.4, false},
	{"witness", "levints"}: {1000, 14.8, 520.2, 3.2, false},
	{"witness", "phsh"}:    {1000, 15.0, 408.1, 3.0, false},

	{"stp", "gbfs"}:    {0, 0, 0, 0, false},
	{"stp", "puct"}:    {0, 0, 0, 0, false},
	{"stp", "astar"}:   {3, 87.3, 34146.3, 27.2, true},
	{"stp", "phsh"}:    {4, 119.5, 58692.0, 55.3, true},
	{"stp", "levints"}: {9, 145.1, 39005.6, 31.1, true},
	{"stp", "phsstar"}: {1000, 224.0, 2867.2, 2.8, false},
	{"stp", "wastar"}:  {1000, 129.8, 1989.8, 1.6, false},
}

// PaperFixedNetwork is the appendix table of the paper (label tab:fixed):
// the network trained with PHS* under every algorithm, the 1,000 test
// problems of each domain.
var PaperFixedNetwork = map[key]PaperRow{
	{"sokoban", "gbfs"}:    {856, 36.0, 7096.0, 52.4, true},
	{"sokoban", "puct"}:    {902, 42.6, 11329.8, 83.8, true},
	{"sokoban", "astar"}:   {1000, 31.1, 9043.5, 51.8, false},
	{"sokoban", "wastar"}:  {1000, 33.6, 5461.8, 36.8, false},
	{"sokoban", "levints"}: {1000, 38.1, 1760.5, 11.9, false},
	{"sokoban", "phsh"}:    {1000, 38.0, 1696.2, 10.6, false},
	{"sokoban", "phsstar"}: {1000, 37.6, 1522.1, 11.5, false},

	{"witness", "gbfs"}:    {444, 15.4, 23986.0, 95.5, true},
	{"witness", "wastar"}:  {927, 14.1, 19411.9, 90.0, true},
	{"witness", "astar"}:   {1000, 14.2, 20390.4, 97.7, false},
	{"witness", "puct"}:    {1000, 15.0, 3798.8, 21.0, false},
	{"witness", "levints"}: {1000, 14.9, 903.4, 4.9, false},
	{"witness", "phsh"}:    {1000, 14.9, 869.4, 4.7, false},
	{"witness", "phsstar"}: {1000, 15.0, 781.5, 4.1, false},

	{"stp", "puct"}:    {786, 220.9, 30722.6, 115.7, true},
	{"stp", "astar"}:   {835, 153.3, 112369.6, 81.4, true},
	{"stp", "wastar"}:  {916, 175.4, 117187.5, 80.8, true},
	{"stp", "gbfs"}:    {998, 390.2, 72444.5, 50.0, true},
	{"stp", "levints"}: {1000, 233.9, 3175.5, 2.4, false},
	{"stp", "phsh"}:    {1000, 231.1, 3026.7, 2.5, false},
	{"stp", "phsstar"}: {1000, 224.0, 2867.2, 2.5, false},
}

// PaperFixedLimit is the appendix table of the paper (label
// tab:fixed_time): each algorithm with its own network, the first 100
// test problems of each domain, 30 minutes per problem. The paper prints
// no lower-bound marks in it.
var PaperFixedLimit = map[key]PaperRow{
	{"sokoban", "puct"}:    {41, 38.2, 60012.5, 425.0, false},
	{"sokoban", "gbfs"}:    {99, 37.7, 9841.0, 63.9, false},
	{"sokoban", "astar"}:   {100, 32.5, 7064.4, 49.4, false},
	{"sokoban", "wastar"}:  {100, 34.1, 1863.5, 13.7, false},
	{"sokoban", "levints"}: {100, 40.0, 1392.5, 10.5, false},
	{"sokoban", "phsh"}:    {100, 39.5, 848.2, 6.7, false},
	{"sokoban", "phsstar"}: {100, 37.3, 717.3, 5.6, false},

	{"witness", "gbfs"}:    {100, 14.7, 44428.2, 135.7, false},
	{"witness", "wastar"}:  {100, 13.8, 11503.8, 39.9, false},
	{"witness", "astar"}:   {100, 13.6, 11337.7, 52.0, false},
	{"witness", "puct"}:    {100, 14.6, 3075.3, 20.8, false},
	{"witness", "phsh"}:    {100, 13.8, 193.6, 1.3, false},
	{"witness", "levints"}: {100, 13.9, 187.1, 1.2, false},
	{"witness", "phsstar"}: {100, 13.7, 181.1, 1.4, false},

	{"stp", "gbfs"}:    {0, 0, 0, 0, false},
	{"stp", "puct"}:    {0, 0, 0, 0, false},
	{"stp", "astar"}:   {2, 87.0, 897140.5, 440.8, false},
	{"stp", "phsh"}:    {14, 155.4, 1314654.1, 907.0, false},
	{"stp", "levints"}: {22, 154.5, 1074269.4, 676.9, false},
	{"stp", "phsstar"}: {100, 225.2, 2883.0, 1.7, false},
	{"stp", "wastar"}:  {100, 128.9, 1957.8, 0.9, false},
}

// PaperTable returns the row of domain and alg of t (Paper,
// PaperFixedNetwork or PaperFixedLimit).
func PaperTable(t map[key]PaperRow, domain, alg string) (PaperRow, bool) {
	r, ok := t[key{domain, alg}]
	return r, ok
}
