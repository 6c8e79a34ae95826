// Package jsruntime is the in-process Code Mode runtime: a codemode.SessionProvider whose cells run
// JavaScript on QuickJS (github.com/fastschema/qjs: QuickJS-ng compiled to wasm and run by wazero,
// so pure Go, no cgo).
//
// # Layers
//
// The package is two layers with one seam. The VM (internal/engine: engine, wasm, memory, snapshot,
// pool, values, scripts, turn) runs QuickJS and knows nothing of cells; the cell layer (session.go,
// celllife.go, cellfx.go, cell.go, output.go, idle.go, loop.go, toolcalls.go, timers.go,
// notifier.go, store.go, and bridge.go, which decodes what the prelude sends) reaches it only
// through the vm interface of vm.go, and the VM calls back only through engine.Host with the raw
// bridge message. The package boundary keeps the cell layer off the engine's fields, and the
// layering test keeps QuickJS and wazero out of the cell layer and cells out of the VM. The provider composes both. The source transform (internal/jssource)
// is the third part: what QuickJS runs is what it printed.
//
// # Engines
//
// An engine is one QuickJS runtime, created with qjs.New from codemode's derived module
// (gen/go/qjswasm: qjs's own qjs.wasm with an 8 MiB stack, an exported stack pointer and a proxy
// factory cell code cannot intercept) and prepared with the prelude (prelude.js). One goroutine at
// a time owns an engine and makes every call into it. The engine calls the wasm exports itself,
// resolved once from the module qjs hands to its proxy function, which makes a crossing cost well
// under a microsecond.
//
// After its cell an engine is reset to the memory image taken when it was prepared and serves the
// next cell: everything QuickJS knows lives in the module's linear memory and its stack pointer,
// and both are restored exactly. Only an engine whose cell interrupted it, or whose memory grew
// too far, is replaced. The linear memory is one mapped reservation where the platform allows: it
// grows in place up to the cell's heap limit, exactly, and a reset gives untouched pages back to
// the system.
//
// # Cells
//
// A cell's event loop (loop.go) is driven from Go: each turn calls a prelude entry point (begin,
// deliver), runs QuickJS's pending jobs and takes what JavaScript queued (tool calls, timers) in one
// string. Tool calls run on goroutines, at most maxConcurrentToolCalls at once per cell
// (toolcalls.go); timers live in a heap in Go (timers.go); notifications are delivered in order on
// their own goroutine (notifier.go); stored values are snapshotted at start and committed on
// completion (store.go). The session (session.go) owns observation: yields, waits, termination
// and the ordering rules a client relies on (docs/protocol/javascript.md#observers). Their rules
// are one state machine per cell, plain data (cellLifecycle, celllife.go;
// docs/adr/0065-the-cell-lifecycle-is-a-state-machine.md): every change of a cell's life is an
// event, and the session carries out the effects the lifecycle returns (cellfx.go), keeping the I/O
// and the scheduling.
//
// JavaScript reaches Go through one bridge function (bridge.go): an operation character and a JSON
// payload. The threat model is that the cell controls everything inside its wasm instance, the
// prelude included, so every message is decoded strictly and checked in Go; a forged one fails the
// cell.
//
// The global object holds standard ECMAScript plus Codex 0.169's 16 globals (tools, ALL_TOOLS,
// clearTimeout, setTimeout, text, content, image, audio, generatedImage, store, load, notify,
// yield_control, exit, as_settled, stream_settled), with Codex's argument rules and error strings
// (helpers throw strings), and exit() is uncatchable. Imports fail with Codex's messages. Tool
// inputs are forwarded as the script wrote them; their input_schema is the tool owner's to check.
// The engine's errors read as V8's (errtext.go, docs/adr/0060-v8-error-texts-and-stack-frames.md):
// V8's messages ("tools.x is not a function"), V8's stack frames and columns, e.stack starting
// with "Name: message", and V8's SyntaxError texts for a cell that does not compile.
// A cell's events reach the delegate in the order the script caused them: its tool calls and
// notifications are started on the cell's goroutine, in the script's order (codemode.Delegate,
// docs/adr/0066-one-delegate-contract.md), and its responses follow codemode.Observer.
//
// Beyond Codex:
//   - MaxHeapSizeBytes is enforced on the linear memory; a cell that runs out fails with an
//     out-of-memory error even if it catches the exception;
//   - unobserved output, undelivered notifications, stored values, pending timers and pending
//     tool calls are bounded
//     (Options);
//   - a live cell nobody has observed for Options.UnobservedCellTimeout (30 minutes by default)
//     is terminated and closed, once, and a later Wait finds no cell (idle.go);
//   - tool results deeper than MaxToolResultDepth or larger than Options.MaxToolResultBytes are
//     rejected before JavaScript parses them;
//   - each cell's peak heap (its runtime's linear memory as the module sees it) goes to the
//     delegate's CellUsage, just before CellClosed, and a live cell's, as of its last turn, to
//     codemode.CellUsageProbe; Provider.PoolStats counts the cells that found a runtime ready and
//     those that had to create one;
//   - recursion stops at wazero's call-depth limit (about 10,800 plain JavaScript frames): the cell
//     fails with a RangeError text (QuickJS cannot raise a catchable one in this build) and its
//     engine is reset.
//
// Interrupting a script (terminate, shutdown, abandon, out of memory) raises its engine's stop flag;
// codemode's QuickJS module polls for it every few thousand loop turns (generators/qjswasm), in
// the interpreter and in C loops alike (JSON, regular expressions), and the poll unwinds the wasm
// call stack. The engine is then reset and reused, like after any other cell. The polls are also
// what lets Go's garbage collector stop a spinning script's goroutine. NewProvider checks that
// interruption works.
//
// # Glossary
//
//   - engine: one QuickJS runtime in its own wasm instance (internal/engine), owned by one
//     goroutine at a time; reset to its prepared memory image after each cell and reused.
//   - prelude: the JavaScript run into every engine before its first cell (prelude.js): the
//     globals cell code sees and the entry points Go calls (begin, deliver, part).
//   - bridge: the one function through which JavaScript calls Go, an operation character and a
//     JSON payload (bridge.go); a message that does not decode is forged and fails the cell.
//   - cell: one admitted script and everything it owns: its engine while it runs, its tool calls,
//     timers, notifications, output and lifecycle (cell.go).
//   - turn: one call from Go into the prelude (begin, or deliver with results and timers) followed
//     by QuickJS's pending jobs; the event loop (loop.go) is a sequence of turns.
//   - delivery: a turn that hands settled tool calls and fired timers to JavaScript; also the
//     handing of an observation to its observer.
//   - quiescent: the loop has nothing to run until a tool call settles or a timer fires.
//   - observer: one Execute, Wait, ExecuteToPending or WaitToPending waiting for the cell's next
//     response; a cell has at most one (initialObserver, waitObserver, pendingObserver).
//   - observation: what an observer is handed: a response, or a frontier.
//   - yield: a Yielded response with the output so far, at an observer's deadline or at
//     yield_control(); the cell goes on running.
//   - frontier: a quiescent cell paused for a pending observer, listed with its tool calls still
//     in flight (codemode.PendingFrontier, frontier.go); pending mode is the cell driven so.
//   - lifecycle: a cell's state machine (cellLifecycle, celllife.go): events in, effects out, as
//     plain data; the session carries the effects out (cellfx.go).
//   - set apart: the output before a yield_control() that no observer answered, kept for the next
//     yielding observation and out of a later Result (output.go).
//   - claim: taking the Result of a cell that completed unobserved, by a Wait or a Terminate;
//     only one claim wins (claimCompletion, cell.go).
//
// qjs v0.0.6 needs github.com/tetratelabs/wazero v1.9.x: v1.12.0 rejects its host import
// ("signature mismatch"), and NewProvider then fails saying so.
package jsruntime
