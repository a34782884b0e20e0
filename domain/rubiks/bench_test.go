package rubiks

import (
	"bytes"
	"strings"
	"testing"
)

// BenchmarkApply applies the 12 actions to a cube: ns/op is for 12.
func BenchmarkApply(b *testing.B) {
	s := mustParse(b, exampleCube)
	var sink State
	b.ReportAllocs()
	for b.Loop() {
		for a := range NumActions {
			c, _ := Apply(s, a)
			sink.corners ^= c.corners
			sink.edges ^= c.edges
		}
	}
	_ = sink
}

// BenchmarkApplyWalk applies one action at a time along a walk that
// depends on the cube, so that each Apply waits for the last.
func BenchmarkApplyWalk(b *testing.B) {
	s := mustParse(b, exampleCube)
	b.ReportAllocs()
	for b.Loop() {
		s, _ = Apply(s, int((s.corners^s.edges>>7)%NumActions))
	}
}

// BenchmarkHeuristic evaluates the heuristic of the cubes along a walk,
// after the pattern database is built.
func BenchmarkHeuristic(b *testing.B) {
	cornerTable()
	benchWalk(b, (*Problem).Heuristic)
}

// benchWalk times h of the cubes along a pseudo-random walk from
// exampleCube.
func benchWalk(b *testing.B, h func(*Problem, State) float64) {
	s := mustParse(b, exampleCube)
	p := &Problem{start: s}
	sum := 0.0
	b.ReportAllocs()
	for b.Loop() {
		sum += h(p, s)
		s, _ = Apply(s, int((s.corners^s.edges>>7)%NumActions))
	}
	_ = sum
}

func BenchmarkEncode(b *testing.B) {
	p := &Problem{start: mustParse(b, exampleCube)}
	c, h, w := p.InputShape()
	dst := make([]float32, c*h*w)
	b.ReportAllocs()
	for b.Loop() {
		p.Encode(p.Root(), dst)
	}
}

func BenchmarkParse(b *testing.B) {
	in := strings.Repeat(exampleCube+"\n", 100)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(strings.NewReader(in), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	ps, err := Parse(strings.NewReader(strings.Repeat(exampleCube+"\n", 100)), "bench")
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := Write(&buf, ps); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEstimate evaluates Estimate along a walk, after the pattern
// databases are built.
func BenchmarkEstimate(b *testing.B) {
	cornerTable()
	edgeTable()
	benchWalk(b, (*Problem).Estimate)
}
