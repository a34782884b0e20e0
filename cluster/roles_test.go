package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/phs-go/phs/bootstrap"
)

// violations collects the permissions violations a connection is told of.
type violations struct {
	mu    sync.Mutex
	errs  []error
	first chan struct{} // closed at the first
}

func (v *violations) handler(_ *nats.Conn, _ *nats.Subscription, err error) {
	if errors.Is(err, nats.ErrPermissionViolation) {
		v.mu.Lock()
		v.errs = append(v.errs, err)
		if len(v.errs) == 1 {
			close(v.started())
		}
		v.mu.Unlock()
	}
}

// started returns the channel closed at the first violation; v.mu is held.
func (v *violations) started() chan struct{} {
	if v.first == nil {
		v.first = make(chan struct{})
	}
	return v.first
}

// wait reports whether a violation came within d.
func (v *violations) wait(d time.Duration) bool {
	v.mu.Lock()
	first := v.started()
	v.mu.Unlock()
	select {
	case <-first:
		return true
	case <-time.After(d):
		return false
	}
}

// TestWorkerRoles checks that each attack of a client that holds the
// workers' credentials fails with a permissions violation and leaves the
// run as it was, while the same attack with the learner's powers (a run
// without roles, as with one shared token) succeeds; and that the learner
// then repairs the run within a few seconds.
func TestWorkerRoles(t *testing.T) {
	// Not in parallel: see TestMain.
	s := serve(t)
	_, m, spec := run(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var log syncBuffer
	// StallAfter 1 s: the learner checks the run every 250 ms.
	l, err := NewLearner(ctx, connect(t, s), spec, []File{{"mazes.txt", []byte("the mazes")}}, Options{StallAfter: time.Second, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(false)
	if err := l.Publish(ctx, 1, learner(t, m).Snapshot()); err != nil {
		t.Fatal(err)
	}
	ljs, _ := jetstream.New(connect(t, s))
	lobs, err := ljs.ObjectStore(ctx, bucketName)
	if err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	snapDigest := l.snapDigest
	l.mu.Unlock()
	missing := func(err error) bool { return err != nil }
	queued := func() uint64 {
		st, err := ljs.Stream(ctx, jobsStream)
		if err != nil {
			t.Fatal(err)
		}
		return st.CachedInfo().State.Msgs
	}
	jobs := queued()
	job, _ := json.Marshal(bootstrap.Job{Run: "r", Iteration: 1, Problem: 0, Budget: 9e18})

	attacks := []struct {
		name string
		// attack attacks the run with a client's connection.
		attack func(ctx context.Context, nc *nats.Conn, js jetstream.JetStream) error
		// worked reports whether the run shows the attack.
		worked func() bool
		// repaired: the learner puts the run back.
		repaired bool
	}{
		{"delete the jobs stream", func(ctx context.Context, _ *nats.Conn, js jetstream.JetStream) error {
			return js.DeleteStream(ctx, jobsStream)
		}, func() bool { _, err := ljs.Stream(ctx, jobsStream); return missing(err) }, true},
		{"delete the workers' consumer", func(ctx context.Context, _ *nats.Conn, js jetstream.JetStream) error {
			return js.DeleteConsumer(ctx, jobsStream, consumerName)
		}, func() bool { _, err := ljs.Consumer(ctx, jobsStream, consumerName); return missing(err) }, true},
		{"delete the snapshot", func(ctx context.Context, _ *nats.Conn, js jetstream.JetStream) error {
			obs, err := js.ObjectStore(ctx, bucketName)
			if err != nil {
				return err
			}
			return obs.Delete(ctx, snapshotObject)
		}, func() bool { _, err := lobs.GetInfo(ctx, snapshotObject); return missing(err) }, true},
		{"put a garbage snapshot", func(ctx context.Context, _ *nats.Conn, js jetstream.JetStream) error {
			obs, err := js.ObjectStore(ctx, bucketName)
			if err != nil {
				return err
			}
			_, err = obs.Put(ctx, jetstream.ObjectMeta{Name: snapshotObject, Metadata: map[string]string{"version": "1"}}, strings.NewReader("garbage"))
			return err
		}, func() bool {
			info, err := lobs.GetInfo(ctx, snapshotObject)
			return err == nil && info.Digest != snapDigest
		}, true},
		{"delete the bucket", func(ctx context.Context, _ *nats.Conn, js jetstream.JetStream) error {
			return js.DeleteObjectStore(ctx, bucketName)
		}, func() bool {
			_, err := ljs.ObjectStore(ctx, bucketName)
			if err == nil {
				_, err = lobs.GetInfo(ctx, specObject)
			}
			return missing(err)
		}, true},
		{"submit a job of budget 9e18", func(ctx context.Context, _ *nats.Conn, js jetstream.JetStream) error {
			_, err := js.PublishMsg(ctx, &nats.Msg{Subject: jobsSubject, Data: job, Header: nats.Header{sessionHeader: {l.Session()}}})
			return err
		}, func() bool { return queued() > jobs }, false},
	}
	// whole reports whether the run shows none of the repaired attacks: a
	// repair puts back the jobs stream before the workers' consumer on it,
	// so the next attack waits for all of it.
	whole := func() bool {
		for _, a := range attacks {
			if a.repaired && a.worked() {
				return false
			}
		}
		return true
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			var v violations
			nc := connectWorker(t, s, nats.ErrorHandler(v.handler))
			js, _ := jetstream.New(nc)
			// The server refuses the attack's request with a word of a
			// violation, and leaves the request unanswered: the attack is
			// cut short once the word has come.
			actx, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- a.attack(actx, nc, js) }()
			violated := v.wait(5 * time.Second)
			cancel()
			err := <-done
			if !violated {
				t.Errorf("the attack with the workers' credentials met no permissions violation (err %v)", err)
			}
			if a.worked() {
				t.Fatalf("the attack with the workers' credentials worked (err %v)", err)
			}

			// The same attack, with the learner's powers. The learner may
			// repair the run before worked looks: then it logged the repair
			// (each line of which ends "it again").
			l.repairMu.Lock() // no repair under way: the log holds the earlier ones
			logged := len(log.String())
			l.repairMu.Unlock()
			actx, cancel = context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			nc = connect(t, s)
			js, _ = jetstream.New(nc)
			if err := a.attack(actx, nc, js); err != nil {
				t.Fatalf("without roles: %v", err)
			}
			if !a.worked() && !(a.repaired && strings.Contains(log.String()[logged:], "it again")) {
				t.Fatal("the attack did not work without roles: the test cannot fail")
			}
			if !a.repaired {
				return
			}
			for start := time.Now(); !whole(); time.Sleep(50 * time.Millisecond) {
				if time.Since(start) > 5*time.Second {
					t.Fatalf("the learner did not repair the run in 5 s:\n%s", log.String())
				}
			}
		})
	}

	// The end of the run: a worker goes on after the workers' attempt, and
	// stops after the learner's.
	var wlog syncBuffer
	errs := startWorker(ctx, t, connectWorker(t, s), "w", slog.New(slog.NewTextHandler(&wlog, nil)))
	waitFor(t, &log, "worker joined")
	var v violations
	nc := connectWorker(t, s, nats.ErrorHandler(v.handler))
	if err := nc.Publish(controlSubject, []byte("done "+l.Session())); err != nil {
		t.Fatal(err)
	}
	nc.Flush()
	// The server refuses the message: the worker goes on.
	if !v.wait(5 * time.Second) {
		t.Error("the end of the run sent with the workers' credentials met no permissions violation")
	}
	select {
	case err := <-errs:
		t.Fatalf("a worker stopped on an end of the run sent with the workers' credentials: %v", err)
	default:
	}
	if err := connect(t, s).Publish(controlSubject, []byte("done "+l.Session())); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errs:
		if err != nil {
			t.Errorf("worker: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the worker did not stop on the learner's end of the run: the test cannot fail")
	}
}

