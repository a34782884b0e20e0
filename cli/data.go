package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
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
with -from from a copy of a data directory (the directory that holds
boxoban/, stp/ and witness/, such as -from /mnt/phs-data), or fetch them
from a -mirror. Without network access, -from imports every data set from
such a copy.`

// runData runs "phs data fetch": it downloads, or imports with -from, the
// named data sets (all by default) into -dir, verifying every file. Unknown
// subcommands, data-set names and flags are usage errors.
func runData(ctx context.Context, e *env, args []string) error {
	stdout, stderr := e.stdout, e.stderr
	if len(args) == 0 {
		return usagef("data: want a subcommand: fetch (see phs data -h)")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, dataUsage)
		return flag.ErrHelp
	case "fetch":
	default:
		return usagef("data: unknown subcommand %q (want fetch; see phs data -h)", args[0])
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

	made := missingDirs(*dir, files)
	if *from != "" {
		err = datasets.Import(ctx, *from, *dir, files, stderr)
	} else {
		if *mirror != "" {
			if files, err = datasets.Mirror(files, *mirror); err != nil {
				return usagef("data fetch: -mirror: %v", err)
			}
		}
		err = datasets.Fetch(ctx, http.DefaultClient, files, *dir, stderr)
		var netErr net.Error
		if err != nil && ctx.Err() == nil && errors.As(err, &netErr) {
			err = fmt.Errorf("%w; without network access, import the files from a copy of a data directory (the one that holds boxoban/, stp/ and witness/) with -from DIR", err)
		}
	}
	if err != nil {
		// Remove the directories made for nothing; .part files of
		// interrupted downloads stay, to be resumed.
		for i := len(made) - 1; i >= 0; i-- {
			os.Remove(made[i])
		}
		return fmt.Errorf("data fetch: %w", err)
	}
	fmt.Fprintf(stderr, "data fetch: %d files of %s present and verified in %s\n", len(files), strings.Join(names, ", "), *dir)
	return nil
}

// missingDirs returns the directories that the files would be put in
// under dir, and dir itself, that do not exist yet, parents first.
func missingDirs(dir string, files []datasets.File) []string {
	var dirs []string
	seen := map[string]bool{}
	var add func(d string)
	add = func(d string) {
		if seen[d] {
			return
		}
		seen[d] = true
		if _, err := os.Lstat(d); err == nil {
			return
		}
		if d != filepath.Clean(dir) {
			add(filepath.Dir(d))
		}
		dirs = append(dirs, d)
	}
	for _, f := range files {
		rel := filepath.FromSlash(f.Path)
		if !filepath.IsLocal(rel) {
			continue
		}
		add(filepath.Dir(filepath.Join(dir, rel)))
	}
	return dirs
}
