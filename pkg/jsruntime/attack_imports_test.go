package jsruntime_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// The project's own attack suite, end to end through the provider (project issue 6). Before the
// source transform, the import ban fell to separators a regular expression missed, to a lexer
// that misread line terminators and slashes, and to function constructors the prelude did not
// wrap; each of those led to QuickJS's qjs:os, qjs:std and qjs:bjson. These tests try every such
// road through a whole cell: every dynamic import must end as a promise rejected with exactly
// Codex's "Unsupported import in exec: <spec>", every static one must fail the cell with it, and
// code that only mentions import must run untouched.

// importSeparators is everything JavaScript allows between `import` and "(" in every goal:
// white space, line terminators and comments.
var importSeparators = []struct{ name, sep string }{
	{"none", ""}, {"TAB", "\t"}, {"VT", "\v"}, {"FF", "\f"}, {"SP", " "}, {"NBSP", "\u00a0"},
	{"U+FEFF", "\ufeff"}, {"U+1680", "\u1680"}, {"U+2000", "\u2000"}, {"U+2001", "\u2001"},
	{"U+2002", "\u2002"}, {"U+2003", "\u2003"}, {"U+2004", "\u2004"}, {"U+2005", "\u2005"},
	{"U+2006", "\u2006"}, {"U+2007", "\u2007"}, {"U+2008", "\u2008"}, {"U+2009", "\u2009"},
	{"U+200A", "\u200a"}, {"U+202F", "\u202f"}, {"U+205F", "\u205f"}, {"U+3000", "\u3000"},
	{"LF", "\n"}, {"CR", "\r"}, {"CRLF", "\r\n"}, {"U+2028", "\u2028"}, {"U+2029", "\u2029"},
	{"block comment", "/* c */"}, {"empty block comment", "/**/"},
	{"block comment over lines", "/* a\n b */"}, {"block comment with CR", "/*\r*/"},
	{"block comment with U+2028", "/*\u2028*/"}, {"line comment ended by LF", "// c\n"},
	{"line comment ended by CR", "// c\r"}, {"line comment ended by CRLF", "//\r\n"},
	{"line comment ended by U+2028", "//\u2028"}, {"line comment ended by U+2029", "//\u2029"},
	{"mixed", "\u00a0/*x*/\u2028// y\r\n\t\ufeff"},
}

// htmlCommentSeparators are Annex B's HTML-like comments: comments in scripts (eval code and
// function bodies), operators in a module.
var htmlCommentSeparators = []struct{ name, sep string }{
	{"<!-- comment", "<!-- c\n"}, {"--> comment at a line's start", "\n--> c\n"},
	{"--> after a comment spanning lines", "/*\n*/--> c\n"}, {"<!-- ended by U+2028", "<!--\u2028"},
}

// importAttempts is, for each separator, the source of an import() call with it and the exact
// rejection that call must end in. The specifiers rotate, so every module name meets every goal.
func importAttempts(seps []struct{ name, sep string }) (sources, want []string) {
	for i, s := range seps {
		spec := jsruntime.ImportSpecifiers[i%len(jsruntime.ImportSpecifiers)]
		sources = append(sources, "import"+s.sep+`("`+spec+`")`)
		want = append(want, "string:unsupported import in exec")
	}
	return sources, want
}

// outcomeLoop is a cell that runs expr once for each source in attempts (bound to x) and prints
// how each ended: "loaded" if anything was imported, else the type and text of what was thrown.
func outcomeLoop(t testing.TB, attempts []string, expr string) string {
	return `const got = [];
for (const x of ` + jsruntime.JSONText(t, attempts) + `) {
  try { await (` + expr + `); got.push("loaded") } catch (e) { got.push(typeof e + ":" + String(e)) }
}
text(JSON.stringify(got));`
}

