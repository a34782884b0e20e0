package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/search"
)

// retryEvery is how often a worker asks again for what the learner has
// not yet set up.
const retryEvery = 500 * time.Millisecond

// apiTimeout bounds the wait for the server's answer to a publication:
// one whose stream is deleted under it may get none.
const apiTimeout = 10 * time.Second

// Join returns the spec and the problem files of the run on the NATS
// server of nc, waiting until a learner has set the run up or ctx is done.
func Join(ctx context.Context, nc *nats.Conn) (Spec, []File, error) {
	var spec Spec
	js, err := jetstream.New(nc)
	if err != nil {
		return spec, nil, fmt.Errorf("cluster: %w", err)
	}
	var obs jetstream.ObjectStore
	var b []byte
	err = retry(ctx, func() (err error) {
		if obs, err = js.ObjectStore(ctx, bucketName); err == nil {
			b, err = getObject(ctx, obs, specObject)
		}
		return err
	}, jetstream.ErrBucketNotFound, jetstream.ErrObjectNotFound)
	if err != nil {
		return spec, nil, fmt.Errorf("cluster: join: %w", err)
	}
	if err := decode(b, &spec); err != nil {
		return spec, nil, fmt.Errorf("cluster: join: the run's spec: %w", err)
	}
	files := make([]File, len(spec.Files))
	for i, name := range spec.Files {
		// A file missing from a run whose spec is there was deleted: the
		// learner puts it back when it hears of it.
		var said time.Time
		err := retry(ctx, func() (err error) {
			b, err = getObject(ctx, obs, problemsDir+strconv.Itoa(i))
			if errors.Is(err, jetstream.ErrObjectNotFound) && time.Since(said) >= troubleEvery {
				said = time.Now()
				tell(nc, troubleReport{What: "problem file " + name, Err: err.Error()})
			}
			return err
		}, jetstream.ErrObjectNotFound)
		if err != nil {
			return spec, nil, fmt.Errorf("cluster: join: problem file %s: %w", name, err)
		}
		files[i] = File{Name: name, Data: b}
	}
	return spec, files, nil
}

// tell tells the learner that a worker finds something missing or wrong.
func tell(nc *nats.Conn, tr troubleReport) error {
	b, err := json.Marshal(tr)
	if err == nil {
		err = nc.Publish(troubleSubject, b)
	}
	return err
}

// retry calls f every retryEvery until it returns nil or an error that is
// none of wait, or until ctx is done.
func retry(ctx context.Context, f func() error, wait ...error) error {
	for {
		err := f()
		waiting := false
		for _, w := range wait {
			waiting = waiting || errors.Is(err, w)
		}
		if !waiting {
			return err
		}
		select {
		case <-time.After(retryEvery):
		case <-ctx.Done():
			return fmt.Errorf("%w (waiting: %v)", context.Cause(ctx), err)
		}
	}
}

// getObject returns the object called name of obs, refusing one larger
// than maxObject, and giving up after apiTimeout and a second per MiB.
func getObject(ctx context.Context, obs jetstream.ObjectStore, name string) ([]byte, error) {
	info, err := obs.GetInfo(ctx, name)
	if err != nil {
		return nil, err
	}
	// A read whose chunks are deleted under it would never end.
	ctx, cancel := context.WithTimeout(ctx, apiTimeout+time.Duration(info.Size>>20)*time.Second)
	defer cancel()
	r, err := obs.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if info, err := r.Info(); err != nil {
		return nil, err
	} else if info.Size > maxObject {
		return nil, fmt.Errorf("%s: %d bytes; the limit is %d", name, info.Size, maxObject)
	}
	return io.ReadAll(r)
}

