package v1client

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/coder/websocket"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// wsScripted is a WebSocket host on 127.0.0.1 that the test plays frame by frame: "/" accepts
// control sockets, "/bulk/token-1" the bulk socket of a dual connection.
type wsScripted struct {
	t        *testing.T
	url      string
	controls atomic.Int32 // control sockets accepted
	control  chan *websocket.Conn
	bulk     chan *websocket.Conn
}

func newWSScripted(t *testing.T) *wsScripted {
	t.Helper()
	h := &wsScripted{t: t, control: make(chan *websocket.Conn, 4), bulk: make(chan *websocket.Conn, 4)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.url = "ws://" + ln.Addr().String() + "/"
	ln = smallReadBuffers{ln}
	accept := func(ch chan *websocket.Conn) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
			if err != nil {
				return
			}
			ws.SetReadLimit(v1frame.MaxMessageBytes)
			ch <- ws // the socket outlives the handler (it was hijacked)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.controls.Add(1)
		accept(h.control)(w, r)
	})
	mux.HandleFunc("/bulk/token-1", accept(h.bulk))
	srv := &http.Server{Handler: mux}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-served
	})
	return h
}

// smallReadBuffers gives accepted connections a small receive buffer, so that a host that stops
// reading pushes back on the client after little data.
type smallReadBuffers struct{ net.Listener }

func (l smallReadBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(64 << 10)
	}
	return c, err
}

// String returns the listener's address for URLs.
func (h *wsScripted) String() string { return h.url }

func (h *wsScripted) accept(ch chan *websocket.Conn) *websocket.Conn {
	h.t.Helper()
	select {
	case ws := <-ch:
		h.t.Cleanup(func() { _ = ws.CloseNow() })
		return ws
	case <-bgTimeout(h.t).Done():
		h.t.Fatal("the client opened no socket")
	}
	return nil
}

func bgTimeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

