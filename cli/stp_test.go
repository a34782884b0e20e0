package cli

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/models"
	"github.com/phs-go/phs/report"
	"github.com/phs-go/phs/search"
)

// TestAStarOptimal checks that "phs solve -alg astar" without a model
// returns shortest solutions of random 8-puzzles by default (the Manhattan
// distance is consistent), in batches of 32, against the distances of a
// breadth-first search from the goal.
func TestAStarOptimal(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 8))
	ps := make([]*stp.Problem[stp.State], 100)
	for i := range ps {
		ps[i] = stp.GenerateRandom[stp.State](rng, 3, 3)
	}
	var b strings.Builder
	if err := stp.Write(&b, ps); err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, "tiles.txt", b.String())
	dist := distances(ps[0])
	for _, args := range [][]string{nil, {"-goal-test", "expansion"}, {"-goal-test", "default", "-batch", "1"}} {
		args = append([]string{"solve", "-domain", "stp", "-model", "none", "-alg", "astar", "-progress", "0", file}, args...)
		out, errOut, err := runPHS(t, args...)
		if err != nil {
			t.Fatalf("%q: %v\n%s", args, err, errOut)
		}
		recs := decodeRecords(t, out)
		if len(recs) != len(ps) {
			t.Fatalf("%q: %d records, want %d", args, len(recs), len(ps))
		}
		for i, r := range recs {
			if want := dist[ps[i].Root()]; !r.Solved || r.Length != want {
				t.Errorf("%q: %s: solved %v, %d moves; want %d", args[10:], r.Problem, r.Solved, r.Length, want)
			}
		}
	}
}

// distances returns the distance of every arrangement of p's size to the
// goal, by a breadth-first search from the goal (a move can be undone).
func distances(p *stp.Problem[stp.State]) map[stp.State]int {
	dist := map[stp.State]int{p.Goal(): 0}
	frontier := []stp.State{p.Goal()}
	for len(frontier) > 0 {
		var next []stp.State
		for _, s := range frontier {
			for a := range p.NumActions() {
				if c, ok := p.Apply(s, a); ok {
					if _, seen := dist[c]; !seen {
						dist[c] = dist[s] + 1
						next = append(next, c)
					}
				}
			}
		}
		frontier = next
	}
	return dist
}

// TestLargeBoards generates 7x7 and 6x8 puzzles, solves them together
// with 3x3 ones (with stp.LargeState: one file has large boards), and
// checks that every solution replays from the puzzle read back.
func TestLargeBoards(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, size := range []string{"7x7", "6x8", "3x3"} {
		f := filepath.Join(dir, size+".txt")
		if _, errOut, err := runPHS(t, "generate", "stp", "-size", size, "-walk", "10:30", "-n", "5", "-out", f); err != nil {
			t.Fatalf("generate %s: %v\n%s", size, err, errOut)
		}
		files = append(files, f)
	}
	out, errOut, err := runPHS(t, append([]string{"solve", "-domain", "stp", "-model", "none", "-alg", "wastar", "-progress", "0"}, files...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	recs := decodeRecords(t, out)
	var ps []*stp.Problem[stp.LargeState]
	for _, f := range files {
		p, err := stp.ReadFile[stp.LargeState](f)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p...)
	}
	if len(recs) != len(ps) || len(ps) != 15 {
		t.Fatalf("%d records of %d puzzles, want 15", len(recs), len(ps))
	}
	for i, r := range recs {
		actions, err := search.ParseActions(ps[i], r.Solution)
		if err == nil {
			err = search.Replay(ps[i], actions)
		}
		if !r.Solved || r.Problem != ps[i].ID || err != nil {
			t.Errorf("%s: solved %v, %q: %v", r.Problem, r.Solved, r.Solution, err)
		}
	}
	// Without -model, 7x7 puzzles are searched with their shipped
	// network (stp-7x7, beam search, its solutions shortened after it),
	// and 6x8 ones, which have none, without a model; the 5x5 model is
	// not tried.
	for i, alg := range []string{"beam", "wastar"} {
		out, errOut, err = runPHS(t, "solve", "-domain", "stp", "-progress", "0", files[i])
		recs := decodeRecords(t, out)
		if err != nil || strings.Contains(errOut, "takes none") {
			t.Fatalf("%s without -model: %v\n%s", files[i], err, errOut)
		}
		replayRecords[stp.LargeState](t, files[i], recs, ps[5*i:5*i+5], alg)
		var nodes int64 // of the pass after the search: the network's only
		for _, r := range recs {
			nodes += r.ShortenNodes
		}
		if (nodes > 0) != (alg == "beam") {
			t.Errorf("%s: the pass after %s expanded %d nodes", files[i], alg, nodes)
		}
	}
}

// TestTrainShortenLearned checks the wiring of -shorten-learned: the run
// records the limit, and its network learns from solutions no longer than
// those of its searches: shorter in all, as GBFS floored at the
// Manhattan distance solves boards the network has not learned yet.
func TestTrainShortenLearned(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "walks.txt")
	if _, errOut, err := runPHS(t, "generate", "stp", "-size", "4x4", "-walk", "20:40", "-n", "16", "-seed", "3", "-out", file); err != nil {
		t.Fatalf("generate: %v\n%s", err, errOut)
	}
	run := filepath.Join(dir, "run")
	if _, errOut, err := runPHS(t, "train", "-domain", "stp", "-alg", "gbfs", "-floor", "-budget", "2000", "-iterations", "1", "-shorten-learned", "100000", "-progress", "0", "-dir", run, file); err != nil {
		t.Fatalf("train: %v\n%s", err, errOut)
	}
	bc, err := bootstrap.ReadConfig(run)
	if err != nil || bc.ShortenLimit != 100000 {
		t.Errorf("the checkpoint's shorten limit = %d (%v), want 100000", bc.ShortenLimit, err)
	}
	f, err := os.Open(filepath.Join(run, bootstrap.MetricsJSONL))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	metrics, err := bootstrap.ReadMetricsJSONL(f, bootstrap.MetricsJSONL)
	if err != nil || len(metrics) != 1 {
		t.Fatalf("metrics %+v: %v", metrics, err)
	}
	if it := metrics[0]; it.Solved == 0 || it.LearnedSteps >= it.SolvedSteps {
		t.Errorf("%d solved in %d steps, learned from %d; want fewer", it.Solved, it.SolvedSteps, it.LearnedSteps)
	}
}

