package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
	"github.com/phs-go/phs/cluster"
	"github.com/phs-go/phs/nn"
)

func runWorker(ctx context.Context, e *env, args []string) error {
	var url, nkeyFile, tokenFile, name string
	var f runFlags
	fs := newFlagSet("worker", "", e.stdout)
	fs.StringVar(&url, "connect", "", "URL of the NATS server of the training run, such as nats://host:4222 (required)")
	fs.StringVar(&nkeyFile, "nkey", "", "file of the workers' NATS nkey seed: RUN/nats/worker.nk of a run served by \"phs train -listen\"")
	fs.StringVar(&tokenFile, "token-file", "", "file whose first line is the token a NATS server of one's own requires (in place of -nkey)")
	fs.StringVar(&name, "name", "", "name of the worker in the learner's log (default: host name and process ID)")
	f.register(fs, workerFlags, e.names, nil)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case url == "":
		return usagef("worker: -connect is required")
	case len(rest) > 0:
		return usagef("worker: no arguments expected, got %s", strings.Join(rest, " "))
	}
	if err := f.check("worker", workerFlags, false); err != nil {
		return err
	}
	searches := f.workers
	log, err := newLogger(f.logFormat, e.stderr)
	if err != nil {
		return usagef("worker: %v", err)
	}
	auth, err := natsAuth(nkeyFile, tokenFile)
	if err != nil {
		return usagef("worker: %v", err)
	}
	nc, err := connectNATS(url, log, auth...)
	for waited := false; errors.Is(err, nats.ErrNoServers); nc, err = connectNATS(url, log, auth...) {
		if !waited {
			log.Info("waiting for the server", "url", redactURL(url))
			waited = true
		}
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	defer nc.Close()
	log.Info("joining", "server", nc.ConnectedUrlRedacted(), "blas", nn.BackendInfo())
	spec, files, err := cluster.Join(ctx, nc)
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	d, ok := e.domains[spec.Domain]
	if !ok {
		return fmt.Errorf("worker: the run's domain %q is not one of %s", spec.Domain, strings.Join(e.names, ", "))
	}
	opts := cluster.WorkerOptions{Name: name, Searches: searches, Version: version(), Logger: log}
	if err := d.work(ctx, nc, spec, files, opts); err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return fmt.Errorf("worker: %w", err)
	}
	log.Info("training over")
	return nil
}

// readToken returns the first line of file, or "" if file is "", at
// most maxToken bytes; its errors never quote the token.
func readToken(file string) (string, error) {
	if file == "" {
		return "", nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("-token-file: %w", err)
	}
	token, _, _ := strings.Cut(string(b), "\n")
	if token = strings.TrimSpace(token); token == "" {
		return "", fmt.Errorf("-token-file %s: no token on its first line", file)
	}
	if len(token) > maxToken {
		return "", fmt.Errorf("-token-file %s: a token of %d bytes on its first line; at most %d", file, len(token), maxToken)
	}
	return token, nil
}

// natsAuth returns the options that authenticate a client with the nkey
// seed of nkeyFile or the token of tokenFile, either of which may be ""
// (not both set).
func natsAuth(nkeyFile, tokenFile string) ([]nats.Option, error) {
	switch {
	case nkeyFile != "" && tokenFile != "":
		return nil, errors.New("-nkey and -token-file exclude each other")
	case nkeyFile != "":
		kp, err := readNkey(nkeyFile)
		if err != nil {
			return nil, fmt.Errorf("-nkey: %w", err)
		}
		pub, _ := kp.PublicKey()
		return []nats.Option{nats.Nkey(pub, kp.Sign)}, nil
	}
	token, err := readToken(tokenFile)
	if err != nil || token == "" {
		return nil, err
	}
	return []nats.Option{nats.Token(token)}, nil
}

// readNkey returns the user nkey whose seed is the first line of file.
func readNkey(file string) (nkeys.KeyPair, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	kp, err := nkeys.FromSeed(bytes.TrimSpace(line))
	if err != nil {
		return nil, fmt.Errorf("%s: no NATS nkey seed on its first line (%v)", file, err)
	}
	if pub, err := kp.PublicKey(); err != nil || !nkeys.IsValidPublicUserKey(pub) {
		return nil, fmt.Errorf("%s: the seed of a NATS nkey that is not a user's", file)
	}
	return kp, nil
}

// connectNATS connects to the NATS server at url with opts, authenticated
// as they say (natsAuth), and reconnects for as long as the connection
// lives, logging the disconnections.
func connectNATS(url string, log *slog.Logger, opts ...nats.Option) (*nats.Conn, error) {
	opts = append(opts,
		nats.MaxReconnects(-1),
		nats.ReconnectWait(500*time.Millisecond),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("disconnected from the NATS server", "err", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { log.Info("reconnected", "server", nc.ConnectedUrlRedacted()) }),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { log.Warn("NATS", "err", err) }))
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", redactURL(url), err)
	}
	return nc, nil
}
