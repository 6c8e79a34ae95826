package hostprogram

import (
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"net/url"
	"time"

	"github.com/codemodehq/codemode/pkg/internal/httpguard"
)

// TokenEnv is the environment variable that holds the bearer token when --token is not given
// (an argument is visible to every user of the machine in the process list; the environment is
// not).
const TokenEnv = "CODEMODE_HOST_TOKEN"

// DefaultDrainTimeout bounds a graceful shutdown unless --drain-timeout says otherwise.
const DefaultDrainTimeout = 10 * time.Second

// DefaultIdleTimeout closes idle network connections unless --idle-timeout says otherwise: long
// enough for a client between two requests, short enough that connections nobody uses (or that
// only sent a preface) do not pile up.
const DefaultIdleTimeout = 2 * time.Minute

// DefaultMaxConnections bounds each network listener's connections unless --max-connections says
// otherwise: far above what clients need (a Codex or Go client holds one connection; a proxy a
// few), far below the descriptors the process may open, so that a flood of connections cannot
// take the descriptors the host needs for its tools and its other listeners.
const DefaultMaxConnections = 4096

// Config is one host program: what it listens on and what its sessions get.
type Config struct {
	// Listens are the listeners; none means stdio, Codex's default.
	Listens []Listen
	// Generation names the V1 wire generation ("" is v1host's default).
	Generation string
	// MaxYieldTimeMs caps every session's yield time (0: no cap beyond the session's own).
	MaxYieldTimeMs uint64
	// MaxHeapBytes caps every cell's JavaScript heap (0: the runtime's default cap,
	// jsruntime.DefaultHeapLimitBytes). It is also the ceiling of the heap limit a client may ask
	// for: a larger request is lowered to it.
	MaxHeapBytes uint64
	// MemoryBudget is the resident memory the host is kept under, in bytes (memoryBudget): cells'
	// heaps, their buffered output and decompressed requests take from three quarters of it, and
	// what does not fit is refused to the cell or request that asked. Zero means no budget (a
	// program embedded in a test); the command line defaults it (defaultMemoryBudget).
	MemoryBudget int64
	// UnobservedCellTimeout is how long a live cell may go without an observer (no Wait,
	// Terminate or Execute waiting on it) before it is terminated and closed, its slot and
	// memory given back (jsruntime.Options.UnobservedCellTimeout): zero means
	// jsruntime.DefaultUnobservedCellTimeout, negative never.
	UnobservedCellTimeout time.Duration
	// PoolSize is how many runtimes are kept ready (jsruntime.Options.PoolSize: 0 is the
	// runtime's default, negative keeps none).
	PoolSize int
	// Tools is a tool manifest whose tools every session is offered ("" for none).
	Tools string
	// Token, when set, is the bearer token every network request must carry (Authorization:
	// Bearer TOKEN), except the health checks.
	Token string
	// AllowOrigins are the browser origins the gRPC/Connect listeners answer CORS requests for
	// ("*" for any). The V1 WebSocket listener refuses every Origin regardless.
	AllowOrigins []string
	// RouteID is the gRPC host's route identity, sent as x-code-mode-route on OpenSession for
	// proxies that keep a session on its host; "" picks a random one, unique to the process.
	RouteID string
	// MaxSessions bounds the open gRPC sessions (0: no limit); beyond it OpenSession is refused
	// with RESOURCE_EXHAUSTED, which clients retry and a proxy sends to another host.
	MaxSessions int
	// DrainTimeout bounds a graceful shutdown; zero means DefaultDrainTimeout.
	DrainTimeout time.Duration
	// MaxCellsPerSession is one session's share of the host's active cells (0: the hosts'
	// default, 32), so that one session cannot take every slot.
	MaxCellsPerSession int
	// IdleTimeout closes a network connection that has had no request or stream in progress
	// for this long (an HTTP/2 connection whose streams all ended, a keep-alive HTTP/1.1
	// connection); zero means DefaultIdleTimeout. Connections with a stream open (a session's
	// lease, a WebSocket) are not idle.
	IdleTimeout time.Duration
	// MaxConnections bounds the connections each network listener holds at once; beyond it
	// new connections wait in the kernel's backlog until one closes. Zero means
	// DefaultMaxConnections.
	MaxConnections int
	// AdminListen, when valid, is the admin listener's address (--admin-listen http://IP:PORT):
	// /metrics, /healthz, /readyz, /debug/sessions and pprof. Off loopback it needs the token.
	AdminListen netip.AddrPort
	// MaxActiveCells bounds the cells the gRPC host admits at once, and /readyz reports the host
	// busy at it; zero means grpchost.DefaultMaxActiveCells.
	MaxActiveCells int
	// MaxInFlightRequests bounds the gRPC host's long requests at once; zero means
	// grpchost.DefaultMaxInFlightRequests.
	MaxInFlightRequests int
	// OTelTraceExporter, when set, is the OTLP/HTTP JSON endpoint the host's spans are posted to
	// (--otel-trace-exporter, a collector's /v1/traces).
	OTelTraceExporter string
	// OTelTraceListen, when valid, is the address of a WebSocket listener that streams the host's
	// spans as raw OTLP JSON batches (--otel-trace-listen ws://IP:PORT). Off loopback it needs
	// the token.
	OTelTraceListen netip.AddrPort
	// Logger receives the program's logs; nil discards them.
	Logger *slog.Logger
}

