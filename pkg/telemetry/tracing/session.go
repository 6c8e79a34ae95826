package tracing

import (
	"context"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// WrapProvider returns p with every session traced by tracer: a code_mode.cell span per cell, a
// child of the span in the context of the Execute that started it, and under it a span per nested
// tool call and notification (see the package documentation). The sessions it returns are plain
// codemode.Sessions: optional interfaces of p's sessions (codemode.PendingSession) are not kept.
func WrapProvider(p codemode.SessionProvider, tracer trace.Tracer) codemode.SessionProvider {
	return &provider{inner: p, tracer: tracer}
}

type provider struct {
	inner  codemode.SessionProvider
	tracer trace.Tracer
}

// Availability is the wrapped provider's.
func (p *provider) Availability() error { return p.inner.Availability() }

// CreateSession opens a session of the wrapped provider whose delegate is traced.
func (p *provider) CreateSession(ctx context.Context, d codemode.Delegate, limits codemode.SessionCellExecutionLimits) (codemode.Session, error) {
	cells := newCellSpans()
	s, err := p.inner.CreateSession(ctx, wrapDelegate(d, p.tracer, cells), limits)
	if err != nil {
		return nil, err
	}
	return &session{inner: s, tracer: p.tracer, cells: cells}, nil
}

// session starts a cell span per Execute and records each cell's outcome on it.
type session struct {
	inner  codemode.Session
	tracer trace.Tracer
	cells  *cellSpans
}

// Execute starts the cell's span, then the cell. A refused cell's span ends at once, with the
// refusal (a host's text, never the cell's) as its error.
func (s *session) Execute(ctx context.Context, req codemode.ExecuteRequest) (*codemode.StartedCell, error) {
	ctx, span := s.tracer.Start(ctx, CellSpan, trace.WithAttributes(
		CallIDKey.String(req.ToolCallID), SourceBytesKey.Int(len(req.Source))))
	c := &cellSpan{span: span}
	req.Observe = c.observing(req.Observe)
	s.cells.beginAdmission()
	started, err := s.inner.Execute(ctx, req)
	if err != nil {
		s.cells.endAdmission("", nil)
		span.SetStatus(codes.Error, err.Error())
		span.End()
		return nil, err
	}
	span.SetAttributes(CellIDKey.String(string(started.CellID)))
	s.cells.endAdmission(started.CellID, c)
	return started, nil
}

// Wait observes the cell, recording its outcome on its span if it ends.
func (s *session) Wait(ctx context.Context, req codemode.WaitRequest) (codemode.WaitOutcome, error) {
	if c := s.cells.find(req.CellID); c != nil {
		req.Observe = c.observing(req.Observe)
	}
	return s.inner.Wait(ctx, req)
}

// Terminate stops the cell, recording its outcome on its span.
func (s *session) Terminate(ctx context.Context, id codemode.CellID) (codemode.WaitOutcome, error) {
	out, err := s.inner.Terminate(ctx, id)
	if err == nil && !out.Missing {
		if c := s.cells.find(id); c != nil {
			c.record(out.Response)
		}
	}
	return out, err
}

// Shutdown shuts the session down; the spans of cells it closes end then (CellClosed), and any
// left open when it returns (its ctx ended first) end with it.
func (s *session) Shutdown(ctx context.Context) error {
	err := s.inner.Shutdown(ctx)
	s.cells.endAll()
	return err
}
