package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/phs-go/phs/internal/datasets"
)

// dataFiles returns the manifest "phs data fetch" works from; tests replace
// it.
var dataFiles = datasets.Manifest

const dataUsage = `usage: phs data fetch [sokoban|stp|witness|all]... [-dir DIR] [-from DIR | -mirror URL]

Fetch puts the data sets the paper used under DIR (default "data"), laid out
as boxoban/unfiltered/{train,test}/NNN.txt, stp/puzzles_5x5_{train,test}.txt
and witness/puzzles_4x4_{train,test}.txt, each with a LICENSE. Every file is
checked against the SHA-256 in the manifest; files already there are skipped
and interrupted downloads are resumed. With no data set named, all are
fetched.

The Boxoban levels come from DeepMind's boxoban-levels repository and the STP
problems from the paper authors' code release (github.com/levilelis/h-levin).
No public URL serves the Witness problem files as single files: import them
with -from from a copy (for example -from ../shared/data), or fetch them from
a -mirror.`

// runData runs "phs data fetch": it downloads, or imports with -from, the
// named data sets (all by default) into -dir, verifying every file. Unknown
// subcommands, data-set names and flags are usage errors.
func runData(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, dataUsage)
		return usagef("data: want a subcommand: fetch")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, dataUsage)
		return flag.ErrHelp
	case "fetch":
	default:
		fmt.Fprintln(stderr, dataUsage)
		return usagef("data: unknown subcommand %q (want fetch)", args[0])
	}

	fs := newFlagSet("data fetch", "[sokoban|stp|witness|all]...", stdout)
	dir := fs.String("dir", "data", "the data directory to fill")
	from := fs.String("from", "", "import and verify the files from `DIR`, a local copy laid out like the data directory, instead of downloading them")
	mirror := fs.String("mirror", "", "download each file from `URL`/PATH, a server laid out like the data directory, instead of its public URL")
	names, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	if len(names) == 0 {
		names = []string{"all"}
	}
	files, err := datasets.Select(dataFiles(), names)
	if err != nil {
		return usagef("data fetch: %v", err)
	}
	if *from != "" && *mirror != "" {
		return usagef("data fetch: -from and -mirror exclude each other")
	}

	if *from != "" {
		err = datasets.Import(ctx, *from, *dir, files, stderr)
	} else {
		if *mirror != "" {
			if files, err = datasets.Mirror(files, *mirror); err != nil {
				return usagef("data fetch: -mirror: %v", err)
			}
		}
		err = datasets.Fetch(ctx, http.DefaultClient, files, *dir, stderr)
	}
	if err != nil {
		return fmt.Errorf("data fetch: %w", err)
	}
	fmt.Fprintf(stderr, "data fetch: %d files of %s present and verified in %s\n", len(files), strings.Join(names, ", "), *dir)
	return nil
}
