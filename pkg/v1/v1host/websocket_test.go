package v1host

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// Codex's code-mode-host transport_tests.rs and tests/websocket.rs (docs/protocol/README.md#codex-test-suites) against a
// WebSocket listener on 127.0.0.1.

// listen serves h's WebSocket routes on 127.0.0.1 until the test ends and returns the base URL
// ("127.0.0.1:port").
func listen(t *testing.T, h *Host) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.ServeWebSocket(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeWebSocket: %v", err)
		}
	})
	return ln.Addr().String()
}

// wsClient is a raw WebSocket client speaking V1 frames.
type wsClient struct {
	t  *testing.T
	ws *websocket.Conn
}

func dialWS(t *testing.T, url string) *wsClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	ws.SetReadLimit(v1frame.MaxMessageBytes)
	t.Cleanup(func() { _ = ws.CloseNow() })
	return &wsClient{t: t, ws: ws}
}

func (c *wsClient) sendRaw(typ websocket.MessageType, msg []byte) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := c.ws.Write(ctx, typ, msg); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

func (c *wsClient) send(payload string) {
	c.t.Helper()
	f, err := v1frame.Append(nil, []byte(payload))
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendRaw(websocket.MessageBinary, f)
}

// recv returns the next frame's payload, or the read error.
func (c *wsClient) recv() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	typ, msg, err := c.ws.Read(ctx)
	if err != nil {
		return "", err
	}
	if typ != websocket.MessageBinary {
		return "", fmt.Errorf("text message from the host")
	}
	p, err := v1frame.Decode(msg)
	return string(p), err
}

func (c *wsClient) expect(want string) {
	c.t.Helper()
	got, err := c.recv()
	if err != nil || got != want {
		c.t.Fatalf("frame:\n got %s (%v)\nwant %s", got, err, want)
	}
}

// expectClosed waits until the host ends the connection.
func (c *wsClient) expectClosed() {
	c.t.Helper()
	for {
		if _, err := c.recv(); err != nil {
			return
		}
	}
}

func (c *wsClient) ready(hello string) string {
	c.t.Helper()
	c.send(hello)
	got, err := c.recv()
	if err != nil {
		c.t.Fatal(err)
	}
	return got
}

const dualHello = `{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":["dual-websocket-v1","session-cell-execution-resource-limits"]}`

// dual negotiates a dual connection and returns its control and bulk clients.
func dual(t *testing.T, addr string) (control, bulk *wsClient) {
	t.Helper()
	control = dialWS(t, "ws://"+addr+"/")
	got := control.ready(dualHello)
	const prefix = `{"type":"connection/ready","selectedVersion":1,"capabilities":["dual-websocket-v1","session-cell-execution-resource-limits"],"bulkConnectionToken":"`
	if !strings.HasPrefix(got, prefix) {
		t.Fatalf("ready: %s", got)
	}
	token := strings.TrimSuffix(strings.TrimPrefix(got, prefix), `"}`)
	bulk = dialWS(t, "ws://"+addr+"/bulk/"+token)
	return control, bulk
}

func TestWebsocketListenerServesReadinessEndpoint(t *testing.T) {
	checkLeaks(t)
	addr := listen(t, baselineHost(t))
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /readyz: %d", resp.StatusCode)
	}
}

func TestWebsocketListenerRejectsBrowserOriginHandshakes(t *testing.T) {
	addr := listen(t, baselineHost(t))
	for _, path := range []string{"/", "/readyz", "/bulk/x"} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
		req.Header.Set("Origin", "https://example.com")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s with Origin: %d, want 403", path, resp.StatusCode)
		}
	}
	_, resp, err := websocket.Dial(context.Background(), "ws://"+addr+"/", &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"https://example.com"}}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("websocket handshake with Origin: %v, %v", resp, err)
	}
}

func TestWebsocketBulkPairingRejectsUnknownTokens(t *testing.T) {
	addr := listen(t, baselineHost(t))
	_, resp, err := websocket.Dial(context.Background(), "ws://"+addr+"/bulk/00000000-0000-4000-8000-000000000000", nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown token: %v, %v", resp, err)
	}
	// A token is one-use.
	control := dialWS(t, "ws://"+addr+"/")
	got := control.ready(dualHello)
	token := got[strings.Index(got, `"bulkConnectionToken":"`)+len(`"bulkConnectionToken":"`) : len(got)-2]
	dialWS(t, "ws://"+addr+"/bulk/"+token)
	_, resp, err = websocket.Dial(context.Background(), "ws://"+addr+"/bulk/"+token, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("used token: %v, %v", resp, err)
	}
}

