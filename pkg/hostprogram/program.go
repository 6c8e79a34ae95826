package hostprogram

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/oklog/run"
	"golang.org/x/net/netutil"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
	"github.com/codemodehq/codemode/pkg/internal/membudget"
	"github.com/codemodehq/codemode/pkg/internal/stdio"
	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/telemetry/metrics"
	"github.com/codemodehq/codemode/pkg/toolsources"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
	"github.com/codemodehq/codemode/pkg/v1/v1host"
)

// Program is a configured host: New checks the configuration, Bind opens the listeners, Run
// serves until a signal or the end of stdin and drains.
type Program struct {
	cfg   Config
	log   *slog.Logger
	stdin io.ReadCloser
	// stdout carries V1 frames when a listener is stdio.
	stdout io.WriteCloser
	// Exit ends the process at a second signal, or when a drain overran its bound by
	// cutGrace; os.Exit unless a test replaces it.
	Exit func(code int)
	// Name is the program named in the started log line (program=, started.go): codemode-host
	// unless the caller sets it before Run (the CLI sets codemode).
	Name string

	// budget is the host's memory budget (budget.go); nil without Config.MemoryBudget.
	budget   *membudget.Budget
	runtime  *runtimeActor
	provider *hostedProvider
	// closeTools stops the manifest's MCP servers, once: Run calls it at its end, Close too.
	closeTools func() error
	v1         *v1host.Host    // nil without stdio and ws listeners
	grpc       *grpchost.Host  // nil without grpc listeners
	bound      []boundListener // after Bind
	// listenersDone is closed when every listener actor has returned; the runtime closes then.
	listenersDone chan struct{}
	listenersLeft sync.WaitGroup

	// cutCtx ends V1 connections without a drain: at the very end, or when a drain overran.
	cutCtx context.Context
	cut    context.CancelFunc
	drain  drainState

	// metrics counts and logs sessions, cells and tool calls (telemetry.go); adminLn is the
	// admin listener (admin.go), nil without --admin-listen.
	metrics *metrics.Recorder
	adminLn net.Listener
	// tracing exports spans (tracing.go); empty without --otel-trace-*.
	tracing tracingState
}

// Bound is a listener after Bind: URL is what Codex's host prints for it (ws://ADDR for a
// WebSocket, http://ADDR for gRPC), "" for stdio.
type Bound struct {
	Listen Listen
	URL    string
}

// boundListener is a listener and its socket.
type boundListener struct {
	Bound
	ln net.Listener // nil for stdio
}

// cutGrace is how long after the drain bound the program still waits for its actors before it
// exits anyway (with status 1): connections cut after a drain overran need a moment to end.
const cutGrace = 5 * time.Second

// New checks cfg and prepares the program. stdin and stdout are the streams a stdio listener
// serves. A configuration the program must not start with is a *UsageError (exit status 2), a
// refused tool manifest too.
func New(cfg Config, stdin io.ReadCloser, stdout io.WriteCloser) (*Program, error) {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return nil, err
	}
	p := &Program{cfg: cfg, log: cfg.Logger, stdin: stdin, stdout: stdout, Exit: os.Exit, listenersDone: make(chan struct{})}
	if cfg.MemoryBudget > 0 {
		p.budget = memoryBudget(cfg.MemoryBudget)
	}
	p.cutCtx, p.cut = context.WithCancel(context.Background())
	p.drain.v1Done = make(chan struct{})
	if err := p.buildProvider(); err != nil {
		return nil, err
	}
	p.setUpTracing()
	if err := p.buildHosts(); err != nil {
		_ = p.Close()
		return nil, err
	}
	return p, nil
}

// buildProvider prepares the runtime actor and the provider the listeners serve.
func (p *Program) buildProvider() error {
	opts := jsruntime.Options{PoolSize: p.cfg.PoolSize, UnobservedCellTimeout: p.cfg.UnobservedCellTimeout}
	if p.budget != nil {
		opts.MemoryBudget = p.budget
	}
	p.runtime = newRuntimeActor(opts, p.listenersDone)
	p.metrics = p.newRecorder()
	p.provider = &hostedProvider{runtime: p.runtime, caps: p.caps(), metrics: p.metrics}
	p.closeTools = func() error { return nil }
	if p.cfg.Tools != "" {
		// Started now, before the listeners: a server that does not start stops the program
		// before it announces anything.
		sets, closeTools, err := toolsources.Open(context.Background(), p.cfg.Tools, toolsources.Options{})
		if errors.Is(err, toolsources.ErrNotStarted) {
			return err
		}
		if err != nil {
			return &UsageError{Err: err}
		}
		tools, err := toolprovider.NewDelegate(nil, sets...)
		if err != nil {
			_ = closeTools()
			return &UsageError{Err: fmt.Errorf("%s: %w", p.cfg.Tools, err)}
		}
		p.provider.tools, p.closeTools = tools, sync.OnceValue(closeTools)
	}
	return nil
}

