package bootstrap

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// An outcome is a scripted pass over all the problems: it solved s of
// them, new for the first time, with e expansions summed over those it
// solved.
type outcome struct {
	s, new int
	e      int64
}

// budgets returns the budgets of the passes of script under sched, over
// n problems from budget b0, and the budget after the last pass.
func budgets(sched Schedule, n int, b0 int64, script []outcome) []int64 {
	b, total, best := b0, 0, 0
	out := []int64{b}
	for _, o := range script {
		p := pass{problems: n, solvedBefore: total, solvedAfter: total + o.new, solved: o.s,
			unsolved: n - o.s, expansions: o.e, bestSolved: best}
		b = sched.next(b, b0, p)
		out = append(out, b)
		total += o.new
		best = max(best, o.s)
	}
	return out
}

// TestScheduleBudgets checks each schedule's budgets on scripted passes
// against budgets computed by hand from the references' rules.
func TestScheduleBudgets(t *testing.T) {
	// 10 problems: no new one solved in the second and the fourth pass.
	doubling := []outcome{{2, 2, 50}, {2, 0, 40}, {4, 2, 300}, {0, 0, 0}, {9, 5, 900}, {10, 1, 1000}}
	// 20 problems, f·N = 2 for f = 0.1.
	libpolicyts := []outcome{
		{3, 3, 120},   // 3 new > 2 and 3 > 1.1·0: kept
		{5, 2, 250},   // 2 new, not > 2: 2·100 + ⌊250/(20−5)⌋ = 216
		{5, 3, 400},   // 3 new > 2, but 5 not > 1.1·5: 2·216 + ⌊400/(20−8)⌋ = 465
		{12, 4, 1000}, // 4 new > 2, 12 > 1.1·8: kept
		{20, 8, 3000}, // kept
	}
	// 20 problems; u = 20 − s.
	reference := []outcome{
		{3, 3, 120},   // 3 < 8: 2·100 + ⌊120/17⌋ = 207
		{10, 7, 900},  // 10 >= 8 and >= 1.25·3: max(100, ⌊207/2⌋) = 103
		{12, 2, 700},  // 12 < 1.25·10: 2·103 + ⌊700/8⌋ = 293
		{15, 3, 1500}, // 15 >= 1.25·12: ⌊293/2⌋ = 146
		{19, 4, 2000}, // 19 >= 1.25·15: max(100, 73) = 100
		{18, 0, 1800}, // 18 < 1.25·19: 2·100 + ⌊1800/2⌋ = 1100
		{20, 1, 2100}, // u = 0: kept
	}
	for _, tc := range []struct {
		name   string
		sched  Schedule
		n      int
		b0     int64
		script []outcome
		want   []int64
	}{
		{"zero", Schedule{}, 10, 100, doubling, []int64{100, 100, 200, 200, 400, 400, 400}},
		{"double:2", Double(2), 10, 100, doubling, []int64{100, 100, 200, 200, 400, 400, 400}},
		{"double:1.5", Double(1.5), 10, 100, doubling, []int64{100, 100, 150, 150, 225, 225, 225}},
		{"double:1.5 rounds up", Double(1.5), 10, 3, doubling[:4], []int64{3, 3, 5, 5, 8}},
		{"ltscm:0.1", LTSCM(0.1), 20, 100, libpolicyts, []int64{100, 100, 216, 465, 465, 465}},
		// The rule of libpolicyts on the passes of the doubling: f·N = 1;
		// the second pass: 2·100 + ⌊40/8⌋; the fourth: 2·205 + ⌊0/6⌋; the
		// last solved the last problem (1 new, not > 1), the guard.
		{"ltscm:0.1 doubling's", LTSCM(0.1), 10, 100, doubling, []int64{100, 100, 205, 205, 410, 410, 410}},
		// f = 0: any new problem and more solved than before keep it.
		{"ltscm:0", LTSCM(0), 10, 100, doubling, []int64{100, 100, 205, 205, 410, 410, 410}},
		// f = 0.5, f·N = 5: 2 new is too few: 2·100 + ⌊50/8⌋.
		{"ltscm:0.5", LTSCM(0.5), 10, 100, doubling[:1], []int64{100, 206}},
		// The guard: the second pass solves the last problem without
		// enough progress (1 not > 1.1·3); libpolicyts divides by 0.
		{"ltscm guard", LTSCM(0.1), 4, 10, []outcome{{3, 3, 9}, {1, 1, 7}}, []int64{10, 10, 10}},
		{"ltscm-ref", LTSCMRef(2, 8, 1.25), 20, 100, reference, []int64{100, 207, 103, 293, 146, 100, 1100, 1100}},
		// α = 1.5: ⌊1.5·100⌋ + ⌊0.5·120/17⌋ = 153; ⌊229.5⌋ + ⌊5.5/18⌋ = 229.
		{"ltscm-ref α 1.5", LTSCMRef(1.5, 8, 1.25), 20, 100, []outcome{{3, 3, 120}, {2, 0, 11}}, []int64{100, 153, 229}},
		// minSolved 2, ratio 0: any pass with 2 solved halves it, not
		// below b₀.
		{"ltscm-ref:2,2,0", LTSCMRef(2, 2, 0), 20, 100, []outcome{{1, 1, 10}, {2, 1, 20}, {2, 0, 20}, {2, 0, 20}},
			[]int64{100, 200, 100, 100, 100}},
	} {
		if got := budgets(tc.sched, tc.n, tc.b0, tc.script); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: budgets %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestScheduleSaturates checks that no schedule overflows the budget.
func TestScheduleSaturates(t *testing.T) {
	const huge = math.MaxInt64/2 + 1
	p := pass{problems: 10, solvedBefore: 2, solvedAfter: 2, solved: 2, unsolved: 8, expansions: math.MaxInt64}
	for _, s := range []Schedule{Double(2), Double(1e300), LTSCM(0.1), LTSCMRef(2, 8, 1.25), LTSCMRef(1e300, 8, 1.25)} {
		if got := s.next(huge, 1, p); got != math.MaxInt64 {
			t.Errorf("%s: next(%d) = %d, want %d", s, int64(huge), got, int64(math.MaxInt64))
		}
	}
	if got := LTSCM(0.1).next(1000, 1, p); got != 2000+math.MaxInt64/8 {
		t.Errorf("ltscm: next(1000) with E = MaxInt64 = %d", got)
	}
}

func TestParseSchedule(t *testing.T) {
	for _, tc := range []struct {
		text string
		want Schedule
		str  string
	}{
		{"double", Double(2), "double:2"},
		{"double:2", Double(2), "double:2"},
		{"DOUBLE:1.5", Double(1.5), "double:1.5"},
		{"double:1e300", Double(1e300), "double:1e+300"},
		{"ltscm", LTSCM(0.1), "ltscm:0.1"},
		{"ltscm:0.1", LTSCM(0.1), "ltscm:0.1"},
		{"ltscm:0", LTSCM(0), "ltscm:0"},
		{"ltscm:0.25", LTSCM(0.25), "ltscm:0.25"},
		{"ltscm-ref", LTSCMRef(2, 8, 1.25), "ltscm-ref:2,8,1.25"},
		{"ltscm-ref:3", LTSCMRef(3, 8, 1.25), "ltscm-ref:3,8,1.25"},
		{"ltscm-ref:1.5,4", LTSCMRef(1.5, 4, 1.25), "ltscm-ref:1.5,4,1.25"},
		{"ltscm-ref:2,0,0", LTSCMRef(2, 0, 0), "ltscm-ref:2,0,0"},
	} {
		got, err := ParseSchedule(tc.text)
		if err != nil || got != tc.want {
			t.Errorf("ParseSchedule(%q) = %v, %v; want %v", tc.text, got, err, tc.want)
			continue
		}
		if s := got.String(); s != tc.str {
			t.Errorf("%q: String = %q, want %q", tc.text, s, tc.str)
		}
		if back, err := ParseSchedule(got.String()); err != nil || back != got {
			t.Errorf("%q: ParseSchedule(%q) = %v, %v", tc.text, got.String(), back, err)
		}
		b, err := json.Marshal(Config{Schedule: got})
		var c Config
		if err == nil {
			err = json.Unmarshal(b, &c)
		}
		if err != nil || c.Schedule != got {
			t.Errorf("%q: JSON round trip %s: %v, %v", tc.text, b, c.Schedule, err)
		}
	}
	if s := (Schedule{}).String(); s != "double:2" {
		t.Errorf("the zero Schedule is %q, want double:2", s)
	}
	for _, tc := range []struct{ text, msg string }{
		{"", `unknown schedule ""`},
		{"triple", `unknown schedule "triple"`},
		{"lts_cm", `unknown schedule "lts_cm"`},
		{"double:", `bad parameter ""`},
		{"double:abc", `bad parameter "abc"`},
		{"double:1", "growth 1; want a finite number > 1"},
		{"double:0", "growth 0"},
		{"double:+Inf", "growth +Inf"},
		{"double:NaN", "growth NaN"},
		{"double:2,3", "2 parameters; double takes at most 1"},
		{"ltscm:-0.1", "factor -0.1; want a finite number >= 0"},
		{"ltscm:Inf", "factor +Inf"},
		{"ltscm:0.1,2", "ltscm takes at most 1"},
		{"ltscm-ref:1", "α 1; want a finite number > 1"},
		{"ltscm-ref:,8", `bad parameter ""`},
		{"ltscm-ref:2,-1", "minimum solved -1"},
		{"ltscm-ref:2,8.5", `bad parameter "8.5"`},
		{"ltscm-ref:2,8,-1", "ratio -1"},
		{"ltscm-ref:2,8,NaN", "ratio NaN"},
		{"ltscm-ref:2,8,1.25,4", "4 parameters; ltscm-ref takes at most 3"},
	} {
		s, err := ParseSchedule(tc.text)
		if err == nil || !strings.HasPrefix(err.Error(), "bootstrap: ") || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseSchedule(%q) = %v, %v; want an error with %q", tc.text, s, err, tc.msg)
		}
	}
	if b, err := json.Marshal(Config{Schedule: LTSCM(-1)}); err == nil {
		t.Errorf("a bad schedule marshals to %s", b)
	}
}

func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{"double", "double:1.5", "ltscm:0.1", "ltscm-ref", "ltscm-ref:3,2,0.5", "ltscm-ref:2,8,1.25,4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSchedule(text)
		if err != nil {
			return
		}
		if err := s.check(); err != nil {
			t.Fatalf("ParseSchedule(%q) = %v, out of range: %v", text, s, err)
		}
		back, err := ParseSchedule(s.String())
		if err != nil || back != s {
			t.Fatalf("ParseSchedule(%q) = %v; its String %q reads back as %v, %v", text, s, s.String(), back, err)
		}
	})
}

