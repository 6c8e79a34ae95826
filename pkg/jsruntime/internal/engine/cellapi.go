package engine

import (
	"context"
	"errors"
)

// The methods a cell runs its turns with: the boundary between the engine, which knows nothing of
// cells, and the cell layer, which touches no wasm memory, export or module.

// Attach gives the runtime to a cell: host answers its bridge messages, its heap may grow by
// heapLimit beyond the image (each byte of growth taken from the host's budget, if any), and a
// refused growth interrupts the running script.
func (e *Engine) Attach(host Host, heapLimit uint64) {
	e.host = host
	e.mem.limit = uint64(e.img.size) + heapLimit
	e.mem.base = uint64(e.img.size)
	e.mem.onRefuse = e.interrupt
}

// Detach detaches the cell before the runtime goes back to its pool.
func (e *Engine) Detach() {
	e.mem.onRefuse = nil
	e.host = nil
}

// InterruptOn interrupts the engine when ctx ends, until the returned stop is called; stop waits
// for an interrupt that has already begun (interruptWhenStopped), so the engine never goes back to
// the pool with a late interrupt on its way to it.
func (e *Engine) InterruptOn(ctx context.Context) (stop func()) {
	return interruptWhenStopped(ctx, e.interrupt)
}

// Begin runs the first turn of a cell: the prelude's begin with the JSON text input. It returns
// what the script queued meanwhile.
func (e *Engine) Begin(input string) (queued string, err error) {
	return e.turn(e.entry.begin, input, nil)
}

// Deliver runs a later turn: the prelude's deliver with ready results and timers as JSON text,
// and strs as further arguments, strings made from Go rather than parsed by QuickJS (long
// strings of tool results: QuickJS makes an ASCII string from UTF-8 at memory speed, and parses
// a JSON string at several nanoseconds a character).
func (e *Engine) Deliver(input string, strs []string) (queued string, err error) {
	return e.turn(e.entry.deliver, input, strs)
}

// DeliverOne runs a later turn that settles the one tool call id with value, the small JSON text
// of its result: the prelude's deliverOne, which parses value alone, without a batch array to
// build and parse around it (ADR 62: 1.2 µs of an awaited call's turn).
func (e *Engine) DeliverOne(id int32, value string) (queued string, err error) {
	return e.turnOne(id, value)
}

// Classify turns a crossing's error into what it means for the engine: an interrupt, a trap
// (QuickJS's memory may be corrupt; a reset repairs it), or a JavaScript error.
func (e *Engine) Classify(err error) error {
	var trap *Trap
	if !errors.As(err, &trap) {
		return err
	}
	if e.stop.Load() {
		return ErrInterrupted
	}
	return err
}

// HeapRefused reports (once) whether, and why, a heap growth was refused since the last call.
func (e *Engine) HeapRefused() Refusal { return e.mem.takeRefused() }

// ExportsKept counts the resolved wasm exports the engine holds beyond one of each.
func (e *Engine) ExportsKept() int { return e.w.kept() }

// ShedExports drops the resolved exports an idle cell need not keep.
func (e *Engine) ShedExports() { e.w.shed() }

// MainName is the name under which begin imports the module LoadModule loaded.
func (e *Engine) MainName() string { return e.main }

// Retire marks the runtime unusable: its pool disposes of it instead of resetting it.
func (e *Engine) Retire() { e.dead = true }
