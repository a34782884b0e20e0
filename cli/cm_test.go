package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/cluster"
	"github.com/phs-go/phs/cm"
	"github.com/phs-go/phs/domain/rubiks"
	"github.com/phs-go/phs/domain/witness"
	"github.com/phs-go/phs/search"
)

// replayAll checks that every solution of the records out replays to the
// goal of its problem, of the witness puzzles of file, and returns the
// number of problems solved.
func replayAll(t *testing.T, out, file string) int {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps, err := witness.Parse(f, file)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*witness.Problem{}
	for i, p := range ps {
		byID[filepath.Base(file)+"#"+strconv.Itoa(i)] = p
		byID[p.ID] = p
	}
	solved := 0
	for _, r := range decodeRecords(t, out) {
		if !r.Solved {
			continue
		}
		solved++
		p, ok := byID[r.Problem]
		if !ok {
			t.Fatalf("a record of an unknown problem %q", r.Problem)
		}
		actions, err := search.ParseActions(p, r.Solution)
		if err == nil {
			err = search.Replay(p, actions)
		}
		if err != nil {
			t.Errorf("%s: solution %q: %v", r.Problem, r.Solution, err)
		}
	}
	return solved
}

// witnessTasks returns the tasks of the Witness puzzles of file, in
// order, as a run of phs train has them.
func witnessTasks(t *testing.T, file string) []search.Task[witness.State] {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps, err := witness.Parse(f, file)
	if err != nil {
		t.Fatal(err)
	}
	var tasks []search.Task[witness.State]
	for _, p := range ps {
		tasks = append(tasks, search.Task[witness.State]{ID: p.ID, Problem: p})
	}
	return tasks
}

// TestTrainContextModel trains a context model on 3x3 Witness puzzles,
// resumes the run, and solves and tests with the run, its checkpoint and
// a table file, whose solutions replay.
func TestTrainContextModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wit := trainingSet(t, dir)
	run := filepath.Join(dir, "run")
	if _, errOut, err := runPHS(t, "train", "-domain", "witness", "-learner", "context", "-cm-lambda", "5", "-iterations", "1", "-budget", "50", "-dir", run, wit); err != nil {
		t.Fatalf("train: %v\n%s", err, errOut)
	}
	if _, err := os.Stat(filepath.Join(run, "checkpoint", cm.LearnerFile)); err != nil {
		t.Errorf("the checkpoint holds no %s, which tells -resume the kind of learner: %v", cm.LearnerFile, err)
	}
	if bc, err := bootstrap.ReadConfig(run); err != nil || bc.Algorithm.Name() != "levints" || bc.Options.Mix != cm.DefaultTrainMix {
		t.Errorf("the checkpoint's algorithm and mix: %v, %+v, %v; want levints, and the reference's mix %g without -mix", bc.Algorithm, bc.Options, err, cm.DefaultTrainMix)
	}
	if _, _, err := runPHS(t, "train", "-resume", run, "-cm-lambda", "1"); err == nil || !strings.Contains(err.Error(), "-cm-lambda") {
		t.Errorf("changing -cm-lambda on resume: %v", err)
	}
	if _, errOut, err := runPHS(t, "train", "-resume", run, "-iterations", "3", "-learner-threads", "2"); err != nil {
		t.Fatalf("resume: %v\n%s", err, errOut)
	}
	if its := readMetrics(t, run); len(its) != 3 || its[0].TotalSolved == 0 {
		t.Errorf("metrics after resumption: %+v; want 3 iterations, the first solving some", its)
	}
	l, err := cm.LoadLearner(filepath.Join(run, "checkpoint"), 0, witnessTasks(t, wit)...)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Config().Lambda; got != 5 {
		t.Errorf("the resumed learner's λ is %g, want -cm-lambda's 5", got)
	}
	if l.Table().Rows() == 0 {
		t.Errorf("the trained table has no rows")
	}
	table := filepath.Join(dir, "model.safetensors")
	if err := cm.WriteTable(table, l.Table()); err != nil {
		t.Fatal(err)
	}

	out, errOut, err := runPHS(t, "test", "-domain", "witness", "-model", run, "-budget", "10", wit)
	if err != nil {
		t.Fatalf("test: %v\n%s", err, errOut)
	}
	if n := len(decodeRecords(t, out)); n != 40 {
		t.Errorf("test: %d records, want 40", n)
	}
	if solved := replayAll(t, out, wit); solved != 40 {
		t.Errorf("test: %d of 40 solved", solved)
	}
	for _, m := range []string{run, filepath.Join(run, "checkpoint"), table} {
		out, errOut, err := runPHS(t, "solve", "-domain", "witness", "-model", m, "-budget", "2000", wit)
		if err != nil {
			t.Fatalf("solve -model %s: %v\n%s", m, err, errOut)
		}
		if solved := replayAll(t, out, wit); solved == 0 {
			t.Errorf("solve -model %s: nothing solved", m)
		}
		if recs := decodeRecords(t, out); recs[0].Algorithm != "levints" {
			t.Errorf("solve -model %s: algorithm %s, want levints", m, recs[0].Algorithm)
		}
	}
	for _, args := range [][]string{
		{"plot", "-out", filepath.Join(dir, "c.png"), run},
		{"plot", "-fraction", "-out", filepath.Join(dir, "c.svg"), run},
	} {
		if _, _, err := runPHS(t, args...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}

}

