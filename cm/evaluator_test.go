package cm

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// randomTable returns a table of p's layout that knows the contexts of
// about half of p's states, with random parameters in the box.
func randomTable(t testing.TB, p *grid, rng *rand.Rand) *Table {
	l, err := LayoutOf[int32](p)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := NewTable(l, DefaultEpsLow)
	if err != nil {
		t.Fatal(err)
	}
	codes := make([]uint64, len(l.Sizes))
	for s := range int32(p.W * p.H) {
		if rng.IntN(2) == 0 {
			continue
		}
		p.Contexts(s, -1, s, codes)
		for set, code := range codes {
			if rng.IntN(2) == 0 {
				tb.addRow(set, code)
			}
		}
	}
	lo, _ := tb.Bounds()
	for i := range tb.beta {
		tb.beta[i] = lo * rng.Float64()
	}
	return tb
}

// TestEvaluatorProductOfExperts compares the policy with the product of
// the experts exp(β) of the known contexts, normalised and mixed (a
// learner's snapshot of an earlier phs mixes it), computed directly in the
// probability domain.
func TestEvaluatorProductOfExperts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, task := range grids(5, 3) {
		p := task.Problem.(*grid)
		tb := randomTable(t, p, rng)
		for _, mix := range []float64{0, DefaultTrainMix, 0.3} {
			ev := &Evaluator[int32]{t: tb, mix: mix}
			if err := ev.Check(p); err != nil {
				t.Fatal(err)
			}
			n := p.W * p.H
			states := make([]int32, n)
			for i := range states {
				states[i] = int32(i)
			}
			logPi, h := make([]float64, 4*n), make([]float64, n)
			for i := range h {
				h[i] = 7
			}
			if err := ev.Evaluate(p, states, logPi, h); err != nil {
				t.Fatal(err)
			}
			codes := make([]uint64, 15)
			for i, s := range states {
				p.Contexts(s, -1, s, codes)
				w := []float64{1, 1, 1, 1}
				known := false
				for set, code := range codes {
					r := tb.Row(set, code)
					if r < 0 {
						continue
					}
					known = true
					for a, b := range tb.Beta(r) {
						w[a] *= math.Exp(b)
					}
				}
				sum := w[0] + w[1] + w[2] + w[3]
				for a := range w {
					want := w[a] / sum
					if known {
						want = (1-mix)*want + mix/4
					}
					if got := math.Exp(logPi[4*i+a]); math.Abs(got-want) > 1e-12*max(1, want/1e-6) {
						t.Fatalf("mix %g, state %d, action %d: π = %g, want %g", mix, s, a, got, want)
					}
				}
				if h[i] != 0 {
					t.Fatalf("h = %g, want 0", h[i])
				}
			}
		}
	}
}

// TestEvaluatorEmptyTable checks that an empty table gives the uniform
// policy without asking the problem for contexts.
func TestEvaluatorEmptyTable(t *testing.T) {
	tb, err := NewTable(Layout{Name: "x", Actions: 4, Sizes: []uint64{3}}, DefaultEpsLow)
	if err != nil {
		t.Fatal(err)
	}
	ev := &Evaluator[int32]{t: tb, mix: DefaultTrainMix}
	m := searchtest.ParseMaze("S.G") // no contexts
	logPi, h := make([]float64, 8), []float64{1, 1}
	if err := ev.Evaluate(m, []int32{0, 1}, logPi, h); err != nil {
		t.Fatal(err)
	}
	for _, l := range logPi {
		if l != -math.Log(4) {
			t.Fatalf("log π = %v, want uniform", logPi)
		}
	}
	if err := ev.Check(m); err == nil || !strings.Contains(err.Error(), "no contexts") {
		t.Errorf("Check of a problem without contexts: %v", err)
	}
}