// WorkerOptions configure Work.
type WorkerOptions struct {
	// Name names the worker in the learner's log; "" means the host name
	// and the process ID.
	Name string
	// Searches is the number of searches run at once; 0 means
	// runtime.NumCPU().
	Searches int
	// Version is the worker's phs version, for the learner's log.
	Version string
	// Learner names the kind of learner whose snapshots the worker's
	// decoder decodes; it must be the run's (Spec.Learner).
	Learner string
	// Logger receives the progress of the worker; nil discards it.
	Logger *slog.Logger
}

// ErrRefused is the error of Work when the learner refuses the worker.
var ErrRefused = errors.New("cluster: refused by the learner")

// Work searches the jobs of the run of spec, whose problems are tasks (as
// read from the files that Join returned), until ctx is done or the
// learner ends the run; it returns nil in the second case. It searches
// with the algorithm and the options of spec, whole, but for the budget
// of each job, and with the learner's latest snapshot, which decode reads
// from the bytes of its MarshalBinary (such as network.DecodeSnapshot).
// It asks the learner to accept the worker first, and fails with
// ErrRefused, which says why, if the learner refuses it: the learner
// checks the protocol, the fingerprint of the search settings as the
// worker reads them (Spec.SettingsSHA256, with opts.Learner) and that of
// the problems.
//
// A job of another session than the worker's is dropped with a warning,
// as is the end of the run sent by another, unless the run's spec now
// holds that session with the same settings and problems (the learner
// was started again): the worker then joins the new session. So is a job
// whose run, iteration or budget are not those of the spec's metadata. When
// the workers' consumer of jobs, the run's snapshot or a problem file is
// missing or does not read, the worker tells the learner, at most every
// two seconds, and waits for it to put them back.
func Work[S comparable](ctx context.Context, nc *nats.Conn, spec Spec, tasks []search.Task[S], decode func([]byte) (bootstrap.Snapshot[S], error), opts WorkerOptions) error {
	if opts.Searches == 0 {
		opts.Searches = runtime.NumCPU()
	}
	if opts.Searches < 0 {
		return fmt.Errorf("cluster: %d searches; want > 0", opts.Searches)
	}
	if opts.Name == "" {
		host, _ := os.Hostname()
		opts.Name = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	mine := spec
	mine.Learner = opts.Learner
	settings, err := mine.SettingsSHA256()
	if err != nil {
		return fmt.Errorf("cluster: the run's spec: %w", err)
	}
	w := &worker[S]{nc: nc, spec: &spec, settings: settings, problems: bootstrap.ProblemsHash(tasks), session: spec.Session,
		tasks: tasks, opts: &opts, decode: decode}
	if w.js, err = jetstream.New(nc); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	if w.obs, err = w.js.ObjectStore(ctx, bucketName); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The worker listens for the end of the run before it joins, so that
	// it ends with the run even if it joins at its very end.
	var over atomic.Bool // the learner ended the run
	ctl, err := nc.Subscribe(controlSubject, func(m *nats.Msg) {
		session, ok := strings.CutPrefix(string(m.Data), "done ")
		if ok && w.current(ctx, session, false) {
			over.Store(true)
			cancel()
			return
		}
		opts.Logger.Warn("ignored an end of the run that is not from the run's learner", "message", string(m.Data[:min(len(m.Data), 100)]))
	})
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	defer ctl.Unsubscribe()
	if err := w.join(ctx, spec.Session); err != nil {
		if over.Load() {
			return nil
		}
		return err
	}

	// A learner started again writes its new session into the run's
	// spec: the worker joins it as soon as it sees it, so that it knows
	// the new learner's end of the run even if it searched none of its
	// jobs. (A watch of the object store would miss it: a learner's
	// embedded server starts again with an empty store.)
	go w.follow(ctx)

	var wg sync.WaitGroup
	errs := make([]error, opts.Searches)
	for i := range opts.Searches {
		wg.Go(func() {
			errs[i] = w.run(ctx)
			cancel() // one search ends only when all must
		})
	}
	opts.Logger.Info("working", "worker", opts.Name, "searches", opts.Searches)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if over.Load() {
		return nil
	}
	return context.Cause(ctx)
}

// A worker searches the jobs of a run.
type worker[S comparable] struct {
	nc       *nats.Conn
	spec     *Spec
	settings string // the fingerprints of the worker's search settings
	problems string // and of its problems
	tasks    []search.Task[S]
	opts     *WorkerOptions
	js       jetstream.JetStream
	obs      jetstream.ObjectStore
	decode   func([]byte) (bootstrap.Snapshot[S], error)

	sessionMu sync.Mutex
	session   string        // of the learner the worker joined
	jobsNow   bootstrap.Job // the spec's metadata, as last read

	lastSaid atomic.Int64 // when say last spoke, in Unix nanoseconds

	mu      sync.Mutex
	latest  bootstrap.Snapshot[S] // the latest snapshot fetched
	nuid    string                // the snapshot object's
	version int64
}

// A searcher is one search goroutine of a worker: its solver, made when
// the first snapshot comes, whose evaluator ev evaluates with the snapshot
// of object nuid, at version.
type searcher[S comparable] struct {
	s       *search.Solver[S]
	ev      *bootstrap.Evaluator[S]
	nuid    string
	version int64
}

// join asks the learner of session to accept the worker, until ctx is
// done while no learner answers.
func (w *worker[S]) join(ctx context.Context, session string) error {
	h := hello{Worker: w.opts.Name, Protocol: Protocol, Version: w.opts.Version, Domain: w.spec.Domain,
		SettingsSHA256: w.settings, ProblemsSHA256: w.problems, Session: session}
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	var msg *nats.Msg
	if err := retry(ctx, func() (err error) {
		msg, err = w.nc.RequestWithContext(ctx, helloSubject, b)
		return err
	}, nats.ErrNoResponders, nats.ErrTimeout); err != nil {
		return fmt.Errorf("cluster: join: %w", err)
	}
	var rep helloReply
	if err := decode(msg.Data, &rep); err != nil {
		return fmt.Errorf("cluster: join: the learner's answer: %w", err)
	}
	if rep.Error != "" {
		return fmt.Errorf("%w: %s", ErrRefused, rep.Error)
	}
	return nil
}

// specPoll is how often a worker looks for a new session in the run's
// spec.
const specPoll = time.Second

// follow joins the session of each new spec of the run, looking every
// specPoll until ctx is done.
func (w *worker[S]) follow(ctx context.Context) {
	var nuid string // of the spec object last read
	for {
		sleep(ctx, specPoll)
		if ctx.Err() != nil {
			return
		}
		info, b, err := w.readSpec(ctx, nuid)
		var spec Spec
		if err != nil || decode(b, &spec) != nil {
			continue
		}
		nuid = info.NUID
		w.current(ctx, spec.Session, true)
	}
}

// readSpec returns the info and the bytes of the run's spec if its
// object is not that of nuid, and an error otherwise, taking at most
// 10 seconds.
func (w *worker[S]) readSpec(ctx context.Context, nuid string) (*jetstream.ObjectInfo, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	info, err := w.obs.GetInfo(ctx, specObject)
	if err != nil {
		return nil, nil, err
	}
	if info.NUID == nuid {
		return nil, nil, errors.New("cluster: the spec is unchanged")
	}
	b, err := getObject(ctx, w.obs, specObject)
	return info, b, err
}

// current reports whether session is that of the learner the worker
// joined, or the one the run's spec holds now with the worker's settings
// and problems (the learner was started again); in the second case, if
// join, the worker joins it first.
func (w *worker[S]) current(ctx context.Context, session string, join bool) bool {
	w.sessionMu.Lock()
	defer w.sessionMu.Unlock()
	if session == w.session {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	b, err := getObject(ctx, w.obs, specObject)
	if err != nil {
		return false
	}
	var spec Spec
	if decode(b, &spec) != nil || spec.Session != session || spec.ProblemsSHA256 != w.problems {
		return false
	}
	spec.Learner = w.opts.Learner
	if settings, err := spec.SettingsSHA256(); err != nil || settings != w.settings {
		return false
	}
	if !join {
		return true
	}
	if err := w.join(ctx, session); err != nil {
		w.opts.Logger.Warn("joining the learner's new session", "err", err)
		return false
	}
	w.opts.Logger.Info("joined the learner's new session")
	w.session = session
	return true
}

// run searches jobs, one at a time, until ctx is done.
func (w *worker[S]) run(ctx context.Context) error {
	var sr searcher[S]
	for ctx.Err() == nil {
		var cons jetstream.Consumer
		if err := retry(ctx, func() (err error) {
			cons, err = w.js.Consumer(ctx, jobsStream, consumerName)
			if errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
				w.say("the jobs' consumer", err)
			}
			return err
		}, jetstream.ErrConsumerNotFound, jetstream.ErrStreamNotFound); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			w.opts.Logger.Warn("the jobs' consumer", "err", err)
			w.pause(ctx)
			continue
		}
		it, err := cons.Messages(append(pullOptions(), jetstream.PullMaxMessages(1))...)
		if err != nil {
			w.opts.Logger.Warn("reading jobs", "err", err)
			w.pause(ctx)
			continue
		}
		stop := context.AfterFunc(ctx, it.Stop)
		err = w.jobs(ctx, it, cons.CachedInfo().Config.AckWait, &sr)
		stop()
		it.Stop()
		if err != nil {
			return err
		}
	}
	return nil
}

