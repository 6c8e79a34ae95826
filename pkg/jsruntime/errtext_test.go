package jsruntime

import (
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/jsruntime/internal/jssource"
)

// rewriteError on the frames QuickJS gives for these cells (the positions are QuickJS's; each
// error's constructor is the one its name says) writes what Codex 0.171's host reports for them (the parity cases v8text/* run them against it).
func TestRewriteError(t *testing.T) {
	for _, c := range []struct {
		code, name, message string
		frames              []errorFrame
		want                string
	}{
		{`tools.read_fle({})`, "TypeError", "not a function",
			[]errorFrame{{file: "exec_main.mjs", line: 1, col: 6}},
			"TypeError: tools.read_fle is not a function\n    at exec_main.mjs:1:7"},
		{`const o = {}; o.a.b`, "TypeError", "cannot read property 'b' of undefined",
			[]errorFrame{{file: "exec_main.mjs", line: 1, col: 14}},
			"TypeError: Cannot read properties of undefined (reading 'b')\n    at exec_main.mjs:1:19"},
		{`JSON.stringify(1n)`, "TypeError", "BigInt are forbidden in JSON.stringify",
			[]errorFrame{{fn: "stringify", line: -1, col: -1, native: true}, {file: "exec_main.mjs", line: 1, col: 5}},
			"TypeError: Do not know how to serialize a BigInt\n    at JSON.stringify (<anonymous>)\n    at exec_main.mjs:1:6"},
		{`new Array(-1)`, "RangeError", "invalid array length",
			[]errorFrame{{fn: "Array", line: -1, col: -1, native: true}, {file: "exec_main.mjs", line: 1, col: 4}},
			"RangeError: Invalid array length\n    at exec_main.mjs:1:1"},
		{`class A { m() { throw new Error("m") } }; new A().m()`, "Error", "m",
			[]errorFrame{{fn: "m", file: "exec_main.mjs", line: 1, col: 26}, {file: "exec_main.mjs", line: 1, col: 50}},
			"Error: m\n    at A.m (exec_main.mjs:1:23)\n    at exec_main.mjs:1:51"},
		{`const o = {}; for (const x of o) {}`, "TypeError", "value is not iterable",
			[]errorFrame{{file: "exec_main.mjs", line: 1, col: 1}},
			"TypeError: o is not iterable\n    at exec_main.mjs:1:31"},
		{`class A {}; A()`, "TypeError", "class constructors must be invoked with 'new'",
			[]errorFrame{{fn: "A", file: "exec_main.mjs", line: 1, col: 1}, {file: "exec_main.mjs", line: 1, col: 12}},
			"TypeError: Class constructor A cannot be invoked without 'new'\n    at exec_main.mjs:1:13"},
		{"break", "SyntaxError", "break must be inside loop or switch",
			[]errorFrame{{file: "exec_main.mjs", line: 2, col: 1}},
			"SyntaxError: Illegal break statement"},
		// QuickJS's JSON.parse adds a frame for the text it parsed; V8 has none.
		{`JSON.parse("{'a': 1}")`, "SyntaxError", "Expected property name or '}' in JSON at position 1 (line 1 column 2)",
			[]errorFrame{{file: "<input>", line: 1, col: 1}, {fn: "parse", line: -1, col: -1, native: true}, {file: "exec_main.mjs", line: 1, col: 5}},
			"SyntaxError: Expected property name or '}' in JSON at position 1 (line 1 column 2)\n    at JSON.parse (<anonymous>)\n    at exec_main.mjs:1:6"},
		// QuickJS reports an error the script made at the last call of its arguments; V8 at the new.
		{`const x = {a: 1}; throw new Error("failed: " + JSON.stringify(x))`, "Error", "failed: {\"a\":1}",
			[]errorFrame{{file: "exec_main.mjs", line: 1, col: 62}},
			"Error: failed: {\"a\":1}\n    at exec_main.mjs:1:25"},
		// A message of the script's own that no rule knows stays, with V8's frames.
		{`throw new TypeError("mine")`, "TypeError", "mine",
			[]errorFrame{{file: "exec_main.mjs", line: 1, col: 10}},
			"TypeError: mine\n    at exec_main.mjs:1:7"},
		// A script's own error keeps its message, however much it reads like QuickJS's, with or
		// without new, and when Reflect.construct made it (whose frame V8 does not show).
		{`try { throw new TypeError("not a function") } catch (e) {}`, "TypeError", "not a function",
			[]errorFrame{{file: "exec_main.mjs", line: 1, col: 16}},
			"TypeError: not a function\n    at exec_main.mjs:1:13"},
		{`const e = TypeError("circular reference")`, "TypeError", "circular reference",
			[]errorFrame{{file: "exec_main.mjs", line: 1, col: 10}},
			"TypeError: circular reference\n    at exec_main.mjs:1:11"},
		{`const e = Reflect.construct(TypeError, ["empty array"])`, "TypeError", "empty array",
			[]errorFrame{{fn: "construct", line: -1, col: -1, native: true}, {file: "exec_main.mjs", line: 1, col: 28}},
			"TypeError: empty array\n    at exec_main.mjs:1:19"},
		{`const e = new TypeError("cannot read property 'b' of undefined")`, "TypeError", "cannot read property 'b' of undefined",
			[]errorFrame{{file: "exec_main.mjs", line: 1, col: 14}},
			"TypeError: cannot read property 'b' of undefined\n    at exec_main.mjs:1:11"},
		// No frame tells the engine's error from the script's (Error.stackTraceLimit = 0).
		{`throw new TypeError("circular reference")`, "TypeError", "circular reference", nil,
			"TypeError: circular reference"},
		// Promise.any's AggregateError, which QuickJS makes without a message.
		{`await Promise.any([])`, "AggregateError", "",
			[]errorFrame{{file: "exec_main.mjs", line: 1, col: 20}},
			"AggregateError: All promises were rejected"},
		// Frames of eval code keep QuickJS's positions.
		{`eval("x")`, "ReferenceError", "x is not defined",
			[]errorFrame{{fn: "<eval>", file: "<input>", line: 1, col: 1}, {file: "exec_main.mjs", line: 1, col: 1, called: true}},
			"ReferenceError: x is not defined\n    at <eval> (<input>:1:1)\n    at exec_main.mjs:1:1"},
	} {
		p, err := jssource.Module(c.code)
		if err != nil {
			t.Fatal(err)
		}
		msg, frames := rewriteError(jssource.NewSites(p.Code), c.name, c.message, c.name, c.frames)
		got := c.name + ": " + msg
		if frames != "" {
			got += "\n" + frames
		}
		if got != c.want {
			t.Errorf("%s:\ngot  %q\nwant %q", c.code, got, c.want)
		}
	}
}

// A stack message the prelude would never send is refused; a long one is cut at maxErrorFrames.
func TestDecodeStack(t *testing.T) {
	for _, bad := range []string{``, `{}`, `["a"]`, `[1, "m", ""]`, `["a", "m"]`, `["a", "m", "", "f"]`, `["a","m","","f","x",1,1,"",2]`} {
		if _, _, _, _, ok := decodeStack(bad); ok {
			t.Errorf("%s accepted", bad)
		}
	}
	payload := `["Error","m","Error"` + strings.Repeat(`,"f","exec_main.mjs",1,1,"c"`, 1000) + `]`
	if _, _, _, frames, ok := decodeStack(payload); !ok || len(frames) != maxErrorFrames {
		t.Errorf("1000 frames: %d, %v", len(frames), ok)
	}
	// Positions outside the code are printed as QuickJS gave them.
	msg, text := rewriteError(jssource.NewSites("x"), "TypeError", "not a function", "TypeError", []errorFrame{{file: "exec_main.mjs", line: 99, col: -5}})
	if msg != "not a function" || text != "    at exec_main.mjs:99:-5" {
		t.Errorf("got %q %q", msg, text)
	}
}
