package model

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/nn"
	"github.com/phs-go/phs/search"
)

// flops returns the multiply-adds ×2 of a forward pass of one state.
func flops(m *Model) float64 {
	c := m.cfg
	var f float64
	var flat int
	switch c.Arch {
	case Conv:
		f = 2 * float64(c.Filters*m.conv1.OutH()*m.conv1.OutW()*c.Channels*c.Kernel*c.Kernel)
		f += 2 * float64(c.Filters*m.conv2.OutH()*m.conv2.OutW()*c.Filters*c.Kernel*c.Kernel)
		flat = c.Filters * m.conv2.OutH() * m.conv2.OutW()
	case ResNet:
		f = 2 * float64(c.Channels*c.Height*c.Width*c.Units+2*c.Blocks*c.Units*c.Units)
		flat = c.Units
	}
	if m.pol1 != nil {
		f += 2 * float64(flat*c.Hidden+c.Hidden*c.Actions)
	}
	if m.heu1 != nil {
		f += 2 * float64(flat*c.Hidden+c.Hidden)
	}
	return f
}

// benchShapes are the networks of the benchmarks: the paper's conv
// networks, ResNets on the 24-puzzle's encoding of the default sizes (128
// units, 2 blocks) and of 512 units and 4 blocks, and the Rubik's cube's
// ResNet of the run rubiks-davi (lab/rubiks-curriculum/davi: 256 units,
// 4 blocks, 12 actions).
var benchShapes = []struct {
	name          string
	c, h, w       int
	arch          Arch
	units, blocks int
	actions       int
	lit           int // BenchmarkTrainStep's pixels with a 1
}{
	{"sokoban", 4, 10, 10, Conv, 0, 0, 4, 100}, {"witness", 9, 9, 9, Conv, 0, 0, 4, 81}, {"stp", 25, 5, 5, Conv, 0, 0, 4, 25},
	{"stp-resnet", 25, 5, 5, ResNet, 0, 0, 4, 25}, {"stp-resnet512", 25, 5, 5, ResNet, 512, 4, 4, 25},
	{"rubiks-resnet256", 6, 9, 12, ResNet, 256, 4, 12, 54},
}

// benchConfig returns the two-headed network of benchShapes[i].
func benchConfig(i int) Config {
	s := benchShapes[i]
	return Config{Domain: s.name, Algorithm: search.PHSh(), Heads: Both, PolicyLoss: Levin, HeuristicLoss: SquaredError,
		Channels: s.c, Height: s.h, Width: s.w, Actions: s.actions, Arch: s.arch, Units: s.units, Blocks: s.blocks}
}

