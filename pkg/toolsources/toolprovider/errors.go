package toolprovider

import (
	"strconv"
	"strings"
)

// ManifestError is a manifest that was refused: every problem found, each at its place in the
// file. Nothing of a refused manifest runs.
type ManifestError struct {
	// File is the manifest's name as the caller gave it (a path, or "-" for stdin).
	File string
	// Problems are in document order when they come from the schema, then the later checks.
	Problems []Problem
}

// Problem is one thing wrong with a manifest.
type Problem struct {
	// Pointer is the JSON Pointer of the offending value ("/tools/2/timeout"); "" is the whole
	// document. A syntax error has no pointer but a Line and Column.
	Pointer string
	// Line and Column (from 1, in bytes) locate a syntax error; they are zero otherwise.
	Line, Column int
	// Message says what is wrong, in a form that completes "FILE: POINTER: ".
	Message string
}

// Error returns one line per problem: "FILE: POINTER: MESSAGE", "FILE:LINE:COLUMN: MESSAGE" for
// syntax errors, "FILE: MESSAGE" for the document as a whole.
func (e *ManifestError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = e.File + p.where() + ": " + p.Message
	}
	return strings.Join(lines, "\n")
}

func (p Problem) where() string {
	switch {
	case p.Line > 0:
		return ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
	case p.Pointer != "":
		return ": " + p.Pointer
	default:
		return ""
	}
}

// pointer renders JSON Pointer tokens (RFC 6901: "~" and "/" escaped).
func pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}
