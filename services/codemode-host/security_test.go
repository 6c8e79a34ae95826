package main_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
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
