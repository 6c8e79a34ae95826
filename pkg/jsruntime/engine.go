package jsruntime

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/fastschema/qjs"
	"github.com/tetratelabs/wazero/experimental"
)

//go:embed prelude.js
var preludeSource string

// moduleName is the name under which a cell's source is registered and imported.
const moduleName = "exec_main.mjs"

// errEngineDead reports a runtime that trapped or was interrupted; it must not be called again.
var errEngineDead = errors.New("javascript runtime is no longer usable")

// hostFunc receives the prelude's calls into Go: op names the request, payload carries its
// argument. It runs on the goroutine that owns the engine, synchronously inside a wasm call, and
// returns a string for JavaScript when ok.
type hostFunc func(op byte, payload string) (result string, ok bool)

// engine is one QuickJS runtime prepared with the prelude. It is owned by one goroutine at a time
// (the pool's creator, then exactly one cell) and never reused after its cell.
type engine struct {
	rt        *qjs.Runtime
	ctx       context.Context
	cancel    context.CancelFunc
	heapLimit uint64

	// host is the cell's handler for prelude calls; set before the cell's first call.
	host hostFunc

	// The prelude's entry points: begin, deliver and take (see prelude.js).
	entryPoints          []*qjs.Value
	begin, deliver, take uint64
	// undefined is returned by host calls that have no result; undefined is not reference
	// counted, so one value serves the runtime's whole life.
	undefined *qjs.Value
	wasm      wasmArea
	dead      bool
}

// engineConfig is what every runtime of a provider shares.
type engineConfig struct {
	cacheDir string
	// rootDir is a path that does not exist: it is mounted as "/", so QuickJS's std/os modules,
	// should code reach them, see no file system at all.
	rootDir string
}

// newEngine creates and prepares a runtime. heapLimit 0 means no limit.
func newEngine(cfg engineConfig, heapLimit uint64) (e *engine, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	e = &engine{ctx: ctx, cancel: cancel, heapLimit: heapLimit}
	runtimeCtx := ctx
	if heapLimit > 0 {
		runtimeCtx = experimental.WithMemoryAllocator(ctx, cappedAllocator{max: heapLimit + engineOverheadBytes})
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("create javascript runtime: %v", r)
		}
		if err != nil {
			cancel()
			e = nil
		}
	}()
	limit := int(heapLimit)
	if heapLimit > uint64(^uint32(0)) {
		limit = int(^uint32(0)) // wasm32 cannot address more anyway
	}
	// Every runtime sets CloseOnContextDone: qjs caches the compiled module, with that setting,
	// on the first qjs.New of the process, and only with it can a running script be stopped.
	e.rt, err = qjs.New(qjs.Option{
		Context:            runtimeCtx,
		CloseOnContextDone: true,
		CWD:                cfg.rootDir,
		CacheDir:           cfg.cacheDir,
		MemoryLimit:        limit,
		Stdout:             io.Discard,
		Stderr:             io.Discard,
	})
	if err != nil {
		return nil, fmt.Errorf("create javascript runtime: %w", err)
	}
	if err := e.installPrelude(); err != nil {
		e.dispose()
		return nil, err
	}
	return e, nil
}

// preludeFile names the prelude in stack traces.
const preludeFile = "codemode_prelude.js"

// compiledPrelude is the prelude's bytecode, compiled by the first runtime and shared by all:
// evaluating bytecode takes about 0.8 ms where compiling the source took about 5 ms of every
// runtime's creation. Bytecode keeps the source text and line numbers, so function sources and
// stack traces read the same.
var compiledPrelude struct {
	sync.Mutex
	bytecode []byte
}

func preludeBytecode(c *qjs.Context) ([]byte, error) {
	compiledPrelude.Lock()
	defer compiledPrelude.Unlock()
	if compiledPrelude.bytecode == nil {
		bytecode, err := c.Compile(preludeFile, qjs.Code(preludeSource))
		if err != nil {
			return nil, fmt.Errorf("compile prelude: %w", err)
		}
		compiledPrelude.bytecode = bytecode
	}
	return compiledPrelude.bytecode, nil
}

func (e *engine) installPrelude() error {
	c := e.rt.Context()
	e.undefined = c.NewUndefined()
	area, err := prepareWasmArea(c, e.undefined.Raw())
	if err != nil {
		return err
	}
	e.wasm = area
	host := c.Function(e.serveHost)
	defer host.Free()
	bytecode, err := preludeBytecode(c)
	if err != nil {
		return err
	}
	prelude, err := c.Eval(preludeFile, qjs.Bytecode(bytecode))
	if err != nil {
		return fmt.Errorf("evaluate prelude: %w", err)
	}
	defer prelude.Free()
	internals, err := c.Invoke(prelude, e.undefined, host)
	if err != nil {
		return fmt.Errorf("run prelude: %w", err)
	}
	defer internals.Free()
	for _, name := range []string{"begin", "deliver", "take"} {
		e.entryPoints = append(e.entryPoints, internals.GetPropertyStr(name))
	}
	e.begin, e.deliver, e.take = e.entryPoints[0].Raw(), e.entryPoints[1].Raw(), e.entryPoints[2].Raw()
	return nil
}

