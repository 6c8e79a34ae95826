package grpcclient

import (
	"context"
	"crypto/tls"
	"errors"
	"sync"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Options configures a Provider.
type Options struct {
	// Protocol is the wire protocol; the zero value is gRPC, Codex's.
	Protocol Protocol
	// TLSConfig is used for https:// endpoints; nil means the system's roots.
	TLSConfig *tls.Config
	// ServerTruncation asks the host to truncate every outcome to its request's token budget
	// (ExecuteRequest.MaxOutputTokens, WaitRequest.MaxOutputTokens) in the form a model reads
	// (docs/protocol/grpc.md#additions-of-codex-0169), so that no outcome larger than the caller can
	// use crosses the wire; outcomes then reach the caller truncated.
	// A host older than 0.169 ignores it and sends them whole.
	ServerTruncation bool
	// SendCompression compresses every request with the named encoding: "zstd" (what Codex's host
	// accepts) or "gzip"; "" sends them uncompressed.
	SendCompression string
}

// Provider is a codemode.SessionProvider whose sessions live on a remote CodeModeHost. Its
// sessions share one HTTP/2 connection per host address.
type Provider struct {
	endpoint  endpoint
	transport *transport
	opts      Options

	mu     sync.Mutex
	closed bool
}

var _ codemode.SessionProvider = (*Provider)(nil)

// ErrProviderClosed is returned by CreateSession after Close.
var ErrProviderClosed = errors.New("gRPC code-mode session provider is closed")

// New returns a Provider for endpoint: http://host:port (h2c), https://host:port (HTTP/2 over
// TLS), unix://path or unix:path. The endpoint must be an origin without credentials; errors never
// echo it. No connection is made until the first session.
func New(endpoint string, opts Options) (*Provider, error) {
	e, err := parseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	return &Provider{endpoint: e, transport: newTransport(e, opts), opts: opts}, nil
}

// Availability reports whether the provider can create sessions: it can until closed (the host
// is contacted, and a lost host reconnected, by the sessions themselves).
func (p *Provider) Availability() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrProviderClosed
	}
	return nil
}

// CreateSession opens a session on the host. The session reconnects when the host is lost: its
// next operation opens a lease of the next epoch, whose cells are "g<N>:<id>".
func (p *Provider) CreateSession(ctx context.Context, d codemode.Delegate, limits codemode.SessionCellExecutionLimits) (codemode.Session, error) {
	if err := p.Availability(); err != nil {
		return nil, err
	}
	s := newSession(p, d, limits)
	if _, err := s.binding(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Close releases the provider's idle connections and refuses new sessions. Sessions still open
// keep working until they are shut down.
func (p *Provider) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.transport.closeIdle()
	return nil
}
