package grpchost_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1/code_modev1connect"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// testTimeout bounds every wait of these tests for something that must happen; it never asserts
// that something was fast.
// It is minutes because under -race on 2 saturated cores a 72 MiB response alone took over
// 60 s: a guard that fires on a slow machine would be a timing assertion.
const testTimeout = 5 * time.Minute

// server is a host serving on 127.0.0.1 with a raw client: these tests speak the protocol
// message by message, as a peer nobody here wrote would.
type server struct {
	host   *grpchost.Host
	url    string
	client code_modev1connect.CodeModeHostClient
}

// newJSProvider returns the in-process QuickJS provider, closed at cleanup.
func newJSProvider(t *testing.T) codemode.SessionProvider {
	t.Helper()
	p, err := jsruntime.NewProvider(jsruntime.Options{})
	if err != nil {
		t.Fatalf("jsruntime.NewProvider: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Provider.Close: %v", err)
		}
	})
	return p
}

// startServer serves a host on provider until the test ends.
func startServer(t *testing.T, provider codemode.SessionProvider, opts grpchost.Options) *server {
	t.Helper()
	h := grpchost.New(provider, opts)
	ln, err := grpchost.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- h.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	url := "http://" + ln.Addr().String()
	return &server{host: h, url: url, client: rawClient(t, url, connecthttp.WithGRPC())}
}

// rawClient is a generated client over h2c with the given protocol option.
func rawClient(t *testing.T, url string, opts ...connecthttp.Option) code_modev1connect.CodeModeHostClient {
	t.Helper()
	return codemodeClient(h2cClient(t), url, opts...)
}

// codemodeClient is a generated client over hc, sending messages of any size (the host's limits
// are under test, not the client's).
func codemodeClient(hc *http.Client, url string, opts ...connecthttp.Option) code_modev1connect.CodeModeHostClient {
	opts = append(opts, connecthttp.WithReadMaxBytes(grpcconv.MaxMessageBytes), connecthttp.WithSendMaxBytes(0))
	return code_modev1connect.NewCodeModeHostClient(connect.NewClient(connecthttp.NewTransport(hc, url, opts...)))
}

// h2cClient speaks HTTP/2 with prior knowledge over cleartext; its idle connections are closed
// at cleanup.
func h2cClient(t *testing.T) *http.Client {
	protocols := new(http.Protocols)
	protocols.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: protocols, DialContext: (&net.Dialer{}).DialContext, TLSClientConfig: &tls.Config{}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: headerHook{tr}}
}

// headersKey carries the function headerHook calls when a request's response headers arrived.
type headersKey struct{}

// headerHook tells a test when a stream's response headers arrived: the host sends them on a
// subscription once it is registered, before any message.
type headerHook struct{ next http.RoundTripper }

func (h headerHook) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(r)
	if f, ok := r.Context().Value(headersKey{}).(func()); ok {
		f()
	}
	return resp, err
}

// subscribe opens a subscription and returns once the host has registered it.
func (srv *server) subscribe(t *testing.T, l *lease, filters ...*pb.ToolName) code_modev1connect.CodeModeHostSubscribeToToolCallsClientStream {
	t.Helper()
	arrived := make(chan struct{})
	var once sync.Once
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), headersKey{}, func() { once.Do(func() { close(arrived) }) }))
	t.Cleanup(cancel)
	sub, err := srv.client.SubscribeToToolCalls(ctx, &pb.SubscribeToToolCallsRequest{SessionId: l.id, ToolNames: filters})
	if err != nil {
		t.Fatalf("SubscribeToToolCalls: %v", err)
	}
	select {
	case <-arrived:
	case <-time.After(testTimeout):
		t.Fatal("the subscription's headers never arrived")
	}
	return sub
}

// execution is an Execute stream after its started event.
type execution struct {
	cell   string
	stream code_modev1connect.CodeModeHostExecuteClientStream
	cancel context.CancelFunc
}

