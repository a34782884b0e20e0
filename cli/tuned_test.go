package cli

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// TestTunedOptions checks that a network's budget and batch size
// (model.Config.Search) are the defaults of its searches: the batch size
// always, the budget for phs test's first round and for a beam search in
// phs solve, which without it would not end; a beam with a network
// without a budget, or without a network, searches within the domain's;
// the flags override them; other algorithms in phs solve keep no budget;
// phs test's rounds widen a beam with the budget, and the records say so;
// a network's shorten_found in a domain that does not shorten solutions
// is an error, unless -shorten-found 0 turns the pass off.
func TestTunedOptions(t *testing.T) {
	d := NewDomain[int]("mline", parseMeasuredLines, InitialBudget(50))
	// Both targets lie beyond the budgets' reach: a beam of 2 expands
	// about two states a step.
	file := writeFile(t, "lines.txt", "30\n-40\n")
	saveNet := func(opts search.Options) string {
		cfg := model.ConfigFor[int]("mline", search.Beam(2), measuredLine{})
		cfg.Arch, cfg.Units, cfg.Blocks, cfg.Search = model.ResNet, 8, 1, opts
		m, err := model.New(cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m.Params() {
			clear(p.Data) // h = 0 everywhere: the beam wanders
		}
		dir := t.TempDir()
		if err := model.Save(dir, m); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	tuned := saveNet(search.Options{Budget: 7, BatchSize: 16})
	untuned := saveNet(search.Options{})
	budgets := func(args ...string) []int64 {
		t.Helper()
		var o, e strings.Builder
		if err := Run(context.Background(), append(append(args[:1:1], "-domain", "mline", "-progress", "0"), append(args[1:], file)...), &o, &e, d); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, e.String())
		}
		var bs []int64
		for _, r := range decodeRecords(t, o.String()) {
			if r.Solved {
				t.Errorf("%q: %s solved by a beam of h = 0", args, r.Problem)
			}
			bs = append(bs, r.Budget)
		}
		return bs
	}
	for _, c := range []struct {
		args []string
		want int64
	}{
		{[]string{"solve", "-model", tuned}, 7},
		{[]string{"solve", "-model", tuned, "-budget", "9"}, 9},
		{[]string{"solve", "-model", untuned}, 50},
		{[]string{"solve", "-model", "none", "-alg", "beam:2"}, 50},
		{[]string{"test", "-model", tuned, "-rounds", "1"}, 7},
		{[]string{"test", "-model", untuned, "-rounds", "1"}, 50},
		{[]string{"test", "-model", tuned, "-rounds", "1", "-budget", "9"}, 9},
	} {
		if got := budgets(c.args...); len(got) != 2 || got[0] != c.want || got[1] != c.want {
			t.Errorf("%q: budgets %v, want %d for both", c.args, got, c.want)
		}
	}
	for _, c := range []struct {
		cmd           string
		args          []string
		budget, width int64
	}{
		{"solve", []string{"-alg", "gbfs"}, 0, 0},
		{"solve", nil, 7, 2},
		// phs test widens a beam with its budget.
		{"test", []string{"-rounds", "2"}, 14, 4},
	} {
		var o strings.Builder
		args := append(append([]string{c.cmd, "-domain", "mline", "-model", tuned, "-progress", "0"}, c.args...), file)
		if err := Run(context.Background(), args, &o, io.Discard, d); err != nil {
			t.Fatal(err)
		}
		for _, r := range decodeRecords(t, o.String()) {
			if r.Budget != c.budget || int64(r.BeamWidth) != c.width {
				t.Errorf("%q: budget %d, beam width %d; want %d and %d", args, r.Budget, r.BeamWidth, c.budget, c.width)
			}
		}
	}

	batch := func(args ...string) int {
		t.Helper()
		e := &env{domains: map[string]domain{"mline": d.d}, names: []string{"mline"}, stdout: io.Discard, stderr: io.Discard}
		var cfg searchConfig
		fs := newFlagSet("solve", "FILES...", io.Discard)
		cfg.register(fs, searchGroups, e.names, &cfg.opts)
		files, err := parseFlags(fs, append(append([]string{"-domain", "mline"}, args...), file))
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.setup("solve", e, fs, files); err != nil {
			t.Fatal(err)
		}
		return cfg.opts.BatchSize
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"-model", tuned}, 16},
		{[]string{"-model", tuned, "-batch", "3"}, 3},
		{[]string{"-model", untuned}, 0},
	} {
		if got := batch(c.args...); got != c.want {
			t.Errorf("%q: batch size %d, want %d", c.args, got, c.want)
		}
	}

	// A network that shortens its solutions, in a domain whose problems
	// cannot, is refused before any search; -shorten-found 0 searches
	// with it.
	shortening := model.ConfigFor[int]("mline", search.Beam(2), measuredLine{})
	shortening.Arch, shortening.Units, shortening.Blocks, shortening.ShortenFound = model.ResNet, 8, 1, 1000
	dir := saveNetwork(t, shortening)
	for _, cmd := range []string{"solve", "test"} {
		err := Run(context.Background(), []string{cmd, "-domain", "mline", "-model", dir, "-progress", "0", file}, io.Discard, io.Discard, d)
		if err == nil || !strings.Contains(err.Error(), "shortens its solutions (shorten_found 1000), and the mline domain does not") {
			t.Errorf("%s with a network of shorten_found 1000: %v", cmd, err)
		}
		if err := Run(context.Background(), []string{cmd, "-domain", "mline", "-model", dir, "-shorten-found", "0", "-progress", "0", file}, io.Discard, io.Discard, d); err != nil {
			t.Errorf("%s -shorten-found 0 with a network of shorten_found 1000: %v", cmd, err)
		}
	}
}

// TestInitModelSettings checks that a run started from a network takes
// the run's algorithm, search options, floor and pass after the search,
// none of the network's own, and drops its Meta, keeping its weights.
func TestInitModelSettings(t *testing.T) {
	cfg := model.ConfigFor[int]("mline", search.Beam(2), measuredLine{})
	cfg.Arch, cfg.Units, cfg.Blocks = model.ResNet, 8, 1
	shipped := cfg
	shipped.Search = search.Options{Budget: 7, BatchSize: 16}
	shipped.ShortenFound, shipped.Meta = 1000, map[string]string{"trained_by": "a test"}
	dir := saveNetwork(t, shipped)
	want := cfg
	want.Algorithm, want.Search = search.GBFS(), search.Options{Budget: 50}
	m, err := initModel(dir, want, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	got := m.Config()
	if got.Algorithm != want.Algorithm || got.Search != want.Search || got.ShortenFound != 0 || got.Meta != nil || got.Floor {
		t.Errorf("config %+v; want the run's settings, %+v", got, want)
	}
	saved, err := model.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range saved.Params() {
		if !slices.Equal(p.Data, m.Params()[i].Data) {
			t.Fatalf("%s differs from the network's", p.Name)
		}
	}
}
