package models_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/domain/rubiks"
	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/models"
	"github.com/phs-go/phs/search"
)

func TestDefaultMissing(t *testing.T) {
	// Domains without a model, and names of files and directories that are
	// or might be in the package but are no model.
	for _, domain := range []string{"nosuchdomain", "", ".", "..", "/", "witness/", "./witness",
		"witness/config.json", "WITNESS", "models.go", "models_test.go", "export_test.go"} {
		m, err := models.Default(domain)
		if m != (models.Model{}) || !errors.Is(err, models.ErrNoModel) {
			t.Errorf("Default(%q) = %v, %v; want an error wrapping ErrNoModel", domain, m, err)
			continue
		}
		if want := fmt.Sprintf("models: no shipped model for domain %q", domain); err.Error() != want {
			t.Errorf("Default(%q): error %q, want %q", domain, err, want)
		}
	}
}

func TestDomains(t *testing.T) {
	if got, want := models.Domains(), []string{"rubiks", "sokoban", "stp", "witness"}; !slices.Equal(got, want) {
		t.Errorf("Domains() = %q, want %q", got, want)
	}
}

func TestNames(t *testing.T) {
	if got, want := models.Names(), []string{"rubiks", "sokoban", "sokoban-hard", "stp", "stp-6x6", "stp-7x7", "witness"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	for _, d := range models.Domains() {
		a, err := models.Default(d)
		if err != nil {
			t.Fatal(err)
		}
		b, err := models.Named(d)
		if err != nil {
			t.Fatal(err)
		}
		if a.Network != nil && b.Network != nil && a.Network.Config().Domain != b.Network.Config().Domain || (a.Table == nil) != (b.Table == nil) {
			t.Errorf("Named(%q) is not Default(%[1]q)", d)
		}
	}
	for _, name := range []string{"", "sokoban-", "sokoban/hard", "hard", "sokoban-hard/config.json", "stp-hard"} {
		if _, err := models.Named(name); !errors.Is(err, models.ErrNoModel) {
			t.Errorf("Named(%q): %v; want an error wrapping ErrNoModel", name, err)
		}
	}
}

// TestEmbedded checks that the binary carries the files of the shipped
// models and nothing else: no source file, no stray file next to a model;
// each model of its kind and of the domain its name says, as the
// package's doc says, and with the SHA-256 of its tensors, which loading
// checks.
func TestEmbedded(t *testing.T) {
	kinds := map[string]string{"rubiks": "network", "sokoban": "network", "sokoban-hard": "network", "stp": "network", "stp-6x6": "network", "stp-7x7": "network", "witness": "context model"}
	var got []string
	err := fs.WalkDir(models.Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		got = append(got, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, name := range models.Names() {
		m, err := models.Named(name)
		if err != nil {
			t.Fatal(err)
		}
		d, variant, _ := strings.Cut(name, "-")
		dir := path.Join(d, variant)
		switch {
		case m.Network != nil && m.Table == nil:
			want = append(want, dir+"/"+model.ConfigFile, dir+"/"+model.WeightsFile)
			if kinds[name] != "network" {
				t.Errorf("%s: a network, want a %s", name, kinds[name])
			}
			if got := m.Network.Config().Domain; got != d {
				t.Errorf("%s: a network of %s", name, got)
			}
			if m.Network.NoDigest() {
				t.Errorf("%s: its config.json records no SHA-256 of its weights", name)
			}
		case m.Table != nil && m.Network == nil:
			want = append(want, dir+"/"+cm.TableFile)
			if kinds[name] != "context model" {
				t.Errorf("%s: a context model, want a %s", name, kinds[name])
			}
			if layout := m.Table.Layout().Name; !strings.HasPrefix(layout, d+" ") {
				t.Errorf("%s: a context model of the context set %q", name, layout)
			}
			if m.Table.NoDigest() {
				t.Errorf("%s: its table records no SHA-256 of its tensors", name)
			}
		default:
			t.Errorf("%s: network %v, table %v; want exactly one", name, m.Network, m.Table)
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("embedded files %q, want %q", got, want)
	}
}

// TestLoadKinds checks that a domain's directory with the files of a
// network and of a context model, or of neither, is an error, and that
// each kind alone loads.
func TestLoadKinds(t *testing.T) {
	file := func(name string) *fstest.MapFile {
		b, err := fs.ReadFile(models.Files, name)
		if err != nil {
			t.Fatal(err)
		}
		return &fstest.MapFile{Data: b}
	}
	net := map[string]*fstest.MapFile{model.ConfigFile: file("stp/" + model.ConfigFile), model.WeightsFile: file("stp/" + model.WeightsFile)}
	table := map[string]*fstest.MapFile{cm.TableFile: file("witness/" + cm.TableFile)}
	fsys := fstest.MapFS{"empty": {Mode: fs.ModeDir}, "other/README.md": {Data: []byte("no model")}}
	add := func(dir string, files ...map[string]*fstest.MapFile) {
		for _, fs := range files {
			for name, f := range fs {
				fsys[dir+"/"+name] = f
			}
		}
	}
	add("net", net)
	add("table", table)
	add("both", net, table)
	add("half", table)
	fsys["half/"+model.ConfigFile] = net[model.ConfigFile]
	fsys["bad/"+cm.TableFile] = &fstest.MapFile{Data: []byte("not a table")}
	fsys["badnet/"+model.ConfigFile] = net[model.ConfigFile]

	if m, err := models.NamedFS(fsys, "net"); err != nil || m.Network == nil || m.Table != nil {
		t.Errorf("a network: %+v, %v", m, err)
	}
	if m, err := models.NamedFS(fsys, "table"); err != nil || m.Table == nil || m.Network != nil {
		t.Errorf("a context model: %+v, %v", m, err)
	}
	for _, c := range []struct{ dir, err string }{
		{"both", "models: both: both a network (config.json, weights.safetensors) and a context model (table.safetensors)"},
		{"half", "models: half: both a network"},
		{"empty", "models: empty: no model: neither a network (config.json, weights.safetensors) nor a context model (table.safetensors)"},
		{"other", "models: other: no model"},
		{"bad", "models: cm: bad/table.safetensors: "},
		{"badnet", "models: badnet: model: "},
		{"missing", `models: no shipped model called "missing"`},
	} {
		m, err := models.NamedFS(fsys, c.dir)
		if m != (models.Model{}) || err == nil || !strings.HasPrefix(err.Error(), c.err) {
			t.Errorf("%s: %+v, %v; want an error %q...", c.dir, m, err, c.err)
			continue
		}
		if errors.Is(err, models.ErrNoModel) != (c.dir == "missing") {
			t.Errorf("%s: %v wraps ErrNoModel: %v", c.dir, err, errors.Is(err, models.ErrNoModel))
		}
	}
}

// sample is a problem of a shipped model's domain.
type sample[S comparable] interface {
	search.Problem[S]
	InputShape() (c, h, w int)
}

// solveSample checks that the shipped model of domain fits the domain
// (its encoding or its contexts) and solves at least minSolved of ps
// within budget expansions each with its own algorithm (a context
// model's: LevinTS), with solutions that replay to the goal, in at most
// maxMean expansions on average over those solved: a change to the
// encoding, the contexts or the network that the model was not trained
// for makes it fail.
func solveSample[S comparable, P sample[S]](t *testing.T, domain string, ps []P, budget int64, minSolved int, maxMean float64) {
	t.Helper()
	m, err := models.Default(domain)
	if err != nil {
		t.Fatalf("Default(%s): %v", domain, err)
	}
	var alg search.Algorithm
	var ev search.Evaluator[S]
	switch {
	case m.Network != nil:
		c, h, w := ps[0].InputShape()
		if err := m.Network.Check(domain, c, h, w); err != nil {
			t.Fatal(err)
		}
		// The model's algorithm, with its parameter.
		alg, ev = m.Network.Config().Algorithm, model.NewEvaluator[S](m.Network)
	case m.Table != nil:
		alg, ev = search.LevinTS(), cm.NewEvaluator[S](m.Table)
	default:
		t.Fatalf("Default(%s): no model", domain)
	}
	opts := search.Options{Budget: budget}
	if m.Network != nil {
		opts.BatchSize = m.Network.Config().Search.BatchSize // its speed alone
	}
	solver, err := search.NewSolver[S](alg, ev, opts)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	solved := 0
	for i, p := range ps {
		if err := solver.Check(p); err != nil {
			t.Fatalf("problem %d: %v", i, err)
		}
		res, err := solver.Solve(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Solved {
			t.Logf("problem %d: not solved within %d expansions", i, budget)
			continue
		}
		if err := search.Replay[S](p, res.Actions); err != nil {
			t.Errorf("problem %d: %v", i, err)
		}
		solved++
		total += res.Expansions
	}
	if solved < minSolved {
		t.Fatalf("%d of %d solved, want at least %d", solved, len(ps), minSolved)
	}
	mean := float64(total) / float64(solved)
	t.Logf("%d of %d solved, %.1f expansions on average", solved, len(ps), mean)
	if mean > maxMean {
		t.Errorf("mean expansions %.1f, want at most %g", mean, maxMean)
	}
}

// TestWitness solves the bundled Witness sample and the first 40 test
// puzzles with the shipped context model and LevinTS, budget 2,000, at
// the default batch of 32: it solves all of them, in 189.8 and 165.4
// expansions on average (a uniform policy needs thousands of expansions
// on some of these).
func TestWitness(t *testing.T) {
	for _, file := range []string{"../examples/witness-4x4.txt", "../domain/witness/testdata/puzzles_4x4_test-first40.txt"} {
		ps, err := witness.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		solveSample[witness.State](t, "witness", ps, 2000, len(ps), 300)
	}
}

// TestSokoban solves the first 10 Boxoban test levels with the shipped
// model and PHS*, budget 2,000, at temperature 1 and without deadlock
// pruning: the model solves 9 of them in 489.6 expansions on average (35
// of the first 40 in 560.3); without it (a uniform policy and the
// box-distance heuristic) PHS* solves none.
func TestSokoban(t *testing.T) {
	ps, err := sokoban.ReadFile("../domain/sokoban/testdata/boxoban-test-000-first40.txt")
	if err != nil {
		t.Fatal(err)
	}
	solveSample[sokoban.State](t, "sokoban", ps[:10], 2000, 8, 750)
}

// TestSTP solves the first 10 sliding-tile 5x5 test puzzles with the
// shipped model and WA* (w = 1.5), budget 7,000: the model solves all 10
// in 1,715.5 expansions on average (all of the first 40 in 1,732.5);
// without a model (the Manhattan distance) WA* solves none.
func TestSTP(t *testing.T) {
	ps, err := stp.ReadFile[stp.State]("../domain/stp/testdata/puzzles_5x5_test-first40.txt")
	if err != nil {
		t.Fatal(err)
	}
	solveSample[stp.State](t, "stp", ps[:10], 7000, 10, 2100)
}

// TestRubiks solves the first 5 cubes of DeepCubeA's test set with the
// shipped network and its beam search (768 wide), within its budget of
// 30,720 expansions: all 5, in 19,942.4 expansions on average (a beam that
// fails spends 30,720). With -short, the first 2 (the race detector makes
// a cube take seconds).
func TestRubiks(t *testing.T) {
	ps, err := rubiks.ReadFile("../domain/rubiks/testdata/deepcubea_test_1000-first40.txt")
	if err != nil {
		t.Fatal(err)
	}
	m, err := models.Default("rubiks")
	if err != nil {
		t.Fatal(err)
	}
	n := 5
	if testing.Short() {
		n = 2
	}
	solveSample[rubiks.State](t, "rubiks", ps[:n], m.Network.Config().Search.Budget, n, 22000)
}

// TestRealShapes checks that the weights files of the shipped networks
// are in the current layout: each tensor has its parameter's real shape
// ([out, in, kh, kw] for the convolutions' weights), not the flattened
// legacy one that Load also accepts. (The lab module's tests check its
// networks the same way.)
func TestRealShapes(t *testing.T) {
	dirs := map[string]fs.FS{}
	for _, name := range models.Names() {
		if m, err := models.Named(name); err != nil || m.Network == nil {
			continue // a context model; TestEmbedded checks each loads
		}
		d, variant, _ := strings.Cut(name, "-")
		sub, err := fs.Sub(models.Files, path.Join(d, variant))
		if err != nil {
			t.Fatal(err)
		}
		dirs["models/"+name] = sub
	}
	if len(dirs) == 0 {
		t.Fatal("no shipped network")
	}
	for name, fsys := range dirs {
		m, err := model.LoadFS(fsys, ".")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := fs.ReadFile(fsys, model.WeightsFile)
		if err != nil {
			t.Fatal(err)
		}
		var header map[string]struct {
			Shape []int `json:"shape"`
		}
		if n := binary.LittleEndian.Uint64(b); json.Unmarshal(b[8:8+n], &header) != nil {
			t.Fatalf("%s: bad header", name)
		}
		for _, p := range m.Params() {
			if got := header[p.Name].Shape; !slices.Equal(got, p.Shape) {
				t.Errorf("%s: %s has shape %v, want %v", name, p.Name, got, p.Shape)
			}
		}
	}
}

// BenchmarkSokobanSearch measures PHS* with the shipped Sokoban model on
// the first 40 Boxoban test levels, budget 2,000, batch 32, one goroutine:
// the search with a network, encoding and evaluation included.
func BenchmarkSokobanSearch(b *testing.B) {
	ps, err := sokoban.ReadFile("../domain/sokoban/testdata/boxoban-test-000-first40.txt")
	if err != nil {
		b.Fatal(err)
	}
	benchSearch[sokoban.State](b, "sokoban", ps, search.PHSStar(), search.Options{Budget: 2000, BatchSize: 32})
}

// BenchmarkSTPSearch measures PHS* with the shipped sliding-tile model on
// the first 40 5x5 test puzzles, budget 7,000, batch 32, one goroutine.
func BenchmarkSTPSearch(b *testing.B) {
	ps, err := stp.ReadFile[stp.State]("../domain/stp/testdata/puzzles_5x5_test-first40.txt")
	if err != nil {
		b.Fatal(err)
	}
	benchSearch[stp.State](b, "stp", ps, search.PHSStar(), search.Options{Budget: 7000, BatchSize: 32})
}

// BenchmarkRubiksSearch measures the shipped cube network with its own
// search (beam search 768 wide within 30,720 expansions, batches of
// 1,024) on
// the first cube of DeepCubeA's test set, one goroutine.
func BenchmarkRubiksSearch(b *testing.B) {
	ps, err := rubiks.ReadFile("../domain/rubiks/testdata/deepcubea_test_1000-first40.txt")
	if err != nil {
		b.Fatal(err)
	}
	m, err := models.Default("rubiks")
	if err != nil {
		b.Fatal(err)
	}
	c := m.Network.Config()
	benchSearch[rubiks.State](b, "rubiks", ps[:1], c.Algorithm, c.Search)
}

// benchSearch runs alg with the shipped model of domain on ps, with opts,
// and reports the expansions per second.
func benchSearch[S comparable, P search.Problem[S]](b *testing.B, domain string, ps []P, alg search.Algorithm, opts search.Options) {
	m, err := models.Default(domain)
	if err != nil || m.Network == nil {
		b.Fatalf("Default(%s) = %+v, %v; want a network", domain, m, err)
	}
	solver, err := search.NewSolver[S](alg, model.NewEvaluator[S](m.Network), opts)
	if err != nil {
		b.Fatal(err)
	}
	var expansions int64
	for b.Loop() {
		for _, p := range ps {
			res, err := solver.Solve(context.Background(), p)
			if err != nil {
				b.Fatal(err)
			}
			expansions += res.Expansions
		}
	}
	b.ReportMetric(float64(expansions)/b.Elapsed().Seconds(), "expansions/s")
}
