package grpchost

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"connectrpc.com/connect/v2"
	"github.com/google/uuid"

	"github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1/code_modev1connect"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// shutdownTimeout bounds a session's shutdown when nobody waits for it (a dropped lease).
const shutdownTimeout = 60 * time.Second

// Options configures a Host.
type Options struct {
	// Limits are the per-host bounds; zero fields mean the defaults.
	Limits Limits
	// Logger receives the host's warnings (a session closed by a failure); nil discards them.
	Logger *slog.Logger
	// BaselineNotifications serves notifications exactly as Codex's baseline host does: it never
	// waits for acknowledgements, even when a client asks for it
	// (grpcconv.AcknowledgementsHeader). For testing clients against that behaviour.
	BaselineNotifications bool
	// Route is the host's route identity (grpcconv.RouteHeader), returned on every OpenSession
	// response so that a proxy can keep a session's requests on this host. A request for a
	// session the host does not hold that carries another route fails with
	// grpcconv.RouteLostHeader. Empty means a random route, unique to this Host.
	Route string
	// Interceptors wrap every RPC of Handler, outermost first: what observes all requests (the
	// refusals an operator counts, traces) without being part of the protocol.
	Interceptors []connect.ServerInterceptor
	// MemoryBudget, when set, is the host's memory budget: a compressed request's decompressed
	// bytes are taken from it while the request is decompressed, and one it cannot cover is
	// refused (RESOURCE_EXHAUSTED); an Execute's outcome is charged to it while it is being sent
	// (a client that stops reading holds it, and the host's cells see that). nil: no budget.
	MemoryBudget MemoryBudget
}

// MemoryBudget is the host's memory budget as the gRPC host uses it (membudget.Budget implements
// it).
type MemoryBudget interface {
	// Take takes n bytes if the budget still holds them and reports whether it did.
	Take(n int64) bool
	// Charge takes n bytes even past the budget: memory already allocated (a response on its
	// way out) that later Takes must see.
	Charge(n int64)
	// Give gives back n bytes taken earlier.
	Give(n int64)
	// Limit is the budget's size in bytes, which the refusal names.
	Limit() int64
}

// Host serves codex.code_mode.v1.CodeModeHost on a codemode.SessionProvider: each leased session
// is a session of the provider, whose cells' callbacks the host turns into tool calls and events
// for the client that owns the tools. Register it on a connect.Server, or serve it with Handler.
type Host struct {
	provider codemode.SessionProvider
	limits   Limits
	permits  *hostPermits
	log      *slog.Logger
	// baseline is Options.BaselineNotifications.
	baseline bool
	// route is the host's route identity (Options.Route).
	route string
	// interceptors are Options.Interceptors.
	interceptors []connect.ServerInterceptor
	// budget is Options.MemoryBudget (nil: none).
	budget MemoryBudget

	mu       sync.Mutex
	sessions map[uuid.UUID]*session
	closed   bool
}

// New returns a Host that runs its sessions on provider.
func New(provider codemode.SessionProvider, opts Options) *Host {
	limits := opts.Limits.withDefaults()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	route := opts.Route
	if route == "" {
		route = NewRoute()
	}
	h := &Host{
		route:    route,
		provider: provider,
		limits:   limits,
		permits:  newHostPermits(limits),
		log:      log,
		baseline: opts.BaselineNotifications,
		sessions: make(map[uuid.UUID]*session),
	}
	h.interceptors = opts.Interceptors
	h.budget = opts.MemoryBudget
	return h
}

// Register registers the host's CodeModeHost service on server.
func (h *Host) Register(server *connect.Server) {
	code_modev1connect.RegisterCodeModeHostHandler(server, service{h})
}

// Close shuts every session down and refuses new ones. It returns when every session's runtime
// has shut down, or with ctx's error.
func (h *Host) Close(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	sessions := make([]*session, 0, len(h.sessions))
	for id, s := range h.sessions {
		sessions = append(sessions, s)
		delete(h.sessions, id)
	}
	h.mu.Unlock()
	for _, s := range sessions {
		s.cancel()
	}
	var first error
	for _, s := range sessions {
		if err := s.shutdown(ctx); err != nil && first == nil {
			first = fmt.Errorf("grpchost: shutting down session %s: %w", s.idText, err)
		}
	}
	return first
}

// Route returns the host's route identity, the value of grpcconv.RouteHeader on its OpenSession
// responses.
func (h *Host) Route() string { return h.route }

// NewRoute returns a random route identity: 16 lowercase hex digits.
func NewRoute() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// lookup finds a session by the ID a request carries.
func (h *Host) lookup(ctx context.Context, id string) (*session, error) {
	parsed, err := grpcconv.CheckUUID(id, "session ID")
	if err != nil {
		return nil, invalidArgument(err)
	}
	h.mu.Lock()
	s, ok := h.sessions[parsed]
	h.mu.Unlock()
	if !ok {
		return nil, h.unknownSession(ctx, id)
	}
	return s, nil
}

// take removes a session for CloseSession.
func (h *Host) take(ctx context.Context, id string) (*session, error) {
	parsed, err := grpcconv.CheckUUID(id, "session ID")
	if err != nil {
		return nil, invalidArgument(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.sessions[parsed]
	if !ok {
		return nil, h.unknownSession(ctx, id)
	}
	delete(h.sessions, parsed)
	return s, nil
}

// unknownSession is the NOT_FOUND of a request for a session the host does not hold. When the
// request carries another host's route, the session lived there: the response says so with
// grpcconv.RouteLostHeader, and the client resets the session instead of failing it.
func (h *Host) unknownSession(ctx context.Context, id string) error {
	if info, ok := connect.CallInfoForServerContext(ctx); ok {
		if route := info.RequestHeader().Get(grpcconv.RouteHeader); route != "" && route != h.route {
			info.ResponseHeader().Set(grpcconv.RouteLostHeader, "true")
		}
	}
	return connect.NewError(connect.CodeNotFound, fmt.Sprintf("unknown code-mode session %s", id))
}

// add registers a new session, unless the host is closed or full.
func (h *Host) add(s *session) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return connect.NewError(connect.CodeUnavailable, "code-mode host is shutting down")
	}
	if h.limits.MaxSessions > 0 && len(h.sessions) >= h.limits.MaxSessions {
		return errTooManySessions()
	}
	h.sessions[s.id] = s
	return nil
}

// full reports whether the host refuses new sessions for its session limit.
func (h *Host) full() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.limits.MaxSessions > 0 && len(h.sessions) >= h.limits.MaxSessions {
		return errTooManySessions()
	}
	return nil
}

// errTooManySessions refuses admission on a full host; RESOURCE_EXHAUSTED tells a client to try
// again, which a proxy sends to another host.
func errTooManySessions() error {
	return connect.NewError(connect.CodeResourceExhausted, "code-mode host has too many open sessions")
}

// retire removes s if it is still registered; a lease that ends calls it.
func (h *Host) retire(s *session) {
	h.mu.Lock()
	if h.sessions[s.id] == s {
		delete(h.sessions, s.id)
	}
	h.mu.Unlock()
}

// invalidArgument wraps a validation error as INVALID_ARGUMENT with its text.
func invalidArgument(err error) error {
	return connect.NewError(connect.CodeInvalidArgument, err.Error())
}
