package jsruntime_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// The attack suite's second half: a cell that tampers with everything the prelude might use, that
// hooks the stack-trace machinery, that tries to make the prelude send what Go refuses, and that
// searches its realm for anything of QuickJS's or qjs's beyond standard ECMAScript. See
// attack_imports_test.go for the import ban.

// spyHarness is JavaScript that a tampering cell starts with. spy.method(obj, key, label)
// replaces a method by one that notes each call made while the spy is armed and forwards it;
// spy.accessor(obj, key, label) puts a noting getter and setter in place of a property. A note
// names the operation, its receiver and its arguments, each by type, functions by name, so a
// prelude function or the bridge reaching cell code would show up in the log by name. The
// harness captures what it uses before any override, and never consults an overridable property
// itself while armed.
const spyHarness = `
const spy = (() => {
  const apply = Reflect.apply, construct = Reflect.construct, getDesc = Object.getOwnPropertyDescriptor, define = Object.defineProperty;
  const objectToString = Object.prototype.toString;
  let log = "", armed = false;
  const show = (v) => {
    switch (typeof v) {
      case "function": return "function " + v.name;
      case "object": {
        if (v === null) return "null";
        const tag = getDesc(v, "tag");
        return apply(objectToString, v, []) + (tag !== undefined && typeof tag.value === "string" ? " " + tag.value : "");
      }
      case "string": return '"' + v + '"';
      case "symbol": return "symbol";
      default: return typeof v + " " + v;
    }
  };
  const note = (what, self, args) => {
    if (!armed) return;
    armed = false;
    let s = what + " this=" + show(self);
    for (let i = 0; i < args.length; i++) s += " " + show(args[i]);
    log += s + ";";
    armed = true;
  };
  return {
    method(obj, key, label) {
      const d = getDesc(obj, key), orig = d.value;
      const f = function (...args) {
        note(label, this, args);
        return new.target ? construct(orig, args, new.target === f ? orig : new.target) : apply(orig, this, args);
      };
      define(obj, key, { value: f, writable: true, configurable: true, enumerable: d.enumerable });
    },
    accessor(obj, key, label) {
      const d = getDesc(obj, key);
      define(obj, key, {
        get() { note("get " + label, this, []); return d === undefined ? undefined : d.get ? apply(d.get, this, []) : d.value },
        set(v) { note("set " + label, this, [v]) },
        configurable: true, enumerable: false,
      });
    },
    // noteCall notes a call of a hook the cell defines itself.
    noteCall(label, self, args) { note(label, self, args) },
    arm() { armed = true },
    log() { armed = false; return log },
  };
})();
const OriginalPromise = Promise;
`

// helperTour uses every helper while the spies are armed, then reports (with the spies still in
// place) what the helpers returned and what the spies saw, and exits.
const helperTour = `
spy.arm();
text("t");
image("data:image/png;base64,AA", "low");
audio("data:audio/wav;base64,AA");
generatedImage({ image_url: "data:image/png;base64,AB", output_hint: "hint" });
notify("note");
store("k", { tag: "stored", a: [1, "x"] });
const loaded = load("k");
const random = Math.random();
const fired = await new OriginalPromise((resolve) => {
  setTimeout(() => resolve("fired"), 1);
  clearTimeout(setTimeout(() => text("a cleared timer fired"), 0));
});
const echoed = await tools.echo({ tag: "input", b: 2 });
yield_control();
const seen = spy.log();
text(JSON.stringify([loaded, fired, echoed, random >= 0 && random < 1]));
text(seen);
exit();
text("after exit");
`

// tourItems is what helperTour outputs before its yield_control.
var tourItems = []codemode.ContentItem{
	codemode.InputText{Text: "t"},
	codemode.InputImage{ImageURL: "data:image/png;base64,AA", Detail: "low"},
	codemode.InputAudio{AudioURL: "data:audio/wav;base64,AA"},
	codemode.InputImage{ImageURL: "data:image/png;base64,AB", Detail: "high"},
	codemode.InputText{Text: "hint"},
}

