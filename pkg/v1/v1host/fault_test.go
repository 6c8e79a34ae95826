package v1host

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// The fault suite: each fault hits one connection of a host that also serves a bystander
// connection with a live cell. After the fault the bystander's cell still completes (the host
// serves its other connections) and every cell the host admitted was closed exactly once (the
// provider's delegates count CellClosed).

// countingProvider counts, across its sessions, the cells admitted and the CellClosed calls.
type countingProvider struct {
	codemode.SessionProvider
	mu       sync.Mutex
	admitted []string
	closed   map[string]int
}

func newCountingProvider(t *testing.T) *countingProvider {
	return &countingProvider{SessionProvider: newProvider(t), closed: map[string]int{}}
}

func (p *countingProvider) CreateSession(ctx context.Context, d codemode.Delegate, l codemode.SessionCellExecutionLimits) (codemode.Session, error) {
	key := fmt.Sprintf("%p", d)
	s, err := p.SessionProvider.CreateSession(ctx, &countingDelegate{Delegate: d, p: p, key: key}, l)
	if err != nil {
		return nil, err
	}
	return &countingSession{Session: s, p: p, key: key}, nil
}

type countingSession struct {
	codemode.Session
	p   *countingProvider
	key string
}

func (s *countingSession) Execute(ctx context.Context, r codemode.ExecuteRequest) (*codemode.StartedCell, error) {
	c, err := s.Session.Execute(ctx, r)
	if err == nil {
		s.p.mu.Lock()
		s.p.admitted = append(s.p.admitted, s.key+"/"+string(c.CellID))
		s.p.mu.Unlock()
	}
	return c, err
}

type countingDelegate struct {
	codemode.Delegate
	p   *countingProvider
	key string
}

func (d *countingDelegate) CellClosed(id codemode.CellID) {
	d.p.mu.Lock()
	d.p.closed[d.key+"/"+string(id)]++
	d.p.mu.Unlock()
	d.Delegate.CellClosed(id)
}

// checkClosedOnce fails unless every admitted cell was closed exactly once.
func (p *countingProvider) checkClosedOnce(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range p.admitted {
		if p.closed[k] != 1 {
			t.Errorf("cell %s closed %d times, want once", k, p.closed[k])
		}
	}
	if len(p.closed) != len(p.admitted) {
		t.Errorf("%d cells closed, %d admitted", len(p.closed), len(p.admitted))
	}
}

// bystander is a connection with a cell blocked on a tool call while faults hit others.
type bystander struct {
	c    *rawClient
	call int
}

func newBystander(t *testing.T, h *Host) *bystander {
	c := serveRaw(t, h).ready()
	c.send(open(1, "bystander"))
	c.expect(ready(1, "bystander"))
	c.send(execute(2, "bystander", `text("bystander " + await tools.tool({}));`))
	c.expect(started(2, "1"))
	return &bystander{c: c, call: delegateID(t, c.recv())}
}

// finish answers the bystander's tool call and checks its cell completes.
func (b *bystander) finish() {
	b.c.send(fmt.Sprintf(`{"type":"delegate/response","id":%d,"result":{"status":"ok","value":{"type":"tool/result","result":"alive"}}}`, b.call))
	b.c.expect(resultText(2, "1", "bystander alive"))
	b.c.expect(cellClosed("bystander", "1"))
	b.c.send(shutdown(3, "bystander"))
	b.c.expect(closedSession(3, "bystander"))
}

// faultyStream opens a stream connection with a session whose cell waits on a tool.
func faultyStream(t *testing.T, h *Host) *rawClient {
	c := serveRaw(t, h).ready()
	c.send(open(1, "victim"))
	c.expect(ready(1, "victim"))
	c.send(execute(2, "victim", `await tools.tool({});`))
	c.expect(started(2, "1"))
	_ = c.recv()
	return c
}

func TestFaultsOnStreamConnections(t *testing.T) {
	cases := []struct {
		name  string
		fault func(c *rawClient)
		err   string
	}{
		{"malformed frame", func(c *rawClient) { c.send("{") },
			"failed to read code-mode client message: failed to decode code-mode IPC frame: EOF while parsing an object at line 1 column 1"},
		{"64 MiB + 1 declared length", func(c *rawClient) {
			_, _ = c.w.Write(binary.LittleEndian.AppendUint32(nil, v1frame.MaxFrameBytes+1))
		}, "failed to read code-mode client message: code-mode IPC frame length 67108865 exceeds 67108864 bytes"},
		{"truncated frame then EOF", func(c *rawClient) {
			_, _ = c.w.Write([]byte{10, 0, 0, 0, '{'})
			_ = c.w.Close()
		}, "failed to read code-mode client message: code-mode IPC frame payload is truncated: unexpected EOF"},
		{"unknown field", func(c *rawClient) { c.send(`{"type":"operation/cancel","id":9,"unexpected":true}`) },
			"failed to read code-mode client message: failed to decode code-mode IPC frame: unknown field `unexpected`, expected `id`"},
		{"second hello", func(c *rawClient) { c.send(helloLimits) }, "received a second code-mode client hello"},
		{"client gone mid tool call", func(c *rawClient) { _ = c.w.Close() }, "<nil>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkLeaks(t)
			p := newCountingProvider(t)
			h := New(p, WithGeneration(wirev1.GenerationBaseline))
			b := newBystander(t, h)
			c := faultyStream(t, h)
			tc.fault(c)
			if err := c.serveResult(); fmt.Sprint(err) != tc.err {
				t.Fatalf("ServeConn = %v, want %s", err, tc.err)
			}
			b.finish()
			p.checkClosedOnce(t)
		})
	}
}