// TestEvaluatorCheck checks that a table refuses the problems of another
// layout, saying why.
func TestEvaluatorCheck(t *testing.T) {
	p := grids(1, 1)[0].Problem.(*grid)
	l, _ := LayoutOf[int32](p)
	for _, c := range []struct {
		edit func(*Layout)
		want string
	}{
		{func(l *Layout) { l.Name = "stp 5x5 v1" }, "context set"},
		{func(l *Layout) { l.Actions = 5 }, "actions"},
		{func(l *Layout) { l.Sizes = l.Sizes[1:] }, "mutex sets"},
		{func(l *Layout) { l.Sizes[3]++ }, "code ranges"},
	} {
		m := l
		m.Sizes = append([]uint64(nil), l.Sizes...)
		c.edit(&m)
		tb, err := NewTable(m, DefaultEpsLow)
		if err != nil {
			t.Fatal(err)
		}
		ev := NewEvaluator[int32](tb)
		if err := ev.Check(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: Check: %v, want an error about %s", m, err, c.want)
		}
	}
	for _, bad := range []Layout{
		{Name: "", Actions: 4, Sizes: []uint64{1}},
		{Name: "x", Actions: 0, Sizes: []uint64{1}},
		{Name: "x", Actions: 4},
		{Name: "x", Actions: 4, Sizes: []uint64{1, 0}},
	} {
		if _, err := NewTable(bad, DefaultEpsLow); err == nil {
			t.Errorf("NewTable(%+v) succeeds", bad)
		}
	}
	for _, eps := range []float64{0, 1, -1, math.NaN()} {
		if _, err := NewTable(l, eps); err == nil {
			t.Errorf("NewTable with εlow %g succeeds", eps)
		}
	}
}

// TestTableIndex checks the dense and sparse indexes, the new rows at β0
// and that a clone is independent.
func TestTableIndex(t *testing.T) {
	tb, err := NewTable(Layout{Name: "x", Actions: 12, Sizes: []uint64{5, 1 << 62}}, DefaultEpsLow)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tb.Beta0(), (1-1.0/12)*math.Log(1e-4); math.Abs(got-want) > 1e-12 || math.Abs(want+8.4428) > 1e-4 {
		t.Errorf("β0 = %g, want %g ≈ -8.4428", got, want)
	}
	ctx := [][2]uint64{{0, 4}, {1, 1<<62 - 1}, {0, 0}, {1, 0}, {1, 4}}
	for i, c := range ctx {
		if r := tb.addRow(int(c[0]), c[1]); r != int32(i) {
			t.Fatalf("addRow%v = %d, want %d", c, r, i)
		}
		if r := tb.addRow(int(c[0]), c[1]); r != int32(i) {
			t.Fatalf("addRow%v again = %d, want %d", c, r, i)
		}
	}
	c := tb.Clone()
	c.addRow(0, 1)
	c.beta[0] = 0
	for i, x := range ctx {
		if r := tb.Row(int(x[0]), x[1]); r != i {
			t.Errorf("Row%v = %d, want %d", x, r, i)
		}
		if set, code := tb.Context(i); set != int(x[0]) || code != x[1] {
			t.Errorf("Context(%d) = %d, %d", i, set, code)
		}
	}
	if tb.Row(0, 1) != -1 || tb.Row(0, 5) != -1 || tb.Row(1, 3) != -1 || tb.Rows() != 5 || c.Rows() != 6 {
		t.Error("the clone shares the index")
	}
	for _, b := range tb.beta {
		if b != tb.Beta0() {
			t.Fatal("the clone shares the parameters")
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("addRow of a code out of range does not panic")
		}
	}()
	tb.addRow(0, 5)
}