// TestResumeWithoutLearnerFiles checks that -resume of a context model's
// run whose checkpoint lacks cm.json names that file, and that of a run
// whose run.json does not say its kind of learner (an earlier phs's) and
// whose checkpoint holds neither cm.json nor a network's config.json
// names both, not the one it would read for a network.
func TestResumeWithoutLearnerFiles(t *testing.T) {
	dir := t.TempDir()
	wit := trainingSet(t, dir)
	run := filepath.Join(dir, "run")
	if _, errOut, err := runPHS(t, "train", "-domain", "witness", "-learner", "context", "-iterations", "1", "-budget", "50", "-dir", run, wit); err != nil {
		t.Fatalf("train: %v\n%s", err, errOut)
	}
	learnerFile := filepath.Join(run, "checkpoint", cm.LearnerFile)
	if err := os.Remove(learnerFile); err != nil {
		t.Fatal(err)
	}
	_, _, err := runPHS(t, "train", "-resume", run, "-iterations", "2")
	if err == nil || !strings.Contains(err.Error(), learnerFile) {
		t.Errorf("-resume without %s: %v; want an error that names it", learnerFile, err)
	}

	// run.json as an earlier phs wrote it, without the kind of learner.
	b, err := os.ReadFile(filepath.Join(run, runFile))
	if err != nil {
		t.Fatal(err)
	}
	var saved map[string]any
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	delete(saved, "learner")
	if b, err = json.Marshal(saved); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, runFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = runPHS(t, "train", "-resume", run, "-iterations", "2")
	if err == nil || !strings.Contains(err.Error(), "neither cm.json") || !strings.Contains(err.Error(), "nor config.json") ||
		!strings.Contains(err.Error(), filepath.Join(run, "checkpoint")) {
		t.Errorf("-resume of an earlier run.json without %s: %v; want an error that names the checkpoint, cm.json and config.json", learnerFile, err)
	}
}