// tourReport is the first text helperTour outputs after its yield_control.
const tourReport = `[{"tag":"stored","a":[1,"x"]},"fired",{"tag":"input","b":2},true]`

// indexSpies puts noting accessors on indices 0 to 7 of obj.
func indexSpies(obj string) string {
	var b strings.Builder
	for i := range 8 {
		b.WriteString("spy.accessor(" + obj + `, "` + string(rune('0'+i)) + `", "` + obj + "[" + string(rune('0'+i)) + `]");`)
	}
	return b.String()
}

// toJSONSeen is what a toJSON on Object.prototype sees of helperTour: JSON.stringify, as
// ECMAScript specifies it, calls it for the stored object, its array and the tool's input.
const toJSONSeen = `toJSON this=[object Object] stored "";toJSON this=[object Array] "a";toJSON this=[object Object] input "";`

// stringifyStackSeen is what indexed accessors on Array.prototype, or on Object.prototype, see of
// helperTour. QuickJS's JSON.stringify keeps the values it is serializing on a stack that is an
// ordinary array (ECMAScript's is an internal list), whose pushes and reads fall through to the
// prototype's accessors: they see that array and the cell's own values (the stored object and its
// array, then the tool's input), whether the cell or a helper called JSON.stringify.
func stringifyStackSeen(proto string) string {
	return "set " + proto + "[0] this=[object Array] [object Object] stored;get " + proto + "[0] this=[object Array];" +
		"set " + proto + "[1] this=[object Array] [object Array];get " + proto + "[1] this=[object Array];" +
		"get " + proto + "[0] this=[object Array];set " + proto + "[0] this=[object Array] [object Object] input;" +
		"get " + proto + "[0] this=[object Array];"
}

// moduleThenSeen is what a Promise[Symbol.species] getter sees of helperTour: when the cell's
// module first suspends on an await, QuickJS chains its evaluation with the promise "then", which
// asks the intrinsic Promise for its species twice (ECMAScript's PerformPromiseThen would not).
const moduleThenSeen = "get Promise[Symbol.species] this=function Promise;get Promise[Symbol.species] this=function Promise;"

// allAtOnceSeen interleaves the above as they happen with every override in place (the accessors on
// Array.prototype shadow those on Object.prototype).
const allAtOnceSeen = `toJSON this=[object Object] stored "";set Array.prototype[0] this=[object Array] [object Object] stored;` +
	`toJSON this=[object Array] "a";get Array.prototype[0] this=[object Array];` +
	`set Array.prototype[1] this=[object Array] [object Array];get Array.prototype[1] this=[object Array];` +
	`get Array.prototype[0] this=[object Array];` + moduleThenSeen +
	`toJSON this=[object Object] input "";set Array.prototype[0] this=[object Array] [object Object] input;` +
	`get Array.prototype[0] this=[object Array];get then this=[object Object] input;`

