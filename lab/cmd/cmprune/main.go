// Command cmprune writes a context model without the rows whose
// parameters spread by at most -tol (cm.Table.Prune), to ship a smaller
// model:
//
//	cmprune -tol 0.1 -out model.safetensors RUN
//
// RUN is a context model's table file, or a run or checkpoint directory
// that holds one (table.safetensors). It prints the rows and bytes
// before and after.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/phs-go/phs/cm"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "cmprune:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("cmprune", flag.ContinueOnError)
	tol := fs.Float64("tol", 0, "drop the rows whose parameters spread by at most this (≥ 0)")
	out := fs.String("out", "", "the pruned table's file (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 1:
		return errors.New("want one model")
	case *out == "":
		return errors.New("-out: required")
	case !(*tol >= 0):
		return fmt.Errorf("-tol %g: want a number ≥ 0", *tol)
	}
	in, err := tableFile(fs.Arg(0))
	if err != nil {
		return err
	}
	t, err := cm.ReadTable(in)
	if err != nil {
		return err
	}
	p := t.Prune(*tol)
	if err := cm.WriteTable(*out, p); err != nil {
		return err
	}
	a, _ := os.Stat(in)
	b, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d rows, %d bytes\n%s: %d rows, %d bytes (-tol %g)\n", in, t.Rows(), a.Size(), *out, p.Rows(), b.Size(), *tol)
	return nil
}

// tableFile returns the table file of path: path itself, or the
// table.safetensors of the directory or of its checkpoint.
func tableFile(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if fi.Mode().IsRegular() {
		return path, nil
	}
	for _, dir := range []string{filepath.Join(path, "checkpoint"), path} {
		f := filepath.Join(dir, cm.TableFile)
		if _, err := os.Stat(f); err == nil {
			return f, nil
		}
	}
	return "", fmt.Errorf("%s: no %s in it or in its checkpoint", path, cm.TableFile)
}
