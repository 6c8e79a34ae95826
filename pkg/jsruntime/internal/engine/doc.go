// Package engine is jsruntime's VM: QuickJS runtimes (github.com/fastschema/qjs, QuickJS-ng in
// wasm run by wazero) prepared with a prelude, reset to a memory image after every cell, and kept
// warm in a Pool. It knows nothing of cells, sessions or what the bridge's messages mean: a
// runtime's user (jsruntime's cell layer) attaches a Host that answers each bridge message, runs
// turns with Begin and Deliver, and gives the runtime back with Put.
//
// An Engine is one runtime (engine.go) that one goroutine at a time owns. It calls the wasm exports
// itself, resolved once from the module qjs hands to its proxy function (wasm.go). Its linear
// memory (memory.go) is one mapped reservation where the platform allows, grown in place up to the
// heap limit a cell attached with; Put restores it to the image taken when the first runtime was
// prepared (snapshot.go), byte for byte, and keeps the runtime unless its cell interrupted it or
// grew its memory too far (pool.go). InterruptOn (interrupt.go) stops a running script from another
// goroutine when a context ends: the module polls for it at its loop headers (generators/qjswasm),
// and the poll unwinds the wasm call stack.
package engine
