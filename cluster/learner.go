package cluster

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/search"
)

// Options configure a Learner.
type Options struct {
	// AckWait is how long a job may go without word from its worker
	// before it is delivered to another; workers report progress at a
	// third of it. 0 means 30 seconds.
	AckWait time.Duration
	// StallAfter is how long the learner waits for a report, while jobs
	// are outstanding, before it logs what it waits for; it then logs
	// again every StallAfter. 0 means 2 minutes.
	StallAfter time.Duration
	// Logger receives the refusals of workers, the messages dropped and
	// the stalls; nil discards them.
	Logger *slog.Logger
}

// A Learner is the learner's end of a run over NATS: the bootstrap.Pool
// of the workers that join it.
//
// It checks every report before the run sees it: the report must be of a
// job it submitted and that is outstanding, carry no error, and have
// counts within the job's budget, a reason to stop that fits them and a
// snapshot version it published (bootstrap replays the solutions). It
// drops the others with a warning, and submits again the job of a report
// it rejected.
//
// Every second, and at once when a worker says it finds something
// missing, it checks the run's streams and consumers, and the digests of
// the spec and the snapshot in the object store, and makes again or puts
// again what differs from its own; it checks the problem files too when a
// worker finds something missing or no report came for StallAfter.
type Learner struct {
	nc       *nats.Conn
	js       jetstream.JetStream
	spec     Spec
	settings string // spec.SettingsSHA256()
	files    []File
	// fileDigests are the digests of the files' data (objectDigest).
	fileDigests []string
	opts        Options
	log         *slog.Logger
	reports     chan bootstrap.Report
	hello       *nats.Subscription
	trouble     *nats.Subscription
	cancel      context.CancelFunc
	wg          sync.WaitGroup

	repairMu sync.Mutex  // one repair, or one put of the spec or the snapshot, at a time
	checkAll atomic.Bool // a worker finds something missing: check the problem files too

	mu          sync.Mutex
	obs         jetstream.ObjectStore
	specJSON    []byte        // the spec
	jobs        bootstrap.Job // of the iteration under way: the spec's metadata
	snap        []byte        // the snapshot published last, at version
	snapDigest  string        // objectDigest(snap)
	version     int64
	published   bool
	run         string                  // the Job.Run of the jobs submitted
	iteration   int                     // the iteration of the latest job submitted
	outstanding map[string]*outstanding // by jobID
	reported    map[string]bool         // jobs of the iteration reported
	lastReport  time.Time               // of the last report accepted, or of the last stall logged
	workers     int                     // accepted in this session
}

// An outstanding job: submitted and not yet reported; tries counts its
// submissions.
type outstanding struct {
	job   bootstrap.Job
	since time.Time
	tries int
}

var _ bootstrap.Pool = (*Learner)(nil)