// serveHost is the prelude's bridge into Go. Its one argument is an op character followed by
// the payload, so a call reads one string.
func (e *engine) serveHost(this *qjs.This) (*qjs.Value, error) {
	args := this.Args()
	if len(args) == 0 || e.host == nil {
		return e.undefined, nil
	}
	msg, err := e.readString(args[0].Raw())
	if err != nil || msg == "" {
		return e.undefined, err
	}
	out, ok := e.host(msg[0], msg[1:])
	if !ok {
		return e.undefined, nil
	}
	c := this.Context()
	return c.NewValue(qjs.NewHandle(e.rt, e.newString(out))), nil
}

// guard runs f, turning any qjs panic into an error and marking the engine dead: a trapped or
// interrupted runtime panics on every later call, including Close.
func (e *engine) guard(f func() error) (err error) {
	if e.dead {
		return errEngineDead
	}
	defer func() {
		if r := recover(); r != nil {
			e.dead = true
			err = fmt.Errorf("%w: %v", errEngineDead, r)
		}
	}()
	err = f()
	if err != nil && isFatalEngineError(err.Error()) {
		e.dead = true
	}
	return err
}

// isFatalEngineError recognises the errors that mean QuickJS's memory is corrupt: its 64 KiB C
// stack overflowed into static data, or wasm trapped.
func isFatalEngineError(msg string) bool {
	for _, s := range []string{"invalid opcode", "out of bounds memory access", "stack overflow", "unreachable", "module closed"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// turn is one turn of the cell's event loop: it calls entry (begin or deliver) with input, runs
// the pending jobs, and returns the records JavaScript queued for Go, "" when nothing. It costs
// 9 crossings.
func (e *engine) turn(entry uint64, input string) (queued string, err error) {
	err = e.guard(func() error {
		arg := e.newString(input)
		res := e.invoke(entry, arg, true)
		e.free(arg)
		if res != e.wasm.undefined {
			e.free(res)
			return e.pendingException("call prelude")
		}
		if err := e.runJobsRaw(); err != nil {
			return err
		}
		v := e.invoke(e.take, 0, false)
		if v == e.wasm.undefined {
			return nil
		}
		defer e.free(v)
		s, err := e.readString(v)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(s, "0 ") && !strings.HasPrefix(s, "1 ") {
			return e.pendingException("take queued calls")
		}
		queued = s
		return nil
	})
	return queued, err
}

// loadModule registers and links the cell's module without running it.
func (e *engine) loadModule(src string) error {
	return e.guard(func() error {
		c := e.rt.Context()
		opts := e.wasm.moduleOpts
		if len(src)+1 > scratchSize {
			code := c.Malloc(uint64(len(src) + 1))
			defer c.FreeHandle(code)
			writeCString(c, uint32(code), src)
			opts = c.Call("QJS_CreateEvalOption", code, 0, 0, e.wasm.moduleFile, qjs.JsEvalTypeModule|qjs.JsEvalFlagStrict).Raw()
			defer c.FreeHandle(opts)
		} else {
			writeCString(c, e.wasm.scratch, src)
		}
		module := c.Call("QJS_Load", c.Raw(), opts).Raw()
		if c.HasException() {
			return c.Exception()
		}
		e.free(module)
		return nil
	})
}

// dispose releases the runtime. A dead or interrupted runtime is only dropped: wazero closed its
// module, and calling into it (Close included) would panic.
func (e *engine) dispose() {
	if !e.dead && e.rt != nil && e.ctx.Err() == nil {
		_ = e.guard(func() error {
			for _, v := range e.entryPoints {
				v.Free()
			}
			e.rt.Close()
			return nil
		})
	}
	e.dead = true
	e.cancel()
}

// errNotInterruptible reports that qjs compiled its module without CloseOnContextDone, because
// some other code of the process created the first qjs runtime without it.
var errNotInterruptible = errors.New("qjs runtimes of this process cannot be interrupted: the first qjs.New of the process did not set CloseOnContextDone")

// checkInterruptible proves that cancelling the engine's context stops a running script. It
// consumes the engine.
func (e *engine) checkInterruptible() error {
	timer := time.AfterFunc(5*time.Millisecond, e.cancel)
	defer timer.Stop()
	err := e.guard(func() error {
		// About a second of work when it cannot be interrupted.
		v, err := e.rt.Context().Eval("codemode_interrupt_check.js", qjs.Code("for (let i = 0; i < 1e7; i++) {} 0"))
		if err == nil {
			v.Free()
		}
		return err
	})
	e.dispose()
	if err == nil {
		return errNotInterruptible
	}
	return nil
}
