package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// StartToolCall is how a caller (a runtime, or a remote transport's client) starts d's tool call:
// d.StartToolCall with done guarded to run once, and a panic of the method itself contained as
// the Delegate contract says: the call settles with FailureToolTaskPanicked, which d hears of
// (docs/adr/0066-one-delegate-contract.md).
func StartToolCall(ctx context.Context, d Delegate, call NestedToolCall, done func(json.RawMessage, error)) {
	var settled atomic.Bool
	once := func(out json.RawMessage, err error) {
		if settled.CompareAndSwap(false, true) {
			done(out, err)
		}
	}
	defer func() {
		if p := recover(); p != nil {
			d.ReportFailure(FailureToolTaskPanicked)
			once(nil, errors.New(FailureToolTaskPanicked))
		}
	}()
	d.StartToolCall(ctx, call, once)
}

// StartNotify is StartToolCall for a notification: a panicking StartNotify settles it with
// FailureNotificationTaskPanicked, which d hears of.
func StartNotify(ctx context.Context, d Delegate, callID string, cellID CellID, text string, done func(error)) {
	var settled atomic.Bool
	once := func(err error) {
		if settled.CompareAndSwap(false, true) {
			done(err)
		}
	}
	defer func() {
		if p := recover(); p != nil {
			d.ReportFailure(FailureNotificationTaskPanicked)
			once(errors.New(FailureNotificationTaskPanicked))
		}
	}()
	d.StartNotify(ctx, callID, cellID, text, once)
}

// CallCellUsage is how a caller gives d a closing cell's usage: d.CellUsage, contained as
// CallCellClosed contains d.CellClosed.
func CallCellUsage(d Delegate, id CellID, usage CellUsage) {
	callClosing(d, id, "CellUsage", func() { d.CellUsage(id, usage) })
}

// CallCellClosed is how a caller tells d that a cell closed: d.CellClosed on a goroutine of its
// own, waited for. The owner's code may panic or end its goroutine (runtime.Goexit), and neither
// may take the caller down or skip the callbacks after it: each is reported to d.ReportFailure as
// the cell's task failing (CellTaskFailure), with the same text whichever transport closes the
// cell (docs/adr/0072-names-epochs-and-one-closing-call.md).
func CallCellClosed(d Delegate, id CellID) {
	callClosing(d, id, "CellClosed", func() { d.CellClosed(id) })
}

// callClosing runs call, d's callback name for cell id, on a goroutine of its own (a Goexit
// cannot be stopped, only kept off the caller's goroutine) and reports how it failed, if it did.
func callClosing(d Delegate, id CellID, name string, call func()) {
	var panicked any
	returned := false
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		call()
		returned = true
	}()
	<-done
	switch {
	case panicked != nil:
		d.ReportFailure(CellTaskFailure(id, fmt.Sprintf("%s panicked: %v", name, panicked)))
	case !returned:
		d.ReportFailure(CellTaskFailure(id, name+" ended its goroutine without returning"))
	}
}

// BlockingDelegate is a delegate whose calls return their outcome: the form an owner whose tools
// block writes. FromBlocking makes a Delegate of it.
type BlockingDelegate interface {
	// InvokeTool runs a nested tool call and returns its JSON result. ctx is cancelled when the
	// cell no longer needs the result (termination, completion, shutdown); the delegate should
	// stop its work then.
	InvokeTool(ctx context.Context, call NestedToolCall) (json.RawMessage, error)
	// Notify delivers a notify() text from the cell. callID is the exec call's ToolCallID.
	Notify(ctx context.Context, callID string, cellID CellID, text string) error
	// CellClosed is Delegate.CellClosed.
	CellClosed(cellID CellID)
	// ReportFailure is Delegate.ReportFailure; it also hears of the adapter's contained failures.
	ReportFailure(reason string)
	// CellUsage is Delegate.CellUsage.
	CellUsage(cellID CellID, usage CellUsage)
}

// goexitDetail says how a callback ended when it ended its goroutine instead of returning
// (runtime.Goexit, as t.FailNow in a test delegate does).
const goexitDetail = "its goroutine ended without returning"