// The cell's own dynamic imports, with every separator: each is a rejection, in the module.
func TestAttackImportInTheCell(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	sources, want := importAttempts(importSeparators)
	var b strings.Builder
	b.WriteString("const got = [];\n")
	for _, src := range sources {
		b.WriteString(`try { await ` + src + `; got.push("loaded") } catch (e) { got.push(typeof e + ":" + String(e)) }` + "\n")
	}
	b.WriteString("text(JSON.stringify(got));")
	jsruntime.ExpectTexts(t, s, b.String(), []string{jsruntime.JSONText(t, want)})
}

// HTML-like comments are operators in a module, where QuickJS would read `import<!--x` as
// `import < !--x`; the transform refuses such a module rather than guess.
func TestAttackHTMLCommentImportInTheCell(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	for src, errText := range map[string]string{
		"text(1);\nawait import<!-- c\n('qjs:os')":  "SyntaxError: HTML-like comments are not allowed in modules\n    at exec_main.mjs:2:13",
		"text(1);\nawait import\n--> c\n('qjs:os')": "SyntaxError: HTML-like comments are not allowed in modules\n    at exec_main.mjs:3:1",
	} {
		jsruntime.ExpectFailure(t, s, src, errText, []string{})
	}
}

// importContexts are the ways a cell can evaluate source at run time: eval in all its forms and
// every function constructor, however it is reached. Each is an expression of x (the source of
// an import() call) whose value, awaited, settles like that call.
var importContexts = []struct{ name, expr string }{
	{"eval", `eval(x)`},
	{"(0, eval)", `(0, eval)(x)`},
	{"globalThis.eval", `globalThis.eval(x)`},
	{"eval.call", `eval.call(null, x)`},
	{"Reflect.apply(eval)", `Reflect.apply(eval, undefined, [x])`},
	{"eval in eval", `eval("eval(" + JSON.stringify(x) + ")")`},
	{"eval in (0, eval) in eval", `eval("(0, eval)(" + JSON.stringify("eval(" + JSON.stringify(x) + ")") + ")")`},
	{"eval returned by Function", `Function("return eval")()(x)`},
	{"Function", `Function("return " + x)()`},
	{"new Function", `new Function("return " + x)()`},
	{"Function parameter default", `Function("a = " + x, "return a")()`},
	{"eval in Function", `Function("return eval(" + JSON.stringify(x) + ")")()`},
	{"Function in eval", `eval("Function(" + JSON.stringify("return " + x) + ")()")`},
	{"(async () => {}).constructor", `(async () => {}).constructor("return await " + x)()`},
	{"getPrototypeOf(async function).constructor", `Object.getPrototypeOf(async function () {}).constructor("return " + x)()`},
	{"(function* () {}).constructor", `(function* () {}).constructor("yield " + x)().next().value`},
	{"getPrototypeOf(function*).constructor", `Object.getPrototypeOf(function* () {}).constructor("yield " + x)().next().value`},
	{"(async function* () {}).constructor", `(async function* () {}).constructor("yield " + x)().next()`},
	{"getPrototypeOf(async function*).constructor", `Object.getPrototypeOf(async function* () {}).constructor("yield " + x)().next()`},
	{"getPrototypeOf(AsyncFunction)", `Object.getPrototypeOf((async () => {}).constructor)("return " + x)()`},
	{"getPrototypeOf(GeneratorFunction)", `Object.getPrototypeOf((function* () {}).constructor)("return " + x)()`},
	{"getPrototypeOf(AsyncGeneratorFunction)", `Object.getPrototypeOf((async function* () {}).constructor)("return " + x)()`},
	{"Function.prototype.constructor", `Function.prototype.constructor("return " + x)()`},
	{"constructor of constructor", `(async () => {}).constructor.constructor.constructor("return " + x)()`},
	{"Reflect.construct(Function)", `Reflect.construct(Function, ["return " + x])()`},
	{"Reflect.construct(AsyncFunction) with a new.target", `Reflect.construct((async () => {}).constructor, ["return " + x], Object)()`},
	{"Reflect.apply(Function)", `Reflect.apply(Function, null, ["return " + x])()`},
	{"Function.bind", `Function.bind(null, "return " + x)()()`},
	{"new of a bound AsyncFunction", `new ((async () => {}).constructor.bind(null, "return " + x))()()`},
	{"Function.call", `Function.call(null, "return " + x)()`},
	{"GeneratorFunction.apply", `(function* () {}).constructor.apply(null, ["yield " + x])().next().value`},
	{"class extends Function", `new (class extends Function {})("return " + x)()`},
	{"class extends AsyncGeneratorFunction calling super", `new (class extends (async function* () {}).constructor { constructor(s) { super(s) } })("yield " + x).call().next()`},
	{"Proxy of Function", `new Proxy(Function, {})("return " + x)()`},
	{"constructor of a helper", `text.constructor("return " + x)()`},
	{"constructor of a tool", `tools.echo.constructor.constructor("return " + x)()`},
	{"constructor of %ThrowTypeError%", `Object.getOwnPropertyDescriptor(Function.prototype, "caller").get.constructor("return " + x)()`},
	{"constructor of a bound function", `Math.max.bind().constructor("return " + x)()`},
	{"constructor of a generator object's prototypes", `Object.getPrototypeOf(Object.getPrototypeOf((function* () {})())).constructor.constructor("yield " + x)().next().value`},
	{"constructor of an async generator object's prototypes", `Object.getPrototypeOf(Object.getPrototypeOf((async function* () {})())).constructor.constructor("yield " + x)().next()`},
	{"constructor of a function made by Function", `Function("").constructor("return " + x)()`},
}

