// Command reproduce runs the tests behind docs/RESULTS.md again from the
// lab's networks and writes each row's per-problem results in the lab's
// layout: for each row of Table 1 (package lab), the paper's Bootstrap
// test of its network (ROW/test.jsonl.gz) and the fixed-limit test
// (ROW/fixed.jsonl.gz), and for each PHS* row its network under the
// other algorithms (ROW/test-ALG.jsonl.gz), gzipped as the lab stores
// them. Run it in the lab's directory:
//
//	go run ./cmd/reproduce [-root ..] [-data DIR] [-out DIR] [-workers N] [-limit D] [-first N] [DOMAIN...]
//
// With -out . it rewrites the lab's results, from which "go run
// ./cmd/results" then rebuilds the page. After each test it prints the
// summary line of phs test, the row's figures.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/phs-go/phs/lab"
)

// A job is one phs test whose results go to Out (without .jsonl.gz).
type job struct {
	Out string
	// Cmd is the phs command, test or solve (the fixed-limit test), and
	// Args its arguments.
	Cmd  string
	Args []string
}

// config holds the flags.
type config struct {
	root, data, out, limit string
	workers, first         int
}

func main() {
	var c config
	flag.StringVar(&c.root, "root", "..", "the repository's root, where phs is built")
	flag.StringVar(&c.data, "data", "data", `the data sets, as "phs data fetch" lays them out`)
	flag.StringVar(&c.out, "out", "reproduce-out", "the directory of the results, in the lab's layout (.: the lab)")
	flag.StringVar(&c.limit, "limit", "10s", "the time limit per problem of the fixed-limit tests")
	flag.IntVar(&c.workers, "workers", 0, "searches in parallel (0: all cores)")
	flag.IntVar(&c.first, "first", 0, "test only the first N problems of each test set (0: all; for a quick check)")
	flag.Parse()
	domains := flag.Args()
	if len(domains) == 0 {
		domains = lab.Domains
	}
	for _, d := range domains {
		if !slices.Contains(lab.Domains, d) {
			fmt.Fprintf(os.Stderr, "reproduce: unknown domain %q; want one of %s\n", d, strings.Join(lab.Domains, ", "))
			os.Exit(2)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, c, domains); err != nil {
		fmt.Fprintln(os.Stderr, "reproduce:", err)
		os.Exit(1)
	}
}

// jobs returns the tests of the rows of domains.
func jobs(c config, domains []string) []job {
	var js []job
	for _, r := range lab.Rows {
		if !slices.Contains(domains, r.Domain) {
			continue
		}
		test := filepath.Join(c.data, lab.TestFiles[r.Domain])
		common := []string{"-domain", r.Domain, "-model", r.Model, "-workers", strconv.Itoa(c.workers), "-progress", "0"}
		if c.first > 0 {
			common = append(common, "-first", strconv.Itoa(c.first))
		}
		with := func(args ...string) []string { return append(append(slices.Clone(common), args...), test) }
		js = append(js,
			job{filepath.Join(r.Final, "test"), "test", with(append(algFlags(r.Algorithm), "-rounds", strconv.Itoa(r.Rounds))...)},
			job{filepath.Join(r.Final, "fixed"), "solve", with(append(algFlags(r.Algorithm), "-first", first(c.first, 100), "-timeout", c.limit)...)})
		if r.Algorithm != "phsstar" {
			continue
		}
		for _, alg := range lab.Algorithms {
			if alg != "phsstar" {
				js = append(js, job{filepath.Join(r.Final, "test-"+alg), "test",
					with(append(algFlags(alg), "-rounds", strconv.Itoa(lab.FixedNetworkRounds[r.Domain][alg]))...)})
			}
		}
	}
	return js
}

// algFlags returns the flags of phs test that choose algorithm alg as the
// rows used it: A* tests the goal at generation, as the paper's did (phs's
// A* tests at expansion by default).
func algFlags(alg string) []string {
	if alg == "astar" {
		return []string{"-alg", alg, "-goal-test", "generation"}
	}
	return []string{"-alg", alg}
}

// first returns the number of problems of a fixed-limit test: n, the
// -first flag, if set and below the paper's max.
func first(n, max int) string {
	if n > 0 && n < max {
		return strconv.Itoa(n)
	}
	return strconv.Itoa(max)
}

func run(ctx context.Context, c config, domains []string) error {
	bin, err := os.MkdirTemp("", "reproduce")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	phs := filepath.Join(bin, "phs")
	// Built in the library's module, with its go.sum.
	build := exec.CommandContext(ctx, "go", "build", "-C", c.root, "-o", phs, "./cmd/phs")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building phs: %w", err)
	}
	for _, d := range domains {
		if _, err := os.Stat(filepath.Join(c.data, lab.TestFiles[d])); err != nil {
			return fmt.Errorf("%w: fetch the data sets (phs data fetch) or set -data", err)
		}
	}
	for _, j := range jobs(c, domains) {
		out := filepath.Join(c.out, j.Out)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		tmp := out + ".jsonl.tmp"
		args := append([]string{j.Cmd, "-out", tmp}, j.Args...)
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, phs, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			os.Stderr.Write(stderr.Bytes())
			return fmt.Errorf("phs %s: %w", strings.Join(args, " "), err)
		}
		if err := finish(tmp, out); err != nil {
			return err
		}
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		fmt.Printf("%-40s %s\n", j.Out, lines[len(lines)-1])
	}
	return nil
}

// finish gzips the results tmp to out.jsonl.gz (no name nor time in the
// header, as gzip -n), removes tmp, and removes out.jsonl, which
// lab.ResultFile would read before out.jsonl.gz.
func finish(tmp, out string) error {
	b, err := os.ReadFile(tmp)
	if err != nil {
		return err
	}
	plain, gz := out+".jsonl", out+".jsonl.gz"
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if _, err := w.Write(b); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(gz, z.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.Remove(plain); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Remove(tmp)
}
