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