// TestDefaultModelBySize checks that the sliding-tile puzzle searches the
// boards of a file with the default model of their size: a network for
// 6x6 boards (its algorithm, GBFS, in the records, every solution
// replayed; floored at the Manhattan distance), none for 7x7 in this
// test's domain (WA*, the search without a model), and that the loader
// of a size stops solve and test with its error. The size is that of the file's first board of
// more than 25 cells.
func TestDefaultModelBySize(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	boards := func(name string, sizes ...int) (string, []*stp.Problem[stp.LargeState]) {
		var ps []*stp.Problem[stp.LargeState]
		for _, n := range sizes {
			ps = append(ps, stp.GenerateWalk[stp.LargeState](rng, n, n, 10, 20))
		}
		var b strings.Builder
		if err := stp.Write(&b, ps); err != nil {
			t.Fatal(err)
		}
		return writeFile(t, name, b.String()), ps
	}
	six, sixes := boards("six.txt", 6, 6)
	seven, sevens := boards("seven.txt", 7, 7)
	eight, _ := boards("eight.txt", 3, 8) // a small board first
	cfg := model.ConfigFor[stp.LargeState]("stp", search.GBFS(), sixes[0])
	cfg.Floor = true // at least the Manhattan distance: GBFS solves the walks at once
	net, err := model.New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	broken := errors.New("broken")
	d := Domain{&stpDomain{
		small: stpDomainOf[stp.State](NoModelAlgorithm(search.WAStar(stpNoModelW))),
		large: func(rows, cols int) *domainOf[stp.LargeState] {
			load := func() (models.Model, error) { return models.Model{}, fmt.Errorf("models: %w", models.ErrNoModel) }
			switch {
			case rows == 6 && cols == 6:
				load = func() (models.Model, error) { return models.Model{Network: net}, nil }
			case rows == 8 && cols == 8:
				load = func() (models.Model, error) { return models.Model{}, broken }
			}
			return stpDomainOf[stp.LargeState](NoModelAlgorithm(search.WAStar(stpNoModelW)), DefaultModel(load))
		},
	}}
	run := func(cmd, file string) ([]report.Record, error) {
		var out, errOut strings.Builder
		err := Run(context.Background(), []string{cmd, "-domain", "stp", "-progress", "0", "-workers", "1", file}, &out, &errOut, d)
		if err != nil {
			return nil, err
		}
		return decodeRecords(t, out.String()), nil
	}
	for _, cmd := range []string{"solve", "test"} {
		recs, err := run(cmd, six)
		if err != nil {
			t.Fatalf("%s 6x6: %v", cmd, err)
		}
		replayRecords[stp.LargeState](t, cmd+" 6x6", recs, sixes, "gbfs")
		if recs, err = run(cmd, seven); err != nil {
			t.Fatalf("%s 7x7: %v", cmd, err)
		}
		replayRecords[stp.LargeState](t, cmd+" 7x7", recs, sevens, "wastar")
		if _, err := run(cmd, eight); !errors.Is(err, broken) {
			t.Errorf("%s 8x8: %v; want the loader's error", cmd, err)
		}
	}
}