// NewLearner sets up the run of spec, whose problem files are files, on
// the NATS server of nc (with JetStream), and returns its learner: it
// makes a new session (Spec.Session), purges the jobs and reports an
// earlier learner left, puts the spec and the files in the run's object
// store, answers the workers that ask to join, reads their reports and
// watches the run for stalls. Close releases it.
func NewLearner(ctx context.Context, nc *nats.Conn, spec Spec, files []File, opts Options) (*Learner, error) {
	if len(files) != len(spec.Files) {
		return nil, fmt.Errorf("cluster: %d files for a spec of %d", len(files), len(spec.Files))
	}
	for _, f := range files {
		if len(f.Data) > maxObject {
			return nil, fmt.Errorf("cluster: problem file %s: %d bytes; the limit is %d", f.Name, len(f.Data), maxObject)
		}
	}
	if opts.AckWait == 0 {
		opts.AckWait = 30 * time.Second
	}
	if opts.StallAfter == 0 {
		opts.StallAfter = 2 * time.Minute
	}
	if opts.AckWait < 0 || opts.StallAfter < 0 {
		return nil, fmt.Errorf("cluster: ack wait %v, stall after %v; want > 0", opts.AckWait, opts.StallAfter)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	spec.Session = rand.Text()
	settings, err := spec.SettingsSHA256()
	if err != nil {
		return nil, fmt.Errorf("cluster: the run's spec: %w", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	l := &Learner{nc: nc, js: js, spec: spec, settings: settings, files: files, opts: opts, log: opts.Logger,
		reports: make(chan bootstrap.Report), outstanding: map[string]*outstanding{}, reported: map[string]bool{}}
	if l.specJSON, err = json.Marshal(spec); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	for _, f := range files {
		l.fileDigests = append(l.fileDigests, objectDigest(f.Data))
	}
	if err := l.setUp(ctx); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if l.hello, err = nc.Subscribe(helloSubject, l.answer); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if l.trouble, err = nc.Subscribe(troubleSubject, l.heed); err != nil {
		l.hello.Unsubscribe()
		return nil, fmt.Errorf("cluster: %w", err)
	}
	rctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	l.lastReport = time.Now()
	l.wg.Go(func() { l.read(rctx) })
	l.wg.Go(func() { l.watch(rctx) })
	return l, nil
}

// Session returns the learner's session (Spec.Session).
func (l *Learner) Session() string { return l.spec.Session }

// streams returns the configurations of the run's streams.
func streams() []jetstream.StreamConfig {
	return []jetstream.StreamConfig{
		{Name: jobsStream, Subjects: []string{jobsSubject}, Retention: jetstream.WorkQueuePolicy, MaxMsgSize: maxJob},
		{Name: reportsStream, Subjects: []string{reportsSubject}, Retention: jetstream.WorkQueuePolicy, MaxMsgSize: MaxMessage},
	}
}

// setUp makes the streams, the consumers and the object store of the
// run, empty of the jobs and reports of an earlier learner, and puts the
// problem files and the spec in the store.
func (l *Learner) setUp(ctx context.Context) error {
	for _, sc := range streams() {
		s, err := l.makeStream(ctx, sc)
		if err != nil {
			return err
		}
		if err := s.Purge(ctx); err != nil {
			return fmt.Errorf("stream %s: %w", sc.Name, err)
		}
	}
	if err := l.makeConsumers(ctx); err != nil {
		return err
	}
	return l.makeStore(ctx)
}

// makeStream creates or updates the stream of sc, with the run's limits.
func (l *Learner) makeStream(ctx context.Context, sc jetstream.StreamConfig) (jetstream.Stream, error) {
	sc.Storage, sc.MaxBytes, sc.Discard = jetstream.FileStorage, maxStream, jetstream.DiscardNew
	sc.Duplicates = 2 * time.Minute
	s, err := l.js.CreateOrUpdateStream(ctx, sc)
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", sc.Name, err)
	}
	return s, nil
}

// makeConsumers creates or updates the workers' consumer of jobs and the
// learner's of reports.
func (l *Learner) makeConsumers(ctx context.Context) error {
	_, err := l.js.CreateOrUpdateConsumer(ctx, jobsStream, jetstream.ConsumerConfig{
		Durable:    consumerName,
		AckPolicy:  jetstream.AckExplicitPolicy,
		AckWait:    l.opts.AckWait,
		MaxDeliver: -1,
	})
	if err == nil {
		_, err = l.js.CreateOrUpdateConsumer(ctx, reportsStream, jetstream.ConsumerConfig{
			Durable:   learnerName,
			AckPolicy: jetstream.AckExplicitPolicy,
			AckWait:   10 * time.Minute, // the learner may be learning
		})
	}
	if err != nil {
		return fmt.Errorf("consumer: %w", err)
	}
	return nil
}

// makeStore creates the run's object store, bounded to the files, the
// spec and two snapshots, and puts the files, the snapshot published last
// and the spec in it.
func (l *Learner) makeStore(ctx context.Context) error {
	size := int64(2*maxSnapshot + MaxMessage)
	for _, f := range l.files {
		size += int64(len(f.Data))
	}
	obs, err := l.js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: bucketName, Storage: jetstream.MemoryStorage, MaxBytes: size})
	if err != nil {
		return fmt.Errorf("object store: %w", err)
	}
	l.mu.Lock()
	l.obs = obs
	l.mu.Unlock()
	for _, o := range l.objects(true) {
		if err := o.put(ctx, obs); err != nil {
			return err
		}
	}
	return nil
}