// jobs searches the jobs of it, one at a time, with sr, until ctx is done
// (nil) or it fails (nil, after a pause); it returns the other errors.
func (w *worker[S]) jobs(ctx context.Context, it jetstream.MessagesContext, ackWait time.Duration, sr *searcher[S]) error {
	for {
		msg, err := it.Next()
		switch {
		case ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed):
			return nil
		case err != nil:
			w.opts.Logger.Warn("reading jobs", "err", err)
			w.pause(ctx)
			return nil
		}
		meta, err := msg.Metadata()
		if err != nil {
			w.opts.Logger.Warn("malformed job dropped", "err", err)
			msg.Term()
			continue
		}
		h := msg.Headers().Get(sessionHeader)
		if !w.current(ctx, h, true) {
			w.opts.Logger.Warn("job of another run or learner dropped", "session", h[:min(len(h), 40)])
			msg.Term()
			continue
		}
		var j bootstrap.Job
		if err := decode(msg.Data(), &j); err != nil || j.Problem < 0 || j.Problem >= len(w.tasks) || j.Budget <= 0 {
			w.opts.Logger.Warn("malformed job dropped", "err", err, "job", string(msg.Data()[:min(len(msg.Data()), 200)]))
			msg.Term()
			continue
		}
		switch fits, err := w.fits(ctx, &j); {
		case err != nil:
			msg.Nak() // to be checked again
			if ctx.Err() != nil {
				return nil
			}
			w.opts.Logger.Warn("reading the run's spec", "err", err)
			w.pause(ctx)
			continue
		case !fits:
			msg.Term()
			continue
		}
		if err := w.refresh(ctx, sr); err != nil {
			msg.Nak()
			if ctx.Err() != nil {
				return nil
			}
			w.opts.Logger.Warn("fetching the snapshot", "err", err)
			w.say("the snapshot", err)
			w.pause(ctx)
			continue
		}
		rep, err := w.search(ctx, msg, ackWait, sr.s, &j)
		if err != nil {
			msg.Nak() // to another worker
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		rep.Version = sr.version
		b, err := json.Marshal(rep)
		if err == nil {
			// The ID of a delivery of the job, to the server's removal
			// of duplicates: a report of a job submitted again is not one.
			pctx, cancel := context.WithTimeout(ctx, apiTimeout)
			_, err = w.js.Publish(pctx, reportsSubject, b, jetstream.WithMsgID(fmt.Sprintf("%s.%d", h, meta.Sequence.Stream)))
			cancel()
		}
		if err != nil {
			// The job goes to another worker, or to this one again.
			msg.Nak()
			if ctx.Err() != nil {
				return nil
			}
			w.opts.Logger.Warn("publishing a report", "err", err)
			w.say("the reports' stream", err)
			w.pause(ctx)
			continue
		}
		if err := msg.Ack(); err != nil {
			w.opts.Logger.Warn("acknowledging a job", "err", err)
		}
	}
}

