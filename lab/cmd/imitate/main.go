// Command imitate trains a Sokoban network on given solutions, such as
// the optimal ones of sokopt, with the losses of the Bootstrap process's
// learner (model.Trainer, one Adam step a solution), from a model or from
// a fresh PHS* network:
//
//	imitate -model DIR|new [-filters F] [-hidden H] -out DIR [-lr 1e-4] [-epochs 1] [-weight 1] [-symmetries 1] [-dead C] [-threads 1] LEVELS OPTIMA.jsonl [LEVELS OPTIMA.jsonl ...]
//
// With -model new, the network is the paper's for PHS* (model.ConfigFor),
// with deadlocks pruned, -filters filters and -hidden hidden units
// (the library's sizes for 0), its weights drawn with seed 1.
//
// Each pair names a file of levels and the JSONL records of sokopt on it.
// Every solution is replayed. Each epoch is one pass over all the
// examples, shuffled, one Adam step an example; -weight is the Levin
// loss's weight of a solution, the expansions that the Bootstrap process
// would have spent to find it. The records without a solution are
// skipped and counted, but with -dead C > 0 those of the levels that
// have none ("error":"no solution") are examples too: the level's start
// state, a dead end, which the heuristic learns to have cost-to-go C and
// the policy nothing (model.NoAction). Such levels come from offpath,
// which writes the states that a search expanded as levels. With
// -symmetries N, each example is learnt on its level and on N-1 of the
// level's images under the symmetries of the square (rotations and mirror
// images), in the order of symmetric: N times the data, as the rules of
// Sokoban do not change under them. The model, with its heads and
// settings, is written to -out/epoch-N after epoch N.
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
	epochs := fs.Int("epochs", 1, "passes over the examples (> 0)")
	weight := fs.Int64("weight", 1, "the Levin loss's weight of a solution (> 0)")
	syms := fs.Int("symmetries", 1, "the symmetries of the square each example is learnt under, 1 (itself) to 8 (all its rotations and mirror images)")
	dead := fs.Float64("dead", 0, "the cost-to-go learnt for the start of a level without a solution (> 0; 0: such levels are skipped)")
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
	case !(*dead >= 0) || *dead > 1e6:
		return fmt.Errorf("-dead %g; want 0 to 1e6", *dead)
	case *threads < 1 || *threads > model.MaxThreads:
		return fmt.Errorf("-threads %d; want 1 to %d", *threads, model.MaxThreads)
	case fs.NArg() == 0 || fs.NArg()%2 != 0:
		return errors.New("want pairs of LEVELS OPTIMA.jsonl")
	case *from != "new" && (*filters != 0 || *hidden != 0):
		return errors.New("-filters and -hidden are for -model new")
	}
	var exs []example
	var c counts
	for i := 0; i < fs.NArg(); i += 2 {
		e, err := readExamples(fs.Arg(i), fs.Arg(i+1), *syms, *dead > 0, &c)
		if err != nil {
			return err
		}
		exs = append(exs, e...)
	}
	m, err := startModel(*from, *filters, *hidden, fs.Arg(0))
	if err != nil {
		return err
	}
	tr := model.NewTrainer(m, model.TrainConfig{LearningRate: *lr, Threads: *threads})
	fmt.Fprintf(stderr, "imitate: %d examples (%d solutions and %d dead ends, each under %d symmetries; %d records skipped)\n",
		len(exs), c.solutions, c.dead, *syms, c.skipped)
	start := time.Now()
	shuffle := rand.New(rand.NewPCG(1, 2))
	var buf model.Sample
	for e := range *epochs {
		shuffle.Shuffle(len(exs), func(i, j int) { exs[i], exs[j] = exs[j], exs[i] })
		var sol, end model.Losses
		var nSol, nEnd int
		for _, ex := range exs {
			if err := ctx.Err(); err != nil {
				return err
			}
			l, err := tr.Step(ex.sample(&buf, *weight, float32(*dead)))
			if err != nil {
				return fmt.Errorf("%s: %w", ex.p.ID, err)
			}
			if ex.tr == nil {
				end.Heuristic, nEnd = end.Heuristic+l.Heuristic, nEnd+1
			} else {
				sol.Policy, sol.Heuristic, nSol = sol.Policy+l.Policy, sol.Heuristic+l.Heuristic, nSol+1
			}
		}
		if err := model.Save(filepath.Join(*out, fmt.Sprintf("epoch-%d", e+1)), m); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "imitate: epoch %d: policy loss %.4f, heuristic loss %.4f (solutions), %.4f (dead ends), %d steps, %s\n",
			e+1, sol.Policy/float64(max(nSol, 1)), sol.Heuristic/float64(max(nSol, 1)), end.Heuristic/float64(max(nEnd, 1)),
			nSol+nEnd, time.Since(start).Round(time.Second))
	}
	return nil
}

