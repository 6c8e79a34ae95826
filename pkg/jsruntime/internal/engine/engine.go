package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/fastschema/qjs"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/codemodehq/codemode/gen/go/qjswasm"
)

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

// QuickJS eval flags (quickjs.h).
const (
	evalTypeGlobal  = 0
	evalTypeModule  = 1
	evalFlagStrict  = 1 << 3
	evalCompileOnly = 1 << 5
)

// ErrInterrupted reports a call that was interrupted: the script was unwound at an interrupt poll
// (interrupt.go). The runtime serves another cell after the pool's reset.
var ErrInterrupted = errors.New("javascript runtime was interrupted")

// Config is what every runtime of a pool shares.
type Config struct {
	// CacheDir is wazero's compilation cache directory ("" keeps it in memory).
	CacheDir string
	// RootDir is a path that does not exist: qjs mounts it as "/", so QuickJS's std/os modules,
	// should code ever reach them, see no file system at all.
	RootDir string
	// Reserve is the address space of each runtime's linear memory.
	Reserve uint64
	// Headroom is the free heap a runtime starts every cell with (see newEngine).
	Headroom uint32
	// Prelude is the script every runtime is prepared with.
	Prelude Prelude
	// Budget, when set, is the host's memory budget every cell's heap growth is taken from.
	Budget Budget
}

// Prelude is the script that turns a bare QuickJS runtime into one that runs cells. Source is a
// global script whose value is a function; the engine calls it with the bridge function and
// Argument, and it returns an object with the entry points the engine calls: begin(input) and
// deliver(input) start a turn, take() returns (and clears) the records queued for Go as one
// string, and describe(exception) renders an exception as a JSON string. What the bridge's
// messages mean is the Host's business, not the engine's.
type Prelude struct {
	File     string // the name in stack traces
	Source   string
	Argument string
}

// Engine is one QuickJS runtime prepared with the prelude. One goroutine at a time owns it (the
// pool's, then one cell's) and makes every call into it. After a cell it is reset to the memory
// image taken when it was prepared (snapshot.go) and serves the next cell, unless that cell broke
// it (interrupted it, or grew its memory too far).
type Engine struct {
	heap
	mem  *linearMemory
	slot *proxySlot

	img  *image    // the memory image every cell starts from, shared by a provider's engines
	regs registers // the module's stack pointer and call depth
	host Host
	dead bool
	// stop is raised by interrupt, from any goroutine, and read by the module's polls.
	stop atomic.Bool
	// longTurn, when set (OnLongTurn), is called once by the first poll after longTurnAt; both are
	// the running turn's, set and read on the goroutine that runs it.
	longTurn   func()
	longTurnAt time.Time
	// main is the module the cell's begin imports: moduleName, or mainModuleName when the cell
	// exports anything (see loadModule).
	main string
}

// heap is QuickJS's heap as Go reaches it: the qjs runtime, the module's exports and memory, and
// the addresses the prelude's installation left there. Its methods make JavaScript values from
// Go's (values.go), read and quote strings (strings.go, quote.go) and compile and evaluate scripts
// (scripts.go); they know nothing of cells, turns, pools or images, which are the Engine's.
type heap struct {
	rt *qjs.Runtime
	w  wasm
	layout
}

// layout is what the Go side of an engine knows about its memory: addresses of values and
// buffers the prelude's installation left there. Every engine made from an image shares it.
type layout struct {
	jsctx  uint64 // the JSContext pointer
	hostFn uint64 // the bridge function handed to the prelude
	entry  struct{ begin, deliver, deliverOne, take, describe, part uint64 }

	scratch  uint32 // scratchSize bytes for C strings
	argv     uint32 // one JSValue: the argument of an entry point call
	jobsOpts uint64 // QJSEvalOptions of the script whose evaluation runs the pending jobs
	modOpts  uint64 // QJSEvalOptions of a module whose source sits in scratch
	modFile  uint64 // moduleName as a C string
	mainOpts uint64 // QJSEvalOptions of the module mainModuleName
	quoteFn  uint64 // the original JSON.stringify (strings.go)
	// directStrings reports that install verified QuickJS's string layout (strings.go).
	directStrings bool
	// directQuote reports that install verified Go's quoting against JSON.stringify's (quote.go).
	directQuote bool
}

// scratchSize is the per-runtime buffer that carries strings into QuickJS without a malloc and a
// free crossing each; larger strings get their own allocation.
const scratchSize = 64 << 10

// proxySlot connects qjs's proxy function, which qjs calls for every JavaScript call of the bridge,
// to the engine that owns the runtime. The function outlives the engine (qjs never closes the wazero
// runtime that holds it), so it reaches the engine only through this slot, which dispose empties.
type proxySlot struct{ e atomic.Pointer[Engine] }

