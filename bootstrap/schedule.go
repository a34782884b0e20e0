package bootstrap

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// A Schedule is the rule by which a Bootstrap run changes its expansion
// budget per problem after each iteration, a pass over the problems, from
// what the pass solved; Train sets the budget of the next pass's searches
// (Solver.SetBudget). It is a small comparable value; the zero Schedule is
// Double(2), the paper's. Build one with the functions below or with
// ParseSchedule; Config.Validate checks its parameters.
//
// In what follows b is the budget of the pass, b₀ the initial budget
// (Config.Options.Budget), N the number of problems, S₀ and S₁ the number
// of problems solved at least once before and after the pass (the
// cumulative solved set), s the number solved in the pass, solved again
// or not, u the number the pass attempted and did not solve, and E the
// expansions summed over the searches of the pass that solved their
// problem. A budget above math.MaxInt64 is math.MaxInt64.
type Schedule struct {
	kind scheduleKind
	// growth is Double's factor and LTSCMRef's α, factor LTSCM's f,
	// minSolved and ratio LTSCMRef's progress test.
	growth, factor float64
	minSolved      int
	ratio          float64
}

type scheduleKind uint8

const (
	zeroKind scheduleKind = iota // the zero Schedule, Double(2)
	double
	ltscm
	ltscmRef
	numScheduleKinds
)

// scheduleNames holds the name of each kind, the one ParseSchedule takes.
var scheduleNames = [numScheduleKinds]string{"", "double", "ltscm", "ltscm-ref"}

// Double is the schedule of Orseau & Lelis (2021), with g = 2: the budget
// becomes ⌈g·b⌉ after a pass that solved no problem never solved before
// (S₁ = S₀), and stays b otherwise. g is a finite number > 1.
func Double(g float64) Schedule { return Schedule{kind: double, growth: g} }

// LTSCM is the schedule "LTS_CM" of libpolicyts (Tuero et al.), a
// variant of LTS+CM's (LTSCMRef) that its authors recommend, with its
// bootstrap_factor f, a finite number >= 0 (0.1 in libpolicyts). The pass
// made enough progress if it solved more than f·N new problems
// (S₁ − S₀ > f·N) and more than (1+f)·S₀ problems in all (s > (1+f)·S₀);
// then the budget stays b. Otherwise, if problems remained before the
// pass (S₀ < N), it becomes 2b + ⌊E / (N − S₁)⌋, the divisor counting the
// problems never solved yet; if the pass solved all of them (S₁ = N,
// where libpolicyts divides by 0) it stays b. Since s counts the problems
// solved in the pass, LTSCM needs every problem attempted in every pass
// (Config.SkipSolvedAfter 0).
func LTSCM(f float64) Schedule { return Schedule{kind: ltscm, factor: f} }

// LTSCMRef is the schedule of LTS+CM's reference implementation (Orseau,
// Hutter & Lelis, 2023, levintreesearch_cm), with its α ("budget
// factor", 2 there), a finite number > 1, and its progress test: at least
// minSolved problems (8 there) solved in the pass, and at least ratio (a
// finite number >= 0, 1.25 there) times as many as in the best earlier
// pass of the run. If the pass left no problem unsolved (u = 0) the
// budget stays b; else if the pass passed the test, the budget may be too
// high and becomes max(b₀, ⌊b/2⌋); otherwise it becomes
// ⌊α·b⌋ + ⌊(α−1)·E / u⌋ (2b + ⌊E / u⌋ for α = 2), the divisor counting
// the problems this pass did not solve. Like LTSCM it needs every problem
// attempted in every pass. The reference's own loop also differs from
// Train's: it learns once per pass and stops when a pass solves every
// problem, where Train learns after every ProblemsPerUpdate problems and
// stops once every problem was solved at least once.
func LTSCMRef(alpha float64, minSolved int, ratio float64) Schedule {
	return Schedule{kind: ltscmRef, growth: alpha, minSolved: minSolved, ratio: ratio}
}

// ParseSchedule returns the schedule of text, a name (double, ltscm or
// ltscm-ref) followed by an optional ":" and its parameters, separated
// by commas: "double:G" is Double(G), "ltscm:F" LTSCM(F),
// "ltscm-ref:A,M,R" LTSCMRef(A, M, R). Parameters left out take the values of the
// references: "double" is Double(2), "ltscm" LTSCM(0.1), "ltscm-ref"
// LTSCMRef(2, 8, 1.25) and "ltscm-ref:3" LTSCMRef(3, 8, 1.25). The name
// may be in any case. It is the inverse of Schedule.String (and
// MarshalText), and checks the parameters' ranges.
func ParseSchedule(text string) (Schedule, error) {
	name, params, hasParams := strings.Cut(text, ":")
	var s Schedule
	var n int // parameters taken
	switch strings.ToLower(name) {
	case "double":
		s, n = Double(2), 1
	case "ltscm":
		s, n = LTSCM(0.1), 1
	case "ltscm-ref":
		s, n = LTSCMRef(2, 8, 1.25), 3
	default:
		return Schedule{}, fmt.Errorf("bootstrap: unknown schedule %q (want %s)", name, strings.Join(scheduleNames[1:], ", "))
	}
	if hasParams {
		ps := strings.Split(params, ",")
		if len(ps) > n {
			return Schedule{}, fmt.Errorf("bootstrap: schedule %q: %d parameters; %s takes at most %d", text, len(ps), name, n)
		}
		for i, p := range ps {
			var err error
			switch {
			case s.kind == double:
				s.growth, err = strconv.ParseFloat(p, 64)
			case s.kind == ltscm:
				s.factor, err = strconv.ParseFloat(p, 64)
			case i == 0:
				s.growth, err = strconv.ParseFloat(p, 64)
			case i == 1:
				s.minSolved, err = strconv.Atoi(p)
			default:
				s.ratio, err = strconv.ParseFloat(p, 64)
			}
			if err != nil {
				return Schedule{}, fmt.Errorf("bootstrap: schedule %q: bad parameter %q", text, p)
			}
		}
	}
	if err := s.check(); err != nil {
		return Schedule{}, fmt.Errorf("bootstrap: %w", err)
	}
	return s, nil
}

