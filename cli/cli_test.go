package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nkeys"
	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/domain/rubiks"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/models"
	"github.com/phs-go/phs/nn"
	"github.com/phs-go/phs/search"
)

// TestHelp checks that "phs help CMD", "phs CMD -h" and "phs -version"
// print to standard output and succeed.
func TestHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help"}, "usage: phs COMMAND"},
		{[]string{"-h"}, "usage: phs COMMAND"},
		{[]string{"help", "solve"}, "usage: phs solve [flags] FILES..."},
		{[]string{"solve", "-h"}, "-budget"},
		{[]string{"test", "-help"}, "-rounds"},
		{[]string{"train", "-h"}, "-update-every"},
		{[]string{"generate", "-h"}, "usage: phs generate stp|witness|rubiks"},
		{[]string{"generate", "stp", "-h"}, "-walk"},
		{[]string{"generate", "rubiks", "-h"}, "-scramble"},
		{[]string{"-version"}, "phs "},
		{[]string{"-version"}, "\nblas: " + nn.BackendInfo() + "\n"},
	} {
		out, errOut, err := runPHS(t, tc.args...)
		if err != nil || !strings.Contains(out, tc.want) || errOut != "" || strings.Count(out, "usage:") > 1 {
			t.Errorf("%q: err %v, stdout %q, stderr %q; want %q on stdout", tc.args, err, out, errOut, tc.want)
		}
	}
}

// TestFlagsAfterFiles checks that flags may follow the file names, and
// that "--" ends the flags.
func TestFlagsAfterFiles(t *testing.T) {
	tiles := writeFile(t, "tiles.txt", stpFixture)
	out, errOut, err := runPHS(t, "solve", "-domain", "stp", tiles, "-budget", "10", "-model", "none", "-progress", "0")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	for _, r := range decodeRecords(t, out) {
		if r.Budget != 10 {
			t.Errorf("%s: budget %d, want 10", r.Problem, r.Budget)
		}
	}
	if _, _, err := runPHS(t, "solve", "-domain", "stp", "-model", "none", "--", "-budget"); err == nil || !strings.Contains(err.Error(), "-budget") {
		t.Errorf("a file named -budget after --: %v", err)
	}
}

