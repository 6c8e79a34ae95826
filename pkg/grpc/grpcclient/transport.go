package grpcclient

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connectgzip"
	"connectrpc.com/connect/v2/connecthttp"

	"github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1/code_modev1connect"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
	"github.com/codemodehq/codemode/pkg/internal/zstd"
)

// Protocol selects the wire protocol of a Provider. The host serves all three on one port.
type Protocol int

// The protocols.
const (
	// ProtocolGRPC is gRPC over HTTP/2 (cleartext h2c for http:// and unix:), Codex's protocol.
	ProtocolGRPC Protocol = iota
	// ProtocolGRPCWeb is gRPC-Web.
	ProtocolGRPCWeb
	// ProtocolConnect is the Connect protocol.
	ProtocolConnect
)

// String names the protocol.
func (p Protocol) String() string {
	switch p {
	case ProtocolGRPC:
		return "grpc"
	case ProtocolGRPCWeb:
		return "grpcweb"
	case ProtocolConnect:
		return "connect"
	default:
		return "invalid"
	}
}

// transport is the HTTP machinery of a Provider, shared by all its sessions.
type transport struct {
	// closeIdle releases the connections no request uses (a process host: ends the process).
	closeIdle func()
	// rpc carries every request; each binding's client adds its own interceptors over it.
	rpc connect.Transport
}

// client returns a client over the transport whose every request passes interceptors.
func (t *transport) client(interceptors ...connect.ClientInterceptor) code_modev1connect.CodeModeHostClient {
	return code_modev1connect.NewCodeModeHostClient(connect.NewClient(t.rpc, interceptors...))
}

// newTransport builds an HTTP/2 client for e (prior knowledge over cleartext, ALPN over TLS,
// never following redirects) and the generated client over it, with 64 MiB message limits.
func newTransport(e endpoint, opts Options) *transport {
	protocols := new(http.Protocols)
	if e.tls {
		protocols.SetHTTP2(true)
	} else {
		protocols.SetUnencryptedHTTP2(true)
	}
	dialer := &net.Dialer{}
	ht := &http.Transport{Protocols: protocols, DialContext: dialer.DialContext, ForceAttemptHTTP2: true}
	if e.tls {
		ht.TLSClientConfig = opts.TLSConfig
		if ht.TLSClientConfig == nil {
			ht.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		}
	}
	if e.socket != "" {
		ht.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, "unix", e.socket)
		}
	}
	return newTransportOver(e, ht, ht.CloseIdleConnections, opts)
}

// newTransportOver builds the RPC transport over base, which carries every request.
func newTransportOver(e endpoint, base http.RoundTripper, closeIdle func(), opts Options) *transport {
	hc := &http.Client{
		Transport:     headerSignal{base},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	copts := []connecthttp.Option{
		connecthttp.WithReadMaxBytes(grpcconv.MaxMessageBytes),
		connecthttp.WithSendMaxBytes(grpcconv.MaxMessageBytes),
		// Offered in grpc-accept-encoding so that a host may compress a large outcome with either;
		// requests go out uncompressed unless Options.SendCompression names one.
		connecthttp.WithCompressors(zstd.New(), connectgzip.New()),
	}
	if opts.SendCompression != "" {
		copts = append(copts, connecthttp.WithSendCompression(opts.SendCompression))
	}
	switch opts.Protocol {
	case ProtocolGRPC:
		copts = append(copts, connecthttp.WithGRPC())
	case ProtocolGRPCWeb:
		copts = append(copts, connecthttp.WithGRPCWeb())
	}
	return &transport{closeIdle: closeIdle, rpc: connecthttp.NewTransport(hc, e.baseURL, copts...)}
}

// headersKey carries, in a request's context, the headerArrival headerSignal reports to.
type headersKey struct{}

// headerArrival is the arrival of one request's response headers.
type headerArrival struct {
	once sync.Once
	// done is closed when the headers arrived or the request failed.
	done chan struct{}
	// header is the response's headers, nil if the request failed; set before done is closed.
	header http.Header
}

// withHeaderSignal returns a context whose HTTP request reports the arrival of its response
// headers. A server stream's client learns that way that the host has set the stream up, which
// connect's stream API does not say before a message.
func withHeaderSignal(ctx context.Context) (context.Context, *headerArrival) {
	a := &headerArrival{done: make(chan struct{})}
	return context.WithValue(ctx, headersKey{}, a), a
}

// arrived records the response (nil: the request failed) and closes done, once.
func (a *headerArrival) arrived(resp *http.Response) {
	a.once.Do(func() {
		if resp != nil {
			a.header = resp.Header
		}
		close(a.done)
	})
}

// headerSignal is the RoundTripper that serves withHeaderSignal.
type headerSignal struct{ next http.RoundTripper }

// RoundTrip sends the request and reports when its response headers arrived.
func (h headerSignal) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(r)
	if a, ok := r.Context().Value(headersKey{}).(*headerArrival); ok {
		a.arrived(resp)
	}
	return resp, err
}
