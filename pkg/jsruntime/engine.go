package jsruntime

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/fastschema/qjs"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/codemodehq/codemode/gen/go/qjswasm"
)

//go:embed prelude.js
var preludeSource string

// moduleName is the name under which a cell's source is registered.
const moduleName = "exec_main.mjs"

// mainModuleName names a module that only imports the cell's (mainModuleSource), which the
// prelude's begin imports instead of the cell's when the cell exports anything. import() resolves
// with the namespace of the module it imports, and a namespace that exports a function named then
// is a thenable: resolving the promise that completes the cell with the cell's own namespace would
// call that function, with the promise's resolving functions, after the cell's code had run, and
// the cell would decide how, and whether, it completes. This module exports nothing; the cell's
// completion or failure reaches its evaluation unchanged. Loading it costs about as much as loading
// a small cell, so cells without exports go without it.
const mainModuleName = "codemode_main.mjs"

// mainModuleSource is the source of mainModuleName.
const mainModuleSource = `import "` + moduleName + `";`

// preludeFile names the prelude in stack traces.
const preludeFile = "codemode_prelude.js"

// QuickJS eval flags (quickjs.h).
const (
	evalTypeGlobal  = 0
	evalTypeModule  = 1
	evalFlagStrict  = 1 << 3
	evalCompileOnly = 1 << 5
)

// errInterrupted reports a runtime whose call was interrupted: cancelling the call's context closed
// the wasm module (qjs's CloseOnContextDone), so the runtime can never be called again.
var errInterrupted = errors.New("javascript runtime was interrupted")

// hostHandler serves the bridge messages of the cell an engine is running.
type hostHandler interface {
	serve(m hostMessage) hostReply
	// fault records a forged message; the cell fails with err.
	fault(err error)
}

// engineConfig is what every runtime of a provider shares.
type engineConfig struct {
	cacheDir string
	// rootDir is a path that does not exist: qjs mounts it as "/", so QuickJS's std/os modules,
	// should code ever reach them, see no file system at all.
	rootDir string
	// reserve is the address space of each runtime's linear memory.
	reserve uint64
	// headroom is the free heap a runtime starts every cell with (see newEngine).
	headroom uint32
}

// engine is one QuickJS runtime prepared with the prelude. One goroutine at a time owns it (the
// pool's, then one cell's) and makes every call into it. After a cell it is reset to the memory
// image taken when it was prepared (snapshot.go) and serves the next cell, unless that cell broke
// it (interrupted it, or grew its memory too far).
type engine struct {
	rt   *qjs.Runtime
	w    wasm
	mem  *linearMemory
	slot *proxySlot
	layout

	img  *image            // the memory image every cell starts from, shared by a provider's engines
	sp   api.MutableGlobal // the module's stack pointer
	host hostHandler
	dead bool
	// main is the module the cell's begin imports: moduleName, or mainModuleName when the cell
	// exports anything (see loadModule).
	main string
}

// layout is what the Go side of an engine knows about its memory: addresses of values and
// buffers the prelude's installation left there. Every engine made from an image shares it.
type layout struct {
	jsctx  uint64 // the JSContext pointer
	hostFn uint64 // the bridge function handed to the prelude
	entry  struct{ begin, deliver, take, describe uint64 }

	scratch  uint32 // scratchSize bytes for C strings
	argv     uint32 // one JSValue: the argument of an entry point call
	jobsOpts uint64 // QJSEvalOptions of the script whose evaluation runs the pending jobs
	modOpts  uint64 // QJSEvalOptions of a module whose source sits in scratch
	modFile  uint64 // moduleName as a C string
	mainOpts uint64 // QJSEvalOptions of the module mainModuleName
}

// scratchSize is the per-runtime buffer that carries strings into QuickJS without a malloc and a
// free crossing each; larger strings get their own allocation.
const scratchSize = 64 << 10

// proxySlot connects qjs's proxy function, which qjs calls for every JavaScript call of the bridge,
// to the engine that owns the runtime. The function outlives the engine (qjs never closes the wazero
// runtime that holds it), so it reaches the engine only through this slot, which dispose empties.
type proxySlot struct{ e atomic.Pointer[engine] }

