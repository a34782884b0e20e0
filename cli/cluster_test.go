package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/internal/atomicfile"
	"github.com/phs-go/phs/internal/race"
)

// TestMain runs the command itself, instead of the tests, in the processes
// that the tests start with PHS_TEST_MAIN=1. Neither flushes its files to
// disk: the tests write hundreds of checkpoints, and none checks what a
// crash of the machine would leave.
func TestMain(m *testing.M) {
	atomicfile.SkipSyncForTests()
	if os.Getenv("PHS_TEST_MAIN") == "1" {
		Main(Shipped()...)
	}
	os.Exit(m.Run())
}

// A proc is a phs process that a test started.
type proc struct {
	cmd  *exec.Cmd
	out  *lockedBuffer
	done chan error
}

// lockedBuffer is the standard error of a process, read as it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// startPHS starts "phs args..." as a process; the test kills it at its end.
func startPHS(t *testing.T, args ...string) *proc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: exec.Command(exe, args...), out: &lockedBuffer{}, done: make(chan error, 1)}
	p.cmd.Env = append(race.NoExitSleep(os.Environ()), "PHS_TEST_MAIN=1")
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// kill kills p with SIGKILL and waits for it.
func (p *proc) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	p.done <- nil // for the cleanup
}

// wait waits up to d for p to exit and returns its error.
func (p *proc) wait(t *testing.T, d time.Duration) error {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		return err
	case <-time.After(d):
		t.Fatalf("%v did not exit within %v; its output:\n%s", p.cmd.Args, d, p.out.String())
		return nil
	}
}

// waitFor waits up to d until cond holds.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("waited %v for %s", d, what)
		}
	}
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// readMetrics returns the finished iterations in the metrics.jsonl of run
// directory dir.
func readMetrics(t *testing.T, dir string) []bootstrap.Iteration {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, bootstrap.MetricsJSONL))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var its []bootstrap.Iteration
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var it struct {
			bootstrap.Iteration
			Partial bool `json:"partial"`
		}
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatalf("%s: %v", f.Name(), err)
		}
		if !it.Partial {
			its = append(its, it.Iteration)
		}
	}
	return its
}

// TestTrainOverNATS trains with one learner and three "phs worker"
// processes on loopback: a worker killed with SIGKILL mid-run has its
// problem searched by another, the learner killed with SIGKILL resumes
// from its checkpoint with the workers that are left, every iteration
// attempts every problem exactly once, nothing recorded before the kill is
// lost, and the workers stop when training is over. -short skips it (its
// processes work for 15 s of CPU time): there, package cluster's
// TestTrain (a dead worker's job searched by another, every problem once
// per iteration, the workers stopping at the end) and TestLearnerRestart
// (a worker going on with a learner started again), package bootstrap's
// TestTrainKilled (a resumption after kill -9 reproducing the run) and
// TestContextModelOverNATS here (phs train -listen and phs worker
// processes) check its parts on smaller runs.
func TestTrainOverNATS(t *testing.T) {
	if testing.Short() {
		t.Skip("15 s of CPU time; see the comment for the tests that check its parts with -short")
	}
	b, err := os.ReadFile("../domain/witness/testdata/puzzles_4x4_test-first40.txt")
	if err != nil {
		t.Fatal(err)
	}
	const n = 16
	puzzles := writeFile(t, "puzzles.txt", strings.Join(strings.SplitAfter(string(b), "\n\n")[:n], ""))
	dir := filepath.Join(t.TempDir(), "run")
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	// Enough iterations that the learner is still training when two are
	// done and it is killed: an iteration here can take under 0.3 s.
	const iterations = 12
	_, seed, err := workerKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	learner := startPHS(t, "train", "-domain", "witness", "-alg", "levints", "-dir", dir, "-listen", addr,
		"-workers", "3", "-budget", "300", "-update-every", "4", "-passes", "2", "-iterations", strconv.Itoa(iterations),
		"-ack-wait", "1s", "-checkpoint", "100ms", puzzles)
	var workers []*proc
	for range 3 {
		workers = append(workers, startPHS(t, "worker", "-connect", "nats://"+addr, "-nkey", seed, "-workers", "1"))
	}
	waitFor(t, 20*time.Second, "three workers to join", func() bool { return strings.Count(learner.out.String(), "worker joined") == 3 })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the learner's output:\n%s", learner.out.String())
			for i, w := range workers {
				t.Logf("worker %d's output:\n%s", i+1, w.out.String())
			}
		}
	})
	waitFor(t, 20*time.Second, "the first worker to take jobs", func() bool { return strings.Contains(workers[0].out.String(), "msg=working") })
	workers[0].kill(t)

	waitFor(t, 60*time.Second, "two iterations", func() bool { return len(readMetrics(t, dir)) >= 2 })
	learner.kill(t)
	before := readMetrics(t, dir)
	if len(before) >= iterations {
		t.Fatalf("training was over before the learner was killed; make it longer")
	}
	learner = startPHS(t, "train", "-resume", dir, "-listen", addr, "-ack-wait", "1s")
	if err := learner.wait(t, 120*time.Second); err != nil {
		t.Fatalf("resumed learner: %v\n%s", err, learner.out.String())
	}
	for i, w := range workers[1:] {
		if err := w.wait(t, 20*time.Second); err != nil || !strings.Contains(w.out.String(), "training over") {
			t.Errorf("worker %d: %v, want it to stop when training is over:\n%s", i+2, err, w.out.String())
		}
	}
	after := readMetrics(t, dir)
	if len(after) != iterations {
		t.Fatalf("%d iterations, want %d", len(after), iterations)
	}
	if !reflect.DeepEqual(after[:len(before)], before) {
		t.Errorf("the iterations recorded before the learner was killed changed:\nbefore %+v\nafter  %+v", before, after[:len(before)])
	}
	for _, it := range after {
		if it.Attempted != n {
			t.Errorf("iteration %d attempted %d problems, want %d", it.Iteration, it.Attempted, n)
		}
	}
}

