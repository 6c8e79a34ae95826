// Package jsruntime is the in-process Code Mode runtime: a codemode.SessionProvider whose cells run
// JavaScript on QuickJS (github.com/fastschema/qjs, QuickJS-ng compiled to wasm and run by wazero,
// so pure Go, no cgo).
//
// Each cell gets a fresh runtime from a warm pool; a runtime is never reused after its cell, so no
// global or prototype change leaks between cells or sessions. One goroutine owns each runtime and
// makes every qjs call of it. That goroutine drives the cell's event loop from Go: the module
// exec_main.mjs is registered with qjs's Load and started by the prelude's begin, which imports
// it, so no qjs call busy-waits on a promise. Each turn of the loop (begin, a batch of tool
// results, or a due timer) is one entry point call, one run of the pending jobs and one take of
// the tool calls and timers JavaScript queued: 9 Go→wasm crossings, each about 3 µs because qjs
// looks up the exported function on every call (see crossing.go). The cell completes when the
// module's evaluation promise settles.
//
// The global object holds standard ECMAScript plus Codex's 13 globals (tools, ALL_TOOLS, text,
// image, audio, generatedImage, store, load, notify, setTimeout, clearTimeout, yield_control,
// exit), with Codex's argument rules and error strings. Imports fail with Codex's message: static
// ones before the cell runs, dynamic ones as rejected promises. Code built at run time (eval and
// the Function constructors) has its import() calls rewritten too, so QuickJS's own std/os modules
// stay out of reach; as a consequence eval is always indirect (global scope). Should a script
// reach those modules anyway, it finds no file system, no environment and no output stream.
//
// Beyond Codex:
//   - a tool call whose input does not match the tool's input_schema is rejected in JavaScript
//     with the validation errors and never reaches the delegate;
//   - MaxHeapSizeBytes is enforced on the runtime's wasm linear memory (see memory.go);
//   - tool results deeper than MaxToolResultDepth or larger than Options.MaxToolResultBytes are
//     rejected before JavaScript parses them;
//   - QuickJS's native stack is 64 KiB (recursion of about 275 frames): deeper recursion or nesting
//     corrupts the runtime. The runtime is then discarded and only its cell fails, with
//     stackOverflowText. (qjs does not expose its embedded wasm, so the binary cannot be patched
//     for a larger stack through its public API.)
//
// Interrupting a script (terminate, shutdown, abandon) cancels its runtime's context; with
// CloseOnContextDone wazero then closes the module, the running call panics, and the panic is
// contained to the cell. A cost of that setting is that tight loops run several times slower.
// NewProvider checks that interruption works (it does not when other code of the process created
// the first qjs runtime without CloseOnContextDone). A terminate that cannot finish cleaning up
// within terminateGrace (a delegate ignoring cancellation) is reported and closed anyway.
//
// qjs v0.0.6 needs github.com/tetratelabs/wazero v1.9.x: v1.12.0 rejects its host import
// ("signature mismatch"), and NewProvider then fails saying so.
package jsruntime
