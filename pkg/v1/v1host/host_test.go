package v1host

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// Codex's code-mode-host host_tests.rs (docs/protocol/README.md#codex-test-suites), under Codex's names, against the host driver
// over in-memory pipes. Frames are written and compared as exact bytes; hosts serve the baseline
// generation unless a test is about generations, so pinned shapes stay short.

func baselineHost(t *testing.T) *Host {
	return New(newProvider(t), WithGeneration(wirev1.GenerationBaseline))
}

func open(id int, session string) string {
	return fmt.Sprintf(`{"type":"operation/request","id":%d,"request":{"method":"session/open","sessionId":%q}}`, id, session)
}

func ready(id int, session string) string {
	return fmt.Sprintf(`{"type":"operation/response","id":%d,"result":{"status":"ok","value":{"type":"session/ready","sessionId":%q}}}`, id, session)
}

func execute(id int, session, source string) string {
	return fmt.Sprintf(`{"type":"operation/request","id":%d,"request":{"method":"session/execute","sessionId":%q,"request":{"tool_call_id":"call-%d","enabled_tools":[{"name":"tool","tool_name":{"name":"tool","namespace":null},"description":"a tool","kind":"function","input_schema":null,"output_schema":null}],"source":%q,"yield_time_ms":3600000,"max_output_tokens":null}}}`, id, session, id, source)
}

func started(id int, cell string) string {
	return fmt.Sprintf(`{"type":"operation/response","id":%d,"result":{"status":"ok","value":{"type":"execution/started","cellId":%q}}}`, id, cell)
}

func shutdown(id int, session string) string {
	return fmt.Sprintf(`{"type":"operation/request","id":%d,"request":{"method":"session/shutdown","sessionId":%q}}`, id, session)
}

func closedSession(id int, session string) string {
	return fmt.Sprintf(`{"type":"operation/response","id":%d,"result":{"status":"ok","value":{"type":"session/closed","sessionId":%q}}}`, id, session)
}

func errorResponse(id int, message string) string {
	return fmt.Sprintf(`{"type":"operation/response","id":%d,"result":{"status":"error","message":%q}}`, id, message)
}

func resultText(id int, cell, text string) string {
	return fmt.Sprintf(`{"type":"execute/initialResponse","id":%d,"result":{"status":"ok","value":{"Result":{"cell_id":%q,"content_items":[{"type":"input_text","text":%q}],"error_text":null}}}}`, id, cell, text)
}

func cellClosed(session, cell string) string {
	return fmt.Sprintf(`{"type":"cell/closed","sessionId":%q,"cellId":%q}`, session, cell)
}

func TestHandshakeAndMultipleSessionLifecyclesAreOrdered(t *testing.T) {
	checkLeaks(t)
	c := serveRaw(t, baselineHost(t)).ready()
	for i, s := range []string{"session-1", "session-2"} {
		base := 10 * (i + 1)
		c.send(open(base, s))
		c.expect(ready(base, s))
		c.send(execute(base+1, s, `text("in `+s+`")`))
		c.expect(started(base+1, "1"))
		c.expect(resultText(base+1, "1", "in "+s))
		c.expect(cellClosed(s, "1"))
		c.send(shutdown(base+2, s))
		c.expect(closedSession(base+2, s))
	}
	if err := c.serveResult(); err != nil {
		t.Fatalf("ServeConn after a clean end: %v", err)
	}
}

func TestIncompatibleOrInvalidHandshakeIsRejected(t *testing.T) {
	cases := []struct{ name, first, reply, err string }{
		{"no V1", `{"type":"connection/hello","supportedVersions":[2],"requiredCapabilities":[],"optionalCapabilities":[]}`,
			`{"type":"connection/rejected","reason":{"type":"noCompatibleVersion","supportedVersions":[1]}}`, ""},
		{"not a hello", `{"type":"operation/cancel","id":1}`,
			`{"type":"connection/rejected","reason":{"type":"invalidHello","message":"first message must be connection/hello"}}`, ""},
		{"undecodable", `{"type":"connection/hello"}`, "",
			"failed to read code-mode client hello: failed to decode code-mode IPC frame: missing field `supportedVersions`"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := serveRaw(t, baselineHost(t))
			c.send(tc.first)
			if tc.reply != "" {
				c.expect(tc.reply)
			}
			c.expectEOF()
			err := c.serveResult()
			if got := fmt.Sprint(err); (tc.err == "" && err != nil) || (tc.err != "" && got != tc.err) {
				t.Fatalf("ServeConn = %v, want %q", err, tc.err)
			}
		})
	}
	t.Run("EOF before hello", func(t *testing.T) {
		c := serveRaw(t, baselineHost(t))
		if err := c.serveResult(); err != nil {
			t.Fatalf("ServeConn = %v, want a silent close", err)
		}
		c.expectEOF()
	})
}

