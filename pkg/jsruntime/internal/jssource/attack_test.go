package jssource

import (
	"errors"
	"fmt"
	"testing"
)

// R is the rewritten import keyword, to keep the expected code readable.
const R = RejectingImport

// attack is one attempt to reach a module (QuickJS's own qjs:os, qjs:std …) or to confuse
// the parser, with its exact outcome.
type attack struct {
	name string
	g    goal
	src  string
	// code is the exact printed code when the source is accepted; err the exact error text
	// when it is refused.
	code, err string
	// run, if set, is QuickJS's exact outcome on the printed code (see runPrinted).
	run string
}

// then makes an import() call report how its promise settled.
const then = `.then(() => "loaded", (e) => "rejected: " + e)`

// rejected is the outcome of a module whose default export is `await import(…)` + then.
const rejected = `value: "rejected: unsupported import in exec"`

// separators are the whitespace, line terminators and comments JavaScript allows between
// `import` and "(", each with its canonical print.
var separators = []struct{ name, sep, canon string }{
	{"TAB", "\t", " "}, {"VT", "\v", " "}, {"FF", "\f", " "}, {"SP", " ", " "},
	{"NBSP", "\u00a0", " "}, {"ZWNBSP U+FEFF", "\ufeff", " "}, {"OGHAM U+1680", "\u1680", " "},
	{"EN QUAD U+2000", "\u2000", " "}, {"EM QUAD U+2001", "\u2001", " "}, {"EN SPACE U+2002", "\u2002", " "},
	{"EM SPACE U+2003", "\u2003", " "}, {"THREE-PER-EM U+2004", "\u2004", " "},
	{"FOUR-PER-EM U+2005", "\u2005", " "}, {"SIX-PER-EM U+2006", "\u2006", " "},
	{"FIGURE SPACE U+2007", "\u2007", " "}, {"PUNCTUATION SPACE U+2008", "\u2008", " "},
	{"THIN SPACE U+2009", "\u2009", " "}, {"HAIR SPACE U+200A", "\u200a", " "},
	{"NNBSP U+202F", "\u202f", " "}, {"MMSP U+205F", "\u205f", " "}, {"IDEOGRAPHIC SPACE U+3000", "\u3000", " "},
	{"LF", "\n", "\n"}, {"CR", "\r", "\n"}, {"CRLF", "\r\n", "\n"}, {"LS U+2028", "\u2028", "\n"},
	{"PS U+2029", "\u2029", "\n"},
	{"block comment", "/* c */", "       "}, {"empty block comment", "/**/", "    "},
	{"block comment spanning lines", "/* a\n b */", "\n     "}, {"block comment with CR", "/*\r*/", "\n  "},
	{"block comment with CRLF", "/*\r\n*/", "\n  "}, {"block comment with LS", "/*\u2028*/", "\n  "},
	{"line comment ended by LF", "// c\n", "\n"}, {"line comment ended by CR", "// c\r", "\n"},
	{"line comment ended by CRLF", "//\r\n", "\n"}, {"line comment ended by LS", "//\u2028", "\n"},
	{"line comment ended by PS", "//\u2029", "\n"},
	{"mixed", "\u00a0/*x*/\u2028// y\r\n\t", "      \n\n "},
}

// separatorAttacks puts each separator between `import` and "(".
func separatorAttacks() []attack {
	var out []attack
	for _, s := range separators {
		out = append(out, attack{
			name: "import" + s.name + "(", g: goalModule,
			src:  "export default await import" + s.sep + "('qjs:os')" + then,
			code: "export default await " + R + s.canon + "('qjs:os')" + then,
			run:  rejected,
		})
	}
	return out
}

