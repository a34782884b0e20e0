// Command imitate trains a Sokoban network on given solutions, such as
// the optimal ones of sokopt, with the learner of the Bootstrap process
// (bootstrap.Network), from a model or from a fresh PHS* network:
//
//	imitate -model DIR|new [-filters F] [-hidden H] -out DIR [-lr 1e-4] [-epochs 1] [-weight 1] [-symmetries 1] [-threads 1] LEVELS OPTIMA.jsonl [LEVELS OPTIMA.jsonl ...]
//
// With -model new, the network is the paper's for PHS* (model.ConfigFor),
// with deadlocks pruned, -filters filters and -hidden hidden units
// (the library's sizes for 0), its weights drawn with seed 1.
//
// Each pair names a file of levels and the JSONL records of sokopt on it
// (those with a "solution"; the others are skipped and counted). Every
// solution is replayed. Each epoch is one pass over all the solutions,
// shuffled, one Adam step a solution; -weight is the Levin loss's weight
// of a solution, the expansions that the Bootstrap process would have
// spent to find it. With -symmetries N, each solution is learnt on its
// level and on N-1 of the level's images under the symmetries of the
// square (rotations and mirror images), in the order of symmetric: N
// times the data, as the rules of Sokoban do not change under them. The
// model, with its heads and settings, is written to -out/epoch-N after
// epoch N.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"time"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/domain/sokoban"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "imitate:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("imitate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("model", "", `the model to start from, or "new" for a fresh PHS* network (required)`)
	filters := fs.Int("filters", 0, "with -model new: filters of each convolution (0: the library's)")
	hidden := fs.Int("hidden", 0, "with -model new: units of the hidden layer of each head (0: the library's)")
	out := fs.String("out", "", "the directory of the trained model (required)")
	lr := fs.Float64("lr", 1e-4, "Adam's learning rate (> 0)")
	epochs := fs.Int("epochs", 1, "passes over the solutions (> 0)")
	weight := fs.Int64("weight", 1, "the Levin loss's weight of a solution (> 0)")
	syms := fs.Int("symmetries", 1, "the symmetries of the square each solution is learnt under, 1 (itself) to 8 (all its rotations and mirror images)")
	threads := fs.Int("threads", 1, fmt.Sprintf("goroutines of a step, 1 to %d", model.MaxThreads))
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *from == "" || *out == "":
		return errors.New("-model and -out are required")
	case !(*lr > 0):
		return fmt.Errorf("-lr %g; want > 0", *lr)
	case *epochs < 1:
		return fmt.Errorf("-epochs %d; want > 0", *epochs)
	case *weight < 1:
		return fmt.Errorf("-weight %d; want > 0", *weight)
	case *syms < 1 || *syms > 8:
		return fmt.Errorf("-symmetries %d; want 1 to 8", *syms)
	case *threads < 1 || *threads > model.MaxThreads:
		return fmt.Errorf("-threads %d; want 1 to %d", *threads, model.MaxThreads)
	case fs.NArg() == 0 || fs.NArg()%2 != 0:
		return errors.New("want pairs of LEVELS OPTIMA.jsonl")
	case *from != "new" && (*filters != 0 || *hidden != 0):
		return errors.New("-filters and -hidden are for -model new")
	}
	var sols []bootstrap.Solution[sokoban.State]
	skipped := 0
	for i := 0; i < fs.NArg(); i += 2 {
		s, k, err := readSolutions(fs.Arg(i), fs.Arg(i+1), *weight, *syms, len(sols))
		if err != nil {
			return err
		}
		sols, skipped = append(sols, s...), skipped+k
	}
	m, err := startModel(*from, *filters, *hidden, fs.Arg(0))
	if err != nil {
		return err
	}
	n, err := bootstrap.NewNetwork[sokoban.State](m, bootstrap.NetworkConfig{LearningRate: *lr, Passes: 1, Seed: 1}, *threads)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "imitate: %d solutions (%d levels without one skipped)\n", len(sols), skipped)
	start := time.Now()
	shuffle := rand.New(rand.NewPCG(1, 2))
	for e := range *epochs {
		u, err := learn(ctx, n, sols, shuffle)
		if err != nil {
			return err
		}
		if err := model.Save(filepath.Join(*out, fmt.Sprintf("epoch-%d", e+1)), n.Model()); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "imitate: epoch %d: policy loss %.4f, heuristic loss %.4f, %d steps, %s\n",
			e+1, u.PolicyLoss/float64(u.Steps), u.HeuristicLoss/float64(u.Steps), u.Steps, time.Since(start).Round(time.Second))
	}
	return nil
}

