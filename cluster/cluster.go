// Package cluster runs the searches of an asynchronous Bootstrap training
// run (package bootstrap) on worker processes that join it over NATS
// JetStream, from the same machine or from others.
//
// The learner (NewLearner, a bootstrap.Pool) puts the run's Spec, its
// problem files and, after each update, the learner's snapshot
// (bootstrap.Snapshot) in a JetStream object store; it submits the jobs to a work-queue stream and reads the reports
// from another stream. A worker (Join, then Work) loads the spec and the
// problems from the run, so it needs no local copy of them, and checks
// that its parse of them has the learner's fingerprint; it takes jobs one
// at a time per search goroutine, searches with the latest snapshot,
// decoded by the decoder of the run's kind of learner, and
// publishes a report before it acknowledges the job. A job whose worker
// dies is redelivered after the acknowledgement wait (Options.AckWait), and
// the learner counts one report per job, so nothing is lost or counted
// twice.
//
// The learner and the workers are two users of the NATS server: a
// worker's permissions (WorkerPermissions) let it join, take jobs, publish
// reports, read the run's objects and hear the end of the run, and
// nothing else. Every client may still be buggy, so each side checks what
// it reads. The learner refuses a worker of another Protocol, or whose
// reading of the search settings (Spec.SettingsSHA256) or of the problems
// differs from its own, with the reason logged on both sides. It passes on
// to the run only the reports of jobs it submitted and still waits for,
// without an error, with counts within the job's budget and a reason to
// stop that fits them. Each learner process has a session (Spec.Session)
// that its jobs and its end of the run carry: a worker drops the jobs of
// another session, or of another run or budget than the spec's
// (in the spec's metadata), and ignores the end of the run sent by another. A
// malformed message is logged and dropped. Every second, and at once when
// a worker says it finds something missing, the learner makes again the
// streams, consumers and objects of the run that a client deleted or
// changed, submitting again the jobs that may have been lost with them.
// Messages, streams and the object store are bounded (MaxMessage).
//
// The learner purges the streams when it starts: a learner that resumes
// from its checkpoint submits again the jobs it had not learned from, and
// the workers, which reconnect on their own, join its new session and go
// on with them. One run uses a NATS account at a time (the names of its
// streams and bucket are fixed). Serve starts an embedded NATS server for
// the learner's process.
package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/search"
)

// Protocol is the version of the messages between the learner and the
// workers; a worker of another protocol is refused.
const Protocol = 3

// The JetStream resources and subjects of a run.
const (
	jobsStream     = "PHS_JOBS" // a work queue
	jobsSubject    = "phs.jobs"
	reportsStream  = "PHS_REPORTS" // a work queue, of the learner
	reportsSubject = "phs.reports"
	consumerName   = "workers" // the workers' durable consumer of jobs
	learnerName    = "learner" // the learner's durable consumer of reports
	bucketName     = "PHS_RUN" // the spec, the problem files and the snapshot
	helloSubject   = "phs.hello"
	controlSubject = "phs.control" // "done SESSION" when training is over
	troubleSubject = "phs.trouble" // a worker's word of what it finds missing

	// sessionHeader holds, in every job, the learner's Spec.Session.
	sessionHeader = "Phs-Session"

	specObject     = "spec.json"
	snapshotObject = "snapshot"
	problemsDir    = "problems/"
)

// Limits on what the messages, the streams and the object store of a run
// may hold: a client that sends more is refused, and neither the server
// nor the learner holds more than a few times these in memory or on disk.
const (
	// MaxMessage is the largest message a run sends but for objects, which
	// the object store splits into chunks; the embedded server refuses
	// larger ones, and so do the run's streams.
	MaxMessage = 1 << 20
	// maxJob bounds a job message.
	maxJob = 4 << 10
	// maxStream bounds the bytes of the jobs and of the reports not yet
	// read; a publisher to a full stream is refused.
	maxStream = 64 << 20
	// maxObject bounds a problem file; maxSnapshot, a snapshot.
	maxObject   = 1 << 30
	maxSnapshot = 256 << 20
	// maxName bounds a worker's name.
	maxName = 256
)

// pullOptions are the options of the learner's and the workers' pull
// requests for reports and jobs: each waits for messages for 5 s, with a
// heartbeat from the server every 500 ms (the least it allows). A pull
// request sent while its consumer is missing (deleted by a client, and not
// yet made again by the learner) gets no answer but "no responders", which
// the iterator ignores: it fails only when two heartbeats are missing, and
// the reader asks again. With the default heartbeat, half the expiry, that
// took 5 s.
func pullOptions() []jetstream.PullMessagesOpt {
	return []jetstream.PullMessagesOpt{jetstream.PullExpiry(5 * time.Second), jetstream.PullHeartbeat(500 * time.Millisecond)}
}

