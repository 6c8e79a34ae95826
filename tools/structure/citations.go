package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// The reference a comment, doc or schema cites must be one a reader of the repository can open:
// docs/protocol/ is the project's protocol reference (docs/protocol/README.md#how-to-cite), and
// these patterns are the ways text cited notes that never were in the repository (ADR 0064).
var outsidePatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\bspec\s*§`),
	regexp.MustCompile(`codex-0169\.md|code-mode-protocol\.md|protocol-layers\.md|dependency-notes\.md|layout\.md`),
	regexp.MustCompile(`shared/spec|\bseeds/`),
	regexp.MustCompile(`(?i)\bdependency notes\b`),
	regexp.MustCompile(`(?i)\b(the|earlier|older|newer|protocol) spec\b|\bspec's\b`),
}

// sectionSign finds a "§"; one is allowed only where it cites a published standard (RFC 9113
// §3.4, W3C Trace Context, §3.2), which allowedSection matches.
var (
	sectionSign    = regexp.MustCompile(`§`)
	allowedSection = regexp.MustCompile(`(RFC \d+|W3C Trace Context),? §`)
)

// citedExtensions are the files whose text can cite something: code and its comments, docs,
// schemas and their descriptions, scripts.
var citedExtensions = map[string]bool{
	".go": true, ".md": true, ".proto": true, ".json": true, ".ts": true, ".js": true, ".mjs": true,
	".sh": true, ".yaml": true, ".yml": true, ".html": true, ".css": true, ".txt": true, ".golden": true,
}

// citationExempt are the files that name the patterns above in order to find them.
var citationExempt = map[string]bool{
	"tools/structure/citations.go":              true,
	"tools/structure/citations_test.go":         true,
	"tools/structure/citations_planted_test.go": true,
}

// citationSkipped tells the directories whose text is not the project's: installed and built
// packages, and the playground bundle (third-party code minified into one file).
func citationSkipped(path string) bool {
	base := filepath.Base(path)
	if path != "." && strings.HasPrefix(base, ".") {
		return true
	}
	slash := filepath.ToSlash(path)
	return base == "node_modules" || slash == "pkg/tssdk/dist" || slash == "gen/playground"
}

// A citation is one line of one file.
type citation struct {
	path string // relative to the scanned root, with forward slashes
	line int
	text string
}

func (c citation) String() string {
	return fmt.Sprintf("%s:%d: %s", c.path, c.line, strings.TrimSpace(c.text))
}

// citesOutside reports whether line cites text outside the repository.
func citesOutside(line string) bool {
	for _, p := range outsidePatterns {
		if p.MatchString(line) {
			return true
		}
	}
	return len(sectionSign.FindAllStringIndex(line, -1)) > len(allowedSection.FindAllStringIndex(line, -1))
}

// walkCited calls visit for every line of every cited file below root.
func walkCited(root string, visit func(rel string, n int, line string)) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if citationSkipped(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if citationExempt[filepath.ToSlash(rel)] || !citedExtensions[filepath.Ext(path)] && d.Name() != "Makefile" {
			return nil
		}
		return eachLine(path, func(n int, line string) { visit(filepath.ToSlash(rel), n, line) })
	})
}