// TestBadFlagValues checks that every flag value out of range is a usage
// error that names the flag, before any file is read or written.
func TestBadFlagValues(t *testing.T) {
	tiles := writeFile(t, "tiles.txt", stpFixture)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(out, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	solve := []string{"solve", "-domain", "stp", "-model", "none", "-out", out}
	test := []string{"test", "-domain", "stp", "-model", "none", "-out", out}
	train := []string{"train", "-domain", "stp", "-dir", filepath.Join(dir, "run")}
	token := writeFile(t, "token", "a token\n")
	_, seed, err := workerKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	account, _ := nkeys.CreateAccount()
	as, _ := account.Seed()
	accountSeed := writeFile(t, "account.nk", string(as))
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{append(solve, "-budget", "-5"), "-budget -5"},
		{append(solve, "-batch", "1000000000"), "-batch 1000000000"},
		{append(solve, "-batch", "-3"), "-batch -3"},
		{append(solve, "-alg", "puct", "-c", "-1"), "-c -1"},
		{append(solve, "-alg", "wastar", "-w", "NaN"), "-w NaN"},
		{append(solve, "-alg", "wastar", "-w", "Inf"), "-w +Inf"},
		{append(solve, "-alg", "gbfs", "-w", "2"), "-w 2: gbfs has no weight"},
		{append(solve, "-c", "2"), "-c 2: wastar has no exploration constant"},
		{append(solve, "-alg", "wastar", "-c", "2"), "-c 2: wastar has no exploration constant"},
		{append(solve, "-workers", "100000000"), "-workers 100000000"},
		{append(solve, "-timeout", "-1s"), "-timeout -1s"},
		{append(solve, "-workers", "-1"), "-workers -1"},
		{append(solve, "-first", "-1"), "-first -1"},
		{append(solve, "-prune-deadlocks"), "-prune-deadlocks"},
		{append(solve, "-reorder"), "-reorder: the stp domain does not reorder solutions"},
		{append(test, "-reorder"), "-reorder: the stp domain does not reorder solutions"},
		{append(solve, "-shorten-found", "-2"), "-shorten-found -2"},
		{append(test, "-shorten-found", "1073741825"), "-shorten-found 1073741825"},
		{[]string{"solve", "-domain", "witness", "-shorten-found", "10", "-out", out}, "-shorten-found: the witness domain does not shorten solutions"},
		{append(solve, "-alg", "phssafe", "-shorten"), "-shorten"},
		{append(solve, "-temperature", "-1"), "-temperature -1"},
		{append(solve, "-temperature", "NaN"), "-temperature NaN"},
		{append(solve, "-temperature", "Inf"), "-temperature +Inf"},
		{append(solve, "-alg", "wastar", "-temperature", "2"), "-temperature 2: search: wastar reads no policy"},
		{append(solve, "-mix", "1"), "-mix 1"},
		{append(solve, "-mix", "-0.1"), "-mix -0.1"},
		{append(solve, "-alg", "gbfs", "-mix", "0.01"), "-mix 0.01: search: gbfs reads no policy"},
		{append(solve, "-goal-test", "expanded"), "-goal-test"},
		{append(solve, "-alg", "puct", "-goal-test", "expansion"), "-goal-test expansion"},
		{append(test, "-rounds", "-1"), "-rounds -1"},
		{append(test, "-time", "-1s"), "-time -1s"},
		{append(train, "-update-every", "-1"), "-update-every -1"},
		{append(train, "-schedule", "double:0.5"), "-schedule: bootstrap: schedule double: growth 0.5"},
		{append(train, "-schedule", "ltscm:-1"), "-schedule: bootstrap: schedule ltscm: factor -1"},
		{append(train, "-schedule", "ltscm-ref:2,x"), "-schedule"},
		{append(train, "-schedule", "triple"), `-schedule: bootstrap: unknown schedule "triple"`},
		{append(train, "-schedule", "ltscm", "-skip-solved", "2"), "-skip-solved 2: bootstrap: schedule ltscm:0.1 counts"},
		{append(train, "-skip-solved", "1", "-schedule", "ltscm-ref"), "-skip-solved 1: bootstrap: schedule ltscm-ref:2,8,1.25"},
		{append(train, "-passes", "-1"), "-passes -1"},
		{append(train, "-learner-threads", "-1"), "-learner-threads -1"},
		{append(train, "-workers", "100000000"), "-workers 100000000"},
		{append(train, "-checkpoint", "-1s"), "-checkpoint -1s"},
		{append(train, "-timeout", "-1s"), "-timeout -1s"},
		{append(train, "-memory", "-2"), "-memory -2"}, {append(train, "-learner-threads", "65"), "-learner-threads 65"},
		{append(train, "-lr", "-1"), "-lr -1"},
		{append(train, "-prune-deadlocks"), "-prune-deadlocks"},
		{append(train, "-shorten-learned", "-1"), "-shorten-learned -1"},
		{[]string{"train", "-domain", "witness", "-shorten-learned", "10", "-dir", filepath.Join(dir, "run")}, "-shorten-learned: the witness domain does not shorten solutions"},
		{append(train, "-temperature", "-1"), "-temperature -1"},
		{append(train, "-temperature", "NaN"), "-temperature NaN"},
		{append(train, "-alg", "astar", "-temperature", "2"), "astar reads no policy"},
		{append(train, "-alg", "levints", "-floor"), "-floor: levints reads no heuristic"},
		{append(train, "-learner", "context", "-floor"), "-floor"},
		{append(train, "-goal-test", "expanded"), "-goal-test"},
		{append(train, "-alg", "puct", "-goal-test", "generation"), "-goal-test generation"},
		{append(train, "-lr", "NaN"), "-lr NaN"},
		{append(train, "-iterations", "-1"), "-iterations -1"},
		{append(train, "-time", "-1h"), "-time -1h"},
		{append(train, "-batch", "-1"), "-batch -1"},
		{append(train, "-alg", "wastar", "-w", "-2"), "-w -2"},
		{append(train, "-alg", "wastar:-2"), "-alg"},
		{append(train, "-alg", "astar:2"), "-alg"},
		{append(train, "-arch", "mlp"), "-arch"},
		{append(train, "-alg", "levints"), "-arch conv: model: input 2x2 too small for two 2x2 convolutions (the resnet architecture takes any input)"},
		{append(train, "-arch", "resnet", "-units", "-1"), "-units -1"},
		{append(train, "-arch", "resnet", "-blocks", "65"), "-blocks 65"},
		{append(train, "-arch", "resnet", "-units", "1048576"), "-units 1048576"},
		{append(train, "-alg", "levints", "-model", filepath.Join(dir, "none"), "-arch", "resnet", "-units", "8"), "-arch -units: the network comes from -model"},
		{append(train, "-ack-wait", "0s"), "-ack-wait 0s"},
		{append(train, "-listen", "4222"), "-listen"},
		{append(train, "-listen", ":4222", "-token-file", token), "-nkey and -token-file are for -nats"},
		{append(train, "-listen", ":4222", "-nkey", seed), "-nkey and -token-file are for -nats"},
		{append(train, "-nats", "nats://h:4222", "-nkey", seed, "-token-file", token), "-nkey and -token-file exclude each other"},
		{append(train, "-nats", "nats://h:4222", "-nkey", token), "no NATS nkey seed on its first line"},
		{append(train, "-nats", "nats://h:4222", "-nkey", accountSeed), "not a user's"},
		{[]string{"worker", "-connect", "nats://h:1", "-nkey", filepath.Join(dir, "none")}, "-nkey"},
		{[]string{"worker", "-connect", "nats://h:1", "-nkey", seed, "-token-file", token}, "-nkey and -token-file exclude each other"},
		{append(train, "-listen", "localhost:x"), "-listen"},
		{append(train, "-listen", "127.0.0.1:4222", "-nats", "nats://h:4222"), "-listen and -nats"},
		{append(train, "-nats", "nats://h:4222", "-token-file", filepath.Join(dir, "none")), "-token-file"},
		{[]string{"worker"}, "-connect is required"},
		{[]string{"worker", "-connect", "nats://h:1", "-workers", "-1"}, "-workers -1"},
		{[]string{"worker", "-connect", "nats://h:1", "-workers", "100000000"}, "-workers 100000000"},
		{append(solve, "-nonsense"), "-nonsense"},
	} {
		args := tc.args
		if args[0] != "worker" {
			args = append(args, tiles)
		}
		_, _, err := runPHS(t, args...)
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%q: err = %v, want a usage error naming %q", args[max(0, len(args)-3):], err, tc.flag)
		}
		var buf bytes.Buffer
		if code := finish(err, &buf); code != 2 || strings.Count(buf.String(), "\n") != 1 {
			t.Errorf("%q: exit status %d, printed %q; want 2 and one line", args[max(0, len(args)-3):], code, buf.String())
		}
	}
	if b, _ := os.ReadFile(out); string(b) != "keep" {
		t.Errorf("the -out file was changed to %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "run")); err == nil {
		t.Error("a bad train flag left a run directory")
	}
	// -out naming an input file.
	if _, _, err := runPHS(t, "solve", "-domain", "stp", "-model", "none", "-out", tiles, tiles); err == nil || !strings.Contains(err.Error(), "is the problem file") {
		t.Errorf("-out the input: %v", err)
	}
	if b, _ := os.ReadFile(tiles); string(b) != stpFixture {
		t.Errorf("the input was overwritten: %q", b)
	}
}

// boxobanLevels writes the first n levels of the Boxoban fixture to a file
// and returns its name.
func boxobanLevels(t *testing.T, n int) string {
	t.Helper()
	b, err := os.ReadFile("../domain/sokoban/testdata/boxoban-test-000-first40.txt")
	if err != nil {
		t.Fatal(err)
	}
	levels := strings.SplitAfter(string(b), "\n\n")
	if len(levels) < n {
		t.Fatalf("the fixture has %d levels, want %d", len(levels), n)
	}
	return writeFile(t, "levels.txt", strings.Join(levels[:n], ""))
}

