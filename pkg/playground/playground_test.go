package playground

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHandlerServesThePage: the page and its assets come with their content types and a content
// security policy; a repeated GET with the ETag is 304; other methods and paths are refused.
func TestHandlerServesThePage(t *testing.T) {
	h := Handler()
	for _, tc := range []struct{ path, contentType, contains string }{
		{"/", "text/html; charset=utf-8", `<script type="module" src="app.js"></script>`},
		{"/app.js", "text/javascript; charset=utf-8", "openSession"},
		{"/app.css", "text/css; charset=utf-8", "textarea {"},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != tc.contentType {
			t.Errorf("GET %s: %d %q, want 200 %q", tc.path, rec.Code, rec.Header().Get("Content-Type"), tc.contentType)
		}
		if !strings.Contains(rec.Body.String(), tc.contains) {
			t.Errorf("GET %s: the body lacks %q", tc.path, tc.contains)
		}
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self'") {
			t.Errorf("GET %s: Content-Security-Policy %q", tc.path, csp)
		}
		again := httptest.NewRequest(http.MethodGet, tc.path, nil)
		again.Header.Set("If-None-Match", rec.Header().Get("ETag"))
		rec2 := httptest.NewRecorder()
		h.ServeHTTP(rec2, again)
		if rec2.Code != http.StatusNotModified {
			t.Errorf("GET %s with its ETag: %d, want 304", tc.path, rec2.Code)
		}
	}
	for _, tc := range []struct {
		method, path string
		code         int
		serves       bool
	}{
		{http.MethodHead, "/", http.StatusOK, true},
		{http.MethodPost, "/", http.StatusMethodNotAllowed, false},
		{http.MethodGet, "/index.html", http.StatusNotFound, false},
		{http.MethodGet, "/codex.code_mode.v1.CodeModeHost/Wait", http.StatusNotFound, false},
	} {
		r := httptest.NewRequest(tc.method, tc.path, nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != tc.code || Serves(r) != tc.serves {
			t.Errorf("%s %s: %d, Serves %v; want %d, %v", tc.method, tc.path, rec.Code, Serves(r), tc.code, tc.serves)
		}
	}
}

// TestDescriptionRendersThePageTools: POST /exec-description with the page's tools answers the
// exec description a model is shown for them, TypeScript declarations included.
func TestDescriptionRendersThePageTools(t *testing.T) {
	body := `{"tools": [
		{"name": "add", "description": "Adds two numbers.", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}},
		{"name": "ping", "description": "Returns null.", "inputSchema": {}, "outputSchema": null}
	]}`
	r := httptest.NewRequest(http.MethodPost, DescriptionPath, strings.NewReader(body))
	if !Serves(r) {
		t.Fatalf("Serves(POST %s) = false", DescriptionPath)
	}
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, r)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("POST %s: %d %q: %s", DescriptionPath, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	for _, want := range []string{
		"Adds two numbers.",
		"declare const tools: { add(args: { a: number; b: number; }): Promise<unknown>; };",
		"Returns null.",
		"yield_control",
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("the description lacks %q:\n%s", want, rec.Body)
		}
	}
}

// TestDescriptionRefusesBadRequests: what the endpoint refuses, with the reason in the answer.
func TestDescriptionRefusesBadRequests(t *testing.T) {
	for _, tc := range []struct {
		name, method, body, want string
		code                     int
	}{
		{"GET", http.MethodGet, "", "method not allowed", http.StatusMethodNotAllowed},
		{"not JSON", http.MethodPost, "tools", "the body is not a description request", http.StatusBadRequest},
		{"unknown field", http.MethodPost, `{"tools": [], "extra": 1}`, `unknown field "extra"`, http.StatusBadRequest},
		{"two values", http.MethodPost, `{"tools": []} {}`, "more than one JSON value", http.StatusBadRequest},
		{"no name", http.MethodPost, `{"tools": [{"description": "x"}]}`, "tools[0]: a tool needs a name", http.StatusBadRequest},
		{"schema not an object", http.MethodPost, `{"tools": [{"name": "x", "inputSchema": [1]}]}`, "tools[0]: inputSchema must be a JSON object", http.StatusBadRequest},
		{"too many tools", http.MethodPost, `{"tools": [` + strings.Repeat(`{"name": "x"},`, maxDescriptionTools) + `{"name": "x"}]}`, "257 tools, more than 256", http.StatusBadRequest},
		{"too large", http.MethodPost, `{"tools": [{"name": "` + strings.Repeat("x", maxDescriptionBody) + `"}]}`, "the body exceeds 262144 bytes", http.StatusBadRequest},
	} {
		rec := httptest.NewRecorder()
		Handler().ServeHTTP(rec, httptest.NewRequest(tc.method, DescriptionPath, strings.NewReader(tc.body)))
		if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("%s: %d %q, want %d with %q", tc.name, rec.Code, rec.Body, tc.code, tc.want)
		}
	}
}