func TestUnsupportedRequiredCapabilityIsRejected(t *testing.T) {
	c := serveRaw(t, baselineHost(t))
	// Sorted order decides which missing capability is named.
	c.send(`{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":["zeta","alpha","session-cell-execution-resource-limits"],"optionalCapabilities":[]}`)
	c.expect(`{"type":"connection/rejected","reason":{"type":"missingRequiredCapability","capability":"alpha"}}`)
	c.expectEOF()
}

func TestOptionalDualWebsocketCapabilityFallsBackToASingleConnection(t *testing.T) {
	c := serveRaw(t, baselineHost(t))
	c.send(`{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":["dual-websocket-v1","session-cell-execution-resource-limits","unknown-optional"]}`)
	c.expect(`{"type":"connection/ready","selectedVersion":1,"capabilities":["session-cell-execution-resource-limits"]}`)
	c2 := serveRaw(t, baselineHost(t))
	c2.send(`{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":["dual-websocket-v1"],"optionalCapabilities":[]}`)
	c2.expect(`{"type":"connection/rejected","reason":{"type":"missingRequiredCapability","capability":"dual-websocket-v1"}}`)
}

func TestSessionResourceLimitsAreNegotiatedWhenOptionalOrRequired(t *testing.T) {
	for _, hello := range []string{
		`{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":["session-cell-execution-resource-limits"]}`,
		`{"type":"connection/hello","supportedVersions":[1,7],"requiredCapabilities":["session-cell-execution-resource-limits"],"optionalCapabilities":[]}`,
	} {
		c := serveRaw(t, baselineHost(t))
		c.send(hello)
		c.expect(`{"type":"connection/ready","selectedVersion":1,"capabilities":["session-cell-execution-resource-limits"]}`)
		c.send(`{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s","cellExecutionLimits":{"maxYieldTimeMs":0}}}`)
		c.expect(ready(1, "s"))
		// A zero yield limit answers at once: the limit reached the session.
		c.send(execute(2, "s", `await new Promise(() => {});`))
		c.expect(started(2, "1"))
		c.expect(`{"type":"execute/initialResponse","id":2,"result":{"status":"ok","value":{"Yielded":{"cell_id":"1","content_items":[]}}}}`)
	}
	c := serveRaw(t, baselineHost(t))
	c.send(`{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":[]}`)
	c.expect(`{"type":"connection/ready","selectedVersion":1,"capabilities":[]}`)
}

func TestSessionIDCannotBeReusedAfterShutdown(t *testing.T) {
	c := serveRaw(t, baselineHost(t)).ready()
	c.send(open(1, "s"))
	c.expect(ready(1, "s"))
	c.send(open(2, "s"))
	c.expect(errorResponse(2, "code-mode session ID `s` is already open"))
	c.send(shutdown(3, "s"))
	c.expect(closedSession(3, "s"))
	c.send(open(4, "s"))
	c.expect(errorResponse(4, "code-mode session ID `s` was reused"))
	c.send(shutdown(5, "s"))
	c.expect(errorResponse(5, "unknown code-mode session s"))
	// Another connection may use the same ID.
	other := serveRaw(t, baselineHost(t)).ready()
	other.send(open(1, "s"))
	other.expect(ready(1, "s"))
}

func TestRequestHistoryIsBounded(t *testing.T) {
	c := serveRaw(t, baselineHost(t)).ready()
	// Request IDs are unique among active requests and the last 4,096 finished ones; negative
	// IDs are legal.
	const n = RecentIDs + 1
	for i := range n {
		id := -i - 1
		c.send(shutdown(id, "missing"))
		c.expect(errorResponse(id, "unknown code-mode session missing"))
	}
	// The oldest finished ID (-1) has left the history (reusing it pushes -2 out in turn);
	// -3 has not.
	c.send(shutdown(-1, "missing"))
	c.expect(errorResponse(-1, "unknown code-mode session missing"))
	c.send(shutdown(-3, "missing"))
	c.expectEOF()
	if err := c.serveResult(); fmt.Sprint(err) != "duplicate code-mode request ID RequestId(-3)" {
		t.Fatalf("ServeConn = %v", err)
	}
}

