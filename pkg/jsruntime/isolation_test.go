package jsruntime_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

func TestImportsFailWithCodexMessages(t *testing.T) {
	cases := map[string]string{
		`import fs from "fs"; text(1)`:              "Unsupported import in exec: fs",
		`import * as os from "qjs:os";`:             "Unsupported import in exec: qjs:os",
		`import "./local.js";`:                      "Unsupported import in exec: ./local.js",
		`import {a as b} from 'x'`:                  "Unsupported import in exec: x",
		`export * from "qjs:std"`:                   "Unsupported import in exec: qjs:std",
		`export { a } from "m"`:                     "Unsupported import in exec: m",
		"await import(\"qjs:os\")":                  "unsupported import in exec",
		"const m = 'qjs:' + 'std'; await import(m)": "unsupported import in exec",
	}
	for src, want := range cases {
		if r := jsruntime.RunCellToEnd(t, src); jsruntime.ErrorTextOf(r) != want {
			t.Errorf("%s: %q, want %q", src, jsruntime.ErrorTextOf(r), want)
		}
	}
	r := jsruntime.RunCellToEnd(t, `try { await import("x") } catch (e) { text(typeof e + ":" + e) }
const s = "import('x')"; // import in a string
// import "commented";
const o = {import: 1}; text(o.import + typeof import.meta);`)
	if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, []string{"string:unsupported import in exec", "1object"}) {
		t.Fatalf("%s %q", jsruntime.ErrorTextOf(r), got)
	}
}

func TestScriptsReachNoFileSystemOrEnvironment(t *testing.T) {
	// A file next to the process and one in its working directory must stay out of reach, even
	// through QuickJS's own modules reached via eval.
	wd, _ := os.Getwd()
	marker := filepath.Join(wd, "jsruntime-escape-marker.txt")
	if err := os.WriteFile(marker, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(marker)
	os.Setenv("CODEMODE_ESCAPE_TEST", "leaked")
	defer os.Unsetenv("CODEMODE_ESCAPE_TEST")
	r := jsruntime.RunCellToEnd(t, `
const std = await eval('import("qjs:std")').catch(() => null);
const os = await eval('import("qjs:os")').catch(() => null);
const found = [];
if (std) {
  for (const p of ["/jsruntime-escape-marker.txt", "jsruntime-escape-marker.txt", "/etc/passwd", "../../etc/passwd", "/proc/self/environ", "`+marker+`"]) {
    try { const s = std.loadFile(p); if (s !== null) found.push(p) } catch (e) {}
    try { const f = std.open(p, "r"); if (f) found.push("open " + p) } catch (e) {}
  }
  try { const f = std.open("/created.txt", "w"); if (f) { f.puts("x"); f.close(); found.push("created") } } catch (e) {}
  if (std.getenv("CODEMODE_ESCAPE_TEST") !== undefined || std.getenv("HOME") !== undefined) found.push("env");
}
if (os) {
  const [names, err] = os.readdir("/");
  if (err === 0) found.push("readdir " + names.join());
  if (typeof os.exec === "function") found.push("exec");
}
text(JSON.stringify(found) + (std === null) + (os === null));
text(typeof Function('return this')().std + typeof globalThis.os + typeof console + typeof print);`)
	want := []string{"[]truetrue", "undefinedundefinedundefinedundefined"}
	if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s %q", jsruntime.ErrorTextOf(r), got)
	}
}

func TestGlobalChangesDoNotLeakBetweenCellsOrSessions(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	pollute := `Object.prototype.polluted = "yes"; Array.prototype.push = () => 0; globalThis.leak = 1; JSON.parse = () => "hijacked"; text = () => {};`
	if r := jsruntime.ExecuteCell(t, s, pollute); r.Kind != codemode.Result || r.ErrorText != nil {
		t.Fatalf("%+v", r)
	}
	check := `text(JSON.stringify([({}).polluted, [].push(1), typeof leak, JSON.parse("1")]))`
	for _, sess := range []codemode.Session{s, jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})} {
		r := jsruntime.ExecuteCell(t, sess, check)
		if got := jsruntime.TextsOf(r.ContentItems); len(got) != 1 || got[0] != `[null,1,"undefined",1]` {
			t.Fatalf("%s %q", jsruntime.ErrorTextOf(r), got)
		}
	}
}