// Every separator in every run-time context, HTML-like comments included (eval code and function
// bodies are scripts).
func TestAttackImportThroughEvalAndEveryFunctionConstructor(t *testing.T) {
	s := jsruntime.NewTestSession(t, jsruntime.NewRecorder(jsruntime.EchoTool), codemode.SessionCellExecutionLimits{})
	seps := append(append([]struct{ name, sep string }{}, importSeparators...), htmlCommentSeparators...)
	sources, want := importAttempts(seps)
	for _, c := range importContexts {
		t.Run(c.name, func(t *testing.T) {
			jsruntime.ExpectTexts(t, s, outcomeLoop(t, sources, c.expr), []string{jsruntime.JSONText(t, want)}, jsruntime.TestTool("echo"))
		})
	}
}

// Every function constructor a cell can reach is one of the four safe ones: the prototypes of
// the three that inherit from Function lead to the safe Function, and no constructor is the
// original QuickJS one (which would run source the transform never saw).
func TestAttackFunctionConstructorsAreTheSafeOnes(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	jsruntime.ExpectTexts(t, s, `
const F = Function, AF = (async () => {}).constructor, GF = (function* () {}).constructor, AGF = (async function* () {}).constructor;
text(JSON.stringify([
  Object.getPrototypeOf(AF) === F, Object.getPrototypeOf(GF) === F, Object.getPrototypeOf(AGF) === F,
  Object.getPrototypeOf(F) === Function.prototype, Function.prototype.constructor === F,
  Object.getPrototypeOf(async function () {}).constructor === AF, AF.prototype.constructor === AF,
  GF.prototype.constructor === GF, AGF.prototype.constructor === AGF,
  [F, AF, GF, AGF].map((c) => c.name + "/" + c.length),
  Object.getOwnPropertyNames(F).sort(),
  (() => {}).constructor === F, (class {}).constructor === F, Math.max.constructor === F,
]));`, []string{`[true,true,true,true,true,true,true,true,true,` +
		`["Function/1","AsyncFunction/1","GeneratorFunction/1","AsyncGeneratorFunction/1"],` +
		`["length","name","prototype"],true,true,true]`})
}

