package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nkeys"
	"github.com/phs-go/phs/cluster"
)

// TestSecretsNotQuoted checks that no error or log line quotes a NATS
// token, whether it comes from -token-file or from the user information
// of a server URL, and that a token too long for a NATS server is refused
// with its length alone.
func TestSecretsNotQuoted(t *testing.T) {
	const secret = "s3cr3t"
	long := strings.Repeat(secret, 16<<10/len(secret))
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	writeTo(t, tokenFile, long+"\n")
	for _, args := range [][]string{
		{"worker", "-connect", "nats://127.0.0.1:1", "-token-file", tokenFile},
		{"train", "-domain", "stp", "-dir", filepath.Join(dir, "run"), "-nats", "nats://127.0.0.1:1", "-token-file", tokenFile, writeFile(t, "tiles.txt", stpFixture)},
	} {
		errOut, err := runFor(2*time.Second, args...)
		if err == nil || !strings.Contains(err.Error(), "-token-file") || !strings.Contains(err.Error(), fmt.Sprintf("%d bytes", len(long))) {
			t.Errorf("%s with a 16 KB token: %v; want an error that names -token-file and the token's length", args[0], err)
		}
		if err != nil && strings.Contains(err.Error()+errOut, secret) {
			t.Errorf("%s with a 16 KB token quotes it: %.100s", args[0], err.Error()+errOut)
		}
	}

	var keys [2]string
	for i := range keys {
		kp, err := nkeys.CreateUser()
		if err != nil {
			t.Fatal(err)
		}
		keys[i], _ = kp.PublicKey()
	}
	srv, err := cluster.Serve(cluster.ServerOptions{Listen: "127.0.0.1:0", StoreDir: t.TempDir(), Learner: keys[0], Worker: keys[1]})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	host := strings.TrimPrefix(srv.ClientURL(), "nats://")
	mid := strings.Repeat(secret, 100)
	for _, url := range []string{"nats://" + mid + "@" + host, "nats://user:" + mid + "@" + host, "nats://" + mid + "@" + host + ",nats://" + mid + "@" + host, "nats://" + long + "@" + host} {
		errOut, err := runFor(5*time.Second, "worker", "-connect", url)
		if err == nil || len(url) < len(long) && !strings.Contains(err.Error(), "Authorization Violation") {
			t.Errorf("worker -connect with the wrong token: %v; want an authorization violation", err)
		}
		if err != nil && (strings.Contains(err.Error()+errOut, secret) || len(err.Error()) > 400) {
			t.Errorf("worker -connect with a token in the URL: the error quotes it: %.100s (%d bytes)", err.Error()+errOut, len(err.Error()))
		}
	}

	// No server: the worker waits, and says so without the token.
	errOut, err := runFor(500*time.Millisecond, "worker", "-connect", "nats://"+long+"@127.0.0.1:1")
	if !strings.Contains(errOut, "waiting for the server") || strings.Contains(errOut, secret) || strings.Contains(err.Error(), secret) {
		t.Errorf("worker without a server: %v; it logged %.200q; want it to wait without quoting the token", err, errOut)
	}
}

// runFor runs the command line args for at most d, and returns its
// standard error and its error.
func runFor(d time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var o, e bytes.Buffer
	err := run(ctx, args, &o, &e)
	return e.String(), err
}

func writeTo(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
