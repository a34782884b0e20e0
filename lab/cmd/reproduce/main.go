// Command reproduce runs the searches behind docs/RESULTS.md again from
// the lab's committed models and writes each per-problem record where the
// lab keeps it, under -out in the lab's layout, gzipped as the lab stores
// it. Run it in the lab's directory:
//
//	go run ./cmd/reproduce [-root ..] [-data DIR] [-out DIR] [-groups LIST] [-workers N] [-limit D] [-first N] [-n] [DOMAIN...]
//
// The rows come in groups (-groups, comma-separated; all by default), of
// the domains named (witness, sokoban, stp; all by default):
//
//   - table1: each row of Table 1 (lab.Rows), its Bootstrap test
//     (ROW/test.jsonl.gz) and its fixed-limit test (ROW/fixed.jsonl.gz),
//     and each PHS* row's network under the other algorithms
//     (ROW/test-ALG.jsonl.gz);
//   - pruned: Table 1's line "deadlocks pruned", the Bootstrap test of the
//     network of lab.PrunedDir;
//   - successors: the Bootstrap test of each context model of
//     lab.Successors (DIR/TEST.jsonl.gz);
//   - sqrtlts: the network of lab.PrunedDir under PHS* and √LTS,
//     lab.SqrtLTSDir/test-NAME.jsonl.gz of lab.SqrtLTSTests;
//   - sqrtlts-training: the Bootstrap test of the network of each run of
//     lab.SqrtLTSTraining (lab.SqrtLTSTrainingDir/NAME/test.jsonl.gz);
//   - shorter: the Sokoban searches for short solutions,
//     lab.ShorterDir/test-NAME.jsonl.gz of lab.ShorterTests;
//   - timings: their timing runs of the medium levels,
//     lab.ShorterDir/tm-NAME-K.jsonl.gz of lab.ShorterTimings;
//   - optima: the optimal lengths of their levels (cmd/sokopt),
//     lab.ShorterDir/optima-SET.jsonl.gz.
//
// Each job runs the command that made its record, with the same flags,
// from the binaries phs and sokopt built from -root; -workers and
// -progress 0 are added, which change no search, and -first N, which
// keeps the first N problems of each set (a quick check, refused with
// -out the lab, whose records it would cut). A row whose model is not
// committed, or that has no test (a training run stopped before its end),
// is skipped, and reproduce says so. The records keep the solutions the
// lab's do: all of them, or those of the first 40 problems (the ones the
// repository holds, which the lab's tests replay), or none (the timing
// runs and the medium levels' optima). The medium levels are the first
// 200 of Boxoban's medium/train/049.txt, which "phs data fetch" does not
// fetch: DIR/boxoban/medium/train/049.txt, from DeepMind's
// boxoban-levels repository.
//
// The searches of sqrtlts ran before sokoban.PruneDeadlocks
// refused its third and fourth kinds of dead end (commit e981d07 and
// after), which their network, trained with pruning, always prunes: with
// today's phs they expand fewer nodes, and -root a checkout of commit
// 2505b21 makes their records again. sokopt's optima keep their lengths
// and solutions; their counts of states fell for the same reason.
//
// With -out . it rewrites the lab's records, from which "go run
// ./cmd/results" then rebuilds the page; the training metrics on the
// page are not rerun. After each job it prints the record's name and
// the summary line of the command; with -n it prints the commands and the
// rows skipped, and runs nothing.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/phs-go/phs/lab"
	"github.com/phs-go/phs/lab/internal/paths"
)

// A job is one run of phs or sokopt that writes one record of the lab.
type job struct {
	// Group is the group of rows the job is in; Domain, its domain.
	Group, Domain string
	// Out is the record's path, relative to -out, without ".jsonl.gz".
	Out string
	// Prog is the program, "phs" or "sokopt"; Args its arguments (phs's
	// subcommand first) but the output file, which argv adds, and Input,
	// the file of problems, which comes last.
	Prog  string
	Args  []string
	Input string
	// Keep says which solutions the stored record keeps.
	Keep keep
}

