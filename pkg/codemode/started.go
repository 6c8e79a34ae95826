package codemode

import (
	"context"
	"sync"
)

// InitialResult is the value carried by a StartedCell's initial-response future.
type InitialResult struct {
	Response RuntimeResponse
	Err      error
}

// StartedCell is an admitted cell: its ID is known at once, its first response is a future.
//
// A caller that gives up on the initial response (its ctx ends, or it calls Abandon) must not
// leave the cell running unobserved: the implementation's abandon hook terminates it.
type StartedCell struct {
	// CellID is the admitted cell's ID.
	CellID CellID

	result  <-chan InitialResult
	abandon func()

	mu       sync.Mutex
	received bool
	claimed  bool
	done     *InitialResult
}

// NewStartedCell returns a StartedCell whose initial response arrives on result (at most one
// value; a closed channel without a value means the runtime ended). abandon, if not nil, is called
// at most once, when the caller gives up before receiving the response.
func NewStartedCell(id CellID, result <-chan InitialResult, abandon func()) *StartedCell {
	return &StartedCell{CellID: id, result: result, abandon: abandon}
}

// InitialResponse blocks until the cell's first response is ready. If ctx ends first, the cell
// is abandoned (and so terminated) and ctx's error is returned. Calling it again after it
// returned a response returns the same response.
func (c *StartedCell) InitialResponse(ctx context.Context) (RuntimeResponse, error) {
	c.mu.Lock()
	if c.done != nil {
		r := *c.done
		c.mu.Unlock()
		return r.Response, r.Err
	}
	c.mu.Unlock()
	select {
	case r, ok := <-c.result:
		if !ok {
			r = InitialResult{Err: ErrRuntimeEnded}
		}
		c.mu.Lock()
		c.received = true
		c.done = &r
		c.mu.Unlock()
		return r.Response, r.Err
	case <-ctx.Done():
		c.Abandon()
		return RuntimeResponse{}, ctx.Err()
	}
}

// Abandon gives up on the initial response. If it was not yet received, the cell is terminated
// by the implementation. Abandon is idempotent.
func (c *StartedCell) Abandon() {
	c.mu.Lock()
	run := !c.received && !c.claimed && c.abandon != nil
	c.claimed = true
	c.mu.Unlock()
	if run {
		c.abandon()
	}
}
