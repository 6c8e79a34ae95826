package jssource

import (
	"fmt"
	"strings"
)

// ModuleFile is the name under which a cell's module runs; QuickJS puts it in stack traces.
const ModuleFile = "exec_main.mjs"

// EvalFile is the name QuickJS gives to code run by eval and by the function constructors.
const EvalFile = "<input>"

// ImportErrorPrefix starts Codex's message for any import in a cell.
const ImportErrorPrefix = "Unsupported import in exec: "

// DynamicImportError is Codex 0.169's rejection of a dynamic import(): lower case, without the
// specifier (a static import still fails the cell with ImportErrorPrefix and the specifier).
const DynamicImportError = "unsupported import in exec"

// RejectingImport replaces the `import` keyword of every dynamic import() call: the call then
// returns a promise rejected with DynamicImportError (a plain string, like every helper error),
// after its argument expressions were evaluated. It is a closed expression that names no
// global, so user code cannot redefine what it does. The template literal converts the
// specifier with ToString, as import() does: toString before valueOf, and a Symbol rejects
// the promise with a TypeError. It is as long as the expression earlier versions used, so the
// columns of what follows it on its line stay where they were.
const RejectingImport = "(async (s) => {`${s}`; throw \"" + DynamicImportError + "\" })"

// Program is source prepared for QuickJS.
type Program struct {
	// Code is the canonical source to evaluate. Its tokens stand on the lines they had in the
	// source given (for Function: in the assembled source, see Function).
	Code string
}

// ImportError reports a static import or re-export in a cell: the cell fails before it runs.
type ImportError struct {
	// Specifier is the module specifier of the first static import or re-export in source
	// order: the string value of its literal, so escapes are decoded and quotes dropped.
	Specifier string
}

// Error returns Codex's message, "Unsupported import in exec: " + Specifier.
func (e *ImportError) Error() string { return ImportErrorPrefix + e.Specifier }

// SyntaxError reports source that does not parse, or that this package refuses to pass on.
type SyntaxError struct {
	// Message says what is wrong, without position, e.g. "unexpected } in expression".
	Message string
	// File is ModuleFile for a cell and EvalFile for code built at run time.
	File string
	// Line and Column (both from 1) locate the error in the source given; columns count code
	// points, and every JavaScript line terminator (LF, CR, CRLF, U+2028, U+2029) ends a line.
	Line, Column int
}

// Error formats the error the way QuickJS prints an uncaught SyntaxError:
// "SyntaxError: <message>\n    at <file>:<line>:<column>".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("SyntaxError: %s\n    at %s:%d:%d", e.Message, e.File, e.Line, e.Column)
}

// ThrowMessage is the message for a JavaScript SyntaxError thrown at the caller of eval or of
// a function constructor: "<message> (at <file>:<line>:<column>)".
func (e *SyntaxError) ThrowMessage() string {
	return fmt.Sprintf("%s (at %s:%d:%d)", e.Message, e.File, e.Line, e.Column)
}

// FunctionKind selects which of the four function constructors Function serves.
type FunctionKind int

const (
	// PlainFunction is Function: `function anonymous(…) {…}`.
	PlainFunction FunctionKind = iota
	// AsyncFunction is the AsyncFunction constructor: `async function anonymous(…) {…}`.
	AsyncFunction
	// GeneratorFunction is the GeneratorFunction constructor: `function* anonymous(…) {…}`.
	GeneratorFunction
	// AsyncGeneratorFunction is the AsyncGeneratorFunction constructor:
	// `async function* anonymous(…) {…}`.
	AsyncGeneratorFunction
)

// keyword is the text that opens a function of this kind.
func (k FunctionKind) keyword() string {
	switch k {
	case AsyncFunction:
		return "async function"
	case GeneratorFunction:
		return "function*"
	case AsyncGeneratorFunction:
		return "async function*"
	default:
		return "function"
	}
}

// Module prepares a cell's source, an ES module with top-level await. A static import or
// re-export returns *ImportError for the first one in source order; source that does not
// parse returns *SyntaxError. Every dynamic import() call is rewritten with RejectingImport.
func Module(src string) (Program, error) {
	return prepare(src, goalModule, nil)
}

// Script prepares source given to eval: a Script, not a module. Dynamic import() calls are
// rewritten as in Module; an import or export declaration is a *SyntaxError, as it is for a
// script in any engine.
func Script(src string) (Program, error) {
	return prepare(src, goalScript, nil)
}

// Function prepares the arguments of a function constructor the way the specification's
// CreateDynamicFunction does: the parameters are joined with ",", and the code assembled is
//
//	(<keyword> anonymous(<params>
//	) {
//	<body>
//	})
//
// Evaluating the printed code yields the function. The parameters must form a parameter list
// and the body a function body on their own: text that closes either early, like the body
// `}); import("x"); ({` or the parameters `a){import('x')}//`, is a *SyntaxError, as in V8.
// Positions in errors and in the printed code are those of the assembled source, whose body
// starts on line 3 (as in V8).
func Function(kind FunctionKind, params []string, body string) (Program, error) {
	p := strings.Join(params, ",")
	var b strings.Builder
	b.Grow(len(p) + len(body) + 40)
	b.WriteString("(")
	b.WriteString(kind.keyword())
	b.WriteString(" anonymous(")
	open := b.Len() - 1
	b.WriteString(p)
	b.WriteString("\n)")
	closeParen := b.Len() - 1
	b.WriteString(" {\n")
	openBrace := b.Len() - 2
	b.WriteString(body)
	b.WriteString("\n}")
	closeBrace := b.Len() - 1
	b.WriteString(")")
	return prepare(b.String(), goalFunction, &frame{
		paramsOpen: open, paramsClose: closeParen, bodyOpen: openBrace, bodyClose: closeBrace,
	})
}
