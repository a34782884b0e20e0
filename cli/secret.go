package cli

import (
	"strings"
	"unicode/utf8"
)

// maxToken is the length in bytes of the longest NATS token read from
// -token-file: a NATS server reads CONNECT lines, which hold the token,
// of at most 4,096 bytes (its max_control_line), and closes the
// connection of a longer one without saying why.
const maxToken = 1024

// maxQuotedURL is the length in bytes of the longest server URL that an
// error or a log line quotes (redactURL): a longer one is cut.
const maxQuotedURL = 256

// redactURL returns urls, the URL of a NATS server or several separated
// by commas, as errors and logs may show it: the user information of each
// (a token, or a user and a password) replaced by "REDACTED", and the
// whole cut to maxQuotedURL bytes, with "…" at the end when cut.
func redactURL(urls string) string {
	parts := strings.Split(urls, ",")
	for i, u := range parts {
		at := strings.LastIndexByte(u, '@')
		if at < 0 {
			continue
		}
		start := 0
		if s := strings.Index(u, "://"); s >= 0 && s < at {
			start = s + len("://")
		}
		parts[i] = u[:start] + "REDACTED" + u[at:]
	}
	s := strings.Join(parts, ",")
	if len(s) <= maxQuotedURL {
		return s
	}
	cut := maxQuotedURL
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
