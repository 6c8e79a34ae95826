package main_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestPlaygroundIsServed: the gRPC listener serves the browser playground at / with its script
// and stylesheet, over HTTP/1.1 (what a browser uses for http://) and HTTP/2 (h2c), next to the
// RPC routes; with a token the page needs it like every RPC.
func TestPlaygroundIsServed(t *testing.T) {
	h := startHost(t, nil, "--listen", "grpc://127.0.0.1:0")
	base := h.addresses(1)[0]
	for _, client := range []struct {
		name  string
		c     *http.Client
		proto string
	}{{"HTTP/1.1", http.DefaultClient, "HTTP/1.1"}, {"HTTP/2", h2cClient(), "HTTP/2.0"}} {
		for _, f := range []struct{ path, contentType, contains string }{
			{"/", "text/html; charset=utf-8", "<title>codemode playground</title>"},
			{"/app.js", "text/javascript; charset=utf-8", "openSession"},
			{"/app.css", "text/css; charset=utf-8", "textarea {"},
		} {
			req, _ := http.NewRequest(http.MethodGet, base+f.path, nil)
			resp := do(t, client.c, req)
			text := body(resp)
			if resp.StatusCode != http.StatusOK || resp.Proto != client.proto || resp.Header.Get("Content-Type") != f.contentType {
				t.Errorf("%s GET %s: %d %s %q, want 200 %s %q", client.name, f.path, resp.StatusCode, resp.Proto, resp.Header.Get("Content-Type"), client.proto, f.contentType)
			}
			if !strings.Contains(text, f.contains) {
				t.Errorf("%s GET %s: the body lacks %q", client.name, f.path, f.contains)
			}
		}
	}
	// The RPC routes are still there beside the page, over HTTP/1.1 (Connect).
	req, _ := http.NewRequest(http.MethodPost, base+"/codex.code_mode.v1.CodeModeHost/CloseSession", strings.NewReader(`{"sessionId":"not-a-uuid"}`))
	req.Header.Set("Content-Type", "application/json")
	if resp := do(t, http.DefaultClient, req); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body(resp), `"invalid_argument"`) {
		t.Errorf("Connect CloseSession beside the page: %d, want 400 invalid_argument", resp.StatusCode)
	}
	if resp := get(t, base+"/nothing-here", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nothing-here over HTTP/1.1: %d, want 404", resp.StatusCode)
	}

	tokened := startHost(t, []string{"CODEMODE_HOST_TOKEN=s3cret"}, "--listen", "grpc://127.0.0.1:0")
	base = tokened.addresses(1)[0]
	if resp := get(t, base+"/", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET / without the token: %d, want 401", resp.StatusCode)
	}
	if resp := get(t, base+"/", http.Header{"Authorization": {"Bearer s3cret"}}); resp.StatusCode != http.StatusOK {
		t.Errorf("GET / with the token: %d, want 200", resp.StatusCode)
	}
}