// TestPruneDeadlocksOverNATS checks that "phs worker" searches the
// problems of a run with -prune-deadlocks with their deadlocks pruned, and
// at the run's -temperature: one iteration with the updates at its end
// (every search uses the initial network) evaluates the same states over
// NATS as in one process, and fewer than over NATS without pruning, which
// generates states below the deadlocks. On 4 levels, 2 with -short.
func TestPruneDeadlocksOverNATS(t *testing.T) {
	t.Parallel() // the processes wait more than they work
	n := 4
	if testing.Short() {
		n = 2
	}
	levels := boxobanLevels(t, n)
	// evaluations runs one iteration of PHS* on the levels, over NATS with
	// one worker if nats, and returns its states evaluated.
	evaluations := func(nats bool, args ...string) int64 {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "run")
		args = append([]string{"train", "-domain", "sokoban", "-alg", "phsstar", "-dir", dir, "-budget", "300",
			"-update-every", "1000", "-iterations", "1", "-async"}, args...)
		var worker *proc
		if nats {
			addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
			args = append(args, "-listen", addr)
			_, seed, err := workerKey(dir)
			if err != nil {
				t.Fatal(err)
			}
			worker = startPHS(t, "worker", "-connect", "nats://"+addr, "-nkey", seed, "-workers", "1")
		}
		learner := startPHS(t, append(args, levels)...)
		if err := learner.wait(t, 120*time.Second); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, learner.out.String())
		}
		if worker != nil {
			if err := worker.wait(t, 20*time.Second); err != nil {
				t.Fatalf("worker: %v\n%s", err, worker.out.String())
			}
		}
		its := readMetrics(t, dir)
		if len(its) != 1 || its[0].Attempted != n || its[0].MaxStaleness != 0 {
			t.Fatalf("%v: iterations %+v; want one of %d problems, all searched before the first update", args, its, n)
		}
		return its[0].Evaluations
	}
	local := evaluations(false, "-prune-deadlocks", "-workers", "1")
	pruned := evaluations(true, "-prune-deadlocks")
	plain := evaluations(true)
	if pruned != local || pruned >= plain {
		t.Errorf("states evaluated: %d over NATS with -prune-deadlocks, %d in one process, %d over NATS without; want the first two equal and below the third",
			pruned, local, plain)
	}
	// The searches use the run's temperature, from the shipped network.
	hot := []string{"-model", "../models/sokoban", "-prune-deadlocks", "-temperature", "3"}
	hotLocal := evaluations(false, append(hot, "-workers", "1")...)
	hotNATS := evaluations(true, hot...)
	cold := evaluations(false, "-model", "../models/sokoban", "-prune-deadlocks", "-workers", "1")
	if hotNATS != hotLocal || hotLocal == cold {
		t.Errorf("states evaluated from the shipped network: %d over NATS with -temperature 3, %d in one process, %d in one process without; want the first two equal, the third not",
			hotNATS, hotLocal, cold)
	}
}
