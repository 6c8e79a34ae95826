package engine

import (
	"context"
	"errors"
	"fmt"
)

// interruptExitCode is the exit code of a module closed by Interrupt.
const interruptExitCode = 0xC0DE

// interrupt stops a running script from any goroutine: it closes the wasm module, and wazero's
// CloseOnContextDone instrumentation makes the running code return at its next loop header or call
// (about a millisecond later). The engine is dead afterwards. Closing the module directly lets any
// goroutine stop the engine without a cancellable context threaded through every call. (It does
// not save wazero's watcher: v1.9 starts a goroutine on every call of a module compiled with
// CloseOnContextDone, whatever the call's context, about a microsecond of each crossing.)
func (e *Engine) interrupt() {
	if mod := e.w.mod; mod != nil {
		_ = mod.CloseWithExitCode(context.Background(), interruptExitCode)
	}
}

// interruptWhenStopped calls interrupt (an engine's) when ctx ends. The returned stop unregisters
// that; if the interrupt has begun, stop waits until it is done, so an engine is never handed back
// to the pool (and to another cell) with a late interrupt still on its way to it.
func interruptWhenStopped(ctx context.Context, interrupt func()) (stop func()) {
	done := make(chan struct{})
	unregister := context.AfterFunc(ctx, func() {
		defer close(done)
		interrupt()
	})
	return func() {
		if !unregister() {
			<-done
		}
	}
}

// ErrNotInterruptible reports that qjs compiled its module without CloseOnContextDone, because
// some other code of the process created the first qjs runtime without it.
var ErrNotInterruptible = errors.New("qjs runtimes of this process cannot be interrupted: the first qjs.New of the process did not set CloseOnContextDone")

// checkInterruptible proves that interrupting an engine stops a running script. It consumes the
// engine.
//
// The script asks the bridge to interrupt it and then loops for about a second. The interrupt comes
// from the script itself rather than from a timer, so the check needs no clock: it behaves the same
// under load and inside a testing/synctest bubble, whose clock stands still while a goroutine runs.
func (e *Engine) checkInterruptible() error {
	defer e.dispose()
	e.host = interruptProbe{e}
	defer func() { e.host = nil }()
	fn, err := e.evalSource("codemode_interrupt_check.js",
		"(function (host) { host(\"interrupt\"); for (let i = 0; i < 1e7; i++) {} return 0; })")
	if err != nil {
		return fmt.Errorf("interrupt check: %w", err)
	}
	v, err := e.callValue(fn, e.hostFn, "")
	if err == nil {
		e.free(v)
	}
	if e.Classify(err) != ErrInterrupted {
		return ErrNotInterruptible
	}
	return nil
}

// interruptProbe is the bridge host of checkInterruptible: any message interrupts the engine
// whose script sent it.
type interruptProbe struct{ e *Engine }

func (p interruptProbe) Serve(string) Reply {
	p.e.interrupt()
	return Undefined()
}

func (interruptProbe) Fault(error) {}
