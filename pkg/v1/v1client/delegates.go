package v1client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/internal/recent"
	"github.com/codemodehq/codemode/pkg/v1/v1convert"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// The client's delegate limits (docs/protocol/v1.md#client-rules).
const (
	// MaxPendingDelegateCalls bounds the delegate calls running at once.
	MaxPendingDelegateCalls = 1024
	// MaxDeferredDelegates bounds the delegate requests held for cells not known yet.
	MaxDeferredDelegates = 1024
	// RecentDelegateIDs is how many delegate request IDs are remembered to refuse reuse.
	RecentDelegateIDs = 4096
)

// errDelegateLimit is the answer to a delegate request beyond MaxPendingDelegateCalls.
var errDelegateLimit = errors.New("code-mode host exceeded the limit of 1024 pending delegate calls")

// delegateTask is one running delegate call.
type delegateTask struct {
	session wirev1.SessionId
	cell    wirev1.WireCellId
	cancel  context.CancelFunc
	// suppressed: the host cancelled the call or closed its cell; its answer is not sent.
	suppressed bool
}

// deferredDelegate is a request for a cell whose execute has not been answered yet.
type deferredDelegate struct {
	msg  wirev1.DelegateRequestMessage
	cell wirev1.WireCellId
}

// delegateTable holds a connection's delegate calls. Callers hold the connection's lock.
type delegateTable struct {
	active   map[wirev1.DelegateRequestId]*delegateTask
	seen     recent.Set[wirev1.DelegateRequestId]
	deferred []deferredDelegate
}

func newDelegateTable() delegateTable {
	return delegateTable{active: map[wirev1.DelegateRequestId]*delegateTask{}, seen: recent.New[wirev1.DelegateRequestId](RecentDelegateIDs)}
}

func (t *delegateTable) cancelAll() {
	for id, d := range t.active {
		d.suppressed = true
		d.cancel()
		delete(t.active, id)
	}
	t.deferred = nil
}

// cancelCell cancels the calls of a closed cell and drops its deferred requests.
func (t *delegateTable) cancelCell(sid wirev1.SessionId, cell wirev1.WireCellId) {
	for _, d := range t.active {
		if d.session == sid && d.cell == cell {
			d.suppressed = true
			d.cancel()
		}
	}
	kept := t.deferred[:0]
	for _, d := range t.deferred {
		if d.msg.SessionId != sid || d.cell != cell {
			kept = append(kept, d)
		}
	}
	t.deferred = kept
}

// requestCell is the wire cell a delegate request is about.
func requestCell(r wirev1.DelegateRequest) wirev1.WireCellId {
	switch v := r.(type) {
	case wirev1.ToolInvoke:
		return v.Invocation.CellId
	case wirev1.NotificationSend:
		return v.CellId
	}
	return ""
}

// startDelegate handles delegate/request in the read loop. A reused ID is fatal; a request for
// a cell not known yet waits while an execute of its session is being answered; others are
// refused with an error answer, without calling the delegate.
func (c *connection) startDelegate(m wirev1.DelegateRequestMessage) error {
	c.mu.Lock()
	if _, active := c.delegates.active[m.Id]; active || !c.delegates.seen.Remember(m.Id) {
		c.mu.Unlock()
		return fmt.Errorf("duplicate code-mode delegate request ID DelegateRequestId(%d)", m.Id)
	}
	run := c.admitDelegateLocked(m, true)
	c.mu.Unlock()
	run()
	return nil
}

// admitDelegateLocked decides what to do with a delegate request and returns the action to
// run after the lock is released. canDefer is false when a deferred request is retried.
func (c *connection) admitDelegateLocked(m wirev1.DelegateRequestMessage, canDefer bool) func() {
	cell := requestCell(m.Request)
	s := c.sessions[m.SessionId]
	if s == nil {
		return c.refuse(m.Id, fmt.Errorf("code-mode host delegated for unknown session %s", m.SessionId))
	}
	public, known := s.cells[cell]
	if !known {
		if canDefer && s.executing > 0 {
			if len(c.delegates.deferred) >= MaxDeferredDelegates {
				return c.refuse(m.Id, errDelegateLimit)
			}
			c.delegates.deferred = append(c.delegates.deferred, deferredDelegate{msg: m, cell: cell})
			return func() {}
		}
		return c.refuse(m.Id, fmt.Errorf("code-mode host delegated for unknown cell %s in session %s", cell, m.SessionId))
	}
	if len(c.delegates.active) >= MaxPendingDelegateCalls {
		return c.refuse(m.Id, errDelegateLimit)
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.delegates.active[m.Id] = &delegateTask{session: m.SessionId, cell: cell, cancel: cancel}
	c.tasks.Add(1)
	return func() { c.startDelegateCall(ctx, m, s.delegate, public) }
}

// refuse answers a delegate request with an error, off the read loop.
func (c *connection) refuse(id wirev1.DelegateRequestId, err error) func() {
	c.tasks.Add(1)
	return func() {
		go func() {
			defer c.tasks.Done()
			c.answer(id, wirev1.DelegateResponseError{Message: err.Error()})
		}()
	}
}

// flushDeferredLocked retries the deferred requests of s after one of its executes was
// answered: those whose cell is now known start; while no execute of s is pending any more,
// the rest are refused as unknown cells.
func (c *connection) flushDeferredLocked(s *session) func() {
	var runs []func()
	kept := c.delegates.deferred[:0]
	for _, d := range c.delegates.deferred {
		_, known := s.cells[d.cell]
		if d.msg.SessionId != s.id || (!known && s.executing > 0) {
			kept = append(kept, d)
			continue
		}
		runs = append(runs, c.admitDelegateLocked(d.msg, false))
	}
	c.delegates.deferred = kept
	return func() {
		for _, r := range runs {
			r()
		}
	}
}

// cancelDelegate handles delegate/cancel: the call stops and sends no answer.
func (c *connection) cancelDelegate(id wirev1.DelegateRequestId) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.delegates.active[id]; ok {
		d.suppressed = true
		d.cancel()
		return
	}
	kept := c.delegates.deferred[:0]
	for _, d := range c.delegates.deferred {
		if d.msg.Id != id {
			kept = append(kept, d)
		}
	}
	c.delegates.deferred = kept
}