// keep says which solutions a stored record keeps.
type keep int

const (
	// keepAll keeps every solution, as the program writes them.
	keepAll keep = iota
	// keepCommitted keeps the solutions of the first committedProblems
	// problems of the file, and drops the others', as the lab does for
	// room.
	keepCommitted
	// keepNone drops every solution.
	keepNone
)

// committedProblems is how many problems of each set the repository
// holds (the fixtures under domain/*/testdata): the first 40.
const committedProblems = 40

// argv returns the arguments of j's program that write the record to tmp.
func (j job) argv(tmp string) []string {
	if j.Prog == "sokopt" {
		return slices.Concat([]string{"-o", tmp}, j.Args, []string{j.Input})
	}
	return slices.Concat(j.Args[:1], []string{"-out", tmp}, j.Args[1:], []string{j.Input})
}

// A skip is a row of the page whose record reproduce cannot make again,
// and why.
type skip struct {
	Group, Domain, Out, Why string
}

// config holds the flags.
type config struct {
	root, data, out, limit string
	workers, first         int
	// lab is the lab's directory, where the paths of the jobs start.
	lab string
	// tmp is the directory of the problem files made from the data sets
	// (the medium levels).
	tmp string
}

// A group is a set of rows that reproduce reruns together: jobs returns
// its jobs and the rows it skips.
type group struct {
	name, doc string
	jobs      func(config) ([]job, []skip, error)
}

// groups are the groups, in the order of the page.
var groups = []group{
	{"table1", "Table 1, the PHS* networks under every algorithm, the fixed time limit: ROW/test, fixed, test-ALG", table1},
	{"pruned", `Table 1's line "deadlocks pruned": ` + lab.PrunedDir + "/test", pruned},
	{"successors", "context models (LTS+CM): DIR/test of lab.Successors", successors},
	{"sqrtlts", "√LTS with the network of pruned: " + lab.SqrtLTSDir + "/test-NAME", sqrtLTS},
	{"sqrtlts-training", "√LTS trained from scratch: " + lab.SqrtLTSTrainingDir + "/NAME/test", sqrtLTSTraining},
	{"shorter", "Sokoban's short solutions: " + lab.ShorterDir + "/test-NAME", shorter},
	{"timings", "their medium levels timed again (with -workers 1 on an idle machine): tm-NAME-K", timings},
	{"optima", "their levels' optimal lengths (cmd/sokopt): optima-SET", optima},
}

// groupNames returns the names of the groups.
func groupNames() []string {
	var names []string
	for _, g := range groups {
		names = append(names, g.name)
	}
	return names
}

func main() {
	var c config
	var list string
	var dry bool
	flag.StringVar(&c.root, "root", "..", "the repository's root, where phs and sokopt are built")
	flag.StringVar(&c.data, "data", "data", `the data sets, as "phs data fetch" lays them out (and boxoban/medium/train/049.txt)`)
	flag.StringVar(&c.out, "out", "reproduce-out", "the directory of the records, in the lab's layout (.: the lab)")
	flag.StringVar(&list, "groups", strings.Join(groupNames(), ","), "the groups of rows to rerun, comma-separated")
	flag.StringVar(&c.limit, "limit", "10s", "the time limit per problem of the fixed-limit tests")
	flag.IntVar(&c.workers, "workers", 0, "searches in parallel (0: all cores)")
	flag.IntVar(&c.first, "first", 0, "search only the first N problems of each set (0: all; for a quick check, into another -out than the lab)")
	flag.BoolVar(&dry, "n", false, "print the commands and the rows skipped, run nothing")
	flag.Usage = usage
	flag.Parse()
	c.lab = "."
	domains := flag.Args()
	if len(domains) == 0 {
		domains = lab.Domains
	}
	for _, d := range domains {
		if !slices.Contains(lab.Domains, d) {
			fmt.Fprintf(os.Stderr, "reproduce: unknown domain %q; want one of %s\n", d, strings.Join(lab.Domains, ", "))
			os.Exit(2)
		}
	}
	names, err := parseGroups(list)
	if err != nil {
		fmt.Fprintln(os.Stderr, "reproduce:", err)
		os.Exit(2)
	}
	if c.first > 0 && !dry && paths.Same(c.out, c.lab) {
		fmt.Fprintln(os.Stderr, "reproduce: -first with -out the lab would replace its records by partial ones; set another -out")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, c, names, domains, dry); err != nil {
		fmt.Fprintln(os.Stderr, "reproduce:", err)
		os.Exit(1)
	}
}