// proxy has the signature qjs requires of Option.ProxyFunction (qjs.JsFunctionProxy).
func (s *proxySlot) proxy(_ context.Context, m api.Module, jsctx uint32, _ uint64, argc, argv uint32) uint64 {
	e := s.e.Load()
	if e == nil {
		return jsUndefined
	}
	switch argc {
	case qjswasm.PollArgc:
		return e.poll()
	case qjswasm.TrampolineArgc:
		return e.trampoline(jsctx, argv)
	case qjswasm.GrowArgc:
		return e.mem.growSeen(m, argv)
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
// Without one, it installs the prelude, grows the heap by cfg.Headroom and takes the image. The
// headroom is allocated and freed once, so QuickJS's allocator keeps it as free space: a cell that
// allocates less never grows the memory.
func newEngine(cfg Config, img *image) (_ *Engine, err error) {
	// e is not the named result: a failure returns nil, and the deferred dispose needs the engine.
	e := &Engine{mem: newLinearMemory(cfg.Reserve), slot: &proxySlot{}}
	e.mem.budget = cfg.Budget
	e.slot.e.Store(e)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("create javascript runtime: %v", r)
		}
		if err != nil {
			e.dispose()
		}
	}()
	ctx := experimental.WithMemoryAllocator(context.Background(), e.mem.allocator())
	// Without CloseOnContextDone, which would leave the wasm code at every loop header: the module
	// polls for interrupts itself (interrupt.go). qjs compiles its module once per process with the
	// setting of the first qjs.New; with it set by other code the engine works, only slower.
	e.rt, err = qjs.New(qjs.Option{
		Context:            ctx,
		CloseOnContextDone: false,
		CWD:                cfg.RootDir,
		CacheDir:           cfg.CacheDir,
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
	if e.regs, err = moduleRegisters(e.w.mod); err != nil {
		return nil, err
	}
	if img != nil && img.fits(e) {
		e.adopt(img)
		return e, nil
	}
	if err := e.install(cfg.Prelude); err != nil {
		return nil, err
	}
	if err := e.growHeap(cfg.Headroom); err != nil {
		return nil, err
	}
	if e.img, err = takeImage(e); err != nil {
		return nil, err
	}
	return e, nil
}

// bind creates the bridge function with qjs's own calls and calls it once: qjs's proxy function
// then receives the wasm module, whose exports the engine resolves (see wasm.go).
func (e *Engine) bind() error {
	c := e.rt.Context()
	e.jsctx = c.Raw()
	e.hostFn = c.Call("QJS_CreateFunctionProxy", e.jsctx, 1, 1, 0).Raw()
	c.Call("QJS_Call", e.jsctx, e.hostFn, jsUndefined, 0, 0)
	if e.w.mod == nil {
		return errors.New("create javascript runtime: the bridge did not reach the wasm module")
	}
	return nil
}

// moduleRegisters returns the module's exported stack pointer, call depth and seen memory size
// (see generators/qjswasm).
func moduleRegisters(mod api.Module) (registers, error) {
	sp, ok := mod.ExportedGlobal(qjswasm.StackPointerExport).(api.MutableGlobal)
	if !ok {
		return registers{}, errors.New("javascript runtime: the module does not export its stack pointer")
	}
	depth, ok := mod.ExportedGlobal(qjswasm.CallDepthExport).(api.MutableGlobal)
	if !ok {
		return registers{}, errors.New("javascript runtime: the module does not export its call depth")
	}
	seen, ok := mod.ExportedGlobal(qjswasm.SeenPagesExport).(api.MutableGlobal)
	if !ok {
		return registers{}, errors.New("javascript runtime: the module does not export the memory size it sees")
	}
	return registers{sp: sp, depth: depth, seen: seen}, nil
}

// install allocates the reusable buffers and runs the prelude.
func (e *Engine) install(p Prelude) error {
	var err error
	if e.scratch, err = e.malloc(scratchSize); err != nil {
		return err
	}
	if e.argv, err = e.malloc(16); err != nil {
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
	if e.quoteFn, err = e.evalSource("codemode_quote.js", "JSON.stringify"); err != nil {
		return err
	}
	e.directStrings = e.verifyStringLayout()
	e.directQuote = e.directStrings && e.verifyQuoting()
	prelude, err := e.evalBytecode(p.File, p.Source)
	if err != nil {
		return fmt.Errorf("evaluate prelude: %w", err)
	}
	defer e.free(prelude)
	internals, err := e.callValue(prelude, e.hostFn, p.Argument)
	if err != nil {
		return fmt.Errorf("run prelude: %w", err)
	}
	defer e.free(internals)
	return e.resolveEntries(internals)
}

// resolveEntries reads the prelude's entry points (kept for the runtime's life: never freed, so
// the snapshot holds them).
func (e *Engine) resolveEntries(internals uint64) error {
	for _, ep := range []struct {
		name string
		dst  *uint64
	}{{"begin", &e.entry.begin}, {"deliver", &e.entry.deliver}, {"take", &e.entry.take}, {"describe", &e.entry.describe}, {"part", &e.entry.part}, {"deliverOne", &e.entry.deliverOne}} {
		v, err := e.property(internals, ep.name)
		if err != nil {
			return fmt.Errorf("prelude entry point %s: %w", ep.name, err)
		}
		*ep.dst = v
	}
	return nil
}

// growHeap allocates and frees n bytes in JavaScript (see newEngine).
func (e *Engine) growHeap(n uint32) error {
	if n == 0 {
		return nil
	}
	v, err := e.evalSource("codemode_heap.js", fmt.Sprintf("void new ArrayBuffer(%d)", n))
	if err == nil {
		e.free(v)
	}
	return err
}

// dispose releases the runtime. A closed module is only dropped: qjs's Close would call into it.
func (e *Engine) dispose() {
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
