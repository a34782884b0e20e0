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
	"github.com/phs-go/phs/model"
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

// errBadWeights is the error of weights that do not fit the run's model.
var errBadWeights = errors.New("cluster: the run's weights do not fit its model")

// ErrRefused is the error of Work when the learner refuses the worker.
var ErrRefused = errors.New("cluster: refused by the learner")

// Work searches the jobs of the run of spec, whose problems are tasks (as
// read from the files that Join returned), until ctx is done or the
// learner ends the run; it returns nil in the second case. It asks the
// learner to accept the worker first, and fails with ErrRefused, which
// says why, if the learner refuses it.
func Work[S comparable](ctx context.Context, nc *nats.Conn, spec Spec, tasks []search.Task[S], opts WorkerOptions) error {
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
	alg, err := search.Parse(spec.Algorithm, spec.W, spec.C)
	if err != nil {
		return fmt.Errorf("cluster: the run's spec: %w", err)
	}
	w := &worker[S]{spec: &spec, tasks: tasks, opts: &opts}
	if w.weights, err = model.New(spec.Model, 0); err != nil {
		return fmt.Errorf("cluster: the run's spec: %w", err)
	}
	if err := w.join(ctx, nc); err != nil {
		return err
	}
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

	evs := make([]*model.Evaluator[S], opts.Searches)
	solvers := make([]*search.Solver[S], opts.Searches)
	for i := range solvers {
		evs[i] = model.NewEvaluator[S](w.weights)
		solvers[i], err = search.NewSolver[S](alg, evs[i], search.Options{BatchSize: spec.BatchSize, Renormalize: spec.Renormalize, Temperature: spec.Model.Temperature})
		if err != nil {
			return fmt.Errorf("cluster: the run's spec: %w", err)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, opts.Searches)
	for i := range solvers {
		it, err := cons.Messages(jetstream.PullMaxMessages(1))
		if err != nil {
			cancel()
			wg.Wait()
			return fmt.Errorf("cluster: jobs: %w", err)
		}
		wg.Go(func() { <-ctx.Done(); it.Stop() })
		wg.Go(func() {
			errs[i] = w.run(ctx, it, solvers[i], evs[i])
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

	mu      sync.Mutex
	weights *model.Model // the latest weights fetched, never changed
	nuid    string       // the weights object's
	version int64
}

// join asks the learner to accept the worker, until ctx is done while
// no learner answers.
func (w *worker[S]) join(ctx context.Context, nc *nats.Conn) error {
	h := hello{Worker: w.opts.Name, Version: w.opts.Version, Domain: w.spec.Domain, Model: w.weights.Config(), ProblemsSHA256: bootstrap.ProblemsHash(w.tasks)}
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

// run searches the jobs of it with s, whose evaluator is ev, until ctx is
// done.
func (w *worker[S]) run(ctx context.Context, it jetstream.MessagesContext, s *search.Solver[S], ev *model.Evaluator[S]) error {
	version := int64(-1)
	nuid := ""
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
		if err := w.refresh(ctx, ev, &nuid, &version); err != nil {
			msg.Nak()
			switch {
			case ctx.Err() != nil:
				return nil
			case errors.Is(err, errBadWeights):
				return err
			}
			w.opts.Logger.Warn("fetching the weights", "err", err)
			w.pause(ctx)
			continue
		}
		rep, err := w.search(ctx, msg, s, &j)
		if err != nil {
			msg.Nak() // to another worker
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		rep.Version = version
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

// refresh makes ev evaluate with the latest weights of the run if they
// are not those of nuid, fetching them once for all the worker's
// searches, and sets nuid and version to those of the weights ev then
// uses.
func (w *worker[S]) refresh(ctx context.Context, ev *model.Evaluator[S], nuid *string, version *int64) error {
	var info *jetstream.ObjectInfo
	err := retry(ctx, func() (err error) {
		info, err = w.obs.GetInfo(ctx, weightsObject)
		return err
	}, jetstream.ErrObjectNotFound)
	if err != nil {
		return fmt.Errorf("cluster: weights: %w", err)
	}
	if info.NUID == *nuid {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if info.NUID != w.nuid {
		if err := w.fetch(ctx); err != nil {
			return err
		}
	}
	ev.SetModel(w.weights)
	*nuid, *version = w.nuid, w.version
	return nil
}

// fetch reads the latest weights of the run into a new w.weights.
func (w *worker[S]) fetch(ctx context.Context) error {
	r, err := w.obs.Get(ctx, weightsObject)
	if err != nil {
		return fmt.Errorf("cluster: weights: %w", err)
	}
	defer r.Close()
	info, err := r.Info()
	if err != nil {
		return fmt.Errorf("cluster: weights: %w", err)
	}
	v, err := strconv.ParseInt(info.Metadata["version"], 10, 64)
	if err != nil || info.Size > maxObject {
		return fmt.Errorf("cluster: weights: bad version %q or size %d", info.Metadata["version"], info.Size)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("cluster: weights: %w", err)
	}
	m := w.weights.Clone()
	if err := model.UnmarshalWeights(m, b); err != nil {
		return fmt.Errorf("%w: %w", errBadWeights, err)
	}
	w.weights, w.nuid, w.version = m, info.NUID, v
	return nil
}
