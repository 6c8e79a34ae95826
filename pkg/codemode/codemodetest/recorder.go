package codemodetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/internal/broadcast"
)

// EventKind says what an Event records.
type EventKind int

// The kinds of recorded events.
const (
	// EventToolCalled: InvokeTool was entered (on FromBlocking's goroutine for the call).
	EventToolCalled EventKind = iota + 1
	// EventToolReturned: InvokeTool returned to the session.
	EventToolReturned
	// EventNotified: Notify was entered.
	EventNotified
	// EventNotifyReturned: Notify returned to the session.
	EventNotifyReturned
	// EventCellClosed: CellClosed was called.
	EventCellClosed
	// EventMark: the test marked a point of its own (see Recorder.Mark).
	EventMark
	// EventFailure: the session reported a failure (Delegate.ReportFailure); the label is the
	// reason.
	EventFailure
)

// String names the kind for failure messages.
func (k EventKind) String() string {
	switch k {
	case EventToolCalled:
		return "tool-called"
	case EventToolReturned:
		return "tool-returned"
	case EventNotified:
		return "notified"
	case EventNotifyReturned:
		return "notify-returned"
	case EventCellClosed:
		return "cell-closed"
	case EventMark:
		return "mark"
	case EventFailure:
		return "failure"
	default:
		return "invalid"
	}
}

// Event is one entry of the Recorder's ordered log.
type Event struct {
	// Seq orders events; it starts at 1 and never repeats within a Recorder.
	Seq uint64
	// At is the wall-clock time of the event, for diagnostics only.
	At   time.Time
	Kind EventKind
	// CellID is the cell the event is about (empty for marks).
	CellID codemode.CellID
	// Label is the tool's display name, the notification text, or the mark's label.
	Label string
}

// String renders the event for failure messages.
func (e Event) String() string {
	return fmt.Sprintf("#%d %s cell=%q %q", e.Seq, e.Kind, e.CellID, e.Label)
}

// ToolFunc scripts the behaviour of one tool. It runs on the delegate's goroutine and receives the
// delegate's ctx, which the session cancels when the cell no longer needs the result.
type ToolFunc func(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error)

// NotifyFunc scripts the behaviour of Notify.
type NotifyFunc func(ctx context.Context, callID string, cellID codemode.CellID, text string) error

// CellClosedFunc scripts what CellClosed does after it was recorded.
type CellClosedFunc func(cellID codemode.CellID)

// ToolCall is one recorded InvokeTool.
type ToolCall struct {
	// Call is what the session passed.
	Call codemode.NestedToolCall
	// Seq is the sequence number of the EventToolCalled event.
	Seq uint64

	done     <-chan struct{}
	returned chan struct{}

	mu        sync.Mutex
	returnSeq uint64
	result    json.RawMessage
	err       error
}

// Cancelled is closed when the session cancels the call's ctx.
func (c *ToolCall) Cancelled() <-chan struct{} { return c.done }

// Returned is closed when InvokeTool has returned to the session.
func (c *ToolCall) Returned() <-chan struct{} { return c.returned }

// Result returns what InvokeTool returned; both are nil while the call is still running.
func (c *ToolCall) Result() (json.RawMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.result, c.err
}

// ReturnSeq is the sequence number of the EventToolReturned event, 0 while the call runs.
func (c *ToolCall) ReturnSeq() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.returnSeq
}

// Notification is one recorded Notify.
type Notification struct {
	CallID string
	CellID codemode.CellID
	Text   string
	// Seq is the sequence number of the EventNotified event.
	Seq uint64

	done     <-chan struct{}
	returned chan struct{}

	mu        sync.Mutex
	returnSeq uint64
}

// Cancelled is closed when the session cancels the notification's ctx.
func (n *Notification) Cancelled() <-chan struct{} { return n.done }

// Returned is closed when Notify has returned to the session.
func (n *Notification) Returned() <-chan struct{} { return n.returned }

// ReturnSeq is the sequence number of the EventNotifyReturned event, 0 while Notify runs.
func (n *Notification) ReturnSeq() uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.returnSeq
}

