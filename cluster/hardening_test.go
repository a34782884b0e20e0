package cluster

import (
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/network"
	"github.com/phs-go/phs/search"
)

// worker starts a worker that joins the run on s, and returns the channel
// of its error.
func startWorker(ctx context.Context, t *testing.T, nc *nats.Conn, name string, log *slog.Logger) <-chan error {
	t.Helper()
	tasks, _, _ := run(t)
	errs := make(chan error, 1)
	go func() {
		spec, _, err := Join(ctx, nc)
		if err == nil {
			err = Work(ctx, nc, spec, tasks, network.DecodeSnapshot[int32], WorkerOptions{Name: name, Searches: 1, Version: "test", Learner: "network", Logger: log})
		}
		errs <- err
	}()
	return errs
}

// waitFor waits until log holds want, n times if n is given, for at most
// 30 s (a loaded machine may take long to start a worker).
func waitFor(t *testing.T, log *syncBuffer, want string, n ...int) {
	t.Helper()
	times := 1
	if len(n) > 0 {
		times = n[0]
	}
	timeout := time.After(30 * time.Second)
	for {
		s, written := log.next()
		if strings.Count(s, want) >= times {
			return
		}
		select {
		case <-written:
		case <-timeout:
			t.Fatalf("the log lacks %q:\n%s", want, log.String())
		}
	}
}