// TestTrainLTSCM checks runs with the schedules of libpolicyts and of
// LTS+CM through Train: their budgets follow the rules from the run's
// metrics, and a run interrupted in the middle of an iteration, whose
// expansions of solved problems so far the checkpoint keeps, resumes to
// the same end as the uninterrupted run.
func TestTrainLTSCM(t *testing.T) {
	tasks := mazes(24, 2)
	n := len(tasks)
	for _, tc := range []struct {
		text string
		// want returns the budget after iteration m, whose earlier
		// iterations solved at most best problems, and the part of the
		// growth E contributes (-1 for a halving).
		want func(m Iteration, best int) (budget, byE int64)
	}{
		{"ltscm:0.1", func(m Iteration, _ int) (int64, int64) {
			before, after := m.TotalSolved-m.New, m.TotalSolved // S₀, S₁
			if !(float64(m.New) > 0.1*float64(n) && float64(m.Solved) > 1.1*float64(before)) && before < n && after < n {
				e := m.SolvedExpansions / int64(n-after)
				return 2*m.Budget + e, e
			}
			return m.Budget, 0
		}},
		{"ltscm-ref", func(m Iteration, best int) (int64, int64) {
			u := int64(m.Attempted - m.Solved)
			switch {
			case u == 0:
				return m.Budget, 0
			case m.Solved >= 8 && float64(m.Solved) >= 1.25*float64(best):
				return max(8, m.Budget/2), -1
			}
			return 2*m.Budget + m.SolvedExpansions/u, m.SolvedExpansions / u
		}},
	} {
		t.Run(tc.text, func(t *testing.T) {
			sched, err := ParseSchedule(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			newRun := func() *setup {
				s := newSetup(t, "levints")
				s.cfg.Schedule = sched
				s.cfg.MaxIterations = 5
				return s
			}
			ref := newRun()
			ref.env.Workers = 1
			refModel, refMetrics, err := ref.train(t, context.Background(), tasks)
			if err != nil {
				t.Fatal(err)
			}
			if len(refMetrics) != 5 {
				t.Fatalf("%d iterations, want 5", len(refMetrics))
			}
			best, grewByE, halved := 0, false, false
			for i, m := range refMetrics[:len(refMetrics)-1] {
				if m.Solved > 0 && (m.SolvedExpansions <= 0 || m.SolvedExpansions > m.Expansions) {
					t.Errorf("iteration %d: %d expansions of its %d solved problems, of %d", m.Iteration, m.SolvedExpansions, m.Solved, m.Expansions)
				}
				want, byE := tc.want(m, best)
				grewByE, halved = grewByE || byE > 0, halved || byE < 0
				if got := refMetrics[i+1].Budget; got != want {
					t.Errorf("iteration %d: budget %d after %+v; want %d", m.Iteration+1, got, m, want)
				}
				best = max(best, m.Solved)
			}
			if !grewByE || (sched.kind == ltscmRef && !halved) {
				t.Errorf("the budget never grew by more than twice, or never halved: the test checks too little\n%+v", refMetrics)
			}

			// Two workers, interrupted after the second group of the
			// fourth iteration, then resumed.
			s := newRun()
			ctx, cancel := context.WithCancel(context.Background())
			groups := 0
			s.env.afterChunk = func(*state, bool) {
				if groups++; groups == 11 {
					cancel()
				}
			}
			if _, _, err := s.train(t, ctx, tasks); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run: %v", err)
			}
			_, st, err := loadState(s.dir, len(tasks))
			if err != nil {
				t.Fatal(err)
			}
			if st.Iteration != 4 || st.Next != 16 || st.Current.SolvedExpansions == 0 {
				t.Errorf("checkpoint at iteration %d, problem %d, with %d expansions of solved problems; want 4, 16, > 0", st.Iteration, st.Next, st.Current.SolvedExpansions)
			}
			s.env.afterChunk = nil
			m, metrics, err := s.resume(context.Background(), tasks)
			if err != nil {
				t.Fatal(err)
			}
			sameRun(t, metrics, m, refMetrics, refModel)
			if got, err := ReadConfig(s.dir); err != nil || got.Schedule != sched {
				t.Errorf("the checkpoint's schedule: %v, %v; want %v", got.Schedule, err, sched)
			}
		})
	}
}

