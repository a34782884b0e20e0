package stp

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/phs-go/phs/search"
)

const bench5x5 = "10 5 0 18 4 1 23 13 14 9 20 17 11 21 2 6 15 19 22 3 12 16 8 24 7\n"

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		mustParse[State](b, bench5x5)
	}
}

// BenchmarkParseTestSet parses the paper's 1000 test puzzles.
func BenchmarkParseTestSet(b *testing.B) {
	realTest := realTest(b)
	data, err := os.ReadFile(realTest)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse[State](bytes.NewReader(data), realTest); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApply applies the four actions to a state (some illegal).
func BenchmarkApply(b *testing.B) {
	p := mustParse[State](b, bench5x5)[0]
	s := p.Root()
	var sink State
	b.ReportAllocs()
	for b.Loop() {
		for a := range 4 {
			c, _ := p.Apply(s, a)
			sink.lo ^= c.lo
		}
	}
	_ = sink
}

// BenchmarkApplyWalk applies one legal action at a time along a walk, so
// that the blank visits every cell.
func BenchmarkApplyWalk(b *testing.B) {
	p := mustParse[State](b, bench5x5)[0]
	s := p.Root()
	a := 0
	b.ReportAllocs()
	for b.Loop() {
		c, ok := p.Apply(s, a)
		if ok {
			s = c
		}
		a = int((s.lo ^ s.hi>>7) % 4)
	}
}

func BenchmarkHeuristic(b *testing.B) {
	p := mustParse[State](b, bench5x5)[0]
	s := p.Root()
	h := 0.0
	b.ReportAllocs()
	for b.Loop() {
		h += p.Heuristic(s)
	}
	_ = h
}

func BenchmarkEncode(b *testing.B) {
	p := mustParse[State](b, bench5x5)[0]
	c, h, w := p.InputShape()
	dst := make([]float32, c*h*w)
	b.ReportAllocs()
	for b.Loop() {
		p.Encode(p.Root(), dst)
	}
}

func BenchmarkWrite(b *testing.B) {
	ps := mustParse[State](b, strings.Repeat(bench5x5, 100))
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := Write(&buf, ps); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEngineWAStar measures the best-first engine on the 5x5 puzzle
// with WA* (w = 3) and the Manhattan heuristic, with a reused solver.
func BenchmarkEngineWAStar(b *testing.B) {
	p := mustParse[State](b, bench5x5)[0]
	e, err := search.NewSolver[State](search.WAStar(3), search.DomainHeuristic[State]{}, search.Options{Budget: 200000})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var exp, gen int64
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.Solve(ctx, p)
		if err != nil {
			b.Fatal(err)
		}
		exp += res.Expansions
		gen += res.Generated
	}
	b.ReportMetric(float64(exp)/b.Elapsed().Seconds(), "exp/s")
	b.ReportMetric(float64(gen)/float64(b.N), "gen/op")
}

// BenchmarkEngineMemory reports the heap a solver holds after a WA*
// search of a 5x5 puzzle, per generated node.
func BenchmarkEngineMemory(b *testing.B) {
	p := mustParse[State](b, bench5x5)[0]
	var perNode float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		e, err := search.NewSolver[State](search.WAStar(3), search.DomainHeuristic[State]{}, search.Options{Budget: 200000})
		if err != nil {
			b.Fatal(err)
		}
		res, err := e.Solve(context.Background(), p)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perNode = float64(after.HeapAlloc-before.HeapAlloc) / float64(res.Generated)
		runtime.KeepAlive(e)
	}
	b.ReportMetric(perNode, "B/node")
}

// bench7x7 is a random 7x7 puzzle.
var bench7x7 = GenerateRandom[LargeState](rand.New(rand.NewPCG(7, 7)), 7, 7)

func BenchmarkLargeApply(b *testing.B) {
	p := bench7x7
	s := p.Root()
	var sink LargeState
	b.ReportAllocs()
	for b.Loop() {
		for a := range 4 {
			c, _ := p.Apply(s, a)
			sink.cells[0] ^= c.cells[a]
		}
	}
	_ = sink
}

func BenchmarkLargeHeuristic(b *testing.B) {
	p := bench7x7
	s := p.Root()
	h := 0.0
	b.ReportAllocs()
	for b.Loop() {
		h += p.Heuristic(s)
	}
	_ = h
}

func BenchmarkLargeEncode(b *testing.B) {
	p := bench7x7
	c, h, w := p.InputShape()
	dst := make([]float32, c*h*w)
	b.ReportAllocs()
	for b.Loop() {
		p.Encode(p.Root(), dst)
	}
}

// BenchmarkLargeEngineWAStar is BenchmarkEngineWAStar with the 5x5
// puzzle as a Problem[LargeState], for the cost of the larger state.
func BenchmarkLargeEngineWAStar(b *testing.B) {
	p5 := mustParse[State](b, bench5x5)[0]
	p, err := New[LargeState](5, 5, p5.Tiles(p5.Root()), "")
	if err != nil {
		b.Fatal(err)
	}
	e, err := search.NewSolver[LargeState](search.WAStar(3), search.DomainHeuristic[LargeState]{}, search.Options{Budget: 200000})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var exp, gen int64
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.Solve(ctx, p)
		if err != nil {
			b.Fatal(err)
		}
		exp += res.Expansions
		gen += res.Generated
	}
	b.ReportMetric(float64(exp)/b.Elapsed().Seconds(), "exp/s")
	b.ReportMetric(float64(gen)/float64(b.N), "gen/op")
}