// A keyword spelled with a unicode escape is not the keyword: QuickJS refuses it.
func TestAttackEscapedImportKeyword(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	jsruntime.ExpectFailure(t, s, `text(1); await imp\u006frt("qjs:os")`,
		"SyntaxError: 'import' is a reserved identifier\n    at exec_main.mjs:1:1", []string{})
	// The parser takes the escaped keyword for a name, so this is no import declaration.
	jsruntime.ExpectFailure(t, s, `\u0069mport * as os from "qjs:os"`,
		"SyntaxError: Unexpected identifier 'os'", []string{})
	jsruntime.ExpectTexts(t, s, outcomeLoop(t, []string{`imp\u006frt("qjs:os")`, `\u{69}mport("qjs:std")`, `impor\u0074 ("qjs:bjson")`},
		`eval(x)`), []string{`["object:SyntaxError: 'import' is a reserved identifier",` +
		`"object:SyntaxError: 'import' is a reserved identifier","object:SyntaxError: 'import' is a reserved identifier"]`})
	jsruntime.ExpectTexts(t, s, outcomeLoop(t, []string{`return imp\u006frt("qjs:os")`}, `Function(x)()`),
		[]string{`["object:SyntaxError: 'import' is a reserved identifier"]`})
}

// The rewritten import() converts its specifier as import() does, after evaluating it, and a
// second argument changes nothing.
func TestAttackImportSpecifierConversions(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	jsruntime.ExpectTexts(t, s, `
const got = [];
const seen = [];
const attempts = [
  () => import({ toString() { seen.push("toString"); return "qjs:os" }, valueOf() { seen.push("valueOf"); return "qjs:std" } }),
  () => import(Symbol("qjs:os")),
  () => import("qjs:os", { with: { type: "json" } }),
  () => import(`+"`qjs:${'bjson'}`"+`),
  () => import(["qjs", "std"].join(":")),
  () => { let p; return (1) / 2 / (p = import("os")), p },
  () => import((seen.push("argument evaluated"), "std")),
];
for (const f of attempts) {
  try { await f(); got.push("loaded") } catch (e) { got.push(typeof e + ":" + String(e)) }
}
text(JSON.stringify(got));
text(JSON.stringify(seen));`, []string{
		`["string:unsupported import in exec","object:TypeError: Cannot convert a Symbol value to a string",` +
			`"string:unsupported import in exec","string:unsupported import in exec",` +
			`"string:unsupported import in exec","string:unsupported import in exec",` +
			`"string:unsupported import in exec"]`,
		`["toString","argument evaluated"]`,
	})
}

// Static imports and re-exports fail the cell before anything runs, with the first specifier in
// source order, whatever separates their tokens.
func TestAttackStaticImportForms(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	for _, c := range []struct{ src, spec string }{
		{`text(1); import fs from "fs"`, "fs"},
		{`import * as os from "qjs:os"`, "qjs:os"},
		{`import "qjs:std"`, "qjs:std"},
		{`import {a as b} from 'qjs:bjson'`, "qjs:bjson"},
		{`import def, {x} from "os"`, "os"},
		{`import def, * as ns from "std"`, "std"},
		{`import {"string name" as x} from "qjs:os"`, "qjs:os"},
		{`export * from "qjs:std"`, "qjs:std"},
		{`export * as ns from "qjs:os"`, "qjs:os"},
		{`export {a} from "m"`, "m"},
		{`export {default} from "qjs:os"`, "qjs:os"},
		{`export {default as x, y} from "qjs:bjson"`, "qjs:bjson"},
		{`import x from "./x.json" with {type: "json"}`, "./x.json"},
		{`import "qjs\u003aos"`, "qjs:os"},
		{`import "\u{71}js:std"`, "qjs:std"},
		{"import\u00a0*\u2028as\u3000os\ufefffrom/**/'qjs:os'", "qjs:os"},
		{"export\t*\r\nfrom\u2029\"qjs:std\"", "qjs:std"},
		{"import// c\n\"qjs:bjson\"", "qjs:bjson"},
		{`await import("first"); import "second"; import "third"`, "second"},
		{"let a = 1 / 2; /x/.test(a); import 'after-regex'", "after-regex"},
		{"const s = `${1}`; export {s as t} from 'after-template'", "after-template"},
		{`text("never"); export * from "qjs:os"; import "qjs:std"`, "qjs:os"},
	} {
		jsruntime.ExpectFailure(t, s, c.src, "Unsupported import in exec: "+c.spec, []string{})
	}
}