// caps are the host's caps on session limits. The heap is always capped: by --max-heap-bytes,
// or else by the runtime's default cap, so a client cannot raise its cells' heap limit beyond
// what the host would give a cell unasked (a 4 GiB request was honoured).
func (p *Program) caps() codemode.SessionCellExecutionLimits {
	var caps codemode.SessionCellExecutionLimits
	if v := p.cfg.MaxYieldTimeMs; v > 0 {
		caps.MaxYieldTimeMs = &v
	}
	heap := jsruntime.DefaultHeapLimitBytes
	if v := p.cfg.MaxHeapBytes; v > 0 {
		heap = v
	}
	caps.MaxHeapSizeBytes = &heap
	return caps
}

// buildHosts creates the protocol hosts the listeners need: one V1 host for stdio and every
// WebSocket listener, since V1's limits on requests in flight and active cells count over every
// connection of the host (docs/protocol/v1.md#limits), and one gRPC host.
func (p *Program) buildHosts() error {
	if p.cfg.has(Stdio) || p.cfg.has(WebSocket) {
		opts := append([]v1host.Option{v1host.WithLogger(p.log), v1host.WithMaxActiveCellsPerSession(p.cfg.MaxCellsPerSession)}, p.v1Options()...)
		if p.budget != nil {
			// Live V1 cells are bounded by the budget, not the gRPC cap (ADR 59).
			opts = append(opts, v1host.WithMemoryBudget(p.budget))
		}
		if p.cfg.Generation != "" {
			g, err := v1host.WithGenerationName(p.cfg.Generation)
			if err != nil {
				return &UsageError{Err: err}
			}
			opts = append(opts, g)
		}
		p.v1 = v1host.New(p.provider, opts...)
	}
	if p.cfg.has(GRPC) || p.cfg.has(GRPCStdio) {
		opts := grpchost.Options{
			Logger:       p.log,
			Route:        p.cfg.RouteID,
			Limits:       grpchost.Limits{MaxSessions: p.cfg.MaxSessions, MaxActiveCells: p.cfg.MaxActiveCells, MaxInFlightRequests: p.cfg.MaxInFlightRequests, MaxActiveCellsPerSession: p.cfg.MaxCellsPerSession},
			Interceptors: append(p.grpcInterceptors(), p.countRefusals),
		}
		if p.budget != nil {
			opts.MemoryBudget = p.budget
		}
		p.grpc = grpchost.New(p.provider, opts)
	}
	return nil
}

// Bind opens every network listener and returns what to announce, in --listen order.
func (p *Program) Bind(ctx context.Context) ([]Bound, error) {
	out := make([]Bound, 0, len(p.cfg.Listens))
	for _, l := range p.cfg.Listens {
		b, err := p.bind(ctx, l)
		if err != nil {
			p.closeListeners()
			return nil, err
		}
		p.bound = append(p.bound, b)
		out = append(out, b.Bound)
		p.log.Info("code-mode host listening", "listen", l.String(), "url", b.URL)
	}
	if err := p.bindAdmin(ctx); err != nil {
		p.closeListeners()
		return nil, err
	}
	if err := p.bindTraceStream(ctx); err != nil {
		p.closeListeners()
		return nil, err
	}
	return out, nil
}

func (p *Program) bind(ctx context.Context, l Listen) (boundListener, error) {
	switch l.Transport {
	case WebSocket:
		var lc net.ListenConfig
		ln, err := lc.Listen(ctx, "tcp", l.Addr.String())
		if err != nil {
			return boundListener{}, fmt.Errorf("--listen %s: %w", l, err)
		}
		return boundListener{Bound: Bound{Listen: l, URL: "ws://" + ln.Addr().String()}, ln: p.limit(v1host.NoDelayListener(ln))}, nil
	case GRPC:
		ln, err := grpchost.Listen(ctx, l.Addr.String())
		if err != nil {
			return boundListener{}, fmt.Errorf("--listen %s: %w", l, err)
		}
		return boundListener{Bound: Bound{Listen: l, URL: "http://" + ln.Addr().String()}, ln: p.limit(ln)}, nil
	}
	return boundListener{Bound: Bound{Listen: l}}, nil
}

// limit bounds the connections ln holds at once to --max-connections: an accept beyond it waits
// until a connection closes (idle ones close after --idle-timeout), so a flood of connections
// leaves the process the descriptors it needs.
func (p *Program) limit(ln net.Listener) net.Listener {
	return netutil.LimitListener(ln, p.cfg.MaxConnections)
}

func (p *Program) closeListeners() {
	for _, b := range p.bound {
		if b.ln != nil {
			_ = b.ln.Close()
		}
	}
}

// Close stops the MCP servers of the program's manifest, which New started. Run does it when it
// returns; a caller that does not call Run (Bind failed) calls Close. It is idempotent.
func (p *Program) Close() error { return p.closeTools() }

// errStdinEnded ends the program when the stdio client closed its end: Codex's host exits then.
var errStdinEnded = errors.New("the stdio client closed the connection")