// UsageError is a configuration the program refuses to start with (exit status 2).
type UsageError struct{ Err error }

// Error returns the problem.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the problem.
func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// withDefaults fills the defaults in.
func (c Config) withDefaults() Config {
	if len(c.Listens) == 0 {
		c.Listens = []Listen{{Transport: Stdio}}
	}
	if c.DrainTimeout <= 0 {
		c.DrainTimeout = DefaultDrainTimeout
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.MaxConnections <= 0 {
		c.MaxConnections = DefaultMaxConnections
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// check refuses what the program must not start with, as *UsageError.
func (c Config) check() error {
	stdio, offLoopback := 0, false
	for _, l := range c.Listens {
		if l.stdio() {
			stdio++
		}
		if l.network() && !l.loopback() {
			if c.Token == "" {
				return usageErrorf("--listen %s is not a loopback address: a host reachable from the network needs a bearer token (--token or $%s)", l, TokenEnv)
			}
			offLoopback = true
		}
	}
	if a := c.AdminListen; a.IsValid() && !a.Addr().Unmap().IsLoopback() {
		if c.Token == "" {
			return usageErrorf("--admin-listen %s%s is not a loopback address: an admin listener reachable from the network needs a bearer token (--token or $%s)", adminScheme, a, TokenEnv)
		}
		offLoopback = true
	}
	if c.Token != "" {
		if err := httpguard.CheckToken(c.Token, offLoopback); err != nil {
			return usageErrorf("--token (or $%s): %v", TokenEnv, err)
		}
	}
	if err := c.checkTracing(); err != nil {
		return err
	}
	if stdio > 1 {
		return usageErrorf("--listen stdio or grpc+stdio:// given %d times; the standard streams carry one connection", stdio)
	}
	if len(c.AllowOrigins) > 0 && !c.has(GRPC) {
		return usageErrorf("--allow-origin needs a grpc:// listener: browsers reach the host through Connect only (the V1 WebSocket refuses every Origin)")
	}
	for _, o := range c.AllowOrigins {
		if err := checkOrigin(o); err != nil {
			return &UsageError{Err: err}
		}
	}
	return nil
}

// has reports whether a listener serves t.
func (c Config) has(t Transport) bool {
	for _, l := range c.Listens {
		if l.Transport == t {
			return true
		}
	}
	return false
}

// HasStdio reports whether the standard streams carry a connection (V1 frames or HTTP/2), so
// that stdout must carry nothing else.
func (c Config) HasStdio() bool {
	c = c.withDefaults()
	return c.has(Stdio) || c.has(GRPCStdio)
}

// checkOrigin accepts "*" or an origin as a browser sends it: scheme://host[:port], nothing else.
func checkOrigin(o string) error {
	if o == "*" {
		return nil
	}
	u, err := url.Parse(o)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.Path == "" && u.RawQuery == "" && u.Fragment == "" && u.User == nil {
		return nil
	}
	return errors.New("--allow-origin " + o + ": expected an origin like https://app.example.com or http://localhost:5173, or *")
}