// A slash is a regular expression or a division depending on what precedes it, and the old
// lexer guessed wrong after `}`, `)`, `export default`, `for await (…)`, `await` followed by
// NBSP and `yield`: a quote or a comment inside what it took for a regular expression hid an
// import() call. The transform decides with the parser; each of these ends exactly as V8 would
// end it, its import() rejected.
func TestAttackRegexDivisionAmbiguity(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	for _, c := range []struct{ name, src string }{
		{"regex after a block", "{}\n/\"/; await import(\"qjs:os\") //\"/"},
		{"regex after a block in eval", "await eval('{}\\n/\"/; import(\"qjs:os\") //\"/')"},
		{"division after a parenthesis", "let p; const n = (4) / 2 / (p = import(\"qjs:os\")) / 1; text(n); await p"},
		{"regex after if (…)", "if (1) /\"/.test(\"\\\"\"); await import(\"qjs:os\") //\"/"},
		{"regex after export default", "export default /\"/; await import(\"qjs:os\") //\"/"},
		{"regex after for await (…)", "for await (const v of []) /\"/g; await import(\"qjs:os\") //\"/"},
		{"regex after await and NBSP", "const r = await\u00a0/\"/g; text(String(r)); await import(\"qjs:os\") //\"/"},
		{"regex after await and U+2028", "const r = await\u2028/\"/g; text(String(r)); await import(\"qjs:os\") //\"/"},
		{"regex after yield", "function* g() { yield /\"/; yield import(\"qjs:os\") //\"/\n}\nconst it = g(); text(String(it.next().value)); await it.next().value"},
		{"division after a name on the next line", "const a = 4, g = 2, i = 1;\nconst d = a\n/g/i; text(String(d)); await import(\"qjs:os\")"},
		{"regex after ) of a call", "text(String(Math.max(1)/2)); await import(\"qjs:os\")"},
		{"regex in a template substitution", "text(`${/\"/.source}`); await import(\"qjs:os\") //\"/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			items, errText := jsruntime.RunEveryOutput(t, s, c.src)
			want := map[string][]string{
				"division after a parenthesis":           {"NaN"},
				"regex after await and NBSP":             {`/"/g`},
				"regex after await and U+2028":           {`/"/g`},
				"regex after yield":                      {`/"/`},
				"division after a name on the next line": {"2"},
				"regex after ) of a call":                {"0.5"},
				"regex in a template substitution":       {`"`},
			}[c.name]
			if want == nil {
				want = []string{}
			}
			if got := jsruntime.TextsOf(items); errText != "unsupported import in exec" || !reflect.DeepEqual(got, want) {
				t.Errorf("error %q, texts %q; want the import rejected after %q", errText, got, want)
			}
		})
	}
}

