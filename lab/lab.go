// Package lab describes the experiments behind docs/RESULTS.md: one
// directory per row of the paper's Table 1 (Orseau and Lelis, AAAI 2021),
// named DOMAIN-ALGORITHM, with the row's network, the metrics and logs of
// the training runs that made it, and the per-problem results (gzipped
// JSONL) of its tests; experiments that are no row are under
// experiments/. The lab is a Go module of its own, so that fetching the
// library (github.com/phs-go/phs) does not fetch it.
//
// Rows lists the rows; Paper, PaperFixedNetwork and PaperFixedLimit hold
// the paper's figures. The command ./cmd/results writes docs/RESULTS.md
// and the README's table from them.
package lab

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/report"
)

// Domains are the domains of Table 1, in the order of the pages.
var Domains = []string{"witness", "sokoban", "stp"}

// DomainNames are the domains' names on the pages.
var DomainNames = map[string]string{
	"witness": "The Witness 4x4",
	"sokoban": "Sokoban 10x10 (Boxoban)",
	"stp":     "Sliding-tile puzzle 5x5",
}

// TestFiles are the test sets of the domains, relative to the directory
// of the data sets as "phs data fetch" lays them out.
var TestFiles = map[string]string{
	"witness": "witness/puzzles_4x4_test.txt",
	"sokoban": "boxoban/unfiltered/test/000.txt",
	"stp":     "stp/puzzles_5x5_test.txt",
}

// Algorithms are the algorithms of Table 1, in the order of the pages,
// with their names on the pages.
var Algorithms = []string{"phsstar", "phsh", "levints", "wastar", "astar", "gbfs", "puct"}

// AlgorithmNames are the algorithms' names on the pages.
var AlgorithmNames = map[string]string{
	"phsstar": "PHS*",
	"phsh":    "PHS_h",
	"levints": "LevinTS",
	"wastar":  "WA*, w = 1.5",
	"astar":   "A*",
	"gbfs":    "GBFS",
	"puct":    "PUCT, c = 1",
}

// A Row is one row of Table 1: an algorithm trained and tested on a
// domain. Paths are relative to the lab's directory.
type Row struct {
	Domain, Algorithm string
	// Dir is the row's directory, DOMAIN-ALGORITHM.
	Dir string
	// Final is the directory of the tests of the row's network:
	// test.jsonl.gz (the paper's Bootstrap test) and fixed.jsonl.gz
	// (the fixed-limit test), or the same plain (ResultFile). It is Dir,
	// or the directory of the last training pass inside it.
	Final string
	// Model is the row's network: Final/model, or a shipped model.
	Model string
	// Training are the run directories, in order, whose metrics.csv
	// record the training of Model from scratch.
	Training []string
	// Wall, if not 0, is the wall time of the training of Model in
	// seconds, for a network that is a checkpoint taken before its run's
	// last metrics row.
	Wall float64
	// Rounds is the rounds of the Bootstrap test (0: until every problem
	// is solved).
	Rounds int
}