// fits reports whether j is a job of the run's iteration under way, as
// the run's spec's metadata says: of the learner's run, with its
// budget. It reads the spec again when j does not fit the one read last,
// and fails if it cannot. It logs why it refuses a job, but for one of an
// earlier iteration of the run, which the learner no longer waits for.
func (w *worker[S]) fits(ctx context.Context, j *bootstrap.Job) (bool, error) {
	match := func(now *bootstrap.Job) bool {
		return j.Run == now.Run && j.Iteration == now.Iteration && j.Budget == now.Budget
	}
	w.sessionMu.Lock()
	now := w.jobsNow
	w.sessionMu.Unlock()
	if !match(&now) {
		rctx, cancel := context.WithTimeout(ctx, apiTimeout)
		info, err := w.obs.GetInfo(rctx, specObject)
		cancel()
		if err == nil {
			now, err = metaJobs(info.Metadata)
		}
		if err != nil {
			return false, fmt.Errorf("cluster: the run's spec: %w", err)
		}
		w.sessionMu.Lock()
		w.jobsNow = now
		w.sessionMu.Unlock()
	}
	switch {
	case match(&now):
		return true, nil
	case j.Run == now.Run && j.Iteration < now.Iteration:
		w.opts.Logger.Debug("job of an earlier iteration dropped", "iteration", j.Iteration, "pos", j.Pos)
		return false, nil
	}
	w.opts.Logger.Warn("job refused: its run, iteration or budget is not the run's", "run", clip(j.Run, 40), "iteration", j.Iteration, "budget", j.Budget,
		"runs", clip(now.Run, 40), "runs_iteration", now.Iteration, "runs_budget", now.Budget)
	return false, nil
}

