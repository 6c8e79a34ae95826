package tracing

import (
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// cellSpan is the span of one cell, open until the cell is closed.
type cellSpan struct {
	span trace.Span
	// recorded is set once the cell's outcome is on its span.
	recorded atomic.Bool
}

// observing returns an Observer that records a terminal response on the span, then hands it to
// next (nil: nobody).
func (c *cellSpan) observing(next codemode.Observer) codemode.Observer {
	return func(r codemode.RuntimeResponse) {
		c.record(r)
		if next != nil {
			next(r)
		}
	}
}

// record puts the outcome of a terminal response on the span, once. A failed script makes the
// span an error; its error text, the cell's own data, is not recorded.
func (c *cellSpan) record(r codemode.RuntimeResponse) {
	if !r.IsTerminal() || !c.recorded.CompareAndSwap(false, true) {
		return
	}
	switch {
	case r.Kind == codemode.Terminated:
		c.span.SetAttributes(OutcomeKey.String(OutcomeTerminated))
	case r.ErrorText != nil:
		c.span.SetAttributes(OutcomeKey.String(OutcomeScriptError))
		c.span.SetStatus(codes.Error, "the script failed")
	default:
		c.span.SetAttributes(OutcomeKey.String(OutcomeOK))
	}
}

// end ends the span; a cell closed with no terminal response observed was terminated (by its
// session's shutdown, or because its observer gave up).
func (c *cellSpan) end() {
	if !c.recorded.Load() {
		c.record(codemode.RuntimeResponse{Kind: codemode.Terminated})
	}
	c.span.End()
}

// cellSpans are a session's open cell spans by cell ID. A cell may call its first tool before
// the Execute that admitted it has returned its ID; a callback for a cell not known yet waits
// until the Executes in flight have returned (Execute returns at once by contract, and never
// waits for a callback).
type cellSpans struct {
	mu        sync.Mutex
	admitted  *sync.Cond // signalled when an Execute returns
	byID      map[codemode.CellID]*cellSpan
	admitting int // Executes in flight
}

func newCellSpans() *cellSpans {
	c := &cellSpans{byID: map[codemode.CellID]*cellSpan{}}
	c.admitted = sync.NewCond(&c.mu)
	return c
}

func (c *cellSpans) beginAdmission() {
	c.mu.Lock()
	c.admitting++
	c.mu.Unlock()
}

// endAdmission ends an Execute; span is the admitted cell's, nil when it was refused.
func (c *cellSpans) endAdmission(id codemode.CellID, span *cellSpan) {
	c.mu.Lock()
	c.admitting--
	if span != nil {
		c.byID[id] = span
	}
	c.mu.Unlock()
	c.admitted.Broadcast()
}

// find returns the open span of cell id, or nil.
func (c *cellSpans) find(id codemode.CellID) *cellSpan {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byID[id]
}

// await returns the open span of cell id, waiting for the Executes in flight when it is not known
// yet; nil when no admitted cell has that ID.
func (c *cellSpans) await(id codemode.CellID) *cellSpan {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if s, ok := c.byID[id]; ok {
			return s
		}
		if c.admitting == 0 {
			return nil
		}
		c.admitted.Wait()
	}
}

// close ends the span of cell id.
func (c *cellSpans) close(id codemode.CellID) {
	s := c.await(id)
	if s == nil {
		return
	}
	c.mu.Lock()
	delete(c.byID, id)
	c.mu.Unlock()
	s.end()
}

// endAll ends every span still open.
func (c *cellSpans) endAll() {
	c.mu.Lock()
	open := c.byID
	c.byID = map[codemode.CellID]*cellSpan{}
	c.mu.Unlock()
	for _, s := range open {
		s.end()
	}
}
