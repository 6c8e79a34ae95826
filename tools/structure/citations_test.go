package main

import (
	"strings"
	"testing"
)

// repoRoot is the module root, seen from this package's directory.
const repoRoot = "../.."

// TestNothingCitesFilesOutsideTheRepository holds the rule of ADR 0064: a comment, doc or schema
// cites the repository's own docs (docs/protocol/README.md#how-to-cite), never notes a reader
// cannot open. Generated code is scanned too: its comments come from schemas and generators.
func TestNothingCitesFilesOutsideTheRepository(t *testing.T) {
	outside, err := outsideCitations(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(outside) == 0 {
		return
	}
	var b strings.Builder
	for _, c := range sortedCitations(outside) {
		b.WriteString("\n  " + c.String())
	}
	t.Errorf("%d lines cite text outside the repository; cite docs/protocol/<page>.md#<anchor> instead "+
		"(docs/protocol/README.md#how-to-cite, ADR 0064):%s", len(outside), b.String())
}

// TestProtocolCitationsResolve checks that every docs/protocol/<page>.md#<anchor> cited anywhere,
// and every link between the pages of docs/protocol, names a page and a heading that exist: a
// section that is renamed without its citations fails here.
func TestProtocolCitationsResolve(t *testing.T) {
	refs, err := protocolRefs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) == 0 {
		t.Fatal("no citation of docs/protocol found: the scan is broken")
	}
	unresolved, err := unresolvedRefs(repoRoot, refs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range unresolved {
		t.Errorf("%s: docs/protocol/%s#%s does not exist", r.at, r.page, r.anchor)
	}
}