// tamperings are what a cell overrides before using the helpers, each with what the spies must
// see: nothing, except where ECMAScript itself calls into the cell's objects (toJSON while a value
// is serialized, then while a tool promise is resolved with an object), and then only the cell's
// own values.
var tamperings = []struct{ name, install, seen string }{
	{"Function.prototype.call", `spy.method(Function.prototype, "call", "call")`, ""},
	{"Function.prototype.apply", `spy.method(Function.prototype, "apply", "apply")`, ""},
	{"Function.prototype.bind", `spy.method(Function.prototype, "bind", "bind")`, ""},
	{"Function.prototype.toString", `spy.method(Function.prototype, "toString", "toString")`, ""},
	{"Reflect.apply and Reflect.construct", `spy.method(Reflect, "apply", "Reflect.apply"); spy.method(Reflect, "construct", "Reflect.construct")`, ""},
	{"Array.prototype.push", `spy.method(Array.prototype, "push", "push")`, ""},
	{"Array.prototype.join", `spy.method(Array.prototype, "join", "join")`, ""},
	{"Array.prototype.map and indexOf", `spy.method(Array.prototype, "map", "map"); spy.method(Array.prototype, "indexOf", "indexOf")`, ""},
	{"indexed accessors on Array.prototype", indexSpies("Array.prototype"), stringifyStackSeen("Array.prototype")},
	{"indexed accessors on Object.prototype", indexSpies("Object.prototype"), stringifyStackSeen("Object.prototype")},
	{"Array.prototype[Symbol.iterator]", `spy.method(Array.prototype, Symbol.iterator, "Array.prototype[Symbol.iterator]")`, ""},
	{"Symbol.species of Array, Promise and Map", `spy.accessor(Array, Symbol.species, "Array[Symbol.species]"); spy.accessor(Promise, Symbol.species, "Promise[Symbol.species]"); spy.accessor(Map, Symbol.species, "Map[Symbol.species]")`, moduleThenSeen},
	{"JSON.stringify", `spy.method(JSON, "stringify", "JSON.stringify")`, ""},
	{"JSON.parse", `spy.method(JSON, "parse", "JSON.parse")`, ""},
	{"Promise.prototype.then", `spy.method(Promise.prototype, "then", "then")`, ""},
	{"Map.prototype.get, set and delete", `spy.method(Map.prototype, "get", "Map get"); spy.method(Map.prototype, "set", "Map set"); spy.method(Map.prototype, "delete", "Map delete")`, ""},
	{"String.prototype.trim, toLowerCase, startsWith and slice", `for (const m of ["trim", "toLowerCase", "startsWith", "slice"]) spy.method(String.prototype, m, m)`, ""},
	{"RegExp.prototype.exec, Symbol.replace and the flags", `spy.method(RegExp.prototype, "exec", "exec"); spy.method(RegExp.prototype, Symbol.replace, "RegExp.prototype[Symbol.replace]"); for (const f of ["flags", "global", "sticky", "unicode"]) spy.accessor(RegExp.prototype, f, f)`, ""},
	{"Object.prototype.toJSON", `Object.prototype.toJSON = function toJSON(key) { spy.noteCall("toJSON", this, [key]); return this }`, toJSONSeen},
	{"Math.imul", `spy.method(Math, "imul", "Math.imul")`, ""},
	{"Object.defineProperty, setPrototypeOf and getPrototypeOf", `for (const m of ["defineProperty", "setPrototypeOf", "getPrototypeOf"]) spy.method(Object, m, "Object." + m)`, ""},
	{"Number and String conversions", `spy.method(Number.prototype, "toString", "Number toString"); spy.method(Number.prototype, "valueOf", "Number valueOf"); spy.method(String.prototype, "toString", "String toString"); spy.method(String.prototype, "valueOf", "String valueOf"); spy.accessor(String.prototype, Symbol.toPrimitive, "String[Symbol.toPrimitive]")`, ""},
	{"the Promise global", `spy.method(Promise, "reject", "Promise.reject"); spy.method(Promise, "resolve", "Promise.resolve"); spy.method(globalThis, "Promise", "Promise")`, ""},
	{"the String, Number and Error globals", `for (const g of ["String", "Number", "Error"]) spy.method(globalThis, g, g)`, ""},
	{"a then getter on Object.prototype", `spy.accessor(Object.prototype, "then", "then")`, "get then this=[object Object] input;"},
}