// Run serves until the first signal on signals (or the stdio client's end, or a listener's
// failure), then drains: it returns nil after a clean drain. A second signal calls Exit at once.
func (p *Program) Run(signals <-chan os.Signal) error {
	defer p.cut()
	defer p.Close()
	var g run.Group
	sig := newSignalActor(signals, p)
	g.Add(sig.execute, sig.interrupt)
	g.Add(p.runtime.execute, p.runtime.interrupt)
	p.addAdmin(&g)
	for _, b := range p.bound {
		p.addListener(&g, b)
	}
	go func() {
		p.listenersLeft.Wait()
		close(p.listenersDone)
	}()
	p.logStarted()
	err := g.Run()
	sig.finished()
	p.drain.stopWatchdog()
	p.logDrained()
	p.shutDownTracing()
	var sigErr run.SignalError
	switch {
	case p.drain.forced.Load():
		return fmt.Errorf("the drain did not finish within %s; connections were cut", p.cfg.DrainTimeout)
	case err == nil, errors.Is(err, errStdinEnded), errors.As(err, &sigErr):
		return nil
	}
	return err
}

// addListener adds a listener's actor to g.
func (p *Program) addListener(g *run.Group, b boundListener) {
	p.listenersLeft.Add(1)
	switch b.Listen.Transport {
	case Stdio:
		g.Add(p.listenerActor(p.serveStdio), func(error) { p.beginDrain() })
	case GRPCStdio:
		p.addGRPCStdio(g)
	case WebSocket:
		srv := &http.Server{Handler: p.withHealth(p.guardWS(p.requireTokenWS(p.v1.WebSocketHandler(p.cutCtx)))), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: p.cfg.IdleTimeout}
		stopped := make(chan struct{})
		g.Add(p.listenerActor(serveUntilStopped(srv, b.ln, stopped)), func(error) {
			p.beginDrain()
			go func() { defer close(stopped); p.stopWebSocket(srv) }()
		})
	case GRPC:
		srv := grpchost.NewHTTPServer(p.withHealth(p.guardRPC(cors(p.cfg.AllowOrigins, p.requireTokenRPC(withPlayground(p.withReflection(p.grpc.Handler())))))))
		srv.IdleTimeout = p.cfg.IdleTimeout
		stopped := make(chan struct{})
		g.Add(p.listenerActor(serveUntilStopped(srv, b.ln, stopped)), func(error) {
			p.beginDrain()
			go func() { defer close(stopped); p.stopGRPC(srv) }()
		})
	}
}

// listenerActor counts a listener's serve function among the listeners the runtime waits for.
func (p *Program) listenerActor(serve func() error) func() error {
	return func() error {
		defer p.listenersLeft.Done()
		return serve()
	}
}

// serveStdio serves the one stdio connection until the client closes it or the drain ends it.
func (p *Program) serveStdio() error {
	if err := p.v1.ServeStdio(p.cutCtx, p.stdin, p.stdout); err != nil {
		return fmt.Errorf("serving stdio: %w", err)
	}
	if p.drain.started() {
		return nil
	}
	return errStdinEnded
}

// addGRPCStdio adds the actor serving gRPC on the standard streams. Like V1 stdio, the client's
// end of the streams ends the program: the sessions are closed (their cells terminated, each
// closed once) before the actor returns. A drain closes the sessions first, then sends GOAWAY.
// The parent process spawned the host, so no token is asked for and no browser is served.
func (p *Program) addGRPCStdio(g *run.Group) {
	srv, err := grpchost.NewConnServer(stdio.NewConn(p.stdin, p.stdout), p.grpc.Handler())
	if err != nil {
		g.Add(p.listenerActor(func() error { return err }), func(error) {})
		return
	}
	stopped := make(chan struct{})
	stop := sync.OnceFunc(func() { defer close(stopped); p.stopGRPCStdio(srv) })
	serve := func() error {
		srv.Serve(p.cutCtx)
		if err := srv.Err(); err != nil {
			p.beginDrain()
			stop()
			<-stopped
			return fmt.Errorf("serving grpc+stdio://: %w", err)
		}
		ended := !p.drain.started()
		if ended {
			p.beginDrain()
			stop()
		}
		<-stopped
		if ended {
			return errStdinEnded
		}
		return nil
	}
	g.Add(p.listenerActor(serve), func(error) {
		p.beginDrain()
		go stop()
	})
}

// serveHTTP serves srv on ln until it is shut down.
func serveHTTP(srv *http.Server, ln net.Listener) error {
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving %s: %w", ln.Addr(), err)
	}
	return nil
}

// serveUntilStopped serves srv on ln and returns once stopped is closed as well: Serve returns as
// soon as Shutdown begins, and the actor must not end (letting Run finish and cancel the drain's
// context) while the stop function is still shutting the server down. run.Group interrupts every
// actor once any returns, so stopped is always closed.
func serveUntilStopped(srv *http.Server, ln net.Listener, stopped <-chan struct{}) func() error {
	return func() error {
		err := serveHTTP(srv, ln)
		<-stopped
		return err
	}
}
