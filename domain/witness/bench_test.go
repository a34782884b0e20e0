package witness

import (
	"bytes"
	"math/rand/v2"
	"os"
	"testing"
)

// benchLine returns a 4x4 puzzle of the test set and a line of 10 moves on
// it whose tip is on the exit.
func benchLine(b *testing.B) (*Problem, State) {
	p := read(b, "testdata/small.txt")[1]
	s, ok := play(p, "RRRRUULLLL")
	if !ok {
		b.Fatal("illegal line")
	}
	p.exit = p.tip(s)
	return p, s
}

func BenchmarkApply(b *testing.B) {
	p, s := benchLine(b)
	p.ContinueAtExit = true
	for b.Loop() {
		for a := range 4 {
			p.Apply(s, a)
		}
	}
}

func BenchmarkIsGoal(b *testing.B) {
	p, s := benchLine(b)
	for b.Loop() {
		p.IsGoal(s)
	}
}

func BenchmarkHeuristic(b *testing.B) {
	p, s := benchLine(b)
	for b.Loop() {
		p.Heuristic(s)
	}
}

func BenchmarkEncode(b *testing.B) {
	p, s := benchLine(b)
	c, h, w := p.InputShape()
	dst := make([]float32, c*h*w)
	for b.Loop() {
		p.Encode(s, dst)
	}
}

func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(testSet(b))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(data), "test.txt"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	ps, err := ReadFile(testSet(b))
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := Write(&buf, ps); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

func BenchmarkGenerate(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for b.Loop() {
		Generate(rng, 4, 4)
	}
}

// BenchmarkSolve counts the lines of a 4x4 puzzle explored by a depth-first
// search for a solution.
func BenchmarkSolve(b *testing.B) {
	p := read(b, "testdata/small.txt")[1]
	for b.Loop() {
		if solve(p) == nil {
			b.Fatal("no solution")
		}
	}
}
