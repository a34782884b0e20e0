package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/cluster"
	"github.com/phs-go/phs/search"
)

// natsDir is the directory of a run that holds the JetStream store of the
// embedded NATS server.
const natsDir = "nats"

// The kinds of learner of phs's runs (-learner, run.json's "learner" and
// cluster.Spec.Learner): a network, whose snapshots the workers decode
// with bootstrap.DecodeNetwork, or a context model (cm.DecodeSnapshot).
const (
	learnerNetwork = "network"
	learnerContext = "context"
)

// startLearner serves the run of cfg over NATS, on an embedded server
// (-listen) or on another (-nats), for the workers that join it: bc is the
// run's configuration and tasks its problems. stop(done) ends it, telling
// the workers that training is over if done.
func startLearner[S comparable](ctx context.Context, cfg *trainConfig, bc bootstrap.Config, tasks []search.Task[S]) (*cluster.Learner, func(done bool), error) {
	spec := cluster.Spec{
		Version: version(), Domain: cfg.Domain,
		Algorithm: bc.Algorithm, Options: bc.Options, Learner: cfg.Learner, PruneDeadlocks: cfg.PruneDeadlocks,
		Files: cfg.problemFiles(), ProblemsSHA256: bootstrap.ProblemsHash(tasks),
	}
	files := make([]cluster.File, len(spec.Files))
	for i, name := range spec.Files {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, nil, fmt.Errorf("train: %w", err)
		}
		files[i] = cluster.File{Name: name, Data: b}
	}
	var srv *server.Server
	url, opts := cfg.natsURL, []nats.Option{nats.Name("phs learner")}
	if cfg.listen != "" {
		var err error
		srv, err = cluster.Serve(cluster.ServerOptions{Listen: cfg.listen, StoreDir: filepath.Join(cfg.dir, natsDir), Token: cfg.token})
		if err != nil {
			return nil, nil, fmt.Errorf("train: %w", err)
		}
		url, opts = srv.ClientURL(), append(opts, nats.InProcessServer(srv))
	}
	shutdown := func() {
		if srv != nil {
			srv.Shutdown()
		}
	}
	nc, err := connectNATS(url, cfg.token, cfg.log, opts...)
	if err != nil {
		shutdown()
		return nil, nil, fmt.Errorf("train: %w", err)
	}
	l, err := cluster.NewLearner(ctx, nc, spec, files, cluster.Options{AckWait: cfg.ackWait, Logger: cfg.log})
	if err != nil {
		nc.Close()
		shutdown()
		return nil, nil, fmt.Errorf("train: %w", err)
	}
	if srv != nil {
		cfg.log.Info("serving the run", "listen", srv.Addr().String(), "workers_join_with", "phs worker -connect nats://HOST:PORT")
	}
	stop := func(done bool) {
		if err := l.Close(done); err != nil {
			cfg.log.Warn("closing the learner", "err", err)
		}
		nc.Close()
		shutdown()
	}
	return l, stop, nil
}