// An example is what one Adam step learns: a solution of level p, or, if
// tr is nil, p's start state as a dead end.
type example struct {
	p  *sokoban.Problem
	tr *search.Trajectory[sokoban.State]
}

// sample returns the example encoded in buf's memory: a solution's
// states, moves and costs-to-go, of weight w, or a dead end of
// cost-to-go dead and no action. It is valid until the next call.
func (ex example) sample(buf *model.Sample, w int64, dead float32) model.Sample {
	states := []sokoban.State{ex.p.Root()}
	if ex.tr != nil {
		states = ex.tr.States
	}
	c, h, wd := ex.p.InputShape()
	size := c * h * wd
	n := len(states)
	buf.Inputs = slices.Grow(buf.Inputs[:0], n*size)[:n*size]
	buf.Actions, buf.CostToGo = buf.Actions[:0], buf.CostToGo[:0]
	for i, s := range states {
		ex.p.Encode(s, buf.Inputs[i*size:(i+1)*size])
		if ex.tr == nil {
			buf.Actions, buf.CostToGo = append(buf.Actions, model.NoAction), append(buf.CostToGo, dead)
			continue
		}
		buf.Actions, buf.CostToGo = append(buf.Actions, ex.tr.Actions[i]), append(buf.CostToGo, float32(ex.tr.CostToGo(i)))
	}
	buf.Expansions = w
	return *buf
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

// counts are the records that readExamples read: with a solution, of a
// level without one learnt as a dead end, and skipped.
type counts struct{ solutions, dead, skipped int }

// readExamples returns the examples of the records of sokopt in optima on
// the levels of file levels, and adds to c the records it read: each
// solution and, if dead, each level without one.
// Each example comes syms times: on its level and on the images of the
// level under the symmetries 1 to syms-1 (see symmetric).
func readExamples(levels, optima string, syms int, dead bool, c *counts) ([]example, error) {
	ps, err := sokoban.ReadFile(levels)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*sokoban.Problem, len(ps))
	for _, p := range ps {
		byID[p.ID] = p
	}
	f, err := os.Open(optima)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var exs []example
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var r struct {
			Problem  string `json:"problem"`
			Solution string `json:"solution"`
			Error    string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", optima, line, err)
		}
		p := byID[r.Problem]
		switch {
		case p == nil:
			return nil, fmt.Errorf("%s:%d: level %q is not in %s", optima, line, r.Problem, levels)
		case r.Solution == "" && !(dead && r.Error == "no solution"):
			c.skipped++
			continue
		}
		for sym := range syms {
			q, moves := p, r.Solution
			if sym > 0 {
				var err error
				if q, moves, err = symmetric(p, r.Solution, sym); err != nil {
					return nil, fmt.Errorf("%s:%d: %s: symmetry %d: %w", optima, line, r.Problem, sym, err)
				}
			}
			ex := example{p: q}
			if r.Solution != "" {
				if ex.tr, err = replay(q, moves); err != nil {
					return nil, fmt.Errorf("%s:%d: %s: %w", optima, line, q.ID, err)
				}
			}
			exs = append(exs, ex)
		}
		if r.Solution != "" {
			c.solutions++
		} else {
			c.dead++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", optima, err)
	}
	return exs, nil
}

// replay returns the trajectory of moves on level p, or an error if they
// do not solve it.
func replay(p *sokoban.Problem, moves string) (*search.Trajectory[sokoban.State], error) {
	actions, err := search.ParseActions(p, moves)
	if err != nil {
		return nil, err
	}
	tr := &search.Trajectory[sokoban.State]{NodeLoss: 1, Actions: actions}
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