// TestTrainContextModelRubiks trains a context model on scrambles of 1
// to 4 turns for one iteration and solves them with it: every solution
// replays, with fewer expansions than LevinTS without a model.
func TestTrainContextModelRubiks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cubes, run := filepath.Join(dir, "cubes.txt"), filepath.Join(dir, "run")
	if _, _, err := runPHS(t, "generate", "rubiks", "-scramble", "1:4", "-n", "30", "-seed", "3", "-out", cubes); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := runPHS(t, "train", "-domain", "rubiks", "-learner", "context", "-iterations", "1", "-budget", "2000", "-dir", run, cubes); err != nil {
		t.Fatalf("train: %v\n%s", err, errOut)
	}
	if its := readMetrics(t, run); len(its) != 1 || its[0].TotalSolved == 0 {
		t.Fatalf("metrics: %+v; want 1 iteration solving some", its)
	}
	ps, err := rubiks.ReadFile(cubes)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*rubiks.Problem{}
	for _, p := range ps {
		byID[p.ID] = p
	}
	// solve returns the expansions of the records of solve with args,
	// each solved and replayed.
	solve := func(args ...string) (expansions int64) {
		args = append([]string{"solve", "-domain", "rubiks", "-budget", "2000"}, append(args, cubes)...)
		out, errOut, err := runPHS(t, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut)
		}
		recs := decodeRecords(t, out)
		if len(recs) != len(ps) {
			t.Fatalf("%v: %d records, want %d", args, len(recs), len(ps))
		}
		for _, r := range recs {
			p, ok := byID[r.Problem]
			if !ok || !r.Solved || r.Algorithm != "levints" {
				t.Fatalf("%v: %+v; want a cube of the file solved by levints", args, r)
			}
			actions, err := search.ParseActions(p, r.Solution)
			if err == nil {
				err = search.Replay(p, actions)
			}
			if err != nil {
				t.Fatalf("%v: %s: solution %q: %v", args, r.Problem, r.Solution, err)
			}
			expansions += r.Expansions
		}
		return expansions
	}
	// levints reads no heuristic: -no-heuristic spares the building of
	// the cube's (a pattern database).
	if learned, uniform := solve("-model", run), solve("-model", "none", "-no-heuristic", "-alg", "levints"); learned >= uniform {
		t.Errorf("%d expansions with the context model, %d without; want fewer", learned, uniform)
	} else {
		t.Logf("%d expansions with the context model, %d without", learned, uniform)
	}
}

// TestTrainContextModelFrom trains a context model on cubes of 1–3
// turns, then starts a second run from it (-model) on cubes of 3–6
// turns: its first iteration solves more of them in fewer expansions than
// a fresh model's; and a table of another domain is refused. 40 cubes of
// each, 20 with -short.
func TestTrainContextModelFrom(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	easy, hard := filepath.Join(dir, "easy.txt"), filepath.Join(dir, "hard.txt")
	n := "40"
	if testing.Short() {
		n = "20"
	}
	for _, g := range []struct{ file, scramble, seed string }{{easy, "1:3", "4"}, {hard, "3:6", "5"}} {
		if _, _, err := runPHS(t, "generate", "rubiks", "-scramble", g.scramble, "-n", n, "-seed", g.seed, "-out", g.file); err != nil {
			t.Fatal(err)
		}
	}
	first := filepath.Join(dir, "first")
	if _, errOut, err := runPHS(t, "train", "-domain", "rubiks", "-learner", "context", "-iterations", "2", "-budget", "2000", "-dir", first, easy); err != nil {
		t.Fatalf("train: %v\n%s", err, errOut)
	}
	iteration := func(args ...string) bootstrap.Iteration {
		run := filepath.Join(dir, fmt.Sprint("run", len(args)))
		args = append([]string{"train", "-domain", "rubiks", "-learner", "context", "-iterations", "1", "-budget", "3000", "-dir", run}, append(args, hard)...)
		if _, errOut, err := runPHS(t, args...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut)
		}
		its := readMetrics(t, run)
		if len(its) != 1 {
			t.Fatalf("%v: metrics %+v; want 1 iteration", args, its)
		}
		return its[0]
	}
	fresh, from := iteration(), iteration("-model", first)
	t.Logf("first iteration on 3–6 turns: fresh %d solved, %d expansions; from the 1–3 model %d solved, %d expansions", fresh.Solved, fresh.Expansions, from.Solved, from.Expansions)
	if from.Solved <= fresh.Solved || from.Expansions >= fresh.Expansions {
		t.Errorf("from the 1–3 model: %d solved in %d expansions; fresh: %d in %d; want more in fewer", from.Solved, from.Expansions, fresh.Solved, fresh.Expansions)
	}

	wit := trainingSet(t, dir)
	wrun := filepath.Join(dir, "witness-run")
	_, _, err := runPHS(t, "train", "-domain", "witness", "-learner", "context", "-model", first, "-dir", wrun, wit)
	if err == nil || !strings.Contains(err.Error(), "rubiks v2") {
		t.Errorf("a rubiks table for witness puzzles: %v; want an error naming its context set", err)
	}
}

