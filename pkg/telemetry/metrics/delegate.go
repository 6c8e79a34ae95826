package metrics

import (
	"context"
	"encoding/json"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// wrapDelegate decorates d for session s. It forwards every call in the order it comes, so a
// cell's order of events holds through it.
func wrapDelegate(d codemode.Delegate, s *session) codemode.Delegate {
	return &delegate{inner: d, s: s}
}

// delegate counts a session's tool calls and notifications and hears its cells close, their
// usage and the session's failures: the failures are worth a log line, the usage a histogram.
type delegate struct {
	inner codemode.Delegate
	s     *session
}

var (
	_ codemode.Delegate   = (*delegate)(nil)
	_ codemode.TurnRunner = (*delegate)(nil)
)

// StartToolCall starts the call on the inner delegate and accounts for it when it ends.
func (d *delegate) StartToolCall(ctx context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	start := d.s.toolStarted(call)
	d.inner.StartToolCall(ctx, call, func(result json.RawMessage, err error) {
		d.s.toolEnded(ctx, call, start, result, err)
		done(result, err)
	})
}

// RunTurnHere is the inner delegate's, if it runs turns (codemode.TurnRunner): accounting for a
// call ends before its done is called, so a turn run there changes nothing of it.
func (d *delegate) RunTurnHere(call codemode.NestedToolCall) (relay func(), ok bool) {
	return codemode.RunTurnHereOf(d.inner, call)
}

// StartNotify starts the notification on the inner delegate and accounts for it when it ends.
func (d *delegate) StartNotify(ctx context.Context, callID string, cellID codemode.CellID, text string, done func(error)) {
	start := d.s.notifyStarted(cellID, text)
	d.inner.StartNotify(ctx, callID, cellID, text, func(err error) {
		d.s.notifyEnded(ctx, start, err)
		done(err)
	})
}

// CellClosed finishes the cell's accounting, then tells the inner delegate.
func (d *delegate) CellClosed(id codemode.CellID) {
	d.s.closeCell(id)
	d.inner.CellClosed(id)
}

// CellUsage keeps the cell's usage for its finish, then hands it on.
func (d *delegate) CellUsage(id codemode.CellID, usage codemode.CellUsage) {
	d.s.cellUsage(id, usage)
	d.inner.CellUsage(id, usage)
}

// ReportFailure logs and counts the failure, then hands it on. Its reasons are the runtime's
// fixed texts (codemode's Failure constants), never a cell's data.
func (d *delegate) ReportFailure(reason string) {
	d.s.r.m.sessionFailures.Inc()
	d.s.r.log.Warn("code-mode session failure", "session", d.s.id, "failure", reason)
	d.inner.ReportFailure(reason)
}

// toolStarted accounts for a call that starts and returns its start time.
func (s *session) toolStarted(call codemode.NestedToolCall) time.Time {
	s.r.m.bridgeBytes.WithLabelValues(OutOfCells).Add(float64(len(call.Input)))
	s.mu.Lock()
	c := s.cellLocked(call.CellID, time.Time{})
	c.toolCalls++
	c.pendingTools++
	c.bytesOut += int64(len(call.Input))
	s.mu.Unlock()
	return time.Now()
}

// toolEnded accounts for a call's result and logs a failure: the tool's name and call ID, never
// its input, result or error text (they are the cell's and the tool's data).
func (s *session) toolEnded(ctx context.Context, call codemode.NestedToolCall, start time.Time, result json.RawMessage, err error) {
	elapsed := time.Since(start)
	outcome := ResultOK
	switch {
	case err == nil:
	case ctx.Err() != nil:
		outcome = ResultCancelled
	case s.r.timedOut(err):
		outcome = ResultTimeout
	default:
		outcome = ResultError
	}
	s.r.m.toolCalls.WithLabelValues(outcome).Inc()
	s.r.m.toolDuration.WithLabelValues(outcome).Observe(elapsed.Seconds())
	s.r.m.bridgeBytes.WithLabelValues(IntoCells).Add(float64(len(result)))
	s.mu.Lock()
	// A call cancelled by the cell's end may return after the cell closed: nothing to update then.
	if c := s.cells[call.CellID]; c != nil {
		c.pendingTools--
		c.bytesIn += int64(len(result))
		if outcome == ResultError || outcome == ResultTimeout {
			c.toolFailures++
		}
	}
	s.mu.Unlock()
	if outcome == ResultError || outcome == ResultTimeout {
		s.r.log.Warn("code-mode tool call failed", "session", s.id, "cell", string(call.CellID), "call", call.RuntimeToolCallID,
			"tool", call.ToolName.String(), "result", outcome, "duration_ms", elapsed.Milliseconds())
	}
}

// notifyStarted accounts for a notification that starts and returns its start time.
func (s *session) notifyStarted(cellID codemode.CellID, text string) time.Time {
	s.r.m.bridgeBytes.WithLabelValues(OutOfCells).Add(float64(len(text)))
	s.mu.Lock()
	c := s.cellLocked(cellID, time.Time{})
	c.notifications++
	c.bytesOut += int64(len(text))
	s.mu.Unlock()
	return time.Now()
}

// notifyEnded accounts for a notification's delivery.
func (s *session) notifyEnded(ctx context.Context, start time.Time, err error) {
	outcome := ResultOK
	switch {
	case err == nil:
	case ctx.Err() != nil:
		outcome = ResultCancelled
	default:
		outcome = ResultError
	}
	s.r.m.notifications.WithLabelValues(outcome).Inc()
	s.r.m.notifyDuration.Observe(time.Since(start).Seconds())
}