// TestREADMEServerConfig checks that the configuration of a NATS server
// of one's own in the README gives the workers WorkerPermissions.
func TestREADMEServerConfig(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, conf, ok := strings.Cut(string(b), "```conf\n")
	conf, _, ok2 := strings.Cut(conf, "```")
	if !ok || !ok2 {
		t.Fatal("the README has no ```conf block")
	}
	learner, worker := publicKey(t, newUser(t)), publicKey(t, newUser(t))
	conf = strings.NewReplacer("LEARNER_PUBLIC_KEY", learner, "WORKER_PUBLIC_KEY", worker, "/var/lib/nats", t.TempDir()).Replace(conf)
	file := filepath.Join(t.TempDir(), "nats.conf")
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !opts.JetStream || opts.MaxPayload != MaxMessage || len(opts.Nkeys) != 2 {
		t.Fatalf("jetstream %v, max_payload %d, %d users", opts.JetStream, opts.MaxPayload, len(opts.Nkeys))
	}
	for _, u := range opts.Nkeys {
		switch u.Nkey {
		case learner:
			if u.Permissions != nil {
				t.Errorf("the learner has permissions %+v; want all", u.Permissions)
			}
		case worker:
			want := WorkerPermissions()
			if !reflect.DeepEqual(u.Permissions.Publish, want.Publish) || !reflect.DeepEqual(u.Permissions.Subscribe, want.Subscribe) {
				t.Errorf("the README's worker permissions\n%+v %+v\nwant\n%+v %+v", u.Permissions.Publish, u.Permissions.Subscribe, want.Publish, want.Subscribe)
			}
		default:
			t.Errorf("user %s", u.Nkey)
		}
	}
}