func TestFaultsOnWebsocketConnections(t *testing.T) {
	cases := map[string]func(control, bulk *wsClient){
		"wrong lane":             func(_, bulk *wsClient) { bulk.send(open(5, "x")) },
		"text websocket message": func(control, _ *wsClient) { control.sendRaw(websocket.MessageText, []byte("hello")) },
		"client gone mid tool call": func(control, bulk *wsClient) {
			_ = control.ws.CloseNow()
			_ = bulk.ws.CloseNow()
		},
	}
	for name, fault := range cases {
		t.Run(name, func(t *testing.T) {
			p := newCountingProvider(t)
			h := New(p, WithGeneration(wirev1.GenerationBaseline))
			addr := listen(t, h)
			b := newBystander(t, h)
			control, bulk := dual(t, addr)
			control.send(open(1, "victim"))
			control.expect(ready(1, "victim"))
			control.send(execute(2, "victim", `await tools.tool({});`))
			control.expect(started(2, "1"))
			if _, err := bulk.recv(); err != nil {
				t.Fatal(err)
			}
			fault(control, bulk)
			control.expectClosed()
			b.finish()
			// Teardown of the failed connection shuts its session down; wait for it through a
			// connection that proves the listener still serves.
			other := dialWS(t, "ws://"+addr+"/")
			other.ready(helloLimits)
			awaitClosedCells(t, p, 2)
			p.checkClosedOnce(t)
		})
	}
}

// awaitClosedCells waits until n cells were closed (a failed connection's teardown runs after
// the client saw the connection end).
func awaitClosedCells(t *testing.T, p *countingProvider, n int) {
	t.Helper()
	for range 1_000_000 {
		p.mu.Lock()
		got := len(p.closed)
		p.mu.Unlock()
		if got >= n {
			return
		}
		runtimeGosched()
	}
	t.Fatalf("fewer than %d cells were closed", n)
}

// blockingProvider holds CreateSession until released, so requests stay in flight.
type blockingProvider struct {
	codemode.SessionProvider
	release chan struct{}
	entered chan struct{}
}

func (p *blockingProvider) CreateSession(ctx context.Context, d codemode.Delegate, l codemode.SessionCellExecutionLimits) (codemode.Session, error) {
	p.entered <- struct{}{}
	<-p.release
	return p.SessionProvider.CreateSession(ctx, d, l)
}

func Test257ConcurrentRequests(t *testing.T) {
	p := &blockingProvider{SessionProvider: newProvider(t), release: make(chan struct{}), entered: make(chan struct{}, MaxInFlightRequests)}
	c := serveRaw(t, New(p)).ready()
	for i := range MaxInFlightRequests {
		c.send(open(i+1, fmt.Sprintf("s%d", i+1)))
	}
	for range MaxInFlightRequests {
		<-p.entered
	}
	c.send(open(257, "s257"))
	c.expect(errorResponse(257, "code-mode host has too many in-flight requests"))
	close(p.release)
	seen := map[string]bool{}
	for range MaxInFlightRequests {
		got := c.recv()
		if !strings.Contains(got, `"type":"session/ready"`) || seen[got] {
			t.Fatalf("after release: %s", got)
		}
		seen[got] = true
	}
	// The connection stays up: the refused ID is finished, a new request is served.
	c.send(open(258, "s258"))
	<-p.entered
	c.expect(ready(258, "s258"))
}

