package cluster

import (
	"bytes"
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/phs-go/phs/bootstrap"
)

// Options configure a Learner.
type Options struct {
	// AckWait is how long a job may go without word from its worker
	// before it is delivered to another; workers report progress at a
	// third of it. 0 means 30 seconds.
	AckWait time.Duration
	// Logger receives the refusals of workers and the messages dropped;
	// nil discards them.
	Logger *slog.Logger
}

// A Learner is the learner's end of a run over NATS: the bootstrap.Pool
// of the workers that join the run.
type Learner struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	obs     jetstream.ObjectStore
	spec    Spec
	log     *slog.Logger
	reports chan bootstrap.Report
	hello   *nats.Subscription
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

var _ bootstrap.Pool = (*Learner)(nil)

// NewLearner sets up the run of spec, whose problem files are files, on
// the NATS server of nc (with JetStream), and returns its learner: it
// purges the jobs and reports an earlier learner left, puts the spec and
// the files in the run's object store, answers the workers that ask to
// join and reads their reports. Close releases it.
func NewLearner(ctx context.Context, nc *nats.Conn, spec Spec, files []File, opts Options) (*Learner, error) {
	if len(files) != len(spec.Files) {
		return nil, fmt.Errorf("cluster: %d files for a spec of %d", len(files), len(spec.Files))
	}
	if opts.AckWait == 0 {
		opts.AckWait = 30 * time.Second
	}
	if opts.AckWait < 0 {
		return nil, fmt.Errorf("cluster: ack wait %v; want > 0", opts.AckWait)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	l := &Learner{nc: nc, js: js, spec: spec, log: opts.Logger, reports: make(chan bootstrap.Report)}
	if err := l.setUp(ctx, files, opts.AckWait); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if l.hello, err = nc.Subscribe(helloSubject, l.answer); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	rc, err := js.OrderedConsumer(ctx, reportsStream, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err == nil {
		var it jetstream.MessagesContext
		if it, err = rc.Messages(); err == nil {
			rctx, cancel := context.WithCancel(context.Background())
			l.cancel = cancel
			l.wg.Go(func() { l.read(rctx, it) })
			l.wg.Go(func() { <-rctx.Done(); it.Stop() })
		}
	}
	if err != nil {
		l.hello.Unsubscribe()
		return nil, fmt.Errorf("cluster: reports: %w", err)
	}
	return l, nil
}

// setUp makes the streams, the workers' consumer and the object store
// of the run, empty of the jobs and reports of an earlier learner, and
// puts the problem files and the spec in the store.
func (l *Learner) setUp(ctx context.Context, files []File, ackWait time.Duration) error {
	streams := []jetstream.StreamConfig{
		{Name: jobsStream, Subjects: []string{jobsSubject}, Retention: jetstream.WorkQueuePolicy},
		{Name: reportsStream, Subjects: []string{reportsSubject}, Retention: jetstream.LimitsPolicy, Duplicates: 2 * time.Minute, MaxAge: 24 * time.Hour},
	}
	for _, sc := range streams {
		sc.Storage, sc.MaxMsgSize = jetstream.FileStorage, MaxMessage
		s, err := l.js.CreateOrUpdateStream(ctx, sc)
		if err != nil {
			return fmt.Errorf("stream %s: %w", sc.Name, err)
		}
		if err := s.Purge(ctx); err != nil {
			return fmt.Errorf("stream %s: %w", sc.Name, err)
		}
	}
	_, err := l.js.CreateOrUpdateConsumer(ctx, jobsStream, jetstream.ConsumerConfig{
		Durable:    consumerName,
		AckPolicy:  jetstream.AckExplicitPolicy,
		AckWait:    ackWait,
		MaxDeliver: -1,
	})
	if err != nil {
		return fmt.Errorf("consumer: %w", err)
	}
	if l.obs, err = l.js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: bucketName, Storage: jetstream.MemoryStorage}); err != nil {
		return fmt.Errorf("object store: %w", err)
	}
	for i, f := range files {
		if _, err := l.obs.PutBytes(ctx, problemsDir+strconv.Itoa(i), f.Data); err != nil {
			return fmt.Errorf("problem file %s: %w", f.Name, err)
		}
	}
	spec, err := json.Marshal(l.spec)
	if err != nil {
		return err
	}
	// The spec goes last: a worker that finds it finds the files too.
	if _, err := l.obs.PutBytes(ctx, specObject, spec); err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	return nil
}