func TestWhileTrueIsTerminatedAndTheSessionStaysUsable(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	// yield_control, not a deadline, answers: a deadline could pass before the script wrote anything.
	c := jsruntime.StartCell(t, s, `text("spin"); yield_control(); while (true) {}`, 30_000)
	if r := jsruntime.InitialResponse(t, c); r.Kind != codemode.Yielded || !reflect.DeepEqual(jsruntime.TextsOf(r.ContentItems), []string{"spin"}) {
		t.Fatalf("%+v", r)
	}
	out, err := s.Terminate(context.Background(), c.CellID)
	if err != nil || out.Response.Kind != codemode.Terminated {
		t.Fatalf("%+v %v", out, err)
	}
	if r := jsruntime.ExecuteCell(t, s, `text("alive")`); !reflect.DeepEqual(jsruntime.TextsOf(r.ContentItems), []string{"alive"}) {
		t.Fatalf("%+v", r)
	}
}

func TestMemoryBombFailsOnlyItsCell(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{MaxHeapSizeBytes: jsruntime.PtrU64(16 << 20)})
	r := jsruntime.ExecuteCell(t, s, `text("start"); const a = []; const s = "x".repeat(1 << 20); while (true) a.push(s + a.length);`)
	if r.Kind != codemode.Result || jsruntime.ErrorTextOf(r) != fmt.Sprintf(jsruntime.OutOfMemoryTextFormat, 16<<20) || jsruntime.TextsOf(r.ContentItems)[0] != "start" {
		t.Fatalf("%s %+v", jsruntime.ErrorTextOf(r), r)
	}
	r = jsruntime.ExecuteCell(t, s, `const b = new ArrayBuffer(64 << 20); text(b.byteLength)`)
	if jsruntime.ErrorTextOf(r) != fmt.Sprintf(jsruntime.OutOfMemoryTextFormat, 16<<20) {
		t.Fatalf("big buffer: %s %v", jsruntime.ErrorTextOf(r), jsruntime.TextsOf(r.ContentItems))
	}
	// Out of memory ends the cell even when the script catches the error: its heap is full.
	r = jsruntime.ExecuteCell(t, s, `const a = []; try { while (true) a.push(new Float64Array(100000)) } catch (e) { text(String(e)) }`)
	if got := jsruntime.TextsOf(r.ContentItems); jsruntime.ErrorTextOf(r) != fmt.Sprintf(jsruntime.OutOfMemoryTextFormat, 16<<20) || len(got) != 0 {
		t.Fatalf("caught OOM: %s %q", jsruntime.ErrorTextOf(r), got)
	}
	if r := jsruntime.ExecuteCell(t, s, `text("alive")`); r.ErrorText != nil || jsruntime.TextsOf(r.ContentItems)[0] != "alive" {
		t.Fatalf("%+v", r)
	}
}

