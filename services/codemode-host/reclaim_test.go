package main_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/v1/v1client"
)

// closureDelegate blocks every tool call until its cell ends, and records the cells closed and
// the tool calls cancelled.
type closureDelegate struct {
	codemode.DiscardReports
	called    chan struct{}
	cancelled chan struct{}
	closedC   chan codemode.CellID

	mu     sync.Mutex
	closed []codemode.CellID
}

func newClosureDelegate() *closureDelegate {
	return &closureDelegate{called: make(chan struct{}, 16), cancelled: make(chan struct{}, 16), closedC: make(chan codemode.CellID, 16)}
}

func (d *closureDelegate) InvokeTool(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
	d.called <- struct{}{}
	<-ctx.Done()
	d.cancelled <- struct{}{}
	return nil, ctx.Err()
}

func (d *closureDelegate) Notify(context.Context, string, codemode.CellID, string) error { return nil }

func (d *closureDelegate) CellClosed(id codemode.CellID) {
	d.mu.Lock()
	d.closed = append(d.closed, id)
	d.mu.Unlock()
	d.closedC <- id
}

// TestUnobservedCellsAreReclaimed (issue 39.4): a cell (blocked on a tool call) that yielded and
// that its client never waits for again is terminated once --unobserved-cell-timeout ran out:
// its tool call, if it made it, is cancelled, its closure is delivered exactly once, and a later wait and
// terminate get the missing cell's answer with Codex's text. Before, such a cell held its slot
// and its memory until the session closed. The test waits for the closure, never for a time.
func TestUnobservedCellsAreReclaimed(t *testing.T) {
	args := []string{"--unobserved-cell-timeout", "1ms", "--log-level", "warn"}
	transports := map[string]func() closingProvider{
		"V1Stdio": func() closingProvider {
			return v1client.NewProcessProvider(v1client.Command{Path: bin, Args: append(args, "--listen", "stdio")}, v1client.Options{})
		},
		"GRPCStdio": func() closingProvider {
			return grpcclient.NewProcess(grpcclient.Command{Path: bin, Args: args}, grpcclient.Options{})
		},
	}
	for name, open := range transports {
		t.Run(name, func(t *testing.T) {
			p := open()
			t.Cleanup(func() { _ = p.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			d := newClosureDelegate()
			s, err := p.CreateSession(ctx, codemode.FromBlocking(d), codemode.SessionCellExecutionLimits{})
			if err != nil {
				t.Fatal(err)
			}
			yield := uint64(1)
			started, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "call", Source: `text("before"); await tools.block({}); text("never")`, EnabledTools: benchTools, YieldTimeMs: &yield})
			if err != nil {
				t.Fatal(err)
			}
			if r, err := started.InitialResponse(ctx); err != nil || r.Kind != codemode.Yielded {
				t.Fatalf("initial response %+v %v", r, err)
			}
			select {
			case id := <-d.closedC:
				if id != started.CellID {
					t.Fatalf("closed %s, want %s", id, started.CellID)
				}
			case <-ctx.Done():
				t.Fatal("the unobserved cell was never closed")
			}
			// The cell may be reclaimed before it reached its tool call; a call it made is cancelled.
			select {
			case <-d.called:
				<-d.cancelled
			default:
			}
			want := "exec cell " + string(started.CellID) + " not found"
			if out, err := s.Wait(ctx, codemode.WaitRequest{CellID: started.CellID, YieldTimeMs: 10}); err != nil || !out.Missing || errText(out.Response) != want {
				t.Fatalf("wait after the reclaim: %+v %v, want MissingCell %q", out, err, want)
			}
			if out, err := s.Terminate(ctx, started.CellID); err != nil || !out.Missing || errText(out.Response) != want {
				t.Fatalf("terminate after the reclaim: %+v %v", out, err)
			}
			// A cell observed all along is not reclaimed, whatever the timeout: it runs to its Result.
			if r, err := cellOutcome(s, `text("ok")`); err != nil || r.Kind != codemode.Result || r.ErrorText != nil {
				t.Fatalf("an observed cell: %+v %v", r, err)
			}
			if err := s.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			d.mu.Lock()
			defer d.mu.Unlock()
			if len(d.closed) != 2 || d.closed[0] != started.CellID {
				t.Fatalf("closures %v, want the reclaimed cell once and the second cell", d.closed)
			}
		})
	}
}
