package bootstrap

import (
	"context"
	"errors"
	"math"
	"reflect"
	"sync"
	"testing"

	"github.com/phs-go/phs/search"
)

// A watched learner calls see with the problem of each call of its
// snapshots' evaluators.
type watched struct {
	Learner[int32]
	see func(search.Problem[int32])
}

func (w watched) Snapshot() Snapshot[int32] { return watchedSnapshot{w.Learner.Snapshot(), w.see} }

type watchedSnapshot struct {
	Snapshot[int32]
	see func(search.Problem[int32])
}

func (s watchedSnapshot) NewEvaluator() search.Evaluator[int32] {
	return watchedEvaluator{s.Snapshot.NewEvaluator(), s.see}
}

type watchedEvaluator struct {
	search.Evaluator[int32]
	see func(search.Problem[int32])
}

func (e watchedEvaluator) Evaluate(p search.Problem[int32], states []int32, logPi, h []float64) error {
	e.see(p)
	return e.Evaluator.Evaluate(p, states, logPi, h)
}

// validationRun is the run of TestValidation: 24 training mazes and 8
// validation mazes, LevinTS with a budget too small at first.
func validationRun() ([]search.Task[int32], Config) {
	tasks := append(mazes(24, 5), mazes(8, 6)...)
	cfg := Config{
		Algorithm: search.LevinTS(), Options: search.Options{Budget: 8}, ProblemsPerUpdate: 8,
		Validation: Validation{Problems: 8, Target: 0.75}, Limits: Limits{MaxIterations: 20},
	}
	return tasks, cfg
}

// TestValidation trains with validation problems: the learner never
// learns from them, each validation pass searches the validation
// problems never solved, and the run stops one iteration after the
// target, at the same budget, even with training problems unsolved. A
// run interrupted in the middle of a validation pass and resumed ends as
// the uninterrupted one.
func TestValidation(t *testing.T) {
	tasks, cfg := validationRun()
	const nTrain, nValid = 24, 8
	valid := map[search.Problem[int32]]bool{}
	for _, task := range tasks[nTrain:] {
		valid[task.Problem] = true
	}
	x := &indexed{counts{table: map[int32][]int64{}}, tasks[:nTrain], t, map[int]bool{}}
	ms, err := Train(context.Background(), t.TempDir(), tasks, x, cfg, Env{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for k := range x.seen {
		if k >= nTrain {
			t.Errorf("the learner learned from validation problem %d", k)
		}
	}
	target := int(math.Floor(cfg.Validation.Target * nValid))
	reached := -1
	for i, it := range ms {
		before := 0
		if i > 0 {
			before = ms[i-1].ValidTotalSolved
		}
		switch {
		case reached >= 0:
			if it.ValidAttempted != 0 {
				t.Errorf("iteration %d, after the target: %d validation searches; want 0", it.Iteration, it.ValidAttempted)
			}
		case it.ValidAttempted != nValid-before || it.ValidTotalSolved != before+it.ValidSolved:
			t.Errorf("iteration %d: %d validation searches, %d solved, %d solved so far, after %d; want the %d never solved",
				it.Iteration, it.ValidAttempted, it.ValidSolved, it.ValidTotalSolved, before, nValid-before)
		}
		if reached < 0 && it.ValidTotalSolved >= target {
			reached = i
		}
	}
	switch {
	case reached < 1:
		t.Fatalf("target reached at iteration %d of %d; want a run that needs the budget to grow first", reached+1, len(ms))
	case len(ms) != reached+2:
		t.Fatalf("%d iterations, target reached at iteration %d; want one more", len(ms), reached+1)
	case ms[reached+1].Budget != ms[reached].Budget:
		t.Errorf("budget %d after the target, %d before; want the same", ms[reached+1].Budget, ms[reached].Budget)
	case ms[len(ms)-1].TotalSolved == nTrain:
		t.Errorf("every training problem solved; want a run stopped by the validation target")
	}

	// Interrupt the same run at its first search of a validation problem.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	see := func(p search.Problem[int32]) {
		if valid[p] {
			once.Do(cancel)
		}
	}
	dir := t.TempDir()
	c := watched{&counts{table: map[int32][]int64{}}, see}
	if _, err := Train(ctx, dir, tasks, c, cfg, Env{Workers: 2}); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v; want context.Canceled", err)
	}
	_, st, err := loadState(dir, len(tasks))
	if err != nil {
		t.Fatal(err)
	}
	if st.Iteration != 1 || st.Next != nTrain {
		t.Fatalf("checkpoint at iteration %d, position %d; want the first validation pass, after position %d", st.Iteration, st.Next, nTrain)
	}
	ref := &counts{table: map[int32][]int64{}}
	want, err := Train(context.Background(), t.TempDir(), tasks, ref, cfg, Env{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, metrics, err := Resume(context.Background(), dir, tasks, loadCounts, Env{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withoutTimes(metrics), withoutTimes(want)) {
		t.Errorf("resumed metrics\n%+v\nwant\n%+v", withoutTimes(metrics), withoutTimes(want))
	}
	if !reflect.DeepEqual(got.(*counts).table, ref.table) {
		t.Error("the resumed run ends with another table than the uninterrupted one")
	}
	if _, _, err := Resume(context.Background(), dir, tasks, loadCounts, Env{Workers: 2}); !errors.Is(err, ErrTrainingDone) {
		t.Errorf("resume of the finished run: %v; want ErrTrainingDone", err)
	}
}

// TestValidationRejects checks the Validation settings that Train refuses.
func TestValidationRejects(t *testing.T) {
	tasks, base := validationRun()
	for _, v := range []Validation{
		{Problems: -1},
		{Problems: 8},
		{Problems: 8, Target: 1.5},
		{Problems: 8, Target: math.NaN()},
		{Target: 0.5},
		{Problems: len(tasks), Target: 0.5},
	} {
		cfg := base
		cfg.Validation = v
		if _, err := Train(context.Background(), t.TempDir(), tasks, &counts{table: map[int32][]int64{}}, cfg, Env{Workers: 1}); err == nil {
			t.Errorf("%+v: no error", v)
		}
	}
}

// TestValidationNeeded checks the count that reaches a target: rounded
// down, as libpolicyts rounds, exact at representable products.
func TestValidationNeeded(t *testing.T) {
	for _, tc := range []struct {
		v    Validation
		want int
	}{{Validation{}, 0}, {Validation{1000, 0.95}, 950}, {Validation{8, 0.75}, 6}, {Validation{10, 0.99}, 9}, {Validation{3, 1}, 3}} {
		if got := tc.v.Needed(); got != tc.want {
			t.Errorf("%+v.Needed() = %d; want %d", tc.v, got, tc.want)
		}
	}
}
