package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/codemodehq/codemode/gen/go/qjswasm"
)

// interrupt stops a running script from any goroutine: it raises the engine's stop flag, and the
// module's next interrupt poll (generators/qjswasm: every loop header counts, and every
// qjswasm.PollInterval turns the module calls the host) unwinds the whole wasm call stack (poll).
// The flag stays up until the pool resets the engine, so a script whose poll was answered inside a
// nested call (the bridge calling back into wasm) is stopped again at its next poll.
func (e *Engine) interrupt() { e.stop.Store(true) }

// errPollStopped is the panic with which poll unwinds a stopped script: a Go panic in a host
// function ends the wasm call that is running, with no wasm code run on the way out, and the
// engine's memory is then as a trap leaves it (the pool's reset restores it).
var errPollStopped = errors.New("javascript runtime: the script was interrupted")

// poll answers the module's interrupt poll: it unwinds a stopped script. Returning to Go here is
// also what lets the garbage collector stop the world while a script spins.
func (e *Engine) poll() uint64 {
	if e.stop.Load() {
		panic(errPollStopped)
	}
	if e.longTurn != nil && time.Now().After(e.longTurnAt) {
		f := e.longTurn
		e.longTurn = nil
		f()
	}
	return jsUndefined
}

// OnLongTurn has f called once, on the goroutine running the script, by the first interrupt poll
// after the next turn has run for d: a caller that runs a turn on a goroutine with other duties (a
// transport's reader) hands those on then. f nil cancels it. The polls come every
// qjswasm.PollInterval loop turns of the module, QuickJS's C loops included, so a turn that
// computes is noticed within about a millisecond past d.
func (e *Engine) OnLongTurn(d time.Duration, f func()) {
	e.longTurn, e.longTurnAt = f, time.Now().Add(d)
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

// ErrNotInterruptible reports that a running script did not stop when interrupted: the module does
// not poll (it is not gen/go/qjswasm's), or the poll does not reach the engine.
var ErrNotInterruptible = errors.New("javascript runtime: a running script cannot be interrupted: the QuickJS module does not poll for interrupts")

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

// trampoline makes a JavaScript call that the module's stack guard hands over (generators/qjswasm:
// every qjswasm.SegmentFrames nested calls) as a new wazero call, whose native stack is its own:
// one wazero call cannot grow its stack much past 50 MB, some 6,000 JavaScript frames. The function
// is resolved for this call only and dropped with its stack. A trap or an interrupt in the call
// goes on unwinding the calls below it: the panic ends the host function that made it.
//
// The new stack is Go heap the host's memory budget pays for (docs/adr/0061-the-module-guards-
// its-stack.md, docs/adr/0058-one-host-wide-memory-budget.md): segmentStackBytes are taken from it
// (takeStack) for as long as the call runs, and given back however it ends (a return, an
// exception, a trap, an interrupt's panic). When the budget cannot cover them the call is not
// made: it throws the RangeError the guard throws at its own limit, which the script may catch,
// as V8 throws it when its stack runs out. Unlike a refused heap growth, which fails the cell
// because its heap stays full, this leaves nothing full behind: the exception unwinds the stacks
// that were taken, and the cell goes on.
func (e *Engine) trampoline(jsctx, block uint32) uint64 {
	if !e.mem.takeStack(segmentStackBytes) {
		return e.throw(exThrowRangeError, stackOverflowMessage)
	}
	defer e.mem.giveStack(segmentStackBytes)
	res, err := e.w.mod.ExportedFunction(qjswasm.TrampolineExport).Call(e.w.ctx, uint64(jsctx), uint64(block))
	if err != nil {
		panic(err)
	}
	return res[0]
}

// segmentStackBytes is what the host's budget is charged for each native stack the trampoline
// starts: the live Go heap one segment of qjswasm.SegmentFrames JavaScript frames holds, measured
// (TestSegmentStackIsCharged) at 8.7 MiB for plain recursion and 13.1 MiB when each frame also
// runs through QuickJS's C code (recursion through Array.prototype.map). wazero grows a stack by
// doubling it, so about as much again was garbage on the way, which the Go collector's limit
// (GOMEMLIMIT, set from the budget) reclaims.
const segmentStackBytes = 12 << 20

// stackOverflowMessage is the message of QuickJS's stack overflow RangeError, V8's too.
const stackOverflowMessage = "Maximum call stack size exceeded"
