package scrambles

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/phs-go/phs/domain/rubiks"
	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

// A problem is a problem of a puzzle as the network reads it: it encodes
// states, and its heuristic, a lower bound, is -floor's.
type problem[S comparable] interface {
	search.Encoder[S]
	search.Heuristic[S]
}

// A puzzle is what the command needs of a domain whose states have type
// S: its goal, its moves (action a^1 undoes action a), random scrambles
// from the goal, a problem that encodes its states for the network, and
// its files of validation problems.
type puzzle[S comparable] struct {
	domain  string // as model.Config.Domain
	goal    S
	actions int
	apply   func(s S, a int) (S, bool)
	// scramble returns the legal actions of a walk from the goal of a
	// length drawn uniformly from [minLen, maxLen], none of which undoes
	// the one before it.
	scramble func(rng *rand.Rand, minLen, maxLen int) []int
	problem  problem[S]
	// read reads a file of validation problems of the puzzle; write
	// returns a file that read reads as the same problems.
	read  func(name string) ([]search.Problem[S], error)
	write func(ps []search.Problem[S]) ([]byte, error)
	// config returns a fresh network's configuration for alg, with units
	// and blocks for a ResNet.
	config func(alg search.Algorithm, units, blocks int) model.Config
}

// cube returns the Rubik's cube: a ResNet of units and blocks.
func cube() *puzzle[rubiks.State] {
	p, _ := rubiks.NewState(rubiks.Solved(), "") // the solved cube is legal
	return &puzzle[rubiks.State]{
		domain: "rubiks", goal: rubiks.Solved(), actions: rubiks.NumActions,
		apply:    rubiks.Apply,
		scramble: rubiks.Scramble,
		problem:  p,
		read: func(name string) ([]search.Problem[rubiks.State], error) {
			ps, err := rubiks.ReadFile(name)
			return problems(ps), err
		},
		write: writer[rubiks.State](rubiks.Write),
		config: func(alg search.Algorithm, units, blocks int) model.Config {
			c := model.ConfigFor[rubiks.State]("rubiks", alg, p)
			c.Arch, c.Units, c.Blocks = model.ResNet, units, blocks
			return c
		},
	}
}

// slidingTiles returns the sliding-tile puzzle of rows×cols cells (stp's
// LargeState, whatever the size): the paper's convolutional network.
func slidingTiles(rows, cols int) (*puzzle[stp.LargeState], error) {
	if err := stp.CheckSize[stp.LargeState](rows, cols); err != nil {
		return nil, err
	}
	tiles := make([]int, rows*cols)
	for i := range tiles {
		tiles[i] = i
	}
	p, err := stp.New[stp.LargeState](rows, cols, tiles, "")
	if err != nil {
		return nil, err
	}
	return &puzzle[stp.LargeState]{
		domain: "stp", goal: p.Goal(), actions: p.NumActions(),
		apply: p.Apply,
		scramble: func(rng *rand.Rand, minLen, maxLen int) []int {
			return walk(rng, p, minLen+rng.IntN(maxLen-minLen+1))
		},
		problem: p,
		read: func(name string) ([]search.Problem[stp.LargeState], error) {
			ps, err := stp.ReadFile[stp.LargeState](name)
			for _, q := range ps {
				if err == nil && (q.Rows != rows || q.Cols != cols) {
					err = fmt.Errorf("%s: %s is a %dx%d board; want %dx%d", name, q.ID, q.Rows, q.Cols, rows, cols)
				}
			}
			return problems(ps), err
		},
		write: writer[stp.LargeState](stp.Write[stp.LargeState]),
		config: func(alg search.Algorithm, _, _ int) model.Config {
			return model.ConfigFor[stp.LargeState]("stp", alg, p)
		},
	}, nil
}

// walk returns the actions of a walk of n moves of the blank from the
// goal of p, each drawn uniformly from the legal moves other than the one
// that undoes the move before (stp.GenerateWalk's walk).
func walk(rng *rand.Rand, p *stp.Problem[stp.LargeState], n int) []int {
	s, prev := p.Goal(), -2
	actions := make([]int, 0, n)
	var legal [4]int
	for len(actions) < n {
		k := 0
		for a := range p.NumActions() {
			if _, ok := p.Apply(s, a); ok && a != prev^1 {
				legal[k] = a
				k++
			}
		}
		a := legal[rng.IntN(k)]
		s, _ = p.Apply(s, a)
		actions = append(actions, a)
		prev = a
	}
	return actions
}

// writer returns the puzzle's write of a domain's writer of problems of
// type P.
func writer[S comparable, P search.Problem[S]](write func(io.Writer, []P) error) func([]search.Problem[S]) ([]byte, error) {
	return func(ps []search.Problem[S]) ([]byte, error) {
		typed := make([]P, len(ps))
		for i, p := range ps {
			typed[i] = p.(P)
		}
		var b bytes.Buffer
		err := write(&b, typed)
		return b.Bytes(), err
	}
}

// problems returns ps as search problems.
func problems[S comparable, P search.Problem[S]](ps []P) []search.Problem[S] {
	out := make([]search.Problem[S], len(ps))
	for i, p := range ps {
		out[i] = p
	}
	return out
}