func wsSend(t *testing.T, ws *websocket.Conn, payload string) {
	t.Helper()
	f, err := v1frame.Append(nil, []byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Write(bgTimeout(t), websocket.MessageBinary, f); err != nil {
		t.Fatalf("send %.100s: %v", payload, err)
	}
}

func wsRecv(t *testing.T, ws *websocket.Conn) string {
	t.Helper()
	typ, msg, err := ws.Read(bgTimeout(t))
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if typ != websocket.MessageBinary {
		t.Fatalf("a %v message", typ)
	}
	p, err := v1frame.Decode(msg)
	if err != nil {
		t.Fatal(err)
	}
	return string(p)
}

func wsExpect(t *testing.T, ws *websocket.Conn, want string) {
	t.Helper()
	if got := wsRecv(t, ws); got != want {
		t.Fatalf("frame:\n got %.300s\nwant %.300s", got, want)
	}
}

const wsHello = `{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":["bounded-output-v1","delegate-capacity-4096","dual-websocket-v1","session-cell-execution-resource-limits","yield-observation"]}`

// TestWebsocketProviderExecutesOverSharedConnector is Codex's
// websocket_provider_executes_over_shared_connector: every session of a WebSocket provider runs
// on one connection to a legacy host (one that grants no capability); refusing a session with
// limits leaves that connection usable, and closing the provider ends it.
func TestWebsocketProviderExecutesOverSharedConnector(t *testing.T) {
	h := newWSScripted(t)
	p := NewWebSocketProvider(h.String(), true, Options{})
	defer p.Close()
	sessions := make(chan codemode.Session, 1)
	go func() {
		s, err := p.CreateSession(bg(), codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{})
		if err != nil {
			t.Error(err)
		}
		sessions <- s
	}()
	control := h.accept(h.control)
	wsExpect(t, control, wsHello)
	wsSend(t, control, `{"type":"connection/ready","selectedVersion":1,"capabilities":[]}`)
	wsExpect(t, control, `{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"session-1"}}`)
	wsSend(t, control, `{"type":"operation/response","id":1,"result":{"status":"ok","value":{"type":"session/ready","sessionId":"session-1"}}}`)
	first := <-sessions

	limit := uint64(250)
	if _, err := p.CreateSession(bg(), codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{MaxYieldTimeMs: &limit}); err == nil ||
		err.Error() != "code-mode host does not support session resource limits: missing `session-cell-execution-resource-limits` capability" {
		t.Fatalf("limited session on a legacy host: %v", err)
	}

	go func() {
		s, err := p.CreateSession(bg(), codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{})
		if err != nil {
			t.Error(err)
		}
		sessions <- s
	}()
	// The refused session sent nothing (its ID is used up); the next one opens on the same socket.
	wsExpect(t, control, `{"type":"operation/request","id":2,"request":{"method":"session/open","sessionId":"session-3"}}`)
	wsSend(t, control, `{"type":"operation/response","id":2,"result":{"status":"ok","value":{"type":"session/ready","sessionId":"session-3"}}}`)
	second := <-sessions
	shut := make(chan error, 1)
	go func() { shut <- second.Shutdown(bg()) }()
	wsExpect(t, control, `{"type":"operation/request","id":3,"request":{"method":"session/shutdown","sessionId":"session-3"}}`)
	wsSend(t, control, `{"type":"operation/response","id":3,"result":{"status":"ok","value":{"type":"session/closed","sessionId":"session-3"}}}`)
	if err := <-shut; err != nil {
		t.Fatal(err)
	}

	responses := make(chan codemode.RuntimeResponse, 1)
	go func() {
		c, err := first.Execute(bg(), codemode.ExecuteRequest{ToolCallID: "shared-websocket", Source: "text('shared connector')"})
		if err != nil {
			t.Error(err)
			close(responses)
			return
		}
		r, err := c.InitialResponse(bg())
		if err != nil {
			t.Error(err)
		}
		responses <- r
	}()
	wsExpect(t, control, `{"type":"operation/request","id":4,"request":{"method":"session/execute","sessionId":"session-1","request":{"tool_call_id":"shared-websocket","enabled_tools":[],"source":"text('shared connector')","yield_time_ms":null,"max_output_tokens":null}}}`)
	wsSend(t, control, `{"type":"operation/response","id":4,"result":{"status":"ok","value":{"type":"execution/started","cellId":"1"}}}`)
	wsSend(t, control, `{"type":"execute/initialResponse","id":4,"result":{"status":"ok","value":{"Result":{"cell_id":"1","content_items":[{"type":"input_text","text":"shared connector"}],"error_text":null}}}}`)
	r := <-responses
	if r.Kind != codemode.Result || r.CellID != "1" || r.ErrorText != nil || len(r.ContentItems) != 1 || r.ContentItems[0] != (codemode.InputText{Text: "shared connector"}) {
		t.Fatalf("response %+v", r)
	}
	wsSend(t, control, `{"type":"cell/closed","sessionId":"session-1","cellId":"1"}`)
	go func() { shut <- first.Shutdown(bg()) }()
	wsExpect(t, control, `{"type":"operation/request","id":5,"request":{"method":"session/shutdown","sessionId":"session-1"}}`)
	wsSend(t, control, `{"type":"operation/response","id":5,"result":{"status":"ok","value":{"type":"session/closed","sessionId":"session-1"}}}`)
	if err := <-shut; err != nil {
		t.Fatal(err)
	}

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := control.Read(bgTimeout(t)); err == nil {
		t.Fatal("the connection is still open after the provider closed")
	}
	if n := h.controls.Load(); n != 1 {
		t.Fatalf("%d connections for the provider's sessions, want 1", n)
	}
}

// TestConcurrentLargeDelegateResultsDoNotDisconnectABackpressuredBulkLane is Codex's
// concurrent_large_delegate_results_do_not_disconnect_a_backpressured_bulk_lane: 129 tool
// results of 256 KiB each finish at once while the host does not read the bulk socket (more
// than a 128-frame queue, and far more than the socket buffers hold). They wait for the host
// instead of failing the connection: control traffic goes on meanwhile, and once the host reads,
// every result arrives intact.
func TestConcurrentLargeDelegateResultsDoNotDisconnectABackpressuredBulkLane(t *testing.T) {
	const calls = 129
	large := strings.Repeat("x", 256*1024)
	h := newWSScripted(t)
	p := NewWebSocketProvider(h.String(), true, Options{})
	defer p.Close()
	rec := codemodetest.NewRecorder()
	gate := codemodetest.NewGate()
	result, _ := json.Marshal(large)
	rec.Handle("t", gate.Tool(string(result)))
	sessions := make(chan codemode.Session, 1)
	go func() {
		s, err := p.CreateSession(bg(), rec, codemode.SessionCellExecutionLimits{})
		if err != nil {
			t.Error(err)
		}
		sessions <- s
	}()
	control := h.accept(h.control)
	wsExpect(t, control, wsHello)
	wsSend(t, control, `{"type":"connection/ready","selectedVersion":1,"capabilities":["dual-websocket-v1"],"bulkConnectionToken":"token-1"}`)
	bulk := h.accept(h.bulk)
	wsExpect(t, control, `{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"session-1"}}`)
	wsSend(t, control, `{"type":"operation/response","id":1,"result":{"status":"ok","value":{"type":"session/ready","sessionId":"session-1"}}}`)
	s := <-sessions

	execute := func(id int, cell string) {
		t.Helper()
		started := make(chan *codemode.StartedCell, 1)
		go func() {
			c, err := s.Execute(bg(), codemode.ExecuteRequest{ToolCallID: "call", Source: "src", EnabledTools: []codemode.ToolDefinition{tool("t")}})
			if err != nil {
				t.Error(err)
			}
			started <- c
		}()
		if got := wsRecv(t, control); !strings.Contains(got, fmt.Sprintf(`"id":%d,"request":{"method":"session/execute"`, id)) {
			t.Fatalf("execute frame: %.200s", got)
		}
		wsSend(t, control, fmt.Sprintf(`{"type":"operation/response","id":%d,"result":{"status":"ok","value":{"type":"execution/started","cellId":%q}}}`, id, cell))
		if c := <-started; c == nil || c.CellID != codemode.CellID(cell) {
			t.Fatalf("started %+v", c)
		}
	}
	execute(2, "1")
	for id := 1; id <= calls; id++ {
		wsSend(t, bulk, fmt.Sprintf(`{"type":"delegate/request","id":%d,"sessionId":"session-1","request":{"type":"tool/invoke","invocation":{"cell_id":"1","runtime_tool_call_id":"tool-%d","tool_name":{"name":"t","namespace":null},"tool_kind":"function","input":null}}}`, id, id))
	}
	if _, err := rec.AwaitToolCall(bgTimeout(t), "t", calls); err != nil {
		t.Fatal(err)
	}
	gate.Release()
	for _, c := range rec.ToolCalls() {
		<-c.Returned()
	}
	// The host still does not read the bulk socket; the control lane carries on.
	execute(3, "2")

	seen := map[string]bool{}
	for range calls {
		got := wsRecv(t, bulk)
		var m struct {
			Type   string `json:"type"`
			ID     int    `json:"id"`
			Result struct {
				Status string `json:"status"`
				Value  struct {
					Type   string `json:"type"`
					Result string `json:"result"`
				} `json:"value"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(got), &m); err != nil || m.Type != "delegate/response" || m.Result.Status != "ok" || m.Result.Value.Type != "tool/result" || m.Result.Value.Result != large {
			t.Fatalf("bulk frame %.200s: %v", got, err)
		}
		seen[fmt.Sprint(m.ID)] = true
	}
	if len(seen) != calls {
		t.Fatalf("%d distinct results, want %d", len(seen), calls)
	}
	// And the connection is still up.
	execute(4, "3")
}
