package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/cli"
	"github.com/phs-go/phs/search"
)

// never is a kind of learner that never learns: its snapshots search
// with the uniform policy. Its one flag, -never-note, is saved with it.
type never struct{}

type neverSettings struct{ Note string }

func (s *neverSettings) Validate() error {
	if strings.Contains(s.Note, "\n") {
		return errors.New("never: a note of more than a line")
	}
	return nil
}

func (s *neverSettings) Algorithm(string) (search.Algorithm, error) { return search.LevinTS(), nil }
func (s *neverSettings) Defaults(search.Algorithm, *search.Options) {}

func (s *neverSettings) Check(run *cli.LearnerRun) error {
	if run.Model != "" {
		return errors.New("-model: never starts from nothing")
	}
	return nil
}

func (never) Kind() cli.LearnerKind {
	return cli.LearnerKind{
		Name: "never", Noun: "nothing", Usage: "a learner that never learns",
		Flags: func(fs *flag.FlagSet) cli.LearnerSettings {
			s := new(neverSettings)
			fs.StringVar(&s.Note, "never-note", "", "never: a note saved with the learner")
			return s
		},
		Ignores: []string{"mix"},
	}
}

func (never) Check(string, search.Problem[int]) error { return nil }

func (never) New(s cli.LearnerSettings, _ *cli.LearnerRun, _ []search.Task[int]) (bootstrap.Learner[int], error) {
	return &neverLearner{*s.(*neverSettings)}, nil
}

func (never) Load(_ *cli.LearnerRun, dir string, _ []search.Task[int]) (bootstrap.Learner[int], error) {
	b, err := os.ReadFile(filepath.Join(dir, "never.json"))
	if err != nil {
		return nil, err
	}
	var l neverLearner
	return &l, json.Unmarshal(b, &l.settings)
}

func (never) Decode([]byte) (bootstrap.Snapshot[int], error) { return uniform{}, nil }

type neverLearner struct{ settings neverSettings }

func (l *neverLearner) Learn(context.Context, []bootstrap.Solution[int]) (bootstrap.Update, error) {
	return bootstrap.Update{}, nil
}

func (l *neverLearner) Snapshot() bootstrap.Snapshot[int] { return uniform{} }

func (l *neverLearner) Save(dir string) error {
	b, err := json.Marshal(l.settings)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "never.json"), b, 0o644)
}

type uniform struct{}

func (uniform) NewEvaluator() search.Evaluator[int] { return search.Uniform[int]{} }
func (uniform) MarshalBinary() ([]byte, error)      { return nil, nil }

// TestLearnerKind trains and resumes a run of a kind of learner that a
// domain of one's own (Example's walk) gives (WithLearner), with its flag, and checks that train
// refuses its flag for another kind and another kind's flags for it.
func TestLearnerKind(t *testing.T) {
	dir := t.TempDir()
	walks := filepath.Join(dir, "walks.txt")
	if err := os.WriteFile(walks, []byte("3\n-2\n40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	domain := cli.NewDomain[int]("walk", parseWalks, cli.WithLearner[int](never{}))
	phs := func(args ...string) (string, error) {
		var out strings.Builder
		err := cli.Run(context.Background(), args, io.Discard, &out, domain)
		return out.String(), err
	}
	run := filepath.Join(dir, "run")
	train := []string{"train", "-domain", "walk", "-learner", "never", "-budget", "20", "-workers", "1"}
	if out, err := phs(append(train, "-never-note", "hello", "-iterations", "1", "-dir", run, walks)...); err != nil {
		t.Fatalf("train: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(run, "run.json"))
	if err != nil || !strings.Contains(string(b), `"learner": "never"`) {
		t.Errorf("run.json: %s, %v; want it to record the learner never", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(run, "checkpoint", "never.json")); err != nil || string(b) != `{"Note":"hello"}` {
		t.Errorf("the learner saved: %s, %v", b, err)
	}
	if out, err := phs("train", "-resume", run, "-iterations", "2"); err != nil {
		t.Fatalf("train -resume: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(train, "-never-note", "a\nb"), "-never-note a\nb: never: a note of more than a line"},
		{append(train, "-lr", "0.1"), "-lr 0.1: -learner never trains nothing, which does not read it"},
		{append(train, "-mix", "0.1"), "-mix 0.1: -learner never trains nothing"},
		{append(train, "-model", walks), "train: -model: never starts from nothing"},
		{[]string{"train", "-domain", "walk", "-never-note", "x"}, "-never-note x: -learner network trains a network"},
		{[]string{"train", "-domain", "walk", "-learner", "always"}, `-learner "always": want network, context or never`},
	} {
		_, err := phs(append(tc.args, "-dir", filepath.Join(dir, "bad"), walks)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}
