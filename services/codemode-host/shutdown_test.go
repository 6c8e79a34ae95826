package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/v1/v1client"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// blockingDelegate holds every tool call until the host cancels it, and counts closures.
type blockingDelegate struct {
	codemode.DiscardReports
	started chan struct{} // one token per call that began
	mu      sync.Mutex
	closed  map[codemode.CellID]int
	gotAll  chan struct{} // closed at the first closure
	once    sync.Once
}

func newBlockingDelegate() *blockingDelegate {
	return &blockingDelegate{started: make(chan struct{}, 16), closed: map[codemode.CellID]int{}, gotAll: make(chan struct{})}
}

func (d *blockingDelegate) InvokeTool(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
	d.started <- struct{}{}
	<-ctx.Done()
	return nil, ctx.Err()
}

func (d *blockingDelegate) Notify(context.Context, string, codemode.CellID, string) error { return nil }

func (d *blockingDelegate) CellClosed(id codemode.CellID) {
	d.mu.Lock()
	d.closed[id]++
	d.mu.Unlock()
	d.once.Do(func() { close(d.gotAll) })
}

func (d *blockingDelegate) closures(id codemode.CellID) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closed[id]
}

var slowTool = codemode.ToolDefinition{Name: "slow", ToolName: codemode.ToolName{Name: "slow"}, Kind: codemode.ToolKindFunction, Description: "never answers"}

// runningCell is a cell blocked on two tool calls, seen from its client.
type runningCell struct {
	name     string
	delegate *blockingDelegate
	cell     *codemode.StartedCell
	initial  chan codemode.InitialResult
}

// startBlockedCell opens a session on p and starts a cell that waits for two tool calls, and
// returns once both calls have reached the client.
func startBlockedCell(t *testing.T, name string, p codemode.SessionProvider) *runningCell {
	t.Helper()
	ctx := context.Background()
	d := newBlockingDelegate()
	s, err := p.CreateSession(ctx, codemode.FromBlocking(d), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatalf("%s: CreateSession: %v", name, err)
	}
	yield := uint64(3_600_000)
	cell, err := s.Execute(ctx, codemode.ExecuteRequest{
		ToolCallID:   "call-1",
		EnabledTools: []codemode.ToolDefinition{slowTool},
		Source:       `text("before"); await Promise.all([tools.slow({}), tools.slow({})]);`,
		YieldTimeMs:  &yield,
	})
	if err != nil {
		t.Fatalf("%s: Execute: %v", name, err)
	}
	for range 2 {
		select {
		case <-d.started:
		case <-time.After(waitLimit):
			t.Fatalf("%s: the tool calls did not reach the client", name)
		}
	}
	r := &runningCell{name: name, delegate: d, cell: cell, initial: make(chan codemode.InitialResult, 1)}
	go func() {
		resp, err := cell.InitialResponse(context.Background())
		r.initial <- codemode.InitialResult{Response: resp, Err: err}
	}()
	return r
}

// TestSIGTERMDrainsRunningCellsAndExitsZero: cells blocked on tool calls over V1 (WebSocket) and
// gRPC when SIGTERM arrives. Each client sees its cell closed exactly once, after a Terminated
// initial response with the output so far, and the process exits 0.
func TestSIGTERMDrainsRunningCellsAndExitsZero(t *testing.T) {
	h := startHost(t, nil, "--listen", "ws://127.0.0.1:0", "--listen", "grpc://127.0.0.1:0", "--drain-timeout", "10m")
	addrs := h.addresses(2)
	v1 := v1client.NewWebSocketProvider(addrs[0], false, v1client.Options{})
	defer v1.Close()
	gp, err := grpcclient.New(addrs[1], grpcclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer gp.Close()
	cells := []*runningCell{startBlockedCell(t, "V1", v1), startBlockedCell(t, "gRPC", gp)}

	h.signal(syscall.SIGTERM)
	for _, c := range cells {
		select {
		case <-c.delegate.gotAll:
		case <-time.After(waitLimit):
			t.Fatalf("%s: the cell was not reported closed", c.name)
		}
	}
	if code := h.exitCode(); code != 0 {
		t.Fatalf("exit status %d after a drain, want 0", code)
	}
	res := <-cells[0].initial
	if res.Err != nil || res.Response.Kind != codemode.Terminated || !strings.Contains(fmt.Sprint(res.Response.ContentItems), "before") {
		t.Errorf("V1 initial response %+v, %v; want Terminated with the output so far", res.Response, res.Err)
	}
	if res := <-cells[1].initial; res.Err != nil || res.Response.Kind != codemode.Terminated || !strings.Contains(fmt.Sprint(res.Response.ContentItems), "before") {
		t.Errorf("gRPC initial response %+v, %v; want Terminated with the output so far (before, the Execute ended with the session: canceled)", res.Response, res.Err)
	}
	_ = v1.Close()
	_ = gp.Close()
	for _, c := range cells {
		if n := c.delegate.closures(c.cell.CellID); n != 1 {
			t.Errorf("%s: cell %s reported closed %d times, want once", c.name, c.cell.CellID, n)
		}
	}
	if !strings.Contains(h.stderrText(), "draining") {
		t.Errorf("the host did not log its drain:\n%s", h.stderrText())
	}
}

// TestSecondSignalExitsAtOnce: a drain that cannot finish (the stdio client stopped reading, and
// the terminated cell's 1 MiB of output cannot be written) is abandoned at the second SIGTERM:
// the process exits with 128+15 without waiting for its one-hour drain bound.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	h := startHost(t, nil, "--listen", "stdio", "--drain-timeout", "1h")
	send := func(payload string) {
		t.Helper()
		f, err := v1frame.Append(nil, []byte(payload))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.stdin.Write(f); err != nil {
			t.Fatalf("writing to codemode-host: %v", err)
		}
	}
	frames := v1frame.NewReader(h.stdout)
	await := func(what string) {
		t.Helper()
		for {
			p, err := frames.Read()
			if err != nil {
				t.Fatalf("reading codemode-host's frames: %v", err)
			}
			if strings.Contains(string(p), what) {
				return
			}
			if strings.Contains(string(p), `"error"`) {
				t.Fatalf("codemode-host refused: %s", p)
			}
		}
	}
	send(`{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":[]}`)
	send(`{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s"}}`)
	await(`"session/ready"`)
	// The tool call tells that text() has run: the cell holds 1 MiB of unobserved output.
	send(`{"type":"operation/request","id":2,"request":{"method":"session/execute","sessionId":"s","request":{"tool_call_id":"call-2","enabled_tools":[{"name":"t","tool_name":{"name":"t","namespace":null},"description":"a tool","kind":"function","input_schema":null,"output_schema":null}],"source":"text(\"x\".repeat(1 << 20)); await tools.t({});","yield_time_ms":3600000,"max_output_tokens":null}}}`)
	await(`"execution/started"`)
	await(`"delegate/request"`)
	// From here on nothing reads stdout.
	h.signal(syscall.SIGTERM)
	h.awaitStderr("draining")
	h.signal(syscall.SIGTERM)
	if code := h.exitCode(); code != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit status %d after a second SIGTERM, want %d", code, 128+int(syscall.SIGTERM))
	}
	if !strings.Contains(h.stderrText(), "second signal") {
		t.Errorf("the host did not say why it exited:\n%s", h.stderrText())
	}
}