// parseGroups returns the names of the groups of list, comma-separated;
// it fails on an unknown name and on an empty list.
func parseGroups(list string) ([]string, error) {
	names := strings.Split(list, ",")
	for _, g := range names {
		if !slices.Contains(groupNames(), g) {
			return nil, fmt.Errorf("-groups: unknown group %q; want some of %s, comma-separated", g, strings.Join(groupNames(), ","))
		}
	}
	return names, nil
}

// usage prints the command's usage, its groups and its flags.
func usage() {
	w := flag.CommandLine.Output()
	fmt.Fprint(w, `usage: go run ./cmd/reproduce [flags] [DOMAIN...]   (in the lab's directory)

Runs the searches behind docs/RESULTS.md again from the lab's committed
models, each with the flags that made its record, and writes the records
under -out in the lab's layout, gzipped as the lab stores them; with
-out . "go run ./cmd/results" then rebuilds the page from them. The
DOMAINs (witness, sokoban, stp; default all) and -groups choose the rows.
Rows whose model is not committed are skipped, saying so. The searches of
sqrtlts predate phs's pruning of Sokoban's third and fourth
dead ends: -root a checkout of commit 2505b21 makes their records. Groups:

`)
	for _, g := range groups {
		fmt.Fprintf(w, "  %-17s %s\n", g.name, g.doc)
	}
	fmt.Fprint(w, "\nFlags:\n")
	flag.PrintDefaults()
}

// jobs returns the jobs of the named groups on domains, in the order of
// groups, and the rows they skip.
func jobs(c config, names, domains []string) ([]job, []skip, error) {
	var js []job
	var skips []skip
	for _, g := range groups {
		if !slices.Contains(names, g.name) {
			continue
		}
		gj, gs, err := g.jobs(c)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", g.name, err)
		}
		for _, j := range gj {
			if slices.Contains(domains, j.Domain) {
				js = append(js, j)
			}
		}
		for _, s := range gs {
			if slices.Contains(domains, s.Domain) {
				skips = append(skips, s)
			}
		}
	}
	return js, skips, nil
}

// phs returns the job of group that runs "phs cmd" (test or solve) on
// the problems of input, of domain, writing out; args are the record's
// flags, and n the number of problems it has (0: all), cut to -first.
func (c config) phs(group, domain, cmd, out, input string, n int, args ...string) job {
	common := []string{cmd, "-domain", domain, "-workers", strconv.Itoa(c.workers), "-progress", "0"}
	if n = first(c.first, n); n > 0 {
		common = append(common, "-first", strconv.Itoa(n))
	}
	return job{Group: group, Domain: domain, Out: out, Prog: "phs", Args: append(common, args...), Input: input}
}

// first returns the number of problems of a record of n problems (0:
// all) when -first is f (0: all).
func first(f, n int) int {
	if f > 0 && (n == 0 || f < n) {
		return f
	}
	return n
}

// testFile returns the path of the test set of domain.
func (c config) testFile(domain string) string {
	return filepath.Join(c.data, lab.TestFiles[domain])
}

