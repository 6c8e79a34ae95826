package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/tetratelabs/wazero/api"
)

// Crossings into wasm are the runtime's unit of cost. qjs looks an export up by name on every call
// it makes, which builds a new wazero call engine each time (about 3 µs and 12 KB of garbage); the
// engine instead resolves the exports every cell calls once, from the api.Module that qjs
// hands to the proxy function (Option.ProxyFunction), and keeps the resolved functions. A crossing
// then costs well under a microsecond and allocates nothing.
//
// What a kept function costs is memory: each owns wazero's native call stack (10 KB to start with,
// doubled whenever a call needs more and never shrunk; a call that runs JavaScript grows it to tens
// of KB), and an engine lives as long as its cell, which may wait on a tool call for minutes. So
// the engine keeps at most one instance per hot export (hotExports), resolves the others per call
// without keeping them, and drops every instance when its cell has waited for idleShedAfter (see
// cellRun.wait) or went deep (pool.reset). A wazero function has one call stack, and JavaScript
// calls back into Go, which calls into wasm again: a re-entrant call of an export whose instance
// is in use resolves another one, which is dropped when the slot is already taken again.

// export names a wasm function the engine calls.
type export int

// The exports the engine uses (qjs's C API, see qjswasm/*.c in the qjs module).
const (
	exMalloc export = iota
	exFree
	exCall             // QJS_Call(ctx, fn, this, argc, argv) JSValue
	exEval             // QJS_Eval(ctx, opts) JSValue: evaluates, then runs the pending jobs
	exLoad             // QJS_Load(ctx, opts) JSValue: compiles and links a module
	exCompile          // QJS_Compile(ctx, opts) packed(ptr, len) of bytecode
	exCreateEvalOption // QJS_CreateEvalOption(buf, bytecode, len, file, flags) *opts
	exNewString        // QJS_NewString(ctx, cstr) JSValue
	exParseJSON        // QJS_ParseJSON(ctx, cstr) JSValue
	exToCString        // QJS_ToCString(ctx, v) packed(ptr, len)
	exFreeCString      // JS_FreeCString(ctx, ptr)
	exFreeValue        // QJS_FreeValue(ctx, v)
	exGetException     // JS_GetException(ctx) JSValue
	exThrowSyntaxError // QJS_ThrowSyntaxError(ctx, cstr) JSValue (the exception marker)
	exThrowTypeError   // QJS_ThrowTypeError(ctx, cstr) JSValue
	exThrowRangeError  // QJS_ThrowRangeError(ctx, cstr) JSValue
	exCreateProxy      // QJS_CreateFunctionProxy(ctx, fnID, ctxID, isAsync) JSValue
	exportCount
)

// hotExports are the exports an engine keeps a resolved instance of: those every cell calls
// (loading its module, then every turn and bridge call: a tool round trip crosses about ten
// times). The others run at setup or on errors (compiling, eval options for large sources, raising
// and taking exceptions), where resolving costs a few microseconds, and keeping them would cost
// their stacks on every engine. (Resolving QJS_Load per cell instead made a warm cell start ~10 %
// slower: its call grows a fresh stack to ~30 KB each time.)
var hotExports = [exportCount]bool{
	exMalloc:      true,
	exFree:        true,
	exCall:        true,
	exEval:        true,
	exLoad:        true,
	exNewString:   true,
	exParseJSON:   true,
	exToCString:   true,
	exFreeCString: true,
	exFreeValue:   true,
}

var exportNames = [exportCount]string{
	exMalloc:           "malloc",
	exFree:             "free",
	exCall:             "QJS_Call",
	exEval:             "QJS_Eval",
	exLoad:             "QJS_Load",
	exCompile:          "QJS_Compile",
	exCreateEvalOption: "QJS_CreateEvalOption",
	exNewString:        "QJS_NewString",
	exParseJSON:        "QJS_ParseJSON",
	exToCString:        "QJS_ToCString",
	exFreeCString:      "JS_FreeCString",
	exFreeValue:        "QJS_FreeValue",
	exGetException:     "JS_GetException",
	exThrowSyntaxError: "QJS_ThrowSyntaxError",
	exThrowTypeError:   "QJS_ThrowTypeError",
	exThrowRangeError:  "QJS_ThrowRangeError",
	exCreateProxy:      "QJS_CreateFunctionProxy",
}

// JSValue tags of QuickJS's NaN-boxed 64-bit values (the tag is the high 32 bits).
const (
	tagString    = 0xFFFFFFF9 // JS_TAG_STRING (-7)
	tagUndefined = 3          // JS_TAG_UNDEFINED
	tagException = 6          // JS_TAG_EXCEPTION

	jsUndefined = uint64(tagUndefined) << 32
)

