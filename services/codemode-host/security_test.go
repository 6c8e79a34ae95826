package main_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"github.com/coder/websocket"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1/code_modev1connect"
)

// TestNonLoopbackWithoutTokenIsRefused: a listener other than loopback without a token refuses
// to start, with the reason, exit status 2.
func TestNonLoopbackWithoutTokenIsRefused(t *testing.T) {
	for _, listen := range []string{"ws://0.0.0.0:0", "grpc://0.0.0.0:0"} {
		h := startHost(t, []string{"CODEMODE_HOST_TOKEN="}, "--listen", listen)
		if code := h.exitCode(); code != 2 {
			t.Errorf("%s: exit status %d, want 2", listen, code)
		}
		if !strings.Contains(h.stderrText(), "--listen "+listen+" is not a loopback address: a host reachable from the network needs a bearer token") {
			t.Errorf("%s: stderr %q", listen, h.stderrText())
		}
	}
}

// TestTokenIsRequiredOnEveryNetworkListener: with a token (from the environment) the WebSocket
// answers 401 and gRPC/Connect UNAUTHENTICATED without it, and serves with it; the probes stay
// open.
func TestTokenIsRequiredOnEveryNetworkListener(t *testing.T) {
	h := startHost(t, []string{"CODEMODE_HOST_TOKEN=s3cret"}, "--listen", "ws://127.0.0.1:0", "--listen", "grpc://127.0.0.1:0")
	addrs := h.addresses(2)
	wsHTTP := "http://" + strings.TrimPrefix(addrs[0], "ws://")
	ctx := context.Background()

	if _, resp, err := websocket.Dial(ctx, addrs[0], nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("WebSocket without a token: %v, %v; want 401", err, status(resp))
	}
	if _, resp, err := websocket.Dial(ctx, addrs[0], &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer wrong"}}}); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("WebSocket with a wrong token: %v, %v; want 401", err, status(resp))
	}
	conn, _, err := websocket.Dial(ctx, addrs[0], &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer s3cret"}}})
	if err != nil {
		t.Fatalf("WebSocket with the token: %v", err)
	}
	_ = conn.CloseNow()
	if got := get(t, wsHTTP+"/readyz", nil); got.StatusCode != http.StatusOK {
		t.Errorf("/readyz without a token: %d, want 200", got.StatusCode)
	}

	connect := func(token string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, addrs[1]+"/codex.code_mode.v1.CodeModeHost/CloseSession", strings.NewReader(`{"sessionId":"not-a-uuid"}`))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return do(t, http.DefaultClient, req)
	}
	if resp := connect(""); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body(resp), `"unauthenticated"`) {
		t.Errorf("Connect without a token: %d, want 401 unauthenticated", resp.StatusCode)
	}
	if resp := connect("s3cret"); resp.StatusCode == http.StatusUnauthorized {
		t.Errorf("Connect with the token: 401")
	}
	grpcReq, _ := http.NewRequest(http.MethodPost, addrs[1]+"/codex.code_mode.v1.CodeModeHost/CloseSession", strings.NewReader("\x00\x00\x00\x00\x00"))
	grpcReq.Header.Set("Content-Type", "application/grpc")
	grpcReq.Header.Set("TE", "trailers")
	resp := do(t, h2cClient(), grpcReq)
	_ = body(resp)
	if got := resp.Header.Get("Grpc-Status") + resp.Trailer.Get("Grpc-Status"); got != "16" {
		t.Errorf("gRPC without a token: grpc-status %q, want 16 (UNAUTHENTICATED)", got)
	}
	if got := get(t, addrs[1]+"/healthz", nil); got.StatusCode != http.StatusOK {
		t.Errorf("/healthz without a token: %d, want 200", got.StatusCode)
	}
}

