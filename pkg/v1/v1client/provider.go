package v1client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/v1/v1convert"
)

// DefaultTransportTimeout is the client's allowance for the host's answer on top of a request's
// runtime allowance (Codex's 60 s, docs/protocol/v1.md#client-rules): a host that misses it is
// taken for dead and the connection ends, rather than a caller waiting forever.
const DefaultTransportTimeout = 60 * time.Second

// errLimitsUnsupported is Codex's text for session limits a host did not negotiate.
var errLimitsUnsupported = errors.New("code-mode host does not support session resource limits: missing `session-cell-execution-resource-limits` capability")

// errProviderClosed is returned after Provider.Close.
var errProviderClosed = errors.New("code-mode session provider is closed")

// Options configure a Provider.
type Options struct {
	// Logger receives diagnostics (and a process host's stderr, line by line); nil discards.
	Logger *slog.Logger
	// TransportTimeout is added to a request's runtime allowance to form its deadline; zero
	// means DefaultTransportTimeout. A missed deadline fails the connection.
	TransportTimeout time.Duration
	// HandshakeTimeout bounds connecting and the handshake; zero means the connector's
	// default (30 s for a process host, 10 s for WebSocket).
	HandshakeTimeout time.Duration
	// ServerTruncation asks a host that grants bounded-output-v1 (Codex 0.169's) to truncate
	// every runtime response to its request's token budget (ExecuteRequest.MaxOutputTokens,
	// WaitRequest.MaxOutputTokens), in the form a model reads (docs/protocol/v1.md#output-truncation),
	// so that no response larger than the caller can use crosses the wire; the responses then
	// reach the caller truncated. Older hosts send the output whole.
	ServerTruncation bool
}

func (o *Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o.Logger
}

func (o *Options) transportTimeout() time.Duration {
	if o.TransportTimeout <= 0 {
		return DefaultTransportTimeout
	}
	return o.TransportTimeout
}

// connector opens a negotiated connection of reconnect epoch epoch.
type connector func(ctx context.Context, epoch uint64, opts *Options) (*connection, error)

// Provider is a codemode.SessionProvider on a remote host. Sessions share one connection; when
// it fails, the next CreateSession connects again (for a process host: spawns a new one) as the
// next epoch, whose cell IDs are "g{N}:{wire}". Sessions of a failed connection stay
// failed.
type Provider struct {
	connect connector
	opts    Options

	mu          sync.Mutex
	conn        *connection
	epoch       uint64
	nextSession uint64
	closed      bool
	retired     []*connection
}

var _ codemode.SessionProvider = (*Provider)(nil)

func newProvider(connect connector, opts Options) *Provider {
	return &Provider{connect: connect, opts: opts}
}

// Availability reports whether sessions can be created.
func (p *Provider) Availability() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errProviderClosed
	}
	return nil
}

// CreateSession opens a session ("session-N") on the live connection, connecting first if
// there is none.
func (p *Provider) CreateSession(ctx context.Context, delegate codemode.Delegate, limits codemode.SessionCellExecutionLimits) (codemode.Session, error) {
	c, id, err := p.connection(ctx)
	if err != nil {
		return nil, err
	}
	if !limits.IsDefault() && !c.limits {
		return nil, errLimitsUnsupported
	}
	s := newSession(c, id, delegate)
	pending := newPending("open-session", s)
	// An open whose caller left after the host committed it is shut down again.
	pending.retired = func(r reply) {
		if r.err == nil {
			c.shutdownAbandoned(s)
		}
	}
	pending.unclaimed = pending.retired
	open := wirev1.OpenSession{SessionId: id, CellExecutionLimits: v1convert.SessionLimitsToWire(limits)}
	if c.serverTruncation() {
		server := wirev1.WireOutputTruncationServer
		open.OutputTruncation = &server
	}
	if _, err := c.roundTrip(ctx, pending, open, c.transportDeadline(nil)); err != nil {
		return nil, err
	}
	return s, nil
}

// connection returns the live connection and a fresh session ID, connecting if needed.
func (p *Provider) connection(ctx context.Context) (*connection, wirev1.SessionId, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, "", errProviderClosed
	}
	if p.conn == nil || !p.conn.alive() {
		if p.conn != nil {
			p.retired = append(p.retired, p.conn)
		}
		p.conn = nil
		c, err := p.connect(ctx, p.epoch+1, &p.opts)
		if err != nil {
			return nil, "", err
		}
		p.epoch++
		p.conn = c
	}
	p.nextSession++
	return p.conn, wirev1.SessionId(fmt.Sprintf("session-%d", p.nextSession)), nil
}

// Close ends the provider's connections (a process host is killed) and waits for their
// goroutines. Sessions still open fail, and their cells are closed.
func (p *Provider) Close() error {
	p.mu.Lock()
	p.closed = true
	conns := append(p.retired, p.conn)
	p.conn, p.retired = nil, nil
	p.mu.Unlock()
	for _, c := range conns {
		if c != nil {
			c.close()
		}
	}
	return nil
}

// shutdownAbandoned shuts down a session whose open was abandoned by its caller.
func (c *connection) shutdownAbandoned(s *session) {
	c.tasks.Add(1)
	go func() {
		defer c.tasks.Done()
		_ = s.Shutdown(context.Background())
	}()
}