// Code that only mentions import runs untouched: strings, templates, comments and regular
// expressions keep their text, and import as a property, method, field or key is not a call.
func TestAttackHonestCodeMentioningImport(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	jsruntime.ExpectTexts(t, s, `
// import("qjs:os") in a comment
/* import * as os from "qjs:os" */
const str = 'import("qjs:os")';
const tpl = `+"`import(\"${'qjs:std'}\") and import ('x')`"+`;
const re = /import\s*\(\s*"qjs:os"\s*\)/;
const o = { import: 1, "import(": 2, import() { return "method" } };
class C { import() { return "class method" } static import = "static field"; #import = "private"; get priv() { return this.#import } }
const p = { import(x) { return "called " + x } };
label: for (const importLabel of [1]) { break label }
text(str);
text(tpl);
text(re.source + " " + re.test('import ( "qjs:os" )'));
text(o.import() + " " + o["import("] + " " + p.import("qjs:os") + " " + p?.import("x") + " " + p . import ("y"));
text(new C().import() + " " + C.import + " " + new C().priv);
text((0, eval)('"see import(x)"'));
text(eval("'import(\"qjs:os\")'.length"));
text(typeof import.meta + " " + Object.getPrototypeOf(import.meta) + " " + JSON.stringify(Object.keys(import.meta)));
text(String(Function("return 'import(' + 1 + ')'")()));
text(String.raw`+"`import(\"qjs:os\")`"+`);
text(JSON.stringify({ import: "x" }));
`, []string{
		`import("qjs:os")`,
		`import("qjs:std") and import ('x')`,
		`import\s*\(\s*"qjs:os"\s*\) true`,
		"method 2 called qjs:os called x called y",
		"class method static field private",
		"see import(x)",
		"16",
		`object null ["url","main"]`,
		"import(1)",
		`import("qjs:os")`,
		`{"import":"x"}`,
	})
}

// A function constructor assembles its parameters and body into one source, as the
// specification's CreateDynamicFunction does: text that closes the parameter list or the body
// early, to run code of its own at the top level, is a SyntaxError, and an import() that a line
// terminator or an HTML-like comment leaves live in the body is rewritten like any other.
func TestAttackFunctionConstructorSourceInjection(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	jsruntime.ExpectTexts(t, s, `
const got = [];
const attempts = [
  () => Function("a){ return import('qjs:os') }; (function(", ""),
  () => Function("", "}); import('qjs:os'); (function(){"),
  () => Function("/*", "*/){ return import('qjs:os') }; (function(){"),
  () => Function("a = `+"`"+`", "`+"`"+`; return import('qjs:os')"),
  () => Function("a", "//\u2028return import('qjs:std')")(),
  () => Function("a", "<!--\nreturn import('qjs:bjson')")(),
  () => Function("a\n-->", "return import('os')")(),
  () => Function("a", "-->\nreturn import('std')")(),
  () => new Function("...a", "return import('qjs:os')")(),
  () => Function("{a = import('qjs:os')}", "return a")({}),
  () => Function("a = '", "'); import('qjs:os'); ('")(),
  () => Function("a //", ") { return import('qjs:os') }; (function (")(),
  () => (async function* () {}).constructor("a = yield", ""),
  () => Function("a", "b", "return import(a + ':' + b)")("qjs", "os"),
  () => Function("'use strict'; return import('qjs:os')")(),
  () => Function("return this")() === globalThis,
];
for (const f of attempts) {
  try { const v = await f(); got.push("value " + String(v)) } catch (e) { got.push(typeof e + " " + String(e)) }
}
text(got.join("\n"));`, []string{strings.Join([]string{
		"object SyntaxError: unexpected ; in expression (at <input>:1:50)",
		"object SyntaxError: Unexpected token '}' (at <input>:3:1)",
		"object SyntaxError: unexpected ; in expression (at <input>:3:31)",
		"object SyntaxError: unexpected ; in function declaration (at <input>:3:2)",
		"string unsupported import in exec",
		"string unsupported import in exec",
		"string unsupported import in exec",
		"string unsupported import in exec",
		"string unsupported import in exec",
		"string unsupported import in exec",
		"object SyntaxError: unterminated string literal in expression (at <input>:1:25)",
		"object SyntaxError: unexpected ) in expression (at <input>:3:1)",
		"object SyntaxError: yield in default expression",
		"string unsupported import in exec",
		"string unsupported import in exec",
		"value true",
	}, "\n")})
}