var attacks = []attack{
	// import() first in a template substitution: "${" opens an expression, so no ";" goes
	// before the rewrite (it once was refused as two expressions side by side).
	{name: "import() opening a template substitution", g: goalModule, src: "export default `a${import('qjs:os')}b${import('x')}`",
		code: "export default `a${" + R + "('qjs:os')}b${" + R + "('x')}`", run: `value: "a[object Promise]b[object Promise]"`},
	// HTML-like comments: comments in scripts only (Annex B); QuickJS reads them as operators
	// in a module, which the parser cannot, so the module is refused.
	{name: "<!-- in a module", g: goalModule, src: "import<!--c\n('qjs:os')",
		err: "SyntaxError: HTML-like comments are not allowed in modules\n    at exec_main.mjs:1:7"},
	{name: "--> in a module", g: goalModule, src: "import\n-->c\n('qjs:os')",
		err: "SyntaxError: HTML-like comments are not allowed in modules\n    at exec_main.mjs:2:1"},
	{name: "<!-- in a script", g: goalScript, src: "import<!--c\n('qjs:os')",
		code: R + "\n('qjs:os')", run: "error: unsupported import in exec"},
	{name: "--> after a comment that spans lines, in a script", g: goalScript, src: "a = 1 /*\n*/ --> import('qjs:os')\n; a",
		code: "a = 1 \n   \n; a", run: "value: 1"},
	{name: "--> in a script", g: goalScript, src: "import\n-->c\n('qjs:os')",
		code: R + "\n\n('qjs:os')", run: "error: unsupported import in exec"},
	{name: "a module's x<!--y is refused, not misread", g: goalModule, src: "let x = 1, y = 2;\nexport default x<!--y",
		err: "SyntaxError: HTML-like comments are not allowed in modules\n    at exec_main.mjs:2:17"},

	// Keywords cannot contain escapes: these are names, and QuickJS refuses them as such.
	{name: "imp\\u006frt(", g: goalModule, src: `imp\u006frt('qjs:os')`, code: `imp\u006frt('qjs:os')`,
		run: "error: SyntaxError: 'import' is a reserved identifier\n    at exec_main.mjs:1:1"},
	{name: "\\u0069mport(", g: goalModule, src: `\u0069mport('qjs:os')`, code: `\u0069mport('qjs:os')`,
		run: "error: SyntaxError: 'import' is a reserved identifier\n    at exec_main.mjs:1:1"},
	{name: "i\\u{6d}port(", g: goalModule, src: `i\u{6d}port('qjs:os')`, code: `i\u{6d}port('qjs:os')`,
		run: "error: SyntaxError: 'import' is a reserved identifier\n    at exec_main.mjs:1:1"},
	{name: "escaped static import", g: goalModule, src: `imp\u006frt x from 'qjs:os'`,
		err: "SyntaxError: unexpected x in expression\n    at exec_main.mjs:1:13"},
	{name: "escape of ( in a name", g: goalModule, src: `let a\u0028b = 1`, code: `let a\u0028b = 1`,
		run: "error: SyntaxError: expecting ';'\n    at exec_main.mjs:1:1"},
	{name: "escape of . in a name", g: goalModule, src: `let a = 1; a\u002eb`, code: `let a = 1; a\u002eb`,
		run: "error: SyntaxError: expecting ';'\n    at exec_main.mjs:1:1"},
	{name: "import\\u0028", g: goalModule, src: `import\u0028'qjs:os')`,
		err: "SyntaxError: unexpected 'qjs:os' in expression\n    at exec_main.mjs:1:13"},

	// Text that merely mentions import is left alone.
	{name: "string", g: goalModule, src: `export default "import('qjs:os')"`, code: `export default "import('qjs:os')"`,
		run: `value: "import('qjs:os')"`},
	{name: "template", g: goalModule, src: "export default `import('qjs:os') ${'import(\"x\")'}`",
		code: "export default `import('qjs:os') ${'import(\"x\")'}`", run: `value: "import('qjs:os') import(\"x\")"`},
	{name: "regex", g: goalModule, src: `export default /import\('qjs:os'\)/.source`,
		code: `export default /import\('qjs:os'\)/.source`, run: `value: "import\\('qjs:os'\\)"`},
	{name: "line comment", g: goalModule, src: "// import('qjs:os')\nexport default 1", code: "\nexport default 1", run: "value: 1"},
	{name: "block comment", g: goalModule, src: "/*import('qjs:os')*/export default 1",
		code: "                    export default 1", run: "value: 1"},
	{name: "eval of a string that mentions import", g: goalModule, src: `export default (0,eval)('"see import(x)"')`,
		code: `export default (0,eval)('"see import(x)"')`, run: `value: "see import(x)"`},
	{name: "the same string as eval source", g: goalScript, src: `"see import(x)"`, code: `"see import(x)"`,
		run: `value: "see import(x)"`},
	{name: "property and method names", g: goalModule,
		src:  "const o = { import(x) { return x }, get import2() { return 2 } };\nclass A { import() { return 'm' } static import() { return 's' } }\nexport default [o.import(1), o?.import(2), new A().import(), A.import(), { import: 3 }.import]",
		code: "const o = { import(x) { return x }, get import2() { return 2 } };\nclass A { import() { return 'm' } static import() { return 's' } }\nexport default [o.import(1), o?.import(2), new A().import(), A.import(), { import: 3 }.import]",
		run:  `value: [1,2,"m","s",3]`},
	{name: "import.meta", g: goalModule, src: "export default typeof import.meta", code: "export default typeof import.meta",
		run: `value: "object"`},
	{name: "import.meta across a line", g: goalModule, src: "export default typeof import\n.meta", code: "export default typeof import\n.meta",
		run: `value: "object"`},

	// Regex or division: the parser decides, the printer follows.
	{name: "regex after a block", g: goalModule, src: "{}\n/import('qjs:os')/.test('x')",
		code: "{}\n(/import('qjs:os')/).test('x')", run: "value: undefined"},
	{name: "division after an object literal", g: goalModule, src: "let a = {}\n/import('qjs:os')/1\nexport default a",
		code: "let a = {}\n/" + R + "('qjs:os')/1\nexport default a", run: "value: null"},
	{name: "regex after if (…)", g: goalModule, src: "if (1) /import('qjs:os')/.test('x')",
		code: "if (1) (/import('qjs:os')/).test('x')", run: "value: undefined"},
	{name: "division after a call", g: goalModule, src: "export default Math.abs(1) / import('qjs:os') / 1",
		code: "export default Math.abs(1) / " + R + "('qjs:os') / 1", run: "value: null"},
	{name: "regex after export default", g: goalModule, src: "export default /import('qjs:os')/.source",
		code: "export default /import('qjs:os')/.source", run: `value: "import('qjs:os')"`},
	{name: "regex after for await (…)", g: goalModule, src: "for await (const x of []) /import('qjs:os')/.test(x)",
		code: "for await (const x of []) (/import('qjs:os')/).test(x)", run: "value: undefined"},
	{name: "regex after await and NBSP", g: goalModule, src: "export default await\u00a0/import('qjs:os')/.source",
		code: "export default await (/import('qjs:os')/).source", run: `value: "import('qjs:os')"`},
	{name: "regex after yield", g: goalModule, src: "function* g() { yield /import('qjs:os')/ }\nexport default g().next().value.source",
		code: "function* g() { yield (/import('qjs:os')/) }\nexport default g().next().value.source", run: `value: "import('qjs:os')"`},
	{name: "await is a name in a script: QuickJS must not see a division", g: goalScript,
		src:  "await /x; import('qjs:os'); 1/",
		code: "await (/x; import('qjs:os'); 1/)", run: "error: ReferenceError: await is not defined\n    at <eval> (<input>:1:1)\n    at eval (native)\n    at <anonymous> (exec_main.mjs:1:25)"},
	{name: "division after a name and a line break", g: goalModule, src: "let a = 1\na\n/import('qjs:os')/1",
		code: "let a = 1\na\n/" + R + "('qjs:os')/1", run: "value: undefined"},
	{name: "division after a++", g: goalModule, src: "let a = 1; export default a++ / import('qjs:os') / 1",
		code: "let a = 1; export default a++ / " + R + "('qjs:os') / 1", run: "value: null"},
	{name: "slash in a regex class", g: goalModule, src: "export default /[/]import('qjs:os')/.source",
		code: "export default /[/]import('qjs:os')/.source", run: `value: "[/]import('qjs:os')"`},
	{name: "template substitutions", g: goalModule, src: "export default `${`${await import('qjs:os')" + then + "}`}`",
		code: "export default `${`${await " + R + "('qjs:os')" + then + "}`}`", run: rejected},

	// Dynamic import calls in every position, with any arguments.
	{name: "import() at the start of a module statement", g: goalModule, src: "import('qjs:os')",
		code: R + "('qjs:os')", run: "value: undefined"},
	{name: "comments inside the call", g: goalModule, src: "import(/* a */ 'qjs:os' /* b */)",
		code: R + "(        'qjs:os'        )", run: "value: undefined"},
	{name: "computed class member name", g: goalModule, src: "class A { [import('qjs:os')]() {} }",
		code: "class A { [" + R + "('qjs:os')]() {} }", run: "value: undefined"},
	{name: "default parameter", g: goalModule, src: "export default await ((a = import('qjs:os')) => a)()" + then,
		code: "export default await ((a = " + R + "('qjs:os')) => a)()" + then, run: rejected},
	{name: "import options are evaluated", g: goalModule,
		src:  "let n = 0;\nawait import('qjs:os', { with: { type: (n++, 'json') } }).catch(() => {});\nexport default n",
		code: "let n = 0;\nawait " + R + "('qjs:os', { with: { type: (n++, 'json') } }).catch(() => {});\nexport default n", run: "value: 1"},
	{name: "computed specifier", g: goalModule, src: "const s = 'qjs:' + 'os';\nexport default await import(s)" + then,
		code: "const s = 'qjs:' + 'os';\nexport default await " + R + "(s)" + then, run: rejected},
	{name: "specifier converted with ToString", g: goalModule,
		src:  "export default await import({ toString() { return 'qjs:os' }, valueOf() { return 'no' } })" + then,
		code: "export default await " + R + "({ toString() { return 'qjs:os' }, valueOf() { return 'no' } })" + then, run: rejected},
	{name: "symbol specifier", g: goalModule, src: "export default await import(Symbol())" + then,
		code: "export default await " + R + "(Symbol())" + then,
		run:  `value: "rejected: TypeError: cannot convert symbol to string"`},
	{name: "new import(…)", g: goalModule, src: "new import('qjs:os')",
		err: "SyntaxError: unexpected ( in expression\n    at exec_main.mjs:1:11"},
	{name: "import?.(…)", g: goalModule, src: "import?.('qjs:os')",
		err: "SyntaxError: expected String, Identifier, *, or { instead of ?. in import statement\n    at exec_main.mjs:1:7"},

	// The rewrite starts with "(": where automatic semicolon insertion ended the statement
	// before an import() call, a ";" keeps the two apart.
	{name: "import() after a call on the line before", g: goalModule,
		src:  "let called = false;\nconst f = () => () => { called = true };\nf()\nimport('qjs:os')\nexport default called",
		code: "let called = false;\nconst f = () => () => { called = true };\nf()\n;" + R + "('qjs:os')\nexport default called",
		run:  "value: false"},
	{name: "the same in a block", g: goalModule,
		src:  "let called = false;\nconst f = () => () => { called = true };\n{\n  f()\n  import('qjs:os')\n}\nexport default called",
		code: "let called = false;\nconst f = () => () => { called = true };\n{\n  f()\n  ;" + R + "('qjs:os')\n}\nexport default called",
		run:  "value: false"},
	{name: "import() after a function expression", g: goalModule, src: "let g = function () { return 1 }\nimport('qjs:os')\nexport default g()",
		code: "let g = function () { return 1 }\n;" + R + "('qjs:os')\nexport default g()", run: "value: 1"},
	{name: "import() as the body of an if", g: goalModule, src: "if (1) import('qjs:os')",
		code: "if (1) " + R + "('qjs:os')", run: "value: undefined"},
	{name: "import() as the body of for await", g: goalModule, src: "for await (const x of []) import('qjs:os')",
		code: "for await (const x of []) " + R + "('qjs:os')", run: "value: undefined"},
	{name: "import() as the body of while, in a block", g: goalModule, src: "{ while (0) import('qjs:os') }",
		code: "{ while (0) " + R + "('qjs:os') }", run: "value: undefined"},
	{name: "import() after a call's closing parenthesis", g: goalModule, src: "{ Math.abs(1)\nimport('qjs:os') }",
		code: "{ Math.abs(1)\n;" + R + "('qjs:os') }", run: "value: undefined"},
	{name: "import() after a method named if", g: goalModule,
		src:  "let called = false;\nconst o = { if: () => () => { called = true } };\no.if(1)\nimport('qjs:os')\nexport default called",
		code: "let called = false;\nconst o = { if: () => () => { called = true } };\no.if(1)\n;" + R + "('qjs:os')\nexport default called",
		run:  "value: false"},
	{name: "import() after a block", g: goalModule, src: "for (;;) { break }\nimport('qjs:os')",
		code: "for (;;) { break }\n;" + R + "('qjs:os')", run: "value: undefined"},
	{name: "import() after a semicolon", g: goalModule, src: "let a = 1;\nimport('qjs:os')",
		code: "let a = 1;\n" + R + "('qjs:os')", run: "value: undefined"},
	{name: "the parser accepts a module-level import() without a separator before it", g: goalModule,
		src: "export default 0 import('qjs:os')", code: "export default 0 ;" + R + "('qjs:os')", run: "value: 0"},
	{name: "array elements without a comma (the parser allows it)", g: goalModule, src: "export default [0 import('qjs:os')]",
		err: "SyntaxError: Unexpected token 'import'\n    at exec_main.mjs:1:19"},
	{name: "import() after of", g: goalModule, src: "for (const p of import('qjs:os')) ;",
		code: "for (const p of " + R + "('qjs:os')) ;", run: "error: TypeError: value is not iterable\n    at <anonymous> (exec_main.mjs:1:74)"},
	{name: "import() after yield", g: goalModule, src: "function* g() { yield import('qjs:os') }\nexport default await g().next().value" + then,
		code: "function* g() { yield " + R + "('qjs:os') }\nexport default await g().next().value" + then, run: rejected},
	{name: "a module-level import() without a separator after it", g: goalModule, src: "import('qjs:os')0",
		err: "SyntaxError: unexpected 0 in expression\n    at exec_main.mjs:1:71"},

	// Static imports and re-exports: the first one in source order, before anything runs.
	{name: "default import", g: goalModule, src: "import os from 'qjs:os'", err: "Unsupported import in exec: qjs:os"},
	{name: "bare import", g: goalModule, src: "import 'qjs:std'", err: "Unsupported import in exec: qjs:std"},
	{name: "default and named", g: goalModule, src: `import x, {y} from "m"`, err: "Unsupported import in exec: m"},
	{name: "namespace", g: goalModule, src: `import * as n from "m"`, err: "Unsupported import in exec: m"},
	{name: "string import name", g: goalModule, src: `import {"a b" as c} from "m"`, err: "Unsupported import in exec: m"},
	{name: "export *", g: goalModule, src: `export * from "m"`, err: "Unsupported import in exec: m"},
	{name: "export * as", g: goalModule, src: `export * as ns from "m"`, err: "Unsupported import in exec: m"},
	{name: "export {a as b} from", g: goalModule, src: `export {a as b} from "m"`, err: "Unsupported import in exec: m"},
	{name: "import attributes", g: goalModule, src: `import x from "m" with {type: "json"}`, err: "Unsupported import in exec: m"},
	{name: "import attributes, then code", g: goalModule, src: "import data from './data.json' with { type: 'json' };\nexport default data",
		err: "Unsupported import in exec: ./data.json"},
	{name: "re-export with attributes", g: goalModule, src: `export {default} from "m" with {type: "json"}`,
		err: "Unsupported import in exec: m"},
	{name: "escaped specifier", g: goalModule, src: `import "\u0071js:\x6fs"`, err: "Unsupported import in exec: qjs:os"},
	{name: "first static import in source order", g: goalModule, src: "import('a'); import 'b'; import 'c'",
		err: "Unsupported import in exec: b"},
	{name: "static import after code", g: goalModule, src: "export default 1;\nimport 'late'", err: "Unsupported import in exec: late"},
	{name: "no spaces", g: goalModule, src: `import{x}from"m"`, err: "Unsupported import in exec: m"},
	{name: "exotic separators", g: goalModule, src: "import\u00a0x\ufefffrom\u2028'm'", err: "Unsupported import in exec: m"},
	{name: "comments as separators", g: goalModule, src: "/* c */import/* c */x/* c */from/* c */'m'",
		err: "Unsupported import in exec: m"},
	{name: "static import after a line separator", g: goalModule, src: "1\u2028import x from 'm'", err: "Unsupported import in exec: m"},
	{name: "syntax error before the import", g: goalModule, src: "let x = ;\nimport 'm'",
		err: "SyntaxError: unexpected ; in expression\n    at exec_main.mjs:1:9"},
	{name: "import declaration in a script", g: goalScript, src: "1;\nimport x from 'qjs:os'",
		err: "SyntaxError: Cannot use import statement outside a module\n    at <input>:2:1"},
	{name: "export in a script", g: goalScript, src: "export const a = 1",
		err: "SyntaxError: Unexpected token 'export'\n    at <input>:1:1"},

	// Code built at run time goes through Script again at each level.
	{name: "nested eval keeps the inner source", g: goalScript, src: `eval("import('qjs:os')")`,
		code: `eval("import('qjs:os')")`},
	{name: "the inner source is rewritten in its turn", g: goalScript, src: "import('qjs:os')",
		code: R + "('qjs:os')", run: "error: unsupported import in exec"},

	// NUL characters: QuickJS reads source as a C string.
	{name: "raw NUL in a string", g: goalModule, src: "export default 'a\x00b'.length", code: `export default 'a\x00b'.length`,
		run: "value: 3"},
	{name: "escaped raw NUL in a string", g: goalModule, src: "export default 'a\\\x00b'", code: `export default 'a\x00b'`,
		run: `value: "a\u0000b"`},
	{name: "raw NUL in a template", g: goalModule, src: "export default `a\x00b`.length", code: "export default `a\\x00b`.length",
		run: "value: 3"},
	{name: "raw NUL in a raw template", g: goalModule, src: "export default String.raw`a\x00b`",
		code: "export default String.raw`a\\x00b`", run: `value: "a\\x00b"`},
	{name: "raw NUL in comments", g: goalModule, src: "/*\x00*/ export default 1 //\x00", code: "      export default 1 ",
		run: "value: 1"},
	{name: "raw NUL in a regex", g: goalModule, src: "export default /a\x00b/",
		err: "SyntaxError: NUL character in regular expression\n    at exec_main.mjs:1:18"},
	{name: "raw NUL in code", g: goalModule, src: "export default 1;\x00 import('qjs:os')",
		err: "SyntaxError: unexpected 0x00\n    at exec_main.mjs:1:18"},
	{name: "invalid UTF-8 hiding a quote", g: goalModule, src: "let a\xc3\"; import('qjs:os'); //\"",
		err: "SyntaxError: invalid UTF-8 sequence\n    at exec_main.mjs:1:6"},
}