// table1 returns the tests of the rows of Table 1: the Bootstrap and the
// fixed-limit test of each row, and each PHS* network under the other
// algorithms.
func table1(c config) ([]job, []skip, error) {
	var js []job
	for _, r := range lab.Rows {
		test := c.testFile(r.Domain)
		model := []string{"-model", r.Model}
		js = append(js,
			c.phs("table1", r.Domain, "test", path.Join(r.Final, "test"), test, 0,
				slices.Concat(model, algFlags(r.Algorithm), rounds(r.Rounds))...),
			c.phs("table1", r.Domain, "solve", path.Join(r.Final, "fixed"), test, 100,
				slices.Concat(model, algFlags(r.Algorithm), []string{"-timeout", c.limit})...))
		if r.Algorithm != "phsstar" {
			continue
		}
		for _, alg := range lab.Algorithms {
			if alg != "phsstar" {
				js = append(js, c.phs("table1", r.Domain, "test", path.Join(r.Final, "test-"+alg), test, 0,
					slices.Concat(model, algFlags(alg), rounds(lab.FixedNetworkRounds[r.Domain][alg]))...))
			}
		}
	}
	return js, nil, nil
}

// algFlags returns the flags of phs test that choose algorithm alg as the
// rows used it: A* tests the goal at generation, as the paper's did (phs's
// A* tests at expansion by default).
func algFlags(alg string) []string {
	if alg == "astar" {
		return []string{"-alg", alg, "-goal-test", "generation"}
	}
	return []string{"-alg", alg}
}

// rounds returns the flag of the rounds of a Bootstrap test (0: until
// every problem is solved).
func rounds(n int) []string {
	return []string{"-rounds", strconv.Itoa(n)}
}

// defaultRounds are the rounds of the tests made with phs test's
// default, written out in case it changes.
const defaultRounds = 10

// pruned returns the Bootstrap test of the network of lab.PrunedDir, at
// the temperature of its config.json (its README).
func pruned(c config) ([]job, []skip, error) {
	return []job{c.phs("pruned", "sokoban", "test", path.Join(lab.PrunedDir, "test"), c.testFile("sokoban"), 0,
		slices.Concat([]string{"-model", path.Join(lab.PrunedDir, "model")}, rounds(defaultRounds))...)}, nil, nil
}

// successors returns the Bootstrap test of each successor's model, one
// node at a time (witness-ltscm/README.md), and skips those whose model
// is not committed.
func successors(c config) ([]job, []skip, error) {
	var js []job
	var skips []skip
	for _, sc := range lab.Successors {
		out := path.Join(sc.Dir, sc.TestName())
		if sc.Model == "" {
			skips = append(skips, skip{"successors", sc.Domain, out,
				"its model is not committed, too large for the repository (" + sc.Dir + "/README.md says how to make it)"})
			continue
		}
		js = append(js, c.phs("successors", sc.Domain, "test", out, c.testFile(sc.Domain), 0,
			slices.Concat([]string{"-model", sc.Model, "-batch", "1"}, sc.Flags, rounds(defaultRounds))...))
	}
	return js, skips, nil
}

// sqrtLTSFlags are the flags of the tests of lab.SqrtLTSTests, by name
// (experiments/sokoban-sqrtlts/README.md); √LTS-L's was stopped after its
// fifth round.
var sqrtLTSFlags = map[string][]string{
	"phsstar":       {"-alg", "phsstar", "-rounds", "10"},
	"sqrtlts-h":     {"-alg", "sqrtlts:h", "-rounds", "10"},
	"sqrtlts-l":     {"-alg", "sqrtlts:l", "-rounds", "5"},
	"mix-phsstar":   {"-alg", "phsstar", "-mix", "0.01", "-rounds", "10"},
	"mix-sqrtlts-h": {"-alg", "sqrtlts:h", "-mix", "0.01", "-rounds", "10"},
}

