package grpchost

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connectgzip"
	"connectrpc.com/connect/v2/connecthttp"

	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
	"github.com/codemodehq/codemode/pkg/internal/nodelay"
	"github.com/codemodehq/codemode/pkg/internal/zstd"
)

// HealthPath answers 200 over HTTP/1.1 and HTTP/2, for load balancers and readiness probes.
const HealthPath = "/healthz"

// Handler returns the host's HTTP handler: the CodeModeHost service over gRPC, gRPC-Web and
// Connect (one connect handler negotiates all three by content type), with 64 MiB message limits
// in both directions, zstd and gzip requests accepted and uncompressed responses, plus GET
// /healthz. Over HTTP/1.1 the health check, Connect and gRPC-Web are served (browsers reach the
// host that way); gRPC over HTTP/1 (a gRPC content type, or the service's path in another
// protocol) is answered 505 HTTP Version Not Supported (docs/protocol/grpc.md#endpoints), which
// tells the caller that gRPC needs HTTP/2, and any other path 404 Not Found.
func (h *Host) Handler() http.Handler {
	server := connect.NewServer(h.interceptors...)
	h.Register(server)
	mux := http.NewServeMux()
	connecthttp.Mount(mux, server,
		connecthttp.WithReadMaxBytes(grpcconv.MaxMessageBytes),
		connecthttp.WithSendMaxBytes(grpcconv.MaxMessageBytes),
		// Compressed requests are accepted, responses are never compressed: most messages are
		// small tool calls, where gzip costs more than the bytes it saves, and Codex's host
		// does not compress either.
		connecthttp.WithCompressMinBytes(grpcconv.MaxMessageBytes+1),
		// zstd first, the encoding a Codex client accepts (docs/protocol/grpc.md#spawned-hosts):
		// requests compressed with either are accepted, and both are advertised in
		// grpc-accept-encoding.
		// Each measures a request's decompressed size before connect inflates it into memory
		// (bounded.go): a compression bomb is refused having cost a window, not 64 MiB.
		connecthttp.WithCompressors(h.bounded(zstd.New()), h.bounded(connectgzip.New())),
	)
	mux.HandleFunc(HealthPath, health)
	return http1Guard(withUnaryHolds(mux))
}

// health answers the readiness probe.
func health(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// http1Guard refuses gRPC over HTTP/1 with 505: a gRPC content type, or a request for the
// service's methods in no browser protocol. The health check, the browser protocols and other
// paths (404 from the mux when nothing serves them) go on.
func http1Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct := r.Header.Get("Content-Type")
		if r.ProtoMajor == 1 && r.URL.Path != HealthPath && !browserProtocol(ct) && (grpcContentType(ct) || servicePath(r.URL.Path)) {
			http.Error(w, "HTTP/2 is required", http.StatusHTTPVersionNotSupported)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// grpcContentType reports whether a content type is gRPC's (application/grpc, application/grpc+…);
// gRPC-Web's is a browser protocol.
func grpcContentType(contentType string) bool {
	ct := strings.ToLower(strings.TrimSpace(contentType))
	return ct == "application/grpc" || strings.HasPrefix(ct, "application/grpc+") || strings.HasPrefix(ct, "application/grpc;")
}

// servicePath reports whether path names a method of a gRPC service ("/package.Service/Method").
func servicePath(path string) bool {
	service, method, ok := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	return ok && strings.Contains(service, ".") && method != "" && !strings.Contains(method, "/")
}

// browserProtocol reports whether a content type is Connect's (unary application/proto or
// application/json, streaming application/connect+…) or gRPC-Web's.
func browserProtocol(contentType string) bool {
	ct := strings.ToLower(strings.TrimSpace(contentType))
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = strings.TrimSpace(ct[:i])
	}
	switch {
	case ct == "application/proto", ct == "application/json":
		return true
	case strings.HasPrefix(ct, "application/connect+"), strings.HasPrefix(ct, "application/grpc-web"):
		return true
	}
	return false
}

// NewHTTPServer returns an http.Server for handler that speaks HTTP/1.1, HTTP/2 over TLS and
// HTTP/2 with prior knowledge over cleartext (h2c), which gRPC clients without TLS use.
func NewHTTPServer(handler http.Handler) *http.Server {
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(true)
	protocols.SetUnencryptedHTTP2(true)
	return &http.Server{
		Handler:           handler,
		Protocols:         protocols,
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    1 << 20,
	}
}

// Listen opens a TCP listener whose connections have Nagle's algorithm off (TCP_NODELAY): tool
// calls are small messages in both directions, and waiting to coalesce them would add latency to
// every round trip.
func Listen(ctx context.Context, address string) (net.Listener, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", address)
	if err != nil {
		return nil, fmt.Errorf("grpchost: listen on %s: %w", address, err)
	}
	return nodelay.Listener(ln), nil
}

// Serve serves the host on ln until ctx ends, then stops accepting, shuts every session down and
// closes the connections. It returns nil after a shutdown that ctx caused.
func (h *Host) Serve(ctx context.Context, ln net.Listener) error {
	srv := NewHTTPServer(h.Handler())
	srv.BaseContext = func(net.Listener) context.Context { return context.WithoutCancel(ctx) }
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("grpchost: serve: %w", err)
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	closeErr := h.Close(stop)
	// Leases and subscriptions are long-lived streams: after the sessions closed they end on
	// their own, and Close cuts what is left.
	_ = srv.Shutdown(stop)
	_ = srv.Close()
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("grpchost: serve: %w", err)
	}
	return closeErr
}