// functionAttacks are function constructor calls with hostile parameters or bodies.
var functionAttacks = []struct {
	name         string
	kind         FunctionKind
	params       []string
	body         string
	code, err    string
	call, result string // a call of the printed function, and QuickJS's outcome
}{
	{name: "body closes the function", body: `}); import("qjs:os"); ({`,
		err: "SyntaxError: Unexpected token '}'\n    at <input>:3:1"},
	{name: "parameters close the function", params: []string{"a){import('qjs:os')}//"},
		err: "SyntaxError: unexpected { in expression\n    at <input>:2:3"},
	{name: "parameters close the list and reopen a function", params: []string{"a) { import('qjs:os') }) || (function (b"},
		err: "SyntaxError: Arg string terminates parameters early\n    at <input>:1:22"},
	{name: "comment from the parameters into the body", params: []string{"/*"}, body: "*/ ) { import('qjs:os')",
		err: "SyntaxError: Unexpected end of input\n    at <input>:3:4"},
	{name: "template from the parameters into the body", params: []string{"a = `"}, body: "`",
		err: "SyntaxError: unexpected } in function declaration\n    at <input>:4:1"},
	{name: "body reopens after closing", body: "}\n(function () {",
		err: "SyntaxError: unexpected EOF in expression\n    at <input>:5:3"},
	{name: "import() in a default parameter", params: []string{"a = import('qjs:os')"}, body: "return a",
		code: "(function anonymous(a = " + R + "('qjs:os')\n) {\nreturn a\n})",
		call: "f()" + then, result: rejected},
	{name: "import() in the body", body: "return import('qjs:os')",
		code: "(function anonymous(\n) {\nreturn " + R + "('qjs:os')\n})",
		call: "f()" + then, result: rejected},
	{name: "async function", kind: AsyncFunction, body: "return await import('qjs:os')",
		code: "(async function anonymous(\n) {\nreturn await " + R + "('qjs:os')\n})",
		call: "f()" + then, result: rejected},
	{name: "generator", kind: GeneratorFunction, params: []string{"x"}, body: "yield import(x)",
		code: "(function* anonymous(x\n) {\nyield " + R + "(x)\n})",
		call: "f('qjs:os').next().value" + then, result: rejected},
	{name: "async generator", kind: AsyncGeneratorFunction, body: "yield* [import('qjs:os')]",
		code: "(async function* anonymous(\n) {\nyield* [" + R + "('qjs:os')]\n})",
		call: "f().next().then((r) => r.value)" + then, result: rejected},
	{name: "static import in the body", body: "import x from 'qjs:os'",
		err: "SyntaxError: expected ( instead of x in import expression\n    at <input>:3:8"},
	{name: "honest function", params: []string{"a", "b"}, body: "return a + b",
		code: "(function anonymous(a,b\n) {\nreturn a + b\n})", call: "f(1, 2)", result: "value: 3"},
}

