package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/phs-go/phs/domain/stp"
	"github.com/phs-go/phs/search"
)

// A line is a problem without a heuristic or an encoding: walk from 0 to
// a target by steps of +1 or -1.
type line struct{ target int }

func (l line) Root() int                  { return 0 }
func (l line) NumActions() int            { return 2 }
func (l line) Apply(s, a int) (int, bool) { return s + 1 - 2*a, true }
func (l line) IsGoal(s int) bool          { return s == l.target }

func parseLines(r io.Reader, file string) ([]line, error) {
	var ls []line
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		x, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
		if err != nil {
			return nil, fmt.Errorf("line: %s:%d: %v", file, n, err)
		}
		ls = append(ls, line{x})
	}
	return ls, sc.Err()
}

// TestNewDomainChecks checks that NewDomain and Run refuse what does not
// fit when they are called.
func TestNewDomainChecks(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"bad name", func() { NewDomain[int]("Line", parseLines) }, "want a name"},
		{"no parser", func() { NewDomain[int]("line", (func(io.Reader, string) ([]line, error))(nil)) }, "no parse function"},
		{"budget", func() { NewDomain[int]("line", parseLines, InitialBudget(0)) }, "InitialBudget(0)"},
		{"heuristic", func() { NewDomain[int]("line", parseLines, NoModelAlgorithm(search.GBFS())) }, "reads a heuristic"},
		{"id type", func() {
			NewDomain[int]("line", parseLines, ProblemID(func(p *stp.Problem[stp.State]) string { return p.ID }))
		}, "ProblemID takes"},
		{"parse-first type", func() { NewDomain[int]("line", parseLines, ParseFirst(stp.ParseFirst[stp.State])) }, "ParseFirst takes"},
		{"no domains", func() { Run(context.Background(), nil, io.Discard, io.Discard) }, "without domains"},
		{"zero domain", func() { Run(context.Background(), nil, io.Discard, io.Discard, Domain{}) }, "zero Domain"},
		{"twice", func() {
			d := NewDomain[int]("line", parseLines)
			Run(context.Background(), nil, io.Discard, io.Discard, d, d)
		}, "two domains"},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("%s: panic %v, want one with %q", tc.name, r, tc.want)
				}
			}()
			tc.f()
		}()
	}
}

// TestDomainCapabilities checks what the commands do with a domain whose
// problems have neither a heuristic nor an encoding.
func TestDomainCapabilities(t *testing.T) {
	d := NewDomain[int]("line", parseLines)
	file := writeFile(t, "lines.txt", "3\n-2\n")
	runLine := func(args ...string) (string, error) {
		var o strings.Builder
		err := Run(context.Background(), args, &o, io.Discard, d)
		return o.String(), err
	}
	out, err := runLine("solve", "-domain", "line", "-progress", "0", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range decodeRecords(t, out) {
		// LevinTS under the uniform policy: breadth-first, the shortest
		// solutions; actions spelled by index.
		if !r.Solved || r.Algorithm != "levints" || (r.Problem == "lines.txt#0" && r.Solution != "0 0 0") {
			t.Errorf("%+v", r)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"solve", "-domain", "line", "-alg", "astar", file}, "the line domain has none"},
		{[]string{"solve", "-domain", "line", "-prune-deadlocks", file}, "no deadlock pruning"},
		{[]string{"train", "-domain", "line", "-dir", t.TempDir() + "/run", file}, "no network encoding"},
		{[]string{"train", "-domain", "line", "-learner", "context", "-dir", t.TempDir() + "/run", file}, "the line domain has no contexts"},
		{[]string{"generate", "line"}, "without a generator"},
		{[]string{"solve", "-domain", "stp", file}, "unknown domain"},
	} {
		if _, err := runLine(tc.args...); exitCode(err) != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
	if out, err := runLine("solve", "-domain", "line", "-alg", "astar", "-no-heuristic", "-progress", "0", file); err != nil || len(decodeRecords(t, out)) != 2 {
		t.Errorf("astar -no-heuristic: %v\n%s", err, out)
	}
}

// A ctxLine is a line with contexts: the one mutex set tells whether the
// target lies ahead, behind, or here.
type ctxLine struct{ line }

// parseCtxLines parses lines as parseLines does, as ctxLines.
func parseCtxLines(r io.Reader, file string) ([]ctxLine, error) {
	ls, err := parseLines(r, file)
	cs := make([]ctxLine, len(ls))
	for i, l := range ls {
		cs[i] = ctxLine{l}
	}
	return cs, err
}

func (l ctxLine) ContextLayout() (string, []uint64) { return "line v1", []uint64{3} }

func (l ctxLine) Contexts(_ int, _ int, s int, dst []uint64) {
	switch {
	case s < l.target:
		dst[0] = 0
	case s > l.target:
		dst[0] = 1
	default:
		dst[0] = 2
	}
}

// TestDomainContexts checks that a domain of the caller's whose problem
// type has contexts (cm.Contexter) trains a context model and solves with
// it, and that every shipped domain has contexts.
func TestDomainContexts(t *testing.T) {
	d := NewDomain[int]("line", parseCtxLines)
	file := writeFile(t, "lines.txt", "7\n-6\n5\n-8\n")
	run := t.TempDir() + "/run"
	var errOut strings.Builder
	if err := Run(context.Background(), []string{"train", "-domain", "line", "-learner", "context", "-budget", "10", "-batch", "1", "-iterations", "6", "-dir", run, file}, io.Discard, &errOut, d); err != nil {
		t.Fatalf("train: %v\n%s", err, errOut.String())
	}
	// The trained policy heads for the target: a budget of 9 expansions
	// solves every problem, which it does not under the uniform policy.
	solved := func(m string) (n int) {
		var o strings.Builder
		if err := Run(context.Background(), []string{"solve", "-domain", "line", "-model", m, "-batch", "1", "-budget", "9", file}, &o, io.Discard, d); err != nil {
			t.Fatal(err)
		}
		for _, r := range decodeRecords(t, o.String()) {
			if r.Solved {
				n++
			}
		}
		return n
	}
	if n, uniform := solved(run), solved("none"); n != 4 || uniform == 4 {
		t.Errorf("with the context model, %d of 4 solved in 9 expansions, without %d; want 4, and fewer", n, uniform)
	}
	for _, d := range Shipped() {
		if !d.d.caps().contexts {
			t.Errorf("%s: no contexts", d.Name())
		}
	}
}
