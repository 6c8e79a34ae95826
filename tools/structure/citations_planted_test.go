package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// plantedLines are lines the detector must flag (cite) or let pass, one per way a citation of
// the old notes was written, and the look-alikes it must not mistake for one.
var plantedLines = []struct {
	line string
	cite bool
}{
	{"// The host's limits (spec §2.8).", true},
	{"// Spec §2.4's pinned execute request.", true},
	{"// TestHandshakeV1VariantsArePinned is §5.1 handshake_v1_variants_are_pinned.", true},
	{`"description": "x-lane per §2.7."`, true},
	{"// (spec codex-0169.md §B.3)", true},
	{"`protocol-layers.md` §4), so Codex can", true},
	{"// see code-mode-protocol.md", true},
	{"(shared/spec/dependency-notes.md §3)", true},
	{"(dependency notes §3)", true},
	{"// read seeds/brief.md first", true},
	{"// its text is the spec's, capitalized as Codex writes it.", true},
	{"// Temporal, which the earlier spec lists, is absent.", true},
	{"// (the spec gives no backoff)", true},

	{"// The host's limits (docs/protocol/v1.md#limits).", false},
	{"// magic string and an empty SETTINGS frame, RFC 9113 §3.4", false},
	{"// The scheme is case-insensitive (RFC 9110 §11.1); the token is not.", false},
	{`// flags>" with non-zero IDs (W3C Trace Context, §3.2).`, false},
	{"// buildTool checks one tool spec found at pointer at.", false},
	{`"name": "codex-0169-without-transparent-tcp"`, false},
	{"for _, spec := range d.Specs {", false},
	{"// RFC 9113 §3.4 and then a bare §2.8", true},
}

// TestPlantedCitationLines checks the detector line by line.
func TestPlantedCitationLines(t *testing.T) {
	for _, c := range plantedLines {
		if got := citesOutside(c.line); got != c.cite {
			t.Errorf("citesOutside(%q) = %v, want %v", c.line, got, c.cite)
		}
	}
}

// TestPlantedCitationTree plants citations in a fabricated repository: found in code, docs,
// schemas, generated code and scripts, not in installed or built packages, not in the
// detector's own files.
func TestPlantedCitationTree(t *testing.T) {
	root := t.TempDir()
	plant := func(path, text string) {
		t.Helper()
		full := filepath.Join(root, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plant("pkg/a/a.go", "package a\n\n// ok (docs/protocol/v1.md#limits)\n// limits (spec §2.8)\n")
	plant("docs/adr/0001-x.md", "measured (shared/spec/dependency-notes.md §3)\n")
	plant("schemas/x.schema.json", `{"description": "x-lane per §2.7."}`+"\n")
	plant("gen/go/x/x.go", "package x\n\n// generated (spec §6.1)\n")
	plant("tools/generate.sh", "# ok\n# the methods of spec §7\n")
	plant("Makefile", "# see codex-0169.md\n")
	plant("node_modules/dep/index.js", "// spec §1\n")
	plant("pkg/tssdk/dist/index.js", "// spec §1\n")
	plant("gen/playground/app.js", `["sect","§"]`+"\n")
	plant(".cache/x.go", "// spec §1\n")
	plant("pkg/a/a.bin", "spec §1\n")
	plant("tools/structure/citations.go", "// spec §1\n")

	found, err := outsideCitations(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range sortedCitations(found) {
		got = append(got, fmt.Sprintf("%s:%d", c.path, c.line))
	}
	want := []string{"Makefile:1", "docs/adr/0001-x.md:1", "gen/go/x/x.go:3", "pkg/a/a.go:4", "schemas/x.schema.json:1", "tools/generate.sh:2"}
	if !slices.Equal(got, want) {
		t.Errorf("found %v, want %v", got, want)
	}
}

// TestPlantedAnchors checks the anchor resolution against a fabricated docs/protocol: headings
// by GitHub's slugs, explicit anchors, repeated headings, headings inside code blocks (not
// anchors), links between the pages, and a missing page.
func TestPlantedAnchors(t *testing.T) {
	root := t.TempDir()
	page := "# Title\n\n## Limits\n\n### operation/yield\n\n## Bounded output (G3)\n\n## Limits\n\n" +
		"<a id=\"explicit-one\"></a>\n\n```\n## Not a heading\n```\n\n### `exec` and `wait`\n\n" +
		"See [the other](other.md#other-section), [here](#limits), [broken](#nowhere) and [gone](gone.md).\n"
	other := "# Other\n\n## Other section\n"
	for name, text := range map[string]string{"docs/protocol/p.md": page, "docs/protocol/other.md": other,
		"pkg/a/a.go": "package a\n\n// docs/protocol/p.md#limits docs/protocol/p.md#limits-1 docs/protocol/p.md#operationyield\n" +
			"// docs/protocol/p.md#bounded-output-g3 docs/protocol/p.md#explicit-one docs/protocol/p.md#exec-and-wait\n" +
			"// docs/protocol/p.md docs/protocol/p.md#not-a-heading docs/protocol/p.md#limits-2 docs/protocol/missing.md#x\n"} {
		full := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	refs, err := protocolRefs(root)
	if err != nil {
		t.Fatal(err)
	}
	unresolved, err := unresolvedRefs(root, refs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range unresolved {
		got = append(got, r.page+"#"+r.anchor)
	}
	slices.Sort(got)
	want := []string{"gone.md#", "missing.md#x", "p.md#limits-2", "p.md#not-a-heading", "p.md#nowhere"}
	if !slices.Equal(got, want) {
		t.Errorf("unresolved %v, want %v", got, want)
	}
	if len(refs) != 14 {
		t.Errorf("found %d citations, want 14", len(refs))
	}
}