// proxy has the signature qjs requires of Option.ProxyFunction (qjs.JsFunctionProxy).
func (s *proxySlot) proxy(_ context.Context, m api.Module, _ uint32, _ uint64, argc, argv uint32) uint64 {
	e := s.e.Load()
	if e == nil {
		return jsUndefined
	}
	if e.w.mod == nil {
		// The first call, made by newEngine, hands over the module.
		if err := e.w.bind(m); err != nil {
			e.w.mod = nil
		}
		return jsUndefined
	}
	return e.serveHost(argc, argv)
}

// newEngine creates a runtime. With an image (taken from another engine of the provider), it
// adopts that image instead of installing the prelude: qjs.New lays out a fresh runtime at the same
// addresses every time, so the image, with its prelude, fits, and the engines share one copy of it.
// Without one, it installs the prelude, grows the heap by cfg.headroom and takes the image. The
// headroom is allocated and freed once, so QuickJS's allocator keeps it as free space: a cell that
// allocates less never grows the memory.
func newEngine(cfg engineConfig, img *image) (e *engine, err error) {
	e = &engine{mem: newLinearMemory(cfg.reserve), slot: &proxySlot{}}
	e.slot.e.Store(e)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("create javascript runtime: %v", r)
		}
		if err != nil {
			e.dispose()
			e = nil
		}
	}()
	ctx := experimental.WithMemoryAllocator(context.Background(), e.mem.allocator())
	// CloseOnContextDone: qjs compiles its module once per process with the setting of the first
	// qjs.New, and only with it can a running script be stopped.
	e.rt, err = qjs.New(qjs.Option{
		Context:            ctx,
		CloseOnContextDone: true,
		CWD:                cfg.rootDir,
		CacheDir:           cfg.cacheDir,
		QuickJSWasmBytes:   qjswasm.Module,
		ProxyFunction:      e.slot.proxy,
		Stdout:             io.Discard,
		Stderr:             io.Discard,
	})
	if err != nil {
		return nil, fmt.Errorf("create javascript runtime: %w", err)
	}
	e.w.ctx = context.Background()
	if err := e.bind(); err != nil {
		return nil, err
	}
	if e.sp, err = stackPointer(e.w.mod); err != nil {
		return nil, err
	}
	if img != nil && img.fits(e) {
		e.adopt(img)
		return e, nil
	}
	if err := e.install(); err != nil {
		return nil, err
	}
	if err := e.growHeap(cfg.headroom); err != nil {
		return nil, err
	}
	e.img, err = takeImage(e)
	return e, err
}

// bind creates the bridge function with qjs's own calls and calls it once: qjs's proxy function
// then receives the wasm module, whose exports the engine resolves (see wasm.go).
func (e *engine) bind() error {
	c := e.rt.Context()
	e.jsctx = c.Raw()
	e.hostFn = c.Call("QJS_CreateFunctionProxy", e.jsctx, 1, 1, 0).Raw()
	c.Call("QJS_Call", e.jsctx, e.hostFn, jsUndefined, 0, 0)
	if e.w.mod == nil {
		return errors.New("create javascript runtime: the bridge did not reach the wasm module")
	}
	return nil
}

// stackPointer returns the module's exported stack pointer (see generators/qjswasm).
func stackPointer(mod api.Module) (api.MutableGlobal, error) {
	g, ok := mod.ExportedGlobal(qjswasm.StackPointerExport).(api.MutableGlobal)
	if !ok {
		return nil, errors.New("javascript runtime: the module does not export its stack pointer")
	}
	return g, nil
}

// install allocates the reusable buffers and runs the prelude.
func (e *engine) install() error {
	var err error
	if e.scratch, err = e.malloc(scratchSize); err != nil {
		return err
	}
	if e.argv, err = e.malloc(8); err != nil {
		return err
	}
	if e.modFile, err = e.cString(moduleName); err != nil {
		return err
	}
	if e.jobsOpts, err = e.bytecodeOptions("codemode_jobs.js", "void 0"); err != nil {
		return err
	}
	if e.modOpts, err = e.w.call(exCreateEvalOption, uint64(e.scratch), 0, 0, e.modFile, evalTypeModule|evalFlagStrict); err != nil {
		return err
	}
	mainSource, err := e.cString(mainModuleSource)
	if err != nil {
		return err
	}
	mainFile, err := e.cString(mainModuleName)
	if err != nil {
		return err
	}
	if e.mainOpts, err = e.w.call(exCreateEvalOption, mainSource, 0, 0, mainFile, evalTypeModule|evalFlagStrict); err != nil {
		return err
	}
	prelude, err := e.evalBytecode(preludeFile, preludeSource)
	if err != nil {
		return fmt.Errorf("evaluate prelude: %w", err)
	}
	defer e.free(prelude)
	internals, err := e.callValue(prelude, e.hostFn, operationsJSON())
	if err != nil {
		return fmt.Errorf("run prelude: %w", err)
	}
	defer e.free(internals)
	return e.resolveEntries(internals)
}