// Every helper behaves exactly as specified however the cell tampered with the intrinsics, and
// no override is called by the prelude: the spies see only what ECMAScript itself hands to cell
// code.
func TestAttackTamperingWithIntrinsicsBeforeEachHelper(t *testing.T) {
	all := ""
	for _, c := range tamperings {
		all += c.install + ";\n"
	}
	cases := append(tamperings[:len(tamperings):len(tamperings)], struct{ name, install, seen string }{
		"everything at once", all, allAtOnceSeen,
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := jsruntime.NewRecorder(jsruntime.EchoTool)
			s := jsruntime.NewTestSession(t, d, codemode.SessionCellExecutionLimits{})
			src := spyHarness + c.install + ";\n" + helperTour
			r := jsruntime.FirstResponse(t, s, src, jsruntime.TestTool("echo"))
			if r.Kind != codemode.Yielded || !reflect.DeepEqual(r.ContentItems, tourItems) {
				t.Fatalf("before yield_control: %v %s %#v", r.Kind, jsruntime.ErrorTextOf(r), r.ContentItems)
			}
			out, err := s.Wait(context.Background(), codemode.WaitRequest{CellID: r.CellID, YieldTimeMs: 30_000})
			if err != nil {
				t.Fatal(err)
			}
			r = jsruntime.FollowCell(t, s, out.Response)
			if got, want := jsruntime.TextsOf(r.ContentItems), []string{tourReport, c.seen}; r.Kind != codemode.Result || r.ErrorText != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%v %s\ngot  %q\nwant %q", r.Kind, jsruntime.ErrorTextOf(r), got, want)
			}
			calls, notes, _ := d.Snapshot()
			if len(calls) != 1 || calls[0].RuntimeToolCallID != "tool-1" || string(calls[0].Input) != `{"tag":"input","b":2}` {
				t.Errorf("tool calls %+v", calls)
			}
			if !reflect.DeepEqual(notes, []string{"call-1/1:note"}) {
				t.Errorf("notifications %q", notes)
			}
		})
	}
}

// V8's stack-trace API, which QuickJS-ng implements, hands CallSite objects, and with them the
// functions on the stack, to Error.prepareStackTrace: CallSite.getFunction() once gave a cell the
// prelude's deliver, with which it forged a tool result. The prelude replaces QuickJS's accessor,
// so the hook QuickJS would call is never set: a script may assign the property (as scripts
// written for V8 do) and read it back, but no hook ever runs, whatever sets it and whatever error
// a helper throws or passes through; the property cannot be redefined.
func TestAttackPrepareStackTraceNeverRuns(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	jsruntime.ExpectFailure(t, s, `
const hook = (e, frames) => { text("a prepareStackTrace hook ran"); return frames };
const got = [];
const attempt = (f) => { try { got.push(String(f())) } catch (e) { got.push(String(e)) } };
attempt(() => { Error.prepareStackTrace = hook });
attempt(() => Object.defineProperty(Error, "prepareStackTrace", { value: hook }));
attempt(() => Reflect.set(Error, "prepareStackTrace", hook));
attempt(() => Reflect.defineProperty(Error, "prepareStackTrace", { get: () => hook }));
attempt(() => delete Error.prepareStackTrace);
attempt(() => Function("hook", "Error.prepareStackTrace = hook; return typeof Error.prepareStackTrace")(hook));
attempt(() => { class E extends Error {} E.prepareStackTrace = hook });
attempt(() => { class E extends Error {} Object.defineProperty(E, "prepareStackTrace", { value: hook }); return typeof new E("x").stack });
attempt(() => { Object.setPrototypeOf(Error, { prepareStackTrace: hook }); return typeof new Error("x").stack });
attempt(() => image({ get image_url() { throw new Error("from a getter") } }));
attempt(() => text({ toJSON() { throw new RangeError("from toJSON") } }));
attempt(() => store("k", { toJSON() { throw new Error("from store") } }));
attempt(() => notify({ toJSON() { throw new TypeError("from notify") } }));
attempt(() => setTimeout(() => {}, { valueOf() { throw new Error("from a delay") } }));
attempt(() => typeof Error.captureStackTrace({}));
attempt(() => String(Error.prepareStackTrace));
text(JSON.stringify(got));
throw new SyntaxError("last");`, "SyntaxError: last\n    at exec_main.mjs:22:7", []string{`[` +
		`"undefined","TypeError: property is not configurable","true","false",` +
		`"TypeError: could not delete property","function","undefined","string","string",` +
		`"Error: from a getter",` +
		`"RangeError: from toJSON\n    at Object.toJSON (exec_main.mjs:15:39)\n    at exec_main.mjs:15:15\n    at attempt (exec_main.mjs:4:48)\n    at exec_main.mjs:15:1",` +
		`"Error: from store\n    at Object.toJSON (exec_main.mjs:16:45)\n    at exec_main.mjs:16:15\n    at attempt (exec_main.mjs:4:48)\n    at exec_main.mjs:16:1",` +
		`"TypeError: from notify\n    at Object.toJSON (exec_main.mjs:17:41)\n    at exec_main.mjs:17:15\n    at attempt (exec_main.mjs:4:48)\n    at exec_main.mjs:17:1",` +
		`"Error: from a delay","undefined","(e, frames) => { text(\"a prepareStackTrace hook ran\"); return frames }"]`})
}

