package cli

import (
	"log/slog"
	"slices"
	"strings"

	"github.com/phs-go/phs/search"
)

// warnDuplicates logs a warning for each ID that tasks hold more than once,
// in the order of their first appearance, with its count and its files:
//
//	level=WARN msg="duplicate problem id" id=X count=N files="a.txt, b.txt"
//
// where files[i] is the file tasks[i] was read from, and the files are
// those of the ID's tasks, each named once. Tasks with one ID are not told
// apart in the results, as when a file is given twice, two files share a
// base name or a Boxoban file repeats a "; N" label.
func warnDuplicates[S comparable](tasks []search.Task[S], files []string, log *slog.Logger) {
	type uses struct {
		n     int
		files []string
	}
	byID := make(map[string]*uses, len(tasks))
	var ids []string // in the order of first appearance
	for i, t := range tasks {
		u := byID[t.ID]
		if u == nil {
			u = &uses{}
			byID[t.ID] = u
			ids = append(ids, t.ID)
		}
		u.n++
		if !slices.Contains(u.files, files[i]) {
			u.files = append(u.files, files[i])
		}
	}
	for _, id := range ids {
		if u := byID[id]; u.n > 1 {
			log.Warn("duplicate problem id", "id", id, "count", u.n, "files", strings.Join(u.files, ", "))
		}
	}
}