// sqrtLTS returns the Bootstrap tests of the network of lab.PrunedDir
// (the shipped network when they ran) under PHS* and √LTS, one node at a
// time.
func sqrtLTS(c config) ([]job, []skip, error) {
	var js []job
	for _, t := range lab.SqrtLTSTests {
		f, ok := sqrtLTSFlags[t.Name]
		if !ok {
			return nil, nil, fmt.Errorf("no command for %s/test-%s", lab.SqrtLTSDir, t.Name)
		}
		j := c.phs("sqrtlts", "sokoban", "test", path.Join(lab.SqrtLTSDir, "test-"+t.Name), c.testFile("sokoban"), 0,
			slices.Concat([]string{"-model", path.Join(lab.PrunedDir, "model"), "-batch", "1"}, f)...)
		j.Keep = keepCommitted
		js = append(js, j)
	}
	return js, nil, nil
}

// sqrtLTSTraining returns the Bootstrap test of the network of each run
// of lab.SqrtLTSTraining (sokoban-sqrtlts-training/README.md: phs test's
// default rounds), and skips the runs that did not finish or whose
// network is not committed.
func sqrtLTSTraining(c config) ([]job, []skip, error) {
	var js []job
	var skips []skip
	for _, r := range lab.SqrtLTSTraining {
		dir := path.Join(lab.SqrtLTSTrainingDir, r.Name)
		out := path.Join(dir, "test")
		done, _, err := r.Finished(c.lab)
		switch {
		case err != nil:
			return nil, nil, err
		case !done && r.Stopped != "":
			skips = append(skips, skip{"sqrtlts-training", "sokoban", out, "no test: the run was " + r.Stopped})
		case !done:
			skips = append(skips, skip{"sqrtlts-training", "sokoban", out, "no test: the run has not finished"})
		default:
			j := c.phs("sqrtlts-training", "sokoban", "test", out, c.testFile("sokoban"), 0,
				slices.Concat([]string{"-model", path.Join(dir, "model")}, rounds(defaultRounds))...)
			j.Keep = keepCommitted
			js = append(js, j)
		}
	}
	return js, skips, nil
}

// The held-back medium levels of the Sokoban searches for short
// solutions: the first mediumLevels levels of mediumSource, in a file
// named mediumName, as the records name their problems.
const (
	mediumSource = "boxoban/medium/train/049.txt"
	mediumName   = "medium-049-first200.txt"
	mediumLevels = 200
)

// shorterInput returns the file of the levels of set ("test" or "medium")
// of lab.ShorterTests.
func (c config) shorterInput(set string) string {
	if set == "medium" {
		return filepath.Join(c.tmp, mediumName)
	}
	return c.testFile("sokoban")
}

// shorterFlags are the flags of phs solve of the searches of
// lab.ShorterTests, by name less the "medium-" of the medium set
// (experiments/sokoban-shorter/README.md, sections "Stuck subsets" and
// "Shipped"): the shipped network, the shipped network for hard levels,
// WA* without a model.
var shorterFlags = map[string][]string{
	"new-T12":          {},
	"new-T12-reorder":  {"-shorten", "-reorder"},
	"new-T4-reorder":   {"-temperature", "4", "-shorten", "-reorder"},
	"dead-b16-reorder": {"-model", "sokoban-hard", "-batch", "16", "-shorten", "-reorder"},
	"wastar":           {"-model", "none", "-alg", "wastar", "-prune-deadlocks"},
}

// shorterJob returns the job of group of the search name of
// lab.ShorterTests on its set, writing record.
func (c config) shorterJob(group, set, name, record string, k keep) (job, error) {
	f, ok := shorterFlags[strings.TrimPrefix(name, set+"-")]
	if !ok || set == "medium" && !strings.HasPrefix(name, "medium-") {
		return job{}, fmt.Errorf("no command for %s/test-%s", lab.ShorterDir, name)
	}
	j := c.phs(group, "sokoban", "solve", path.Join(lab.ShorterDir, record), c.shorterInput(set), 0, f...)
	j.Keep = k
	return j, nil
}

// shorter returns the Sokoban searches for short solutions.
func shorter(c config) ([]job, []skip, error) {
	var js []job
	for _, t := range lab.ShorterTests {
		j, err := c.shorterJob("shorter", t.Set, t.Name, "test-"+t.Name, keepCommitted)
		if err != nil {
			return nil, nil, err
		}
		js = append(js, j)
	}
	return js, nil, nil
}

