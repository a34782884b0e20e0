package cm

import (
	"context"
	"fmt"
	"math"

	"github.com/phs-go/phs/bootstrap"
)

// OptimizerConfig holds the settings of the optimisation of the LTS loss
// (Optimize). The zero values select the reference's.
type OptimizerConfig struct {
	// Lambda is λ, the weight of the regulariser (λ/2)·Σ(β − β0)²,
	// finite and ≥ 0; 0 means 10. (A λ of 0 is not available: the loss
	// alone need not have a minimum in the interior of the box, and the
	// reference always regularises.)
	Lambda float64 `json:"lambda"`
	// MaxSteps is the largest number of steps of one optimisation; 0
	// means 200.
	MaxSteps int `json:"max_steps"`
	// GapFactor stops the optimisation once the duality gap, an upper
	// bound on F(β) − min F over the box, is at most GapFactor·F(β): F is
	// then within a factor 1/(1 − GapFactor) of its minimum. In (0, 1);
	// 0 means 0.5. The gap is measured every 20 steps.
	GapFactor float64 `json:"gap_factor"`
	// Threads is the number of goroutines of the sums over the
	// solutions' steps, from 1 to MaxThreads; 0 means 1. Each keeps a
	// buffer of twice the table's parameters. It is not saved: the result
	// depends on it only through rounding.
	Threads int `json:"-"`
}

// MaxThreads is the largest OptimizerConfig.Threads.
const MaxThreads = 64

// check returns an error if a field of c is out of range, and otherwise
// fills in the defaults.
func (c *OptimizerConfig) check() error {
	switch {
	case !(c.Lambda >= 0) || math.IsInf(c.Lambda, 0):
		return fmt.Errorf("λ %g; want a finite number > 0 (0: 10)", c.Lambda)
	case c.MaxSteps < 0:
		return fmt.Errorf("max steps %d; want > 0 (0: 200)", c.MaxSteps)
	case !(c.GapFactor >= 0 && c.GapFactor < 1):
		return fmt.Errorf("gap factor %g; want a number in (0, 1) (0: 0.5)", c.GapFactor)
	case c.Threads < 0 || c.Threads > MaxThreads:
		return fmt.Errorf("threads %d; want 1 to %d (0: 1)", c.Threads, MaxThreads)
	}
	if c.Lambda == 0 {
		c.Lambda = 10
	}
	if c.MaxSteps == 0 {
		c.MaxSteps = 200
	}
	if c.GapFactor == 0 {
		c.GapFactor = 0.5
	}
	return nil
}

// Optimize creates at β0 the rows of t that the contexts of the states
// of solutions lack, then minimises over the box [ln εlow, 0] the
// regularised LTS loss of the solutions
//
//	F(β) = Σ_k T_k/π_β(solution k) + (λ/2)·Σ (β − β0)²,
//
// π_β the policy of t without mixing, from t's current parameters, in
// place, by LTS+CM's iso-GD with a Δ-Secant line search. t must not be in
// use by searches meanwhile (Learner optimises a Clone). It returns ctx's
// error if ctx is done before the end, with t's parameters at the last
// step, and an error, leaving t as it was, if a solution is not one of a
// problem of t's layout. Solutions of no step (a start that is a goal)
// are skipped.
func Optimize[S comparable](ctx context.Context, t *Table, solutions []bootstrap.Solution[S], cfg OptimizerConfig) (OptimizeResult, error) {
	if err := cfg.check(); err != nil {
		return OptimizeResult{}, fmt.Errorf("cm: %w", err)
	}
	var ps []pendingSolution
	for _, s := range solutions {
		p, err := pendingOf(t.layout, s)
		if err != nil {
			return OptimizeResult{}, err
		}
		if len(p.actions) > 0 {
			ps = append(ps, p)
		}
	}
	trajs := make([]trajectory, len(ps))
	for i, p := range ps {
		trajs[i] = p.trajectory(t)
	}
	o := newObjective(t.layout.Actions, len(t.layout.Sizes), cfg.Lambda, t.Beta0(), trajs, cfg.Threads)
	return optimize(ctx, o, t.beta, t.logLow, cfg)
}

// gapEvery is the number of steps between two measures of the gap.
const gapEvery = 20

// An OptimizeResult is the outcome of an optimisation.
type OptimizeResult struct {
	// Steps is the number of steps taken.
	Steps int
	// LogF is log F at the end; Gap the last duality gap measured, in
	// units of F (NaN if none was): F − min F ≤ Gap·F then.
	LogF, Gap float64
}