// Errors thrown while a helper runs carry a stack that is text only: no property of theirs holds
// a function, and Error.captureStackTrace, even told to start above a helper, defines a string.
func TestAttackErrorsFromInsideHelpersHoldOnlyText(t *testing.T) {
	s := jsruntime.NewTestSession(t, jsruntime.NewRecorder(jsruntime.EchoTool), codemode.SessionCellExecutionLimits{})
	jsruntime.ExpectTexts(t, s, `
const describe = (o) => Reflect.ownKeys(o).map((k) => String(k) + ":" + typeof Object.getOwnPropertyDescriptor(o, k).value).join(",");
const frames = (stack) => stack.split("\n").length - 1 + (stack.includes("codemode_prelude.js") ? " with a prelude frame" : "");
const errors = [];
const keep = (f) => { try { f() } catch (e) { errors.push(e) } };
keep(() => image({ get image_url() { throw new Error("getter") } }));
keep(() => audio({ get audio_url() { throw new TypeError("audio getter") } }));
keep(() => generatedImage({ image_url: "data:x", get output_hint() { throw new Error("hint") } }));
keep(() => text({ toJSON() { throw new RangeError("toJSON") } }));
keep(() => store({ toString() { throw new Error("key") } }, 1));
keep(() => tools.echo({ toJSON() { throw new Error("input") } }));
keep(() => load({ toString() { throw new URIError("load key") } }));
keep(() => { const cyclic = {}; cyclic.self = cyclic; text(cyclic) });
const shown = (e) => typeof e === "string"
  ? "string " + e.split("\n")[0] + (e.includes("codemode_prelude.js") ? " with a prelude frame" : "")
  : String(e) + " {" + describe(e) + "}" + (e.stack.includes("codemode_prelude.js") ? " with a prelude frame" : "");
text(errors.map(shown).join("\n"));
const captured = [];
const capture = (helper) => ({ get image_url() { const o = {}; Error.captureStackTrace(o, helper); captured.push(describe(o) + " " + frames(o.stack)); return "data:x" } });
image(capture(image));
image(capture(text));
generatedImage(capture(generatedImage));
const p = new Proxy({}, { defineProperty(t, k, d) { captured.push("define " + String(k) + " " + JSON.stringify(Object.keys(d)) + " " + typeof d.value); return Reflect.defineProperty(t, k, d) } });
generatedImage({ get image_url() { Error.captureStackTrace(p); return "data:x" } });
text(captured.join("\n"));
`, []string{
		// What a getter of an argument throws passes through as it was thrown; what serializing
		// or converting a value throws becomes a string (Codex 0.169), its prelude frames dropped.
		"Error: getter {message:string,stack:string}\n" +
			"TypeError: audio getter {message:string,stack:string}\n" +
			"Error: hint {message:string,stack:string}\n" +
			"string RangeError: toJSON\n" +
			"string Error: key\n" +
			"string Error: input\n" +
			"string URIError: load key\n" +
			"string TypeError: Converting circular structure to JSON",
		// image and generatedImage read image_url twice (is it there, then its value): two
		// captures per call.
		"stack:string 1\nstack:string 1\n" +
			"stack:string 2\nstack:string 2\n" +
			"stack:string 1\nstack:string 1\n" +
			`define stack ["value","writable","enumerable","configurable"] string` + "\n" +
			`define stack ["value","writable","enumerable","configurable"] string`,
	}, jsruntime.TestTool("echo"))
}