// solveTotals runs phs solve with args and returns the numbers of problems
// solved, and of states expanded and generated, in all its records.
func solveTotals(t *testing.T, args ...string) (solved int, expanded, generated int64) {
	t.Helper()
	out, _, err := runPHS(t, append([]string{"solve", "-workers", "1", "-progress", "0"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(out) {
		var r struct {
			Solved     bool  `json:"solved"`
			Expansions int64 `json:"expansions"`
			Generated  int64 `json:"generated"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Solved {
			solved++
		}
		expanded += r.Expansions
		generated += r.Generated
	}
	return solved, expanded, generated
}

// TestShorten checks the wiring of -shorten: with GBFS and the domain
// heuristic, level #4 of the fixture takes 60 moves without it and 58
// with it, and the same expansions.
func TestShorten(t *testing.T) {
	t.Parallel()
	levels := boxobanLevels(t, 12)
	lengths := func(args ...string) (lens []int, expansions int64) {
		t.Helper()
		out, _, err := runPHS(t, append([]string{"solve", "-domain", "sokoban", "-model", "none", "-alg", "gbfs", "-workers", "1", "-progress", "0"}, append(args, levels)...)...)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(out) {
			var r struct {
				Length     int   `json:"length"`
				Expansions int64 `json:"expansions"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			lens = append(lens, r.Length)
			expansions += r.Expansions
		}
		return lens, expansions
	}
	plain, pe := lengths()
	short, se := lengths("-shorten")
	if len(plain) != 12 || len(short) != 12 || plain[4] != 60 || short[4] != 58 || pe != se {
		t.Errorf("lengths %v, %d expansions; with -shorten %v, %d expansions", plain, pe, short, se)
	}
	for i := range min(len(plain), len(short)) {
		if short[i] > plain[i] {
			t.Errorf("level %d: %d moves with -shorten, %d without", i, short[i], plain[i])
		}
	}
}

// TestReorder checks the wiring of -reorder: with GBFS and the domain
// heuristic, on the first 12 levels of the fixture, solve and test return
// solutions at most as long as without it, replayed by the command, 147
// moves shorter in all, and records whose expansions are the search's and
// reorder_expansions'.
func TestReorder(t *testing.T) {
	t.Parallel()
	levels := boxobanLevels(t, 12)
	type record struct {
		Problem           string `json:"problem"`
		Length            int    `json:"length"`
		Expansions        int64  `json:"expansions"`
		ReorderExpansions int64  `json:"reorder_expansions"`
	}
	for _, cmd := range []string{"solve", "test"} {
		records := func(args ...string) []record {
			t.Helper()
			out, _, err := runPHS(t, append([]string{cmd, "-domain", "sokoban", "-model", "none", "-alg", "gbfs", "-workers", "1", "-progress", "0"}, append(args, levels)...)...)
			if err != nil {
				t.Fatal(err)
			}
			var rs []record
			for line := range strings.Lines(out) {
				var r record
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatal(err)
				}
				rs = append(rs, r)
			}
			if len(rs) != 12 {
				t.Fatalf("%s: %d records", cmd, len(rs))
			}
			return rs
		}
		plain, reordered := records(), records("-reorder")
		saved, searched := 0, int64(0)
		for i, r := range reordered {
			p := plain[i]
			if r.Length > p.Length || r.Expansions != p.Expansions+r.ReorderExpansions || p.ReorderExpansions != 0 {
				t.Errorf("%s %s: %+v with -reorder, %+v without", cmd, r.Problem, r, p)
			}
			saved += p.Length - r.Length
			searched += r.ReorderExpansions
		}
		if saved != 147 || searched == 0 {
			t.Errorf("%s: -reorder saved %d moves with %d expansions; want 147 moves", cmd, saved, searched)
		}
	}
}

// TestPruneDeadlocks checks the wiring of -prune-deadlocks: solve prunes
// with it; a training run records it, keeps it on -resume and trains a
// network that says so; searches with such a network prune without the
// flag; a run started from it without the flag trains one without; a
// network of another domain that claims it is refused. What pruning does
// to searches is tested in package sokoban (TestPruneDeadlocksShortens).
func TestPruneDeadlocks(t *testing.T) {
	t.Parallel()
	levels := boxobanLevels(t, 3)
	solve := func(args ...string) int64 {
		t.Helper()
		_, _, generated := solveTotals(t, append([]string{"-domain", "sokoban", "-budget", "200", "-first", "2"}, append(args, levels)...)...)
		return generated
	}
	// Level #2 of the fixture, which GBFS solves in 803 expansions, 360 with
	// pruning.
	gbfs := []string{"-alg", "gbfs", "-model", "none", "-budget", "2000", "-first", "3"}
	if plain, pruned := solve(gbfs...), solve(append(gbfs, "-prune-deadlocks")...); pruned >= plain {
		t.Errorf("GBFS generated %d states with -prune-deadlocks, %d without; want fewer", pruned, plain)
	}

	// A training run records it, and keeps it on -resume.
	dir := filepath.Join(t.TempDir(), "run")
	if _, errOut, err := runPHS(t, "train", "-domain", "sokoban", "-alg", "phsstar", "-prune-deadlocks", "-iterations", "1", "-budget", "100",
		"-dir", dir, levels); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(dir, runFile)); err != nil || !strings.Contains(string(b), `"prune_deadlocks": true`) {
		t.Errorf("run.json does not record -prune-deadlocks: %s, %v", b, err)
	}
	if _, _, err := runPHS(t, "train", "-resume", dir, "-prune-deadlocks=false"); err == nil || !strings.Contains(err.Error(), "-prune-deadlocks") {
		t.Errorf("changing -prune-deadlocks on resume: %v", err)
	}

	// Its network says so, and searches with it prune without the flag:
	// as with the flag, and not as the same weights without the note.
	cfg := checkpointConfig(t, dir)
	if !strings.Contains(cfg, `"prune_deadlocks": true`) {
		t.Errorf("the network of a run with -prune-deadlocks does not say so:\n%s", cfg)
	}
	net := filepath.Join(dir, "checkpoint")
	unmarked := withoutPruning(t, net)
	if a, b, c := solve("-model", net), solve("-model", net, "-prune-deadlocks"), solve("-model", unmarked); a != b || a == c {
		t.Errorf("the run's network: %d states generated without -prune-deadlocks, %d with, %d without the note in its config.json; want the first two equal, the third not", a, b, c)
	}
	if a, b := solve(), solve("-model", "../models/sokoban", "-prune-deadlocks"); a != b {
		t.Errorf("the shipped network: %d states generated without -prune-deadlocks, %d with", a, b)
	}
	// A run started from it without pruning trains a network without.
	plainRun := filepath.Join(t.TempDir(), "plain")
	if _, errOut, err := runPHS(t, "train", "-domain", "sokoban", "-alg", "phsstar", "-model", dir, "-iterations", "1", "-budget", "1",
		"-dir", plainRun, levels); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if cfg := checkpointConfig(t, plainRun); strings.Contains(cfg, "prune_deadlocks") {
		t.Errorf("a run without -prune-deadlocks from a network with it trains one with it:\n%s", cfg)
	}
	// A network of another domain that claims it is refused.
	wit := witnessNetwork(t, func(c *model.Config) { c.PruneDeadlocks = true })
	if _, _, err := runPHS(t, "solve", "-domain", "witness", "-model", wit, "../examples/witness-4x4.txt"); err == nil || !strings.Contains(err.Error(), "trained with deadlocks pruned") {
		t.Errorf("a witness network trained with deadlocks pruned: %v", err)
	}
}

// checkpointConfig returns the config.json of the checkpoint of the run
// in dir.
func checkpointConfig(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "checkpoint", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTemperature checks that a search with a model uses the temperature
// of its config.json unless -temperature says otherwise, only for the
// algorithms that read a policy. It also checks that phs train searches
// at -temperature and records it in the network it trains, and that -model
// without -temperature carries over neither the old network's temperature
// nor its meta notes; and the same of -mix. What a temperature and a mix
// do to a search is tested in package search (TestTemperature).
func TestTemperature(t *testing.T) {
	t.Parallel()
	// The first level of the fixture, whose searches at budget 500 differ
	// at the shipped model's temperature and at 1.
	levels := boxobanLevels(t, 1)
	solve := func(args ...string) (expanded, generated int64) {
		t.Helper()
		_, expanded, generated = solveTotals(t, append([]string{"-budget", "500", "-domain", "sokoban"}, append(args, levels)...)...)
		return expanded, generated
	}
	shipped, err := models.Default("sokoban")
	if err != nil {
		t.Fatal(err)
	}
	if shipped.Network == nil {
		t.Fatal("the shipped Sokoban model is no network")
	}
	temp := strconv.FormatFloat(shipped.Network.Config().Search.Temperature, 'g', -1, 64)
	if temp == "0" {
		t.Fatal("the shipped Sokoban model has no temperature")
	}
	solvedExp, a := solve()
	if _, b := solve("-temperature", temp); a != b {
		t.Errorf("states generated: %d with the shipped model's temperature, %d with -temperature %s", a, b, temp)
	}
	if _, c := solve("-temperature", "1"); a == c {
		t.Errorf("states generated: %d with the shipped model's temperature %s and with -temperature 1; want a difference", a, temp)
	}
	_, astar := solve("-alg", "astar")
	if _, b := solve("-alg", "astar", "-temperature", "1"); astar != b {
		t.Errorf("A*, which reads no policy: %d states generated with the model's temperature, %d without", astar, b)
	}

	// trained runs one Bootstrap iteration from the shipped network at
	// -budget 500, the updates at its end (every search uses the initial
	// network), and returns the run's directory and its expansions.
	trained := func(args ...string) (string, int64) {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "run")
		args = append([]string{"train", "-domain", "sokoban", "-alg", "phsstar", "-prune-deadlocks", "-model", "../models/sokoban",
			"-iterations", "1", "-budget", "500", "-update-every", "1000", "-workers", "1", "-dir", dir}, args...)
		if _, errOut, err := runPHS(t, append(args, levels)...); err != nil {
			t.Fatalf("%v\n%s", err, errOut)
		}
		its := readMetrics(t, dir)
		if len(its) != 1 {
			t.Fatalf("%d iterations, want 1", len(its))
		}
		return dir, its[0].Expansions
	}
	hot, hotExp := trained("-temperature", temp)
	cold, coldExp := trained()
	if hotExp != solvedExp || coldExp == solvedExp {
		t.Errorf("expansions: %d training with -temperature %s, %d without, %d in phs solve with the shipped model (temperature %s); want the first equal to the last, the second not",
			hotExp, temp, coldExp, solvedExp, temp)
	}
	var hotConfig model.Config
	if cfg := checkpointConfig(t, hot); json.Unmarshal([]byte(cfg), &hotConfig) != nil || hotConfig.Search.Temperature != shipped.Network.Config().Search.Temperature {
		t.Errorf("the network of a run with -temperature %s does not say so:\n%s", temp, cfg)
	}
	coldConfig := checkpointConfig(t, cold)
	if strings.Contains(coldConfig, `"temperature":`) {
		t.Errorf("a run started from a network with a temperature, without -temperature, trains one with it:\n%s", coldConfig)
	}
	if strings.Contains(coldConfig, `"meta":`) {
		t.Errorf("a run started from a network with notes on its training carries them over:\n%s", coldConfig)
	}
	if bc, err := bootstrap.ReadConfig(hot); err != nil || strconv.FormatFloat(bc.Options.Temperature, 'g', -1, 64) != temp {
		t.Errorf("the checkpoint does not record -temperature %s: %+v, %v", temp, bc.Options, err)
	}
	if _, _, err := runPHS(t, "train", "-resume", hot, "-temperature", "1"); err == nil || !strings.Contains(err.Error(), "-temperature") {
		t.Errorf("changing -temperature on resume: %v", err)
	}

	// -mix: searched with, recorded, kept on resume.
	if _, b := solve("-mix", "0.05"); a == b {
		t.Errorf("states generated: %d with and without -mix 0.05; want a difference", a)
	}
	mixed, _ := trained("-mix", "0.01")
	var mixedConfig model.Config
	if cfg := checkpointConfig(t, mixed); json.Unmarshal([]byte(cfg), &mixedConfig) != nil || mixedConfig.Search.Mix != 0.01 {
		t.Errorf("the network of a run with -mix 0.01 does not say so:\n%s", cfg)
	}
	if bc, err := bootstrap.ReadConfig(mixed); err != nil || bc.Options.Mix != 0.01 {
		t.Errorf("the checkpoint does not record -mix 0.01: %+v, %v", bc.Options, err)
	}
	if _, _, err := runPHS(t, "train", "-resume", mixed, "-mix", "0.02"); err == nil || !strings.Contains(err.Error(), "-mix") {
		t.Errorf("changing -mix on resume: %v", err)
	}
}

// TestInterruptedOnce checks that an interrupted solve prints one line and
// exits with status 130.
func TestInterruptedOnce(t *testing.T) {
	tiles := writeFile(t, "tiles.txt", stpFixture)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e bytes.Buffer
	err := run(ctx, []string{"solve", "-domain", "stp", "-model", "none", "-progress", "0", tiles}, &o, &e)
	var buf bytes.Buffer
	if code := finish(err, &buf); code != 130 || buf.String() != "phs: interrupted\n" {
		t.Errorf("exit status %d, printed %q; want 130 and one line", code, buf.String())
	}
}

// TestModelOfAnotherDomain checks that a model is checked against the
// domain before any search.
func TestModelOfAnotherDomain(t *testing.T) {
	tiles := writeFile(t, "tiles.txt", stpFixture)
	_, _, err := runPHS(t, "solve", "-domain", "stp", "-model", "../models/sokoban", tiles)
	if err == nil || !strings.Contains(err.Error(), "is a sokoban model, not a stp one") {
		t.Errorf("err = %v", err)
	}
}

// TestTrainRunDirectory checks the run directories of phs train: a start
// that fails leaves none; a directory left without a checkpoint starts
// again on -resume; a run stopped by a limit says why and how to go on;
// run.json spells durations.
func TestTrainRunDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	for _, args := range [][]string{
		{"train", "-domain", "witness", "-dir", run, filepath.Join(dir, "missing.txt")},
		{"train", "-domain", "witness", "-dir", run, writeFile(t, "empty.txt", "")},
		{"train", "-domain", "witness", "-dir", run, dir},
	} {
		if _, _, err := runPHS(t, args...); err == nil {
			t.Errorf("%q: no error", args)
		}
		if _, err := os.Stat(run); err == nil {
			t.Fatalf("%q left %s", args, run)
		}
	}

	wit := trainingSet(t, dir)
	_, errOut, err := runPHS(t, "train", "-domain", "witness", "-alg", "levints", "-iterations", "1", "-budget", "50", "-time", "2h", "-dir", run, wit)
	if err != nil {
		t.Fatalf("train: %v\n%s", err, errOut)
	}
	for _, want := range []string{`msg="training stopped" iterations=1 reason="the limit of 1 iterations reached"`, "checkpoint=" + filepath.Join(run, "checkpoint"), `go_on="phs train -resume ` + run + ` -iterations 2 -time 3h0m0s"`, "blas=" + strconv.Quote(nn.BackendInfo())} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if bc, err := bootstrap.ReadConfig(run); err != nil || bc.TimeLimit != 2*time.Hour {
		t.Errorf("the checkpoint's time limit = %v (%v), want 2h", bc.TimeLimit, err)
	}
	if _, _, err := runPHS(t, "train", "-resume", run); err == nil || !strings.Contains(err.Error(), "already finished: the limit of 1 iterations reached; to go on, raise the limit: phs train -resume "+run+" -iterations 2") {
		t.Errorf("resume of a finished run: %v", err)
	}

	// A run killed as it started: run.json, no checkpoint.
	killed := filepath.Join(dir, "killed")
	if err := os.MkdirAll(killed, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(killed, runFile), []byte(`{"domain": "witness", "files": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err = runPHS(t, "train", "-resume", killed); err == nil || !strings.Contains(err.Error(), "holds no checkpoint: the run stopped as it started") {
		t.Errorf("resume of a run without a checkpoint: %v", err)
	}
}

// TestMemoryBound checks that -memory ends a search that would grow past
// it as unsolved, with its reason in the record, and that records say why
// other searches stopped.
func TestMemoryBound(t *testing.T) {
	hard := writeFile(t, "hard.txt", "24 23 22 21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0\n")
	out, errOut, err := runPHS(t, "solve", "-domain", "stp", "-alg", "astar", "-model", "none", "-memory", "2", "-progress", "0", hard)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	recs := decodeRecords(t, out)
	if len(recs) != 1 || recs[0].Solved || recs[0].Stop != "memory" || recs[0].Expansions < 1000 {
		t.Errorf("records %+v, want one stopped by the memory bound", recs)
	}
	out, _, err = runPHS(t, "solve", "-domain", "stp", "-alg", "astar", "-model", "none", "-budget", "100", "-progress", "0", hard)
	if recs := decodeRecords(t, out); err != nil || len(recs) != 1 || recs[0].Stop != "budget" {
		t.Errorf("budget: %+v, %v", recs, err)
	}
	if m, ok := memTotal([]byte("MemTotal:       24576000 kB\nMemFree: 1 kB\n")); !ok || m != 24576000<<10 {
		t.Errorf("memTotal = %d, %v", m, ok)
	}
	for _, bad := range []string{"", "MemTotal: x kB\n", "MemTotal: 5 MB\n", "MemTotal: -5 kB\n"} {
		if _, ok := memTotal([]byte(bad)); ok {
			t.Errorf("memTotal(%q) ok", bad)
		}
	}
}

// TestCheckAllProblemsFirst checks that a file whose later problems do not
// fit the model fails before any record is written.
func TestCheckAllProblemsFirst(t *testing.T) {
	b, err := os.ReadFile("../examples/witness-4x4.txt")
	if err != nil {
		t.Fatal(err)
	}
	mixed := writeFile(t, "mixed.txt", string(b)+"\nSize: 3 3\nInit: 0 0\nGoal: 3 3\nColors: |0 0 1|2 2 2\n")
	out, _, err := runPHS(t, "solve", "-domain", "witness", "-progress", "0", mixed)
	if want := "mixed.txt#8: shipped witness context model: "; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "(-model none goes without it)") || out != "" {
		t.Errorf("err = %v, output %q; want an error %q... (-model none goes without it), and no output", err, out, want)
	}
}

// TestGenerateOutput checks that generate bounds -n, leaves -out as it was
// when interrupted, and replaces only regular files.
func TestGenerateOutput(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := runPHS(t, "generate", "stp", "-n", "2000000000"); err == nil || !strings.Contains(err.Error(), "-n 2000000000") {
		t.Errorf("-n 2000000000: %v", err)
	}
	out := filepath.Join(dir, "p.txt")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e bytes.Buffer
	if err := run(ctx, []string{"generate", "witness", "-n", "5000", "-out", out}, &o, &e); !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted generate: %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "old" {
		t.Errorf("an interrupted generate changed -out to %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the directory, want 1", len(entries))
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runPHS(t, "generate", "stp", "-n", "3", "-out", link); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("-out a link: %v", err)
	}
	if _, _, err := runPHS(t, "generate", "stp", "-n", "3", "-out", out); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); strings.Count(string(b), "\n") != 3 {
		t.Errorf("generated %q", b)
	}
}

// TestSolveProgress checks that progress records inside a long search
// count its expansions.
func TestSolveProgress(t *testing.T) {
	t.Parallel()
	hard := writeFile(t, "hard.txt", "24 23 22 21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0\n")
	_, errOut, err := runPHS(t, "solve", "-domain", "stp", "-alg", "astar", "-model", "none", "-budget", "300000", "-workers", "1", "-progress", "5ms", "-log", "json", hard)
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, l := range strings.Split(strings.TrimSpace(errOut), "\n") {
		var rec struct {
			Msg        string  `json:"msg"`
			Done       int     `json:"done"`
			Expansions float64 `json:"expansions"`
		}
		if json.Unmarshal([]byte(l), &rec) == nil && rec.Msg == "progress" && rec.Done == 0 && rec.Expansions > 0 {
			seen = true
		}
	}
	if !seen {
		t.Errorf("no progress record with expansions during the search:\n%s", errOut)
	}
}

// TestResumeOtherAlgorithm checks that a run.json changed to another
// TestResumeReadsCheckpoint checks that -resume goes on with the
// configuration of the run's checkpoint, and that run.json holds only
// what the checkpoint does not.
func TestResumeReadsCheckpoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wit := trainingSet(t, dir)
	run := filepath.Join(dir, "run")
	if _, errOut, err := runPHS(t, "train", "-domain", "witness", "-alg", "wastar", "-w", "3", "-batch", "4", "-goal-test", "expansion", "-schedule", "ltscm:0.2", "-iterations", "1", "-budget", "50", "-dir", run, wit); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	b, err := os.ReadFile(filepath.Join(run, runFile))
	if err != nil {
		t.Fatal(err)
	}
	var saved map[string]any
	if err := json.Unmarshal(b, &saved); err != nil || len(saved) != 3 || saved["domain"] != "witness" || saved["learner"] != "network" || saved["files"] == nil {
		t.Errorf("run.json holds more than the domain, the kind of learner and the files: %s", b)
	}
	// A kind of learner that phs does not know is an error that names
	// run.json; a run.json of an earlier phs, without it, still resumes.
	for _, learner := range []any{"table", nil} {
		saved["learner"] = learner
		if learner == nil {
			delete(saved, "learner")
		}
		b, _ := json.Marshal(saved)
		if err := os.WriteFile(filepath.Join(run, runFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := runPHS(t, "train", "-resume", run, "-iterations", "1")
		if learner != nil && (err == nil || !strings.Contains(err.Error(), runFile+`: learner "table"`)) {
			t.Errorf("run.json with learner %q: %v", learner, err)
		}
		if learner == nil && (err == nil || !strings.Contains(err.Error(), "already finished")) {
			t.Errorf("run.json without a learner: %v", err)
		}
	}
	if _, _, err := runPHS(t, "train", "-resume", run, "-iterations", "2", "-schedule", "ltscm:0.1"); err == nil || !strings.Contains(err.Error(), "cannot change -schedule") {
		t.Errorf("changing -schedule on resume: %v", err)
	}
	if _, errOut, err := runPHS(t, "train", "-resume", run, "-iterations", "2"); err != nil {
		t.Fatalf("resume: %v\n%s", err, errOut)
	}
	bc, err := bootstrap.ReadConfig(run)
	if err != nil {
		t.Fatal(err)
	}
	if bc.Algorithm != search.WAStar(3) || bc.Options.BatchSize != 4 || bc.Options.GoalTest != search.GoalTestExpansion || bc.Schedule != bootstrap.LTSCM(0.2) || bc.Options.Budget != 50 || bc.MaxIterations != 2 {
		t.Errorf("the checkpoint's configuration after -resume: %+v", bc)
	}
}

// TestTrainAsync checks that phs train -async trains, saves the mode in
// the checkpoint and resumes in it.
func TestTrainAsync(t *testing.T) {
	dir := t.TempDir()
	wit := trainingSet(t, dir)
	run := filepath.Join(dir, "run")
	if _, errOut, err := runPHS(t, append([]string{"train", "-domain", "witness", "-alg", "levints", "-async", "-iterations", "1", "-budget", "50", "-dir", run}, append(smallNetwork(), wit)...)...); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if bc, err := bootstrap.ReadConfig(run); err != nil || !bc.Async {
		t.Fatalf("the checkpoint's configuration: %+v, %v", bc, err)
	}
	if _, errOut, err := runPHS(t, "train", "-resume", run, "-iterations", "2"); err != nil {
		t.Fatalf("resume: %v\n%s", err, errOut)
	}
	if _, _, err := runPHS(t, "train", "-resume", run, "-async"); err == nil || !strings.Contains(err.Error(), "-async") {
		t.Errorf("changing -async on resume: %v", err)
	}
}

// TestTrainInit checks that -model starts a run from a trained network,
// records it in run.json, takes a network trained with another algorithm
// that reads the same heads, and refuses one without the run's heads, a
// missing model and a change on -resume.
func TestTrainInit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wit := trainingSet(t, dir)
	first := filepath.Join(dir, "first")
	if _, errOut, err := runPHS(t, "train", "-domain", "witness", "-alg", "levints", "-iterations", "1", "-budget", "50", "-dir", first, wit); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	// A budget of 1 solves nothing, so the network is never updated: the
	// second run's checkpoint holds the first run's weights.
	second := filepath.Join(dir, "second")
	if _, errOut, err := runPHS(t, "train", "-domain", "witness", "-alg", "levints", "-model", first, "-iterations", "1", "-budget", "1", "-dir", second, wit); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	want, err := os.ReadFile(filepath.Join(first, "checkpoint", "weights.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(second, "checkpoint", "weights.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("the run started with -model and never updated holds other weights than its -model model")
	}
	b, err := os.ReadFile(filepath.Join(second, runFile))
	if err != nil || !strings.Contains(string(b), `"init": "../first"`) {
		t.Errorf("run.json does not record -model %s relative to the run directory: %s, %v", first, b, err)
	}
	if _, _, err := runPHS(t, "train", "-resume", second, "-model", first); err == nil || !strings.Contains(err.Error(), "-model") {
		t.Errorf("changing -model on resume: %v", err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-alg", "phsh", "-model", first}, "heads"},
		{[]string{"-alg", "levints", "-model", filepath.Join(dir, "missing")}, "-model"},
	} {
		args := append([]string{"train", "-domain", "witness", "-iterations", "1", "-dir", filepath.Join(dir, "bad")}, tc.args...)
		if _, _, err := runPHS(t, append(args, wit)...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("train %v: %v; want an error with %q", tc.args, err, tc.want)
		}
	}

	// WA*'s network goes on with GBFS, which reads the same head, and
	// its checkpoint is GBFS's.
	wastar, gbfs := filepath.Join(dir, "wastar"), filepath.Join(dir, "gbfs")
	for _, args := range [][]string{{"-alg", "wastar", "-dir", wastar}, {"-alg", "gbfs", "-model", wastar, "-dir", gbfs}} {
		args = append([]string{"train", "-domain", "witness", "-iterations", "1", "-budget", "1"}, args...)
		if _, errOut, err := runPHS(t, append(args, wit)...); err != nil {
			t.Fatalf("train %v: %v\n%s", args, err, errOut)
		}
	}
	b, err = os.ReadFile(filepath.Join(gbfs, "checkpoint", "config.json"))
	if err != nil || !strings.Contains(string(b), `"algorithm": "gbfs"`) {
		t.Errorf("the checkpoint of a GBFS run started from WA*'s network: %s, %v", b, err)
	}
}

// withoutPruning returns a copy, in a temporary directory, of the model
// directory dir with the prune_deadlocks field removed from its config.json.
func withoutPruning(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	delete(cfg, "prune_deadlocks")
	if b, err = json.Marshal(cfg); err != nil {
		t.Fatal(err)
	}
	weights, err := os.ReadFile(filepath.Join(dir, "weights.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "config.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "weights.safetensors"), weights, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTrainRecordsW trains a WA* network with -w 3 and checks that its
// config.json records the weight, and that a search with the network and
// no -w searches at w = 3, not at the flag's default.
func TestTrainRecordsW(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wit := trainingSet(t, dir)
	run := filepath.Join(dir, "run")
	if _, errOut, err := runPHS(t, "train", "-domain", "witness", "-alg", "wastar", "-w", "3", "-iterations", "1", "-budget", "50", "-dir", run, wit); err != nil {
		t.Fatalf("train: %v\n%s", err, errOut)
	}
	if cfg := checkpointConfig(t, run); !strings.Contains(cfg, `"algorithm": "wastar:3"`) {
		t.Errorf("config.json does not record w = 3:\n%s", cfg)
	}
	expansions := func(args ...string) []int64 {
		t.Helper()
		out, errOut, err := runPHS(t, append([]string{"solve", "-domain", "witness", "-model", run, "-budget", "200"}, append(args, wit)...)...)
		if err != nil {
			t.Fatalf("test %v: %v\n%s", args, err, errOut)
		}
		var e []int64
		for _, r := range decodeRecords(t, out) {
			e = append(e, r.Expansions)
		}
		return e
	}
	got, at3, at15 := expansions(), expansions("-w", "3"), expansions("-w", "1.5")
	if slices.Equal(at3, at15) {
		t.Fatal("w = 3 and w = 1.5 search alike: the test cannot tell them apart")
	}
	if !slices.Equal(got, at3) {
		t.Errorf("without -w: expansions %v; at w = 3: %v", got, at3)
	}
}

// TestRubiks generates Rubik's cubes with phs generate, scrambles of up to 4
// turns and uniformly random ones; it solves the scrambles without a
// model, where A* finds them all, and two random cubes with no flag but
// the domain, where the shipped network's beam search solves both (as
// it does 94 of 100 validation cubes) and its pass, prepared before the
// first search, shortens them. With -short, A* searches with h = 0
// (-no-heuristic): the cube's heuristic reads a pattern database that
// takes 3 s of CPU time to build, which package rubiks checks (and
// TestAStarOptimal A* with a domain's heuristic).
func TestRubiks(t *testing.T) {
	out, _, err := runPHS(t, "generate", "rubiks", "-n", "5", "-scramble", "1:4", "-seed", "3")
	if err != nil {
		t.Fatal(err)
	}
	cubes := writeFile(t, "cubes.txt", out)
	astar := []string{"-domain", "rubiks", "-model", "none", "-alg", "astar"}
	if testing.Short() {
		astar = append(astar, "-no-heuristic")
	}
	if solved, _, _ := solveTotals(t, append(astar, cubes)...); solved != 5 {
		t.Errorf("A* solved %d of 5 scrambles of 1 to 4 turns:\n%s", solved, out)
	}
	out, _, err = runPHS(t, "generate", "rubiks", "-n", "3")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := rubiks.Parse(strings.NewReader(out), "random.txt")
	if err != nil || len(ps) != 3 {
		t.Fatalf("generate rubiks: %d cubes, %v:\n%s", len(ps), err, out)
	}
	random := writeFile(t, "random.txt", out)
	out, errOut, err := runPHS(t, "solve", "-domain", "rubiks", "-first", "2", random)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	recs := decodeRecords(t, out)
	replayRecords[rubiks.State](t, "rubiks", recs, ps[:2], "beam")
	for _, r := range recs {
		if r.ShortenNodes <= 0 || r.ShortenNodes > 400_000 {
			t.Errorf("%s: %d nodes shortened; want the shipped network's pass, within 400,000", r.Problem, r.ShortenNodes)
		}
	}
	if !strings.Contains(errOut, "prepared the pass after the search") {
		t.Errorf("solve -domain rubiks did not prepare its pass:\n%s", errOut)
	}
	for _, bad := range []string{"4:1", "1:2000000", "x"} {
		if _, _, err := runPHS(t, "generate", "rubiks", "-scramble", bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("-scramble %s: %v", bad, err)
		}
	}
}

// TestTrainResNet trains a tiny resnet on short scrambles of the cube,
// checks that the network saved records its architecture, that -resume
// refuses to change it, that solve searches with it without an
// architecture flag, and that the sizes are checked under their flags'
// names for the cube's input.
func TestTrainResNet(t *testing.T) {
	dir := t.TempDir()
	cubes := filepath.Join(dir, "cubes.txt")
	if _, errOut, err := runPHS(t, "generate", "rubiks", "-n", "8", "-scramble", "1:2", "-seed", "3", "-out", cubes); err != nil {
		t.Fatalf("generate: %v\n%s", err, errOut)
	}
	run := filepath.Join(dir, "run")
	train := []string{"train", "-domain", "rubiks", "-alg", "levints", "-budget", "200", "-workers", "1"}
	if _, errOut, err := runPHS(t, append(train, "-arch", "resnet", "-units", "16", "-blocks", "1", "-iterations", "1", "-dir", run, cubes)...); err != nil {
		t.Fatalf("train: %v\n%s", err, errOut)
	}
	cfg := checkpointConfig(t, run)
	for _, want := range []string{`"arch": "resnet"`, `"units": 16`, `"blocks": 1`} {
		if !strings.Contains(cfg, want) {
			t.Errorf("the checkpoint's config.json lacks %s:\n%s", want, cfg)
		}
	}
	for _, flag := range [][]string{{"-arch", "conv"}, {"-units", "32"}, {"-blocks", "2"}} {
		_, _, err := runPHS(t, append([]string{"train", "-resume", run, "-iterations", "2"}, flag...)...)
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), "cannot change "+flag[0]) {
			t.Errorf("-resume with %s: %v, want a usage error naming it", flag, err)
		}
	}
	out, errOut, err := runPHS(t, "solve", "-domain", "rubiks", "-model", run, "-budget", "1000", cubes)
	if err != nil {
		t.Fatalf("solve: %v\n%s", err, errOut)
	}
	recs := decodeRecords(t, out)
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8", len(recs))
	}
	for _, r := range recs {
		if !r.Solved || r.Algorithm != "levints" {
			t.Errorf("%s: solved %v by %s; want solved by the network's levints", r.Problem, r.Solved, r.Algorithm)
		}
	}
	conv := filepath.Join(dir, "conv")
	if _, errOut, err := runPHS(t, append(train, "-filters", "4", "-hidden", "8", "-iterations", "1", "-dir", conv, cubes)...); err != nil {
		t.Fatalf("train: %v\n%s", err, errOut)
	}
	cfg = checkpointConfig(t, conv)
	for _, want := range []string{`"filters": 4`, `"hidden": 8`} {
		if !strings.Contains(cfg, want) {
			t.Errorf("the checkpoint's config.json lacks %s:\n%s", want, cfg)
		}
	}
	// The cube's 9x12 input takes convolutions, so -units and -blocks
	// are a conv network's errors.
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-units", "8"}, "-units 8: model: units 8 and blocks 0 in a conv network"},
		{[]string{"-blocks", "1"}, "-blocks 1: model: units 0 and blocks 1 in a conv network"},
		{[]string{"-arch", "resnet", "-units", "8", "-blocks", "100"}, "-blocks 100: model: 100 blocks"},
		{[]string{"-arch", "resnet", "-filters", "4"}, "-filters 4: model: filters 4 and kernel 0 in a resnet network"},
		{[]string{"-hidden", "-1"}, "-hidden -1: model: hidden -1"},
	} {
		bad := filepath.Join(dir, "bad")
		_, _, err := runPHS(t, append(append(train, "-dir", bad), append(tc.args, cubes)...)...)
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: %v, want a usage error containing %q", tc.args, err, tc.msg)
		}
		if _, err := os.Stat(bad); err == nil {
			t.Errorf("%q left a run directory", tc.args)
		}
	}
}

// TestTrainValidation trains a context model with validation problems
// until their target, and checks the flags that it refuses: the run
// stops one iteration after the target with its reason, the metrics
// count the validation searches apart, -resume of the finished run says
// that it is done without a limit to raise, and phs plot -valid draws the
// validation problems solved.
func TestTrainValidation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wit := trainingSet(t, dir)
	valid := filepath.Join(dir, "v.txt")
	if _, _, err := runPHS(t, "generate", "witness", "-n", "10", "-size", "3x3", "-seed", "6", "-out", valid); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run")
	_, errOut, err := runPHS(t, "train", "-domain", "witness", "-learner", "context", "-budget", "320", "-valid", valid, "-valid-target", "0.9", "-iterations", "20", "-dir", run, wit)
	if err != nil {
		t.Fatalf("train: %v\n%s", err, errOut)
	}
	if !strings.Contains(errOut, "validation target reached") {
		t.Errorf("the log does not say that the validation target stopped training:\n%s", errOut)
	}
	its := readMetrics(t, run)
	if n := len(its); n < 2 || its[n-2].ValidTotalSolved < 9 || its[n-1].ValidAttempted != 0 || its[0].ValidAttempted != 10 || its[n-1].Attempted != 40 {
		t.Errorf("metrics: %+v; want the target of 9 reached one iteration before the last, with 10 validation searches first and 40 training searches each", its)
	}
	if bc, err := bootstrap.ReadConfig(run); err != nil || bc.Validation != (bootstrap.Validation{Problems: 10, Target: 0.9}) {
		t.Errorf("the checkpoint's validation: %+v, %v", bc.Validation, err)
	}
	if _, _, err := runPHS(t, "train", "-resume", run, "-iterations", "30"); err == nil || !strings.Contains(err.Error(), "validation target reached") || strings.Contains(err.Error(), "raise") {
		t.Errorf("resume of the finished run: %v", err)
	}
	// The run directory moved without its files: -resume gives them anew.
	alone := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(alone, os.DirFS(run)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "w.txt"},
		{[]string{wit}, "v.txt"},
		{[]string{"-valid", valid, wit}, "validation target reached"},
	} {
		if _, _, err := runPHS(t, append([]string{"train", "-resume", alone, "-iterations", "30"}, c.args...)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("resume of the moved run with %q: %v; want an error with %q", c.args, err, c.want)
		}
	}
	c, err := learningChart([]string{run}, []string{"run"}, "expansions", true, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, y := range c.Series[0].Y[1:] {
		if want := float64(its[i].ValidTotalSolved) * (1 / 10.0); y != want || c.Series[0].X[i+1] != float64(its[i].TotalExpansions) {
			t.Errorf("-valid -fraction -x expansions: point %d is (%g, %g); want (%d, %g)", i+1, c.Series[0].X[i+1], y, its[i].TotalExpansions, want)
		}
	}
	if _, _, err := runPHS(t, "plot", "-valid", "-out", filepath.Join(dir, "v.png"), run); err != nil {
		t.Errorf("plot -valid: %v", err)
	}
	other := filepath.Join(dir, "other")
	if _, _, err := runPHS(t, "train", "-domain", "witness", "-learner", "context", "-iterations", "1", "-dir", other, wit); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runPHS(t, "plot", "-valid", "-out", filepath.Join(dir, "o.png"), other); err == nil || !strings.Contains(err.Error(), "no run has validation searches") {
		t.Errorf("plot -valid of a run without validation: %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-valid-target", "0.5"}, "-valid-target without -valid"},
		{[]string{"-valid", valid, "-valid-target", "1.5"}, "-valid-target 1.5"},
		{[]string{"-valid", valid, "-valid-target", "0"}, "-valid-target 0"},
		{[]string{"-valid", filepath.Join(dir, "missing.txt")}, "missing.txt"},
	} {
		args := append([]string{"train", "-domain", "witness", "-learner", "context", "-dir", filepath.Join(t.TempDir(), "r")}, c.args...)
		if _, _, err := runPHS(t, append(args, wit)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v; want an error with %q", c.args, err, c.want)
		}
	}
}