// resolveEntries reads the prelude's entry points (kept for the runtime's life: never freed, so
// the snapshot holds them).
func (e *engine) resolveEntries(internals uint64) error {
	for _, ep := range []struct {
		name string
		dst  *uint64
	}{{"begin", &e.entry.begin}, {"deliver", &e.entry.deliver}, {"take", &e.entry.take}, {"describe", &e.entry.describe}} {
		v, err := e.property(internals, ep.name)
		if err != nil {
			return fmt.Errorf("prelude entry point %s: %w", ep.name, err)
		}
		*ep.dst = v
	}
	return nil
}

// growHeap allocates and frees n bytes in JavaScript (see newEngine).
func (e *engine) growHeap(n uint32) error {
	if n == 0 {
		return nil
	}
	v, err := e.evalSource("codemode_heap.js", fmt.Sprintf("void new ArrayBuffer(%d)", n))
	if err == nil {
		e.free(v)
	}
	return err
}

// compiledScripts caches bytecode by source: every runtime compiles the same prelude and job
// script, and evaluating bytecode is several times cheaper than compiling source.
var compiledScripts sync.Map // source -> []byte

// bytecodeOptions returns eval options that run src, compiled once per process.
func (e *engine) bytecodeOptions(file, src string) (uint64, error) {
	code, err := e.compile(file, src)
	if err != nil {
		return 0, err
	}
	ptr, err := e.malloc(uint32(len(code)))
	if err != nil {
		return 0, err
	}
	b, err := e.w.view(ptr, uint32(len(code)))
	if err != nil {
		return 0, err
	}
	copy(b, code)
	name, err := e.cString(file)
	if err != nil {
		return 0, err
	}
	return e.w.call(exCreateEvalOption, 0, uint64(ptr), uint64(len(code)), name, evalTypeGlobal|evalFlagStrict)
}

// compile returns the bytecode of the global script src.
func (e *engine) compile(file, src string) ([]byte, error) {
	if code, ok := compiledScripts.Load(src); ok {
		return code.([]byte), nil
	}
	c := e.rt.Context()
	code, err := c.Compile(file, qjs.Code(src))
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", file, err)
	}
	compiledScripts.Store(src, code)
	return code, nil
}

// evalBytecode evaluates the global script src from its cached bytecode and returns its value.
func (e *engine) evalBytecode(file, src string) (uint64, error) {
	opts, err := e.bytecodeOptions(file, src)
	if err != nil {
		return 0, err
	}
	defer e.w.call(exFree, opts)
	return e.evalWith(opts)
}

// evalSource evaluates a short global script from source.
func (e *engine) evalSource(file, src string) (uint64, error) {
	name, err := e.cString(file)
	if err != nil {
		return 0, err
	}
	defer e.w.call(exFree, name)
	if err := e.w.writeCString(e.scratch, src); err != nil {
		return 0, err
	}
	opts, err := e.w.call(exCreateEvalOption, uint64(e.scratch), 0, 0, name, evalTypeGlobal|evalFlagStrict)
	if err != nil {
		return 0, err
	}
	defer e.w.call(exFree, opts)
	return e.evalWith(opts)
}

func (e *engine) evalWith(opts uint64) (uint64, error) {
	v, err := e.w.call(exEval, e.jsctx, opts)
	if err != nil {
		return 0, err
	}
	if valueTag(v) == tagException {
		return 0, e.takeException()
	}
	return v, nil
}

// property reads obj[name].
func (e *engine) property(obj uint64, name string) (uint64, error) {
	if err := e.w.writeCString(e.scratch, name); err != nil {
		return 0, err
	}
	c := e.rt.Context()
	v := c.Call("JS_GetPropertyStr", e.jsctx, obj, uint64(e.scratch)).Raw()
	if valueTag(v) == tagException {
		return 0, e.takeException()
	}
	return v, nil
}

