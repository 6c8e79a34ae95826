package jsruntime_test

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// What a cell can reach: standard ECMAScript and Codex's helpers, nothing of QuickJS's libc
// (std, os, bjson and the globals qjs adds for them), nothing of qjs's Go bridge, no original
// function constructor and no prelude-internal function. And the layer below the import ban:
// what QuickJS's os module would do if a cell ever reached it.

// realmWalk walks everything reachable from the global object and from an instance of every
// intrinsic kind (whose prototypes are not all reachable by name): own properties of every key
// type, getters and setters (never called) and prototypes. It reports every forbidden property
// name, every function named like a function constructor that is not one of the four safe ones,
// and every function with a prelude-internal name.
const realmWalk = `
const F = Function, AF = (async () => {}).constructor, GF = (function* () {}).constructor, AGF = (async function* () {}).constructor;
const safe = new Set([F, AF, GF, AGF]);
const constructorNames = new Set(["Function", "AsyncFunction", "GeneratorFunction", "AsyncGeneratorFunction"]);
const forbidden = new Set(["std", "os", "bjson", "print", "console", "scriptArgs", "gc", "navigator", "performance",
  "QJS_PROXY_VALUE", "__fnID", "__ctxID", "setInterval", "clearInterval", "queueMicrotask", "SharedArrayBuffer",
  "Atomics", "WebAssembly", "InternalError", "DOMException", "Worker", "evalScript", "loadScript", "loadFile",
  "sleep", "sleepAsync", "getenv", "readdir", "open", "popen", "system"]);
const preludeNames = new Set(["safeEval", "wrapper", "QJS_FunctionProxy", "send", "begin", "deliver", "describe",
  "fire", "setup", "emitText", "emitImage", "captureSettlers", "makeTool", "toText", "errorText", "schemeOf",
  "checkImageURL", "normalizeDetail", "mcpDataURL", "isObject", "next32", "rotl", "uncurry", "host", "proxy", "q", "list"]);
const roots = [
  [globalThis, "globalThis"], [(function* () {})(), "generator"], [(async function* () {})(), "async generator"],
  [(async () => {})(), "promise"], [[].values(), "array iterator"], [new Map().entries(), "map iterator"],
  [new Set().values(), "set iterator"], ["".matchAll(/x/g), "regexp string iterator"], [""[Symbol.iterator](), "string iterator"],
  [[].values().map((x) => x), "iterator helper"], [Iterator.from({ next() { return { done: true } } }), "wrapped iterator"],
  [import.meta, "import.meta"], [Function("return arguments")(), "sloppy arguments"], [new Error("e"), "error"],
  [new AggregateError([]), "aggregate error"], [new WeakRef({}), "weak ref"], [new FinalizationRegistry(() => {}), "registry"],
  [new DataView(new ArrayBuffer(1)), "data view"], [new Uint8Array(1), "typed array"], [/x/, "regexp"], [new Date(0), "date"],
  [Object(Symbol("s")), "symbol object"], [Object(1n), "bigint object"], [async function () {}, "async function"],
  [class {}, "class"], [() => {}, "arrow"], [Math.max.bind(null), "bound function"], [new Proxy({}, {}), "proxy"],
  [tools.echo(1), "tool promise"], [Promise.withResolvers(), "with resolvers"], [new WeakMap(), "weak map"], [new WeakSet(), "weak set"],
];
const seen = new Set();
const queue = [];
const findings = [];
const visit = (v, path) => {
  if ((typeof v === "object" && v !== null || typeof v === "function") && !seen.has(v)) {
    seen.add(v);
    queue.push([v, path]);
  }
};
for (const [v, path] of roots) visit(v, path);
for (let i = 0; i < queue.length; i++) {
  const [o, path] = queue[i];
  if (typeof o === "function") {
    const name = Object.getOwnPropertyDescriptor(o, "name")?.value;
    if (constructorNames.has(name) && !safe.has(o)) findings.push("an original " + name + " at " + path);
    if (preludeNames.has(name)) findings.push("a prelude function " + name + " at " + path);
  }
  visit(Object.getPrototypeOf(o), path + ".[[Prototype]]");
  for (const k of Reflect.ownKeys(o)) {
    const key = typeof k === "symbol" ? k.toString() : k;
    if (forbidden.has(key)) findings.push("the name " + key + " at " + path);
    const d = Reflect.getOwnPropertyDescriptor(o, k);
    if (d === undefined) continue;
    visit(d.value, path + "." + key);
    visit(d.get, path + ".get " + key);
    visit(d.set, path + ".set " + key);
  }
}
text(JSON.stringify(findings));
text(String(seen.size >= 500));
`