// Recorder is a Delegate for tests: it records every callback in one ordered log and runs the
// behaviour scripted per tool name. It is a codemode.BlockingDelegate whose Delegate methods run
// it through codemode.FromBlocking, and records the failures a session reports. It is safe for
// concurrent use.
//
// Tools are looked up by the display form of the reported ToolName (codemode.ToolName.String, so
// "echo" in the default namespace, "mcp__srv__dyn" otherwise). A call to a tool without a
// scripted behaviour fails with an error naming the tool.
type Recorder struct {
	mu            sync.Mutex
	seq           uint64
	events        []Event
	tools         map[string]ToolFunc
	notify        NotifyFunc
	closed        CellClosedFunc
	calls         []*ToolCall
	notifications []*Notification
	changed       broadcast.Signal
	// started is codemode.FromBlocking of the Recorder: its StartToolCall and StartNotify.
	started codemode.Delegate
}

var (
	_ codemode.Delegate         = (*Recorder)(nil)
	_ codemode.BlockingDelegate = (*Recorder)(nil)
)

// NewRecorder returns a Recorder that knows no tools and accepts every notification.
func NewRecorder() *Recorder {
	r := &Recorder{tools: map[string]ToolFunc{}}
	r.started = codemode.FromBlocking(r)
	return r
}

// StartToolCall runs InvokeTool on a goroutine of its own (codemode.FromBlocking).
func (r *Recorder) StartToolCall(ctx context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	r.started.StartToolCall(ctx, call, done)
}

// StartNotify runs Notify after the cell's earlier notifications (codemode.FromBlocking).
func (r *Recorder) StartNotify(ctx context.Context, callID string, cellID codemode.CellID, text string, done func(error)) {
	r.started.StartNotify(ctx, callID, cellID, text, done)
}

// CellUsage is not recorded.
func (r *Recorder) CellUsage(codemode.CellID, codemode.CellUsage) {}

// Handle scripts the behaviour of tool, replacing any earlier one.
func (r *Recorder) Handle(tool string, fn ToolFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tools[tool] = fn
}

// HandleNotify scripts the behaviour of Notify; nil accepts every notification at once.
func (r *Recorder) HandleNotify(fn NotifyFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notify = fn
}

// HandleCellClosed scripts what CellClosed does after recording; nil does nothing more.
func (r *Recorder) HandleCellClosed(fn CellClosedFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = fn
}

// InvokeTool records the call and runs the tool's scripted behaviour. The return is recorded even
// when the behaviour panics (the panic then goes on to the session).
func (r *Recorder) InvokeTool(ctx context.Context, call codemode.NestedToolCall) (result json.RawMessage, err error) {
	name := call.ToolName.String()
	rc := &ToolCall{Call: call, done: ctx.Done(), returned: make(chan struct{})}
	r.mu.Lock()
	rc.Seq = r.recordLocked(EventToolCalled, call.CellID, name)
	r.calls = append(r.calls, rc)
	fn := r.tools[name]
	r.mu.Unlock()

	defer func() {
		r.mu.Lock()
		seq := r.recordLocked(EventToolReturned, call.CellID, name)
		r.mu.Unlock()
		rc.mu.Lock()
		rc.result, rc.err, rc.returnSeq = result, err, seq
		rc.mu.Unlock()
		close(rc.returned)
	}()
	if fn == nil {
		return nil, fmt.Errorf("codemodetest: no behaviour scripted for tool %q", name)
	}
	return fn(ctx, call)
}

// Notify records the notification and runs the scripted behaviour, if any.
func (r *Recorder) Notify(ctx context.Context, callID string, cellID codemode.CellID, text string) error {
	n := &Notification{CallID: callID, CellID: cellID, Text: text, done: ctx.Done(), returned: make(chan struct{})}
	r.mu.Lock()
	n.Seq = r.recordLocked(EventNotified, cellID, text)
	r.notifications = append(r.notifications, n)
	fn := r.notify
	r.mu.Unlock()

	defer func() {
		r.mu.Lock()
		seq := r.recordLocked(EventNotifyReturned, cellID, text)
		r.mu.Unlock()
		n.mu.Lock()
		n.returnSeq = seq
		n.mu.Unlock()
		close(n.returned)
	}()
	if fn == nil {
		return nil
	}
	return fn(ctx, callID, cellID, text)
}

