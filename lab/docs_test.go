package lab_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// docFiles are the Markdown files whose links TestLinks checks: every
// .md file of the lab, and the repository's README.md and docs/*.md.
func docFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "reproduce-out" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append(append(files, filepath.Join("..", "README.md")), docs...)
}

var (
	// fence opens or closes a fenced code block.
	fence = regexp.MustCompile("^\\s*(```|~~~)")
	// codeSpan is an inline code span.
	codeSpan = regexp.MustCompile("`+[^`]*`+")
	// mdLink is an inline link or image: its target, less an optional title.
	mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	// heading is an ATX heading.
	heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	// htmlAnchor is an anchor an HTML tag names.
	htmlAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	// inlineLink is a link in a heading, whose text the anchor keeps.
	inlineLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// mdDoc is a Markdown file's links and the anchors of its headings.
type mdDoc struct {
	links   []string // targets, as written
	anchors map[string]bool
}

// readDoc reads the links and anchors of the Markdown file p, leaving
// out code blocks and code spans.
func readDoc(p string) (*mdDoc, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	d := &mdDoc{anchors: map[string]bool{}}
	seen := map[string]int{}
	inCode := false
	for _, line := range strings.Split(string(b), "\n") {
		if fence.MatchString(line) {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			d.anchors[m[1]] = true
		}
		if m := heading.FindStringSubmatch(line); m != nil {
			a := slug(m[1])
			if n := seen[a]; n > 0 {
				d.anchors[fmt.Sprintf("%s-%d", a, n)] = true
			} else {
				d.anchors[a] = true
			}
			seen[a]++
		}
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			d.links = append(d.links, m[1])
		}
	}
	return d, nil
}

// slug returns the anchor GitHub gives a heading of text h: its text
// lower-cased, without the characters other than letters, digits,
// spaces, hyphens and underscores, its spaces replaced by hyphens.
func slug(h string) string {
	h = inlineLink.ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestLinks checks that every relative link of the Markdown files of
// docFiles leads to a file or directory of the repository and, where it
// names an anchor of a Markdown file, to one of that file's headings or
// HTML anchors.
func TestLinks(t *testing.T) {
	docs := map[string]*mdDoc{}
	doc := func(p string) *mdDoc {
		p = filepath.Clean(p)
		if docs[p] == nil {
			d, err := readDoc(p)
			if err != nil {
				t.Fatal(err)
			}
			docs[p] = d
		}
		return docs[p]
	}
	for _, p := range docFiles(t) {
		for _, link := range doc(p).links {
			if link == "" || strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			target, anchor, _ := strings.Cut(link, "#")
			file := p
			if target != "" {
				file = filepath.Join(filepath.Dir(p), filepath.FromSlash(target))
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s: link %s: no file %s", p, link, file)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(file, ".md") && !doc(file).anchors[anchor] {
				t.Errorf("%s: link %s: no heading or anchor %q in %s", p, link, anchor, file)
			}
		}
	}
}

// TestSlug checks slug on headings of the kinds the lab's files have.
func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"Sokoban, PHS*: the paper's procedure, its run not finished": "sokoban-phs-the-papers-procedure-its-run-not-finished",
		"A pass at budget 16,000, and one descent at a time":         "a-pass-at-budget-16000-and-one-descent-at-a-time",
		"The Witness 4x4, PHS_h":                                     "the-witness-4x4-phs_h",
		"Shipped: `-model sokoban-hard` (2026-11-29)":                "shipped--model-sokoban-hard-2026-11-29",
		"√LTS with the [network](x.md)":                              "lts-with-the-network",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}