// TestResumeBudgetGrowth checks that the checkpoint of an earlier phs,
// whose configuration has a budget_growth in place of a schedule, resumes
// with the schedule Double of that growth.
func TestResumeBudgetGrowth(t *testing.T) {
	tasks := mazes(16, 3)
	ref := newSetup(t, "levints")
	ref.cfg.Schedule = Double(1.5)
	ref.cfg.Options.Budget = 1 // no maze solved: the budget grows
	refModel, refMetrics, err := ref.train(t, context.Background(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	if refMetrics[1].Budget != 2 || refMetrics[2].Budget != 3 {
		t.Fatalf("budgets %d, %d; want 2 and 3 (the test needs no maze solved)", refMetrics[1].Budget, refMetrics[2].Budget)
	}

	s := newSetup(t, "levints")
	s.cfg.Schedule = Double(1.5)
	s.cfg.Options.Budget = 1
	s.cfg.MaxIterations = 1
	if _, _, err := s.train(t, context.Background(), tasks); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(s.dir, checkpointDir, stateFile)
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var whole map[string]any
	if err := json.Unmarshal(b, &whole); err != nil {
		t.Fatal(err)
	}
	cfg, _ := whole["config"].(map[string]any)
	if cfg["schedule"] != "double:1.5" {
		t.Fatalf("the checkpoint's schedule is %v", cfg["schedule"])
	}
	delete(cfg, "schedule")
	cfg["budget_growth"] = 1.5
	if b, err = json.Marshal(whole); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadConfig(s.dir); err != nil || got.Schedule != Double(1.5) {
		t.Fatalf("ReadConfig of a checkpoint with budget_growth 1.5: schedule %v, %v", got.Schedule, err)
	}
	s.env.Limits = &Limits{MaxIterations: 3}
	m, metrics, err := s.resume(context.Background(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	sameRun(t, metrics, m, refMetrics, refModel)
}
