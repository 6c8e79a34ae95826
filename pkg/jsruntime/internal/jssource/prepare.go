package jssource

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

// goal is the kind of source being prepared.
type goal int

const (
	goalModule   goal = iota // a cell
	goalScript               // eval
	goalFunction             // a function constructor's assembled source
)

// file is the name QuickJS reports for source of this goal.
func (g goal) file() string {
	if g == goalModule {
		return ModuleFile
	}
	return EvalFile
}

// prepare parses src, applies the import rules of goal g and prints the canonical code. fr
// is set for goalFunction only.
func prepare(src string, g goal, fr *frame) (prog Program, err error) {
	defer func() {
		// A bug here must refuse the source, not take the caller down.
		if r := recover(); r != nil {
			prog, err = Program{}, internalError("panic: %v", r)
		}
	}()
	buf := sourceBuffer(src)
	if off, ok := invalidUTF8(buf); ok {
		line, col := position(buf, off)
		return Program{}, &SyntaxError{Message: "invalid UTF-8 sequence", File: g.file(), Line: line, Column: col}
	}
	tree, err := parseProgram(buf)
	if err != nil {
		if g == goalModule {
			if spec, ok := importWithAttributes(buf, err); ok {
				return Program{}, &ImportError{Specifier: spec}
			}
		}
		return Program{}, toSyntaxError(err, g.file())
	}
	if g == goalModule {
		if spec, ok := firstStaticImport(tree); ok {
			return Program{}, &ImportError{Specifier: spec}
		}
	}
	f, err := collect(tree, buf)
	if err != nil {
		return Program{}, internalError("%v", err)
	}
	pr, err := print(buf, g, f.regexes, fr)
	if err != nil {
		return Program{}, err
	}
	code, err := resolve(pr, &f, g, buf)
	if err != nil {
		return Program{}, err
	}
	if f.unplaced > 0 {
		if err := checkSeparators(code, g); err != nil {
			return Program{}, err
		}
	}
	return Program{Code: code}, nil
}

// sourceBuffer copies src into a buffer with one spare byte past the end: the parser's input
// writes a NUL there, and with room for it every AST slice stays inside the buffer, where
// collect finds its offset.
func sourceBuffer(src string) []byte {
	buf := make([]byte, len(src)+1)
	copy(buf, src)
	return buf[:len(src)]
}

// checkSeparators works around a leniency of the parser (tdewolff/parse v2.8.20): a
// module-level statement that starts with import(…) needs no ";" or line break after it
// (`import()0` parses as two statements). The rewrite turns it into an ordinary expression
// statement, which the parser checks, so parsing the printed code again finds the error, on
// the source's line (its column is in the printed code). Only sources with such a statement
// pay for the second parse.
func checkSeparators(code string, g goal) error {
	if _, err := parseProgram(sourceBuffer(code)); err != nil {
		return toSyntaxError(err, g.file())
	}
	return nil
}

// parseProgram parses buf with the module grammar (which also serves scripts: it is the
// stricter of the two, and QuickJS checks the printed script again). A panic in the parser
// becomes an error.
func parseProgram(buf []byte) (tree *js.AST, err error) {
	defer func() {
		if r := recover(); r != nil {
			tree, err = nil, internalError("parser panic: %v", r)
		}
	}()
	return js.Parse(parse.NewInputBytes(buf), js.Options{})
}

// firstStaticImport returns the specifier of the first import declaration or re-export
// (export … from) at the top level, in source order.
func firstStaticImport(tree *js.AST) (string, bool) {
	for _, s := range tree.List {
		switch s := s.(type) {
		case *js.ImportStmt:
			return stringValue(s.Module), true
		case *js.ExportStmt:
			if s.Module != nil {
				return stringValue(s.Module), true
			}
		}
	}
	return "", false
}

// isStaticImport reports whether s is an import declaration or a re-export.
func isStaticImport(s js.IStmt) bool {
	switch s := s.(type) {
	case *js.ImportStmt:
		return true
	case *js.ExportStmt:
		return s.Module != nil
	}
	return false
}

// importWithAttributes works around a gap of the parser (tdewolff/parse v2.8.20): it does not
// know import attributes, `import x from "y" with { type: "json" }`, and fails at the `with`.
// When a module fails to parse, each `with {` right after a string literal is tried as the
// end of the source: if the source before it parses and ends with an import or re-export,
// the module's first static import is in it, and that is the answer. The lexer pass only
// proposes positions; the parser decides.
func importWithAttributes(buf []byte, parseErr error) (string, bool) {
	var pe *parse.Error
	if !errors.As(parseErr, &pe) {
		return "", false
	}
	for _, off := range attributeCandidates(buf) {
		tree, err := parseProgram(sourceBuffer(string(buf[:off])))
		if err != nil || len(tree.List) == 0 {
			continue
		}
		if !isStaticImport(tree.List[len(tree.List)-1]) {
			continue
		}
		return firstStaticImport(tree)
	}
	return "", false
}

// attributeCandidates returns the offsets of the `with` keywords that follow a string
// literal and precede "{", as a plain lexer sees them.
func attributeCandidates(buf []byte) []int {
	var out []int
	lx := js.NewLexer(parse.NewInputBytes(buf))
	prev, prevWith, pos, withPos := js.ErrorToken, false, 0, 0
	for {
		tt, data := lx.Next()
		if tt == js.ErrorToken {
			return out
		}
		switch tt {
		case js.WhitespaceToken, js.LineTerminatorToken, js.CommentToken, js.CommentLineTerminatorToken:
		default:
			if prevWith && tt == js.OpenBraceToken {
				out = append(out, withPos)
			}
			prevWith = tt == js.WithToken && prev == js.StringToken
			withPos = pos
			prev = tt
		}
		pos += len(data)
	}
}

// toSyntaxError converts a parser error.
func toSyntaxError(err error, file string) error {
	var pe *parse.Error
	if errors.As(err, &pe) {
		return &SyntaxError{Message: pe.Message, File: file, Line: pe.Line, Column: pe.Column}
	}
	var se *SyntaxError
	if errors.As(err, &se) {
		return se
	}
	return &SyntaxError{Message: err.Error(), File: file, Line: 1, Column: 1}
}

// invalidUTF8 returns the offset of the first byte that is neither UTF-8 nor a surrogate
// encoded like UTF-8 (WTF-8). QuickJS hands strings with lone surrogates to Go that way, and
// the parser decodes such bytes as it would a code point. Other invalid bytes are refused:
// the parser's decoder would read a broken sequence together with the ASCII byte after it,
// for instance a quote, which QuickJS would then see on its own.
func invalidUTF8(b []byte) (int, bool) {
	if utf8.Valid(b) {
		return 0, false
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			if i+2 < len(b) && b[i] == 0xED && b[i+1] >= 0xA0 && b[i+1] <= 0xBF && b[i+2] >= 0x80 && b[i+2] <= 0xBF {
				n = 3
			} else {
				return i, true
			}
		}
		i += n
	}
	return 0, false
}

// internalError reports a disagreement between the parser and the printer's checks: the
// source is refused rather than run half understood.
func internalError(format string, args ...any) error {
	return fmt.Errorf("jssource: internal error: "+format, args...)
}
