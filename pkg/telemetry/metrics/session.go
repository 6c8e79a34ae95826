package metrics

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// provider is the decorated SessionProvider.
type provider struct {
	inner codemode.SessionProvider
	r     *Recorder
}

// Availability is the inner provider's.
func (p *provider) Availability() error { return p.inner.Availability() }

// CreateSession opens a session of the inner provider whose cells are counted and logged.
func (p *provider) CreateSession(ctx context.Context, d codemode.Delegate, limits codemode.SessionCellExecutionLimits) (codemode.Session, error) {
	s := &session{r: p.r, id: strconv.FormatUint(p.r.nextSession.Add(1), 10), opened: time.Now(), cells: make(map[codemode.CellID]*cell)}
	inner, err := p.inner.CreateSession(ctx, wrapDelegate(d, s), limits)
	if err != nil {
		p.r.Refused(RefusedSessionFailed)
		return nil, err
	}
	s.inner = inner
	p.r.add(s)
	p.r.m.sessionsOpened.Inc()
	p.r.m.sessionsOpen.Inc()
	p.r.log.Info("code-mode session opened", "session", s.id)
	return s, nil
}

// session is a decorated Session. Its cells are kept by ID until they close, with what the
// metrics and the cell's log line need.
type session struct {
	inner  codemode.Session
	r      *Recorder
	id     string // a number unique in the process: log lines and /debug/sessions name it
	opened time.Time

	mu       sync.Mutex
	cells    map[codemode.CellID]*cell
	started  int  // cells admitted
	shutting bool // Shutdown began: cells closed unobserved from now on were stopped by it
}

// Execute admits a cell and counts it; its responses are seen through the request's Observer.
func (s *session) Execute(ctx context.Context, req codemode.ExecuteRequest) (*codemode.StartedCell, error) {
	admitted := time.Now()
	observe := req.Observe
	req.Observe = func(resp codemode.RuntimeResponse) {
		s.observed(resp, admitted)
		if observe != nil {
			observe(resp)
		}
	}
	started, err := s.inner.Execute(ctx, req)
	if err != nil {
		reason := RefusedCellRejected
		if errors.Is(err, codemode.ErrShuttingDown) {
			reason = RefusedShuttingDown
		}
		s.r.Refused(reason, "session", s.id)
		return nil, err
	}
	s.r.m.cellsStarted.Inc()
	s.r.m.cellsLive.Inc()
	s.r.m.bridgeBytes.WithLabelValues(IntoCells).Add(float64(len(req.Source)))
	s.mu.Lock()
	s.started++
	c := s.cellLocked(started.CellID, admitted)
	c.registered = true
	if c.closed {
		delete(s.cells, c.id) // closed before Execute returned: finished already
	}
	s.mu.Unlock()
	return started, nil
}

// Wait observes a cell; its response is seen through the request's Observer, or on return when
// the session does not call it.
func (s *session) Wait(ctx context.Context, req codemode.WaitRequest) (codemode.WaitOutcome, error) {
	s.mu.Lock()
	if c := s.cells[req.CellID]; c != nil && c.state == "yielded" {
		c.state = "" // observed again: running until it yields or ends
	}
	s.mu.Unlock()
	var seen atomic.Bool
	observe := req.Observe
	req.Observe = func(resp codemode.RuntimeResponse) {
		seen.Store(true)
		s.observed(resp, time.Time{})
		if observe != nil {
			observe(resp)
		}
	}
	out, err := s.inner.Wait(ctx, req)
	if err == nil && !out.Missing && !seen.Load() {
		s.observed(out.Response, time.Time{})
	}
	return out, err
}

// Terminate stops a cell. The session closes the cell before Terminate returns, so the cell's
// finish waits for the response Terminate returns.
func (s *session) Terminate(ctx context.Context, id codemode.CellID) (codemode.WaitOutcome, error) {
	s.mu.Lock()
	c := s.cells[id]
	if c != nil {
		c.terminating++
		c.reason = "terminate"
	}
	s.mu.Unlock()
	out, err := s.inner.Terminate(ctx, id)
	if c == nil {
		return out, err
	}
	if err == nil && !out.Missing {
		s.observed(out.Response, time.Time{})
	}
	s.mu.Lock()
	c.terminating--
	finish := c.closed && c.terminating == 0 && !c.finished
	if finish {
		c.finished = true
	}
	s.mu.Unlock()
	if finish {
		s.finish(c)
	}
	return out, err
}

// Shutdown shuts the session down and logs its close.
func (s *session) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutting = true
	s.mu.Unlock()
	err := s.inner.Shutdown(ctx)
	if s.r.remove(s) {
		s.r.m.sessionsOpen.Dec()
		s.mu.Lock()
		cells := s.started
		s.mu.Unlock()
		s.r.log.Info("code-mode session closed", "session", s.id, "duration_ms", time.Since(s.opened).Milliseconds(), "cells", cells)
	}
	return err
}

