package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
	"github.com/phs-go/phs/bootstrap"
	"github.com/phs-go/phs/cluster"
	"github.com/phs-go/phs/search"
)

// natsDir is the directory of a run that holds the JetStream store of the
// embedded NATS server, and workerKeyFile the file in it of the seed of
// the workers' nkey.
const (
	natsDir       = "nats"
	workerKeyFile = "worker.nk"
)

// startLearner serves the run of cfg over NATS, on an embedded server
// (-listen) or on another (-nats), for the workers that join it: bc is the
// run's configuration and tasks its problems. stop(done) ends it, telling
// the workers that training is over if done.
func startLearner[S comparable](ctx context.Context, cfg *trainConfig, bc bootstrap.Config, tasks []search.Task[S]) (*cluster.Learner, func(done bool), error) {
	spec := cluster.Spec{
		Version: version(), Domain: cfg.flags.domain,
		Algorithm: bc.Algorithm, Options: bc.Options, Learner: cfg.learner, PruneDeadlocks: cfg.flags.pruneDeadlocks,
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
	url, opts := cfg.natsURL, append([]nats.Option{nats.Name("phs learner")}, cfg.natsAuth...)
	var keyFile string
	if cfg.listen != "" {
		var worker string
		var err error
		if worker, keyFile, err = workerKey(cfg.dir); err != nil {
			return nil, nil, fmt.Errorf("train: %w", err)
		}
		learner, err := nkeys.CreateUser()
		if err != nil {
			return nil, nil, fmt.Errorf("train: %w", err)
		}
		pub, _ := learner.PublicKey()
		srv, err = cluster.Serve(cluster.ServerOptions{Listen: cfg.listen, StoreDir: filepath.Join(cfg.dir, natsDir), Learner: pub, Worker: worker})
		if err != nil {
			return nil, nil, fmt.Errorf("train: %w", err)
		}
		url, opts = srv.ClientURL(), append(opts, nats.InProcessServer(srv), nats.Nkey(pub, learner.Sign))
	}
	shutdown := func() {
		if srv != nil {
			srv.Shutdown()
		}
	}
	nc, err := connectNATS(url, cfg.log, opts...)
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
		cfg.log.Info("serving the run", "listen", srv.Addr().String(), "workers_join_with", "phs worker -connect nats://HOST:PORT -nkey "+keyFile)
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

// workerKey returns the public key of the workers' nkey of the run in dir,
// and the file of its seed, dir/nats/worker.nk, which it writes (readable
// by its owner only) if it is not there yet.
func workerKey(dir string) (pub, file string, err error) {
	file = filepath.Join(dir, natsDir, workerKeyFile)
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		kp, err := nkeys.CreateUser()
		if err != nil {
			return "", "", err
		}
		seed, _ := kp.Seed()
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return "", "", err
		}
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return "", "", err
		}
		_, err = f.Write(append(seed, '\n'))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", "", err
		}
	}
	kp, err := readNkey(file)
	if err != nil {
		return "", "", err
	}
	pub, _ = kp.PublicKey()
	return pub, file, nil
}