// Rows are the rows of Table 1, by domain, then in the order of Algorithms.
var Rows = []Row{
	{Domain: "witness", Algorithm: "phsstar", Dir: "witness-phsstar", Training: []string{"witness-phsstar"}},
	{Domain: "witness", Algorithm: "phsh", Dir: "witness-phsh", Training: []string{"witness-phsh"}},
	{Domain: "witness", Algorithm: "levints", Dir: "witness-levints", Training: []string{"witness-levints"}},
	{Domain: "witness", Algorithm: "wastar", Dir: "witness-wastar", Training: []string{"witness-wastar"}},
	{Domain: "witness", Algorithm: "astar", Dir: "witness-astar", Training: []string{"witness-astar"}},
	{Domain: "witness", Algorithm: "gbfs", Dir: "witness-gbfs", Training: []string{"witness-gbfs"}},
	{Domain: "witness", Algorithm: "puct", Dir: "witness-puct", Training: []string{
		"witness-puct/first", "witness-puct/init", "witness-puct/lowlr/pass1", "witness-puct/lowlr/pass2",
		"witness-puct/temperature/pass", "witness-puct/t6/pass1", "witness-puct/t6/pass2", "witness-puct/pass"}},

	// The network is the checkpoint of 3 h 06 min of a run that went on to
	// 4 h 16 min (sokoban-phsstar/README.md).
	{Domain: "sokoban", Algorithm: "phsstar", Dir: "sokoban-phsstar", Training: []string{"sokoban-phsstar/run"}, Wall: 3*3600 + 6*60},
	{Domain: "sokoban", Algorithm: "phsh", Dir: "sokoban-phsh", Final: "sokoban-phsh/lowlr", Training: []string{"sokoban-phsh/run", "sokoban-phsh/lowlr"}},
	{Domain: "sokoban", Algorithm: "levints", Dir: "sokoban-levints", Final: "sokoban-levints/lowlr", Training: []string{"sokoban-levints/run", "sokoban-levints/lowlr"}},
	{Domain: "sokoban", Algorithm: "wastar", Dir: "sokoban-wastar", Final: "sokoban-wastar/lowlr", Training: []string{"sokoban-wastar/run", "sokoban-wastar/lowlr"}},
	{Domain: "sokoban", Algorithm: "astar", Dir: "sokoban-astar", Final: "sokoban-astar/lowlr", Training: []string{"sokoban-astar/run", "sokoban-astar/lowlr"}, Rounds: 9},
	{Domain: "sokoban", Algorithm: "gbfs", Dir: "sokoban-gbfs", Final: "sokoban-gbfs/lowlr", Training: []string{"sokoban-gbfs/run", "sokoban-gbfs/lowlr"}, Rounds: 9},
	{Domain: "sokoban", Algorithm: "puct", Dir: "sokoban-puct", Training: []string{"sokoban-puct/run"}, Rounds: 2},

	{Domain: "stp", Algorithm: "phsstar", Dir: "stp-phsstar", Training: []string{"stp-phsstar"}},
	{Domain: "stp", Algorithm: "phsh", Dir: "stp-phsh", Training: []string{"stp-phsh/run"}, Rounds: 2},
	{Domain: "stp", Algorithm: "levints", Dir: "stp-levints", Training: []string{"stp-levints/run"}, Rounds: 2},
	{Domain: "stp", Algorithm: "wastar", Dir: "stp-wastar", Final: "stp-wastar/lowlr", Model: "../models/stp",
		Training: []string{"stp-wastar", "stp-wastar/lowlr/pass1", "stp-wastar/lowlr/pass2"}},
	{Domain: "stp", Algorithm: "astar", Dir: "stp-astar", Training: []string{"stp-astar/run"}, Rounds: 2},
	{Domain: "stp", Algorithm: "gbfs", Dir: "stp-gbfs", Training: []string{"stp-gbfs/run"}, Rounds: 2},
	{Domain: "stp", Algorithm: "puct", Dir: "stp-puct", Training: []string{"stp-puct/run"}, Rounds: 2},
}

// A Successor is a model of a method that came after the paper (LTS+CM's
// context models), trained from scratch on a domain's training set and
// tested as the rows of Table 1 are: Dir holds the metrics of its
// training runs (Training, relative to the lab) and the per-problem
// results of its Bootstrap test on the test set (Test.jsonl).
type Successor struct {
	Domain, Method, Dir string
	// Test names the Bootstrap test's results, Dir/Test.jsonl; "test" if
	// empty. Flags are that test's flags besides the model and -batch 1.
	Test  string
	Flags []string
	// Model is the context model's table file (cm.WriteTable), relative
	// to the lab; "" if the model is not in the repository, too large
	// for it (Dir's README says how to make it).
	Model    string
	Training []string
}

// TestName returns the name of sc's Bootstrap test's results.
func (sc Successor) TestName() string {
	if sc.Test == "" {
		return "test"
	}
	return sc.Test
}

// Successors are the successors' models, in the order of the pages, those
// of a domain one after the other.
var Successors = []Successor{
	{Domain: "witness", Method: "LTS+CM: a context model, LevinTS (shipped: models/witness)", Dir: "witness-ltscm", Model: "../models/witness/table.safetensors",
		Training: []string{"witness-ltscm/run"}},
	{Domain: "witness", Method: "the same, trained 30 min on one core beside the reference", Dir: "witness-ltscm/beside-reference",
		Model: "witness-ltscm/beside-reference/model.safetensors.gz", Training: []string{"witness-ltscm/beside-reference/run"}},
	{Domain: "sokoban", Method: "LTS+CM: a context model, LevinTS", Dir: "sokoban-ltscm", Model: "sokoban-ltscm/model.safetensors.gz",
		Training: []string{"sokoban-ltscm/run"}},
	{Domain: "sokoban", Method: "the same, deadlocks pruned, solutions shortened and reordered", Dir: "sokoban-ltscm", Model: "sokoban-ltscm/model.safetensors.gz",
		Test: "test-best", Flags: []string{"-prune-deadlocks", "-shorten", "-reorder"}, Training: []string{"sokoban-ltscm/run"}},
	{Domain: "stp", Method: "LTS+CM: a context model, LevinTS", Dir: "stp-ltscm", Model: "stp-ltscm/model.safetensors.gz",
		Training: []string{"stp-ltscm/run"}},
}

