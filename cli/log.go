package cli

import (
	"flag"
	"io"
	"log/slog"
)

// logFormats are the formats of -log.
const logFormats = "text or json"

// logFlag registers the -log flag of a command on fs.
func logFlag(fs *flag.FlagSet, format *string) {
	fs.StringVar(format, "log", "text", "format of the progress and log records on standard error: "+logFormats)
}

// newLogger returns a logger that writes records in format, "text" or
// "json", to w.
func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, usagef("-log %q: want %s", format, logFormats)
}
