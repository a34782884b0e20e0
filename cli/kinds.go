package cli

import (
	"flag"
	"fmt"
	"log/slog"
	"strings"

	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/search"
)

// A LearnerKind describes a kind of learner that "phs train -learner
// NAME" trains: the network and the context model of every domain, and
// those that WithLearner gives a domain. Kinds of one name are one kind.
type LearnerKind struct {
	// Name is the value of -learner, and what run.json and
	// cluster.Spec.Learner record: lower-case letters, digits and '-'.
	Name string
	// Noun names what the kind trains, such as "a network", and Usage
	// describes it in the usage of -learner.
	Noun, Usage string
	// Flags registers the kind's own flags on fs, bound into a new
	// value of its settings, which it returns. Train registers those of
	// every kind, and refuses those of a kind other than the run's.
	Flags func(fs *flag.FlagSet) LearnerSettings
	// Ignores names the flags of train, without the dash, that the kind
	// does not read: train refuses them.
	Ignores []string
}

// LearnerSettings are the settings of a learner that its kind's flags set.
type LearnerSettings interface {
	// Validate returns an error if the kind's learner refuses the
	// settings; "phs train" reports it under the name of the first flag
	// whose value alone is refused.
	Validate() error
	// Algorithm returns the algorithm of a run without -alg that starts
	// from model, the value of -model ("" for none).
	Algorithm(model string) (search.Algorithm, error)
	// Defaults sets the kind's defaults of the options o of a fresh run's
	// searches with alg that the command line left at zero.
	Defaults(alg search.Algorithm, o *search.Options)
	// Check returns an error, a usage error of train, if the kind cannot
	// train the fresh run of run's algorithm and model with the settings.
	Check(run *LearnerRun) error
}

// A LearnerRun is what a learner's kind knows of the run it trains.
type LearnerRun struct {
	// Domain names the problems' domain; Algorithm and Options are the
	// run's searches', PruneDeadlocks whether they prune dead ends.
	Domain         string
	Algorithm      search.Algorithm
	Options        search.Options
	PruneDeadlocks bool
	// Model is the value of -model, the learner to start from; "" for a
	// fresh one.
	Model string
	// Threads is -learner-threads: the threads of the learner's steps (0:
	// the learner's default).
	Threads int
	// Logger receives the kind's warnings.
	Logger *slog.Logger
}

// A Learner is a kind of learner for problems whose state type is S: its
// description, and the learners and snapshots it makes. A domain gives
// the network and the context model and the kinds of its WithLearner
// options; "phs train" and "phs worker" look them up by name.
type Learner[S comparable] interface {
	// Kind describes the kind; it is the same for every S.
	Kind() LearnerKind
	// Check returns an error if the problems of the domain called domain,
	// whose problem type is that of p (the zero value, only for type
	// assertions), cannot be learned by the kind.
	Check(domain string, p search.Problem[S]) error
	// New returns a new learner of run for tasks, the run's problems
	// (their last Validation.Problems are validation problems), with the
	// settings that the kind's Flags returned.
	New(settings LearnerSettings, run *LearnerRun, tasks []search.Task[S]) (bootstrap.Learner[S], error)
	// Load returns the learner that its Save wrote to dir, for resuming
	// the run of tasks.
	Load(run *LearnerRun, dir string, tasks []search.Task[S]) (bootstrap.Learner[S], error)
	// Decode returns the snapshot whose MarshalBinary gave b: what the
	// workers over NATS search with.
	Decode(b []byte) (bootstrap.Snapshot[S], error)
}

// WithLearner gives the domain a kind of learner of its own, for "phs
// train -learner NAME" and its workers. NewDomain panics unless S is the
// domain's state type, or if the domain has a kind of that name already.
func WithLearner[S comparable](l Learner[S]) Option {
	return Option{func(o *options) { o.learners = append(o.learners, l) }}
}

// shippedLearners returns the kinds of learner of every domain whose
// state type is S: the network and the context model.
func shippedLearners[S comparable]() []Learner[S] {
	return []Learner[S]{networkLearner[S]{}, contextLearner[S]{}}
}

// learner returns the domain's kind of learner called name.
func (d *domainOf[S]) learner(name string) (Learner[S], error) {
	for _, l := range d.learners {
		if l.Kind().Name == name {
			return l, nil
		}
	}
	return nil, fmt.Errorf("the %s domain has no learner %q (want %s)", d.c.name, name, kindNames(d.c.learners))
}

func (d *domainOf[S]) checkLearner(name string) error {
	l, err := d.learner(name)
	if err != nil {
		return err
	}
	return l.Check(d.c.name, d.zero)
}

// kindNames returns the names of kinds: "a", "a or b", "a, b or c".
func kindNames(kinds []LearnerKind) string {
	var names []string
	for _, k := range kinds {
		names = append(names, k.Name)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// learnerUsage returns the usage of -learner for kinds.
func learnerUsage(kinds []LearnerKind) string {
	var what []LearnerKind
	for _, k := range kinds {
		what = append(what, LearnerKind{Name: k.Name + " (" + k.Usage + ")"})
	}
	return "what the run trains: " + kindNames(what)
}

// kind returns the kind of learner called name of e's domains.
func (e *env) kind(name string) (LearnerKind, bool) {
	for _, k := range e.kinds {
		if k.Name == name {
			return k, true
		}
	}
	return LearnerKind{}, false
}