// A Reference is a reference implementation of a successor, trained and
// tested on this machine beside it: Dir holds its Bootstrap test's
// per-problem results, test.csv.gz (the columns index, solved, expansions
// and length, as it counts them), and Training says how it trained.
type Reference struct {
	Domain, Method, Dir, Training string
}

// References are the references measured, in the order of the pages.
var References = []Reference{
	{Domain: "witness", Method: "the reference LTS+CM (Racket), trained 30 min on one core", Dir: "witness-ltscm/beside-reference/reference",
		Training: "0h30, 1 core"},
}

// Summarize returns the summary of r's test, from Dir/test.csv.gz under
// the lab's directory lab. Every field is checked: a header of the four
// columns, then one row per problem, an index counting from 0, solved 0
// or 1, expansions ≥ 0, and a length ≥ 0 (≥ 1 if solved).
func (r Reference) Summarize(lab string) (report.Summary, error) {
	name := filepath.Join(lab, r.Dir, "test.csv.gz")
	var rows [][]string
	err := readFile(name, func(f io.Reader) error {
		var err error
		rows, err = csv.NewReader(f).ReadAll()
		return err
	})
	if err != nil {
		return report.Summary{}, fmt.Errorf("lab: %s: %w", name, err)
	}
	if len(rows) < 2 || !slices.Equal(rows[0], []string{"index", "solved", "expansions", "length"}) {
		return report.Summary{}, fmt.Errorf("lab: %s: want the header index,solved,expansions,length and a row per problem", name)
	}
	s := report.Summary{Name: r.Method}
	for i, row := range rows[1:] {
		var v [4]int64
		for j, c := range row {
			if v[j], err = strconv.ParseInt(c, 10, 64); err != nil || v[j] < 0 {
				return report.Summary{}, fmt.Errorf("lab: %s:%d: column %s: %q", name, i+2, rows[0][j], c)
			}
		}
		if v[0] != int64(i) || v[1] > 1 || (v[1] == 1 && v[3] == 0) {
			return report.Summary{}, fmt.Errorf("lab: %s:%d: %v: want index %d, solved 0 or 1, a solution's length ≥ 1", name, i+2, row, i)
		}
		s.Add(report.Record{Solved: v[1] == 1, Expansions: v[2], Length: int(v[3])})
	}
	return s, nil
}

// SqrtLTSDir holds the Bootstrap tests of the shipped Sokoban network
// under PHS* and √LTS, test-NAME.jsonl.gz for each of SqrtLTSTests.
const SqrtLTSDir = "experiments/sokoban-sqrtlts"

// SqrtLTSTests are the names of those tests and of their algorithms on
// the pages.
var SqrtLTSTests = []struct{ Name, Algorithm string }{
	{"phsstar", "PHS*"},
	{"sqrtlts-h", "√LTS-H, α = 1"},
	{"sqrtlts-l", "√LTS-L (stopped after 5 rounds, 2 levels unsolved)"},
	{"mix-phsstar", "PHS*, ε = 0.01 (`-mix 0.01`)"},
	{"mix-sqrtlts-h", "√LTS-H, α = 1, ε = 0.01"},
}

// PrunedDir holds the run of the Sokoban network shipped until 2026-11-27
// (PHS* trained and searched with deadlocks pruned, not a row of the
// paper's domain): its settings and metrics (run/), its network (model/)
// and its Bootstrap tests.
const PrunedDir = "experiments/sokoban-phsstar-pruned"

// ShorterDir holds the Sokoban searches for short solutions: the test
// records test-NAME.jsonl.gz of ShorterTests, and the optimal lengths of
// their levels, optima-SET.jsonl.gz (cmd/sokopt's records).
const ShorterDir = "experiments/sokoban-shorter"