// norm returns s, with the zero Schedule as Double(2).
func (s Schedule) norm() Schedule {
	if s.kind == zeroKind {
		return Double(2)
	}
	return s
}

// check returns an error if a parameter of s is out of range.
func (s Schedule) check() error {
	s = s.norm()
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case s.kind >= numScheduleKinds:
		return fmt.Errorf("bad schedule %d", s.kind)
	case s.kind == double && !(s.growth > 1 && finite(s.growth)):
		return fmt.Errorf("schedule double: growth %g; want a finite number > 1", s.growth)
	case s.kind == ltscm && !(s.factor >= 0 && finite(s.factor)):
		return fmt.Errorf("schedule ltscm: factor %g; want a finite number >= 0", s.factor)
	case s.kind == ltscmRef && !(s.growth > 1 && finite(s.growth)):
		return fmt.Errorf("schedule ltscm-ref: α %g; want a finite number > 1", s.growth)
	case s.kind == ltscmRef && s.minSolved < 0:
		return fmt.Errorf("schedule ltscm-ref: minimum solved %d; want >= 0", s.minSolved)
	case s.kind == ltscmRef && !(s.ratio >= 0 && finite(s.ratio)):
		return fmt.Errorf("schedule ltscm-ref: ratio %g; want a finite number >= 0", s.ratio)
	}
	return nil
}

// String returns the text form of s, which ParseSchedule reads back: the
// name and, after a colon, every parameter ("double:2", "ltscm:0.1",
// "ltscm-ref:2,8,1.25"), each in the shortest spelling that reads back
// exactly.
func (s Schedule) String() string {
	s = s.norm()
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch s.kind {
	case double:
		return "double:" + f(s.growth)
	case ltscm:
		return "ltscm:" + f(s.factor)
	case ltscmRef:
		return "ltscm-ref:" + f(s.growth) + "," + strconv.Itoa(s.minSolved) + "," + f(s.ratio)
	}
	return fmt.Sprintf("schedule(%d)", s.kind)
}

// MarshalText returns the text form of s, String.
func (s Schedule) MarshalText() ([]byte, error) {
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	return []byte(s.String()), nil
}

// UnmarshalText sets s to the schedule of the text form b, as
// ParseSchedule reads it.
func (s *Schedule) UnmarshalText(b []byte) error {
	x, err := ParseSchedule(string(b))
	if err != nil {
		return err
	}
	*s = x
	return nil
}

// attemptsAll reports whether s needs every problem attempted in every
// pass: whether it counts the problems solved again.
func (s Schedule) attemptsAll() bool { return s.norm().kind != double }

// A pass is what a schedule knows of the pass that just ended.
type pass struct {
	problems     int   // N
	solvedBefore int   // S₀: solved at least once before the pass
	solvedAfter  int   // S₁: and after it
	solved       int   // s: solved in the pass, solved again or not
	unsolved     int   // u: attempted in the pass and not solved
	expansions   int64 // E: of the pass's searches that solved their problem
	bestSolved   int   // the largest s of the earlier passes
}

// next returns the budget of the pass after p, whose budget was b, in a
// run whose initial budget is b0. It saturates at math.MaxInt64.
func (s Schedule) next(b, b0 int64, p pass) int64 {
	s = s.norm()
	switch s.kind {
	case double:
		if p.solvedAfter == p.solvedBefore && p.solvedBefore < p.problems {
			return saturate(math.Ceil(float64(b) * s.growth))
		}
	case ltscm:
		enough := float64(p.solvedAfter-p.solvedBefore) > s.factor*float64(p.problems) &&
			float64(p.solved) > (1+s.factor)*float64(p.solvedBefore)
		if !enough && p.solvedBefore < p.problems && p.solvedAfter < p.problems {
			return grow(2, b, p.expansions, int64(p.problems-p.solvedAfter))
		}
	case ltscmRef:
		switch {
		case p.unsolved == 0:
		case p.solved >= s.minSolved && float64(p.solved) >= s.ratio*float64(p.bestSolved):
			return max(b0, b/2)
		default:
			return grow(s.growth, b, p.expansions, int64(p.unsolved))
		}
	}
	return b
}

// grow returns ⌊α·b⌋ + ⌊(α−1)·e / d⌋, computed exactly, saturated at
// math.MaxInt64; d > 0.
func grow(alpha float64, b, e, d int64) int64 {
	a := new(big.Rat).SetFloat64(alpha)
	x := new(big.Rat).Mul(a, new(big.Rat).SetInt64(b))
	y := new(big.Rat).Sub(a, big.NewRat(1, 1))
	y.Mul(y, big.NewRat(e, d))
	sum := new(big.Int).Add(floor(x), floor(y))
	if !sum.IsInt64() {
		return math.MaxInt64
	}
	return sum.Int64()
}

// floor returns ⌊x⌋ for x >= 0.
func floor(x *big.Rat) *big.Int { return new(big.Int).Quo(x.Num(), x.Denom()) }

// saturate returns x as an int64, math.MaxInt64 if it is larger.
func saturate(x float64) int64 {
	if x >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(x)
}