// BenchmarkForward measures the two-headed networks on one goroutine at
// batch 32 (sub-benchmarks BACKEND/NETWORK, the names of earlier
// versions) and at batch 1 (BACKEND/NETWORK/batch=1): states/s and the
// GFLOP/s reached. Its first sub-benchmark logs nn.BackendInfo().
func BenchmarkForward(b *testing.B) {
	logged := false
	for i, s := range benchShapes {
		m, err := New(benchConfig(i), 1)
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 1))
		const maxN = 32
		x := make([]float32, maxN*s.c*s.h*s.w)
		for i := range x {
			if rng.IntN(4) == 0 {
				x[i] = 1
			}
		}
		for _, n := range []int{maxN, 1} {
			name := fmt.Sprintf("%s/%s", nn.Backend(), s.name)
			if n != maxN {
				name += fmt.Sprintf("/batch=%d", n)
			}
			b.Run(name, func(b *testing.B) {
				if !logged {
					b.Logf("backend: %s", nn.BackendInfo())
					logged = true
				}
				var ws workspace
				m.forward(&ws, x, n) // sizes the scratch memory
				for b.Loop() {
					m.forward(&ws, x, n)
				}
				sec := b.Elapsed().Seconds()
				b.ReportMetric(float64(n*b.N)/sec, "states/s")
				b.ReportMetric(flops(m)*float64(n*b.N)/sec/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkTrainStep measures one Adam step of a two-headed network on a
// trajectory of 32 states, and of 1,024 (n=1024), as the value iteration
// of lab/cmd/scrambles takes them; each state has a 1 in one random
// channel of each of its first pixels, as many as the domain's encoding
// has (the cube: 54 facelets), and 0s elsewhere: one-hot where at most
// one in oneHotShare of the values is a 1 (all but Sokoban's). (Its
// GFLOP/s are those of the dense products, which a one-hot pass does
// without.)
func BenchmarkTrainStep(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	type run struct{ shape, threads, n int }
	var runs []run
	for i := range benchShapes {
		for _, threads := range []int{1, 2} {
			runs = append(runs, run{i, threads, 32}, run{i, threads, 1024})
		}
	}
	for _, r := range runs {
		i, s, threads, n := r.shape, benchShapes[r.shape], r.threads, r.n
		m, _ := New(benchConfig(i), 1)
		smp := Sample{Inputs: make([]float32, n*s.c*s.h*s.w), Actions: make([]int, n), CostToGo: make([]float32, n), Expansions: 100}
		for i := range n {
			for px := range s.lit {
				smp.Inputs[(i*s.c+rng.IntN(s.c))*s.h*s.w+px] = 1
			}
			smp.Actions[i] = i % 4
			smp.CostToGo[i] = float32(n - i)
		}
		tr := NewTrainer(m, TrainConfig{L2: 1e-3, Threads: threads})
		tr.Step(smp) // sizes the scratch memory
		name := fmt.Sprintf("%s/%s", nn.Backend(), s.name)
		if threads > 1 {
			name += fmt.Sprintf("/threads=%d", threads)
		}
		if n != 32 {
			name += fmt.Sprintf("/n=%d", n)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := tr.Step(smp); err != nil {
					b.Fatal(err)
				}
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(n*b.N)/sec, "states/s")
			// Backward costs about twice the forward's multiply-adds
			// (the first layer computes no input gradient).
			b.ReportMetric(3*flops(m)*float64(n*b.N)/sec/1e9, "~GFLOP/s")
		})
	}
}

// BenchmarkClone measures a copy of the Sokoban network, as an
// asynchronous run publishes one after every group's update.
func BenchmarkClone(b *testing.B) {
	m, err := New(Config{Domain: "sokoban", Algorithm: search.PHSStar(), Heads: Both, PolicyLoss: Levin, HeuristicLoss: SquaredError, Channels: 4, Height: 10, Width: 10, Actions: 4}, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		m.Clone()
	}
}

// BenchmarkEvaluator measures Evaluator.Evaluate on 32 random 5×5
// puzzles' states with the paper's stp network, its heuristic as it is
// and floored at the Manhattan distance (Config.Floor): the floor's cost
// beside the encoding and the network's. Neither allocates.
func BenchmarkEvaluator(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	p := stp.GenerateRandom[stp.State](rng, 5, 5)
	states := make([]stp.State, 32)
	for i := range states {
		states[i] = stp.GenerateRandom[stp.State](rng, 5, 5).Root()
	}
	for _, floor := range []bool{false, true} {
		b.Run(fmt.Sprint("floor=", floor), func(b *testing.B) {
			cfg := benchConfig(2)
			cfg.Domain, cfg.Floor = "stp", floor
			m, err := New(cfg, 1)
			if err != nil {
				b.Fatal(err)
			}
			ev := NewEvaluator[stp.State](m)
			logPi, h := make([]float64, 4*len(states)), make([]float64, len(states))
			if err := ev.Evaluate(p, states, logPi, h); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				ev.Evaluate(p, states, logPi, h)
			}
			b.ReportMetric(float64(len(states)*b.N)/b.Elapsed().Seconds(), "states/s")
		})
	}
}
