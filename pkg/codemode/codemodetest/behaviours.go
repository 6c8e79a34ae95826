package codemodetest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Returns is a tool that answers every call with result at once.
func Returns(result string) ToolFunc {
	return func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) {
		return json.RawMessage(result), nil
	}
}

// Echo is a tool that answers with its input, or JSON null when the script passed none.
func Echo() ToolFunc {
	return func(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
		if call.Input == nil {
			return json.RawMessage("null"), nil
		}
		return call.Input, nil
	}
}

// Fails is a tool that rejects every call with message; the script sees message as the
// rejection value.
func Fails(message string) ToolFunc {
	return func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) {
		return nil, errors.New(message)
	}
}

// BlocksUntilCancelled is a tool that never answers on its own: it returns ctx's error once the
// session cancels the call.
func BlocksUntilCancelled() ToolFunc {
	return func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
}

// Gate holds tool calls until the test releases it. A cancelled call stops waiting and returns
// its ctx's error.
type Gate struct {
	once     sync.Once
	released chan struct{}
}

// NewGate returns a closed gate.
func NewGate() *Gate { return &Gate{released: make(chan struct{})} }

// Release opens the gate for every current and future call. It is idempotent.
func (g *Gate) Release() { g.once.Do(func() { close(g.released) }) }

// Tool is a tool that waits for the gate and then answers with result.
func (g *Gate) Tool(result string) ToolFunc {
	return func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
		select {
		case <-g.released:
			return json.RawMessage(result), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Notify is a notification behaviour that waits for the gate before acknowledging.
func (g *Gate) Notify() NotifyFunc {
	return func(ctx context.Context, _ string, _ codemode.CellID, _ string) error {
		select {
		case <-g.released:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Barrier holds calls until n of them are in flight at the same time, which proves that the
// session dispatches them concurrently: a session that serializes calls never reaches n.
type Barrier struct {
	n       int
	mu      sync.Mutex
	arrived int
	full    chan struct{}
}

// NewBarrier returns a barrier for n concurrent calls.
func NewBarrier(n int) *Barrier { return &Barrier{n: n, full: make(chan struct{})} }

// Tool is a tool that waits at the barrier and then echoes its input.
func (b *Barrier) Tool() ToolFunc {
	echo := Echo()
	return func(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
		b.mu.Lock()
		b.arrived++
		if b.arrived == b.n {
			close(b.full)
		}
		b.mu.Unlock()
		select {
		case <-b.full:
			return echo(ctx, call)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