func TestWebsocketListenerExecutesCellsAndForwardsToolCallbacks(t *testing.T) {
	checkLeaks(t)
	addr := listen(t, baselineHost(t))
	c := dialWS(t, "ws://"+addr+"/")
	c.ready(helloLimits)
	c.send(open(1, "s"))
	c.expect(ready(1, "s"))
	c.send(execute(2, "s", `text(JSON.stringify(await tools.tool({ q: 1 })));`))
	c.expect(started(2, "1"))
	c.expect(`{"type":"delegate/request","id":1,"sessionId":"s","request":{"type":"tool/invoke","invocation":{"cell_id":"1","runtime_tool_call_id":"tool-1","tool_name":{"name":"tool","namespace":null},"tool_kind":"function","input":{"q":1}}}}`)
	c.send(`{"type":"delegate/response","id":1,"result":{"status":"ok","value":{"type":"tool/result","result":{"answer":42}}}}`)
	c.expect(resultText(2, "1", `{"answer":42}`))
	c.expect(cellClosed("s", "1"))
}

func TestWebsocketDualConnectionsRouteNotificationsAndToolCallbacksToSeparateLanes(t *testing.T) {
	addr := listen(t, baselineHost(t))
	control, bulk := dual(t, addr)
	control.send(open(1, "s"))
	control.expect(ready(1, "s"))
	control.send(execute(2, "s", `notify("note"); text(String(await tools.tool({})));`))
	control.expect(started(2, "1"))
	// Delegate IDs follow the order the runtime made the two calls in, which the test leaves
	// open; each lane must carry its own kind.
	note, _ := control.recv()
	tool, _ := bulk.recv()
	noteID, toolID := delegateID(t, note), delegateID(t, tool)
	if note != fmt.Sprintf(`{"type":"delegate/request","id":%d,"sessionId":"s","request":{"type":"notification/send","callId":"call-2","cellId":"1","text":"note"}}`, noteID) {
		t.Fatalf("control lane: %s", note)
	}
	if tool != fmt.Sprintf(`{"type":"delegate/request","id":%d,"sessionId":"s","request":{"type":"tool/invoke","invocation":{"cell_id":"1","runtime_tool_call_id":"tool-1","tool_name":{"name":"tool","namespace":null},"tool_kind":"function","input":{}}}}`, toolID) {
		t.Fatalf("bulk lane: %s", tool)
	}
	// The notification ack travels on control, the tool result on bulk.
	control.send(fmt.Sprintf(`{"type":"delegate/response","id":%d,"result":{"status":"ok","value":{"type":"notification/delivered"}}}`, noteID))
	bulk.send(fmt.Sprintf(`{"type":"delegate/response","id":%d,"result":{"status":"ok","value":{"type":"tool/result","result":7}}}`, toolID))
	control.expect(resultText(2, "1", "7"))
	control.expect(cellClosed("s", "1"))
}

// delegateID is the id of a delegate/request payload.
func delegateID(t *testing.T, payload string) int {
	t.Helper()
	var v struct {
		ID int `json:"id"`
	}
	if err := json.Unmarshal([]byte(payload), &v); err != nil {
		t.Fatalf("%s: %v", payload, err)
	}
	return v.ID
}

func TestWebsocketBulkLaneRejectsControlMessages(t *testing.T) {
	addr := listen(t, baselineHost(t))
	control, bulk := dual(t, addr)
	bulk.send(open(1, "s"))
	control.expectClosed()
	bulk.expectClosed()
	// The listener goes on serving.
	other := dialWS(t, "ws://"+addr+"/")
	other.ready(helloLimits)
}