// eachLine calls visit with every line of the file at path, numbered from 1.
func eachLine(path string, visit func(n int, line string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for n := 1; s.Scan(); n++ {
		visit(n, s.Text())
	}
	return s.Err()
}

// outsideCitations lists the lines below root that cite text outside the repository.
func outsideCitations(root string) ([]citation, error) {
	var out []citation
	err := walkCited(root, func(rel string, n int, line string) {
		if citesOutside(line) {
			out = append(out, citation{rel, n, line})
		}
	})
	return out, err
}

// protocolRef finds a citation of a page of docs/protocol, with its anchor when it has one.
var protocolRef = regexp.MustCompile(`docs/protocol/([A-Za-z0-9_.-]+\.md)(?:#([A-Za-z0-9_-]+))?`)

// markdownLink finds a relative link of a Markdown page: a file of the same directory and an
// anchor, or an anchor of the page itself.
var markdownLink = regexp.MustCompile(`\]\(([A-Za-z0-9_.-]+\.md)?(?:#([A-Za-z0-9_-]+))?\)`)

// An anchorRef is one citation of a section of docs/protocol.
type anchorRef struct {
	at     citation
	page   string // a file name in docs/protocol
	anchor string // "" for the page as a whole
}

// protocolRefs lists every citation of docs/protocol below root: the docs/protocol/… paths of
// any cited file, and the relative links between the pages of docs/protocol.
func protocolRefs(root string) ([]anchorRef, error) {
	var out []anchorRef
	err := walkCited(root, func(rel string, n int, line string) {
		for _, m := range protocolRef.FindAllStringSubmatch(line, -1) {
			out = append(out, anchorRef{citation{rel, n, line}, m[1], m[2]})
		}
		dir, page := filepath.Split(rel)
		if dir != "docs/protocol/" || filepath.Ext(page) != ".md" {
			return
		}
		for _, m := range markdownLink.FindAllStringSubmatch(line, -1) {
			if m[1] == "" && m[2] == "" {
				continue
			}
			target := m[1]
			if target == "" {
				target = page
			}
			out = append(out, anchorRef{citation{rel, n, line}, target, m[2]})
		}
	})
	return out, err
}

// unresolvedRefs returns the citations whose page or anchor does not exist in root's
// docs/protocol.
func unresolvedRefs(root string, refs []anchorRef) ([]anchorRef, error) {
	anchors := map[string]map[string]bool{}
	var out []anchorRef
	for _, r := range refs {
		a, ok := anchors[r.page]
		if !ok {
			data, err := os.ReadFile(filepath.Join(root, "docs", "protocol", r.page))
			if err != nil && !os.IsNotExist(err) {
				return nil, err
			}
			if err == nil {
				a = pageAnchors(string(data))
			}
			anchors[r.page] = a
		}
		if a == nil || (r.anchor != "" && !a[r.anchor]) {
			out = append(out, r)
		}
	}
	return out, nil
}

// explicitAnchor finds an HTML anchor a page sets itself.
var explicitAnchor = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)

// pageAnchors returns the anchors of a Markdown page: the GitHub slug of every heading outside
// code blocks (a repeated slug gets -1, -2, … as on GitHub) and every explicit <a id>.
func pageAnchors(markdown string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for line := range strings.Lines(markdown) {
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range explicitAnchor.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		text, ok := headingText(line)
		if !ok {
			continue
		}
		s := slug(text)
		if n := seen[s]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			anchors[s] = true
		}
		seen[s]++
	}
	return anchors
}

// headingText returns the text of an ATX heading ("## Limits" → "Limits").
func headingText(line string) (string, bool) {
	hashes := len(line) - len(strings.TrimLeft(line, "#"))
	if hashes == 0 || hashes > 6 || len(line) == hashes || line[hashes] != ' ' {
		return "", false
	}
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[hashes:]), "#")), true
}

// slug is GitHub's anchor for a heading: lower case, letters, digits, '-' and '_' kept, spaces
// made '-', everything else dropped ("Bounded output (G3)" → "bounded-output-g3").
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// reportCitations prints how many lines cite text outside the repository, and how many
// citations of docs/protocol name a page or section that does not exist.
func reportCitations(w *os.File, root string) error {
	outside, err := outsideCitations(root)
	if err != nil {
		return err
	}
	refs, err := protocolRefs(root)
	if err != nil {
		return err
	}
	unresolved, err := unresolvedRefs(root, refs)
	if err != nil {
		return err
	}
	files := map[string]bool{}
	for _, c := range outside {
		files[c.path] = true
	}
	fmt.Fprintf(w, "\ncomments citing files outside the repo: %d (in %d files)\n", len(outside), len(files))
	fmt.Fprintf(w, "citations of docs/protocol: %d, of a page or anchor that does not exist: %d\n", len(refs), len(unresolved))
	return nil
}

// sortedCitations orders citations by file and line, for stable failure output.
func sortedCitations(cs []citation) []citation {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].path != cs[j].path {
			return cs[i].path < cs[j].path
		}
		return cs[i].line < cs[j].line
	})
	return cs
}
