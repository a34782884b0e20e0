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
// twice. A worker of another phs version, domain or set of problems is
// refused, with the reason logged on both sides; a malformed message is
// logged and dropped.
//
// The learner purges the streams when it starts: a learner that resumes
// from its checkpoint submits again the jobs it had not learned from, and
// the workers, which reconnect on their own, go on with them. One run uses
// a NATS account at a time (the names of its streams and bucket are
// fixed). Serve starts an embedded NATS server for the learner's process.
package cluster

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/phs-go/phs/search"
)

// The JetStream resources and subjects of a run.
const (
	jobsStream     = "PHS_JOBS" // a work queue
	jobsSubject    = "phs.jobs"
	reportsStream  = "PHS_REPORTS"
	reportsSubject = "phs.reports"
	consumerName   = "workers" // the workers' durable consumer of jobs
	bucketName     = "PHS_RUN" // the spec, the problem files and the snapshot
	helloSubject   = "phs.hello"
	controlSubject = "phs.control" // "done" when training is over

	// problemsHeader holds, in every job, Spec.ProblemsSHA256.
	problemsHeader = "Phs-Problems"

	specObject     = "spec.json"
	snapshotObject = "snapshot"
	problemsDir    = "problems/"
)

// Limits on what the messages of a run may hold.
const (
	// MaxMessage is the largest message a run sends but for objects, which
	// the object store splits into chunks; the embedded server refuses
	// larger ones.
	MaxMessage = 1 << 20
	// maxObject bounds a problem file and the snapshot a worker reads.
	maxObject = 1 << 30
)

// A Spec describes a run to the workers that join it.
type Spec struct {
	// Version is the learner's phs version; a worker of another is
	// refused.
	Version string `json:"version"`
	// Domain names the problem domain, as phs's commands do.
	Domain string `json:"domain"`
	// Algorithm and Options are the run's (bootstrap.Config), whole: the
	// workers search with them, but for the budget, which each job sets.
	Algorithm search.Algorithm `json:"algorithm"`
	Options   search.Options   `json:"options"`
	// PruneDeadlocks: the problems are searched with their deadlocks
	// pruned (phs -prune-deadlocks); a worker that cannot prune them must
	// not join.
	PruneDeadlocks bool `json:"prune_deadlocks,omitempty"`
	// Files are the names of the problem files, in order; ProblemsSHA256
	// is the fingerprint (bootstrap.ProblemsHash) of the problems they hold.
	Files          []string `json:"files"`
	ProblemsSHA256 string   `json:"problems_sha256"`
}

// A File is a problem file of a run.
type File struct {
	Name string
	Data []byte
}

// hello is a worker's request to join; helloReply the learner's answer.
type hello struct {
	Worker         string `json:"worker"`
	Version        string `json:"version"`
	Domain         string `json:"domain"`
	ProblemsSHA256 string `json:"problems_sha256"`
}

type helloReply struct {
	Error string `json:"error,omitempty"`
}

// check returns why the learner of spec refuses h, or nil.
func (h *hello) check(spec *Spec) error {
	switch {
	case h.Version != spec.Version:
		return fmt.Errorf("phs version %s; the learner runs %s", h.Version, spec.Version)
	case h.Domain != spec.Domain:
		return fmt.Errorf("domain %q; the run's is %q", h.Domain, spec.Domain)
	case h.ProblemsSHA256 != spec.ProblemsSHA256:
		return errors.New("the problems differ from the run's (their fingerprints differ)")
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
	// Token, if not empty, is the token clients must present. It is
	// required unless Listen's host is a loopback address.
	Token string
}

// Validate returns an error if opts.Listen is not an address host:port,
// or if it is not a loopback address and opts.Token is empty.
func (opts ServerOptions) Validate() error {
	_, _, err := opts.hostPort()
	return err
}

// hostPort returns the host and the port of opts.Listen, after checking
// opts.
func (opts ServerOptions) hostPort() (string, int, error) {
	host, port, err := splitListen(opts.Listen)
	if err != nil {
		return "", 0, err
	}
	if opts.Token == "" && !loopback(host) {
		return "", 0, fmt.Errorf("cluster: listening on %q needs a token (only loopback addresses go without)", opts.Listen)
	}
	return host, port, nil
}

// Serve starts an embedded NATS server with JetStream and returns it once
// it accepts connections; Shutdown stops it.
func Serve(opts ServerOptions) (*server.Server, error) {
	host, port, err := opts.hostPort()
	if err != nil {
		return nil, err
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	s, err := server.NewServer(&server.Options{
		Host:          host,
		Port:          port,
		JetStream:     true,
		StoreDir:      opts.StoreDir,
		Authorization: opts.Token,
		MaxPayload:    MaxMessage,
		NoSigs:        true,
		NoLog:         true,
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

// loopback reports whether host names only the loopback interface; an
// empty host means every interface.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