// FromBlocking is the Delegate that runs b's calls on goroutines of their own:
//   - each tool call runs InvokeTool on its own goroutine;
//   - a cell's notifications run Notify one at a time, in the order they were started, on a
//     goroutine that exists while the cell has notifications to deliver, so a slow Notify never
//     holds up the script and a cell's notifications arrive in the order the script wrote them;
//     one whose ctx ended while it waited is settled with ctx's error instead;
//   - a call that panics, or ends its goroutine (runtime.Goexit), still settles, with Codex's
//     texts (FailureToolTaskPanicked, ToolTaskFailure, FailureNotificationTaskPanicked,
//     NotificationTaskFailure), and b.ReportFailure hears the same text; later notifications of
//     the cell are still delivered.
//
// CellClosed, ReportFailure and CellUsage go to b as they come.
func FromBlocking(b BlockingDelegate) Delegate {
	return &blocking{b: b, queues: map[notifyKey]*notifyQueue{}}
}

// blocking is FromBlocking's Delegate.
type blocking struct {
	b      BlockingDelegate
	mu     sync.Mutex
	queues map[notifyKey]*notifyQueue // the cells whose notifications are being delivered
}

// notifyKey names one cell's notification queue: the exec call and the cell, since one delegate
// may serve several sessions, whose cell IDs repeat.
type notifyKey struct {
	callID string
	cellID CellID
}

// notifyQueue is a cell's notifications not yet delivered, oldest first.
type notifyQueue struct {
	pending []notification
}

// notification is one started notification.
type notification struct {
	ctx  context.Context
	key  notifyKey
	text string
	done func(error)
}

// StartToolCall runs b.InvokeTool on a goroutine of its own.
func (a *blocking) StartToolCall(ctx context.Context, call NestedToolCall, done func(json.RawMessage, error)) {
	go a.invoke(ctx, call, done)
}

// invoke runs one tool call. A panic or a Goexit in InvokeTool settles the call from the
// deferred handler (Goexit runs it too, as the goroutine unwinds), so the script never waits
// forever; the owner is told.
func (a *blocking) invoke(ctx context.Context, call NestedToolCall, done func(json.RawMessage, error)) {
	returned := false
	defer func() {
		if returned {
			return
		}
		reason := ToolTaskFailure(goexitDetail)
		if recover() != nil {
			reason = FailureToolTaskPanicked
		}
		a.b.ReportFailure(reason)
		done(nil, errors.New(reason))
	}()
	out, err := a.b.InvokeTool(ctx, call)
	returned = true
	done(out, err)
}

// StartNotify queues the notification behind the cell's earlier ones, starting the cell's
// delivery goroutine when none runs.
func (a *blocking) StartNotify(ctx context.Context, callID string, cellID CellID, text string, done func(error)) {
	n := notification{ctx: ctx, key: notifyKey{callID, cellID}, text: text, done: done}
	a.mu.Lock()
	q, running := a.queues[n.key]
	if !running {
		q = &notifyQueue{}
		a.queues[n.key] = q
	}
	q.pending = append(q.pending, n)
	a.mu.Unlock()
	if !running {
		go a.drain(n.key, q)
	}
}

// drain delivers a cell's notifications in order until its queue is empty, then forgets it.
func (a *blocking) drain(key notifyKey, q *notifyQueue) {
	for {
		a.mu.Lock()
		if len(q.pending) == 0 {
			delete(a.queues, key)
			a.mu.Unlock()
			return
		}
		n := q.pending[0]
		q.pending[0] = notification{}
		q.pending = q.pending[1:]
		a.mu.Unlock()
		if !a.deliver(n, q) {
			return
		}
	}
}

// deliver runs one Notify and reports whether this goroutine may go on. A notification whose ctx
// ended while it waited is settled with ctx's error and not delivered: the cell no longer needs it.
// A panic settles the notification and draining goes on; a Goexit cannot be stopped, so draining
// goes on from a new goroutine while this one unwinds.
func (a *blocking) deliver(n notification, q *notifyQueue) (goOn bool) {
	if err := n.ctx.Err(); err != nil {
		n.done(context.Cause(n.ctx))
		return true
	}
	returned := false
	defer func() {
		if returned {
			return
		}
		reason := NotificationTaskFailure(goexitDetail)
		if recover() != nil {
			reason, goOn = FailureNotificationTaskPanicked, true
		}
		a.b.ReportFailure(reason)
		n.done(errors.New(reason))
		if !goOn {
			go a.drain(n.key, q)
		}
	}()
	err := a.b.Notify(n.ctx, n.key.callID, n.key.cellID, n.text)
	returned = true
	n.done(err)
	return true
}

// CellClosed goes to b.
func (a *blocking) CellClosed(cellID CellID) { a.b.CellClosed(cellID) }

// ReportFailure goes to b.
func (a *blocking) ReportFailure(reason string) { a.b.ReportFailure(reason) }

// CellUsage goes to b.
func (a *blocking) CellUsage(cellID CellID, usage CellUsage) { a.b.CellUsage(cellID, usage) }