// TestLargeBoardBudget checks that the Bootstrap test of boards larger
// than 5x5 starts from the sliding-tile puzzle's budget, stp.InitialBudget,
// as that of 5x5 boards does.
func TestLargeBoardBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{5, 6} {
		var b strings.Builder
		if err := stp.Write(&b, []*stp.Problem[stp.LargeState]{stp.GenerateWalk[stp.LargeState](rng, n, n, 10, 20)}); err != nil {
			t.Fatal(err)
		}
		file := writeFile(t, fmt.Sprintf("%dx%d.txt", n, n), b.String())
		out, _, err := runPHS(t, "test", "-domain", "stp", "-model", "none", "-workers", "1", "-progress", "0", file)
		if err != nil {
			t.Fatal(err)
		}
		if recs := decodeRecords(t, out); len(recs) != 1 || recs[0].Budget != stp.InitialBudget {
			t.Errorf("%dx%d: records %+v; want one of budget %d", n, n, recs, stp.InitialBudget)
		}
	}
}

// TestShortenFound checks the wiring of -shorten-found: solve and test,
// two searches at a time, write each board's GBFS solution shortened by
// stp.Problem.Shorten, replayed, in the boards' order, with the search's
// own expansions and the pass's nodes in shorten_nodes; a network's
// shorten_found is its searches' default, and -shorten-found 0 turns it
// off.
func TestShortenFound(t *testing.T) {
	t.Parallel()
	file := generate(t, "walks.txt", "stp", "-size", "4x4", "-walk", "60:120", "-n", "12", "-seed", "5")
	ps, err := stp.ReadFile[stp.State](file)
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.ConfigFor[stp.State]("stp", search.GBFS(), ps[0])
	cfg.Floor, cfg.ShortenFound = true, 100_000
	dir := saveNetwork(t, cfg)
	records := func(cmd string, args ...string) []report.Record {
		t.Helper()
		out, errOut, err := runPHS(t, append([]string{cmd, "-domain", "stp", "-alg", "gbfs", "-workers", "2", "-progress", "0"}, append(args, file)...)...)
		if err != nil {
			t.Fatalf("%s %q: %v\n%s", cmd, args, err, errOut)
		}
		recs := decodeRecords(t, out)
		replayRecords[stp.State](t, cmd, recs, ps, "gbfs")
		for i, r := range recs {
			if r.Problem != ps[i].ID {
				t.Fatalf("%s %q: record %d is %s's; want %s's", cmd, args, i, r.Problem, ps[i].ID)
			}
		}
		return recs
	}
	// compare checks that short's solutions are plain's shortened, and
	// returns the moves saved.
	compare := func(name string, plain, short []report.Record) int {
		t.Helper()
		saved := 0
		for i, s := range short {
			p := plain[i]
			if s.Length > p.Length || s.Expansions != p.Expansions || p.ShortenNodes != 0 || s.ShortenNodes <= 0 || s.ShortenNodes > 100_000 {
				t.Errorf("%s: %s: %d moves, %d expansions and %d nodes shortened; without the pass %d, %d and %d",
					name, s.Problem, s.Length, s.Expansions, s.ShortenNodes, p.Length, p.Expansions, p.ShortenNodes)
			}
			saved += p.Length - s.Length
		}
		return saved
	}
	for _, cmd := range []string{"solve", "test"} {
		if saved := compare(cmd+" -shorten-found", records(cmd, "-model", "none"), records(cmd, "-model", "none", "-shorten-found", "100000")); saved == 0 {
			t.Errorf("%s: -shorten-found saved no move", cmd)
		}
		compare(cmd+" with the network's shorten_found", records(cmd, "-model", dir, "-shorten-found", "0"), records(cmd, "-model", dir))
	}
}
