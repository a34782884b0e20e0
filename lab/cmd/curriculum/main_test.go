package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// tiny is a curriculum of two stages of 20 cubes, scrambled 1 to 3 and 3
// to 5 moves, a small resnet and 3 LevinTS iterations a stage.
func tiny() *Settings {
	return &Settings{
		Domain:  "rubiks",
		Seed:    7,
		Network: []string{"-arch", "resnet", "-units", "16", "-blocks", "1"},
		Train:   []string{"-alg", "levints", "-budget", "20", "-iterations", "3", "-progress", "0"},
		Stages: []Stage{
			{Name: "1-3", N: 20, Generate: []string{"-scramble", "1:3"}},
			{Name: "3-5", N: 20, Generate: []string{"-scramble", "3:5"}},
		},
	}
}

// cancelWriter collects what is written to it, and calls cancel once it
// holds after, then stop.
type cancelWriter struct {
	mu          sync.Mutex
	buf         bytes.Buffer
	after, stop string
	cancel      func()
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.cancel != nil {
		s := w.buf.String()
		if i := strings.Index(s, w.after); i >= 0 && strings.Contains(s[i:], w.stop) {
			w.cancel()
		}
	}
	return len(p), nil
}

func (w *cancelWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// iterations returns the rows of the run's metrics.jsonl that are whole
// iterations, and the problems solved so far after the last.
func iterations(t *testing.T, run string) (n, solved int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(run, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		var row struct {
			Partial     bool `json:"partial"`
			TotalSolved int  `json:"total_solved"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		if !row.Partial {
			n, solved = n+1, row.TotalSolved
		}
	}
	return n, solved
}

// TestCurriculum runs the tiny curriculum, interrupted in its second
// stage, then again on a work directory without its problem sets (as on
// a fresh machine): it must resume the second stage, and leave the first
// as it was.
func TestCurriculum(t *testing.T) {
	work := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := &cancelWriter{after: "stage 02-3-5: started", stop: "iteration done", cancel: cancel}
	r := &runner{s: tiny(), work: work, extra: []string{"-workers", "1"}, stdout: log, stderr: log}
	if err := r.run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted curriculum: %v, want an interruption\n%s", err, log)
	}
	stage1, stage2 := filepath.Join(work, "01-1-3"), filepath.Join(work, "02-3-5")
	if !exists(stage1+".done") || exists(stage2+".done") || !hasCheckpoint(stage2) {
		t.Fatalf("after the interruption: stage 1 done %v, stage 2 done %v, checkpoint %v; want true, false, true",
			exists(stage1+".done"), exists(stage2+".done"), hasCheckpoint(stage2))
	}
	var run struct{ Init string }
	if b, err := os.ReadFile(filepath.Join(stage2, "run.json")); err != nil || json.Unmarshal(b, &run) != nil || filepath.Join(stage2, run.Init) != stage1 {
		t.Errorf("stage 2 started from %q, want %q relative to its run directory", run.Init, stage1)
	}
	before, _ := iterations(t, stage2)
	metrics1, err := os.ReadFile(filepath.Join(stage1, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(work, "data", "02-3-5.txt")
	cubes, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(work, "data")); err != nil {
		t.Fatal(err)
	}

	log = &cancelWriter{}
	r.stdout, r.stderr = log, log
	if err := r.run(context.Background()); err != nil {
		t.Fatalf("resumed curriculum: %v\n%s", err, log)
	}
	out := log.String()
	for _, want := range []string{"stage 01-1-3: done", "stage 02-3-5: resumed", "curriculum: done; the model: " + filepath.Join(stage2, "checkpoint")} {
		if !strings.Contains(out, want) {
			t.Errorf("the resumed curriculum did not say %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(data); err != nil || !bytes.Equal(b, cubes) {
		t.Errorf("the problems of stage 2 generated again differ (%v)", err)
	}
	if b, _ := os.ReadFile(filepath.Join(stage1, "metrics.jsonl")); !bytes.Equal(b, metrics1) {
		t.Error("resuming changed stage 1's run")
	}
	if n, solved := iterations(t, stage2); !exists(stage2+".done") || n <= before || (n != 3 && solved != 20) {
		t.Errorf("stage 2: done %v, %d iterations (%d before the interruption), %d solved; want done, 3 iterations or all 20 solved",
			exists(stage2+".done"), n, before, solved)
	}
	b, err := os.ReadFile(filepath.Join(stage2, "checkpoint", "config.json"))
	if err != nil || !strings.Contains(string(b), `"arch": "resnet"`) || !strings.Contains(string(b), `"units": 16`) {
		t.Errorf("the last stage's network is not the first's resnet: %s %v", b, err)
	}

	// Done: a third run trains nothing.
	log = &cancelWriter{}
	r.stdout, r.stderr = log, log
	if err := r.run(context.Background()); err != nil || strings.Contains(log.String(), "training") {
		t.Errorf("a finished curriculum: %v\n%s", err, log)
	}
	// Other settings in the same directory.
	r.s.Train = append(r.s.Train, "-lr", "0.001")
	if err := r.run(context.Background()); err == nil || !strings.Contains(err.Error(), "settings differ") {
		t.Errorf("changed settings: %v", err)
	}
}

// TestCurriculumContext runs a tiny curriculum of context models: the
// second stage starts from the first's table (-model) and ends with a
// context model.
func TestCurriculumContext(t *testing.T) {
	work := t.TempDir()
	s := tiny()
	s.Network = nil
	s.Train = []string{"-learner", "context", "-batch", "1", "-budget", "2000", "-iterations", "2", "-progress", "0"}
	log := &cancelWriter{}
	r := &runner{s: s, work: work, extra: []string{"-workers", "1"}, stdout: log, stderr: log}
	if err := r.run(context.Background()); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	stage1, stage2 := filepath.Join(work, "01-1-3"), filepath.Join(work, "02-3-5")
	var run struct{ Init string }
	if b, err := os.ReadFile(filepath.Join(stage2, "run.json")); err != nil || json.Unmarshal(b, &run) != nil || filepath.Join(stage2, run.Init) != stage1 {
		t.Errorf("stage 2 started from %q, want %q relative to its run directory", run.Init, stage1)
	}
	if !exists(filepath.Join(stage2, "checkpoint", "cm.json")) {
		t.Error("the last stage's checkpoint holds no context model")
	}
	if _, solved := iterations(t, stage2); solved == 0 {
		t.Error("stage 2 solved nothing")
	}
}

func TestSettingsCheck(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Settings)
		msg  string
	}{
		{func(s *Settings) { s.Domain = "" }, "no domain"},
		{func(s *Settings) { s.Stages = nil }, "no stages"},
		{func(s *Settings) { s.Train = append(s.Train, "-dir", "x") }, "train: -dir: the command sets it"},
		{func(s *Settings) { s.Train = append(s.Train, "--model=x") }, "train: --model=x"},
		{func(s *Settings) { s.Network = append(s.Network, "-resume", "x") }, "network: -resume"},
		{func(s *Settings) { s.Stages[1].Generate = []string{"-seed", "3"} }, "stage 3-5: generate: -seed"},
		{func(s *Settings) { s.Stages[0].Train = []string{"-domain", "stp"} }, "stage 1-3: train: -domain"},
		{func(s *Settings) { s.Stages[1].Name = "1-3" }, `name "1-3": twice`},
		{func(s *Settings) { s.Stages[0].Name = "a/b" }, `name "a/b"`},
		{func(s *Settings) { s.Stages[0].N = 0 }, "n 0"},
	} {
		s := tiny()
		tc.edit(s)
		if err := s.check(); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want %q", tc.msg, err, tc.msg)
		}
	}
	if err := tiny().check(); err != nil {
		t.Errorf("the tiny curriculum: %v", err)
	}
	for name, stages := range map[string]int{"curriculum.json": 11, "ltscm.json": 13} {
		if s, err := readSettings(filepath.Join("..", "..", "rubiks-curriculum", name)); err != nil {
			t.Errorf("the lab's curriculum %s: %v", name, err)
		} else if len(s.Stages) != stages {
			t.Errorf("the lab's curriculum %s has %d stages, want %d", name, len(s.Stages), stages)
		}
	}
}
