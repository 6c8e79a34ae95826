package jsruntime

import (
	"encoding/binary"
	"fmt"

	"github.com/fastschema/qjs"
)

// Crossings into wasm are the runtime's main cost: qjs looks the exported function up on every
// call, so each one costs about 3 µs and 12 KB of garbage whatever it does. The hot paths
// therefore call qjs's exported functions through Context.Call themselves, with buffers and eval
// options prepared once per runtime, instead of through qjs's convenience methods (c.Invoke is 5
// crossings, c.Eval 9, c.NewString 2 and leaks its C string, Value.String leaks the C string
// QuickJS made). A cell's turn (deliver results, run the jobs, take the queued calls) costs 9
// crossings; it cost 29.

const (
	// scratchSize is the per-runtime wasm buffer that carries strings into QuickJS without a
	// malloc and free crossing each; larger strings get their own allocation.
	scratchSize = 32 << 10
	// jobsSource is the script whose evaluation runs QuickJS's job loop: qjs runs pending jobs
	// at the end of every QJS_Eval (QuickJS's JS_ExecutePendingJob is not exported). It
	// evaluates to undefined, which needs no freeing.
	jobsSource = "void 0"
	jobsFile   = "codemode_jobs.js"
)

// wasmArea is the per-runtime wasm memory that the hot paths reuse. It is allocated while the
// runtime waits in the pool, so a cell pays nothing for it.
type wasmArea struct {
	scratch uint32 // scratchSize bytes for C strings
	argv    uint32 // one JSValue: the argument of an entry point call
	// jobsOpts is a QJSEvalOptions for jobsSource; moduleOpts one for a module whose source
	// sits in scratch.
	jobsOpts, moduleOpts uint64
	moduleFile           uint64 // moduleName as a C string
	// undefined is JS_UNDEFINED's raw value: not reference counted, so never freed, and the
	// normal result of every entry point, so comparing with it spares an exception check.
	undefined uint64
}

// prepareWasmArea allocates the reusable buffers and eval options of c.
func prepareWasmArea(c *qjs.Context, undefined uint64) (wasmArea, error) {
	a := wasmArea{undefined: undefined}
	a.scratch = uint32(c.Malloc(scratchSize))
	a.argv = uint32(c.Malloc(8))
	// The job script runs as bytecode: compiling "void 0" on every turn cost about 6 µs.
	bytecode, err := c.Compile(jobsFile, qjs.Code(jobsSource))
	if err != nil {
		return a, fmt.Errorf("prepare javascript runtime: compile job script: %w", err)
	}
	code := c.Malloc(uint64(len(bytecode)))
	copy(c.MemRead(uint32(code), uint64(len(bytecode))), bytecode)
	file := cString(c, jobsFile)
	a.moduleFile = cString(c, moduleName)
	a.jobsOpts = c.Call("QJS_CreateEvalOption", 0, code, uint64(len(bytecode)), file, qjs.JsEvalTypeGlobal|qjs.JsEvalFlagStrict).Raw()
	a.moduleOpts = c.Call("QJS_CreateEvalOption", uint64(a.scratch), 0, 0, a.moduleFile, qjs.JsEvalTypeModule|qjs.JsEvalFlagStrict).Raw()
	if a.scratch == 0 || a.argv == 0 || code == 0 || a.jobsOpts == 0 || a.moduleOpts == 0 {
		return a, fmt.Errorf("prepare javascript runtime: wasm allocation failed")
	}
	return a, nil
}

// cString copies s into a new NUL-terminated wasm allocation that lives as long as the runtime.
func cString(c *qjs.Context, s string) uint64 {
	ptr := c.Malloc(uint64(len(s) + 1))
	writeCString(c, uint32(ptr), s)
	return ptr
}

// writeCString writes s and a NUL at ptr, which has room for both.
func writeCString(c *qjs.Context, ptr uint32, s string) {
	buf := c.MemRead(ptr, uint64(len(s)+1)) // a view of wasm memory
	copy(buf, s)
	buf[len(s)] = 0
}

// newString makes a JS string of s (one crossing when s fits the scratch buffer). The caller
// frees the result. QuickJS reads C strings, so s must not contain NUL; the JSON that crosses
// here never does.
func (e *engine) newString(s string) uint64 {
	c := e.rt.Context()
	ptr := uint64(e.wasm.scratch)
	if len(s)+1 > scratchSize {
		ptr = c.Malloc(uint64(len(s) + 1))
		defer c.FreeHandle(ptr)
	}
	writeCString(c, uint32(ptr), s)
	return c.Call("QJS_NewString", c.Raw(), ptr).Raw()
}

// invoke calls fn with `this` undefined and at most one argument (one crossing).
func (e *engine) invoke(fn uint64, arg uint64, hasArg bool) uint64 {
	c := e.rt.Context()
	argc := uint64(0)
	if hasArg {
		binary.LittleEndian.PutUint64(c.MemRead(e.wasm.argv, 8), arg)
		argc = 1
	}
	return c.Call("QJS_Call", c.Raw(), fn, e.wasm.undefined, argc, uint64(e.wasm.argv)).Raw()
}

// free releases a JS value unless it is undefined.
func (e *engine) free(v uint64) {
	if v != e.wasm.undefined {
		e.rt.Context().FreeJsValue(v)
	}
}

// readString returns the text of the JS string v and releases the C copy QuickJS made of it
// (three crossings). It does not free v.
func (e *engine) readString(v uint64) (string, error) {
	c := e.rt.Context()
	packed := c.Call("QJS_ToCString", c.Raw(), v).Raw()
	if packed == 0 {
		return "", e.pendingException("read string")
	}
	p := binary.LittleEndian.Uint64(c.MemRead(uint32(packed), 8))
	addr, n := uint32(p>>32), uint32(p)
	s := string(c.MemRead(addr, uint64(n)))
	c.Call("JS_FreeCString", c.Raw(), uint64(addr))
	c.FreeHandle(packed)
	return s, nil
}

// pendingException takes the context's pending exception as an error; what names the step
// when, unexpectedly, there is none.
func (e *engine) pendingException(what string) error {
	c := e.rt.Context()
	if c.HasException() {
		return c.Exception()
	}
	return fmt.Errorf("%s: javascript returned an unexpected value", what)
}

// runJobsRaw runs QuickJS's job loop (one crossing; two when it fails).
func (e *engine) runJobsRaw() error {
	c := e.rt.Context()
	res := c.Call("QJS_Eval", c.Raw(), e.wasm.jobsOpts).Raw()
	if res != e.wasm.undefined {
		return e.pendingException("run jobs")
	}
	return nil
}