// TestForeignMessages checks that jobs of another run or session, or of
// the learner's session but not of its run and budget, a forged end of the
// run and reports of another run are dropped with a warning, and that the run goes on: no worker stops, workers started
// after them too, until the learner ends the run.
func TestForeignMessages(t *testing.T) {
	t.Parallel()
	s := serve(t)
	tasks, m, spec := run(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var llog, wlog syncBuffer
	l, err := NewLearner(ctx, connect(t, s), spec, []File{{"mazes.txt", nil}}, Options{AckWait: 2 * time.Second, Logger: slog.New(slog.NewTextHandler(&llog, nil))})
	if err != nil {
		t.Fatal(err)
	}
	nc := connect(t, s)
	poison := func() {
		t.Helper()
		job := []byte(`{"run": "r", "iteration": 1, "pos": 0, "problem": 0, "budget": 1}`)
		for _, h := range []nats.Header{
			{sessionHeader: {"another session"}, "Phs-Problems": {"0123456789abcdef"}},
			{"Phs-Problems": {"0123456789abcdef"}},
			{sessionHeader: {l.Session()}}, // of a run and a budget the learner's spec does not hold
		} {
			if err := nc.PublishMsg(&nats.Msg{Subject: jobsSubject, Data: job, Header: h}); err != nil {
				t.Fatal(err)
			}
		}
	}
	poison()
	wl := slog.New(slog.NewTextHandler(&wlog, nil))
	first := startWorker(ctx, t, connectWorker(t, s), "first", wl)
	waitFor(t, &wlog, "job of another run or learner dropped")
	waitFor(t, &wlog, "job refused: its run, iteration or budget is not the run's")
	for _, done := range []string{"done", "done another session", "done " + l.Session() + "x"} {
		if err := nc.Publish(controlSubject, []byte(done)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, &wlog, "ignored an end of the run that is not from the run's learner")
	poison()
	second := startWorker(ctx, t, connectWorker(t, s), "second", wl)
	rep, _ := json.Marshal(bootstrap.Report{Job: bootstrap.Job{Run: "another run", Iteration: 1, Budget: 8}, Worker: "stranger"})
	if err := nc.Publish(reportsSubject, rep); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &llog, "worker joined", 2)

	cfg := bootstrap.Config{Algorithm: spec.Algorithm, Options: spec.Options, ProblemsPerUpdate: 8,
		Limits: bootstrap.Limits{MaxIterations: 1}, Async: true}
	cfg.Options.Budget = 8
	metrics, err := bootstrap.Train(ctx, t.TempDir(), tasks, learner(t, m), cfg, bootstrap.Env{Workers: 2, Pool: l})
	if err != nil {
		t.Fatalf("%v\nlearner:\n%s\nworkers:\n%s", err, llog.String(), wlog.String())
	}
	if metrics[0].Attempted != len(tasks) {
		t.Errorf("%d attempted, want %d", metrics[0].Attempted, len(tasks))
	}
	for _, errs := range []<-chan error{first, second} {
		select {
		case err := <-errs:
			t.Fatalf("a worker stopped before the end of the run: %v\n%s", err, wlog.String())
		default:
		}
	}
	if err := l.Close(true); err != nil {
		t.Fatal(err)
	}
	for _, errs := range []<-chan error{first, second} {
		select {
		case err := <-errs:
			if err != nil {
				t.Errorf("worker: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("a worker did not stop when training was over:\n%s", wlog.String())
		}
	}
	if want := "report of a job not submitted dropped"; !strings.Contains(llog.String(), want) {
		t.Errorf("the learner's log lacks %q:\n%s", want, llog.String())
	}
}

// TestReportChecks checks that the learner passes on only the first
// report of an outstanding job, without an error, whose counts are within
// its budget and fit its reason to stop, and submits again the job of a
// report it rejects. The reports come from a worker.
func TestReportChecks(t *testing.T) {
	t.Parallel()
	s := serve(t)
	_, m, spec := run(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var log syncBuffer
	debug := &slog.HandlerOptions{Level: slog.LevelDebug} // which logs the second report of the job
	l, err := NewLearner(ctx, connect(t, s), spec, []File{{"mazes.txt", nil}}, Options{Logger: slog.New(slog.NewTextHandler(&log, debug))})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(false)
	snap := learner(t, m).Snapshot()
	if err := l.Publish(ctx, 1, snap); err != nil {
		t.Fatal(err)
	}
	j := bootstrap.Job{Run: "r", Iteration: 1, Pos: 0, Problem: 3, Budget: 100}
	if err := l.Submit(ctx, j); err != nil {
		t.Fatal(err)
	}
	good := bootstrap.Report{Job: j, Version: 1, Expansions: 7, Evaluations: 20, Stop: search.StopExhausted}
	forge := func(edit func(*bootstrap.Report)) bootstrap.Report {
		r := good
		edit(&r)
		return r
	}
	nc := connectWorker(t, s)
	for _, r := range []bootstrap.Report{
		forge(func(r *bootstrap.Report) { r.Err = "the end of the run" }),
		forge(func(r *bootstrap.Report) { r.Stop = "" }),
		forge(func(r *bootstrap.Report) { r.Stop = search.StopBudget }),
		forge(func(r *bootstrap.Report) { r.Stop = search.StopTimeout }),
		forge(func(r *bootstrap.Report) { r.Stop = "tired" }),
		forge(func(r *bootstrap.Report) { r.Solved, r.Actions = true, []int{1} }),
		forge(func(r *bootstrap.Report) { r.Expansions = 9e18 }),
		forge(func(r *bootstrap.Report) { r.Expansions = -1 }),
		forge(func(r *bootstrap.Report) { r.Evaluations = -1 }),
		forge(func(r *bootstrap.Report) { r.Budget = 9e18; r.Expansions = 1e18 }),
		forge(func(r *bootstrap.Report) { r.Problem = 4 }),
		forge(func(r *bootstrap.Report) { r.Version = 2 }),
		forge(func(r *bootstrap.Report) { r.Version = -9e18 }),
		forge(func(r *bootstrap.Report) { r.Actions = []int{1} }),
		forge(func(r *bootstrap.Report) { r.Solved, r.Actions = true, make([]int, 9) }),
		forge(func(r *bootstrap.Report) { r.Run = "another run" }),
		forge(func(r *bootstrap.Report) { r.Pos = 1 }),
		good,
		good,
	} {
		b, _ := json.Marshal(r)
		if err := nc.Publish(reportsSubject, b); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case got := <-l.Reports():
		if got.Expansions != good.Expansions || got.Version != good.Version || got.Job != good.Job {
			t.Errorf("the learner passed on %+v, want %+v", got, good)
		}
	case <-ctx.Done():
		t.Fatalf("no report passed on:\n%s", log.String())
	}
	// The second report of the job, the last one, is dropped; then nothing
	// is left to pass on.
	waitFor(t, &log, "report of a job already reported dropped")
	select {
	case got := <-l.Reports():
		t.Errorf("the learner passed on a second report of the job: %+v", got)
	default:
	}
	for _, want := range []string{"9000000000000000000 expansions for a budget of 100", "-1 expansions", "-1 evaluations",
		"the job is", "snapshot version 2; the learner published up to 1", "snapshot version -9000000000000000000",
		"actions without a solution", "a solution of 9 actions in 7 expansions", "report of a job not submitted dropped",
		"the search failed: the end of the run", "unsolved in 7 expansions of a budget of 100, without a reason",
		"stopped by the budget of 100 after 7 expansions", "stopped by a timeout; the run has none", `unknown reason \"tired\"`,
		`solved, and stopped for reason \"exhausted\"`} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, log.String())
		}
	}
	js, _ := jetstream.New(connect(t, s))
	info, err := js.Stream(ctx, jobsStream)
	if err != nil {
		t.Fatal(err)
	}
	if n := info.CachedInfo().State.Msgs; n < 2 {
		t.Errorf("%d jobs queued; the job was not submitted again", n)
	}
}

// A sabotaged pool is a Learner whose first Publish after the first
// update deletes the run's reports stream, jobs consumer and object store
// before it publishes.
type sabotaged struct {
	*Learner
	t    *testing.T
	done bool
}

func (p *sabotaged) Publish(ctx context.Context, v int64, snap encoding.BinaryMarshaler) error {
	if v >= 1 && !p.done {
		p.done = true
		js := p.js
		for _, err := range []error{
			js.DeleteStream(ctx, reportsStream),
			js.DeleteConsumer(ctx, jobsStream, consumerName),
			js.DeleteObjectStore(ctx, bucketName),
		} {
			if err != nil {
				p.t.Error(err)
			}
		}
	}
	return p.Learner.Publish(ctx, v, snap)
}

// TestRepair checks that a run whose reports stream, jobs consumer and
// object store are deleted while it runs goes on: the learner logs what
// it waits for and makes them again.
func TestRepair(t *testing.T) {
	// Not in parallel: see TestMain.
	s := serve(t)
	tasks, m, spec := run(t)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	var log syncBuffer
	l, err := NewLearner(ctx, connect(t, s), spec, []File{{"mazes.txt", nil}},
		Options{AckWait: time.Second, StallAfter: time.Second, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	var wlog syncBuffer
	errs := startWorker(ctx, t, connectWorker(t, s), "w", slog.New(slog.NewTextHandler(&wlog, nil)))
	cfg := bootstrap.Config{Algorithm: spec.Algorithm, Options: spec.Options, ProblemsPerUpdate: 8,
		Limits: bootstrap.Limits{MaxIterations: 1}, Async: true}
	cfg.Options.Budget = 8
	metrics, err := bootstrap.Train(ctx, t.TempDir(), tasks, learner(t, m), cfg, bootstrap.Env{Workers: 2, Pool: &sabotaged{Learner: l, t: t}})
	if err != nil {
		t.Fatalf("%v\nlearner:\n%s\nworker:\n%s", err, log.String(), wlog.String())
	}
	if err := l.Close(true); err != nil {
		t.Fatal(err)
	}
	if err := <-errs; err != nil {
		t.Errorf("worker: %v", err)
	}
	if metrics[0].Attempted != len(tasks) {
		t.Errorf("%d attempted, want %d", metrics[0].Attempted, len(tasks))
	}
	if testing.Verbose() {
		t.Logf("learner:\n%s\nworker:\n%s", log.String(), wlog.String())
	}
	for _, want := range []string{"the stream is missing; making it again", "the consumer is missing; making it again",
		"the run's object store is missing; making it again", "submitting the outstanding jobs again"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the learner's log lacks %q:\n%s", want, log.String())
		}
	}
}

// TestStallLogged checks that a learner whose jobs nobody takes says what
// it waits for.
func TestStallLogged(t *testing.T) {
	t.Parallel()
	s := serve(t)
	_, _, spec := run(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var log syncBuffer
	l, err := NewLearner(ctx, connect(t, s), spec, []File{{"mazes.txt", nil}}, Options{StallAfter: 500 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(false)
	if err := l.Submit(ctx, bootstrap.Job{Run: "r", Iteration: 2, Pos: 5, Problem: 3, Budget: 100}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &log, `msg="waiting for reports" jobs_outstanding=1 iteration=2 oldest_pos=5 oldest_problem=3`)
	waitFor(t, &log, "workers_joined=0 jobs_queued=1")
}

// TestLimits checks the bounds of the run's messages, streams and object
// store: a client cannot fill the server's disk or memory with them.
func TestLimits(t *testing.T) {
	t.Parallel()
	s := serve(t)
	_, _, spec := run(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := NewLearner(ctx, connect(t, s), spec, []File{{"mazes.txt", []byte("mazes")}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	l.Close(false) // no reader: the reports stay in their stream
	nc := connect(t, s)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{jobsStream, reportsStream, "OBJ_" + bucketName} {
		st, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		c := st.CachedInfo().Config
		limit, size := int64(maxStream), c.MaxMsgSize
		if name == "OBJ_"+bucketName {
			limit, size = 2*maxSnapshot+MaxMessage+5, 1
		}
		if c.MaxBytes <= 0 || c.MaxBytes > limit || size <= 0 || c.Discard != jetstream.DiscardNew && size != 1 {
			t.Errorf("stream %s: max bytes %d, max message size %d", name, c.MaxBytes, c.MaxMsgSize)
		}
	}
	if _, err := js.Publish(ctx, jobsSubject, make([]byte, maxJob+1)); err == nil {
		t.Errorf("a job of %d bytes was accepted", maxJob+1)
	}
	if err := nc.Publish(reportsSubject, make([]byte, MaxMessage+1)); !errors.Is(err, nats.ErrMaxPayload) {
		t.Errorf("a report of %d bytes: %v", MaxMessage+1, err)
	}
	junk := make([]byte, MaxMessage-1024)
	refused := false
	for i := range maxStream/len(junk) + 2 {
		if _, err := js.Publish(ctx, reportsSubject, junk); err != nil {
			refused = true
			t.Logf("report %d refused: %v", i, err)
			break
		}
	}
	if !refused {
		t.Errorf("%d bytes of reports accepted; the limit is %d", (maxStream/len(junk)+2)*len(junk), maxStream)
	}
}

// TestLearnerRestart checks that a worker of a learner that stops goes on
// with the learner started after it, in its new session, and stops with
// it.
func TestLearnerRestart(t *testing.T) {
	t.Parallel()
	s := serve(t)
	tasks, m, spec := run(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var llog, wlog syncBuffer
	opts := Options{AckWait: 2 * time.Second, Logger: slog.New(slog.NewTextHandler(&llog, nil))}
	first, err := NewLearner(ctx, connect(t, s), spec, []File{{"mazes.txt", nil}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	errs := startWorker(ctx, t, connectWorker(t, s), "w", slog.New(slog.NewTextHandler(&wlog, nil)))
	waitFor(t, &llog, "worker joined")
	if err := first.Close(false); err != nil {
		t.Fatal(err)
	}
	l, err := NewLearner(ctx, connect(t, s), spec, []File{{"mazes.txt", nil}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	cfg := bootstrap.Config{Algorithm: spec.Algorithm, Options: spec.Options, ProblemsPerUpdate: 8,
		Limits: bootstrap.Limits{MaxIterations: 1}, Async: true}
	cfg.Options.Budget = 8
	if _, err := bootstrap.Train(ctx, t.TempDir(), tasks, learner(t, m), cfg, bootstrap.Env{Workers: 1, Pool: l}); err != nil {
		t.Fatalf("%v\nworker:\n%s", err, wlog.String())
	}
	if err := l.Close(true); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errs:
		if err != nil {
			t.Errorf("worker: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the worker did not stop when training was over:\n%s", wlog.String())
	}
	if want := "joined the learner's new session"; !strings.Contains(wlog.String(), want) {
		t.Errorf("the worker's log lacks %q:\n%s", want, wlog.String())
	}
}

// TestTroubleHeard checks that a worker that finds a problem file of the
// run missing says so, and that the learner puts it back at once, not
// after StallAfter.
func TestTroubleHeard(t *testing.T) {
	t.Parallel()
	s := serve(t)
	_, _, spec := run(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var log syncBuffer
	l, err := NewLearner(ctx, connect(t, s), spec, []File{{"mazes.txt", []byte("the mazes")}}, Options{StallAfter: time.Hour, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(false)
	js, _ := jetstream.New(connect(t, s))
	obs, err := js.ObjectStore(ctx, bucketName)
	if err != nil {
		t.Fatal(err)
	}
	if err := obs.Delete(ctx, problemsDir+"0"); err != nil {
		t.Fatal(err)
	}
	jctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, files, err := Join(jctx, connectWorker(t, s))
	if err != nil {
		t.Fatalf("join: %v\n%s", err, log.String())
	}
	if string(files[0].Data) != "the mazes" {
		t.Errorf("the worker read %q", files[0].Data)
	}
	for _, want := range []string{`a worker finds the run incomplete; checking it" worker="" what="problem file mazes.txt"`,
		`an object of the run is missing; putting it again" object=problems/0`} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the learner's log lacks %q:\n%s", want, log.String())
		}
	}
}