// Error.stackTraceLimit is the cell's to set. QuickJS reads it whenever an error is made, also
// while a helper runs (JSON.stringify's TypeError for a cyclic value, inside text()): a valueOf
// there is called on the cell's own object with no arguments, and errors still carry text stacks.
func TestAttackStackTraceLimit(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	jsruntime.ExpectFailure(t, s, `
const got = [];
for (const limit of [0, -1, NaN, Infinity, "x", 2 ** 53]) {
  Error.stackTraceLimit = limit;
  try { image({ get image_url() { throw new Error("e") } }) } catch (e) { got.push(e.stack.split("\n").length - 1) }
}
const seen = [];
const limit = { valueOf(...args) { seen.push("valueOf " + (this === limit) + " " + args.length); return 1 } };
Error.stackTraceLimit = limit;
seen.push("set");
const cyclic = {};
cyclic.self = cyclic;
try { text(cyclic) } catch (e) { seen.push(typeof e + " " + e.split("\n")[0] + " " + (e.split("\n").length - 1)) }
text(got.join(","));
text(JSON.stringify(seen));
Error.stackTraceLimit = 0;
throw new Error("no frames");`, "Error: no frames", []string{
		"0,0,0,2,0,2", `["set","valueOf true 0","valueOf true 0","valueOf true 0","string TypeError: Converting circular structure to JSON 3"]`,
	})
}

// Sloppy functions (made by Function) that the prelude calls learn nothing of their caller:
// Function.prototype.caller and .arguments are undefined for timer callbacks, getters, toJSON,
// valueOf and toString hooks, a then getter hit while a tool promise is resolved, and
// Symbol.hasInstance and the stack getter that the uncaught-error path consults.
func TestAttackCallerAndArgumentsOfSloppyFunctionsCalledByThePrelude(t *testing.T) {
	s := jsruntime.NewTestSession(t, jsruntime.NewRecorder(jsruntime.EchoTool), codemode.SessionCellExecutionLimits{})
	probe := `const probe = Function("log", "name", "result", "return function () { const f = arguments.callee; let c, a;" +
  " try { c = f.caller; c = c === null ? 'null' : typeof c } catch (e) { c = String(e) }" +
  " try { a = f.arguments; a = a === null ? 'null' : typeof a } catch (e) { a = String(e) }" +
  " log.push(name + ':' + c + '/' + a); return result }");
const log = [];
`
	jsruntime.ExpectTexts(t, s, probe+`
const url = "data:image/png;base64,AA";
await new Promise((resolve) => { setTimeout(probe(log, "timer"), 0); setTimeout(resolve, 1) });
image(Object.defineProperty({}, "image_url", { get: probe(log, "image getter", url) }));
image({ type: "image", get data() { return probe(log, "mcp getter", "AA")() } });
audio(Object.defineProperty({}, "audio_url", { get: probe(log, "audio getter", url) }));
generatedImage({ image_url: url, get output_hint() { return probe(log, "hint getter", "h")() } });
text({ toJSON: probe(log, "text toJSON", 1) });
notify({ toJSON: probe(log, "notify toJSON", "n") });
store({ toString: probe(log, "store key toString", "k") }, { toJSON: probe(log, "store value toJSON", 2) });
load({ toString: probe(log, "load key toString", "k") });
clearTimeout({ valueOf: probe(log, "clearTimeout valueOf", 99) });
setTimeout(() => {}, { valueOf: probe(log, "delay valueOf", 1) });
await tools.echo({ toJSON: probe(log, "tool input toJSON", { v: 1 }) });
Object.defineProperty(Object.prototype, "then", { get: probe(log, "then getter", undefined), configurable: true });
await tools.echo({ v: 2 });
delete Object.prototype.then;
text(log.join(","));`, []string{
		// image and audio read their URL property twice (is it there, then its value).
		"h", "1", log12("timer", "image getter", "image getter", "mcp getter", "audio getter", "audio getter", "hint getter", "text toJSON", "notify toJSON",
			"store key toString", "store value toJSON", "load key toString", "clearTimeout valueOf", "delay valueOf",
			"tool input toJSON", "then getter"),
	}, jsruntime.TestTool("echo"))
	jsruntime.ExpectFailure(t, s, probe+`
const e = new Error("thrown");
Object.defineProperty(e, "stack", { get: probe(log, "stack getter", e.stack) });
const instance = probe(log, "hasInstance", true);
Object.defineProperty(Error, Symbol.hasInstance, { value() { instance(); text(log.join(",")); return true } });
throw e;`, "Error: thrown\n    at exec_main.mjs:7:11",
		// The uncaught-error path reads the stack twice (is it a string, then its value).
		[]string{"stack getter:undefined/undefined,stack getter:undefined/undefined,hasInstance:undefined/undefined"})
}

