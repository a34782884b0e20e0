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
		b, err := getObject(ctx, obs, problemsDir+strconv.Itoa(i))
		if err != nil {
			return spec, nil, fmt.Errorf("cluster: join: problem file %s: %w", name, err)
		}
		files[i] = File{Name: name, Data: b}
	}
	return spec, files, nil
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
// than maxObject.
func getObject(ctx context.Context, obs jetstream.ObjectStore, name string) ([]byte, error) {
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
	// Version is the worker's phs version, which must be the learner's.
	Version string
	// Logger receives the progress of the worker; nil discards it.
	Logger *slog.Logger
}

// errBadSnapshot is the error of a snapshot that the worker's decoder
// cannot decode.
var errBadSnapshot = errors.New("cluster: the run's snapshot does not decode")

// ErrRefused is the error of Work when the learner refuses the worker.
var ErrRefused = errors.New("cluster: refused by the learner")

// Work searches the jobs of the run of spec, whose problems are tasks (as
// read from the files that Join returned), until ctx is done or the
// learner ends the run; it returns nil in the second case. It searches
// with the algorithm and the options of spec, whole, but for the budget
// of each job, and with the learner's latest snapshot, which decode reads
// from the bytes of its MarshalBinary (such as bootstrap.DecodeNetwork).
// It asks the learner to accept the worker first, and fails with
// ErrRefused, which says why, if the learner refuses it.
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
	if _, err := search.NewSolver[S](spec.Algorithm, search.Uniform[S]{}, spec.Options); err != nil {
		return fmt.Errorf("cluster: the run's spec: %w", err)
	}
	w := &worker[S]{spec: &spec, tasks: tasks, opts: &opts, decode: decode}
	if err := w.join(ctx, nc); err != nil {
		return err
	}
	var err error
	if w.js, err = jetstream.New(nc); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	if w.obs, err = w.js.ObjectStore(ctx, bucketName); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	var cons jetstream.Consumer
	if err := retry(ctx, func() (err error) {
		cons, err = w.js.Consumer(ctx, jobsStream, consumerName)
		return err
	}, jetstream.ErrConsumerNotFound, jetstream.ErrStreamNotFound); err != nil {
		return fmt.Errorf("cluster: jobs: %w", err)
	}
	w.ackWait = cons.CachedInfo().Config.AckWait

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var over atomic.Bool // the learner ended the run
	ctl, err := nc.Subscribe(controlSubject, func(m *nats.Msg) {
		if string(m.Data) == "done" {
			over.Store(true)
			cancel()
		}
	})
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	defer ctl.Unsubscribe()

	var wg sync.WaitGroup
	errs := make([]error, opts.Searches)
	for i := range opts.Searches {
		it, err := cons.Messages(jetstream.PullMaxMessages(1))
		if err != nil {
			cancel()
			wg.Wait()
			return fmt.Errorf("cluster: jobs: %w", err)
		}
		wg.Go(func() { <-ctx.Done(); it.Stop() })
		wg.Go(func() {
			errs[i] = w.run(ctx, it)
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
	spec    *Spec
	tasks   []search.Task[S]
	opts    *WorkerOptions
	js      jetstream.JetStream
	obs     jetstream.ObjectStore
	ackWait time.Duration
	decode  func([]byte) (bootstrap.Snapshot[S], error)

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

// join asks the learner to accept the worker, until ctx is done while
// no learner answers.
func (w *worker[S]) join(ctx context.Context, nc *nats.Conn) error {
	h := hello{Worker: w.opts.Name, Version: w.opts.Version, Domain: w.spec.Domain, ProblemsSHA256: bootstrap.ProblemsHash(w.tasks)}
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	var msg *nats.Msg
	if err := retry(ctx, func() (err error) {
		msg, err = nc.RequestWithContext(ctx, helloSubject, b)
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

// run searches the jobs of it, one at a time, until ctx is done.
func (w *worker[S]) run(ctx context.Context, it jetstream.MessagesContext) error {
	var sr searcher[S]
	for {
		msg, err := it.Next()
		switch {
		case ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed):
			return nil
		case err != nil:
			w.opts.Logger.Warn("reading jobs", "err", err)
			w.pause(ctx)
			continue
		}
		h := msg.Headers().Get(problemsHeader)
		if h != "" && h != w.spec.ProblemsSHA256 {
			msg.Nak() // for the workers of that run
			return fmt.Errorf("%w: a job of another run (problems %.12s, not %.12s); start the worker again to join it", ErrRefused, h, w.spec.ProblemsSHA256)
		}
		var j bootstrap.Job
		if err := decode(msg.Data(), &j); err != nil || h == "" || j.Problem < 0 || j.Problem >= len(w.tasks) || j.Budget <= 0 {
			w.opts.Logger.Warn("malformed job dropped", "err", err, "job", string(msg.Data()))
			msg.Term()
			continue
		}
		if err := w.refresh(ctx, &sr); err != nil {
			msg.Nak()
			switch {
			case ctx.Err() != nil:
				return nil
			case errors.Is(err, errBadSnapshot):
				return err
			}
			w.opts.Logger.Warn("fetching the snapshot", "err", err)
			w.pause(ctx)
			continue
		}
		rep, err := w.search(ctx, msg, sr.s, &j)
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
			_, err = w.js.Publish(ctx, reportsSubject, b, jetstream.WithMsgID(jobID(&j)))
		}
		if err != nil {
			// The job goes to another worker, or to this one again.
			msg.Nak()
			if ctx.Err() != nil {
				return nil
			}
			w.opts.Logger.Warn("publishing a report", "err", err)
			w.pause(ctx)
			continue
		}
		if err := msg.Ack(); err != nil {
			w.opts.Logger.Warn("acknowledging a job", "err", err)
		}
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
// progress every third of the acknowledgement wait.
func (w *worker[S]) search(ctx context.Context, msg jetstream.Msg, s *search.Solver[S], j *bootstrap.Job) (bootstrap.Report, error) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(w.ackWait / 3)
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
	rep := bootstrap.Report{Job: *j, Worker: w.opts.Name, Solved: res.Solved, Actions: res.Actions, Expansions: res.Expansions, Evaluations: res.Evaluations}
	if err != nil && ctx.Err() != nil {
		return rep, err
	}
	if err != nil {
		rep.Err = err.Error() // the learner stops the run with it
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
	if err != nil && ctx.Err() == nil && rctx.Err() != nil {
		return errFetchTimeout
	}
	if err != nil {
		return err
	}
	snap, err := w.decode(b)
	if err != nil {
		return fmt.Errorf("%w: %w", errBadSnapshot, err)
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
	if err != nil || info.Size > maxObject {
		return nil, snapshotInfo{}, fmt.Errorf("cluster: snapshot: bad version %q or size %d", info.Metadata["version"], info.Size)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, snapshotInfo{}, fmt.Errorf("cluster: snapshot: %w", err)
	}
	return b, snapshotInfo{info.NUID, v}, nil
}