// timingSearches are the searches of lab.ShorterTimings, by name: the
// search of lab.ShorterTests on the medium levels that each repeats.
var timingSearches = map[string]string{
	"wa":   "medium-wastar",
	"ship": "medium-new-T12-reorder",
	"hard": "medium-dead-b16-reorder",
}

// timings returns the timing runs of the medium levels: the searches of
// lab.ShorterTimings in turn, lab.ShorterTimingRuns times.
func timings(c config) ([]job, []skip, error) {
	var js []job
	for k := 1; k <= lab.ShorterTimingRuns; k++ {
		for _, t := range lab.ShorterTimings {
			name, ok := timingSearches[t.Name]
			if !ok {
				return nil, nil, fmt.Errorf("no search for %s/tm-%s-K", lab.ShorterDir, t.Name)
			}
			j, err := c.shorterJob("timings", "medium", name, fmt.Sprintf("tm-%s-%d", t.Name, k), keepNone)
			if err != nil {
				return nil, nil, err
			}
			js = append(js, j)
		}
	}
	return js, nil, nil
}

// optima returns the runs of sokopt that find the optimal lengths of the
// levels of each set of lab.ShorterTests; those of the medium levels
// are kept without their solutions.
func optima(c config) ([]job, []skip, error) {
	var js []job
	for _, t := range lab.ShorterTests {
		out := path.Join(lab.ShorterDir, "optima-"+t.Set)
		if slices.ContainsFunc(js, func(j job) bool { return j.Out == out }) {
			continue
		}
		workers := c.workers
		if workers == 0 {
			workers = runtime.NumCPU()
		}
		args := []string{"-workers", strconv.Itoa(workers)}
		if c.first > 0 {
			args = append(args, "-n", strconv.Itoa(c.first))
		}
		k := keepAll
		if t.Set == "medium" {
			k = keepNone
		}
		js = append(js, job{Group: "optima", Domain: "sokoban", Out: out, Prog: "sokopt", Args: args, Input: c.shorterInput(t.Set), Keep: k})
	}
	return js, nil, nil
}

func run(ctx context.Context, c config, names, domains []string, dry bool) error {
	tmp, err := os.MkdirTemp("", "reproduce")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	c.tmp = tmp
	js, skips, err := jobs(c, names, domains)
	if err != nil {
		return err
	}
	for _, s := range skips {
		fmt.Printf("skipped %s: %s\n", s.Out, s.Why)
	}
	if dry {
		for _, j := range js {
			fmt.Println(j.Prog, strings.Join(j.argv(filepath.Join(c.out, j.Out+".jsonl")), " "))
		}
		return nil
	}
	if err := prepare(c, js); err != nil {
		return err
	}
	for _, prog := range []string{"phs", "sokopt"} {
		if !slices.ContainsFunc(js, func(j job) bool { return j.Prog == prog }) {
			continue
		}
		// Built in the library's module, with its go.sum.
		build := exec.CommandContext(ctx, "go", "build", "-C", c.root, "-o", filepath.Join(tmp, prog), "./cmd/"+prog)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building %s: %w", prog, err)
		}
	}
	for _, j := range js {
		out := filepath.Join(c.out, j.Out)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		tmpOut := out + ".jsonl.tmp"
		args := j.argv(tmpOut)
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, filepath.Join(tmp, j.Prog), args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			os.Stderr.Write(stderr.Bytes())
			os.Remove(tmpOut)
			return fmt.Errorf("%s %s: %w", j.Prog, strings.Join(args, " "), err)
		}
		if err := finish(tmpOut, out, j.Keep); err != nil {
			return err
		}
		summary := stdout.String()
		if strings.TrimSpace(summary) == "" {
			summary = stderr.String()
		}
		lines := strings.Split(strings.TrimSpace(summary), "\n")
		fmt.Printf("%-56s %s\n", j.Out, lines[len(lines)-1])
	}
	return nil
}

