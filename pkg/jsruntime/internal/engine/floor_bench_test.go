package engine_test

import (
	"context"
	"io"
	"testing"

	"github.com/fastschema/qjs"
)

// BenchmarkPlainQJS is the floor under the compute rows of the comparison with Codex's host
// (tools/bench-codex.sh, docs/benchmarks.md): the same scripts as its Loop1e6 and JSON20kObjects
// rows, run by the pinned github.com/fastschema/qjs module as it ships (its own qjs.wasm on
// wazero), with no codemode code: no prelude, no derived module, no interrupt polling, no cell.
// What codemode's rows cost above these is codemode's; what these cost above V8 is QuickJS-in-wasm's.
func BenchmarkPlainQJS(b *testing.B) {
	for _, w := range []struct{ name, src, want string }{
		{"Loop1e6", `let s = 0; for (let i = 0; i < 1e6; i++) s += i; String(s)`, "499999500000"},
		{"JSON20kObjects", `const a = Array.from({length: 20000}, (_, i) => ({id: i, name: "item" + i, tags: ["a", "b"], nested: {ok: true}}));
String(JSON.parse(JSON.stringify(a)).length)`, "20000"},
	} {
		b.Run(w.name, func(b *testing.B) {
			rt, err := qjs.New(qjs.Option{Context: context.Background(), CWD: "/nonexistent-floor-dir", Stdout: io.Discard, Stderr: io.Discard})
			if err != nil {
				b.Fatal(err)
			}
			defer rt.Close()
			c := rt.Context()
			// Each iteration a function scope of its own, as each cell is a module of its own.
			src := "(() => {" + w.src[:len(w.src)-len(lastLine(w.src))] + "return " + lastLine(w.src) + "})()"
			for b.Loop() {
				v, err := c.Eval("floor.js", qjs.Code(src))
				if err != nil {
					b.Fatal(err)
				}
				if got := v.String(); got != w.want {
					b.Fatalf("%s: got %q", w.name, got)
				}
				v.Free()
			}
		})
	}
}

// lastLine is the text after the last newline or semicolon-space of src: its result expression.
func lastLine(src string) string {
	for i := len(src) - 1; i > 0; i-- {
		if src[i] == '\n' || (src[i] == ' ' && src[i-1] == ';') {
			return src[i+1:]
		}
	}
	return src
}