// optimize minimises o over the box [lo, 0] from beta, in place, by the
// reference's iso-GD with a Δ-Secant line search (see Optimize). It
// returns ctx's error, leaving beta at the last step, if ctx is done.
//
// A step t = 1, 2, … computes the gradient g of F scaled by e^(−C) (see
// objective.gradient); resets the per-row accumulators Δ_c to 0 when t is
// an even perfect square; adds to each Δ_c the norm G of its row of g if
// G ≥ Δ_c, else G²/Δ_c; moves along D = −g_c/Δ_c by a step α found on
// φ(α) = log F(β + αD), unclipped: the previous α if it is in (0, 1) and
// lowers φ, else (and at steps 1, 2, 3 of every 20) by the Δ-Secant line
// search on [0, 2α]; and clips β to the box. Every 20 steps it measures
// the duality gap and stops when it is at most GapFactor·F; it stops
// after MaxSteps steps in any case.
func optimize(ctx context.Context, o *objective, beta []float64, lo float64, cfg OptimizerConfig) (OptimizeResult, error) {
	if err := cfg.check(); err != nil {
		return OptimizeResult{}, fmt.Errorf("cm: %w", err)
	}
	A := o.A
	rows := len(beta) / A
	g := make([]float64, len(beta))
	d := make([]float64, len(beta))
	delta := make([]float64, rows)
	alpha := 0.5
	res := OptimizeResult{Gap: math.NaN()}
	for t := 1; ; t++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		logF, C := o.gradient(beta, g)
		res.LogF = logF
		if t%gapEvery == 1 && t > 1 || t > cfg.MaxSteps {
			// The gap of the box: max over the box of ⟨∇F, β − s⟩,
			// reached at s = lo where ∇F > 0 and 0 elsewhere.
			gap := 0.0
			for i, gi := range g {
				if gi > 0 {
					gap += gi * (beta[i] - lo)
				} else {
					gap += gi * beta[i]
				}
			}
			res.Gap = gap * math.Exp(C-logF) // in units of F
			if res.Gap <= cfg.GapFactor || t > cfg.MaxSteps {
				return res, nil
			}
		}
		if r := int(math.Sqrt(float64(t))); r*r == t && t%2 == 0 {
			clear(delta)
		}
		for c := range rows {
			gc := g[c*A : (c+1)*A]
			G := 0.0
			for _, v := range gc {
				G += v * v
			}
			G = math.Sqrt(G)
			if G >= delta[c] {
				delta[c] += G
			} else {
				delta[c] += G * G / delta[c]
			}
			eta := 0.0
			if delta[c] > 0 {
				eta = 1 / delta[c]
			}
			for a, v := range gc {
				d[c*A+a] = -eta * v
			}
		}
		ln := o.newLine(beta, d)
		if !(alpha > 0 && alpha < 1) {
			alpha = 0.5
		}
		y0, y1 := ln.at(0), ln.at(alpha)
		if m := t % 20; m >= 1 && m <= 3 || y1 >= y0 {
			alpha, _ = deltaSecant(ln.at, 0, alpha, y0, y1, 1)
		}
		res.Steps = t
		for i := range beta {
			beta[i] = min(max(beta[i]+alpha*d[i], lo), 0)
		}
	}
}

// deltaSecant minimises a convex (or unimodal) f over [0, ∞) from the
// bracket [xL, 2·xq] with f(xL) = yL and f(xq) = yq known, by the
// quasi-exact Δ-Secant line search of Orseau & Hutter ("Line search for
// convex minimization", 2023) with tolerance c: it stops once the
// decrease f(xL) − f(x) of its lowest point x is at least c times the
// gap between f(x) and a lower bound of f on the bracket, and extends the
// bracket fourfold when its lowest point is its right end. It returns the
// lowest point found and its value.
func deltaSecant(f func(float64) float64, xL, xq, yL, yq, c float64) (float64, float64) {
	inf := math.Inf(1)
	xR := 2 * xq
	p := [5]pt{{xL, inf}, {xL, inf}, {xL, yL}, {xR, inf}, {xR, inf}}
	if yq > yL {
		insert(&p, pt{xR, inf})
	} else {
		insert(&p, pt{xR, f(xR)})
	}
	insert(&p, pt{xq, yq})
	const u = 1.0 / 128
	for iter := 0; iter < 100; iter++ {
		xm, xp, ygap := gaps(&p)
		if yL-p[2].y >= c*ygap {
			if p[2].x < xR {
				break
			}
			// The lowest point is the right end: look further.
			xR *= 4
			p[3], p[4] = pt{xR, inf}, pt{xR, inf}
			insert(&p, pt{xR, f(xR)})
			continue
		}
		x2 := p[2].x
		q := (xm + xp) / 2
		if l := x2 - u*(x2-xm); l <= q && q <= x2 {
			q = l
		} else if r := x2 + u*(xp-x2); x2 <= q && q <= r {
			q = r
		}
		if q < p[1].x || q > p[3].x || q == x2 {
			break // the bracket is as small as the floats allow
		}
		insert(&p, pt{q, f(q)})
	}
	return p[2].x, p[2].y
}

