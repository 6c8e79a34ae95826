// Package playground serves the browser playground: a page (built from pkg/playground/web into
// gen/playground by make generate) where one writes a cell, runs it on the host that serves the
// page with tools implemented in the page, and watches its output, tool calls and notifications.
// The page talks to the host through @codemode/sdk over Connect on its own origin, so the host
// needs no CORS for it.
//
// The page also lists the host's own tools (a manifest given with --tools), labelled as run by
// the host: it learns them as a cell does, from ALL_TOOLS in a cell of its own that enables none
// of the page's tools, and does not offer its own tool of the same name. Their calls run on the
// host and are not reported to the client, so the page's call log lists the page's tools only
// and says so.
package playground

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"time"

	page "github.com/codemodehq/codemode/gen/playground"
)

// A file of the page, read once.
type file struct {
	body        []byte
	contentType string
	etag        string
}

// files are the page's files by URL path.
var files = func() map[string]file {
	types := map[string]struct{ name, contentType string }{
		"/":        {"index.html", "text/html; charset=utf-8"},
		"/app.js":  {"app.js", "text/javascript; charset=utf-8"},
		"/app.css": {"app.css", "text/css; charset=utf-8"},
	}
	out := make(map[string]file, len(types))
	for path, t := range types {
		body, err := fs.ReadFile(page.Files, t.name)
		if err != nil {
			panic(fmt.Sprintf("playground: the embedded page lacks %s: %v", t.name, err))
		}
		sum := sha256.Sum256(body)
		out[path] = file{body: body, contentType: t.contentType, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	}
	return out
}()

// Serves reports whether Handler answers r: a GET or HEAD of one of the page's files ("/",
// "/app.js", "/app.css"), or any request for DescriptionPath (only POST is accepted there).
func Serves(r *http.Request) bool {
	if r.URL.Path == DescriptionPath {
		return true
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	_, ok := files[r.URL.Path]
	return ok
}

// contentSecurityPolicy lets the page load only its own script and stylesheet and talk only to
// its own origin (the host's Connect routes). The one exception is worker-src blob:: a tool the
// user writes in the page runs in a Web Worker made from a blob of its code (no eval in the page
// itself), and that worker is bound by the same policy.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the page's files (GET and HEAD, with their content types, an ETag and a
// content security policy) and the exec description (POST DescriptionPath), and answers 404 for
// every other path.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == DescriptionPath {
			serveDescriptionRequest(w, r)
			return
		}
		f, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Type", f.contentType)
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", f.etag)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
	})
}

// serveDescriptionRequest answers POST DescriptionPath and refuses every other method.
func serveDescriptionRequest(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	serveDescription(w, r)
}
