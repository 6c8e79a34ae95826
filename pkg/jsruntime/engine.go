package jsruntime

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strings"
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

// hostFunc receives the prelude's calls into Go. It runs on the goroutine that owns the engine,
// synchronously inside a wasm call.
type hostFunc func(c *qjs.Context, op string, args []*qjs.Value) *qjs.Value

// engine is one QuickJS runtime prepared with the prelude. It is owned by one goroutine at a time
// (the pool's creator, then exactly one cell) and never reused after its cell.
type engine struct {
	rt        *qjs.Runtime
	ctx       context.Context
	cancel    context.CancelFunc
	heapLimit uint64

	// host is the cell's handler for prelude calls; set before the cell's first call.
	host hostFunc

	setupFn, startFn, takeFn, deliverFn, fireFn *qjs.Value
	// undefined is the `this` of every call; undefined is not reference counted, so one value
	// serves the runtime's whole life and saves a wasm call per crossing.
	undefined *qjs.Value
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

func (e *engine) installPrelude() error {
	c := e.rt.Context()
	host := c.Function(func(this *qjs.This) (*qjs.Value, error) {
		args := this.Args()
		if len(args) == 0 || e.host == nil {
			return this.Context().NewUndefined(), nil
		}
		return e.host(this.Context(), args[0].String(), args[1:]), nil
	})
	defer host.Free()
	prelude, err := c.Eval("codemode_prelude.js", qjs.Code(preludeSource))
	if err != nil {
		return fmt.Errorf("evaluate prelude: %w", err)
	}
	defer prelude.Free()
	undefined := c.NewUndefined()
	defer undefined.Free()
	internals, err := c.Invoke(prelude, undefined, host)
	if err != nil {
		return fmt.Errorf("run prelude: %w", err)
	}
	defer internals.Free()
	e.setupFn = internals.GetPropertyStr("setup")
	e.startFn = internals.GetPropertyStr("start")
	e.takeFn = internals.GetPropertyStr("take")
	e.deliverFn = internals.GetPropertyStr("deliver")
	e.fireFn = internals.GetPropertyStr("fire")
	e.undefined = c.NewUndefined()
	return nil
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

// call invokes one prelude entry point with an optional string argument and returns its string
// result ("" when it returned undefined).
func (e *engine) call(fn *qjs.Value, arg *string) (out string, err error) {
	err = e.guard(func() error {
		c := e.rt.Context()
		var args []*qjs.Value
		if arg != nil {
			v := c.NewString(*arg)
			defer v.Free()
			args = append(args, v)
		}
		res, err := c.Invoke(fn, e.undefined, args...)
		if err != nil {
			return err
		}
		defer res.Free()
		if res.IsString() {
			out = res.String()
		}
		return nil
	})
	return out, err
}

// fire runs timer id's callback.
func (e *engine) fire(id int64) error {
	return e.guard(func() error {
		c := e.rt.Context()
		v := c.NewInt64(id)
		defer v.Free()
		res, err := c.Invoke(e.fireFn, e.undefined, v)
		if err != nil {
			return err
		}
		res.Free()
		return nil
	})
}

// runJobs runs pending promise jobs: qjs runs its job loop at the end of every Eval, and there are
// no QuickJS timers to wait for because the prelude removed them.
func (e *engine) runJobs() error {
	return e.guard(func() error {
		v, err := e.rt.Context().Eval("codemode_jobs.js", qjs.Code("0"))
		if err != nil {
			return err
		}
		v.Free()
		return nil
	})
}

// loadModule registers and links the cell's module without running it.
func (e *engine) loadModule(src string) error {
	return e.guard(func() error {
		v, err := e.rt.Context().Load(moduleName, qjs.Code(src))
		if err != nil {
			return err
		}
		v.Free()
		return nil
	})
}

// dispose releases the runtime. A dead or interrupted runtime is only dropped: wazero closed its
// module, and calling into it (Close included) would panic.
func (e *engine) dispose() {
	if !e.dead && e.rt != nil && e.ctx.Err() == nil {
		_ = e.guard(func() error {
			for _, v := range []*qjs.Value{e.setupFn, e.startFn, e.takeFn, e.deliverFn, e.fireFn} {
				if v != nil {
					v.Free()
				}
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
