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

// TestNetworkFloor checks that a network trained with -floor floors its
// heuristic (model.Config.Floor): GBFS with a network whose h is 0
// everywhere heads straight for the target, as with the problems'
// heuristic, and wanders without the floor (-no-floor); that a network
// without the floor reads its own h; and that -no-floor is refused
// without a floored network.
func TestNetworkFloor(t *testing.T) {
	d := NewDomain[int]("mline", parseMeasuredLines)
	file := writeFile(t, "lines.txt", "30\n-20\n")
	cfg := model.ConfigFor[int]("mline", search.GBFS(), measuredLine{})
	cfg.Arch, cfg.Units, cfg.Blocks = model.ResNet, 8, 1
	save := func(floor bool) string {
		cfg.Floor = floor
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
		return dir
	}
	floored, plain := save(true), save(false)
	run := func(dir string, args ...string) ([]report.Record, error) {
		var o strings.Builder
		err := Run(context.Background(), append(append([]string{"solve", "-domain", "mline", "-model", dir, "-batch", "1", "-budget", "1000", "-progress", "0"}, args...), file), &o, io.Discard, d)
		if err != nil {
			return nil, err
		}
		return decodeRecords(t, o.String()), nil
	}
	straight := func(recs []report.Record) bool {
		for _, r := range recs {
			if !r.Solved || r.Algorithm != "gbfs" || r.Expansions > int64(r.Length) {
				return false
			}
		}
		return len(recs) == 2
	}
	if recs, err := run(floored); err != nil || !straight(recs) {
		t.Errorf("a floored network: %+v, %v; want both solved by gbfs in one expansion per step", recs, err)
	}
	// h = 0 ties every node: the search goes one way first, straight to
	// one target and away from the other.
	for _, c := range []struct {
		dir  string
		args []string
	}{{floored, []string{"-no-floor"}}, {plain, nil}} {
		if recs, err := run(c.dir, c.args...); err != nil || len(recs) != 2 || recs[1].Solved && recs[1].Expansions <= int64(recs[1].Length) {
			t.Errorf("floored %v, %q: %+v, %v; want the blind search of h = 0 for the target -20", c.dir == floored, c.args, recs, err)
		}
	}
	if _, err := run(plain, "-no-floor"); exitCode(err) != 2 || !strings.Contains(err.Error(), "floors") {
		t.Errorf("-no-floor without a floored network: %v, want a usage error", err)
	}
	if err := Run(context.Background(), []string{"solve", "-domain", "mline", "-no-floor", "-progress", "0", file}, io.Discard, io.Discard, d); exitCode(err) != 2 {
		t.Errorf("-no-floor without a network: %v, want a usage error", err)
	}

	// phs train -floor writes the floor into the network's configuration.
	run2 := filepath.Join(t.TempDir(), "run")
	var errOut strings.Builder
	if err := Run(context.Background(), []string{"train", "-domain", "mline", "-alg", "gbfs", "-floor", "-iterations", "1", "-budget", "1000", "-progress", "0", "-dir", run2, file}, io.Discard, &errOut, d); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if cfg := checkpointConfig(t, run2); !strings.Contains(cfg, `"floor": true`) {
		t.Errorf("the network of a run with -floor does not say so:\n%s", cfg)
	}
}