// callValue calls fn(arg0, text) during setup.
func (e *engine) callValue(fn, arg0 uint64, text string) (uint64, error) {
	s, err := e.newString(text)
	if err != nil {
		return 0, err
	}
	defer e.free(s)
	argv, err := e.malloc(16)
	if err != nil {
		return 0, err
	}
	defer e.w.call(exFree, uint64(argv))
	if err := e.w.writeU64(argv, arg0); err != nil {
		return 0, err
	}
	if err := e.w.writeU64(argv+8, s); err != nil {
		return 0, err
	}
	v, err := e.w.call(exCall, e.jsctx, fn, jsUndefined, 2, uint64(argv))
	if err != nil {
		return 0, err
	}
	if valueTag(v) == tagException {
		return 0, e.takeException()
	}
	return v, nil
}

// malloc allocates n bytes of wasm memory.
func (e *engine) malloc(n uint32) (uint32, error) {
	p, err := e.w.call(exMalloc, uint64(n))
	if err != nil {
		return 0, err
	}
	if p == 0 {
		return 0, errors.New("javascript runtime: out of memory")
	}
	return uint32(p), nil
}

// cString copies s into a new NUL-terminated allocation.
func (e *engine) cString(s string) (uint64, error) {
	p, err := e.malloc(uint32(len(s) + 1))
	if err != nil {
		return 0, err
	}
	return uint64(p), e.w.writeCString(p, s)
}

// free releases a JS value; undefined needs no release.
func (e *engine) free(v uint64) {
	if v != jsUndefined && v != 0 {
		_, _ = e.w.call(exFreeValue, e.jsctx, v)
	}
}

// newString makes a JS string of s. QuickJS's string constructors exported to wasm read C strings,
// which end at the first NUL, so a string holding NUL (code that eval builds at run time, say) is
// made by parsing it as a JSON string instead, whose escapes carry NUL intact.
func (e *engine) newString(s string) (uint64, error) {
	export := exNewString
	if strings.IndexByte(s, 0) >= 0 {
		export, s = exParseJSON, jsonQuote(s)
	}
	ptr := e.scratch
	if len(s)+1 > scratchSize {
		p, err := e.malloc(uint32(len(s) + 1))
		if err != nil {
			return 0, err
		}
		defer e.w.call(exFree, uint64(p))
		ptr = p
	}
	if err := e.w.writeCString(ptr, s); err != nil {
		return 0, err
	}
	v, err := e.w.call(export, e.jsctx, uint64(ptr))
	if err == nil && valueTag(v) == tagException {
		err = e.takeException()
	}
	return v, err
}

// smallJSON is the size below which an entry point receives JSON as a string to parse itself:
// QJS_ParseJSON costs about 2 µs more than JSON.parse for a few bytes, and saves a pass over the
// data for large ones.
const smallJSON = 4 << 10

// jsonArgument makes the argument of an entry point from the JSON text s: the text itself when
// it is small, else its parsed value.
func (e *engine) jsonArgument(s string) (uint64, error) {
	if len(s) < smallJSON {
		return e.newString(s)
	}
	return e.parseJSON(s)
}

// parseJSON makes the JS value of the JSON text s, which has no NUL (Go's encoders escape it).
func (e *engine) parseJSON(s string) (uint64, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return 0, errors.New("javascript runtime: JSON with NUL crosses into QuickJS")
	}
	ptr := e.scratch
	if len(s)+1 > scratchSize {
		p, err := e.malloc(uint32(len(s) + 1))
		if err != nil {
			return 0, err
		}
		defer e.w.call(exFree, uint64(p))
		ptr = p
	}
	if err := e.w.writeCString(ptr, s); err != nil {
		return 0, err
	}
	v, err := e.w.call(exParseJSON, e.jsctx, uint64(ptr))
	if err == nil && valueTag(v) == tagException {
		err = e.takeException()
	}
	return v, err
}

// jsonQuote returns s as a JSON string: NUL and the other control characters escaped, nothing
// else changed (json.Marshal would also escape <, > and &).
func jsonQuote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// readString returns the text of the JS string v and releases the C copy QuickJS made of it. It
// does not free v. The copy is a C string, so the text ends at its first NUL: the prelude sends
// only JSON, whose strings escape NUL. A lone surrogate, which the copy encodes as the three bytes
// of its code point (WTF-8, as a forged message could hold one), becomes U+FFFD, so that the text
// is valid UTF-8 for whatever carries it on (protobuf refuses anything else).
func (e *engine) readString(v uint64) (string, error) {
	packed, err := e.w.call(exToCString, e.jsctx, v)
	if err != nil {
		return "", err
	}
	if packed == 0 {
		return "", e.takeException()
	}
	ptrLen, err := e.w.readU64(uint32(packed))
	if err != nil {
		return "", err
	}
	addr, n := uint32(ptrLen>>32), uint32(ptrLen)
	b, err := e.w.view(addr, n)
	if err != nil {
		return "", err
	}
	s := wellFormed(b)
	if _, err := e.w.call(exFreeCString, e.jsctx, uint64(addr)); err != nil {
		return "", err
	}
	_, err = e.w.call(exFree, packed)
	return s, err
}