// TestTablePrune checks that a pruned table keeps exactly the rows that
// spread by more than tol, with their parameters, and that in every state
// the log-ratio of two actions' probabilities moves by at most the
// spreads of the dropped rows of its contexts; rows of equal parameters
// change no policy.
func TestTablePrune(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	p := grids(1, 21)[0].Problem.(*grid)
	tb := randomTable(t, p, rng)
	A := tb.layout.Actions
	// A third of the rows with equal parameters, a third nearly equal.
	for r := range tb.Rows() {
		row := tb.beta[r*A : (r+1)*A]
		switch r % 3 {
		case 0:
			for a := range row {
				row[a] = row[0]
			}
		case 1:
			for a := range row {
				row[a] = row[0] - 0.05*rng.Float64()
			}
		}
	}
	codes := make([]uint64, len(tb.layout.Sizes))
	z, out, zp, outp := make([]float64, A), make([]float64, A), make([]float64, A), make([]float64, A)
	for _, tol := range []float64{0, 0.05, 0.5} {
		pr := tb.Prune(tol)
		kept := 0
		for r := range tb.Rows() {
			b := tb.Beta(r)
			set, code := tb.Context(r)
			pr := pr.Row(set, code)
			if spread := slices.Max(b) - slices.Min(b); spread > tol {
				kept++
				if pr < 0 || !slices.Equal(tb.Beta(r), b) {
					t.Fatalf("tol %g: row %d (spread %g) lost or changed", tol, r, spread)
				}
			} else if pr >= 0 {
				t.Fatalf("tol %g: row %d of spread %g kept", tol, r, spread)
			}
		}
		if pr.Rows() != kept || pr.EpsLow() != tb.EpsLow() || !pr.layout.equal(tb.layout) {
			t.Fatalf("tol %g: %d rows, want %d; εlow %g; layout %+v", tol, pr.Rows(), kept, pr.EpsLow(), pr.layout)
		}
		for s := range int32(p.W * p.H) {
			p.Contexts(s, -1, s, codes)
			bound := 1e-12
			for set, code := range codes {
				if r := tb.Row(set, code); r >= 0 && pr.Row(set, code) < 0 {
					b := tb.Beta(r)
					bound += slices.Max(b) - slices.Min(b)
				}
			}
			tb.logPolicy(codes, 0, z, out)
			pr.logPolicy(codes, 0, zp, outp)
			for a := range A {
				for b := range A {
					if d := math.Abs((out[a] - out[b]) - (outp[a] - outp[b])); d > bound {
						t.Fatalf("tol %g, state %d: log π(%d)/π(%d) moved by %g, more than %g", tol, s, a, b, d, bound)
					}
				}
			}
		}
	}
}

// TestEvaluatorAllocs checks that Evaluate allocates nothing once warm.
func TestEvaluatorAllocs(t *testing.T) {
	p := grids(1, 5)[0].Problem.(*grid)
	tb := randomTable(t, p, rand.New(rand.NewPCG(3, 3)))
	ev := &Evaluator[int32]{t: tb, mix: DefaultTrainMix}
	states := []int32{0, 7, 14, 21, 28, 35}
	logPi, h := make([]float64, 4*len(states)), make([]float64, len(states))
	var prob search.Problem[int32] = p
	if n := testing.AllocsPerRun(100, func() {
		if err := ev.Evaluate(prob, states, logPi, h); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per Evaluate", n)
	}
}

// BenchmarkEvaluate measures the policy of the test grid (15 contexts
// per state, 4 actions) at batch 32.
func BenchmarkEvaluate(b *testing.B) {
	p := grids(1, 5)[0].Problem.(*grid)
	tb := randomTable(b, p, rand.New(rand.NewPCG(3, 3)))
	ev := &Evaluator[int32]{t: tb, mix: DefaultTrainMix}
	states := make([]int32, 32)
	for i := range states {
		states[i] = int32(i)
	}
	logPi, h := make([]float64, 4*len(states)), make([]float64, len(states))
	for b.Loop() {
		if err := ev.Evaluate(p, states, logPi, h); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(states)*b.N)/b.Elapsed().Seconds(), "states/s")
}

// TestTableDenseBound checks that the dense indexes stop growing at
// maxDenseCells entries, the other sets falling back to maps, with the
// same rows.
func TestTableDenseBound(t *testing.T) {
	sets := maxDenseCells/denseLimit + 3
	l := Layout{Name: "x", Actions: 2}
	for range sets {
		l.Sizes = append(l.Sizes, denseLimit)
	}
	tb, err := NewTable(l, DefaultEpsLow)
	if err != nil {
		t.Fatal(err)
	}
	for set := range sets {
		tb.addRow(set, uint64(set))
	}
	if tb.denseCells != maxDenseCells || tb.index[sets-1].dense != nil || tb.index[sets-1].sparse == nil {
		t.Errorf("%d dense entries", tb.denseCells)
	}
	c := tb.Clone()
	c.addRow(sets-1, 7)
	for set := range sets {
		if tb.Row(set, uint64(set)) != set || c.Row(set, uint64(set)) != set || tb.Row(set, 1<<13+1) != -1 {
			t.Fatalf("set %d: rows %d, %d", set, tb.Row(set, uint64(set)), c.Row(set, uint64(set)))
		}
	}
	if c.Row(sets-1, 7) != sets || tb.Row(sets-1, 7) != -1 {
		t.Error("the clone shares a map")
	}
}