func TestWebsocketControlOperationsBypassAnIncompleteBulkFrame(t *testing.T) {
	addr := listen(t, baselineHost(t))
	control, bulk := dual(t, addr)
	control.send(open(1, "s"))
	control.expect(ready(1, "s"))
	// Half of a 64 MiB bulk frame: the message's first WebSocket fragment declares the whole
	// frame, the rest never comes while control operations go on.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := bulk.ws.Writer(ctx, websocket.MessageBinary)
	if err != nil {
		t.Fatal(err)
	}
	header := binary.LittleEndian.AppendUint32(nil, v1frame.MaxFrameBytes)
	if _, err := w.Write(append(header, bytes.Repeat([]byte(" "), 32<<20)...)); err != nil {
		t.Fatal(err)
	}
	control.send(open(2, "t"))
	control.expect(ready(2, "t"))
	control.send(execute(3, "t", `text("control is not stuck")`))
	control.expect(started(3, "1"))
	control.expect(resultText(3, "1", "control is not stuck"))
	control.expect(cellClosed("t", "1"))
	_ = w.Close()
}

func TestWebsocketListenerAcceptsFramesLargerThanDefaultWebsocketLimit(t *testing.T) {
	addr := listen(t, baselineHost(t))
	c := dialWS(t, "ws://"+addr+"/")
	c.ready(helloLimits)
	c.send(open(1, "s"))
	c.expect(ready(1, "s"))
	big := strings.Repeat("x", 40<<20) // beyond coder/websocket's 32 KiB default and Codex's default
	c.send(execute(2, "s", `text(String(`+fmt.Sprintf("%q", big)+`.length))`))
	c.expect(started(2, "1"))
	c.expect(resultText(2, "1", fmt.Sprint(len(big))))
}

func TestWebsocketListenerKeepsConnectionsAndSessionIDsIsolated(t *testing.T) {
	addr := listen(t, baselineHost(t))
	a, b := dialWS(t, "ws://"+addr+"/"), dialWS(t, "ws://"+addr+"/")
	a.ready(helloLimits)
	b.ready(helloLimits)
	a.send(open(1, "same"))
	a.expect(ready(1, "same"))
	b.send(open(1, "same"))
	b.expect(ready(1, "same"))
	a.send(execute(2, "same", `store("k", "a"); text("a")`))
	a.expect(started(2, "1"))
	a.expect(resultText(2, "1", "a"))
	a.expect(cellClosed("same", "1"))
	b.send(execute(2, "same", `text(String(load("k")))`))
	b.expect(started(2, "1"))
	b.expect(resultText(2, "1", "undefined"))
}

func TestMalformedWebsocketFrameDoesNotStopTheListener(t *testing.T) {
	addr := listen(t, baselineHost(t))
	cases := map[string]func(c *wsClient){
		"text message":   func(c *wsClient) { c.sendRaw(websocket.MessageText, []byte("{}")) },
		"missing prefix": func(c *wsClient) { c.sendRaw(websocket.MessageBinary, []byte{1, 0}) },
		"trailing bytes": func(c *wsClient) { c.sendRaw(websocket.MessageBinary, []byte{1, 0, 0, 0, '{', '}'}) },
		"oversize": func(c *wsClient) {
			c.sendRaw(websocket.MessageBinary, binary.LittleEndian.AppendUint32(nil, v1frame.MaxFrameBytes+1))
		},
		"bad json":      func(c *wsClient) { c.send("{") },
		"unknown field": func(c *wsClient) { c.send(`{"type":"operation/cancel","id":1,"unexpected":true}`) },
	}
	for name, bad := range cases {
		c := dialWS(t, "ws://"+addr+"/")
		c.ready(helloLimits)
		bad(c)
		c.expectClosed()
		ok := dialWS(t, "ws://"+addr+"/")
		if got := ok.ready(helloLimits); !strings.Contains(got, "connection/ready") {
			t.Fatalf("after %s: %s", name, got)
		}
	}
}

func TestBulkConnectionRegistrationCleansUpWhenDropped(t *testing.T) {
	r := newPairings(MaxPendingPairings)
	p, ok := r.reserve()
	if !ok || r.pendingCount() != 1 {
		t.Fatalf("reserve: %v, %d pending", ok, r.pendingCount())
	}
	p.release()
	if r.pendingCount() != 0 || r.claim(p.token) != nil {
		t.Fatalf("after release: %d pending", r.pendingCount())
	}
	q, _ := r.reserve()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := q.await(ctx); err == nil || r.pendingCount() != 0 {
		t.Fatalf("await after its caller left: %v, %d pending", err, r.pendingCount())
	}
}

