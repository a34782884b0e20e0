package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/network"
	"github.com/phs-go/phs/search"
	"github.com/phs-go/phs/search/searchtest"
)

// TestMain shortens the first wait of a worker's read of the snapshot,
// 5 s, to 1 s: the read of a snapshot that the learner replaces as it is
// read never ends (see worker.refresh), and would hold a test up for the
// whole wait. A read that times out is tried again with twice the wait.
//
// The tests, which mostly wait, run in parallel, each with its own
// server, but for TestRepair and TestWorkerRoles, which run alone: they
// delete streams that the learner makes again at once, while the server
// still removes the deleted stream's files in the background, and under
// the race detector, among the other tests, the server once crashed in the
// remaking (nats-server v2.15.2: newFileStoreWithCreatedAndMode, failing,
// unlocks its nil *fileStore).
func TestMain(m *testing.M) {
	fetchWait = time.Second
	os.Exit(m.Run())
}

// A testServer is an embedded server of the tests, with the keys of the
// learner's user and of the workers'.
type testServer struct {
	*server.Server
	learner, worker nkeys.KeyPair
}

// serve starts an embedded server on loopback for the test.
func serve(t *testing.T) *testServer {
	t.Helper()
	s := &testServer{learner: newUser(t), worker: newUser(t)}
	var err error
	s.Server, err = Serve(ServerOptions{Listen: "127.0.0.1:0", StoreDir: t.TempDir(), Learner: publicKey(t, s.learner), Worker: publicKey(t, s.worker)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	return s
}

func newUser(t *testing.T) nkeys.KeyPair {
	t.Helper()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	return kp
}

func publicKey(t *testing.T, kp nkeys.KeyPair) string {
	t.Helper()
	pub, err := kp.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

// connect connects to s as the learner.
func connect(t *testing.T, s *testServer, opts ...nats.Option) *nats.Conn {
	t.Helper()
	return connectAs(t, s, s.learner, opts...)
}

// connectWorker connects to s as a worker.
func connectWorker(t *testing.T, s *testServer, opts ...nats.Option) *nats.Conn {
	t.Helper()
	return connectAs(t, s, s.worker, opts...)
}

func connectAs(t *testing.T, s *testServer, kp nkeys.KeyPair, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(s.ClientURL(), append(opts, nats.Nkey(publicKey(t, kp), kp.Sign))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// A syncBuffer is a log that several goroutines write.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // closed at the next write
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written != nil {
		close(b.written)
		b.written = nil
	}
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// next returns the log and a channel closed at its next write.
func (b *syncBuffer) next() (string, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written == nil {
		b.written = make(chan struct{})
	}
	return b.b.String(), b.written
}

// run is the run of the tests: mazes, a small PHS_h network and the
// run's spec.
func run(t *testing.T) ([]search.Task[int32], *model.Model, Spec) {
	t.Helper()
	tasks := searchtest.Mazes(48, 5)
	alg := search.PHSh()
	cfg := model.ConfigFor[int32]("maze", alg, tasks[0].Problem.(*searchtest.Maze))
	cfg.Filters, cfg.Hidden = 8, 16
	m, err := model.New(cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Version: "test", Domain: "maze", Algorithm: alg, Options: search.Options{BatchSize: 8}, Learner: "network",
		Files: []string{"mazes.txt"}, ProblemsSHA256: bootstrap.ProblemsHash(tasks)}
	return tasks, m, spec
}

// learner returns a network learner of a copy of m.
func learner(t *testing.T, m *model.Model) bootstrap.Learner[int32] {
	t.Helper()
	n, err := network.NewLearner[int32](m.Clone(), network.LearnerConfig{Passes: 2, Seed: 3, LearningRate: 1e-3}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTrain trains over NATS with two worker "processes" that join by
// Join, among malformed jobs and reports, and checks that training learns,
// that every problem is counted once per iteration, that the malformed
// messages are logged, and that the workers stop when training is over.
func TestTrain(t *testing.T) {
	t.Parallel()
	s := serve(t)
	tasks, m, spec := run(t)
	ctx := context.Background()
	var log syncBuffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	// AckWait 1 s: the job the dead worker holds goes to another one after
	// 1 s.
	l, err := NewLearner(ctx, connect(t, s), spec, []File{{"mazes.txt", []byte("the mazes")}}, Options{AckWait: time.Second, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	nc := connect(t, s)
	for i, bad := range []string{"{", `{"run": 1}`, `{"problem": 99, "budget": 1}`, `{"problem": 0, "budget": 0}`} {
		msg := &nats.Msg{Subject: jobsSubject, Data: []byte(bad), Header: nats.Header{sessionHeader: {l.Session()}}}
		if i == 0 {
			msg.Header = nil
		}
		if err := nc.PublishMsg(msg); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Publish(reportsSubject, []byte(`{"pos": "x"}`)); err != nil {
		t.Fatal(err)
	}

	// A worker that takes a job and dies: the job goes to another worker
	// after the acknowledgement wait.
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	dead, err := js.Consumer(ctx, jobsStream, consumerName)
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan jetstream.Msg, 1)
	go func() {
		for {
			batch, err := dead.Fetch(1, jetstream.FetchMaxWait(time.Second))
			if err != nil {
				return
			}
			for msg := range batch.Messages() {
				var j bootstrap.Job
				if decode(msg.Data(), &j) == nil && j.Run != "" {
					held <- msg // and never acknowledged
					return
				}
			}
		}
	}()

	errs := make(chan error, 2)
	for range 2 {
		go func() {
			nc := connectWorker(t, s)
			spec, files, err := Join(ctx, nc)
			if err == nil && (len(files) != 1 || string(files[0].Data) != "the mazes") {
				err = errors.New("Join: wrong files")
			}
			if err == nil {
				err = Work(ctx, nc, spec, tasks, network.DecodeSnapshot[int32], WorkerOptions{Searches: 1, Version: "test", Learner: "network", Logger: logger})
			}
			errs <- err
		}()
	}

	cfg := bootstrap.Config{Algorithm: spec.Algorithm, Options: spec.Options,
		ProblemsPerUpdate: 8, Limits: bootstrap.Limits{MaxIterations: 3}, Async: true}
	cfg.Options.Budget = 8
	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	metrics, err := bootstrap.Train(tctx, t.TempDir(), tasks, learner(t, m), cfg, bootstrap.Env{Workers: 2, Pool: l})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(true); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		select {
		case err := <-errs:
			if err != nil {
				t.Errorf("worker: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a worker did not stop when training was over")
		}
	}
	select {
	case <-held:
	default:
		t.Error("the dead worker took no job")
	}
	if first, last := metrics[0], metrics[len(metrics)-1]; last.TotalSolved <= first.TotalSolved {
		t.Errorf("solved %d in the first iteration, %d by the last: nothing learned", first.TotalSolved, last.TotalSolved)
	}
	for _, it := range metrics {
		if it.Attempted != len(tasks) {
			t.Errorf("iteration %d attempted %d problems, want %d", it.Iteration, it.Attempted, len(tasks))
		}
	}
	for _, want := range []string{"malformed job dropped", "job of another run or learner dropped", "malformed report dropped", "worker joined"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, log.String())
		}
	}
}

// TestRefused checks that a worker of another protocol, with other
// search settings (though of the same version) or with other problems is
// refused, with the reason on both sides.
func TestRefused(t *testing.T) {
	t.Parallel()
	s := serve(t)
	tasks, _, spec := run(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var log syncBuffer
	l, err := NewLearner(ctx, connect(t, s), spec, []File{{"mazes.txt", nil}}, Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(false)
	spec.Session = l.Session()
	const settings = "its search settings (algorithm, options, learner) differ from the run's"
	for _, tc := range []struct {
		name    string
		edit    func(*Spec)
		learner string
		tasks   []search.Task[int32]
		want    string
	}{
		{"other options", func(s *Spec) { s.Options.BatchSize = 4 }, "network", tasks, settings},
		{"other algorithm", func(s *Spec) { s.Algorithm = search.LevinTS() }, "network", tasks, settings},
		{"other domain", func(s *Spec) { s.Domain = "stp" }, "network", tasks, `domain "stp"; the run's is "maze"`},
		{"other learner", func(s *Spec) {}, "tally", tasks, settings},
		{"other problems", func(s *Spec) {}, "network", tasks[1:], "the problems differ"},
		{"other session", func(s *Spec) { s.Session = "x" }, "network", tasks, "another session"},
	} {
		ws := spec
		tc.edit(&ws)
		err := Work(ctx, connectWorker(t, s), ws, tc.tasks, network.DecodeSnapshot[int32], WorkerOptions{Searches: 1, Version: "test", Learner: tc.learner})
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: worker: %v, want a refusal saying %q", tc.name, err, tc.want)
		}
		if q := strconv.Quote(tc.want); !strings.Contains(log.String(), q[1:len(q)-1]) {
			t.Errorf("%s: the learner's log lacks %q:\n%s", tc.name, tc.want, log.String())
		}
	}

	// A worker of another protocol.
	settingsSHA, err := spec.SettingsSHA256()
	if err != nil {
		t.Fatal(err)
	}
	h, _ := json.Marshal(hello{Worker: "old", Protocol: 1, Version: "(devel)", Domain: spec.Domain, SettingsSHA256: settingsSHA,
		ProblemsSHA256: spec.ProblemsSHA256, Session: spec.Session})
	msg, err := connectWorker(t, s).RequestWithContext(ctx, helloSubject, h)
	if err != nil {
		t.Fatal(err)
	}
	var rep helloReply
	if err := decode(msg.Data, &rep); err != nil || !strings.Contains(rep.Error, "protocol 1 (phs version (devel)); the learner speaks "+strconv.Itoa(Protocol)) {
		t.Errorf("a worker of protocol 1: %q, %v", rep.Error, err)
	}
}

// TestServeNeedsKeys checks that Serve refuses a learner or a worker
// without the public key of a user nkey, the same key for both, and a bad
// address.
func TestServeNeedsKeys(t *testing.T) {
	t.Parallel()
	learner, worker := publicKey(t, newUser(t)), publicKey(t, newUser(t))
	seed, _ := newUser(t).Seed()
	for _, opts := range []ServerOptions{
		{Listen: "127.0.0.1:0"},
		{Listen: "127.0.0.1:0", Learner: learner},
		{Listen: "127.0.0.1:0", Learner: learner, Worker: string(seed)},
		{Listen: "127.0.0.1:0", Learner: learner, Worker: learner},
		{Listen: "127.0.0.1:x", Learner: learner, Worker: worker},
	} {
		opts.StoreDir = t.TempDir()
		if s, err := Serve(opts); err == nil {
			s.Shutdown()
			t.Errorf("Serve(%+v) accepted", opts)
		} else if strings.Contains(err.Error(), string(seed)) {
			t.Errorf("Serve quotes a seed: %v", err)
		}
	}
}

// TestOptionsReachWorkers trains one iteration of one group, whose
// searches all use the first snapshot, in process and over NATS, with
// every search option away from its default: the workers must search as
// the learner's process does, with the same expansions.
func TestOptionsReachWorkers(t *testing.T) {
	t.Parallel()
	s := serve(t)
	tasks, m, spec := run(t)
	spec.Options = search.Options{BatchSize: 4, Renormalize: true, Temperature: 2, GoalTest: search.GoalTestExpansion, NodeLoss: 2,
		MaxMemory: 1 << 30, Timeout: time.Hour}
	cfg := bootstrap.Config{Algorithm: spec.Algorithm, Options: spec.Options, ProblemsPerUpdate: len(tasks),
		Limits: bootstrap.Limits{MaxIterations: 1}, Async: true}
	cfg.Options.Budget = 50
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	want, err := bootstrap.Train(ctx, t.TempDir(), tasks, learner(t, m), cfg, bootstrap.Env{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}

	l, err := NewLearner(ctx, connect(t, s), spec, []File{{"mazes.txt", nil}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 1)
	go func() {
		nc := connectWorker(t, s)
		spec, _, err := Join(ctx, nc)
		if err == nil {
			err = Work(ctx, nc, spec, tasks, network.DecodeSnapshot[int32], WorkerOptions{Searches: 2, Version: "test", Learner: "network"})
		}
		errs <- err
	}()
	got, err := bootstrap.Train(ctx, t.TempDir(), tasks, learner(t, m), cfg, bootstrap.Env{Workers: 2, Pool: l})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(true); err != nil {
		t.Fatal(err)
	}
	if err := <-errs; err != nil {
		t.Errorf("worker: %v", err)
	}
	if got[0].Expansions != want[0].Expansions || got[0].Solved != want[0].Solved {
		t.Errorf("over NATS: %d solved in %d expansions; in process: %d in %d", got[0].Solved, got[0].Expansions, want[0].Solved, want[0].Expansions)
	}
}

// A tally is a learner that is no network: how often each action was
// taken in each state of the solutions learned from; its policy is the
// add-one estimate of an action's probability, its heuristic 0.
type tally map[int32][]int64

func (t tally) Learn(_ context.Context, batch []bootstrap.Solution[int32]) (bootstrap.Update, error) {
	for _, s := range batch {
		for i, x := range s.Trajectory.States {
			if t[x] == nil {
				t[x] = make([]int64, s.Problem.NumActions())
			}
			t[x][s.Trajectory.Actions[i]]++
		}
	}
	return bootstrap.Update{Steps: len(batch)}, nil
}

func (t tally) Snapshot() bootstrap.Snapshot[int32] {
	c := tally{}
	for x, row := range t {
		c[x] = slices.Clone(row)
	}
	return c
}

func (t tally) Save(dir string) error {
	b, err := json.Marshal(t)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "tally.json"), b, 0o644)
	}
	return err
}

func (t tally) NewEvaluator() search.Evaluator[int32] { return t }

func (t tally) MarshalBinary() ([]byte, error) { return json.Marshal(t) }

func (t tally) Evaluate(p search.Problem[int32], states []int32, logPi, h []float64) error {
	A := p.NumActions()
	for i, x := range states {
		n := int64(A)
		for _, k := range t[x] {
			n += k
		}
		for a := range A {
			k := int64(1)
			if t[x] != nil {
				k += t[x][a]
			}
			logPi[i*A+a] = math.Log(float64(k) / float64(n))
		}
		h[i] = 0
	}
	return nil
}

func decodeTally(b []byte) (bootstrap.Snapshot[int32], error) {
	t := tally{}
	return t, json.Unmarshal(b, &t)
}

// TestAnyLearner trains a learner that is no network over NATS: the
// workers search with the snapshots that its decoder reads, and the run
// learns from them.
func TestAnyLearner(t *testing.T) {
	t.Parallel()
	s := serve(t)
	tasks, _, spec := run(t)
	spec.Algorithm, spec.Learner = search.LevinTS(), "tally"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l, err := NewLearner(ctx, connect(t, s), spec, []File{{"mazes.txt", nil}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 1)
	go func() {
		nc := connectWorker(t, s)
		spec, _, err := Join(ctx, nc)
		if err == nil {
			err = Work(ctx, nc, spec, tasks, decodeTally, WorkerOptions{Searches: 2, Version: "test", Learner: "tally"})
		}
		errs <- err
	}()
	cfg := bootstrap.Config{Algorithm: spec.Algorithm, Options: spec.Options, ProblemsPerUpdate: 8,
		Limits: bootstrap.Limits{MaxIterations: 3}, Async: true}
	cfg.Options.Budget = 8
	learned := tally{}
	metrics, err := bootstrap.Train(ctx, t.TempDir(), tasks, learned, cfg, bootstrap.Env{Workers: 2, Pool: l})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(true); err != nil {
		t.Fatal(err)
	}
	if err := <-errs; err != nil {
		t.Errorf("worker: %v", err)
	}
	for _, it := range metrics {
		if it.Attempted != len(tasks) || it.Updates != it.Solved {
			t.Errorf("iteration %d: %+v", it.Iteration, it)
		}
	}
	if len(learned) == 0 {
		t.Error("nothing learned")
	}
}

// TestFetchReplacedSnapshot reads a snapshot whose chunks are gone, as
// when the learner replaces the object while a worker reads it: the read
// times out within its wait instead of hanging, and the worker reads the
// snapshot that replaced it.
func TestFetchReplacedSnapshot(t *testing.T) {
	t.Parallel()
	s := serve(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	js, err := jetstream.New(connect(t, s))
	if err != nil {
		t.Fatal(err)
	}
	obs, err := js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: bucketName, Storage: jetstream.MemoryStorage})
	if err != nil {
		t.Fatal(err)
	}
	put := func(v int64, snap tally) *jetstream.ObjectInfo {
		b, err := json.Marshal(snap)
		if err != nil {
			t.Fatal(err)
		}
		info, err := obs.PutBytes(ctx, snapshotObject, b)
		if err != nil {
			t.Fatal(err)
		}
		info.Metadata = map[string]string{"version": strconv.FormatInt(v, 10)}
		if err := obs.UpdateMeta(ctx, snapshotObject, info.ObjectMeta); err != nil {
			t.Fatal(err)
		}
		return info
	}
	info := put(1, tally{7: {1, 2}})
	stream, err := js.Stream(ctx, "OBJ_"+bucketName)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Purge(ctx, jetstream.WithPurgeSubject("$O."+bucketName+".C."+info.NUID)); err != nil {
		t.Fatal(err)
	}
	w := &worker[int32]{obs: obs, decode: decodeTally}
	start := time.Now()
	if err := w.fetch(ctx, 200*time.Millisecond); !errors.Is(err, errFetchTimeout) {
		t.Fatalf("fetch of a snapshot without chunks: %v, want errFetchTimeout", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("fetch took %v with a wait of 200ms", d)
	}
	put(2, tally{8: {3}})
	if err := w.fetch(ctx, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := w.latest.(tally); w.version != 2 || len(got[8]) != 1 {
		t.Errorf("fetched version %d: %v, want version 2", w.version, got)
	}
}