// ShorterTests are those searches: the set of levels ("test": the
// unfiltered test levels, "medium": the held-back medium levels), the
// record's name, the search on the pages, and whether the search is the
// set's WA*, the reference of the times. The first is the shipped
// network's search with its defaults.
var ShorterTests = []struct {
	Set, Name, Search string
	WAStar            bool
}{
	{"test", "new-T12", "shipped network, T = 12 (the default)", false},
	{"test", "new-T12-reorder", "shipped network, T = 12, `-shorten -reorder`", false},
	{"test", "new-T4-reorder", "shipped network, T = 4, `-shorten -reorder`", false},
	{"test", "dead-b16-reorder", "network for hard levels, T = 3, `-batch 16 -shorten -reorder`", false},
	{"test", "wastar", "WA* (w = 1.5), domain heuristic, deadlocks pruned", true},
	{"medium", "medium-new-T12-reorder", "shipped network, T = 12, `-shorten -reorder`", false},
	{"medium", "medium-new-T4-reorder", "shipped network, T = 4, `-shorten -reorder`", false},
	{"medium", "medium-dead-b16-reorder", "network for hard levels, T = 3, `-batch 16 -shorten -reorder`", false},
	{"medium", "medium-wastar", "WA* (w = 1.5), domain heuristic, deadlocks pruned", true},
}

// ShorterTimings are the searches of the medium levels timed again, in
// turn on one core, ShorterTimingRuns times: the records
// tm-NAME-K.jsonl.gz of ShorterDir, K from 1. The first is WA*, the
// reference of the times; Search names the others on the pages.
var ShorterTimings = []struct{ Name, Search string }{
	{"wa", "WA*"},
	{"ship", "the shipped network"},
	{"hard", "the network for hard levels"},
}

// ShorterTimingRuns is the number of timing runs of each of ShorterTimings.
const ShorterTimingRuns = 5