// wellFormed returns b as a string with every byte sequence that is not UTF-8 replaced by U+FFFD:
// one replacement per lone surrogate (ED A0–BF xx), as Go's JSON decoder does for an escaped one,
// and one per other invalid byte.
func wellFormed(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var out strings.Builder
	out.Grow(len(b) + 8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			if len(b) >= 3 && b[0] == 0xED && b[1]&0xE0 == 0xA0 && b[2]&0xC0 == 0x80 {
				n = 3
			}
			out.WriteRune(utf8.RuneError)
		} else {
			out.Write(b[:n])
		}
		b = b[n:]
	}
	return out.String()
}

// takeException takes the pending exception and renders it with the prelude's errorText, which
// arrives quoted as JSON so that NUL survives.
func (e *engine) takeException() error {
	exc, err := e.w.call(exGetException, e.jsctx)
	if err != nil {
		return err
	}
	defer e.free(exc)
	if e.entry.describe == 0 {
		return errors.New("javascript exception during runtime setup")
	}
	if err := e.w.writeU64(e.argv, exc); err != nil {
		return err
	}
	text, err := e.w.call(exCall, e.jsctx, e.entry.describe, jsUndefined, 1, uint64(e.argv))
	if err != nil {
		return err
	}
	defer e.free(text)
	if valueTag(text) != tagString {
		return errors.New("uncaught exception")
	}
	s, err := e.readString(text)
	if err != nil {
		return err
	}
	if t, err := decodeJSONString(s); err == nil {
		s = t
	}
	return &jsError{text: s}
}

// jsError is a JavaScript exception, as error text.
type jsError struct{ text string }

func (e *jsError) Error() string { return e.text }

// turn is one turn of a cell's event loop: it calls entry (begin or deliver) with the JSON text
// input (see jsonArgument), runs the pending jobs, and returns the records JavaScript queued for Go
// ("" when none). A large input is parsed by QuickJS straight from the UTF-8 bytes: one pass over a
// large tool result instead of decoding it into a string and parsing that again.
func (e *engine) turn(entry uint64, input string) (string, error) {
	arg, err := e.jsonArgument(input)
	if err != nil {
		return "", err
	}
	if err := e.w.writeU64(e.argv, arg); err != nil {
		return "", err
	}
	res, err := e.w.call(exCall, e.jsctx, entry, jsUndefined, 1, uint64(e.argv))
	e.free(arg)
	if err != nil {
		return "", err
	}
	if res != jsUndefined {
		if valueTag(res) == tagException {
			return "", e.takeException()
		}
		e.free(res)
	}
	if _, err := e.evalWith(e.jobsOpts); err != nil {
		return "", err
	}
	return e.take()
}

// take calls the prelude's take and returns the queued records.
func (e *engine) take() (string, error) {
	v, err := e.w.call(exCall, e.jsctx, e.entry.take, jsUndefined, 0, 0)
	if err != nil || v == jsUndefined {
		return "", err
	}
	defer e.free(v)
	if valueTag(v) != tagString {
		if valueTag(v) == tagException {
			return "", e.takeException()
		}
		return "", forged("take returned a non-string")
	}
	return e.readString(v)
}

// loadModule registers and links the cell's module, whose source has no NUL, without running it,
// and sets e.main. A module has exports only if its source holds the keyword export, which no
// escape can spell: then the module that imports it (mainModuleName) is registered too, and is
// the one begin imports.
func (e *engine) loadModule(src string) error {
	e.main = moduleName
	load := []uint64{0}
	if strings.Contains(src, "export") {
		e.main = mainModuleName
		load = append(load, e.mainOpts)
	}
	opts := e.modOpts
	if len(src)+1 > scratchSize {
		code, err := e.cString(src)
		if err != nil {
			return err
		}
		defer e.w.call(exFree, code)
		if opts, err = e.w.call(exCreateEvalOption, code, 0, 0, e.modFile, evalTypeModule|evalFlagStrict); err != nil {
			return err
		}
		defer e.w.call(exFree, opts)
	} else if err := e.w.writeCString(e.scratch, src); err != nil {
		return err
	}
	load[0] = opts
	for _, o := range load {
		module, err := e.w.call(exLoad, e.jsctx, o)
		if err != nil {
			return err
		}
		if valueTag(module) == tagException {
			return e.takeException()
		}
		e.free(module)
	}
	return nil
}

