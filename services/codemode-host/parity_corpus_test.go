package main_test

// The parity corpus: cells that cover every global of the cell's surface and its edge cases, each
// run on Codex's host and on codemode-host (parity_test.go). A case keeps to what is
// deterministic on one host: no clock-dependent yields, no races between a tool answer and the
// cell's own timers.

// one is a case of a single cell.
func one(name, src string) parityCase { return parityCase{name: name, cells: []string{src}} }

// cells is a case of several cells run in order in one session.
func cells(name string, srcs ...string) parityCase { return parityCase{name: name, cells: srcs} }

func parityCorpus() []parityCase {
	var all []parityCase
	for _, group := range [][]parityCase{
		textCases(), notifyCases(), mediaCases(), contentCases(), errorCases(), v8TextCases(), exitCases(),
		timerCases(), storeCases(), toolCases(), toolArgumentCases(), settledCases(),
		truncationCases(), unicodeCases(), importCases(), globalCases(), yieldCases(), languageCases(),
		localeCases(),
	} {
		all = append(all, group...)
	}
	return all
}

func textCases() []parityCase {
	return []parityCase{
		one("text/string", `text("hello")`),
		one("text/empty-string", `text("")`),
		one("text/no-argument", `text()`),
		one("text/two-arguments", `text("a", "b")`),
		one("text/integer", `text(42)`),
		one("text/negative-zero", `text(-0)`),
		one("text/nan-and-infinity", `text(NaN); text(Infinity); text(-Infinity)`),
		one("text/large-and-small-numbers", `text(1e21); text(1.5e-7); text(0.1 + 0.2); text(2 ** 53 + 1)`),
		one("text/bigint", `text(10n ** 20n)`),
		one("text/booleans", `text(true); text(false)`),
		one("text/null-and-undefined", `text(null); text(undefined)`),
		one("text/object", `text({a: 1, b: "two", c: [3, {d: null}]})`),
		one("text/array", `text([1, "2", null, undefined, () => 1])`),
		one("text/sparse-array", `text([1, , 3])`),
		one("text/nested-empty", `text({}); text([]); text([[]]); text({a: {}})`),
		one("text/date", `text(new Date(0))`),
		one("text/map-and-set", `text(new Map([[1, 2]])); text(new Set([1]))`),
		one("text/regexp", `text(/a+b/g)`),
		one("text/error-object", `text(new Error("boom"))`),
		one("text/symbol", `text(Symbol("s"))`),
		one("text/function", `text(function named() { return 1 })`),
		one("text/arrow-function", `text(() => 1)`),
		one("text/class-instance", `class P { constructor() { this.x = 1 } }; text(new P())`),
		one("text/to-json-value", `text({toJSON() { return {replaced: true} }})`),
		one("text/to-json-undefined", `text({toJSON() { return undefined }})`),
		one("text/to-json-throws", `try { text({toJSON() { throw new Error("nope") }}) } catch (e) { text("caught " + typeof e + " " + String(e)) }`),
		one("text/cyclic", `const o = {}; o.self = o; try { text(o) } catch (e) { text("caught " + typeof e) }`),
		one("text/bigint-in-object", `try { text({n: 1n}) } catch (e) { text("caught " + typeof e) }`),
		one("text/throwing-getter", `try { text({get x() { throw "getter" }}) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("text/uncaught-cyclic", `const o = {}; o.self = o; text(o)`),
		one("text/number-and-string-objects", `text(new Number(5)); text(new String("s")); text(new Boolean(false))`),
		one("text/typed-array", `text(new Uint8Array([1, 2, 3]))`),
		one("text/symbol-keys-skipped", `text({[Symbol("k")]: 1, v: 2})`),
		one("text/non-enumerable-skipped", `const o = {}; Object.defineProperty(o, "h", {value: 1}); o.v = 2; text(o)`),
		one("text/proxy", `text(new Proxy({a: 1}, {}))`),
		one("text/return-value", `text(typeof text("x"))`),
		one("text/many-items", `for (let i = 0; i < 50; i++) text(i)`),
		one("text/multiline", `text("line 1\nline 2\r\nline 3")`),
		one("text/json-escapes", `text("quote \" backslash \\ tab \t nul \u0000 bell \u0007")`),
		one("text/object-with-undefined-values", `text({a: undefined, b: () => 1, c: Symbol("x"), d: 1})`),
		one("text/string-object-key-order", `text({b: 1, a: 2, 1: 3, 0: 4})`),
		one("text/infinity-in-object", `text({a: NaN, b: Infinity, c: -0})`),
	}
}

func notifyCases() []parityCase {
	return []parityCase{
		one("notify/string", `notify("hello")`),
		one("notify/object", `notify({a: 1})`),
		one("notify/number", `notify(7)`),
		one("notify/empty-string", `try { notify("") } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("notify/whitespace-only", `try { notify("  \n ") } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("notify/no-argument", `try { notify() } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("notify/symbol", `try { notify(Symbol("s")) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("notify/function", `try { notify(() => 1) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("notify/cyclic", `const o = {}; o.o = o; try { notify(o) } catch (e) { text("caught " + typeof e) }`),
		one("notify/return-value", `text(typeof notify("x"))`),
		one("notify/then-text", `notify("first"); text("second")`),
		one("notify/several", `notify("a"); notify("b"); notify("c"); text("done")`),
		one("notify/before-tool-call", `notify("before"); const r = await tools.echo({v: 1}); text(JSON.stringify(r))`),
		one("notify/between-tool-calls", `await tools.echo({}); notify("middle"); await tools.echo({}); text("end")`),
		one("notify/uncaught-empty", `notify("")`),
	}
}

func mediaCases() []parityCase {
	return []parityCase{
		one("image/data-url", `image("data:image/png;base64,AAAA")`),
		one("image/detail-low", `image("data:image/png;base64,AAAA", "low")`),
		one("image/detail-upper-case", `image("data:image/png;base64,AAAA", "HIGH")`),
		one("image/detail-bad", `try { image("data:image/png;base64,AAAA", "huge") } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("image/detail-number", `try { image("data:image/png;base64,AAAA", 1) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("image/object-form", `image({image_url: "data:image/png;base64,AAAA", detail: "original"})`),
		one("image/object-without-url", `try { image({detail: "low"}) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("image/http-url", `try { image("https://example.com/a.png") } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("image/relative-url", `try { image("a.png") } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("image/empty-string", `try { image("") } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("image/no-argument", `try { image() } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("image/number", `try { image(5) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("image/array", `try { image(["data:image/png;base64,AAAA"]) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("image/mcp-block", `image({type: "image", data: "AAAA", mimeType: "image/jpeg"})`),
		one("image/mcp-block-wrong-type", `try { image({type: "text", text: "x"}) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("image/mcp-block-detail-meta", `image({type: "image", data: "AAAA", mimeType: "image/png", _meta: {"codex/imageDetail": "low"}})`),
		one("image/uncaught-bad-url", `image("ftp://x")`),
		one("generated-image/url", `generatedImage({image_url: "data:image/png;base64,AAAA"})`),
		one("generated-image/with-hint", `generatedImage({image_url: "data:image/png;base64,AAAA", output_hint: "a cat"})`),
		one("generated-image/bad-hint", `try { generatedImage({image_url: "data:image/png;base64,AAAA", output_hint: 3}) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("generated-image/string", `try { generatedImage("data:image/png;base64,AAAA") } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("generated-image/no-argument", `try { generatedImage() } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("generated-image/missing-url", `try { generatedImage({}) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("generated-image/http-url", `try { generatedImage({image_url: "http://x/y.png"}) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("audio/data-url", `audio("data:audio/wav;base64,AAAA")`),
		one("audio/object-form", `audio({audio_url: "data:audio/wav;base64,AAAA"})`),
		one("audio/mcp-block", `audio({type: "audio", data: "AAAA", mimeType: "audio/wav"})`),
		one("audio/http-url", `try { audio("https://x/y.wav") } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("audio/no-argument", `try { audio() } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("audio/wrong-block", `try { audio({type: "image", data: "AAAA"}) } catch (e) { text("caught " + typeof e + " " + e) }`),
	}
}

func contentCases() []parityCase {
	return []parityCase{
		one("content/text-block", `content({type: "text", text: "hello"})`),
		one("content/image-block", `content({type: "image", data: "AAAA", mimeType: "image/png"})`),
		one("content/audio-block", `content({type: "audio", data: "AAAA", mimeType: "audio/wav"})`),
		one("content/array-of-blocks", `content([{type: "text", text: "a"}, {type: "text", text: "b"}])`),
		one("content/generator", `content((function* () { yield {type: "text", text: "g1"}; yield {type: "text", text: "g2"} })())`),
		one("content/string", `try { content("plain") } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("content/no-argument", `try { content() } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("content/unknown-type", `try { content({type: "video"}) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("content/text-without-text", `try { content({type: "text"}) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("content/resource-link", `try { content({type: "resource_link", uri: "file:///a", name: "a"}) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("content/embedded-resource", `try { content({type: "resource", resource: {uri: "file:///a", text: "body"}}) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("content/image-url-block", `try { content({type: "image", data: "https://x/y.png"}) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("content/bad-block-in-array", `try { content([{type: "text", text: "ok"}, 5]) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("content/return-value", `text(typeof content({type: "text", text: "x"}))`),
	}
}

func errorCases() []parityCase {
	return []parityCase{
		one("throw/string", `throw "boom"`),
		one("throw/string-after-text", `text("before"); throw "boom"`),
		one("throw/number", `throw 42`),
		one("throw/null", `throw null`),
		one("throw/undefined", `throw undefined`),
		one("throw/object", `throw {code: 1}`),
		one("throw/object-with-to-string", `throw {toString() { return "custom" }}`),
		one("throw/symbol", `throw Symbol("s")`),
		one("throw/error-stack", `throw new Error("boom")`),
		one("throw/error-message-only", `try { throw new Error("boom") } catch (e) { text(e.message); text(e.name); text(String(e)) }`),
		one("throw/type-error-message", `try { null.x } catch (e) { text(e.name); text(e instanceof TypeError) }`),
		one("throw/custom-error-class", `class MyError extends Error { constructor(m) { super(m); this.name = "MyError" } }; try { throw new MyError("mine") } catch (e) { text(String(e)); text(e instanceof Error) }`),
		one("throw/error-with-cause", `try { throw new Error("outer", {cause: "inner"}) } catch (e) { text(e.cause) }`),
		one("throw/aggregate-error", `try { throw new AggregateError([1, 2], "many") } catch (e) { text(e.errors.length + " " + e.message) }`),
		one("throw/error-with-stack-replaced", `const e = new Error("x"); e.stack = "custom stack"; throw e`),
		one("throw/error-without-stack", `const e = new Error("x"); delete e.stack; e.stack = undefined; throw e`),
		one("throw/async-function", `async function f() { throw "async boom" }; await f()`),
		one("throw/rejected-promise", `await Promise.reject("rejected")`),
		one("throw/unawaited-rejection", `Promise.reject("ignored"); text("still here")`),
		one("throw/in-timer", `setTimeout(() => { throw "timer boom" }, 0); await new Promise(r => setTimeout(r, 5)); text("after")`),
		one("throw/syntax-error", `let = ;`),
		one("throw/reference-error-caught", `try { undefinedName } catch (e) { text(e.name) }`),
		one("throw/error-subclass-name", `try { throw new RangeError("r") } catch (e) { text(String(e)) }`),
		one("throw/error-empty-message", `throw new Error("")`),
		one("throw/finally-runs", `try { throw "x" } catch (e) { text("caught") } finally { text("finally") }`),
		one("throw/nested-catch-rethrow", `try { try { throw "inner" } catch (e) { throw "outer:" + e } } catch (e) { text(e) }`),
		one("throw/after-tool-call", `await tools.echo({}); throw "after tool"`),
		one("throw/object-with-stack-property", `throw {stack: "not an error"}`),
		one("throw/return-at-top-level", `text("a"); return; text("b")`),
	}
}

// v8TextCases are the engine errors whose texts and frames codemode writes as V8 does (ADR 60,
// docs/runtime-parity.md, V8's error texts).
// probe is a case that runs body under a probe printing what the error it throws is, its stack's
// type, its text and its stack's first line.
func probe(name, body string) parityCase {
	return one(name, `const probe = async (f) => { try { await f(); text("no error") } catch (e) { text(typeof e + " " + typeof e.stack); text(String(e)); if (typeof e.stack === "string") text(e.stack.split("\n")[0]) } }; `+body)
}

func v8TextCases() []parityCase {
	return []parityCase{
		one("v8text/tool-not-a-function", `tools.read_fle({})`),
		one("v8text/method-not-a-function", "const o = {};\no.f()"),
		one("v8text/not-a-constructor", `new 5`),
		one("v8text/member-not-a-constructor", `const o = {}; new o.x()`),
		one("v8text/read-of-undefined", `const o = {}; o.a.b`),
		one("v8text/read-of-null-caught", `try { null.x } catch (e) { text(e.message); text(e.stack) }`),
		one("v8text/invalid-array-length", `new Array(-1)`),
		one("v8text/stringify-bigint", `JSON.stringify(1n)`),
		one("v8text/stringify-cycle-path", `const o = {}; o.x = {y: [1, {z: o}]}; text(o)`),
		one("v8text/const-assignment", `const a = 1; a = 2;`),
		one("v8text/class-without-new", `class A {}; A()`),
		one("v8text/symbol-to-string", "const s = Symbol();\n`${s}`"),
		one("v8text/uri-malformed", `decodeURI("%")`),
		one("v8text/named-function-frame", "function f() { throw new Error(\"x\") }\nf()"),
		one("v8text/getter-frame", `const o = {get x() { throw new Error("g") }}; o.x`),
		one("v8text/class-method-frame", `class A { m() { throw new Error("m") } }; new A().m()`),
		one("v8text/error-subclass", `class MyError extends Error { constructor(m) { super(m); this.name = "MyError" } }; throw new MyError("mine")`),
		one("v8text/stack-read-by-script", `try { throw new Error("boom") } catch (e) { text(e.stack) }`),
		one("v8text/for-of-object", `const res = await tools.echo({a: 1}); for (const item of res) { text(item) }`),
		one("v8text/array-pattern", `const [a] = {};`),
		one("v8text/destructure-undefined", `const o = {}; const {x} = o.y;`),
		one("v8text/destructure-parameter", `function f({a}) {}; f()`),
		one("v8text/callee-after-call", `const o = {a: () => ({})}; o.a().b()`),
		one("v8text/callee-computed", `const o = {}; o["x"]()`),
		one("v8text/callee-parenthesized", `(await tools.echo({})).foo()`),
		one("v8text/map-over-object", `const res = await tools.echo({a: 1}); res.map(x => x)`),
		one("v8text/arrow-frame-in-map", `[1, 2].map(x => x.y.z)`),
		one("v8text/reduce-empty", `[].reduce((a, b) => a)`),
		one("v8text/to-fixed-digits", `(1).toFixed(200)`),
		one("v8text/callback-not-a-function", `const arr = [1]; arr.map(x => x())`),
		one("v8text/json-parse-frames", `JSON.parse("{'a': 1}")`),
		one("v8text/string-literal-callee", `"abc".foo()`),
		one("v8text/new-error-computed-message", "const x = {a: 1};\nthrow new Error(`failed: ${JSON.stringify(x)}`)"),
		one("v8text/new-error-with-cause", `const e = new Error("outer", {cause: new Error("inner")}); throw e`),
		one("v8text/error-in-function-computed", "function check(v) { if (!v) { throw new TypeError(\"bad value: \" + String(v)) } }\ncheck(0)"),
		one("v8text/bigint-mix", `1n + 1`),
		one("v8text/symbol-plus-string", `const s = Symbol(); "a" + s`),
		one("v8text/before-initialization", `x; let x = 1`),
		one("v8text/set-of-undefined", `const o = undefined; o.x = 1`),
		one("v8text/const-increment", `const a = 1; a++`),
		one("v8text/instanceof-non-object", `null instanceof 5`),
		one("v8text/reflect-non-object", `Reflect.ownKeys(1)`),
		one("v8text/invalid-time-value", `new Date(NaN).toISOString()`),
		one("v8text/call-frame-left-out", `[].at.call(null)`),
		// A script's own errors keep their messages, however much they read like the engine's.
		one("v8text/own-error-not-a-function", `try { throw new TypeError("not a function") } catch (e) { text(String(e)); text(e.stack) }`),
		one("v8text/own-error-circular", `const e = new TypeError("circular reference"); text(String(e)); throw e`),
		one("v8text/own-error-without-new", `const e = TypeError("not a function"); text(e.message); text(e.stack)`),
		one("v8text/own-error-reflect-construct", `const e = Reflect.construct(TypeError, ["empty array"]); text(e.message); text(e.stack)`),
		one("v8text/own-error-subclass", `class E extends TypeError {}; const e = new E("not a function"); text(String(e)); throw e`),
		one("v8text/own-error-read-text", `const e = new Error("cannot read property 'b' of undefined"); text(e.message); text(e.stack)`),
		one("v8text/own-error-object-create", `const e = Object.create(TypeError.prototype); e.message = "not a function"; text(String(e)); text(typeof e.stack)`),
		one("v8text/own-error-computed-message", "const what = \"circular\";\nthrow new TypeError(what + \" reference\")"),
		// A caught stack overflow has V8's stack: the header and frames.
		// V8 reports the innermost frame at the call or at the function's start, by chance.
		one("v8text/stack-overflow-stack", "function g() { g() }\ntry { g() } catch (e) { const lines = e.stack.split(\"\\n\"); text(lines[0]); text(lines.length); text(lines.slice(1).every(l => /^    at g \\(exec_main\\.mjs:1:\\d+\\)$/.test(l))) }"),
		// Every path that makes an error gives it a string stack.
		one("v8text/stack-aggregate-error", `try { await Promise.any([Promise.reject(new Error("a"))]) } catch (e) { text(typeof e.stack); text(e.stack) }`),
		one("v8text/stack-aggregate-error-empty", `try { await Promise.any([]) } catch (e) { text(e.stack) }`),
		one("v8text/own-aggregate-error", `const e = new AggregateError([]); text(JSON.stringify(e.message)); text(e.stack)`),
		one("v8text/stack-eval-error", `try { eval("null.x") } catch (e) { text(typeof e.stack); text(e.stack.split("\n")[0]) }`),
		one("v8text/stack-new-function-error", `try { new Function("return null.x")() } catch (e) { text(typeof e.stack); text(e.stack.split("\n")[0]) }`),
		one("v8text/stack-after-tool-call", `async function f() { await tools.echo({}); null.x } try { await f() } catch (e) { text(typeof e.stack); text(e.stack.split("\n")[0]) }`),
		one("v8text/stack-in-timer", `await new Promise(r => setTimeout(() => { try { null.x } catch (e) { text(typeof e.stack); text(e.stack.split("\n")[0]) } r() }, 0))`),
		one("v8text/stack-helper-error", `try { text(1n) } catch (e) { text(typeof e.stack); text(e.stack.split("\n")[0]) }`),
		probe("v8text/probe-tool-input-bigint", `await probe(() => tools.echo({a: 1n}))`),
		probe("v8text/probe-tool-input-cycle", `await probe(() => { const o = {}; o.o = o; return tools.echo(o) })`),
		probe("v8text/probe-dynamic-import", `await probe(() => import("nope"))`),
		probe("v8text/probe-store-symbol", `await probe(() => store("k", Symbol()))`),
		probe("v8text/probe-image-number", `await probe(() => image(5))`),
		one("v8text/probe-new-function-syntax", `try { new Function("(") } catch (e) { text(typeof e.stack); text(e.name) }`), // the messages differ (ADR 60: not done)
		one("v8text/probe-regexp-syntax", `try { new RegExp("(") } catch (e) { text(typeof e.stack); text(e.name) }`),         // the messages differ (ADR 60: not done)
		probe("v8text/probe-capture-stack-trace", `await probe(() => { const o = {}; Error.captureStackTrace(o); throw o })`),
		probe("v8text/probe-error-without-message", `await probe(() => { throw new Error() })`),
		probe("v8text/probe-bigint-division", `await probe(() => 1n / 0n)`),
		one("v8text/stack-tool-failure", `try { await tools.fail({}) } catch (e) { text(typeof e.stack); text(String(e)) }`),
		one("v8syntax/await-in-function", `function f() { await 1 }`),
		one("v8syntax/end-of-input", `foo(`),
		one("v8syntax/redeclared", `let x = 1; let x = 2;`),
		one("v8syntax/const-without-initializer", `const x;`),
		one("v8syntax/unexpected-identifier", `a b`),
		one("v8syntax/unexpected-token", `for (let i = 0; i < 3; i++ {}`),
		one("v8syntax/unterminated-string", `"abc`),
		one("v8syntax/reserved-word-name", `const static = 1`),
		one("v8syntax/illegal-break", `break`),
		one("v8syntax/invalid-assignment-target", `1 = 2`),
		one("v8syntax/leading-zero", `a = 08`),
	}
}

func exitCases() []parityCase {
	return []parityCase{
		one("exit/top-level", `text("a"); exit(); text("b")`),
		one("exit/no-output", `exit()`),
		one("exit/with-argument", `text("a"); exit(1); text("b")`),
		one("exit/inside-try-catch", `try { exit() } catch (e) { text("caught " + e) } text("after")`),
		one("exit/inside-finally", `try { text("try") } finally { exit() } text("after")`),
		one("exit/try-finally-skipped", `try { exit() } finally { text("finally") }`),
		one("exit/in-function", `function f() { try { exit() } catch (e) { text("caught") } }; f(); text("after")`),
		one("exit/in-async-function", `async function f() { await null; exit() }; await f(); text("after")`),
		one("exit/in-unawaited-async", `(async () => { await null; text("in async"); exit() })(); await new Promise(r => setTimeout(r, 5)); text("after")`),
		one("exit/in-timer", `setTimeout(() => { text("timer"); exit() }, 0); await new Promise(r => setTimeout(r, 5)); text("after")`),
		one("exit/in-timer-catch", `setTimeout(() => { try { exit() } catch (e) { text("caught") } }, 0); await new Promise(r => setTimeout(r, 5)); text("after")`),
		one("exit/in-then", `Promise.resolve().then(() => { exit() }).catch(() => text("caught")); await null; await null; text("after")`),
		one("exit/in-tool-callback", `await tools.echo({}).then(() => { try { exit() } catch (e) { text("caught") } }); text("after")`),
		one("exit/with-pending-tool-call", `tools.never({}); await null; exit()`),
		one("exit/after-tool-call-in-turn", `tools.echo({v: 1}); exit()`),
		one("exit/in-promise-all", `await Promise.all([tools.echo({}), (async () => { exit() })()]).catch(() => text("caught")); text("after")`),
		one("exit/after-yield", `text("a"); yield_control(); text("b"); exit(); text("c")`),
		one("exit/with-pending-timer", `setTimeout(() => text("timer"), 1000); exit()`),
		one("exit/is-a-function", `text(typeof exit); text(exit.length)`),
		one("exit/in-generator", `function* g() { try { yield 1; exit() } finally { text("finally") } }; for (const x of g()) text(x); text("after")`),
		one("exit/then-store-is-kept", `store("k", 1); exit()`),
	}
}

func timerCases() []parityCase {
	return []parityCase{
		one("timers/order-by-delay", `setTimeout(() => text("b"), 2); setTimeout(() => text("a"), 1); await new Promise(r => setTimeout(r, 10)); text("c")`),
		one("timers/same-delay-in-order", `for (let i = 0; i < 5; i++) setTimeout(() => text(i), 0); await new Promise(r => setTimeout(r, 5))`),
		one("timers/returns-a-number", `const id = setTimeout(() => {}, 0); text(typeof id)`),
		one("timers/clear", `const id = setTimeout(() => text("never"), 0); clearTimeout(id); await new Promise(r => setTimeout(r, 5)); text("done")`),
		one("timers/clear-unknown-id", `clearTimeout(12345); clearTimeout(); clearTimeout(null); text("ok")`),
		one("timers/clear-string-id", `try { clearTimeout("x") } catch (e) { text("caught " + typeof e + " " + e) } text("ok")`),
		one("timers/extra-arguments", `setTimeout((a, b) => text(a + b), 0, "x", "y"); await new Promise(r => setTimeout(r, 5))`),
		one("timers/negative-delay", `setTimeout(() => text("ran"), -5); await new Promise(r => setTimeout(r, 5))`),
		one("timers/string-delay", `setTimeout(() => text("ran"), "1"); await new Promise(r => setTimeout(r, 5))`),
		one("timers/non-function", `try { setTimeout("text(1)", 0) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("timers/no-argument", `try { setTimeout() } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("timers/nested", `setTimeout(() => { text("outer"); setTimeout(() => text("inner"), 0) }, 0); await new Promise(r => setTimeout(r, 10))`),
		one("timers/after-main-ends", `setTimeout(() => text("late"), 0); text("main")`),
		one("timers/microtasks-first", `setTimeout(() => text("timer"), 0); Promise.resolve().then(() => text("micro")); text("sync"); await new Promise(r => setTimeout(r, 5))`),
		one("timers/set-interval-absent", `text(typeof setInterval); text(typeof clearInterval)`),
		one("timers/queue-microtask", `text(typeof queueMicrotask)`),
		one("timers/this-in-callback", `setTimeout(function () { text(this === undefined ? "undefined" : typeof this) }, 0); await new Promise(r => setTimeout(r, 5))`),
		one("timers/ids-increase", `const a = setTimeout(() => {}, 0), b = setTimeout(() => {}, 0); text(b > a)`),
	}
}

func storeCases() []parityCase {
	return []parityCase{
		cells("store/across-cells", `store("k", {a: [1, 2]})`, `text(JSON.stringify(load("k")))`),
		one("store/load-missing", `text(String(load("missing")))`),
		one("store/number", `store("n", 5); text(load("n") + 1)`),
		one("store/string", `store("s", "str"); text(load("s"))`),
		one("store/null", `store("z", null); text(load("z") === null)`),
		one("store/undefined", `try { store("u", undefined); text(String(load("u"))) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("store/function", `try { store("f", () => 1) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("store/symbol", `try { store("y", Symbol("s")) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("store/symbol-key", `try { store(Symbol("k"), 1) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("store/number-key", `try { store(1, "one"); text(String(load(1))) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("store/load-number-key", `store("1", "one"); try { text(String(load(1))) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("store/load-no-key", `try { text(String(load())) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("store/cyclic", `const o = {}; o.o = o; try { store("c", o) } catch (e) { text("caught " + typeof e) }`),
		one("store/bigint", `try { store("b", 1n) } catch (e) { text("caught " + typeof e) }`),
		one("store/date", `store("d", new Date(0)); text(JSON.stringify(load("d")))`),
		one("store/copy-not-reference", `const o = {a: 1}; store("o", o); o.a = 2; text(load("o").a); const l = load("o"); l.a = 3; text(load("o").a)`),
		one("store/overwrite", `store("k", 1); store("k", 2); text(load("k"))`),
		one("store/empty-key", `store("", "empty"); text(load(""))`),
		one("store/nested-undefined-dropped", `store("k", {a: undefined, b: 1}); text(JSON.stringify(load("k")))`),
		one("store/array-with-function", `store("k", [1, () => 2]); text(JSON.stringify(load("k")))`),
		one("store/return-value", `text(typeof store("k", 1))`),
		one("store/throwing-getter", `try { store("k", {get x() { throw "g" }}) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("store/to-json", `store("k", {toJSON() { return "replaced" }}); text(load("k"))`),
		cells("store/after-failed-cell", `store("k", 1); throw "fail"`, `text(String(load("k")))`),
		one("store/uncaught-function", `store("f", () => 1)`),
	}
}

func toolCases() []parityCase {
	return []parityCase{
		one("tools/echo", `const r = await tools.echo({v: 1}); text(JSON.stringify(r))`),
		one("tools/keys", `text(Object.keys(tools).join(","))`),
		one("tools/all-tools", `text(JSON.stringify(ALL_TOOLS))`),
		one("tools/all-tools-shape", `text(Array.isArray(ALL_TOOLS)); text(ALL_TOOLS.length); text(Object.keys(ALL_TOOLS[0]).join(","))`),
		one("tools/no-argument", `const r = await tools.echo(); text(JSON.stringify(r) ?? "undefined")`),
		one("tools/string-argument", `const r = await tools.echo("plain"); text(JSON.stringify(r))`),
		one("tools/number-argument", `const r = await tools.echo(3); text(JSON.stringify(r))`),
		one("tools/null-argument", `const r = await tools.echo(null); text(JSON.stringify(r))`),
		one("tools/array-argument", `const r = await tools.echo([1, 2]); text(JSON.stringify(r))`),
		one("tools/two-arguments", `const r = await tools.echo({a: 1}, {b: 2}); text(JSON.stringify(r))`),
		one("tools/freeform-string", `const r = await tools.patch("*** Begin Patch"); text(JSON.stringify(r))`),
		one("tools/freeform-object", `const r = await tools.patch({x: 1}); text(JSON.stringify(r))`),
		one("tools/namespaced", `const r = await tools.mcp__files__read({path: "a"}); text(JSON.stringify(r))`),
		one("tools/namespaced-by-index", `const r = await tools["mcp__files__read"]({}); text(JSON.stringify(r))`),
		one("tools/failure-caught", `try { await tools.fail({}) } catch (e) { text("caught " + typeof e + " " + (e && e.message !== undefined ? e.message : e)) }`),
		one("tools/failure-uncaught", `await tools.fail({})`),
		one("tools/failure-instance", `try { await tools.fail({}) } catch (e) { text(e instanceof Error); text(String(e)) }`),
		one("tools/promise-all", `const rs = await Promise.all([1, 2, 3, 4, 5].map(i => tools.echo({i}))); text(JSON.stringify(rs))`),
		one("tools/sequential", `for (let i = 0; i < 3; i++) text(JSON.stringify(await tools.echo({i})))`),
		one("tools/large-result", `const r = await tools.size({n: 100000}); text(r.length)`),
		one("tools/unknown-tool", `try { await tools.nope({}) } catch (e) { text(e.name) }`),
		one("tools/typed-valid-input", `const r = await tools.typed({n: 1}); text(JSON.stringify(r))`),
		one("tools/typed-invalid-input", `try { const r = await tools.typed({n: "one", extra: true}); text(JSON.stringify(r)) } catch (e) { text("caught " + e) }`),
		one("tools/typed-missing-input", `try { const r = await tools.typed(); text(JSON.stringify(r) ?? "undefined") } catch (e) { text("caught " + e) }`),
		one("tools/result-null", `const r = await tools.echo(null); text(r === null)`),
		one("tools/result-types", `text(typeof await tools.echo(1)); text(typeof await tools.echo("s")); text(typeof await tools.echo(true)); text(Array.isArray(await tools.echo([])))`),
		one("tools/assign-property", `tools.extra = 1; text(String(tools.extra))`),
		one("tools/replace-tool", `tools.echo = () => "mine"; text(tools.echo())`),
		one("tools/function-name", `text(tools.echo.name); text(typeof tools.echo)`),
		one("tools/function-length", `text(tools.echo.length)`),
		one("tools/function-own-properties", `text(Object.getOwnPropertyNames(tools.echo).join()); text(String(tools.echo.prototype))`),
		one("tools/function-descriptors", `const d = Object.getOwnPropertyDescriptor(tools, "echo"); text([d.writable, d.enumerable, d.configurable].join()); const n = Object.getOwnPropertyDescriptor(tools.echo, "name"); text([n.value === "", n.writable, n.enumerable, n.configurable].join())`),
		one("tools/function-constructs", `try { const r = new tools.echo({v: 1}); text(typeof r); text(JSON.stringify(await r)) } catch (e) { text("caught " + e) }`),
		one("tools/function-source", `text(String(tools.echo)); text(Function.prototype.toString.call(tools.echo))`),
		one("globals/builtin-source", `for (const f of [Math.max, [].map, Math.random, "".repeat, (async () => {}).constructor, (function* () {}).constructor, (async function* () {}).constructor, Function.prototype.toString, Promise, Object.getOwnPropertyDescriptor(Object.prototype, "__proto__").get, class A {}, () => 1, function f(a) { return a }]) text(String(f))`),
		// Codex's host writes these three in JavaScript: both hosts print a source, each its own.
		one("globals/helper-kinds", `for (const f of [content, as_settled, stream_settled]) text(typeof f + " " + String(f).startsWith("function " + f.name + "("))`),
		one("globals/helper-source", `for (const f of [text, setTimeout, clearTimeout, store, load, notify, image, yield_control, exit, eval, Function]) text(String(f))`),
		one("tools/returns-promise", `const p = tools.echo({}); text(p instanceof Promise); await p`),
		one("tools/then-throws", `try { await tools.echo({}).then(() => { throw "in then" }) } catch (e) { text("caught " + e) }`),
		one("tools/call-then-throw", `tools.echo({v: 1}); throw "after call"`),
		{name: "tools/never-then-terminate", cells: []string{`tools.never({}); yield_control(); await new Promise(() => {})`}, terminate: true},
		one("tools/race", `const r = await Promise.race([tools.never({}), tools.echo({won: true})]); text(JSON.stringify(r))`),
		one("tools/unawaited-call", `tools.echo({unawaited: true}); text("main done")`),
		one("tools/proxy-object-enumerable", `text(JSON.stringify(Object.getOwnPropertyDescriptor(tools, "echo") ? Object.keys(Object.getOwnPropertyDescriptor(tools, "echo")) : null))`),
		one("tools/all-tools-is-frozen", `try { ALL_TOOLS.push({}); text(ALL_TOOLS.length) } catch (e) { text("caught " + e.name) }`),
	}
}

func toolArgumentCases() []parityCase {
	return []parityCase{
		one("tool-args/cyclic", `const o = {}; o.o = o; try { await tools.echo(o) } catch (e) { text("caught " + typeof e) }`),
		one("tool-args/bigint", `try { await tools.echo({n: 1n}) } catch (e) { text("caught " + typeof e) }`),
		one("tool-args/throwing-getter", `try { await tools.echo({get x() { throw "getter" }}) } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("tool-args/to-json", `const r = await tools.echo({toJSON() { return {j: 1} }}); text(JSON.stringify(r))`),
		one("tool-args/date", `const r = await tools.echo({d: new Date(0)}); text(JSON.stringify(r))`),
		one("tool-args/undefined-fields", `const r = await tools.echo({a: undefined, b: null}); text(JSON.stringify(r))`),
		one("tool-args/function", `const r = await tools.echo(() => 1); text(JSON.stringify(r) ?? "undefined")`),
		one("tool-args/symbol", `const r = await tools.echo(Symbol("s")); text(JSON.stringify(r) ?? "undefined")`),
		one("tool-args/nan", `const r = await tools.echo({n: NaN, i: Infinity}); text(JSON.stringify(r))`),
		one("tool-args/deep-100", `let v = 0; for (let i = 0; i < 100; i++) v = [v]; const r = await tools.echo(v); text(JSON.stringify(r).length)`),
		one("tool-args/deep-10000", `let v = 0; for (let i = 0; i < 10000; i++) v = [v]; try { await tools.size(v); text("sent") } catch (e) { text("caught " + typeof e + " " + (e && e.name)) }`),
		one("tool-args/lone-surrogate", `const r = await tools.echo({s: "\ud800"}); text(JSON.stringify(r))`),
		one("tool-args/emoji", `const r = await tools.echo({s: "😀"}); text(r.s)`),
		one("tool-args/large-string", `const r = await tools.echo({s: "y".repeat(100000)}); text(r.s.length)`),
		one("tool-args/map-and-set", `const r = await tools.echo({m: new Map([[1, 2]]), s: new Set([1])}); text(JSON.stringify(r))`),
		one("tool-args/typed-array", `const r = await tools.echo(new Uint8Array([1, 2])); text(JSON.stringify(r))`),
		one("tool-args/proxy", `const r = await tools.echo(new Proxy({a: 1}, {})); text(JSON.stringify(r))`),
		one("tool-args/uncaught-cyclic", `const o = {}; o.o = o; await tools.echo(o)`),
		one("tool-args/negative-zero", `const r = await tools.echo({z: -0}); text(JSON.stringify(r)); text(Object.is(r.z, -0))`),
		one("tool-args/big-number", `const r = await tools.echo({n: 12345678901234567890}); text(JSON.stringify(r))`),
		// Long strings of an input are quoted by Go (ADR 62): escapes, wide and astral characters,
		// a long key, a long root string, and the refusals whose columns count them.
		one("tool-args/long-strings-escaped", `const s = "a\"\\\n\t\u0001é€😀\u2028".repeat(1000); const r = await tools.echo({s, t: [s, "short", s + "x"], [s.slice(0, 9000)]: 1}); text(r.s === s && r.t[0] === s && r.t[2] === s + "x" && r[s.slice(0, 9000)] === 1); text(JSON.stringify(r).length)`),
		one("tool-args/long-root-string", `const r = await tools.echo("z".repeat(70000)); text(r.length)`),
		one("tool-args/long-lone-surrogate", `try { await tools.echo({a: "x".repeat(9000), s: "y".repeat(9000) + "\ud800"}); text("sent") } catch (e) { text("caught " + e) }`),
		one("tool-args/long-deep-130", `let v = "x".repeat(9000); for (let i = 0; i < 130; i++) v = [v]; try { await tools.echo(v); text("sent") } catch (e) { text("caught " + e) }`),
	}
}

func settledCases() []parityCase {
	return []parityCase{
		one("as-settled/type", `text(typeof as_settled); text(typeof stream_settled); text(typeof content)`),
		one("as-settled/values", `for await (const r of as_settled([Promise.resolve(1), Promise.reject("no"), 3])) text(JSON.stringify(r))`),
		one("as-settled/tools", `const seen = []; for await (const r of as_settled([tools.echo({a: 1}), tools.fail({}), tools.echo({b: 2})])) seen.push(r.index + ":" + r.status); text(seen.sort().join(","))`),
		one("as-settled/map", `for await (const r of as_settled(new Map([["x", Promise.resolve(1)], ["y", 2]]))) text(JSON.stringify(r))`),
		one("as-settled/empty", `let n = 0; for await (const r of as_settled([])) n++; text(n)`),
		one("as-settled/not-iterable", `try { as_settled(5) } catch (e) { text("caught " + e.name) }`),
		one("as-settled/break-early", `for await (const r of as_settled([1, 2, 3])) { text(r.index); break } text("after")`),
		one("as-settled/order-of-settlement", `const slow = new Promise(r => setTimeout(() => r("slow"), 5)); for await (const r of as_settled([slow, "fast"])) text(r.value)`),
		one("stream-settled/emit", `await stream_settled([1, Promise.reject("r")], (r) => text(r.index + " " + r.status)); text("done")`),
		one("stream-settled/no-callback", `try { await stream_settled([1]) } catch (e) { text("caught " + e.name + ": " + e.message) }`),
		one("stream-settled/async-emit", `await stream_settled([1, 2], async (r) => { await null; text(r.value) }); text("done")`),
		one("stream-settled/emit-throws", `try { await stream_settled([1, 2], () => { throw "emit" }) } catch (e) { text("caught " + e) }`),
		one("stream-settled/returns", `text(String(await stream_settled([], () => {})))`),
	}
}

func truncationCases() []parityCase {
	return []parityCase{
		{name: "truncation/server-one-text", cells: []string{`text("x".repeat(4000) + "END")`}, server: true, budget: "10"},
		{name: "truncation/server-zero-budget", cells: []string{`text("x".repeat(400))`}, server: true, budget: "0"},
		{name: "truncation/server-several-items", cells: []string{`text("a".repeat(300)); text("b".repeat(300)); image("data:image/png;base64,AAAA")`}, server: true, budget: "20"},
		{name: "truncation/server-error-text", cells: []string{`text("a"); throw "e".repeat(400)`}, server: true, budget: "10"},
		{name: "truncation/server-multiline", cells: []string{`text(Array.from({length: 200}, (_, i) => "line " + i).join("\n"))`}, server: true, budget: "30"},
		{name: "truncation/server-unicode", cells: []string{`text("é😀".repeat(500))`}, server: true, budget: "10"},
		{name: "truncation/server-no-budget", cells: []string{`text("x".repeat(5000).length)`}, server: true},
		{name: "truncation/server-within-budget", cells: []string{`text("short")`}, server: true, budget: "100"},
		{name: "truncation/client-keeps-whole", cells: []string{`text("x".repeat(500))`}, budget: "1"},
		{name: "truncation/server-yield-and-wait", cells: []string{`text("y".repeat(400)); yield_control(); text("z".repeat(400))`}, server: true, budget: "5"},
	}
}

func unicodeCases() []parityCase {
	return []parityCase{
		one("unicode/emoji", `text("😀 héllo 日本")`),
		one("unicode/lone-surrogate", `text("a\ud800b")`),
		one("unicode/lone-low-surrogate", `text("\udc00")`),
		one("unicode/length", `text("😀".length); text([..."😀"].length)`),
		one("unicode/line-separators", `text("a\u2028b\u2029c")`),
		one("unicode/nul", `text("a\u0000b".length); text("a\u0000b")`),
		one("unicode/combining", `text("e\u0301".normalize("NFC").length)`),
		one("unicode/notify-emoji", `notify("🔔 ring")`),
		one("unicode/store-emoji", `store("e", "😀"); text(load("e"))`),
		one("unicode/from-char-code", `text(String.fromCharCode(0xD83D, 0xDE00))`),
		one("unicode/code-point-at", `text("😀".codePointAt(0))`),
		one("unicode/to-upper", `text("straße".toUpperCase())`),
		one("unicode/bom", `text("\ufeffbom")`),
		one("unicode/source-identifier", `const café = 1; text(café)`),
	}
}

func importCases() []parityCase {
	return []parityCase{
		one("imports/dynamic-builtin", `try { await import("fs") } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("imports/dynamic-relative", `try { await import("./x.js") } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("imports/dynamic-node-prefix", `try { await import("node:fs") } catch (e) { text("caught " + typeof e + " " + e) }`),
		one("imports/dynamic-uncaught", `await import("fs")`),
		one("imports/static", `import fs from "fs"; text("imported")`),
		one("imports/require", `text(typeof require)`),
		one("imports/import-meta", `try { text(typeof import.meta) } catch (e) { text("caught " + e) }`),
		one("imports/export", `export const x = 1; text("exported")`),
		one("imports/dynamic-data-url", `try { await import("data:text/javascript,export default 1") } catch (e) { text("caught " + typeof e + " " + e) }`),
	}
}

func globalCases() []parityCase {
	check := func(names ...string) string {
		src := ""
		for _, n := range names {
			src += `text("` + n + ` " + typeof globalThis.` + n + `); `
		}
		return src
	}
	return []parityCase{
		one("globals/host-environment", check("process", "require", "module", "Buffer", "console", "window", "self", "global", "Deno", "Bun")),
		one("globals/web-apis", check("fetch", "XMLHttpRequest", "WebSocket", "URL", "URLSearchParams", "TextEncoder", "TextDecoder", "atob", "btoa", "structuredClone", "crypto", "performance", "navigator", "location", "Blob", "AbortController", "EventTarget", "Event")),
		one("globals/engine-specific", check("WebAssembly", "SharedArrayBuffer", "Atomics", "Temporal", "Intl", "Iterator", "Float16Array", "DisposableStack", "AsyncDisposableStack", "SuppressedError", "escape", "unescape")),
		one("globals/helpers", check("text", "notify", "image", "audio", "generatedImage", "content", "store", "load", "yield_control", "exit", "setTimeout", "clearTimeout", "tools", "ALL_TOOLS", "as_settled", "stream_settled")),
		one("globals/internals-hidden", check("__codex_code_mode_exit__", "__codemode", "print", "std", "os", "gc", "scriptArgs", "bjson", "InternalError", "DOMException", "queueMicrotask", "setInterval", "setImmediate")),
		one("globals/helper-descriptors", `const d = Object.getOwnPropertyDescriptor(globalThis, "text"); text(JSON.stringify({w: d.writable, e: d.enumerable, c: d.configurable}))`),
		one("globals/tools-descriptor", `const d = Object.getOwnPropertyDescriptor(globalThis, "tools"); text(JSON.stringify({w: d.writable, e: d.enumerable, c: d.configurable}))`),
		one("globals/helper-names", `text([text, notify, image, store, load, exit, setTimeout, clearTimeout, yield_control].map(f => f.name).join(","))`),
		one("globals/overwrite-helper", `globalThis.text = (v) => notify("hijacked " + v); text("x")`),
		one("globals/delete-helper", `delete globalThis.notify; text(typeof notify)`),
		one("globals/this-at-top-level", `text(String(this))`),
		one("globals/global-this-type", `text(Object.prototype.toString.call(globalThis))`),
		one("globals/math-random-range", `const r = Math.random(); text(r >= 0 && r < 1)`),
		one("globals/date-now", `text(typeof Date.now()); text(Date.now() > 1.7e12)`),
		one("globals/intl-number", `text(typeof Intl === "object" ? new Intl.NumberFormat("en-US").format(1234567.891) : "no Intl")`),
		one("globals/to-locale-string", `text((1234567.891).toLocaleString("en-US"))`),
		one("globals/temporal", `text(typeof Temporal)`),
		one("globals/eval", `text(eval("1 + 1"))`),
		one("globals/function-constructor", `text(new Function("a", "b", "return a * b")(6, 7))`),
		one("globals/strict-mode", `try { undeclared = 1; text("sloppy") } catch (e) { text("strict " + e.name) }`),
		one("globals/module-scope", `var v = 1; text(String(globalThis.v))`),
		one("globals/top-level-await", `const v = await Promise.resolve(5); text(v)`),
	}
}

func yieldCases() []parityCase {
	return []parityCase{
		one("yield/then-result", `text("a"); yield_control(); text("b")`),
		one("yield/twice", `text("a"); yield_control(); text("b"); yield_control(); text("c")`),
		one("yield/no-output-before", `yield_control(); text("after")`),
		one("yield/return-value", `text(typeof yield_control())`),
		one("yield/in-timer", `setTimeout(() => { text("t"); yield_control() }, 0); await new Promise(r => setTimeout(r, 5)); text("end")`),
		one("yield/then-tool-call", `text("a"); yield_control(); const r = await tools.echo({}); text("b")`),
		one("yield/then-throw", `text("a"); yield_control(); throw "after yield"`),
		one("yield/then-exit", `text("a"); yield_control(); exit(); text("never")`),
		{name: "yield/then-terminate", cells: []string{`text("a"); yield_control(); await new Promise(() => {})`}, terminate: true},
		{name: "yield/terminate-after-output", cells: []string{`text("a"); yield_control(); text("b"); await tools.never({})`}, terminate: true},
		cells("yield/wait-missing-cell", `text("x")`, `@wait 99`),
		cells("yield/wait-finished-cell", `text("x")`, `@wait 1`),
		cells("yield/terminate-missing-cell", `@terminate 99`),
		cells("yield/terminate-finished-cell", `text("x")`, `@terminate 1`),
		cells("yield/second-cell-sees-store", `store("a", 1); yield_control(); store("a", 2)`, `text(load("a"))`),
		one("yield/after-notify", `notify("n"); yield_control(); text("after")`),
		one("yield/inside-loop", `for (let i = 0; i < 3; i++) { text(i); yield_control() }`),
	}
}

func languageCases() []parityCase {
	return []parityCase{
		one("language/json-round-trip", `text(JSON.stringify(JSON.parse('{"a":[1,2,{"b":null}]}')))`),
		one("language/json-parse-error", `try { JSON.parse("{bad") } catch (e) { text(e.name) }`),
		one("language/array-methods", `text([3, 1, 2].toSorted().join()); text([1, 2, 3].at(-1)); text([[1], [2]].flat().join())`),
		one("language/object-group-by", `text(JSON.stringify(Object.groupBy([1, 2, 3], x => x % 2 ? "odd" : "even")))`),
		one("language/string-methods", `text("abc".padStart(5, "-")); text(" x ".trim()); text("a-b-c".replaceAll("-", "+")); text("abc".at(-1))`),
		one("language/regexp-named-groups", `text("2024-01-02".match(/(?<y>\d+)-(?<m>\d+)/).groups.y)`),
		one("language/regexp-unicode-sets", `text(/[\p{L}--[a-z]]/v.test("A"))`),
		one("language/generators", `function* g() { yield 1; yield 2 }; text([...g()].join())`),
		one("language/async-iteration", `async function* g() { yield 1; yield 2 }; const out = []; for await (const x of g()) out.push(x); text(out.join())`),
		one("language/classes-private", `class A { #x = 1; get x() { return this.#x } static s = 2 }; text(new A().x + A.s)`),
		one("language/optional-chaining", `const o = {a: {b: null}}; text(String(o?.a?.b?.c)); text(o.z ?? "default")`),
		one("language/destructuring", `const {a, ...rest} = {a: 1, b: 2, c: 3}; text(a + JSON.stringify(rest))`),
		one("language/bigint-math", `text((2n ** 64n).toString()); text(BigInt.asUintN(8, 257n))`),
		one("language/date-utc", `text(new Date(Date.UTC(2020, 0, 2, 3, 4, 5)).toISOString())`),
		one("language/date-parse", `text(Date.parse("2020-01-02T03:04:05Z"))`),
		one("language/math", `text(Math.max(1, 5, 3)); text(Math.hypot(3, 4)); text(Math.round(2.5)); text(Math.sign(-3))`),
		one("language/number-formatting", `text((1234.5678).toFixed(2)); text((255).toString(16)); text((0.000001234).toPrecision(2)); text(Number("0x1f"))`),
		one("language/parse-int-float", `text(parseInt("08")); text(parseFloat("3.14abc")); text(Number(""))`),
		one("language/weak-ref", `text(typeof new WeakRef({}).deref())`),
		one("language/proxy-and-reflect", `const p = new Proxy({}, {get: (_, k) => "got " + String(k)}); text(p.x); text(Reflect.ownKeys({a: 1, [Symbol.iterator]: 2}).length)`),
		one("language/symbols", `text(Symbol.for("x") === Symbol.for("x")); text(Symbol("d").description)`),
		one("language/labels-and-loops", `outer: for (let i = 0; i < 3; i++) { for (let j = 0; j < 3; j++) { if (j === 1) continue outer; if (i === 2) break outer; text(i + "" + j) } }`),
		one("language/typed-arrays", `const a = new Float64Array([1.5, 2.5]); text(a.reduce((x, y) => x + y)); text(new DataView(new ArrayBuffer(4)).getInt32(0))`),
		one("language/array-buffer-transfer", `const b = new ArrayBuffer(8); text(typeof b.transfer)`),
		one("language/set-methods", `text(typeof new Set().union)`),
		one("language/promise-with-resolvers", `const {promise, resolve} = Promise.withResolvers(); resolve(3); text(await promise)`),
		one("language/promise-all-settled", `const rs = await Promise.allSettled([Promise.resolve(1), Promise.reject("no")]); text(JSON.stringify(rs))`),
		one("language/promise-any", `try { await Promise.any([Promise.reject(1)]) } catch (e) { text(e.name) }`),
		one("language/structured-errors", `try { [].reduce((a, b) => a) } catch (e) { text(e.name) }`),
		one("language/getters-setters", `const o = {_v: 1, get v() { return this._v }, set v(x) { this._v = x * 2 }}; o.v = 5; text(o.v)`),
		one("language/tagged-template", `const tag = (s, ...v) => s.raw.join("|") + v.join(","); text(tag`+"`a${1}b${2}c`"+`)`),
		one("language/string-raw", `text(String.raw`+"`a\\nb`"+`)`),
		one("language/array-from-async", `text(typeof Array.fromAsync)`),
		one("language/iterator-helpers", `text(typeof Iterator !== "undefined" && typeof Iterator.prototype.map)`),
		one("language/error-capture-stack-trace", `text(typeof Error.captureStackTrace)`),
		one("language/prepare-stack-trace-assign", `try { Error.prepareStackTrace = (e, s) => "custom"; text("assigned") } catch (e) { text("caught " + e.name) }`),
		one("language/stack-overflow-caught", `function f() { return f() + 1 }; try { f() } catch (e) { text(e.name + ": " + e.message) }`),
		one("language/deep-recursion-ok", `function d(n) { return n === 0 ? 0 : 1 + d(n - 1) }; text(d(1000))`),
		one("language/recursion-depth-10000", `function f(n) { return n ? f(n - 1) + 1 : 0 }; text(f(10000))`),
		one("language/stack-overflow-caught-and-go-on", `function g() { return g() }; try { g() } catch (e) { text(e instanceof RangeError) }; text("after"); function f(n) { return n ? f(n - 1) + 1 : 0 }; text(f(5000))`),
		one("language/large-loop", `let s = 0; for (let i = 0; i < 100000; i++) s += i; text(s)`),
		one("language/sort-stability", `text([{k: 1, v: "a"}, {k: 0, v: "b"}, {k: 1, v: "c"}].sort((x, y) => x.k - y.k).map(x => x.v).join(""))`),
		one("language/locale-compare", `text(["b", "a", "C"].sort((x, y) => x.localeCompare(y)).join())`),
		one("language/date-to-string-type", `text(typeof new Date().toString())`),
		one("language/function-to-string", `function f(a) { return a }; text(f.toString())`),
		one("language/arguments-object", `function f() { return arguments.length }; text(f(1, 2, 3))`),
		one("language/getter-on-global", `Object.defineProperty(globalThis, "g", {get: () => "from getter"}); text(g)`),
		one("language/array-length-limit", `try { new Array(-1) } catch (e) { text(e.name) }`),
		one("language/string-repeat-limit", `try { "x".repeat(2 ** 31) } catch (e) { text(e.name) }`),
	}
}