// TestAttacks checks the exact outcome of each attack.
func TestAttacks(t *testing.T) {
	all := append(separatorAttacks(), attacks...)
	for _, a := range all {
		var prog Program
		var err error
		if a.g == goalModule {
			prog, err = Module(a.src)
		} else {
			prog, err = Script(a.src)
		}
		if !outcomeIs(t, a.name, prog, err, a.code, a.err) || a.run == "" || testing.Short() {
			continue
		}
		if got := runPrinted(t, a.g, prog.Code); got != a.run {
			t.Errorf("%s: QuickJS on %q:\n got  %q\n want %q", a.name, prog.Code, got, a.run)
		}
	}
	t.Logf("%d module and script attacks, %d function constructor attacks", len(all), len(functionAttacks))
}

// TestFunctionAttacks checks the exact outcome of each function constructor attack.
func TestFunctionAttacks(t *testing.T) {
	for _, a := range functionAttacks {
		prog, err := Function(a.kind, a.params, a.body)
		if !outcomeIs(t, a.name, prog, err, a.code, a.err) || a.call == "" || testing.Short() {
			continue
		}
		src := fmt.Sprintf("const f = (0, eval)(%s);\nexport default await %s;", jsString(prog.Code), a.call)
		if got := runQJS(t, src); got != a.result {
			t.Errorf("%s: QuickJS on %q:\n got  %q\n want %q", a.name, src, got, a.result)
		}
	}
}