// A Spec describes a run to the workers that join it.
type Spec struct {
	// Version is the learner's phs version, for the messages of the
	// learner and the workers: workers are checked by their Protocol and
	// the fingerprint of their search settings, not by their version.
	Version string `json:"version"`
	// Domain names the problem domain, as phs's commands do.
	Domain string `json:"domain"`
	// Algorithm and Options are the run's (bootstrap.Config), whole: the
	// workers search with them, but for the budget, which each job sets.
	Algorithm search.Algorithm `json:"algorithm"`
	Options   search.Options   `json:"options"`
	// Learner names the kind of the run's learner, whose snapshots the
	// workers decode (WorkerOptions.Learner), such as "network".
	Learner string `json:"learner"`
	// PruneDeadlocks: the problems are searched with their deadlocks
	// pruned (phs -prune-deadlocks); a worker that cannot prune them must
	// not join.
	PruneDeadlocks bool `json:"prune_deadlocks,omitempty"`
	// Files are the names of the problem files, in order; ProblemsSHA256
	// is the fingerprint (bootstrap.ProblemsHash) of the problems they hold.
	Files          []string `json:"files"`
	ProblemsSHA256 string   `json:"problems_sha256"`
	// Session identifies the learner's process; NewLearner sets it. The
	// jobs and the end of the run carry it: a worker drops the jobs, and
	// ignores the end, of any other.
	Session string `json:"session,omitempty"`
}

// The metadata of the spec object: the Run, the Iteration and the Budget
// of the jobs the learner submits now, which it updates (without a new
// object, so that no read of the spec is cut) before the first job of an
// iteration. A worker refuses a job whose run, iteration or budget differ.
const (
	metaRun       = "run"
	metaIteration = "iteration"
	metaBudget    = "budget"
)

// jobsMeta returns the metadata of the spec object for jobs like j.
func jobsMeta(j bootstrap.Job) map[string]string {
	if j.Run == "" {
		return nil
	}
	return map[string]string{metaRun: j.Run, metaIteration: strconv.Itoa(j.Iteration), metaBudget: strconv.FormatInt(j.Budget, 10)}
}

// metaJobs returns the Run, Iteration and Budget of the jobs that the spec
// object's metadata meta says (none before the first job).
func metaJobs(meta map[string]string) (bootstrap.Job, error) {
	var j bootstrap.Job
	if meta[metaRun] == "" {
		return j, nil
	}
	it, err := strconv.Atoi(meta[metaIteration])
	if err != nil {
		return j, fmt.Errorf("the spec's iteration: %w", err)
	}
	b, err := strconv.ParseInt(meta[metaBudget], 10, 64)
	if err != nil {
		return j, fmt.Errorf("the spec's budget: %w", err)
	}
	return bootstrap.Job{Run: meta[metaRun], Iteration: it, Budget: b}, nil
}