func TestExecuteRequestIDRemainsActiveUntilInitialResponse(t *testing.T) {
	c := serveRaw(t, baselineHost(t)).ready()
	c.send(open(1, "s"))
	c.expect(ready(1, "s"))
	c.send(execute(2, "s", `await tools.tool({});`))
	c.expect(started(2, "1"))
	_ = c.recv() // the delegate request the cell is blocked on
	c.send(open(2, "t"))
	c.expectEOF()
	if err := c.serveResult(); fmt.Sprint(err) != "duplicate code-mode request ID RequestId(2)" {
		t.Fatalf("ServeConn = %v", err)
	}
}

func TestActiveCellLimitRejectsExecuteWithoutDisconnecting(t *testing.T) {
	// One session may take every slot here: the host's own limit is under test.
	c := serveRaw(t, New(newProvider(t), WithGeneration(wirev1.GenerationBaseline), WithMaxActiveCellsPerSession(MaxActiveCells))).ready()
	c.send(open(1, "s"))
	c.expect(ready(1, "s"))
	for i := range MaxActiveCells {
		c.send(execute(100+i, "s", `await new Promise(() => {});`))
	}
	for range MaxActiveCells {
		if got := c.recv(); !strings.Contains(got, `"execution/started"`) {
			t.Fatalf("while filling the cell limit: %s", got)
		}
	}
	c.send(execute(999, "s", `text("one too many")`))
	c.expect(errorResponse(999, "code-mode host has too many active cells"))
	c.send(open(1000, "still-up"))
	c.expect(ready(1000, "still-up"))
}

// panickingProvider panics when a session is created, like a request task that fails.
type panickingProvider struct{ codemode.SessionProvider }

func (panickingProvider) CreateSession(context.Context, codemode.Delegate, codemode.SessionCellExecutionLimits) (codemode.Session, error) {
	panic("request task panic probe")
}

func TestRequestTaskPanicDisconnectsHost(t *testing.T) {
	c := serveRaw(t, New(panickingProvider{newProvider(t)})).ready()
	c.send(open(1, "s"))
	c.expectEOF()
	if err := c.serveResult(); fmt.Sprint(err) != "code-mode request task failed: request task panic probe" {
		t.Fatalf("ServeConn = %v", err)
	}
}

func TestCellForwardingPanicDisconnectsHost(t *testing.T) {
	cellForwardingHook = func() { panic("cell forwarding panic probe") }
	t.Cleanup(func() { cellForwardingHook = nil })
	c := serveRaw(t, baselineHost(t)).ready()
	c.send(open(1, "s"))
	c.expect(ready(1, "s"))
	c.send(execute(2, "s", `text("x")`))
	// The connection fails as the started response is being written: whatever part of it the
	// writer got out is followed by the end of the stream.
	c.drain()
	if err := c.serveResult(); fmt.Sprint(err) != "code-mode cell forwarding task failed: cell forwarding panic probe" {
		t.Fatalf("ServeConn = %v", err)
	}
}

func TestDisconnectCancelsABackpressuredHostWriter(t *testing.T) {
	c := serveRaw(t, baselineHost(t)).ready()
	c.send(open(1, "s"))
	c.expect(ready(1, "s"))
	// The client stops reading; a cell floods it with output it cannot deliver.
	c.stopReading()
	c.send(execute(2, "s", `for (let i = 0; i < 100000; i++) { text("x".repeat(1000)); yield_control(); await null; }`))
	c.send(`{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":[]}`)
	if err := c.serveResult(); fmt.Sprint(err) != "received a second code-mode client hello" {
		t.Fatalf("ServeConn = %v", err)
	}
}

// TestASessionTakesOnlyItsShareOfCells: a session whose cells never end holds at most its share
// of the host's cell slots; past it the session's executes are refused with "code-mode session
// has too many active cells" and the connection lives on, while another session still runs
// cells. Before, one session could take all 128 slots and refuse everyone else indefinitely.
func TestASessionTakesOnlyItsShareOfCells(t *testing.T) {
	c := serveRaw(t, New(newProvider(t), WithGeneration(wirev1.GenerationBaseline), WithMaxActiveCellsPerSession(4))).ready()
	c.send(open(1, "greedy"))
	c.expect(ready(1, "greedy"))
	for i := range 4 {
		c.send(execute(100+i, "greedy", `await new Promise(() => {});`))
		if got := c.recv(); !strings.Contains(got, `"execution/started"`) {
			t.Fatalf("cell %d of the share: %s", i+1, got)
		}
	}
	c.send(execute(200, "greedy", `text("one too many")`))
	c.expect(errorResponse(200, "code-mode session has too many active cells"))
	c.send(open(2, "other"))
	c.expect(ready(2, "other"))
	c.send(execute(300, "other", `text("served")`))
	var got []string
	for !strings.Contains(strings.Join(got, "\n"), `served`) {
		got = append(got, c.recv())
	}
}
