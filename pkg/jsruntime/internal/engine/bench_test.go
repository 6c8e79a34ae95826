package engine

import "testing"

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
