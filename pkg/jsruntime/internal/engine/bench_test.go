package engine

import (
	"context"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/fastschema/qjs"
)

// BenchmarkWasmCrossing is the floor of every call into the runtime: one Go→wasm call that does
// nothing (free(NULL)) through an export resolved once.
func BenchmarkWasmCrossing(b *testing.B) {
	e := newTestEngine(b)
	for b.Loop() {
		if _, err := e.w.call(exFree, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQJSCrossing is the same crossing through qjs's own Call, which looks the export up by
// name every time: what the engine avoids.
func BenchmarkQJSCrossing(b *testing.B) {
	e := newTestEngine(b)
	c := e.rt.Context()
	for b.Loop() {
		c.Call("free", 0)
	}
}

// BenchmarkEngineTurn is one event-loop turn without user code: deliver a result nobody awaits,
// run the (empty) job loop, take nothing.
func BenchmarkEngineTurn(b *testing.B) {
	e := newTestEngine(b)
	for b.Loop() {
		if _, err := e.turn(e.entry.deliver, "[[1,1,null]]", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEngineRunJobs is the job loop alone: one QJS_Eval of the precompiled job script.
func BenchmarkEngineRunJobs(b *testing.B) {
	e := newTestEngine(b)
	for b.Loop() {
		if _, err := e.evalWith(e.jobsOpts); err != nil {
			b.Fatal(err)
		}
	}
}

// computeScripts are the compute rows of the benchmarks against Codex's host (a tight loop, a JSON
// round trip of 20,000 objects) as global scripts.
var computeScripts = map[string]string{
	"loop": `(function () { let s = 0; for (let i = 0; i < 1e6; i++) s += i; return s })()`,
	"json": `(function () { const a = Array.from({length: 20000}, (_, i) => ({id: i, name: "item" + i, tags: ["a", "b"], nested: {ok: true}}));
return JSON.parse(JSON.stringify(a)).length })()`,
}

// BenchmarkComputeFloor runs the compute scripts alternately on codemode's module and on the plain
// qjs.wasm of the qjs module (through qjs's own Eval, with no codemode code): the floor codemode's
// polls and stack guard add to (docs/adr/0061-the-module-guards-its-stack.md). Each op runs the
// script once on each; it reports the process's CPU time per run of each (GC included), which
// stays meaningful when other jobs stretch the wall time, and their ratio. Creating the plain
// runtime makes qjs compile its module again, once.
func BenchmarkComputeFloor(b *testing.B) {
	for _, name := range []string{"loop", "json"} {
		src := computeScripts[name]
		b.Run(name, func(b *testing.B) {
			e := newTestEngine(b)
			plain, err := qjs.New(qjs.Option{CWD: b.TempDir(), Stdout: io.Discard, Stderr: io.Discard})
			if err != nil {
				b.Fatal(err)
			}
			defer plain.Close()
			var ours, theirs time.Duration
			for b.Loop() {
				cpu := processCPU(b)
				if _, err := e.evalSource("compute.js", src); err != nil {
					b.Fatal(err)
				}
				mid := processCPU(b)
				v, err := plain.Eval("compute.js", qjs.Code(src))
				if err != nil {
					b.Fatal(err)
				}
				v.Free()
				ours, theirs = ours+mid-cpu, theirs+processCPU(b)-mid
			}
			b.ReportMetric(float64(ours.Microseconds())/1e3/float64(b.N), "codemode-cpu-ms/op")
			b.ReportMetric(float64(theirs.Microseconds())/1e3/float64(b.N), "plain-cpu-ms/op")
			b.ReportMetric(float64(ours)/float64(theirs), "codemode/plain")
		})
	}
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// toolCallPrimitives are the JavaScript operations one awaited tool call needs whatever the host
// does around them: the input's JSON, the promise the call returns, and the answer's JSON.
var toolCallPrimitives = []struct{ name, stmt string }{
	{"EmptyLoopTurn", `s += i`},
	{"StringifyInput", `s += JSON.stringify({i}).length`},
	{"NewPromise", `new Promise(cap)`},
	{"ParseAnswer", `s += JSON.parse('{"i":' + i + '}').i`},
}

// BenchmarkToolCallPrimitives is the floor under the runtime's share of an awaited tool call
// (docs/adr/0074-the-round-trip-and-the-seen-memory-size.md): each primitive of toolCallPrimitives
// 10,000 times in one script, on the pinned qjs module as it ships ("plain", as BenchmarkPlainQJS
// runs it) and on codemode's engine ("engine"), reported per operation.
func BenchmarkToolCallPrimitives(b *testing.B) {
	const n = 10000
	script := func(stmt string) string {
		return fmt.Sprintf("(() => { let s = 0; const cap = () => {}; for (let i = 0; i < %d; i++) { %s } return String(s) })()", n, stmt)
	}
	perOperation := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/operation")
	}
	for _, p := range toolCallPrimitives {
		src := script(p.stmt)
		b.Run("plain/"+p.name, func(b *testing.B) {
			rt, err := qjs.New(qjs.Option{Context: context.Background(), CWD: "/nonexistent-floor-dir", Stdout: io.Discard, Stderr: io.Discard})
			if err != nil {
				b.Fatal(err)
			}
			defer rt.Close()
			for b.Loop() {
				v, err := rt.Context().Eval("floor.js", qjs.Code(src))
				if err != nil {
					b.Fatal(err)
				}
				v.Free()
			}
			perOperation(b)
		})
		b.Run("engine/"+p.name, func(b *testing.B) {
			e := newTestEngine(b)
			for b.Loop() {
				v, err := e.evalSource("floor.js", src)
				if err != nil {
					b.Fatal(err)
				}
				e.free(v)
			}
			perOperation(b)
		})
	}
}