// A pt is a point (x, f(x)) of a line search; y = +∞ for a virtual point.
type pt struct{ x, y float64 }

// insert inserts q, with p[1].x ≤ q.x ≤ p[3].x, among the five points of
// p, sorted by x, keeping p[2] the lowest.
func insert(p *[5]pt, q pt) {
	if q.x < p[2].x {
		if q.y < p[2].y {
			*p = [5]pt{p[0], p[1], q, p[2], p[3]}
		} else {
			*p = [5]pt{p[1], q, p[2], p[3], p[4]}
		}
	} else {
		if q.y < p[2].y {
			*p = [5]pt{p[1], p[2], q, p[3], p[4]}
		} else {
			*p = [5]pt{p[0], p[1], p[2], q, p[3]}
		}
	}
}

// gaps returns the x-gap [x−, x+] in which the minimum lies and the
// y-gap: how far below p[2].y the minimum can be. A virtual point (y =
// +∞) at the x of a real point makes a vertical line there; a line
// through two virtual points is unknown.
func gaps(p *[5]pt) (xm, xp, ygap float64) {
	y2 := p[2].y
	xm, xp = p[1].x, p[3].x
	if x, ok := reach(p[0], p[1], y2); ok {
		xm = min(max(x, p[1].x), p[2].x)
	}
	if x, ok := reach(p[4], p[3], y2); ok {
		xp = min(max(x, p[2].x), p[3].x)
	}
	// ya bounds f below on [x1, x2], yb on [x2, x3]; an empty interval
	// bounds nothing.
	if p[1].x < p[2].x {
		ya, ok := intersect(p[0], p[1], p[2], p[3])
		if !ok {
			return xm, xp, math.Inf(1)
		}
		ygap = max(ygap, y2-ya)
	}
	if p[2].x < p[3].x {
		yb, ok := intersect(p[1], p[2], p[3], p[4])
		if !ok {
			return xm, xp, math.Inf(1)
		}
		ygap = max(ygap, y2-yb)
	}
	return xm, xp, ygap
}

// reach returns the x where the line through a and b reaches height y.
func reach(a, b pt, y float64) (float64, bool) {
	if math.IsInf(a.y, 0) || math.IsInf(b.y, 0) || a.x == b.x || a.y == b.y {
		return 0, false
	}
	return a.x + (y-a.y)*(b.x-a.x)/(b.y-a.y), true
}

// A seg is the line through two points: y = y0 + s·(x − x0), or the
// vertical line x = x0, or unknown.
type seg struct {
	x0, y0, s         float64
	vertical, unknown bool
}

func lineOf(a, b pt) seg {
	ia, ib := math.IsInf(a.y, 1), math.IsInf(b.y, 1)
	switch {
	case ia && ib:
		return seg{unknown: true}
	case ia || ib || a.x == b.x:
		if a.x != b.x {
			return seg{unknown: true}
		}
		return seg{x0: a.x, vertical: true}
	}
	return seg{x0: a.x, y0: a.y, s: (b.y - a.y) / (b.x - a.x)}
}

// intersect returns the height of the intersection of the lines (a, b)
// and (c, d), or false if there is none to bound with. Parallel lines
// give the lower of the four heights.
func intersect(a, b, c, d pt) (float64, bool) {
	l, m := lineOf(a, b), lineOf(c, d)
	switch {
	case l.unknown || m.unknown || l.vertical && m.vertical:
		return 0, false
	case l.vertical:
		return m.y0 + m.s*(l.x0-m.x0), true
	case m.vertical:
		return l.y0 + l.s*(m.x0-l.x0), true
	case l.s == m.s:
		return min(a.y, b.y, c.y, d.y), true
	}
	x := (m.y0 - l.y0 + l.s*l.x0 - m.s*m.x0) / (l.s - m.s)
	return l.y0 + l.s*(x-l.x0), true
}
