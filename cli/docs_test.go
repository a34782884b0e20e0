package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docFiles are the documents whose phs commands TestDocumentedCommands
// checks, relative to the package.
var docFiles = []string{"../README.md", "../CONTRIBUTING.md", "../docs/*.md"}

// TestDocumentedCommands checks every phs command line shown in the
// documents, in code blocks and in code spans, against the flag set of
// its command: each flag it passes exists, and a flag that takes a value
// has one.
func TestDocumentedCommands(t *testing.T) {
	var files []string
	for _, pattern := range docFiles {
		m, err := filepath.Glob(pattern)
		if err != nil || len(m) == 0 {
			t.Fatalf("%s: %v", pattern, err)
		}
		files = append(files, m...)
	}
	flagSets := map[string]map[string]bool{} // by command: flag name → takes a value
	checked := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range documentedCommands(string(b)) {
			args := c.args
			key := args[0]
			if args[0] == "generate" && len(args) > 1 {
				key, args = "generate "+args[1], args[1:]
			}
			if args[0] == "data" && len(args) > 1 {
				key, args = "data "+args[1], args[1:]
			}
			flags, ok := flagSets[key]
			if !ok {
				flags = commandFlags(t, key)
				flagSets[key] = flags
			}
			if flags == nil {
				t.Errorf("%s:%d: %q: no command %q", file, c.line, c.text, key)
				continue
			}
			checked++
			for i := 1; i < len(args); i++ {
				a := args[i]
				if a == "--" {
					break
				}
				if len(a) < 2 || a[0] != '-' || strings.ContainsAny(a[1:2], "0123456789") {
					continue
				}
				name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
				takes, ok := flags[name]
				switch {
				case !ok:
					t.Errorf("%s:%d: %q: phs %s has no flag -%s", file, c.line, c.text, key, name)
				case takes && !hasValue:
					if i+1 == len(args) && c.block { // a code span may name a flag alone
						t.Errorf("%s:%d: %q: -%s takes a value", file, c.line, c.text, name)
					}
					i++
				case !takes && hasValue && value != "true" && value != "false":
					t.Errorf("%s:%d: %q: -%s is a boolean flag", file, c.line, c.text, name)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("%d commands checked; the documents show more", checked)
	}
}

// A documentedCommand is a phs command line of a document: its arguments
// after "phs", its text, its line and whether a code block holds it.
type documentedCommand struct {
	args  []string
	text  string
	line  int
	block bool
}

var (
	codeSpan         = regexp.MustCompile("`([^`\n]+)`")
	commandSeparator = regexp.MustCompile(`&&|;|\||#`)
	commandName      = regexp.MustCompile(`^[a-z]+$`)
)

// documentedCommands returns the phs commands of the Markdown text doc:
// the lines of its code blocks (with their continuation lines) and its
// code spans, cut at "&&", ";", "|" and "#", that start with "phs " and a
// command.
func documentedCommands(doc string) []documentedCommand {
	var cmds []documentedCommand
	add := func(text string, line int, block bool) {
		for _, seg := range commandSeparator.Split(text, -1) {
			f := strings.Fields(seg)
			for len(f) > 0 && (f[0] == "$" || strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-")) {
				f = f[1:] // a prompt or a variable set for the command
			}
			if len(f) < 2 || f[0] != "phs" || !commandName.MatchString(f[1]) {
				continue
			}
			args := make([]string, 0, len(f)-1)
			for _, a := range f[1:] {
				args = append(args, strings.Trim(a, `"'`))
			}
			cmds = append(cmds, documentedCommand{args, strings.TrimSpace(seg), line, block})
		}
	}
	lines := strings.Split(doc, "\n")
	inBlock := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock {
			for _, m := range codeSpan.FindAllStringSubmatch(l, -1) {
				add(m[1], i+1, false)
			}
			continue
		}
		start := i
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + " " + lines[i]
		}
		add(l, start+1, true)
	}
	return cmds
}

var usageFlag = regexp.MustCompile(`(?m)^  -(\S+)( \S+)?$`)

// commandFlags returns the flags of the phs command key ("solve",
// "generate stp", "data fetch", ...) as its usage lists them, each with
// whether it takes a value, or nil if there is no such command.
func commandFlags(t *testing.T, key string) map[string]bool {
	t.Helper()
	if key == "help" {
		return map[string]bool{}
	}
	stdout, _, err := runPHS(t, append(strings.Fields(key), "-h")...)
	if err != nil || !strings.Contains(stdout, "usage: phs "+key) {
		return nil
	}
	flags := map[string]bool{"h": false, "help": false}
	for _, m := range usageFlag.FindAllStringSubmatch(stdout, -1) {
		flags[m[1]] = m[2] != ""
	}
	return flags
}