// TestContextModelMismatch checks that solve and test refuse a context
// model for problems of another domain, board size or context layout,
// domains without contexts, and algorithms that read a heuristic.
func TestContextModelMismatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wit := trainingSet(t, dir)
	run := filepath.Join(dir, "run")
	if _, errOut, err := runPHS(t, "train", "-domain", "witness", "-learner", "context", "-iterations", "1", "-budget", "50", "-dir", run, wit); err != nil {
		t.Fatalf("train: %v\n%s", err, errOut)
	}
	wit4 := filepath.Join(dir, "w4.txt")
	if _, _, err := runPHS(t, "generate", "witness", "-n", "2", "-size", "4x4", "-out", wit4); err != nil {
		t.Fatal(err)
	}
	tiles := writeFile(t, "tiles.txt", stpFixture)
	cube := writeFile(t, "cube.txt", "UUUUUUUUUBBBRRRRRRRRRFFFFFFDDDDDDDDDFFFLLLLLLLLLBBBBBB\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"solve", "-domain", "stp", "-model", run, tiles}, `the model is for the context set "witness 3x3 v1", the problem has "stp 2x2 v2"`},
		{[]string{"test", "-domain", "witness", "-model", run, wit4}, `the problem has "witness 4x4 v1"`},
		{[]string{"solve", "-domain", "rubiks", "-model", run, cube}, `the model is for the context set "witness 3x3 v1", the problem has "rubiks v2"`},
		{[]string{"solve", "-domain", "witness", "-model", run, "-alg", "astar", wit}, "-alg astar: astar reads a heuristic"},
		{[]string{"test", "-domain", "witness", "-model", run, "-alg", "gbfs", wit}, "-alg gbfs: gbfs reads a heuristic"},
		{[]string{"solve", "-domain", "witness", "-model", filepath.Join(run, "metrics.csv"), wit}, "metrics.csv: safetensors: "},
	} {
		_, _, err := runPHS(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
	// A domain without contexts.
	lines := writeFile(t, "lines.txt", "3\n")
	args := []string{"solve", "-domain", "line", "-model", run, lines}
	err := Run(context.Background(), args, io.Discard, io.Discard, NewDomain[int]("line", parseLines))
	if want := "the line domain has no contexts"; exitCode(err) != 2 || !strings.Contains(err.Error(), want) {
		t.Errorf("%v: %v, want a usage error with %q", args, err, want)
	}
}

// TestContextTrainFlags checks the usage errors of train's context-model
// flags, each named with its value.
func TestContextTrainFlags(t *testing.T) {
	dir := t.TempDir()
	wit := trainingSet(t, dir)
	ctxTrain := []string{"train", "-domain", "witness", "-learner", "context", "-dir", filepath.Join(dir, "run")}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "-domain", "witness", "-learner", "table", "-dir", filepath.Join(dir, "run"), wit}, `-learner "table": want network or context`},
		{append(ctxTrain, "-mix", "1", wit), "-mix 1: bootstrap: search: mix 1"},
		{append(ctxTrain, "-mix", "-0.5", wit), "-mix -0.5"},
		{append(ctxTrain, "-cm-eps-low", "2", wit), "-cm-eps-low 2: cm: learner: εlow 2"},
		{append(ctxTrain, "-cm-lambda", "-1", wit), "-cm-lambda -1: cm: learner: λ -1"},
		{append(ctxTrain, "-cm-lambda", "Inf", wit), "-cm-lambda +Inf"},
		{append(ctxTrain, "-cm-steps", "-3", wit), "-cm-steps -3"},
		{append(ctxTrain, "-cm-growth", "-1", wit), "-cm-growth -1: cm: learner: growth -1"},
		{append(ctxTrain, "-cm-growth", "NaN", wit), "-cm-growth NaN"},
		{append(ctxTrain, "-cm-bits", "4", wit), "-cm-bits 4: cm: learner: bits 4; want 0 (exact), 8 or 16"},
		{append(ctxTrain, "-alg", "phsh", wit), "-alg phsh: phsh reads a heuristic, and a context model has none"},
		{append(ctxTrain, "-alg", "astar", wit), "-alg astar: astar reads a heuristic"},
		{append(ctxTrain, "-lr", "0.1", wit), "-lr 0.1: -learner context trains a context model, which does not read it"},
		{append(ctxTrain, "-arch", "resnet", wit), "-arch resnet: -learner context trains a context model, which does not read it"},
		{append(ctxTrain, "-passes", "2", wit), "-passes 2"},
		{append(ctxTrain, "-learner-threads", "65", wit), "-learner-threads 65"},
		{append(ctxTrain, "-model", dir, wit), "-model " + dir + ": not a context model"},
		{append(ctxTrain, "-budget", "-1", wit), "-budget -1"},
		{[]string{"train", "-domain", "witness", "-cm-lambda", "3", "-dir", filepath.Join(dir, "run"), wit}, "-cm-lambda 3: -learner network trains a network"},
	} {
		_, _, err := runPHS(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, new(usageError)) {
			t.Errorf("%v: %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "run")); err == nil {
		t.Errorf("a refused run made its directory")
	}
}

// TestContextModelOverNATS trains a context model, exact or quantised
// (-cm-bits 8: its snapshots in the compact form), with a learner and one
// "phs worker" process, which learns the kind of learner from the run.
func TestContextModelOverNATS(t *testing.T) {
	for _, bits := range []string{"0", "8"} {
		t.Run("bits="+bits, func(t *testing.T) {
			t.Parallel() // the processes wait more than they work
			testContextModelOverNATS(t, bits)
		})
	}
}

func testContextModelOverNATS(t *testing.T, bits string) {
	dir := t.TempDir()
	wit := trainingSet(t, dir)
	run := filepath.Join(dir, "run")
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	const iterations = 2
	_, seed, err := workerKey(run)
	if err != nil {
		t.Fatal(err)
	}
	learner := startPHS(t, "train", "-domain", "witness", "-learner", "context", "-cm-bits", bits, "-dir", run, "-listen", addr,
		"-workers", "2", "-budget", "50", "-iterations", strconv.Itoa(iterations), "-ack-wait", "2s", wit)
	worker := startPHS(t, "worker", "-connect", "nats://"+addr, "-nkey", seed, "-workers", "2")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the learner's output:\n%s\nthe worker's:\n%s", learner.out.String(), worker.out.String())
		}
	})
	if err := learner.wait(t, 120*time.Second); err != nil {
		t.Fatalf("learner: %v", err)
	}
	if err := worker.wait(t, 20*time.Second); err != nil || !strings.Contains(worker.out.String(), "training over") {
		t.Errorf("worker: %v, want it to stop when training is over", err)
	}
	its := readMetrics(t, run)
	if len(its) != iterations {
		t.Fatalf("%d iterations, want %d", len(its), iterations)
	}
	for _, it := range its {
		if it.Attempted != 40 {
			t.Errorf("iteration %d attempted %d problems, want 40", it.Iteration, it.Attempted)
		}
	}
	if its[len(its)-1].TotalSolved == 0 {
		t.Errorf("nothing solved over NATS")
	}
	if _, err := cm.LoadLearner(filepath.Join(run, "checkpoint"), 0, witnessTasks(t, wit)...); err != nil {
		t.Errorf("the run's checkpoint: %v", err)
	}
}

// TestWorkerLearnerKind checks that a worker refuses a run whose kind of
// learner it does not know, and a context model's run in a domain without
// contexts, before it talks to the server.
func TestWorkerLearnerKind(t *testing.T) {
	domains := map[string]Domain{}
	for _, d := range append(Shipped(), NewDomain[int]("line", parseLines)) {
		domains[d.Name()] = d
	}
	for _, tc := range []struct {
		domain, learner, want string
	}{
		{"witness", "table", `the run's learner is "table"`},
		{"stp", "", `the run's learner is ""`},
		{"line", learnerContext, "the line domain has no contexts"},
	} {
		spec := cluster.Spec{Domain: tc.domain, Learner: tc.learner}
		err := domains[tc.domain].d.work(context.Background(), nil, spec, nil, cluster.WorkerOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s, learner %q: %v, want an error with %q", tc.domain, tc.learner, err, tc.want)
		}
	}
}