// prepare makes the problem files of the jobs that are not data files
// (the medium levels), and checks that every model the jobs name by its
// path (relative to the lab: run reproduce in the lab's directory) and
// every input is there, before any search.
func prepare(c config, js []job) error {
	medium := c.shorterInput("medium")
	if slices.ContainsFunc(js, func(j job) bool { return j.Input == medium }) {
		src := filepath.Join(c.data, mediumSource)
		if err := firstLevels(src, medium, mediumLevels); err != nil {
			return fmt.Errorf("the medium levels: %w (not fetched by phs data fetch: medium/train/049.txt of DeepMind's boxoban-levels; or leave out -groups shorter,timings,optima)", err)
		}
	}
	for _, j := range js {
		if _, err := os.Stat(j.Input); err != nil {
			return fmt.Errorf("%s: %w: fetch the data sets (phs data fetch) or set -data", j.Out, err)
		}
		if i := slices.Index(j.Args, "-model"); i >= 0 && strings.Contains(j.Args[i+1], "/") {
			if _, err := os.Stat(filepath.Join(c.lab, j.Args[i+1])); err != nil {
				return fmt.Errorf("%s: its model: %w (run reproduce in the lab's directory)", j.Out, err)
			}
		}
	}
	return nil
}

// firstLevels writes to dst the first n levels of the Boxoban file src:
// its lines before the (n+1)-th that starts a level ("; "), as awk
// '/^; /{n++} n<=N' does. It fails if src has fewer than n levels.
func firstLevels(src, dst string, n int) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	levels := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "; ") {
			levels++
		}
		if levels > n {
			break
		}
		out.WriteString(sc.Text() + "\n")
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	if levels < n {
		return fmt.Errorf("%s: %d levels; want at least %d", src, levels, n)
	}
	return os.WriteFile(dst, out.Bytes(), 0o644)
}

// finish stores the records tmp, a JSON object per line, as
// out.jsonl.gz: with the solutions k keeps (the others' "solution"
// members dropped, the rest of each line as it was), gzipped with no
// name nor time in the header, as gzip -9 -n. It removes tmp, and
// out.jsonl, which lab.ResultFile would read before out.jsonl.gz.
func finish(tmp, out string, k keep) error {
	b, err := os.ReadFile(tmp)
	if err != nil {
		return err
	}
	if k != keepAll {
		if b, err = dropSolutions(b, k); err != nil {
			return fmt.Errorf("%s: %w", tmp, err)
		}
	}
	plain, gz := out+".jsonl", out+".jsonl.gz"
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if _, err := w.Write(b); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(gz, z.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.Remove(plain); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Remove(tmp)
}

// dropSolutions returns the records b, a JSON object per line, without
// the "solution" member of those k does not keep: every record with
// keepNone, those of the problems FILE#i with i >= committedProblems with
// keepCommitted.
func dropSolutions(b []byte, k keep) ([]byte, error) {
	var out bytes.Buffer
	lines := bytes.SplitAfter(b, []byte("\n"))
	for n, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			out.Write(line)
			continue
		}
		var rec struct{ Problem string }
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		if k == keepCommitted {
			_, index, _ := strings.Cut(rec.Problem, "#")
			i, err := strconv.Atoi(index)
			if err != nil {
				return nil, fmt.Errorf("line %d: problem %q: no index", n+1, rec.Problem)
			}
			if i < committedProblems {
				out.Write(line)
				continue
			}
		}
		obj, err := dropMember(line, "solution")
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		out.Write(obj)
		if bytes.HasSuffix(line, []byte("\n")) {
			out.WriteByte('\n')
		}
	}
	return out.Bytes(), nil
}

// dropMember returns the JSON object obj without its member key, the
// other members as they were, in their order.
func dropMember(obj []byte, key string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if k == key {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		name, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		b.Write(v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