// SettingsSHA256 returns the fingerprint of what changes the searches of
// the run of spec, as this program reads them: the protocol, the domain,
// the algorithm, the options with their defaults filled in (but the
// budget, which each job sets), the pruning of deadlocks and the kind of
// learner. A worker whose fingerprint differs from the learner's is
// refused: it would search otherwise.
func (spec *Spec) SettingsSHA256() (string, error) {
	s, err := search.NewSolver[struct{}](spec.Algorithm, search.Uniform[struct{}]{}, spec.Options)
	if err != nil {
		return "", err
	}
	opts := s.Options()
	opts.Budget = 0
	b, err := json.Marshal(struct {
		Protocol       int              `json:"protocol"`
		Domain         string           `json:"domain"`
		Algorithm      search.Algorithm `json:"algorithm"`
		Options        search.Options   `json:"options"`
		PruneDeadlocks bool             `json:"prune_deadlocks"`
		Learner        string           `json:"learner"`
	}{Protocol, spec.Domain, spec.Algorithm, opts, spec.PruneDeadlocks, spec.Learner})
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

// A File is a problem file of a run.
type File struct {
	Name string
	Data []byte
}

// hello is a worker's request to join; helloReply the learner's answer.
type hello struct {
	Worker         string `json:"worker"`
	Protocol       int    `json:"protocol"`
	Version        string `json:"version"`
	Domain         string `json:"domain"`
	SettingsSHA256 string `json:"settings_sha256"`
	ProblemsSHA256 string `json:"problems_sha256"`
	Session        string `json:"session"`
}

type helloReply struct {
	Error string `json:"error,omitempty"`
}

// check returns why the learner of spec, whose settings have fingerprint
// settings, refuses h, or nil.
func (h *hello) check(spec *Spec, settings string) error {
	switch {
	case h.Protocol != Protocol:
		return fmt.Errorf("protocol %d (phs version %s); the learner speaks %d (phs version %s)", h.Protocol, h.Version, Protocol, spec.Version)
	case h.Domain != spec.Domain:
		return fmt.Errorf("domain %q; the run's is %q", h.Domain, spec.Domain)
	case h.SettingsSHA256 != settings:
		return fmt.Errorf("its search settings (algorithm, options, learner) differ from the run's: fingerprint %.12s, the run's %.12s (phs version %s; the learner's %s)",
			h.SettingsSHA256, settings, h.Version, spec.Version)
	case h.ProblemsSHA256 != spec.ProblemsSHA256:
		return errors.New("the problems differ from the run's (their fingerprints differ)")
	case h.Session != spec.Session:
		return errors.New("it joined another session of the run's learner")
	case len(h.Worker) > maxName:
		return fmt.Errorf("a name of %d bytes; the limit is %d", len(h.Worker), maxName)
	}
	return nil
}

// ServerOptions configure the embedded NATS server of Serve.
type ServerOptions struct {
	// Listen is the host:port the server listens on for workers; port 0
	// picks a free one (ClientURL says which).
	Listen string
	// StoreDir is JetStream's directory.
	StoreDir string
	// Learner and Worker are the public nkeys of the run's two users: the
	// learner, which may do anything, and the workers, which have
	// WorkerPermissions. Both are required.
	Learner, Worker string
}

// Validate returns an error if opts.Listen is not an address host:port.
func (opts ServerOptions) Validate() error {
	_, _, err := splitListen(opts.Listen)
	return err
}

// hostPort returns the host and the port of opts.Listen, after checking
// opts: Serve's.
func (opts ServerOptions) hostPort() (string, int, error) {
	host, port, err := splitListen(opts.Listen)
	if err != nil {
		return "", 0, err
	}
	for _, k := range []struct{ role, key string }{{"learner", opts.Learner}, {"worker", opts.Worker}} {
		if !nkeys.IsValidPublicUserKey(k.key) {
			return "", 0, fmt.Errorf("cluster: the %s's key (%d bytes) is not the public key of a NATS user nkey", k.role, len(k.key))
		}
	}
	if opts.Learner == opts.Worker {
		return "", 0, errors.New("cluster: the learner and the workers have the same key")
	}
	return host, port, nil
}

// Serve starts an embedded NATS server with JetStream and returns it once
// it accepts connections; Shutdown stops it. It admits two users, by
// their nkeys: the learner, with every permission, and the workers, with
// WorkerPermissions.
func Serve(opts ServerOptions) (*server.Server, error) {
	host, port, err := opts.hostPort()
	if err != nil {
		return nil, err
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	s, err := server.NewServer(&server.Options{
		Host:      host,
		Port:      port,
		JetStream: true,
		StoreDir:  opts.StoreDir,
		Nkeys: []*server.NkeyUser{
			{Nkey: opts.Learner},
			{Nkey: opts.Worker, Permissions: WorkerPermissions()},
		},
		MaxPayload: MaxMessage,
		NoSigs:     true,
		NoLog:      true,
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("cluster: the NATS server on %s did not start", opts.Listen)
	}
	return s, nil
}

// WorkerPermissions returns the permissions of a worker on the NATS
// server of a run: it may ask to join, pull jobs and acknowledge them,
// publish reports and say what it finds missing, read the run's objects
// and listen for the end of the run, and nothing else. It may not publish
// jobs or the end of the run, nor create, change or delete streams,
// consumers and objects (but for the short-lived consumers with which it
// reads an object). A server of one's own gives the workers' user these
// permissions (the README shows its configuration).
func WorkerPermissions() *server.Permissions {
	objects := "OBJ_" + bucketName
	return &server.Permissions{
		Publish: &server.SubjectPermission{Allow: []string{
			helloSubject, reportsSubject, troubleSubject,
			"$JS.API.CONSUMER.INFO." + jobsStream + "." + consumerName,
			"$JS.API.CONSUMER.MSG.NEXT." + jobsStream + "." + consumerName,
			"$JS.ACK." + jobsStream + "." + consumerName + ".>",
			"$JS.API.STREAM.INFO." + objects,
			"$JS.API.DIRECT.GET." + objects + ".>",
			"$JS.API.CONSUMER.CREATE." + objects + ".*.$O." + bucketName + ".C.>",
			"$JS.API.CONSUMER.DELETE." + objects + ".*",
			"$JS.FC." + objects + ".>",
		}},
		Subscribe: &server.SubjectPermission{Allow: []string{"_INBOX.>", controlSubject}},
	}
}

// splitListen splits a listening address host:port; the port must be a
// number (0: any free port).
func splitListen(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("cluster: listen address %q: %w", addr, err)
	}
	port, err := net.LookupPort("tcp", p)
	if err != nil {
		return "", 0, fmt.Errorf("cluster: listen address %q: %w", addr, err)
	}
	return host, port, nil
}