// troubleEvery is how often at most a worker tells the learner that it
// finds something missing.
const troubleEvery = 2 * time.Second

// say tells the learner that the worker finds what missing or wrong, with
// err, at most once every troubleEvery.
func (w *worker[S]) say(what string, err error) {
	now := time.Now().UnixNano()
	last := w.lastSaid.Load()
	if now-last < int64(troubleEvery) || !w.lastSaid.CompareAndSwap(last, now) {
		return
	}
	if err := tell(w.nc, troubleReport{Worker: w.opts.Name, What: what, Err: err.Error()}); err != nil {
		w.opts.Logger.Warn("telling the learner", "err", err)
	}
}

// pause waits retryEvery, or until ctx is done.
func (w *worker[S]) pause(ctx context.Context) {
	select {
	case <-time.After(retryEvery):
	case <-ctx.Done():
	}
}

// search runs job j of msg with s, telling the server that the job is in
// progress every third of ackWait.
func (w *worker[S]) search(ctx context.Context, msg jetstream.Msg, ackWait time.Duration, s *search.Solver[S], j *bootstrap.Job) (bootstrap.Report, error) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(max(ackWait/3, time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-t.C:
				msg.InProgress()
			case <-done:
				return
			}
		}
	})
	s.SetBudget(j.Budget)
	res, err := s.Solve(ctx, w.tasks[j.Problem].Problem)
	close(done)
	wg.Wait()
	rep := bootstrap.Report{Job: *j, Worker: w.opts.Name, Solved: res.Solved, Actions: res.Actions, Stop: res.Stop(j.Budget),
		Expansions: res.Expansions, Evaluations: res.Evaluations}
	if err != nil && ctx.Err() != nil {
		return rep, err
	}
	if err != nil {
		rep.Err = err.Error() // the learner searches the job again
	}
	return rep, nil
}