// outcomeIs checks a result against the expected code or error text and reports whether the
// code was as expected.
func outcomeIs(t *testing.T, name string, prog Program, err error, code, errText string) bool {
	t.Helper()
	switch {
	case errText != "":
		if err == nil || err.Error() != errText {
			t.Errorf("%s: got (%q, %v), want error %q", name, prog.Code, err, errText)
		}
		if err != nil && !isTypedError(err) {
			t.Errorf("%s: %T is neither *ImportError nor *SyntaxError", name, err)
		}
		return false
	case err != nil:
		t.Errorf("%s: unexpected error %v", name, err)
		return false
	case prog.Code != code:
		t.Errorf("%s:\n got  %q\n want %q", name, prog.Code, code)
		return false
	}
	return true
}

// isTypedError reports whether err is one of the package's error types.
func isTypedError(err error) bool {
	var ie *ImportError
	var se *SyntaxError
	return errors.As(err, &ie) || errors.As(err, &se)
}

// runPrinted runs printed code in QuickJS: a module as the cell, a script through indirect
// eval from a cell, awaiting the result.
func runPrinted(t *testing.T, g goal, code string) string {
	if g == goalModule {
		return runQJS(t, code)
	}
	return runQJS(t, "export default await (0, eval)("+jsString(code)+");")
}