// Nothing of QuickJS's libc, of qjs or of the prelude's internals is reachable, by any path.
func TestAttackRealmHoldsOnlyECMAScriptAndTheHelpers(t *testing.T) {
	s := jsruntime.NewTestSession(t, jsruntime.NewRecorder(jsruntime.EchoTool), codemode.SessionCellExecutionLimits{})
	jsruntime.ExpectTexts(t, s, realmWalk, []string{"[]", "true"}, jsruntime.TestTool("echo"))
}

// The helpers keep Codex's names: no function a cell can reach carries a prelude-internal one.
func TestAttackGlobalFunctionsKeepTheirNames(t *testing.T) {
	s := jsruntime.NewTestSession(t, jsruntime.NewRecorder(jsruntime.EchoTool), codemode.SessionCellExecutionLimits{})
	jsruntime.ExpectTexts(t, s, `
const names = ["eval", "text", "image", "audio", "generatedImage", "notify", "store", "load", "setTimeout", "clearTimeout",
  "yield_control", "exit", "Function"].map((n) => n + ":" + globalThis[n].name + "/" + globalThis[n].length);
text(names.join(" "));
text([Math.random.name, tools.echo.name, (async () => {}).constructor.name].join(" "));`, []string{
		// Codex's helpers are native functions without a name or declared parameters; eval,
		// Function and Math.random keep the engine's.
		"eval:eval/1 text:/0 image:/0 audio:/0 generatedImage:/0 notify:/0 store:/0 " +
			"load:/0 setTimeout:/0 clearTimeout:/0 yield_control:/0 exit:/0 Function:Function/1",
		"random  AsyncFunction",
	}, jsruntime.TestTool("echo"))
}

// The clock and the random generator work: Date.now is the host's wall clock and moves with
// time, and Math.random is seeded per cell.
func TestAttackClockAndRandomWork(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	before := time.Now().UnixMilli()
	items, errText := jsruntime.RunEveryOutput(t, s, `
const t0 = Date.now();
await new Promise((resolve) => setTimeout(resolve, 20));
const t1 = Date.now();
const draws = Array.from({ length: 1000 }, () => Math.random());
text(String(t0));
text(String(t1 - t0 >= 19 && new Date().getTime() >= t1));
text(String(draws.every((x) => typeof x === "number" && x >= 0 && x < 1) && new Set(draws).size >= 990));
text(String(draws[0]));`)
	after := time.Now().UnixMilli()
	got := jsruntime.TextsOf(items)
	if errText != "<nil>" || len(got) != 4 || got[1] != "true" || got[2] != "true" {
		t.Fatalf("%s %q", errText, got)
	}
	if t0, err := strconv.ParseInt(got[0], 10, 64); err != nil || t0 < before || t0 > after {
		t.Errorf("Date.now() = %s, not within [%d, %d]", got[0], before, after)
	}
	items, _ = jsruntime.RunEveryOutput(t, s, `text(String(Math.random()))`)
	if again := jsruntime.TextsOf(items); len(again) != 1 || again[0] == got[3] {
		t.Errorf("two cells drew the same first random number: %q %q", got[3], again)
	}
}

// A cell cannot name QuickJS's modules in any way that loads them: every road of the import suite
// with each module name, plus a specifier built at run time, ends in Codex's rejection; and the
// globals qjs's own startup defines for them are gone.
func TestAttackNoRoadLeadsToQuickJSModules(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	var b strings.Builder
	b.WriteString("const got = [];\n")
	for _, spec := range append(jsruntime.ImportSpecifiers, "qjs:os\u0000", "./qjs:os", "/qjs:os", "QJS:OS", "qjs:os.json") {
		b.WriteString("try { await import(" + jsruntime.JSONText(t, spec) + "); got.push(\"loaded\") } catch (e) { got.push(String(e)) }\n")
	}
	b.WriteString(`try { await import(["q", "j", "s", ":", "o", "s"].join("")); got.push("loaded") } catch (e) { got.push(String(e)) }
text(JSON.stringify(got));
text(JSON.stringify(["std", "os", "bjson", "setTimeout", "setInterval"].map((n) => n + ":" + Function("return typeof " + n)())));`)
	items, errText := jsruntime.RunEveryOutput(t, s, b.String())
	var want []string
	for range append(jsruntime.ImportSpecifiers, "qjs:os\u0000", "./qjs:os", "/qjs:os", "QJS:OS", "qjs:os.json", "qjs:os") {
		want = append(want, "unsupported import in exec")
	}
	if got := jsruntime.TextsOf(items); errText != "<nil>" || !reflect.DeepEqual(got, []string{jsruntime.JSONText(t, want),
		`["std:undefined","os:undefined","bjson:undefined","setTimeout:function","setInterval:undefined"]`}) {
		t.Errorf("%s %q", errText, got)
	}
}
