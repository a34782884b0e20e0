package cli

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/report"
	"github.com/phs-go/phs/search"
)

// A measuredLine is a line with a heuristic, the distance to the target,
// and an encoding, the position's nine lowest bits as a 3×3 image.
type measuredLine struct{ line }

func (l measuredLine) Heuristic(s int) float64   { return float64(max(l.target-s, s-l.target)) }
func (l measuredLine) InputShape() (c, h, w int) { return 1, 3, 3 }

func (l measuredLine) Encode(s int, dst []float32) {
	for i := range dst {
		dst[i] = float32(s >> i & 1)
	}
}

func parseMeasuredLines(r io.Reader, file string) ([]measuredLine, error) {
	ls, err := parseLines(r, file)
	ms := make([]measuredLine, len(ls))
	for i, l := range ls {
		ms[i] = measuredLine{l}
	}
	return ms, err
}

// TestNetworkFloor checks that a domain's NetworkFloor raises a
// network's heuristic to the problems' own: GBFS with a network whose h
// is 0 everywhere heads straight for the target, as with the problems'
// heuristic, and wanders without the floor (-no-floor); that -no-floor is
// refused in a domain without a floor; that a network trained with -floor
// floors its heuristic in any domain (model.Config.Floor), unless
// -no-floor; that NewDomain refuses the option
// for problems without a heuristic; and that the cube has the floor.
func TestNetworkFloor(t *testing.T) {
	d := NewDomain[int]("mline", parseMeasuredLines, NetworkFloor())
	plain := NewDomain[int]("mline", parseMeasuredLines)
	file := writeFile(t, "lines.txt", "30\n-20\n")
	cfg := model.ConfigFor[int]("mline", search.GBFS(), measuredLine{})
	cfg.Arch, cfg.Units, cfg.Blocks = model.ResNet, 8, 1
	m, err := model.New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params() {
		clear(p.Data) // h = 0 everywhere
	}
	dir := t.TempDir()
	if err := model.Save(dir, m); err != nil {
		t.Fatal(err)
	}
	run := func(d Domain, args ...string) ([]report.Record, error) {
		var o strings.Builder
		err := Run(context.Background(), append(append([]string{"solve", "-domain", "mline", "-model", dir, "-batch", "1", "-budget", "1000", "-progress", "0"}, args...), file), &o, io.Discard, d)
		if err != nil {
			return nil, err
		}
		return decodeRecords(t, o.String()), nil
	}
	recs, err := run(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if !r.Solved || r.Algorithm != "gbfs" || r.Expansions > int64(r.Length) {
			t.Errorf("with the floor: %+v, want solved by gbfs in one expansion per step", r)
		}
	}
	recs, err = run(d, "-no-floor")
	if err != nil {
		t.Fatal(err)
	}
	// h = 0 ties every node: the search goes one way first, straight to
	// one target and away from the other.
	if len(recs) != 2 || recs[1].Solved && recs[1].Expansions <= int64(recs[1].Length) {
		t.Errorf("-no-floor: %+v, want the blind search of h = 0 for the target -20", recs)
	}
	if _, err := run(plain, "-no-floor"); exitCode(err) != 2 || !strings.Contains(err.Error(), "does not floor") {
		t.Errorf("-no-floor without a floor: %v, want a usage error", err)
	}

	// A network trained with -floor floors its heuristic in any domain,
	// in training as in searches, unless -no-floor.
	run2 := filepath.Join(t.TempDir(), "run")
	var errOut strings.Builder
	if err := Run(context.Background(), []string{"train", "-domain", "mline", "-alg", "gbfs", "-floor", "-iterations", "1", "-budget", "1000", "-progress", "0", "-dir", run2, file}, io.Discard, &errOut, plain); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if cfg := checkpointConfig(t, run2); !strings.Contains(cfg, `"floor": true`) {
		t.Errorf("the network of a run with -floor does not say so:\n%s", cfg)
	}
	floored := filepath.Join(t.TempDir(), "floored")
	cfg.Floor = true
	fm, err := model.New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	fm.CopyWeightsFrom(m)
	if err := model.Save(floored, fm); err != nil {
		t.Fatal(err)
	}
	dir = floored
	if recs, err = run(plain); err != nil || len(recs) != 2 || !recs[1].Solved || recs[1].Expansions > int64(recs[1].Length) {
		t.Errorf("a floored network: %+v, %v; want solved by gbfs in one expansion per step", recs, err)
	}
	if recs, err = run(plain, "-no-floor"); err != nil || len(recs) != 2 || recs[1].Solved && recs[1].Expansions <= int64(recs[1].Length) {
		t.Errorf("a floored network, -no-floor: %+v, %v; want the blind search of h = 0 for the target -20", recs, err)
	}

	found := false
	for _, d := range Shipped() {
		if d.Name() == "rubiks" {
			found = d.d.caps().floor
		}
	}
	if !found {
		t.Error("the rubiks domain does not floor a network's heuristic")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "NetworkFloor") {
			t.Errorf("panic %v, want one about NetworkFloor", r)
		}
	}()
	NewDomain[int]("line", parseLines, NetworkFloor())
}