// startDelegateCall starts one delegate call on the read loop (the delegate's Start methods
// return promptly). Its answer is sent from a goroutine of its own, since done may run on a
// transport's reader (a delegate that forwards the call elsewhere) and sending may wait for the
// link; a call the host cancelled is not answered.
func (c *connection) startDelegateCall(ctx context.Context, m wirev1.DelegateRequestMessage, d codemode.Delegate, cell codemode.CellID) {
	finish := func(result wirev1.DelegateResponseResult) {
		go func() {
			defer c.tasks.Done()
			c.finishDelegate(m.Id, result)
		}()
	}
	switch r := m.Request.(type) {
	case wirev1.ToolInvoke:
		invokeTool(ctx, d, r.Invocation, cell, finish)
	case wirev1.NotificationSend:
		codemode.StartNotify(ctx, d, r.CallId, cell, r.Text, func(err error) { finish(notifyResult(err)) })
	default:
		finish(nil)
	}
}

// finishDelegate retires a call and sends its answer unless it was cancelled.
func (c *connection) finishDelegate(id wirev1.DelegateRequestId, result wirev1.DelegateResponseResult) {
	c.mu.Lock()
	t := c.delegates.active[id]
	delete(c.delegates.active, id)
	c.mu.Unlock()
	if t == nil || t.suppressed {
		return
	}
	t.cancel()
	c.answer(id, result)
}

// answer sends a delegate response; one too large for a frame is replaced by an error saying so.
func (c *connection) answer(id wirev1.DelegateRequestId, r wirev1.DelegateResponseResult) {
	err := c.send(wirev1.DelegateResponseMessage{Id: id, Result: r})
	if errors.Is(err, v1frame.ErrInvalidData) {
		_ = c.send(wirev1.DelegateResponseMessage{Id: id, Result: wirev1.DelegateResponseError{
			Message: "code-mode delegate response exceeds the IPC frame limit: " + err.Error(),
		}})
	}
}

// invokeTool starts a tool/invoke call; finish gets its answer.
func invokeTool(ctx context.Context, d codemode.Delegate, inv wirev1.WireNestedToolCall, cell codemode.CellID, finish func(wirev1.DelegateResponseResult)) {
	call, err := v1convert.NestedToolCallFromWire(inv)
	if err != nil {
		finish(wirev1.DelegateResponseError{Message: err.Error()})
		return
	}
	call.CellID = cell
	codemode.StartToolCall(ctx, d, call, func(raw json.RawMessage, err error) { finish(toolResult(raw, err)) })
}

// toolResult is the answer to a tool/invoke call: the delegate's error, or its result as
// canonical JSON (an empty one is null).
func toolResult(raw json.RawMessage, err error) wirev1.DelegateResponseResult {
	if err != nil {
		return wirev1.DelegateResponseError{Message: err.Error()}
	}
	if len(raw) == 0 {
		raw = json.RawMessage("null")
	}
	canonical, err := wirev1.CanonicalJSON(raw)
	if err != nil {
		return wirev1.DelegateResponseError{Message: "code-mode tool returned invalid JSON: " + err.Error()}
	}
	return wirev1.DelegateResponseOk{Value: wirev1.ToolResult{Result: canonical}}
}

// notifyResult is the answer to a notification/send call.
func notifyResult(err error) wirev1.DelegateResponseResult {
	if err != nil {
		return wirev1.DelegateResponseError{Message: err.Error()}
	}
	return wirev1.DelegateResponseOk{Value: wirev1.NotificationDelivered{}}
}
