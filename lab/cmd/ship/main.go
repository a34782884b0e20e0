// Command ship writes a network as it ships in the library's models
// directory: its weights as they are (F32) or in half precision (-f16,
// model.SaveF16), and its configuration with the search it is to be used
// with and a record of how it was trained:
//
//	ship [-alg ALG] [-budget N] [-batch N] [-shorten-found N] [-f16] [-meta KEY=VALUE]... -out DIR MODEL
//
// MODEL is a network's directory (a run's checkpoint, or a saved model).
// -alg replaces the algorithm of its configuration (search.Parse), -budget
// and -batch its search options' Budget and BatchSize (search.Options),
// -shorten-found its ShortenFound (model.Config);
// the -meta entries, if any, replace its Meta. The options must suit the
// algorithm (search.Options.Validate). -out may not be MODEL. Errors of
// the command line exit with status 2.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/phs-go/phs/lab/internal/paths"
	"github.com/phs-go/phs/model"
	"github.com/phs-go/phs/search"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ship:", err)
		var u usageError
		if errors.As(err, &u) || errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is an error of the command line.
type usageError struct{ error }

// metaFlag collects -meta KEY=VALUE pairs.
type metaFlag map[string]string

func (m metaFlag) String() string { return fmt.Sprint(map[string]string(m)) }

func (m metaFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return fmt.Errorf("%q: want KEY=VALUE, both not empty", s)
	}
	if _, dup := m[k]; dup {
		return fmt.Errorf("%q: key %q given twice", s, k)
	}
	m[k] = v
	return nil
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("ship", flag.ContinueOnError)
	alg := fs.String("alg", "", "the algorithm to search with (default: the network's)")
	budget := fs.Int64("budget", -1, "the search's budget of expansions, ≥ 0, 0 for none (default: the network's)")
	batch := fs.Int("batch", -1, fmt.Sprintf("states evaluated per call, 0 to %d (default: the network's)", search.MaxBatchSize))
	shorten := fs.Int("shorten-found", -1, fmt.Sprintf("the nodes of the domain's pass that shortens each solution found, 0 to %d, 0 for none (default: the network's)", model.MaxShortenFound))
	f16 := fs.Bool("f16", false, "store the weights in half precision")
	out := fs.String("out", "", "the directory to write")
	meta := metaFlag{}
	fs.Var(meta, "meta", "KEY=VALUE: an entry of the configuration's meta (repeatable)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() != 1 || *out == "" {
		return usageError{errors.New("want -out DIR and one MODEL")}
	}
	src := fs.Arg(0)
	if paths.Same(src, *out) {
		return usageError{fmt.Errorf("-out %s is MODEL", *out)}
	}
	m, err := model.Load(src)
	if err != nil {
		return err
	}
	c := m.Config()
	if *alg != "" {
		if c.Algorithm, err = search.Parse(*alg); err != nil {
			return usageError{fmt.Errorf("-alg: %w", err)}
		}
		if model.HeadsFor(c.Algorithm)&^c.Heads != 0 {
			return usageError{fmt.Errorf("-alg %s: the network has no head for it (%s)", c.Algorithm, c.Heads)}
		}
	}
	if *budget >= 0 {
		c.Search.Budget = *budget
	}
	if *batch >= 0 {
		c.Search.BatchSize = *batch
	}
	if *shorten >= 0 {
		c.ShortenFound = *shorten
	}
	if len(meta) > 0 {
		c.Meta = meta
	}
	n, err := model.New(c, 0)
	if err != nil {
		return usageError{err}
	}
	n.CopyWeightsFrom(m)
	save := model.Save
	if *f16 {
		save = model.SaveF16
	}
	if err := save(*out, n); err != nil {
		return err
	}
	var size int64
	for _, f := range []string{model.ConfigFile, model.WeightsFile} {
		st, err := os.Stat(filepath.Join(*out, f))
		if err != nil {
			return err
		}
		size += st.Size()
	}
	_, err = fmt.Fprintf(stdout, "%s: %s, %d bytes\n", *out, c.Algorithm, size)
	return err
}