// cellLocked returns the record of cell id, creating it (admitted at admitted, or now) if it is
// the first event of the cell this session sees: a tool call or the close may come before
// Execute has returned.
func (s *session) cellLocked(id codemode.CellID, admitted time.Time) *cell {
	c := s.cells[id]
	if c == nil {
		if admitted.IsZero() {
			admitted = time.Now()
		}
		c = &cell{id: id, admitted: admitted}
		s.cells[id] = c
	} else if !admitted.IsZero() && admitted.Before(c.admitted) {
		c.admitted = admitted
	}
	return c
}

// observed accounts for a response: its output, and the outcome of a terminal one. admitted is
// set for an initial response (see Execute), zero for a later one.
func (s *session) observed(resp codemode.RuntimeResponse, admitted time.Time) {
	s.r.m.bridgeBytes.WithLabelValues(OutOfCells).Add(float64(contentBytes(resp.ContentItems)))
	if !resp.IsTerminal() {
		s.r.m.cellYields.Inc()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cells[resp.CellID]
	if !admitted.IsZero() {
		c = s.cellLocked(resp.CellID, admitted) // an initial response: the cell may be new to us
	}
	if c == nil {
		return // a response returned after the cell closed and finished: already counted
	}
	c.outputBytes += contentBytes(resp.ContentItems)
	if !resp.IsTerminal() {
		c.yields++
		c.state = "yielded"
		return
	}
	if c.outcome == "" {
		c.outcome = outcomeOf(resp)
		if c.outcome == OutcomeOutOfMemory && strings.Contains(*resp.ErrorText, budgetMarker) {
			c.reason = "memory_budget"
		}
	}
	if c.outcome == OutcomeTerminated && c.reason == "" {
		c.reason = s.unobservedReasonLocked() // stopped by no Terminate of ours
	}
}

// cellUsage is the delegate's CellUsage: it comes just before CellClosed, so the cell's finish has
// it.
func (s *session) cellUsage(id codemode.CellID, usage codemode.CellUsage) {
	s.mu.Lock()
	c := s.cellLocked(id, time.Time{})
	c.usage, c.measured = usage, true
	s.mu.Unlock()
}

// closeCell is the delegate's CellClosed: the cell finishes now, unless a Terminate that will
// return its outcome is still under way.
func (s *session) closeCell(id codemode.CellID) {
	s.mu.Lock()
	c := s.cellLocked(id, time.Time{})
	c.closed = true
	finish := c.terminating == 0 && !c.finished
	if finish {
		c.finished = true
		if c.outcome == "" {
			c.outcome = OutcomeTerminated
			if c.reason == "" {
				c.reason = s.unobservedReasonLocked()
			}
		}
	}
	s.mu.Unlock()
	if finish {
		s.finish(c)
	}
}

// unobservedReasonLocked says why a cell was stopped when no Terminate asked for it: the
// session's shutdown stopped it, or its observer gave up on it.
func (s *session) unobservedReasonLocked() string {
	if s.shutting {
		return "session_closed"
	}
	return "abandoned"
}

// finish counts a closed cell and writes its log line.
func (s *session) finish(c *cell) {
	s.mu.Lock()
	if c.outcome == "" {
		c.outcome = OutcomeTerminated
	}
	if c.registered {
		delete(s.cells, c.id)
	}
	line := c.snapshotLocked()
	s.mu.Unlock()
	duration := time.Since(c.admitted)
	s.r.m.cellsLive.Dec()
	s.r.m.cellsFinished.WithLabelValues(line.outcome).Inc()
	s.r.m.cellDuration.WithLabelValues(line.outcome).Observe(duration.Seconds())
	attrs := []any{"session", s.id, "cell", string(c.id), "outcome", line.outcome, "duration_ms", duration.Milliseconds(),
		"tool_calls", line.toolCalls, "tool_failures", line.toolFailures, "notifications", line.notifications,
		"yields", line.yields, "bytes_in", line.bytesIn, "bytes_out", line.bytesOut}
	if line.measured {
		s.r.m.cellPeakHeap.Observe(float64(line.usage.PeakHeapBytes))
		attrs = append(attrs, "peak_heap_bytes", line.usage.PeakHeapBytes)
	}
	if line.reason != "" {
		attrs = append(attrs, "reason", line.reason)
	}
	s.r.log.Info("code-mode cell finished", attrs...)
}

// liveCells counts the cells not yet finished.
func (s *session) liveCells() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.cells {
		if !c.finished {
			n++
		}
	}
	return n
}