// initialResponseText is the one text item of an execute/initialResponse carrying a Result.
func initialResponseText(t *testing.T, payload string) string {
	t.Helper()
	var v struct {
		Result struct {
			Value struct {
				Result struct {
					ContentItems []struct{ Text string } `json:"content_items"`
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(payload), &v); err != nil || len(v.Result.Value.Result.ContentItems) != 1 {
		t.Fatalf("not a one-text Result: %s (%v)", payload, err)
	}
	return v.Result.Value.Result.ContentItems[0].Text
}

func TestPendingDelegateLimitRejectsCallWithoutDisconnecting(t *testing.T) {
	checkLeaks(t)
	c := serveRaw(t, baselineHost(t)).ready()
	// A cell of the runtime runs at most 1,024 calls at once, so two cells share the
	// connection's 1,025 calls.
	checkPendingDelegateLimit(t, c, MaxPendingDelegateCalls, 600, 425)
}

// With delegate-capacity-4096 (Codex 0.169) the connection holds 4,096 pending calls: five
// cells make 4,097.
func TestGrantedDelegateCapacityIs4096(t *testing.T) {
	checkLeaks(t)
	c := serveRaw(t, New(newProvider(t))).readyWithBoundedOutput()
	checkPendingDelegateLimit(t, c, MaxPendingDelegateCallsGranted, 1024, 1024, 1024, 1024, 1)
}

// checkPendingDelegateLimit runs cells making the given numbers of tool calls at once, one more
// than limit in all, on a ready connection. Each cell ends as soon as one of its calls is
// rejected, with the reason, and otherwise once all succeeded: the rejection is on the wire
// before the test answers any call, so no answer can free a slot before the last call is
// admitted. Exactly one call is rejected, with Codex's text, and the connection stays up.
func checkPendingDelegateLimit(t *testing.T, c *rawClient, limit int, calls ...int) {
	t.Helper()
	c.send(open(1, "s"))
	c.expect(ready(1, "s"))
	body := `const ps = Array.from({ length: %d }, (_, i) => tools.tool({ i }));
		const rejected = Promise.race(ps.map((p) => p.then(() => new Promise(() => {}), (e) => String(e))));
		text(await Promise.race([rejected, Promise.all(ps).then(() => "none rejected")]));`
	for i, n := range calls {
		c.send(execute(2+i, "s", fmt.Sprintf(body, n)))
	}
	var ids []int
	var results []string
	answered, closed := 0, 0
	for closed < len(calls) {
		got := c.recv()
		switch typeOf(got) {
		case "delegate/request":
			ids = append(ids, delegateID(t, got))
		case "execute/initialResponse":
			results = append(results, initialResponseText(t, got))
		case "cell/closed":
			closed++
		case "delegate/cancel":
		case "operation/response":
			if !strings.Contains(got, "execution/started") {
				t.Fatalf("unexpected %s", got)
			}
		default:
			t.Fatalf("unexpected %s", got)
		}
		if len(results) == 0 {
			continue // nothing is answered before the rejection
		}
		for ; answered < len(ids); answered++ {
			c.send(fmt.Sprintf(`{"type":"delegate/response","id":%d,"result":{"status":"ok","value":{"type":"tool/result","result":1}}}`, ids[answered]))
		}
	}
	rejected := 0
	for _, r := range results {
		switch r {
		case "code-mode host has too many pending delegate calls":
			rejected++
		case "none rejected":
		default:
			t.Fatalf("a cell ended with %q", r)
		}
	}
	if rejected != 1 {
		t.Fatalf("cells ended with %q, want exactly the call past %d rejected", results, limit)
	}
	if len(ids) > limit {
		t.Fatalf("%d delegate requests went out, more than the limit of %d", len(ids), limit)
	}
	c.send(open(99, "still-up"))
	c.expect(ready(99, "still-up"))
}

// TestABurstOfRefusedRequestsKeepsTheConnection: with every in-flight place taken, a client that
// writes 1,000 more requests before it reads anything gets 1,000 refusals, and the connection
// lives on: the read loop's replies wait for the writer instead of failing the connection when
// the outgoing queue (128 frames) is full. Before, the 129th refusal ended the connection with
// "outgoing queue is full".
func TestABurstOfRefusedRequestsKeepsTheConnection(t *testing.T) {
	p := &blockingProvider{SessionProvider: newProvider(t), release: make(chan struct{}), entered: make(chan struct{}, MaxInFlightRequests)}
	c := serveRaw(t, New(p)).ready()
	for i := range MaxInFlightRequests {
		c.send(open(i+1, fmt.Sprintf("s%d", i+1)))
	}
	for range MaxInFlightRequests {
		<-p.entered
	}
	// The client reads nothing while it writes: its reader stops once 16 frames wait for it.
	const burst = 1000
	for i := range burst {
		c.send(open(MaxInFlightRequests+1+i, fmt.Sprintf("burst%d", i))) // each write returns once the host has read it
	}
	refused := map[string]bool{}
	for range burst {
		got := c.recv()
		if !strings.Contains(got, "code-mode host has too many in-flight requests") || refused[got] {
			t.Fatalf("refusal %d: %s", len(refused)+1, got)
		}
		refused[got] = true
	}
	close(p.release)
	for range MaxInFlightRequests {
		if got := c.recv(); !strings.Contains(got, `"type":"session/ready"`) {
			t.Fatalf("after release: %s", got)
		}
	}
	c.send(open(5000, "after"))
	<-p.entered
	c.expect(ready(5000, "after"))
}