// refresh makes sr search with the latest snapshot of the run if it is
// not that of sr.nuid, fetching it once for all the worker's searches.
func (w *worker[S]) refresh(ctx context.Context, sr *searcher[S]) error {
	var info *jetstream.ObjectInfo
	err := retry(ctx, func() (err error) {
		info, err = w.obs.GetInfo(ctx, snapshotObject)
		return err
	}, jetstream.ErrObjectNotFound)
	if err != nil {
		return fmt.Errorf("cluster: snapshot: %w", err)
	}
	if info.NUID == sr.nuid {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if info.NUID != w.nuid {
		// The learner may replace the snapshot while the worker reads it:
		// the chunks of the replaced object are purged and never arrive,
		// and the read times out. Read the new one then, waiting longer
		// each time in case the link is only slow.
		wait := fetchWait
		err := retry(ctx, func() error {
			err := w.fetch(ctx, wait)
			wait = min(2*wait, maxFetchWait)
			return err
		}, errFetchTimeout)
		if err != nil {
			return err
		}
	}
	if sr.s == nil {
		sr.ev = bootstrap.NewEvaluator(w.latest)
		if sr.s, err = search.NewSolver[S](w.spec.Algorithm, sr.ev, w.spec.Options); err != nil {
			return fmt.Errorf("cluster: the run's spec: %w", err)
		}
	} else {
		sr.ev.Set(w.latest)
	}
	sr.nuid, sr.version = w.nuid, w.version
	return nil
}

// fetchWait and maxFetchWait bound one attempt to read the run's
// snapshot: the first and the longest.
var fetchWait, maxFetchWait = 5 * time.Second, 2 * time.Minute

// errFetchTimeout is the error of a read of the snapshot that took longer
// than it was given.
var errFetchTimeout = errors.New("cluster: snapshot: the read timed out")

// fetch reads and decodes the latest snapshot of the run into w.latest,
// taking at most wait to read it.
func (w *worker[S]) fetch(ctx context.Context, wait time.Duration) error {
	rctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	b, info, err := w.read(rctx)
	// The read's deadline is rctx's: it may pass before rctx says so.
	if err != nil && ctx.Err() == nil && (rctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded)) {
		return errFetchTimeout
	}
	if err != nil {
		return err
	}
	snap, err := w.decode(b)
	if err != nil {
		return fmt.Errorf("cluster: the run's snapshot does not decode: %w", err)
	}
	w.latest, w.nuid, w.version = snap, info.NUID, info.version
	return nil
}

// A snapshotInfo is what fetch keeps of the snapshot object's info.
type snapshotInfo struct {
	NUID    string
	version int64
}

// read returns the bytes of the run's snapshot and its info.
func (w *worker[S]) read(ctx context.Context) ([]byte, snapshotInfo, error) {
	r, err := w.obs.Get(ctx, snapshotObject)
	if err != nil {
		return nil, snapshotInfo{}, fmt.Errorf("cluster: snapshot: %w", err)
	}
	defer r.Close()
	info, err := r.Info()
	if err != nil {
		return nil, snapshotInfo{}, fmt.Errorf("cluster: snapshot: %w", err)
	}
	v, err := strconv.ParseInt(info.Metadata["version"], 10, 64)
	if err != nil || info.Size > maxSnapshot {
		return nil, snapshotInfo{}, fmt.Errorf("cluster: snapshot: bad version %q or size %d", info.Metadata["version"], info.Size)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, snapshotInfo{}, fmt.Errorf("cluster: snapshot: %w", err)
	}
	return b, snapshotInfo{info.NUID, v}, nil
}