// An object is one the learner puts in the run's object store, with the
// digest (objectDigest) of its data.
type object struct {
	name, digest string
	data         []byte
	meta         map[string]string
}

// objects returns the run's objects as the learner holds them: the
// problem files if files, the snapshot once published, and the spec,
// last, so that a worker that finds the spec finds the others.
func (l *Learner) objects(files bool) []object {
	var objs []object
	if files {
		for i, f := range l.files {
			objs = append(objs, object{name: problemsDir + strconv.Itoa(i), data: f.Data, digest: l.fileDigests[i]})
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.published {
		objs = append(objs, object{name: snapshotObject, data: l.snap, digest: l.snapDigest,
			meta: map[string]string{"version": strconv.FormatInt(l.version, 10)}})
	}
	return append(objs, object{name: specObject, data: l.specJSON, digest: objectDigest(l.specJSON), meta: jobsMeta(l.jobs)})
}

// put puts o in obs, giving up after apiTimeout and a second per MiB.
func (o *object) put(ctx context.Context, obs jetstream.ObjectStore) error {
	ctx, cancel := context.WithTimeout(ctx, apiTimeout+time.Duration(len(o.data)>>20)*time.Second)
	defer cancel()
	if _, err := obs.Put(ctx, jetstream.ObjectMeta{Name: o.name, Metadata: o.meta}, bytes.NewReader(o.data)); err != nil {
		return fmt.Errorf("object %s: %w", o.name, err)
	}
	return nil
}

// differs returns why the object of obs named o.name is not o: "missing",
// or "its digest differs" or "its metadata differ" from o's; it returns
// "" if it is o, or if obs cannot tell.
func (o *object) differs(ctx context.Context, obs jetstream.ObjectStore) string {
	info, err := obs.GetInfo(ctx, o.name)
	switch {
	case errors.Is(err, jetstream.ErrObjectNotFound):
		return "missing"
	case err != nil:
		return ""
	case info.Digest != o.digest:
		return "its digest differs from the learner's"
	case !maps.Equal(info.Metadata, o.meta):
		return metadataDiffer
	}
	return ""
}

// metadataDiffer is what differs says of an object whose data are o's
// but not its metadata.
const metadataDiffer = "its metadata differ from the learner's"

// objectDigest returns the digest of data as the object store records it.
func objectDigest(data []byte) string {
	h := sha256.Sum256(data)
	return "SHA-256=" + base64.URLEncoding.EncodeToString(h[:])
}

// answer answers a worker's request to join.
func (l *Learner) answer(msg *nats.Msg) {
	var h hello
	err := decode(msg.Data, &h)
	if err == nil {
		err = h.check(&l.spec, l.settings)
	}
	name := h.Worker[:min(len(h.Worker), maxName)]
	var rep helloReply
	if err != nil {
		rep.Error = err.Error()
		l.log.Warn("worker refused", "worker", name, "reason", err)
	} else {
		l.mu.Lock()
		l.workers++
		l.mu.Unlock()
		l.log.Info("worker joined", "worker", name, "version", h.Version)
	}
	b, _ := json.Marshal(rep)
	if err := msg.Respond(b); err != nil {
		l.log.Warn("answer to worker", "worker", name, "err", err)
	}
}

// A troubleReport is a worker's word that it finds something of the run
// missing or wrong (Work).
type troubleReport struct {
	Worker string `json:"worker"`
	What   string `json:"what"`
	Err    string `json:"error"`
}

// heed takes a worker's word that it finds something missing: the next
// check, within a second, checks everything.
func (l *Learner) heed(msg *nats.Msg) {
	var tr troubleReport
	if err := decode(msg.Data, &tr); err != nil {
		l.log.Warn("malformed word of trouble dropped", "err", err, "bytes", len(msg.Data))
		return
	}
	l.log.Warn("a worker finds the run incomplete; checking it", "worker", clip(tr.Worker, maxName), "what", clip(tr.What, 40), "err", clip(tr.Err, 200))
	l.checkAll.Store(true)
}

// clip returns s cut to at most n bytes.
func clip(s string, n int) string { return s[:min(len(s), n)] }

// read passes the reports that pass check to l.reports until ctx is
// done, acknowledging each; it makes the consumer of reports again
// (repair) when it is lost.
func (l *Learner) read(ctx context.Context) {
	for ctx.Err() == nil {
		it, err := l.reportsIterator(ctx)
		if err != nil {
			if ctx.Err() == nil {
				l.log.Warn("reading reports; repairing the run", "err", err)
				l.repair(ctx, false)
				sleep(ctx, retryEvery)
			}
			continue
		}
		l.wg.Go(func() { <-ctx.Done(); it.Stop() })
		for {
			msg, err := it.Next()
			if err != nil {
				if ctx.Err() == nil && !errors.Is(err, jetstream.ErrMsgIteratorClosed) {
					l.log.Warn("reading reports", "err", err)
				}
				it.Stop()
				break
			}
			rep, ok := l.accept(msg.Data())
			msg.Ack()
			if !ok {
				continue
			}
			select {
			case l.reports <- rep:
			case <-ctx.Done():
				return
			}
		}
	}
}

// reportsIterator returns an iterator over the messages of the learner's
// consumer of reports, which pulls at most a few messages ahead.
func (l *Learner) reportsIterator(ctx context.Context) (jetstream.MessagesContext, error) {
	c, err := l.js.Consumer(ctx, reportsStream, learnerName)
	if err != nil {
		return nil, err
	}
	return c.Messages(append(pullOptions(), jetstream.PullMaxBytes(4*MaxMessage))...)
}

// accept decodes and checks the report b, and returns it if it is that of
// an outstanding job; it logs why it drops the others, and submits again
// the job of a report it rejects.
func (l *Learner) accept(b []byte) (bootstrap.Report, bool) {
	var rep bootstrap.Report
	if err := decode(b, &rep); err != nil {
		l.log.Warn("malformed report dropped", "err", err, "bytes", len(b))
		return rep, false
	}
	worker := clip(rep.Worker, maxName)
	id := jobID(&rep.Job)
	l.mu.Lock()
	o := l.outstanding[id]
	var err error
	switch {
	case o == nil && rep.Run == l.run && (rep.Iteration < l.iteration || l.reported[id]):
		l.mu.Unlock()
		l.log.Debug("report of a job already reported dropped", "worker", worker, "iteration", rep.Iteration, "pos", rep.Pos)
		return rep, false
	case o == nil:
		l.mu.Unlock()
		l.log.Warn("report of a job not submitted dropped (another run's?)", "worker", worker, "run", rep.Run, "iteration", rep.Iteration, "pos", rep.Pos)
		return rep, false
	case rep.Job != o.job:
		err = fmt.Errorf("the job is %+v, not the learner's %+v", rep.Job, o.job)
	case rep.Err != "":
		err = fmt.Errorf("the search failed: %s", clip(rep.Err, 200))
	case rep.Expansions < 0 || rep.Expansions > o.job.Budget:
		err = fmt.Errorf("%d expansions for a budget of %d", rep.Expansions, o.job.Budget)
	case rep.Evaluations < 0:
		err = fmt.Errorf("%d evaluations", rep.Evaluations)
	case !rep.Solved && len(rep.Actions) > 0:
		err = errors.New("actions without a solution")
	case int64(len(rep.Actions)) > rep.Expansions+1:
		err = fmt.Errorf("a solution of %d actions in %d expansions", len(rep.Actions), rep.Expansions)
	case rep.Version < 0 || rep.Version > l.version || !l.published:
		err = fmt.Errorf("snapshot version %d; the learner published up to %d", rep.Version, l.version)
	default:
		err = l.checkStop(&rep)
	}
	if err != nil {
		o.tries++
		j, tries := o.job, o.tries
		l.mu.Unlock()
		l.log.Warn("report rejected; the job is submitted again", "worker", worker, "iteration", rep.Iteration, "pos", rep.Pos, "reason", err)
		if err := l.publish(context.Background(), j, tries); err != nil {
			l.log.Warn("submitting a job again", "pos", j.Pos, "err", err)
		}
		return rep, false
	}
	delete(l.outstanding, id)
	l.reported[id] = true
	l.lastReport = time.Now()
	l.mu.Unlock()
	return rep, true
}

// checkStop returns an error if the reason rep gives for the end of its
// search (search.Result.Stop) does not fit its counts: a solved search
// gives none; an unsolved one spent the budget (StopBudget), or gives
// another reason, a timeout only if the run's options have one.
func (l *Learner) checkStop(rep *bootstrap.Report) error {
	switch rep.Stop {
	case "":
		if !rep.Solved {
			return fmt.Errorf("unsolved in %d expansions of a budget of %d, without a reason", rep.Expansions, rep.Budget)
		}
		return nil
	case search.StopBudget:
		if rep.Expansions != rep.Budget {
			return fmt.Errorf("stopped by the budget of %d after %d expansions", rep.Budget, rep.Expansions)
		}
	case search.StopTimeout:
		if l.spec.Options.Timeout == 0 {
			return errors.New("stopped by a timeout; the run has none")
		}
	case search.StopExhausted, search.StopMemory:
	default:
		return fmt.Errorf("stopped for an unknown reason %q", clip(rep.Stop, 40))
	}
	if rep.Solved {
		return fmt.Errorf("solved, and stopped for reason %q", rep.Stop)
	}
	return nil
}

// missingGrace is how long repair waits, when it finds part of the run
// missing, before it makes anything again.
const missingGrace = 2 * time.Second

// missingParts are the parts of the run that repair finds missing.
type missingParts struct {
	streams   []jetstream.StreamConfig
	consumers []struct{ stream, name string }
	store     bool
}

// any reports whether m holds anything.
func (m missingParts) any() bool { return len(m.streams) > 0 || len(m.consumers) > 0 || m.store }

// missing returns the streams, the consumers (of streams that exist) and
// the object store of the run that the server says do not exist, and the
// object store if the server gave it.
func (l *Learner) missing(ctx context.Context) (missingParts, jetstream.ObjectStore) {
	var m missingParts
	for _, sc := range streams() {
		if _, err := l.js.Stream(ctx, sc.Name); errors.Is(err, jetstream.ErrStreamNotFound) {
			m.streams = append(m.streams, sc)
		}
	}
	for _, c := range []struct{ stream, name string }{{jobsStream, consumerName}, {reportsStream, learnerName}} {
		if _, err := l.js.Consumer(ctx, c.stream, c.name); errors.Is(err, jetstream.ErrConsumerNotFound) {
			m.consumers = append(m.consumers, c)
		}
	}
	obs, err := l.js.ObjectStore(ctx, bucketName)
	m.store = errors.Is(err, jetstream.ErrBucketNotFound)
	if err != nil {
		obs = nil
	}
	return m, obs
}

// checkEvery is how often the learner checks the run's streams,
// consumers, spec and snapshot.
const checkEvery = time.Second

// watch checks the run every checkEvery, until ctx is done: it repairs
// what is missing or differs from the learner's (the problem files too
// when a worker found something missing, or no report came for
// StallAfter), and logs what the learner waits for when no report came
// for StallAfter while jobs are outstanding.
func (l *Learner) watch(ctx context.Context) {
	t := time.NewTicker(min(checkEvery, max(l.opts.StallAfter/4, time.Second/4)))
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
		stalled := l.stalled(ctx)
		l.repair(ctx, l.checkAll.Swap(false) || stalled)
	}
}

// stalled reports whether no report came for StallAfter while jobs are
// outstanding, and then logs what the learner waits for.
func (l *Learner) stalled(ctx context.Context) bool {
	l.mu.Lock()
	n, since := len(l.outstanding), time.Since(l.lastReport)
	var oldest *outstanding
	for _, o := range l.outstanding {
		if oldest == nil || o.job.Pos < oldest.job.Pos {
			oldest = o
		}
	}
	workers := l.workers
	if n == 0 || since < l.opts.StallAfter {
		l.mu.Unlock()
		return false
	}
	l.lastReport = time.Now() // the next warning after StallAfter
	l.mu.Unlock()
	args := []any{"jobs_outstanding", n, "iteration", oldest.job.Iteration, "oldest_pos", oldest.job.Pos, "oldest_problem", oldest.job.Problem,
		"oldest_for", time.Since(oldest.since).Round(time.Second), "no_report_for", since.Round(time.Second), "workers_joined", workers}
	if c, err := l.js.Consumer(ctx, jobsStream, consumerName); err == nil {
		info := c.CachedInfo()
		args = append(args, "jobs_queued", info.NumPending, "jobs_in_progress", info.NumAckPending)
	}
	l.log.Warn("waiting for reports", args...)
	return true
}

// repair makes again the streams, the consumers and the object store of
// the run that are missing (deleted by a client), and puts again the
// objects that are missing or differ from the learner's (the spec, the
// snapshot and, if files, the problem files), logging each; it submits
// again the outstanding jobs if jobs or reports may have been lost. A
// step that fails is logged and the others are still taken (the object
// store depends on neither stream); the next repair tries again.
//
// It makes nothing again until missingGrace after it first finds
// something missing: the server forgets a deleted stream before it has
// moved the stream's files away (nats-server's stream.stop), so a stream
// made again at once under the same name may lose its files to that
// move, and then stores nothing while it seems whole.
func (l *Learner) repair(ctx context.Context, files bool) {
	l.repairMu.Lock()
	defer l.repairMu.Unlock()
	m, obs := l.missing(ctx)
	if m.any() {
		sleep(ctx, missingGrace)
		m, obs = l.missing(ctx)
	}
	for _, sc := range m.streams {
		l.log.Warn("the stream is missing; making it again", "stream", sc.Name)
		if _, err := l.makeStream(ctx, sc); err != nil {
			l.log.Warn("repair", "err", err)
		}
	}
	for _, c := range m.consumers {
		l.log.Warn("the consumer is missing; making it again", "stream", c.stream, "consumer", c.name)
	}
	lost := len(m.streams) > 0 || len(m.consumers) > 0
	if lost {
		if err := l.makeConsumers(ctx); err != nil {
			l.log.Warn("repair", "err", err)
		}
	}
	if m.store {
		l.log.Warn("the run's object store is missing; making it again", "bucket", bucketName)
		if err := l.makeStore(ctx); err != nil {
			l.log.Warn("repair", "err", err)
		}
	} else if obs != nil {
		for _, o := range l.objects(files) {
			why := o.differs(ctx, obs)
			if why == "" {
				continue
			}
			l.log.Warn("an object of the run is "+why+"; putting it again", "object", o.name)
			var err error
			if why == metadataDiffer {
				// The same data: a new object would cut the reads of it.
				err = obs.UpdateMeta(ctx, o.name, jetstream.ObjectMeta{Name: o.name, Metadata: o.meta})
			} else {
				err = o.put(ctx, obs)
			}
			if err != nil {
				l.log.Warn("repair", "err", err)
			}
		}
	}
	if !lost {
		return
	}
	l.mu.Lock()
	var jobs []bootstrap.Job
	var tries []int
	for _, o := range l.outstanding {
		o.tries++
		jobs, tries = append(jobs, o.job), append(tries, o.tries)
	}
	l.mu.Unlock()
	l.log.Warn("submitting the outstanding jobs again", "jobs", len(jobs))
	for i, j := range jobs {
		if err := l.publish(ctx, j, tries[i]); err != nil {
			l.log.Warn("submitting a job again", "pos", j.Pos, "err", err)
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
	if len(b) > maxSnapshot {
		return fmt.Errorf("cluster: snapshot: %d bytes; the limit is %d", len(b), maxSnapshot)
	}
	l.mu.Lock()
	l.snap, l.snapDigest, l.version, l.published = b, objectDigest(b), v, true
	l.mu.Unlock()
	if err := l.put(ctx, snapshotObject); err != nil {
		l.log.Warn("publishing the snapshot; repairing the run", "err", err)
		l.repair(ctx, false) // which puts the snapshot if the store was lost
		if err := l.put(ctx, snapshotObject); err != nil {
			return fmt.Errorf("cluster: %w", err)
		}
	}
	return nil
}

// put puts the learner's object called name (the spec or the snapshot)
// in the run's object store.
func (l *Learner) put(ctx context.Context, name string) error {
	l.repairMu.Lock()
	defer l.repairMu.Unlock()
	l.mu.Lock()
	obs := l.obs
	l.mu.Unlock()
	for _, o := range l.objects(false) {
		if o.name == name {
			return o.put(ctx, obs)
		}
	}
	panic("cluster: put of an unknown object " + name)
}

// updateJobs sets the metadata of the spec object to l.jobs.
func (l *Learner) updateJobs(ctx context.Context) error {
	l.repairMu.Lock()
	defer l.repairMu.Unlock()
	l.mu.Lock()
	obs, meta := l.obs, jobsMeta(l.jobs)
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	return obs.UpdateMeta(ctx, specObject, jetstream.ObjectMeta{Name: specObject, Metadata: meta})
}

// Submit adds j to the run's work queue, with the learner's session in a
// header, and counts it outstanding until its report comes.
func (l *Learner) Submit(ctx context.Context, j bootstrap.Job) error {
	l.mu.Lock()
	next := j.Run != l.run || j.Iteration != l.iteration
	if next {
		l.run, l.iteration = j.Run, j.Iteration
		clear(l.reported)
		clear(l.outstanding) // of an iteration the run is done with
		l.jobs = bootstrap.Job{Run: j.Run, Iteration: j.Iteration, Budget: j.Budget}
	}
	o := &outstanding{job: j, since: time.Now()}
	l.outstanding[jobID(&j)] = o
	l.mu.Unlock()
	if next {
		// The workers read the spec's metadata to check the jobs: it goes
		// first.
		if err := l.updateJobs(ctx); err != nil {
			l.log.Warn("updating the spec; repairing the run", "err", err)
			l.repair(ctx, false) // which puts it again
		}
	}
	if err := l.publish(ctx, j, 0); err != nil {
		l.log.Warn("submitting a job; repairing the run", "err", err)
		l.repair(ctx, false)
		l.mu.Lock()
		o.tries++
		tries := o.tries
		l.mu.Unlock()
		return l.publish(ctx, j, tries)
	}
	return nil
}

// publish adds j to the run's work queue, for the tries-th time.
func (l *Learner) publish(ctx context.Context, j bootstrap.Job, tries int) error {
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	msg := &nats.Msg{Subject: jobsSubject, Data: b, Header: nats.Header{sessionHeader: {l.spec.Session}}}
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	if _, err := l.js.PublishMsg(ctx, msg, jetstream.WithMsgID(fmt.Sprintf("%s.%s.%d", l.spec.Session, jobID(&j), tries))); err != nil {
		return fmt.Errorf("cluster: job: %w", err)
	}
	return nil
}

// Reports returns the workers' reports.
func (l *Learner) Reports() <-chan bootstrap.Report { return l.reports }

// Close stops answering the workers and reading their reports. If done,
// training is over, and the workers of the run are told to stop.
func (l *Learner) Close(done bool) error {
	err := errors.Join(l.hello.Unsubscribe(), l.trouble.Unsubscribe())
	l.cancel()
	l.wg.Wait()
	if done {
		if perr := l.nc.Publish(controlSubject, []byte("done "+l.spec.Session)); perr != nil && err == nil {
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

// jobID identifies j.
func jobID(j *bootstrap.Job) string {
	return fmt.Sprintf("%s.%d.%d", j.Run, j.Iteration, j.Pos)
}

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
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