// serveHost answers one call of the bridge: argv holds qjs's four leading arguments and the
// message (see the proxy factory in generators/qjswasm).
func (e *engine) serveHost(argc, argv uint32) uint64 {
	h := e.host
	if h == nil {
		return jsUndefined
	}
	msg, err := e.hostArgument(argc, argv)
	if err == nil {
		var m hostMessage
		if m, err = decodeHostMessage(msg); err == nil {
			return e.answer(h.serve(m))
		}
	}
	var f *errForged
	if errors.As(err, &f) {
		h.fault(err)
		return e.throw(exThrowTypeError, forgedMessageText)
	}
	// A crossing failed: the module is closing or broken; the outer call reports it.
	return jsUndefined
}

// hostArgument reads the message argument of a bridge call.
func (e *engine) hostArgument(argc, argv uint32) (string, error) {
	if argc != 5 {
		return "", forged("bridge called with %d arguments", argc)
	}
	v, err := e.w.readU64(argv + 4*8)
	if err != nil {
		return "", forged("bridge arguments out of range")
	}
	if valueTag(v) != tagString {
		return "", forged("bridge called with a non-string message")
	}
	return e.readString(v)
}

// answer turns a reply into the bridge call's return value.
func (e *engine) answer(r hostReply) uint64 {
	switch r.kind {
	case replyString:
		v, err := e.newString(r.text)
		if err != nil {
			return e.throw(exThrowTypeError, err.Error())
		}
		return v
	case replySyntaxError:
		return e.throw(exThrowSyntaxError, r.text)
	default:
		return jsUndefined
	}
}

// throw raises an error of the export's kind with message text in JavaScript and returns the
// exception marker for the bridge call to return.
func (e *engine) throw(kind export, text string) uint64 {
	text = strings.ReplaceAll(text, "\x00", "\uFFFD")
	if len(text)+1 > scratchSize {
		text = text[:scratchSize-4]
	}
	if err := e.w.writeCString(e.scratch, text); err != nil {
		return jsUndefined
	}
	v, err := e.w.call(kind, e.jsctx, uint64(e.scratch))
	if err != nil {
		return jsUndefined
	}
	return v
}

// interruptExitCode is the exit code of a module closed by interrupt.
const interruptExitCode = 0xC0DE

// interrupt stops a running script from any goroutine: it closes the wasm module, and wazero's
// CloseOnContextDone instrumentation makes the running code return at its next loop header or call
// (about a millisecond later). The engine is dead afterwards. Closing the module directly lets any
// goroutine stop the engine without a cancellable context threaded through every call. (It does
// not save wazero's watcher: v1.9 starts a goroutine on every call of a module compiled with
// CloseOnContextDone, whatever the call's context, about a microsecond of each crossing.)
func (e *engine) interrupt() {
	if mod := e.w.mod; mod != nil {
		_ = mod.CloseWithExitCode(context.Background(), interruptExitCode)
	}
}

// interruptOn interrupts the engine when ctx ends, until the returned stop is called; stop waits
// for an interrupt that has already begun (interruptWhenStopped), so the engine never goes back to
// the pool with a late interrupt on its way to it.
func (e *engine) interruptOn(ctx context.Context) (stop func()) {
	return interruptWhenStopped(ctx, e.interrupt)
}

// classify turns a crossing's error into what it means for the engine: an interrupt (dead), a
// trap (QuickJS's memory may be corrupt; a reset repairs it), or a JavaScript error.
func (e *engine) classify(err error) error {
	var trap *errTrap
	if !errors.As(err, &trap) {
		return err
	}
	if e.w.mod.IsClosed() {
		e.dead = true
		return errInterrupted
	}
	return err
}

// dispose releases the runtime. A closed module is only dropped: qjs's Close would call into it.
func (e *engine) dispose() {
	e.slot.e.Store(nil)
	e.host = nil
	if e.rt != nil && e.w.mod != nil && !e.w.mod.IsClosed() {
		func() {
			defer func() { _ = recover() }()
			e.rt.Close()
		}()
	}
	e.dead = true
	e.mem.release()
}
