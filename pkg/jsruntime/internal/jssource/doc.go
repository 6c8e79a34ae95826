// Package jssource prepares the JavaScript that a cell runs, so that QuickJS only ever parses
// code our own parser understood and cleared of imports.
//
// # What it does
//
// Three kinds of source go through it: a cell (Module), code given to eval (Script) and the
// parameters and body given to the four function constructors (Function). Each is parsed
// with a real JavaScript parser, github.com/tdewolff/parse/v2/js, used through its public
// API only. On the AST:
//
//   - a static import or re-export in a cell fails it with *ImportError ("Unsupported import
//     in exec: x", the first in source order);
//   - every dynamic import() call has its keyword replaced by RejectingImport, so the call
//     evaluates its arguments and returns a promise rejected with Codex's message;
//   - import.meta, and `import` as a property, method or field name, stay as they are.
//
// Source that does not parse is a *SyntaxError. Any other error is an internal failure (the
// printer's checks disagreed with the parser): the caller refuses the source with its text.
//
// # Parse, rewrite, print
//
// QuickJS runs only the printed code. The printer lexes the source again with the parser's
// own lexer and makes, from the AST, the one choice a lexer cannot make alone (does this
// slash start a regular expression?), so it sees the tokens the parser saw; it fails if any
// regular expression or import() call of the AST is not met. It prints them in a canonical
// spelling: no comments, ASCII spaces only, "\n" as the only line terminator, no raw NUL
// (QuickJS reads source as a C string) or U+2028/U+2029 in string literals, and a regular
// expression after a word or a closing bracket in parentheses, so no reader can take its
// slash for a division. A ";" goes before a rewritten import() that starts a statement,
// where automatic semicolon insertion ended the statement before it.
//
// # Line numbers
//
// Every token stays on its line: whitespace and comments become spaces and newlines of the
// same shape, every line terminator one "\n", a line continuation in a string a backslash
// and "\n". The line numbers in QuickJS's stack traces are the ones an engine that counts
// every line terminator gives (V8, so Codex). Columns stay too, except after a rewritten
// import() or a regular expression put in parentheses on the same line.
//
// # Using it (for the runtime)
//
//   - Cell: Module(source). *ImportError and *SyntaxError: fail the cell with err.Error() (a
//     SyntaxError reads like QuickJS's own: "SyntaxError: msg\n    at exec_main.mjs:L:C").
//     Load Program.Code as the module exec_main.mjs.
//   - eval(src) with a string: Script(src), then the original (indirect) eval of Program.Code.
//     On *SyntaxError throw a JavaScript SyntaxError with ThrowMessage().
//   - Function, AsyncFunction, GeneratorFunction, AsyncGeneratorFunction: Function(kind,
//     params, body) with the arguments converted to strings (the last one is the body), then
//     the original eval of Program.Code returns the function.
//
// # Known gaps
//
//   - The parser knows one grammar, the module's (strict). Sloppy-mode-only syntax in eval
//     code is refused: `await` as a name, legacy octal literals, function declarations as if
//     bodies, duplicate parameters. QuickJS-ng would accept them in a script.
//   - `x<!--y` in a module is `x < !--y` for QuickJS; the parser reads an HTML-like comment
//     there, so such a module is refused. In scripts HTML-like comments are comments.
//   - A regular expression on the line after an arrow function's block body, `() => {}` then
//     `/re/.test(s)`, does not parse.
//   - A raw U+2028 or U+2029 inside a template literal stays raw (escaping it would change
//     String.raw); QuickJS does not count it as a line, so later lines are one less than V8's.
//     A raw NUL in a template is printed \x00, which String.raw then shows as four characters.
//   - A raw NUL in a regular expression literal is refused.
//
// # Workarounds for the parser (tdewolff/parse v2.8.20)
//
//   - It does not know import attributes (`import x from "y" with {type: "json"}`): when a
//     module fails to parse at such a `with`, the source before it is parsed to find the
//     import (importWithAttributes).
//   - It accepts a module-level statement starting with import(…) without a separator after
//     it; the printed code is parsed again in that case (checkSeparators).
//   - It accepts array elements without commas (`[a b]`) and class fields without ";" on one
//     line. The printed code keeps the tokens, so QuickJS refuses it, except where the
//     rewrite of an import() would join the two into a call: that is refused here.
//   - Its js.Walk skips computed class member names, so collect has its own walker that
//     names every node type and fails on an unknown one.
//   - AST slices have their capacity cut to their length, so collect finds their offsets by
//     address.
package jssource