// Unbounded recursion throws V8's catchable RangeError (the module's stack guard,
// generators/qjswasm): caught, the cell goes on; uncaught, it fails the cell with V8's text and
// frames. Deep nesting in QuickJS's C code (JSON.parse) still ends the cell with the same text.
func TestDeepRecursionFailsOnlyItsCell(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	r := jsruntime.ExecuteCell(t, s, `function g() { return g() } try { g() } catch (e) { text("caught " + e) } text("after");`)
	if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, []string{"caught " + jsruntime.StackOverflowText, "after"}) {
		t.Fatalf("caught recursion: %s %q", jsruntime.ErrorTextOf(r), got)
	}
	for _, src := range []string{
		`function f(n) { return n === 0 ? 0 : 1 + f(n - 1) } text("before"); text(f(100000));`,
		`JSON.parse("[".repeat(1e6) + "]".repeat(1e6))`,
	} {
		r := jsruntime.ExecuteCell(t, s, src)
		if r.Kind != codemode.Result || !strings.HasPrefix(jsruntime.ErrorTextOf(r), jsruntime.StackOverflowText) {
			t.Errorf("%s: %s %v", src, jsruntime.ErrorTextOf(r), jsruntime.TextsOf(r.ContentItems))
		}
		if r := jsruntime.ExecuteCell(t, s, `text("alive")`); r.ErrorText != nil || jsruntime.TextsOf(r.ContentItems)[0] != "alive" {
			t.Fatalf("after %s: %+v", src, r)
		}
	}
}

func TestGeneratedCodeCannotImport(t *testing.T) {
	attempts := []string{
		`eval('import("qjs:os")')`,
		`eval('{}\n/"/; import("qjs:os")')`,
		`eval('x = {} / (y = import /* c */ ("qjs:os")) / 1, y')`,
		`Function('return import("qjs:std")')()`,
		`new Function('a = import("qjs:os")', 'return a')()`,
		`(async () => {}).constructor('return await import("qjs:os")')()`,
		`Object.getPrototypeOf(function* () {}).constructor('yield import("qjs:os")')().next().value`,
		`(() => {}).constructor.call(null, 'return import("qjs:os")')()`,
		`Reflect.construct(Function, ['return import("qjs:bjson")'])()`,
	}
	for _, a := range attempts {
		r := jsruntime.RunCellToEnd(t, `try { await (`+a+`); text("imported") } catch (e) { text(String(e)) }`)
		if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || len(got) != 1 || got[0] != "unsupported import in exec" {
			t.Errorf("%s: %s %q", a, jsruntime.ErrorTextOf(r), got)
		}
	}
}

func TestCodeConstructorsStillWork(t *testing.T) {
	r := jsruntime.RunCellToEnd(t, `
const add = new Function("a", "b", "return a + b");
const asyncTwice = Object.getPrototypeOf(async function () {}).constructor("x", "return await x * 2");
const gen = Object.getPrototypeOf(function* () {}).constructor("yield 1; yield 2");
text(JSON.stringify([
  add(1, 2), await asyncTwice(21), [...gen()], eval("1 + 1"), eval(5),
  (function () {}).constructor === Function, add instanceof Function, typeof Function.prototype.call,
  Function("return this")() === globalThis,
]));`)
	if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || got[0] != `[3,42,[1,2],2,5,true,true,"function",true]` {
		t.Fatalf("%s %q", jsruntime.ErrorTextOf(r), got)
	}
}

// Without any configured limit a cell still has jsruntime.DefaultHeapLimitBytes: asking for more fails that
// cell alone instead of growing the host by gigabytes.
func TestDefaultHeapCapAppliesWithoutLimits(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	r := jsruntime.ExecuteCell(t, s, `const b = new ArrayBuffer(600 * 1024 * 1024); text(b.byteLength)`)
	if jsruntime.ErrorTextOf(r) != fmt.Sprintf(jsruntime.OutOfMemoryTextFormat, jsruntime.DefaultHeapLimitBytes) {
		t.Fatalf("600 MiB buffer under the default cap: %s %v", jsruntime.ErrorTextOf(r), jsruntime.TextsOf(r.ContentItems))
	}
	r = jsruntime.ExecuteCell(t, s, `const b = new ArrayBuffer(64 * 1024 * 1024); text(b.byteLength)`)
	if r.ErrorText != nil || jsruntime.TextsOf(r.ContentItems)[0] != "67108864" {
		t.Fatalf("64 MiB buffer under the default cap: %s %v", jsruntime.ErrorTextOf(r), jsruntime.TextsOf(r.ContentItems))
	}
}