// ReadOptima returns the optimal lengths of cmd/sokopt's records in the
// file at path, gzipped if its name ends in ".gz", by problem; records of
// levels it could not solve are left out.
func ReadOptima(path string) (map[string]int, error) {
	optima := map[string]int{}
	err := readFile(path, func(r io.Reader) error {
		sc := bufio.NewScanner(r)
		for line := 1; sc.Scan(); line++ {
			var o struct {
				Problem string `json:"problem"`
				Optimal int    `json:"optimal"`
				Error   string `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
				return fmt.Errorf("lab: %s:%d: %w", path, line, err)
			}
			switch {
			case o.Problem == "" || o.Error == "" && o.Optimal <= 0:
				return fmt.Errorf("lab: %s:%d: not an optimum (problem %q, optimal %d)", path, line, o.Problem, o.Optimal)
			case o.Error == "":
				optima[o.Problem] = o.Optimal
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("lab: %s: %w", path, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return optima, nil
}

// SqrtLTSTrainingDir holds the Boxoban training of √LTS beside PHS* and
// LevinTS in the setting of Tuero et al. (2026): a directory for each of
// SqrtLTSTraining, with its run's metrics and settings (run/), once
// finished its network (model/) and its Bootstrap test
// (test.jsonl.gz).
const SqrtLTSTrainingDir = "sokoban-sqrtlts-training"

// SqrtLTSTarget is the fraction of the validation levels whose solving
// ends those runs, one iteration later.
const SqrtLTSTarget = 0.95

// SqrtLTSTraining are those runs, in the pages' order.
var SqrtLTSTraining = []TrainingRun{
	{Name: "phsstar", Method: "PHS*", Algorithm: "phsstar"},
	{Name: "sqrtlts-h", Method: "√LTS-H, α = 1", Algorithm: "sqrtlts:h:1"},
	{Name: "levints", Method: "LevinTS", Algorithm: "levints"},
	{Name: "sqrtlts-lh", Method: "√LTS-LH, α = 1", Algorithm: "sqrtlts:lh:1"},
	{Name: "sqrtlts-l", Method: "√LTS-L", Algorithm: "sqrtlts:l"},
	{Name: "sqrtlts-h10", Method: "√LTS-H, α = 10", Algorithm: "sqrtlts:h:10",
		Stopped: "a setting rejected on validation: stopped in iteration 4, behind α = 1 from iteration 2"},
	{Name: "mix-phsstar", Method: "PHS*, ε = 0.01", Algorithm: "phsstar"},
	{Name: "mix-sqrtlts-h", Method: "√LTS-H, α = 1, ε = 0.01", Algorithm: "sqrtlts:h:1"},
	{Name: "mix-sqrtlts-lh", Method: "√LTS-LH, α = 1, ε = 0.01", Algorithm: "sqrtlts:lh:1"},
	{Name: "mix-sqrtlts-l", Method: "√LTS-L, ε = 0.01", Algorithm: "sqrtlts:l"},
}

// A TrainingRun is a run of SqrtLTSTraining: the name of its directory,
// its method on the pages and its algorithm's text; Stopped, why a run
// that will not be resumed was stopped.
type TrainingRun struct {
	Name, Method, Algorithm, Stopped string
}

// Finished reads the metrics of r, whose directory is in lab, and
// reports whether it stopped at its validation target (SqrtLTSTarget):
// its metrics end with the iteration after the one that reached it.
func (r TrainingRun) Finished(lab string) (bool, []bootstrap.Iteration, error) {
	its, err := ReadMetrics(filepath.Join(lab, SqrtLTSTrainingDir, r.Name, "run"))
	if err != nil {
		return false, nil, err
	}
	n, last := len(its), its[len(its)-1]
	v := bootstrap.Validation{Problems: its[0].ValidAttempted, Target: SqrtLTSTarget}
	done := n > 1 && !last.Partial && its[n-2].ValidTotalSolved >= v.Needed()
	return done, its, nil
}

// FixedNetworkRounds are the rounds of the Bootstrap tests of each
// domain's PHS* network under the other algorithms (DOMAIN-phsstar/
// test-ALG.jsonl), by domain and algorithm; 0 or missing: until every
// problem is solved.
var FixedNetworkRounds = map[string]map[string]int{
	"witness": {"phsh": 3, "levints": 3, "puct": 3, "astar": 3, "wastar": 3, "gbfs": 3},
	"sokoban": {"wastar": 4, "astar": 4, "gbfs": 4, "puct": 4},
	"stp":     {"puct": 9},
}

func init() {
	for i := range Rows {
		r := &Rows[i]
		if r.Final == "" {
			r.Final = r.Dir
		}
		if r.Model == "" {
			r.Model = r.Final + "/model"
		}
	}
}

// FindRow returns the row of domain and algorithm.
func FindRow(domain, alg string) (Row, bool) {
	i := slices.IndexFunc(Rows, func(r Row) bool { return r.Domain == domain && r.Algorithm == alg })
	if i < 0 {
		return Row{}, false
	}
	return Rows[i], true
}

// ResultFile returns the path of the per-problem results dir/name.jsonl,
// or of dir/name.jsonl.gz if only that exists.
func ResultFile(dir, name string) (string, error) {
	p := filepath.Join(dir, name+".jsonl")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if _, err := os.Stat(p + ".gz"); err == nil {
		return p + ".gz", nil
	}
	return "", fmt.Errorf("lab: no %s.jsonl or %[2]s.jsonl.gz in %s", name, name, dir)
}

// ReadRecords reads the records of a JSONL file of per-problem results,
// gunzipping it if its name ends in ".gz".
func ReadRecords(name string) ([]report.Record, error) {
	var recs []report.Record
	err := readFile(name, func(r io.Reader) error {
		var err error
		if recs, err = report.ReadJSONL(r, name); err != nil {
			return fmt.Errorf("lab: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// readFile calls read with the content of the file at path, gunzipped if
// its name ends in ".gz", and returns its error.
func readFile(path string, read func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("lab: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if filepath.Ext(path) == ".gz" {
		z, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("lab: %s: %w", path, err)
		}
		defer z.Close()
		r = z
	}
	return read(r)
}

// Summarize reads the per-problem results dir/name.jsonl (or .jsonl.gz)
// and returns their summary.
func Summarize(dir, name string) (report.Summary, error) {
	p, err := ResultFile(dir, name)
	if err != nil {
		return report.Summary{}, err
	}
	recs, err := ReadRecords(p)
	if err != nil {
		return report.Summary{}, err
	}
	if len(recs) == 0 {
		return report.Summary{}, fmt.Errorf("lab: %s: no records", p)
	}
	s := report.Summary{Name: recs[0].Algorithm}
	for _, r := range recs {
		s.Add(r)
	}
	return s, nil
}

// A Cost is what a training run cost: its wall time and its expansions.
type Cost struct {
	WallS      float64
	Expansions int64
}

// ReadCost returns the cost of the training run in dir, from its
// metrics.jsonl.
func ReadCost(dir string) (Cost, error) {
	its, err := ReadMetrics(dir)
	if err != nil {
		return Cost{}, err
	}
	return Cost{WallS: its[len(its)-1].WallS, Expansions: its[len(its)-1].TotalExpansions}, nil
}

// ReadMetrics returns the iterations of the training run in dir, from
// its metrics.jsonl, the last one partial if the run stopped in the
// middle of one; it fails if there is none.
func ReadMetrics(dir string) ([]bootstrap.Iteration, error) {
	name := filepath.Join(dir, bootstrap.MetricsJSONL)
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("lab: %w", err)
	}
	defer f.Close()
	its, err := bootstrap.ReadMetricsJSONL(f, name)
	if err != nil {
		return nil, fmt.Errorf("lab: %w", err)
	}
	if len(its) == 0 {
		return nil, fmt.Errorf("lab: %s: no iteration", name)
	}
	return its, nil
}

// TrainingSeconds returns the wall time of a training run: the wall_s of
// the last row of dir/metrics.csv.
func TrainingSeconds(dir string) (float64, error) { return lastMetric(dir, "wall_s") }

// lastMetric returns the value in column col of the last row of
// dir/metrics.csv, a number of seconds: finite and not negative.
func lastMetric(dir, col string) (float64, error) {
	f, err := os.Open(filepath.Join(dir, "metrics.csv"))
	if err != nil {
		return 0, fmt.Errorf("lab: %w", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return 0, fmt.Errorf("lab: %s: %w", f.Name(), err)
	}
	if len(rows) < 2 {
		return 0, fmt.Errorf("lab: %s: no iteration", f.Name())
	}
	i := slices.Index(rows[0], col)
	if i < 0 {
		return 0, fmt.Errorf("lab: %s: no %s column", f.Name(), col)
	}
	last := rows[len(rows)-1]
	s, err := strconv.ParseFloat(last[i], 64)
	if err != nil || !(s >= 0) || math.IsInf(s, 0) {
		return 0, fmt.Errorf("lab: %s:%d: bad %s %q", f.Name(), len(rows), col, last[i])
	}
	return s, nil
}

// TrainingSeconds returns the wall time of all the training runs of r, in
// seconds; lab is the lab's directory.
func (r Row) TrainingSeconds(lab string) (float64, error) {
	if len(r.Training) == 0 {
		return 0, errors.New("lab: " + r.Dir + ": no training run")
	}
	var sum float64
	for _, d := range r.Training {
		s, err := TrainingSeconds(filepath.Join(lab, d))
		if err != nil {
			return 0, err
		}
		sum += s
	}
	if r.Wall != 0 {
		return r.Wall, nil
	}
	return sum, nil
}

// PuzzlesDir holds the records of the table "DeepCubeA's puzzles" that
// no other directory of the lab holds.
const PuzzlesDir = "deepcubea-puzzles"

// A Puzzle is a row of the table "DeepCubeA's puzzles": a model of one of
// DeepCubeA's puzzles (DeepCubeA names it), tested on a set of problems.
type Puzzle struct {
	// DeepCubeA is the puzzle's name in DeepCubeA, Set the test set's on
	// the pages.
	DeepCubeA, Set string
	// Results are the test's per-problem results, relative to the lab:
	// the path of a ResultFile without .jsonl.
	Results string
	// Model is the tested model, relative to the lab, and Search its
	// search on the pages.
	Model, Search string
	// Training are the runs that trained Model, in order from scratch.
	Training []Stage
	// Boards is the file of the test's sliding-tile boards, relative to
	// the lab, if the lab holds it whole: the table gives their mean
	// lower bound (BoardsBound). Empty for the other sets.
	Boards string
}

// BoardsBound returns the mean of stp.Problem.LowerBound (the Manhattan
// distance plus the linear conflicts) over the start boards of the
// sliding-tile file at path.
func BoardsBound(path string) (float64, error) {
	ps, err := stp.ReadFile[stp.LargeState](path)
	if err != nil {
		return 0, err
	}
	if len(ps) == 0 {
		return 0, errors.New("lab: " + path + ": no boards")
	}
	sum := 0
	for _, p := range ps {
		sum += p.LowerBound(p.Root())
	}
	return float64(sum) / float64(len(ps)), nil
}

// A Stage is a training run: its directory, relative to the lab, and the
// cores it ran on, for a run of phs train, whose metrics.csv gives its
// wall time (wall_s); Cores is 0 for a run of cmd/scrambles, whose
// metrics.csv gives its CPU time (cpu_seconds).
type Stage struct {
	Dir   string
	Cores int
}

// CoreSeconds returns the CPU time of s in seconds; lab is the lab's
// directory.
func (s Stage) CoreSeconds(lab string) (float64, error) {
	dir := filepath.Join(lab, s.Dir)
	if s.Cores == 0 {
		return lastMetric(dir, "cpu_seconds")
	}
	w, err := lastMetric(dir, "wall_s")
	return w * float64(s.Cores), err
}

// CoreSeconds returns the CPU time of p's training, every stage's
// added; lab is the lab's directory.
func (p Puzzle) CoreSeconds(lab string) (float64, error) {
	if len(p.Training) == 0 {
		return 0, errors.New("lab: " + p.Results + ": no training run")
	}
	var sum float64
	for _, s := range p.Training {
		c, err := s.CoreSeconds(lab)
		if err != nil {
			return 0, err
		}
		sum += c
	}
	return sum, nil
}

// A DeepCubeAFigure is DeepCubeA's result on a puzzle (Agostinelli et
// al., Nature Machine Intelligence 2019, table 1): on its test set, the
// mean length of its solutions and of the optimal ones (0 if unknown),
// and the mean nodes generated.
type DeepCubeAFigure struct {
	Puzzle                string
	Moves, Optimal, Nodes float64
}

// DeepCubeA are its figures, in the order of the pages.
var DeepCubeA = []DeepCubeAFigure{
	{Puzzle: "Rubik's cube", Moves: 21.35, Optimal: 20.64, Nodes: 8.19e6},
	{Puzzle: "24-puzzle", Moves: 89.42, Nodes: 6.38e6},
	{Puzzle: "35-puzzle", Moves: 124.65, Nodes: 9.26e6},
	{Puzzle: "48-puzzle", Moves: 255.67, Nodes: 19.8e6},
}

// Puzzles are the rows of the table, in the order of DeepCubeA.
var Puzzles = []Puzzle{
	{DeepCubeA: "Rubik's cube", Set: "DeepCubeA's 1,000 cubes", Results: "rubiks-beam/test-deepcubea", Model: "../models/rubiks", Search: "beam, 768 wide, wider in later rounds; solutions shortened (400,000 nodes)",
		Training: []Stage{{"rubiks-beam/train", 0}}},
	{DeepCubeA: "Rubik's cube", Set: "LTS+CM's 1,000 cubes", Results: "rubiks-beam/test-ltscm", Model: "../models/rubiks", Search: "beam, 768 wide, wider in later rounds; solutions shortened (400,000 nodes)",
		Training: []Stage{{"rubiks-beam/train", 0}}},
	{DeepCubeA: "24-puzzle", Set: "the paper's 1,000 random 5x5 boards", Results: "stp-wastar/lowlr/test", Model: "../models/stp", Search: "WA*, w = 1.5",
		Training: []Stage{{"stp-wastar", 2}, {"stp-wastar/lowlr/pass1", 1}, {"stp-wastar/lowlr/pass2", 1}}},
	{DeepCubeA: "35-puzzle", Set: "500 random 6x6 boards (" + PuzzlesDir + "/stp-6x6-test.txt)", Results: "stp-6x6/test",
		Model: "../models/stp/6x6", Search: "beam, 40 wide, wider in later rounds; solutions shortened (4 M nodes)", Training: []Stage{{"stp-6x6/davi", 0}, {"stp-6x6/run", 1}, {"stp-6x6/short", 1}, {"stp-6x6/b64", 1}},
		Boards: PuzzlesDir + "/stp-6x6-test.txt"},
	{DeepCubeA: "48-puzzle", Set: "500 random 7x7 boards (" + PuzzlesDir + "/stp-7x7-test.txt)", Results: "stp-7x7/test",
		Model: "../models/stp/7x7", Search: "beam, 16 wide, wider in later rounds; solutions shortened (8 M nodes)", Training: []Stage{{"stp-7x7/davi", 0}, {"stp-7x7/init", 1},
			{"stp-7x7/cur", 1}, {"stp-7x7/beam", 2}, {"stp-7x7/beam2", 2}, {"stp-7x7/beam16", 2}, {"stp-7x7/short", 2}, {"stp-7x7/b32", 1}},
		Boards: PuzzlesDir + "/stp-7x7-test.txt"},
}
