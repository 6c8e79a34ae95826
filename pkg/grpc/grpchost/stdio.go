// x/net/http2's server API is deprecated in favour of net/http's, which cannot do what this file
// needs: net/http reads the client's preface before it writes its SETTINGS, and Codex's host (and
// the tests that pin its behaviour) writes them first, before reading anything.
//
//lint:file-ignore SA1019 net/http has no way to send SETTINGS before the client's preface

package grpchost

import (
	"context"
	"fmt"
	"net"
	"net/http"

	"golang.org/x/net/http2"
)

// HTTP/2 settings of a connection served by ConnServer, the ones Codex's host announces on
// `--listen grpc+stdio://`, so a client sees the same flow control from either host: 1 MiB
// windows (per stream and for the connection, which bounds what a client may send ahead), 16 KiB
// frames and header lists.
const (
	connWindowBytes   = 1 << 20
	connMaxFrameBytes = 16 << 10
	connMaxHeaderList = 16 << 10
	// connMaxStreams bounds the concurrent streams of the connection. Codex's host announces
	// no bound; a Codex client opens one stream per Wait, Execute and CompleteToolCall, up to
	// its 4,096 pending delegate calls, so the bound sits well above that.
	connMaxStreams = 16384
)

// ConnServer serves an HTTP handler as HTTP/2 with prior knowledge on one connection that is
// not a socket the host accepted: a spawned host's standard streams (`--listen grpc+stdio://`,
// how Codex 0.169 starts its host). It writes its SETTINGS before it reads anything
// (docs/protocol/grpc.md#spawned-hosts): a spawned host prints no address line, so these bytes are
// the first a client gets from it, the same from either host.
type ConnServer struct {
	conn    *prefaceConn
	handler http.Handler
	base    *http.Server
	h2      *http2.Server
	served  chan struct{}
}

// NewConnServer prepares serving handler on conn.
func NewConnServer(conn net.Conn, handler http.Handler) (*ConnServer, error) {
	s := &ConnServer{
		conn: &prefaceConn{Conn: conn}, handler: handler, served: make(chan struct{}),
		// x/net/http2 announces MaxHeaderBytes plus 320 bytes of HTTP/1 overhead (32 × 10) as
		// MAX_HEADER_LIST_SIZE.
		base: &http.Server{Handler: handler, MaxHeaderBytes: connMaxHeaderList - 320},
		h2: &http2.Server{
			MaxConcurrentStreams:         connMaxStreams,
			MaxReadFrameSize:             connMaxFrameBytes,
			MaxUploadBufferPerStream:     connWindowBytes,
			MaxUploadBufferPerConnection: connWindowBytes,
		},
	}
	// The hook that Shutdown runs sends GOAWAY on connections served with base as their
	// BaseConfig.
	if err := http2.ConfigureServer(s.base, s.h2); err != nil {
		return nil, fmt.Errorf("grpchost: configure HTTP/2: %w", err)
	}
	return s, nil
}

// Serve serves the connection until it ends (the client closed it, it failed, or Shutdown
// finished), then closes it. The requests' contexts derive from ctx, without its cancellation:
// Shutdown ends them.
func (s *ConnServer) Serve(ctx context.Context) {
	defer close(s.served)
	s.h2.ServeConn(s.conn, &http2.ServeConnOpts{Context: context.WithoutCancel(ctx), BaseConfig: s.base, Handler: s.handler})
	_ = s.conn.Close()
}

// Err reports, once Serve has returned, why the connection was not HTTP/2 from its first bytes;
// nil for a client that spoke HTTP/2 (or sent nothing) however it ended.
func (s *ConnServer) Err() error {
	<-s.served
	return s.conn.err
}

// Shutdown sends GOAWAY, lets the streams in progress finish until ctx ends, then closes the
// connection. It returns ctx's error when the streams did not finish in time.
func (s *ConnServer) Shutdown(ctx context.Context) error {
	_ = s.base.Shutdown(ctx)
	select {
	case <-s.served:
		return nil
	case <-ctx.Done():
		_ = s.conn.Close()
		<-s.served
		return fmt.Errorf("grpchost: HTTP/2 streams did not end: %w", ctx.Err())
	}
}

// clientPreface is what an HTTP/2 client sends first (RFC 9113 §3.4).
const clientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// prefaceConn passes reads through and checks that the peer's first bytes are HTTP/2's client
// preface, so that a peer speaking something else (V1 frames sent to a gRPC host, a wrong
// --listen) is told apart from one that just hung up. Only the server's one reader goroutine
// reads; err is read after Serve returned.
type prefaceConn struct {
	net.Conn
	seen int
	err  error
}

// Read implements net.Conn.
func (c *prefaceConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.seen < len(clientPreface) && c.err == nil {
		got := p[:min(n, len(clientPreface)-c.seen)]
		if string(got) != clientPreface[c.seen:c.seen+len(got)] {
			c.err = fmt.Errorf("the client does not speak HTTP/2: its first bytes are %q, not the HTTP/2 preface", string(p[:min(n, 24)]))
		}
		c.seen += len(got)
	}
	return n, err
}