// maxChunk is the most solutions given to one call of Learn, which
// encodes every state of its solutions first: about 1.6 KB a state of a
// 10x10 level, some 6 GB for maxChunk solutions.
const maxChunk = 100_000

// learn runs one epoch of n over sols: one call of n.Learn, which
// shuffles them, or, past maxChunk solutions, sols shuffled with shuffle
// and learnt in chunks of maxChunk.
func learn(ctx context.Context, n *bootstrap.Network[sokoban.State], sols []bootstrap.Solution[sokoban.State], shuffle *rand.Rand) (bootstrap.Update, error) {
	if len(sols) <= maxChunk {
		return n.Learn(ctx, sols)
	}
	shuffle.Shuffle(len(sols), func(i, j int) { sols[i], sols[j] = sols[j], sols[i] })
	var u bootstrap.Update
	for c := range slices.Chunk(sols, maxChunk) {
		v, err := n.Learn(ctx, c)
		u.Steps, u.PolicyLoss, u.HeuristicLoss = u.Steps+v.Steps, u.PolicyLoss+v.PolicyLoss, u.HeuristicLoss+v.HeuristicLoss
		if err != nil {
			return u, err
		}
	}
	return u, nil
}

// startModel loads the model at from, or returns a fresh PHS* network for
// the levels of the file levels (model.ConfigFor, deadlocks pruned) of the
// given sizes for from "new".
func startModel(from string, filters, hidden int, levels string) (*model.Model, error) {
	if from != "new" {
		return model.Load(from)
	}
	ps, err := sokoban.ReadFile(levels)
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("%s: no levels", levels)
	}
	cfg := model.ConfigFor[sokoban.State]("sokoban", search.PHSStar(), ps[0])
	cfg.Filters, cfg.Hidden, cfg.PruneDeadlocks = filters, hidden, true
	return model.New(cfg, 1)
}

// readSolutions returns the solutions of the records of sokopt in optima
// on the levels of file levels, numbered from first, each of weight w,
// and the number of records without one. Each solution comes syms times:
// on its level and on the images of the level under the symmetries 1 to
// syms-1 (see symmetric).
func readSolutions(levels, optima string, w int64, syms, first int) ([]bootstrap.Solution[sokoban.State], int, error) {
	ps, err := sokoban.ReadFile(levels)
	if err != nil {
		return nil, 0, err
	}
	byID := make(map[string]*sokoban.Problem, len(ps))
	for _, p := range ps {
		byID[p.ID] = p
	}
	f, err := os.Open(optima)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var sols []bootstrap.Solution[sokoban.State]
	skipped := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var r struct {
			Problem  string `json:"problem"`
			Solution string `json:"solution"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, 0, fmt.Errorf("%s:%d: %w", optima, line, err)
		}
		p := byID[r.Problem]
		switch {
		case p == nil:
			return nil, 0, fmt.Errorf("%s:%d: level %q is not in %s", optima, line, r.Problem, levels)
		case r.Solution == "":
			skipped++
			continue
		}
		for sym := range syms {
			q, moves := p, r.Solution
			if sym > 0 {
				var err error
				if q, moves, err = symmetric(p, r.Solution, sym); err != nil {
					return nil, 0, fmt.Errorf("%s:%d: %s: symmetry %d: %w", optima, line, r.Problem, sym, err)
				}
			}
			tr, err := replay(q, moves, w)
			if err != nil {
				return nil, 0, fmt.Errorf("%s:%d: %s: %w", optima, line, q.ID, err)
			}
			sols = append(sols, bootstrap.Solution[sokoban.State]{Index: first + len(sols), Problem: q, Trajectory: tr})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", optima, err)
	}
	return sols, skipped, nil
}

// replay returns the trajectory of moves on level p, of weight w, or an
// error if they do not solve it.
func replay(p *sokoban.Problem, moves string, w int64) (*search.Trajectory[sokoban.State], error) {
	actions, err := search.ParseActions(p, moves)
	if err != nil {
		return nil, err
	}
	tr := &search.Trajectory[sokoban.State]{Expansions: w, NodeLoss: 1, Actions: actions}
	s := p.Root()
	for i, a := range actions {
		next, ok := p.Apply(s, a)
		if !ok {
			return nil, fmt.Errorf("move %d (%c) is illegal", i+1, moves[i])
		}
		tr.States = append(tr.States, s)
		s = next
	}
	if !p.IsGoal(s) {
		return nil, errors.New("the solution does not solve the level")
	}
	return tr, nil
}