func TestBulkConnectionRegistrationsAreBoundedAndReleased(t *testing.T) {
	r := newPairings(MaxPendingPairings)
	var held []*pairing
	for range MaxPendingPairings {
		p, ok := r.reserve()
		if !ok {
			t.Fatalf("reservation %d refused", len(held)+1)
		}
		held = append(held, p)
	}
	if _, ok := r.reserve(); ok {
		t.Fatal("reservation 257 granted")
	}
	held[0].release()
	if _, ok := r.reserve(); !ok {
		t.Fatal("a released slot was not reused")
	}
}

func TestFailedHostHelloRemovesTheBulkPairingReservation(t *testing.T) {
	h := baselineHost(t)
	conn := &failingWrites{hello: []byte(dualHello)}
	_, ok, err := negotiate(conn, h.pairings.reserve, DefaultGeneration)
	if ok || err == nil || !strings.HasPrefix(err.Error(), "failed to write code-mode host hello") {
		t.Fatalf("negotiate = %v, %v", ok, err)
	}
	if n := h.pairings.pendingCount(); n != 0 {
		t.Fatalf("%d pairings still reserved", n)
	}
}

// failingWrites is a Conn that delivers one hello and fails every write.
type failingWrites struct{ hello []byte }

func (f *failingWrites) Dual() bool { return false }
func (f *failingWrites) ReadFrame(wirev1.Lane) ([]byte, error) {
	if f.hello == nil {
		return nil, io.EOF
	}
	h := f.hello
	f.hello = nil
	return h, nil
}
func (f *failingWrites) WriteFrame(wirev1.Lane, []byte) error { return io.ErrClosedPipe }
func (f *failingWrites) Close() error                         { return nil }

func TestParseListenURLAcceptsStdioTransports(t *testing.T) {
	for _, s := range []string{"stdio", "stdio://"} {
		if u, err := ParseListenURL(s); err != nil || !u.Stdio() {
			t.Errorf("%s: %+v, %v", s, u, err)
		}
	}
}

func TestParseListenURLAcceptsWebsocketAddresses(t *testing.T) {
	for s, want := range map[string]string{"ws://127.0.0.1:9000": "127.0.0.1:9000", "ws://[::1]:0": "[::1]:0"} {
		if u, err := ParseListenURL(s); err != nil || u.WebSocket.String() != want {
			t.Errorf("%s: %+v, %v", s, u, err)
		}
	}
}

func TestParseListenURLRejectsInvalidTransports(t *testing.T) {
	for s, want := range map[string]string{
		"ws://localhost:9000": "invalid WebSocket --listen URL `ws://localhost:9000`; expected `ws://IP:PORT`",
		"http://127.0.0.1:1":  "unsupported --listen URL `http://127.0.0.1:1`; expected `ws://IP:PORT`, `stdio`, or `stdio://`",
	} {
		if _, err := ParseListenURL(s); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", s, err, want)
		}
	}
}

// TestAProtocolViolationIsToldInTheCloseFrame: a client that breaks the protocol on a WebSocket
// gets a close frame whose status and reason say how (1003 for a text message, 1007 for a frame
// that does not decode, 1002 for a message the protocol does not allow), not a bare TCP close.
func TestAProtocolViolationIsToldInTheCloseFrame(t *testing.T) {
	addr := listen(t, baselineHost(t))
	cases := []struct {
		name   string
		bad    func(c *wsClient)
		status websocket.StatusCode
		reason string
	}{
		{"text message", func(c *wsClient) { c.sendRaw(websocket.MessageText, []byte("{}")) }, websocket.StatusUnsupportedData, "code-mode websocket messages must be binary framed messages"},
		{"missing prefix", func(c *wsClient) { c.sendRaw(websocket.MessageBinary, []byte{1, 0}) }, websocket.StatusInvalidFramePayloadData, ""},
		{"second hello", func(c *wsClient) { c.send(helloLimits) }, websocket.StatusProtocolError, "received a second code-mode client hello"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dialWS(t, "ws://"+addr+"/")
			c.ready(helloLimits)
			tc.bad(c)
			var err error
			for err == nil {
				_, err = c.recv()
			}
			var ce websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != tc.status || (tc.reason != "" && !strings.Contains(ce.Reason, tc.reason)) {
				t.Fatalf("the connection ended with %v; want close status %d with a reason containing %q", err, tc.status, tc.reason)
			}
		})
	}
}
