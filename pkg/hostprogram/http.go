package hostprogram

import (
	"net/http"
	"slices"
	"strings"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"

	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
	"github.com/codemodehq/codemode/pkg/internal/httpguard"
	"github.com/codemodehq/codemode/pkg/playground"
)

// Paths that answer without a token: readiness and health probes reveal nothing and run
// nothing.
const readyPath = "/readyz"

// probe reports whether r is a health or readiness probe: answered without a token and under
// any Host name, since it reveals nothing and runs nothing.
func probe(r *http.Request) bool {
	return r.Method == http.MethodGet && (r.URL.Path == grpchost.HealthPath || r.URL.Path == readyPath)
}

// guardRPC refuses what httpguard refuses on the gRPC/Connect listener and its page: without a
// token, a Host that does not name loopback (DNS rebinding); always, an Origin neither the page's
// own nor allowed. The refusal is PERMISSION_DENIED in the request's protocol (HTTP 403 for
// Connect and plain requests, grpc-status 7 for gRPC and gRPC-Web), and logged.
func (p *Program) guardRPC(next http.Handler) http.Handler {
	g := httpguard.New(httpguard.Policy{LoopbackHosts: p.cfg.Token == "", Origins: p.cfg.AllowOrigins, Exempt: probe})
	errs := connecthttp.NewErrorWriter()
	return g.Handler(next, func(w http.ResponseWriter, r *http.Request, refusal *httpguard.Refusal) {
		p.logRefusal(r, refusal)
		// A GET is the page (or a probe) for a browser or curl: plain text reads best there,
		// and Connect's GET form serves no method of the host.
		if r.Method != http.MethodGet && errs.IsSupported(r) {
			_ = errs.Write(w, r, connect.NewError(connect.CodePermissionDenied, refusal.Error()))
			return
		}
		httpguard.WritePlain(w, r, refusal)
	})
}

// guardWS refuses, on a V1 WebSocket listener without a token, a Host that does not name
// loopback, and every browser Origin (as v1host does itself), with 403.
func (p *Program) guardWS(next http.Handler) http.Handler {
	g := httpguard.New(httpguard.Policy{LoopbackHosts: p.cfg.Token == "", NoBrowsers: true, Exempt: probe})
	return g.Handler(next, func(w http.ResponseWriter, r *http.Request, refusal *httpguard.Refusal) {
		p.logRefusal(r, refusal)
		httpguard.WritePlain(w, r, refusal)
	})
}

// logRefusal logs a request the guard refused: the header refused, its value, the peer and the
// path (never a token or a body).
func (p *Program) logRefusal(r *http.Request, refusal *httpguard.Refusal) {
	p.log.Warn("code-mode request refused", "reason", "forbidden "+strings.ToLower(refusal.Header),
		"value", refusal.Value, "remote", r.RemoteAddr, "method", r.Method, "path", r.URL.Path)
}

// requireTokenWS refuses a V1 WebSocket request without the token with 401.
func (p *Program) requireTokenWS(next http.Handler) http.Handler {
	token := p.cfg.Token
	if token == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !probe(r) && !httpguard.Authorized(r, token) {
			p.logUnauthenticated(r)
			w.Header().Set("WWW-Authenticate", `Bearer realm="codemode"`)
			http.Error(w, "a bearer token is required", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireTokenRPC refuses a gRPC, gRPC-Web or Connect request without the token with
// UNAUTHENTICATED, in the request's own protocol (HTTP 401 for Connect, grpc-status 16 for gRPC
// and gRPC-Web). Anything else without a token gets a plain 401.
func (p *Program) requireTokenRPC(next http.Handler) http.Handler {
	token := p.cfg.Token
	if token == "" {
		return next
	}
	errs := connecthttp.NewErrorWriter()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if probe(r) || httpguard.Authorized(r, token) {
			next.ServeHTTP(w, r)
			return
		}
		p.logUnauthenticated(r)
		w.Header().Set("WWW-Authenticate", `Bearer realm="codemode"`)
		if errs.IsSupported(r) {
			_ = errs.Write(w, r, connect.NewError(connect.CodeUnauthenticated, "a bearer token is required"))
			return
		}
		http.Error(w, "a bearer token is required", http.StatusUnauthorized)
	})
}

// logUnauthenticated logs a request refused for a missing or wrong token: whether it carried
// one, never what it carried.
func (p *Program) logUnauthenticated(r *http.Request) {
	p.log.Warn("code-mode request refused", "reason", "unauthenticated", "credentials", r.Header.Get("Authorization") != "",
		"remote", r.RemoteAddr, "method", r.Method, "path", r.URL.Path)
}

// withPlayground serves the browser playground (pkg/playground) next to the RPC routes: GET and
// HEAD of "/", "/app.js" and "/app.css", over HTTP/1.1 and HTTP/2; everything else goes to rpc.
// It sits behind the token check, so with a token the page needs it too.
func withPlayground(rpc http.Handler) http.Handler {
	page := playground.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if playground.Serves(r) {
			page.ServeHTTP(w, r)
			return
		}
		rpc.ServeHTTP(w, r)
	})
}

// The CORS answer for browser Connect and gRPC-Web clients.
var (
	corsMethods = "GET, POST"
	corsHeaders = strings.Join([]string{
		"Authorization", "Content-Type", "Connect-Protocol-Version", "Connect-Timeout-Ms",
		"Connect-Accept-Encoding", "Connect-Content-Encoding", "Grpc-Timeout", "X-Grpc-Web",
		"X-User-Agent", "Traceparent", grpcconv.AcknowledgementsHeader,
	}, ", ")
	corsExposed = strings.Join([]string{
		"Grpc-Status", "Grpc-Message", "Grpc-Status-Details-Bin", "Connect-Content-Encoding",
	}, ", ")
)

// cors answers browsers from the allowed origins: preflight requests directly (before auth:
// browsers send no credentials on them), and the CORS headers on every other response. Without
// allowed origins it adds nothing, and browsers keep the same-origin rule.
func cors(origins []string, next http.Handler) http.Handler {
	if len(origins) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || !(slices.Contains(origins, "*") || slices.Contains(origins, origin)) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", corsMethods)
			h.Set("Access-Control-Allow-Headers", corsHeaders)
			h.Set("Access-Control-Max-Age", "7200")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", corsExposed)
		next.ServeHTTP(w, r)
	})
}