// TestCORSOnlyWithAllowOrigin: the Connect listener answers a browser's preflight and requests
// with CORS headers only for an origin given with --allow-origin; the V1 WebSocket refuses every
// Origin regardless.
func TestCORSOnlyWithAllowOrigin(t *testing.T) {
	const origin = "http://localhost:5173"
	preflight := func(url, from string) *http.Response {
		req, _ := http.NewRequest(http.MethodOptions, url+"/codex.code_mode.v1.CodeModeHost/CloseSession", nil)
		req.Header.Set("Origin", from)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type,connect-protocol-version")
		return do(t, http.DefaultClient, req)
	}
	plain := startHost(t, nil, "--listen", "grpc://127.0.0.1:0")
	url := plain.addresses(1)[0]
	if got := preflight(url, origin).Header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("without --allow-origin: Access-Control-Allow-Origin %q, want none", got)
	}

	h := startHost(t, nil, "--listen", "grpc://127.0.0.1:0", "--listen", "ws://127.0.0.1:0", "--allow-origin", origin)
	addrs := h.addresses(2)
	resp := preflight(addrs[0], origin)
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != origin || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Connect-Protocol-Version") {
		t.Errorf("preflight from %s: %d %v", origin, resp.StatusCode, resp.Header)
	}
	if got := preflight(addrs[0], "http://evil.example").Header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("preflight from another origin: Access-Control-Allow-Origin %q, want none", got)
	}
	req, _ := http.NewRequest(http.MethodPost, addrs[0]+"/codex.code_mode.v1.CodeModeHost/CloseSession", strings.NewReader(`{"sessionId":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", origin)
	if got := do(t, http.DefaultClient, req).Header.Get("Access-Control-Allow-Origin"); got != origin {
		t.Errorf("Connect request from %s: Access-Control-Allow-Origin %q", origin, got)
	}
	if _, resp, err := websocket.Dial(context.Background(), addrs[1], &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}}); err == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("V1 WebSocket from an allowed browser origin: %v, %v; want 403", err, status(resp))
	}
}

func status(resp *http.Response) any {
	if resp == nil {
		return "no response"
	}
	return resp.StatusCode
}

func get(t *testing.T, url string, header http.Header) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	return do(t, http.DefaultClient, req)
}

func do(t *testing.T, c *http.Client, req *http.Request) *http.Response {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func body(resp *http.Response) string {
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// h2cClient speaks HTTP/2 without TLS, as gRPC clients do.
func h2cClient() *http.Client {
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: p}}
}

// reboundClient is an HTTP client as a web page's browser is after DNS rebinding: it asks for
// http://evil.example:PORT, the name resolves to 127.0.0.1, so it connects to the host's loopback
// listener, and every request says "Host: evil.example:PORT" and, from the page's script,
// "Origin: http://evil.example:PORT" (same-origin as far as the browser knows).
func reboundClient(origin string) *http.Client {
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		var d net.Dialer
		return d.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", port))
	}
	return &http.Client{Transport: withOrigin{origin: origin, next: &http.Transport{DialContext: dial}}}
}

// withOrigin adds an Origin header to every request, as a browser does to a page's POSTs.
type withOrigin struct {
	origin string
	next   http.RoundTripper
}

func (o withOrigin) RoundTrip(r *http.Request) (*http.Response, error) {
	if o.origin != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Origin", o.origin)
	}
	return o.next.RoundTrip(r)
}

// markerManifest writes a tool manifest whose one tool, `whoami`, appends the host user's name to
// the returned file and echoes its input: proof that a cell ran a command on the host's machine.
func markerManifest(t *testing.T) (manifest, marker string) {
	t.Helper()
	dir := t.TempDir()
	marker = filepath.Join(dir, "ran")
	manifest = filepath.Join(dir, "tools.json")
	doc, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{
		"name": "whoami", "description": "Runs id -un on the host.",
		"command":      []string{"sh", "-c", "id -un >> " + marker + " && cat"},
		"input_schema": map[string]any{"type": "object"},
	}}})
	if err := os.WriteFile(manifest, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	return manifest, marker
}

// runHostTool opens a session through client at baseURL (Connect, as a page's script would) and
// runs a cell that calls the manifest's whoami tool; it returns the first error on the way.
func runHostTool(ctx context.Context, client *http.Client, baseURL string) error {
	host := code_modev1connect.NewCodeModeHostClient(connect.NewClient(connecthttp.NewTransport(client, baseURL)))
	return runSource(ctx, host, `text(JSON.stringify(await tools.whoami({})))`)
}

// runSource opens a session on host, runs src as one cell, follows it to its end and returns the
// first error on the way (the RPC's, or the cell's error text); the session closes with ctx's
// cancellation on return.
func runSource(ctx context.Context, host code_modev1connect.CodeModeHostClient, src string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lease, err := host.OpenSession(ctx, &pb.OpenSessionRequest{})
	if err != nil {
		return err
	}
	defer lease.Close()
	opened, err := lease.Receive()
	if err != nil {
		return err
	}
	exec, err := host.Execute(ctx, &pb.ExecuteRequest{
		SessionId: opened.GetOpened().GetSessionId(), ExecutionId: "run-1", ToolCallId: "call-1", Source: src,
	})
	if err != nil {
		return err
	}
	defer exec.Close()
	for {
		ev, err := exec.Receive()
		if err != nil {
			return err
		}
		if o := ev.GetOutcome(); o != nil {
			return followOutcome(ctx, host, opened.GetOpened().GetSessionId(), o)
		}
	}
}

// followOutcome follows a yielded cell with Waits (it may yield on a loaded machine) to its end
// and returns its error, if any.
func followOutcome(ctx context.Context, host code_modev1connect.CodeModeHostClient, session string, o *pb.ExecutionOutcome) error {
	for wait := 0; o.GetYielded() != nil; wait++ {
		resp, err := host.Wait(ctx, &pb.WaitRequest{SessionId: session, CellId: o.GetCellId(), WaitId: fmt.Sprintf("wait-%d", wait), YieldTimeMs: 60_000})
		if err != nil {
			return err
		}
		if resp.GetLiveCell() == nil {
			return fmt.Errorf("wait: the cell is gone: %v", resp)
		}
		o = resp.GetLiveCell()
	}
	switch {
	case o.GetTerminated() != nil:
		return errors.New("cell terminated")
	case o.GetCompleted().ErrorText != nil:
		return fmt.Errorf("cell failed: %s", o.GetCompleted().GetErrorText())
	}
	return nil
}

// TestDNSRebindingIsRefused reproduces the attack of a web page on a loopback host without a token:
// the page's name resolves to 127.0.0.1, so its script reaches the host as its own origin. The
// host must refuse every request whose Host is not a loopback name (PERMISSION_DENIED, 403) on the
// gRPC/Connect listener, its page and the V1 WebSocket, and run nothing; the same cell through
// "localhost" runs the tool (so the refusal is what stops it), and the probes answer under any name.
func TestDNSRebindingIsRefused(t *testing.T) {
	manifest, marker := markerManifest(t)
	h := startHost(t, nil, "--listen", "grpc://127.0.0.1:0", "--listen", "ws://127.0.0.1:0", "--tools", manifest)
	addrs := h.addresses(2)
	_, grpcPort, _ := net.SplitHostPort(strings.TrimPrefix(addrs[0], "http://"))
	_, wsPort, _ := net.SplitHostPort(strings.TrimPrefix(addrs[1], "ws://"))
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()

	evil := "http://evil.example:" + grpcPort
	err := runHostTool(ctx, reboundClient(evil), evil)
	if ce := (*connect.Error)(nil); !errors.As(err, &ce) || ce.Code() != connect.CodePermissionDenied ||
		!strings.HasPrefix(ce.Message(), `Host "evil.example:`+grpcPort+`" is not a loopback name`) {
		t.Fatalf("a rebound page's cell: %v; want permission_denied naming the Host", err)
	}
	if ran, err := os.ReadFile(marker); err == nil {
		t.Fatalf("the rebound page ran the host's tool as %q", ran)
	}
	h.awaitStderr(`reason="forbidden host" value=evil.example:` + grpcPort)

	for _, path := range []string{"/", "/app.js"} {
		if resp := do(t, reboundClient(""), mustRequest(t, http.MethodGet, evil+path)); resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET %s of the page under a rebound name: %d, want 403", path, resp.StatusCode)
		}
	}
	if resp := do(t, reboundClient(""), mustRequest(t, http.MethodGet, evil+"/healthz")); resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz under a rebound name: %d, want 200 (probes reveal nothing)", resp.StatusCode)
	}
	wsEvil := "ws://evil.example:" + wsPort
	if _, resp, err := websocket.Dial(ctx, wsEvil, &websocket.DialOptions{HTTPClient: reboundClient("")}); err == nil || status(resp) != http.StatusForbidden {
		t.Errorf("V1 WebSocket under a rebound name: %v, %v; want 403", err, status(resp))
	}
	if resp := do(t, reboundClient(""), mustRequest(t, http.MethodGet, "http://evil.example:"+wsPort+"/readyz")); resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz under a rebound name: %d, want 200", resp.StatusCode)
	}

	// The same page's cell through a loopback name and from its own origin runs the tool.
	local := "http://localhost:" + grpcPort
	if err := runHostTool(ctx, reboundClient(local), local); err != nil {
		t.Fatalf("the cell through localhost: %v", err)
	}
	if ran, err := os.ReadFile(marker); err != nil || len(ran) == 0 {
		t.Fatalf("through localhost the tool did not run: %q, %v", ran, err)
	}
}

// TestForeignOriginIsRefused: a page of another origin (another site, or another port of this
// machine) that calls the loopback host gets PERMISSION_DENIED (403) and runs nothing, whatever
// CORS would have let it read; an origin given with --allow-origin is served.
func TestForeignOriginIsRefused(t *testing.T) {
	manifest, marker := markerManifest(t)
	h := startHost(t, nil, "--listen", "grpc://127.0.0.1:0", "--tools", manifest, "--allow-origin", "http://localhost:5173")
	url := h.addresses(1)[0]
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for _, origin := range []string{"http://evil.example", "http://127.0.0.1:1", "null"} {
		err := runHostTool(ctx, &http.Client{Transport: withOrigin{origin: origin, next: http.DefaultTransport}}, url)
		if ce := (*connect.Error)(nil); !errors.As(err, &ce) || ce.Code() != connect.CodePermissionDenied ||
			ce.Message() != "Origin "+origin+" is not allowed: browser pages reach this host only from its own origin or from one given with --allow-origin" {
			t.Errorf("a page from %s: %v; want permission_denied", origin, err)
		}
	}
	if ran, err := os.ReadFile(marker); err == nil {
		t.Fatalf("a foreign page ran the host's tool as %q", ran)
	}
	for _, origin := range []string{"http://localhost:5173", url} {
		if err := runHostTool(ctx, &http.Client{Transport: withOrigin{origin: origin, next: http.DefaultTransport}}, url); err != nil {
			t.Errorf("a page from %s: %v", origin, err)
		}
	}
}

func mustRequest(t *testing.T, method, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