// execute sends an Execute and reads its started event.
func (srv *server) execute(t *testing.T, req *pb.ExecuteRequest) *execution {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	stream, err := srv.client.Execute(ctx, req)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	first, err := stream.Receive()
	if err != nil {
		t.Fatalf("Execute's first event: %v", err)
	}
	started := first.GetStarted()
	if started == nil || started.GetExecutionId() != req.GetExecutionId() {
		t.Fatalf("first event %v, want started for %s", first, req.GetExecutionId())
	}
	return &execution{cell: started.GetCellId(), stream: stream, cancel: cancel}
}

// outcome reads the execution's outcome.
func (e *execution) outcome(t *testing.T) *pb.ExecutionOutcome {
	t.Helper()
	ev, err := e.stream.Receive()
	if err != nil {
		t.Fatalf("outcome: %v", err)
	}
	if ev.GetOutcome() == nil {
		t.Fatalf("event %v, want an outcome", ev)
	}
	return ev.GetOutcome()
}

// request is an ExecuteRequest with Codex's test defaults, except the yield time: Codex's tests
// give 60 s, which a storm of 1,024 tool calls answered one by one can reach on a loaded machine
// before the cell ends. This one never elapses during a test, so a cell is answered by its end or
// its yield_control (docs/adr/0070-the-gate-under-load.md).
func request(session, execution, source string) *pb.ExecuteRequest {
	yield := uint64(3_600_000)
	return &pb.ExecuteRequest{SessionId: session, ExecutionId: execution, ToolCallId: "outer-call", Source: source, YieldTimeMs: &yield}
}

// tool is an enabled function tool.
func tool(name string) *pb.ToolDefinition {
	return &pb.ToolDefinition{Name: name, ToolName: &pb.ToolName{Name: name}, Kind: pb.ToolKind_TOOL_KIND_FUNCTION}
}

// wantStatus fails the test unless err is a connect error with code and exactly text.
func wantStatus(t *testing.T, label string, err error, code connect.Code, text string) {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != code || ce.Message() != text {
		t.Fatalf("%s: %v, want %s %q", label, err, code, text)
	}
}

// texts is the text items of an outcome.
func texts(o *pb.ExecutionOutcome) []string {
	var out []string
	for _, item := range o.GetContentItems() {
		out = append(out, item.GetText().GetText())
	}
	return out
}

// complete answers a tool call with output.
func (srv *server) complete(t *testing.T, l *lease, call *pb.ToolCall, output string) {
	t.Helper()
	_, err := srv.client.CompleteToolCall(context.Background(), &pb.CompleteToolCallRequest{SessionId: l.id, InvocationId: call.GetInvocationId(),
		Outcome: &pb.CompleteToolCallRequest_Succeeded{Succeeded: &pb.ToolCallSucceeded{OutputJson: []byte(output)}}})
	if err != nil {
		t.Fatalf("CompleteToolCall: %v", err)
	}
}

// lease is an open session seen from the raw client.
type lease struct {
	id     string
	stream code_modev1connect.CodeModeHostOpenSessionClientStream
	cancel context.CancelFunc
}

// openSession opens a session and reads its opening event.
func (srv *server) openSession(t *testing.T, limits *pb.SessionCellExecutionLimits) *lease {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := srv.client.OpenSession(ctx, &pb.OpenSessionRequest{CellExecutionLimits: limits})
	if err != nil {
		cancel()
		t.Fatalf("OpenSession: %v", err)
	}
	first, err := stream.Receive()
	if err != nil {
		cancel()
		t.Fatalf("first lease event: %v", err)
	}
	opened := first.GetOpened()
	if opened == nil {
		cancel()
		t.Fatalf("first lease event %v, want opened", first)
	}
	l := &lease{id: opened.GetSessionId(), stream: stream, cancel: cancel}
	t.Cleanup(cancel)
	return l
}

// next reads the next lease event.
func (l *lease) next(t *testing.T) *pb.SessionEvent {
	t.Helper()
	e, err := l.stream.Receive()
	if err != nil {
		t.Fatalf("lease event: %v", err)
	}
	return e
}