func valueTag(v uint64) uint32 { return uint32(v >> 32) }

// Trap wraps the error of a wasm call that trapped or was interrupted.
type Trap struct{ err error }

func (e *Trap) Error() string { return e.err.Error() }
func (e *Trap) Unwrap() error { return e.err }

// wasm is one runtime's resolved exports and memory. Every method runs on the goroutine that owns
// the engine.
type wasm struct {
	mod    api.Module
	mem    api.Memory
	fns    [exportCount]api.Function // the kept instance of each hot export, nil while in use or dropped
	ctx    context.Context           // the context of every call: cancelling it interrupts them
	stacks [][]uint64                // parameter/result buffers, one per nesting depth
	depth  int
}

// bind checks that mod has every export the engine uses. Exports are resolved when first called:
// each resolved function carries its own call stack (10 KB to start with), so a runtime holds only
// those it uses.
func (w *wasm) bind(mod api.Module) error {
	for _, name := range exportNames {
		if _, ok := mod.ExportedFunctionDefinitions()[name]; !ok {
			return fmt.Errorf("javascript runtime: wasm export %s not found", name)
		}
	}
	w.mod, w.mem = mod, mod.Memory()
	return nil
}

// call invokes export id with args and returns its first result. A trap, or a call interrupted by
// cancelling w.ctx, returns an *Trap.
func (w *wasm) call(id export, args ...uint64) (uint64, error) {
	fn := w.take(id)
	stack := w.stack(len(args))
	copy(stack, args)
	w.depth++
	err := fn.CallWithStack(w.ctx, stack)
	w.depth--
	w.put(id, fn)
	if err != nil {
		return 0, &Trap{err: err}
	}
	return stack[0], nil
}

// take returns the kept instance of export id, or resolves one: for a cold export, for the first
// call after a shed, and for a re-entrant call while the kept one is in use.
func (w *wasm) take(id export) api.Function {
	if fn := w.fns[id]; fn != nil {
		w.fns[id] = nil
		return fn
	}
	return w.mod.ExportedFunction(exportNames[id])
}

// put takes back an instance after its call: kept if its export is hot and has none kept (a
// re-entrant call put its own back first), dropped otherwise, so an engine holds at most one
// instance per hot export however deep calls nested.
func (w *wasm) put(id export, fn api.Function) {
	if hotExports[id] && w.fns[id] == nil {
		w.fns[id] = fn
	}
}

// shed drops the kept instances; take resolves new ones as calls need them. Each instance owns
// wazero's native call stack for its calls, which wazero never shrinks: deep recursion grows it
// (to about 50 MB for 5,000 JavaScript frames), and an engine reused for weeks would hold every
// such stack for good; an ordinary turn grows it to tens of KB, which a cell waiting on a tool
// call need not hold while it waits. It runs between calls only.
func (w *wasm) shed() {
	w.fns = [exportCount]api.Function{}
}

// kept returns how many resolved instances the engine holds between calls (for tests).
func (w *wasm) kept() int {
	n := 0
	for _, fn := range w.fns {
		if fn != nil {
			n++
		}
	}
	return n
}

// coldKept counts the resolved instances it holds of exports that are not hot.
func (w *wasm) coldKept() int {
	n := 0
	for id, fn := range w.fns {
		if fn != nil && !hotExports[id] {
			n++
		}
	}
	return n
}

// stack returns the parameter/result buffer of the current nesting depth, with room for n values
// and the result. Nested calls use deeper buffers, so an outer call's buffer is never overwritten
// before it reads its result.
func (w *wasm) stack(n int) []uint64 {
	for len(w.stacks) <= w.depth {
		w.stacks = append(w.stacks, make([]uint64, 8))
	}
	s := w.stacks[w.depth]
	return s[:max(n, 1)]
}

// errBadAccess reports a read or write outside linear memory: a corrupt pointer from wasm.
var errBadAccess = errors.New("javascript runtime: memory access out of range")

// view returns n bytes of linear memory at addr (not a copy).
func (w *wasm) view(addr, n uint32) ([]byte, error) {
	b, ok := w.mem.Read(addr, n)
	if !ok {
		return nil, errBadAccess
	}
	return b, nil
}

func (w *wasm) readU64(addr uint32) (uint64, error) {
	b, err := w.view(addr, 8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

func (w *wasm) writeU64(addr uint32, v uint64) error {
	b, err := w.view(addr, 8)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint64(b, v)
	return nil
}

// writeCString writes s and a terminating NUL at addr, which has room for both.
func (w *wasm) writeCString(addr uint32, s string) error {
	b, err := w.view(addr, uint32(len(s))+1)
	if err != nil {
		return err
	}
	copy(b, s)
	b[len(s)] = 0
	return nil
}