// answer answers a worker's request to join.
func (l *Learner) answer(msg *nats.Msg) {
	var h hello
	err := decode(msg.Data, &h)
	if err == nil {
		err = h.check(&l.spec)
	}
	var rep helloReply
	if err != nil {
		rep.Error = err.Error()
		l.log.Warn("worker refused", "worker", h.Worker, "reason", err)
	} else {
		l.log.Info("worker joined", "worker", h.Worker)
	}
	b, _ := json.Marshal(rep)
	if err := msg.Respond(b); err != nil {
		l.log.Warn("answer to worker", "worker", h.Worker, "err", err)
	}
}

// read passes the reports of it to l.reports until ctx is done, dropping
// the malformed ones.
func (l *Learner) read(ctx context.Context, it jetstream.MessagesContext) {
	for {
		msg, err := it.Next()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return
			}
			l.log.Warn("reading reports", "err", err)
			continue
		}
		var rep bootstrap.Report
		if err := decode(msg.Data(), &rep); err != nil {
			l.log.Warn("malformed report dropped", "err", err, "bytes", len(msg.Data()))
			continue
		}
		select {
		case l.reports <- rep:
		case <-ctx.Done():
			return
		}
	}
}

// Publish puts snap, the learner's snapshot at version v, marshalled, in
// the run's object store.
func (l *Learner) Publish(ctx context.Context, v int64, snap encoding.BinaryMarshaler) error {
	b, err := snap.MarshalBinary()
	if err != nil {
		return fmt.Errorf("cluster: snapshot: %w", err)
	}
	meta := jetstream.ObjectMeta{Name: snapshotObject, Metadata: map[string]string{"version": strconv.FormatInt(v, 10)}}
	if _, err := l.obs.Put(ctx, meta, bytes.NewReader(b)); err != nil {
		return fmt.Errorf("cluster: snapshot: %w", err)
	}
	return nil
}

// Submit adds j to the run's work queue, with the fingerprint of the
// run's problems in a header.
func (l *Learner) Submit(ctx context.Context, j bootstrap.Job) error {
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	msg := &nats.Msg{Subject: jobsSubject, Data: b, Header: nats.Header{problemsHeader: {l.spec.ProblemsSHA256}}}
	if _, err := l.js.PublishMsg(ctx, msg, jetstream.WithMsgID(jobID(&j))); err != nil {
		return fmt.Errorf("cluster: job: %w", err)
	}
	return nil
}

// Reports returns the workers' reports.
func (l *Learner) Reports() <-chan bootstrap.Report { return l.reports }

// Close stops answering the workers and reading their reports. If done,
// training is over, and the workers of the run are told to stop.
func (l *Learner) Close(done bool) error {
	err := l.hello.Unsubscribe()
	l.cancel()
	l.wg.Wait()
	if done {
		if perr := l.nc.Publish(controlSubject, []byte("done")); perr != nil && err == nil {
			err = perr
		}
		if ferr := l.nc.Flush(); ferr != nil && err == nil {
			err = ferr
		}
	}
	if err != nil {
		return fmt.Errorf("cluster: close: %w", err)
	}
	return nil
}

// jobID identifies j, for JetStream's removal of duplicate messages.
func jobID(j *bootstrap.Job) string {
	return fmt.Sprintf("%s.%d.%d", j.Run, j.Iteration, j.Pos)
}

// decode decodes the JSON message b into v, refusing unknown fields and
// trailing data.
func decode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the message")
	}
	return nil
}