// log12 is the log TestAttackCallerAndArgumentsOfSloppyFunctionsCalledByThePrelude expects: each
// hook saw neither its caller nor an arguments object.
func log12(names ...string) string {
	for i, n := range names {
		names[i] = n + ":undefined/undefined"
	}
	return strings.Join(names, ",")
}

// The cell's module is the prelude's to import, and import() resolves with the module's namespace:
// a namespace that exports a function named then is a thenable, and resolving the promise that
// completes the cell called that function with the promise's resolving functions. The cell then
// decided its own outcome after its code had run (rejecting with any value, or never completing),
// while a cell completes when its module's evaluation settles (docs/protocol/javascript.md#completion),
// whatever it exports.
func TestAttackExportedThenDoesNotDecideTheOutcome(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	for _, c := range []struct{ src, errText string }{
		{`text("start"); export function then(resolve, reject) { text("then was called"); reject("the cell decided") }`, "<nil>"},
		{`text("start"); export function then() { text("then was called") }`, "<nil>"},
		{`text("start"); function f(resolve) { text("then was called"); resolve() } export { f as then }; await null; throw "thrown"`, "thrown"},
		{`text("start"); export let then = 1; then = (resolve, reject) => { text("then was called"); reject("late") }`, "<nil>"},
		{`text("start"); export function then(resolve) { text("then was called"); resolve() } exit(); text("after exit")`, "<nil>"},
		{`text("start"); export default function then(resolve) { text("then was called") }`, "<nil>"},
		{`text("start", "export"); function then(resolve) { text("then was called") }`, "<nil>"},
	} {
		yield := uint64(5_000)
		started, err := s.Execute(context.Background(), codemode.ExecuteRequest{ToolCallID: "call-1", Source: c.src, YieldTimeMs: &yield})
		if err != nil {
			t.Fatal(err)
		}
		r, err := started.InitialResponse(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		// The 5 s yield can pass first on a loaded machine: the cell is followed to its result.
		r = jsruntime.FollowCell(t, s, r)
		if got := jsruntime.TextsOf(r.ContentItems); r.Kind != codemode.Result || jsruntime.ErrorTextOf(r) != c.errText || !reflect.DeepEqual(got, []string{"start"}) {
			t.Errorf("%s: %v %q %q", c.src, r.Kind, jsruntime.ErrorTextOf(r), got)
		}
	}
	// The keyword cannot hide behind an escape, nor the name behind a string: both are refused.
	for src, errText := range map[string]string{
		`text("start"); \u0065xport function then(resolve) { text("then was called") }`:          "SyntaxError: Unexpected token 'function'",
		`text("start"); function f(r) { text("then was called") }; export { f as "th\u0065n" };`: "SyntaxError: identifier expected\n    at exec_main.mjs:1:24",
	} {
		jsruntime.ExpectFailure(t, s, src, errText, []string{})
	}
}