// CellClosed records the closure, then runs the scripted behaviour, if any.
func (r *Recorder) CellClosed(cellID codemode.CellID) {
	r.mu.Lock()
	r.recordLocked(EventCellClosed, cellID, "")
	fn := r.closed
	r.mu.Unlock()
	if fn != nil {
		fn(cellID)
	}
}

// ReportFailure records a failure the session reported.
func (r *Recorder) ReportFailure(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recordLocked(EventFailure, "", reason)
}

// Failures returns the reported failure reasons in order.
func (r *Recorder) Failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failuresLocked()
}

func (r *Recorder) failuresLocked() []string {
	var reasons []string
	for _, e := range r.events {
		if e.Kind == EventFailure {
			reasons = append(reasons, e.Label)
		}
	}
	return reasons
}

// AwaitFailures waits until at least n failures were reported and returns them all.
func (r *Recorder) AwaitFailures(ctx context.Context, n int) ([]string, error) {
	if err := r.await(ctx, func() bool { return len(r.failuresLocked()) >= n }); err != nil {
		return nil, fmt.Errorf("waiting for %d reported failures: %w", n, err)
	}
	return r.Failures(), nil
}

// Mark records a point of the test itself in the ordered log and returns its sequence number, so
// a test can check that a callback happened before or after something it observed.
func (r *Recorder) Mark(label string) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.recordLocked(EventMark, "", label)
}

// recordLocked appends an event and wakes every waiter. r.mu must be held.
func (r *Recorder) recordLocked(kind EventKind, cellID codemode.CellID, label string) uint64 {
	r.seq++
	r.events = append(r.events, Event{Seq: r.seq, At: time.Now(), Kind: kind, CellID: cellID, Label: label})
	r.changed.Broadcast()
	return r.seq
}

// Events returns a copy of the ordered log.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// ToolCalls returns the recorded tool calls in call order.
func (r *Recorder) ToolCalls() []*ToolCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*ToolCall(nil), r.calls...)
}

// Notifications returns the recorded notifications in call order.
func (r *Recorder) Notifications() []*Notification {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Notification(nil), r.notifications...)
}

// ClosedCells returns the cell of every CellClosed call in order, duplicates included.
func (r *Recorder) ClosedCells() []codemode.CellID {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []codemode.CellID
	for _, e := range r.events {
		if e.Kind == EventCellClosed {
			ids = append(ids, e.CellID)
		}
	}
	return ids
}

// CellClosedCount returns how often CellClosed was called for id.
func (r *Recorder) CellClosedCount(id codemode.CellID) int {
	n := 0
	for _, c := range r.ClosedCells() {
		if c == id {
			n++
		}
	}
	return n
}

// AwaitToolCall waits until the nth (from 1) call to tool has been recorded and returns it.
func (r *Recorder) AwaitToolCall(ctx context.Context, tool string, nth int) (*ToolCall, error) {
	var found *ToolCall
	err := r.await(ctx, func() bool {
		seen := 0
		for _, c := range r.calls {
			if c.Call.ToolName.String() == tool {
				seen++
				if seen == nth {
					found = c
					return true
				}
			}
		}
		return false
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for call %d to tool %q: %w", nth, tool, err)
	}
	return found, nil
}

// AwaitNotifications waits until at least n notifications have been recorded and returns them all.
func (r *Recorder) AwaitNotifications(ctx context.Context, n int) ([]*Notification, error) {
	if err := r.await(ctx, func() bool { return len(r.notifications) >= n }); err != nil {
		return nil, fmt.Errorf("waiting for %d notifications: %w", n, err)
	}
	return r.Notifications(), nil
}

// AwaitCellClosed waits until CellClosed has been called for id.
func (r *Recorder) AwaitCellClosed(ctx context.Context, id codemode.CellID) error {
	err := r.await(ctx, func() bool {
		for _, e := range r.events {
			if e.Kind == EventCellClosed && e.CellID == id {
				return true
			}
		}
		return false
	})
	if err != nil {
		return fmt.Errorf("waiting for CellClosed(%q): %w", id, err)
	}
	return nil
}

// await blocks until cond, evaluated with r.mu held, is true or ctx ends.
func (r *Recorder) await(ctx context.Context, cond func() bool) error {
	for {
		r.mu.Lock()
		ok := cond()
		changed := r.changed.Changed()
		r.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
