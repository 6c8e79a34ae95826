package jsruntime

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// TestInterruptOnStopWaitsForAnInterruptInFlight proves the property the pool relies on: once the
// stop of interruptOn returns, either the engine's module is closed (the pool sees it and
// replaces the engine) or no interrupt will ever come. Before, a cell whose context ended just as
// the cell finished handed a sound-looking engine to the pool, the interrupt closed it a moment
// later, and the next cell on it ended at once with an empty, successful result.
func TestInterruptOnStopWaitsForAnInterruptInFlight(t *testing.T) {
	cfg := sharedProvider().pool.cfg
	for i := range 5 {
		e, err := newEngine(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		stop := e.interruptOn(ctx)
		cancel()
		stop()
		closed := e.w.mod.IsClosed()
		e.dispose()
		if !closed {
			t.Fatalf("engine %d: the interrupt was still in flight after stop returned", i)
		}
	}
	// Stopped before its context ends, it never interrupts.
	e, err := newEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.dispose()
	ctx, cancel := context.WithCancel(context.Background())
	e.interruptOn(ctx)()
	cancel()
	if v, err := e.evalSource("after_stop.js", "1 + 1"); err != nil || v != 2 { // the int 2: tag 0, value 2
		t.Fatalf("engine unusable after a stopped watch: %v", err)
	}
}

// TestTerminatedCellsNeverCloseAReusedEngine terminates cell after cell while each awaits a tool
// call: every next cell must still get a working engine and reach the delegate. (It caught the
// late interrupt fixed by interruptOn: about one cell in a few hundred got a closed engine.)
func TestTerminatedCellsNeverCloseAReusedEngine(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 50
	}
	started := make(chan struct{}, 1)
	d := newRecorder(func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	for i := range n {
		c := startCell(t, s, `await tools.block()`, 0, testTool("block"))
		if r := initialResponse(t, c); r.Kind != codemode.Yielded {
			t.Fatalf("cell %d: %+v %s", i, r, errorTextOf(r))
		}
		select {
		case <-started:
		case <-time.After(30 * time.Second):
			out := waitCell(t, s, c.CellID, 1000)
			t.Fatalf("cell %d never called its tool; it ended with %+v %s", i, out.Response, errorTextOf(out.Response))
		}
		out, err := s.Terminate(context.Background(), c.CellID)
		if err != nil || out.Response.Kind != codemode.Terminated {
			t.Fatalf("cell %d: terminate %+v %v", i, out, err)
		}
	}
}
