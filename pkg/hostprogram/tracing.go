package hostprogram

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"connectrpc.com/connect/v2"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
	"github.com/codemodehq/codemode/pkg/internal/buildinfo"
	"github.com/codemodehq/codemode/pkg/internal/httpguard"
	"github.com/codemodehq/codemode/pkg/telemetry/tracing"
	"github.com/codemodehq/codemode/pkg/v1/v1host"
)

// ServiceName is the service.name of the host's spans.
const ServiceName = "codemode-host"

// traceListenScheme is the scheme --otel-trace-listen takes: the stream is a WebSocket.
const traceListenScheme = "ws://"

// tracingShutdownTimeout bounds the export of the last spans at exit (and their streaming to
// WebSocket clients), so that an unreachable collector cannot hold the exit for long.
const tracingShutdownTimeout = 5 * time.Second

// ParseTraceListen parses an --otel-trace-listen value: ws://IP:PORT, an IP address (the listener
// binds exactly it) and a port (0 picks a free one; the bound URL is logged).
func ParseTraceListen(s string) (netip.AddrPort, error) {
	ap, err := netip.ParseAddrPort(strings.TrimPrefix(s, traceListenScheme))
	if !strings.HasPrefix(s, traceListenScheme) || err != nil {
		return netip.AddrPort{}, fmt.Errorf("unsupported --otel-trace-listen URL `%s`; expected `ws://IP:PORT`, such as ws://127.0.0.1:4319", s)
	}
	return ap, nil
}

// ParseTraceExporter checks an --otel-trace-exporter value: an http:// or https:// URL, the full
// OTLP/HTTP traces endpoint (a collector's is http://HOST:4318/v1/traces).
func ParseTraceExporter(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("invalid --otel-trace-exporter URL `%s`; expected an OTLP/HTTP endpoint such as http://127.0.0.1:4318/v1/traces", s)
	}
	return s, nil
}

// traceListenFlag parses --otel-trace-listen.
type traceListenFlag struct{ addr *netip.AddrPort }

// String implements flag.Value.
func (f traceListenFlag) String() string {
	if f.addr == nil || !f.addr.IsValid() {
		return ""
	}
	return traceListenScheme + f.addr.String()
}

// Set implements flag.Value.
func (f traceListenFlag) Set(s string) error {
	ap, err := ParseTraceListen(s)
	if err != nil {
		return err
	}
	*f.addr = ap
	return nil
}

// traceExporterFlag parses --otel-trace-exporter.
type traceExporterFlag struct{ url *string }

// String implements flag.Value.
func (f traceExporterFlag) String() string {
	if f.url == nil {
		return ""
	}
	return *f.url
}

// Set implements flag.Value.
func (f traceExporterFlag) Set(s string) error {
	u, err := ParseTraceExporter(s)
	if err != nil {
		return err
	}
	*f.url = u
	return nil
}

// checkTracing refuses the two trace flags together — spans go to one place, and accepting both
// would leave one silently unused; Codex's host refuses the pair too, so a command line means the
// same to both (docs/protocol/grpc.md#tracing) — and a trace stream reachable from the network
// without a token (spans name sessions, cells and tools).
func (c Config) checkTracing() error {
	a := c.OTelTraceListen
	if a.IsValid() && c.OTelTraceExporter != "" {
		return usageErrorf("--otel-trace-listen cannot be used with --otel-trace-exporter: spans go to one of them")
	}
	if !a.IsValid() || a.Addr().Unmap().IsLoopback() {
		return nil
	}
	if c.Token == "" {
		return usageErrorf("--otel-trace-listen %s%s is not a loopback address: a trace stream reachable from the network needs a bearer token (--token or $%s)", traceListenScheme, a, TokenEnv)
	}
	if err := httpguard.CheckToken(c.Token, true); err != nil {
		return usageErrorf("--token (or $%s): %v", TokenEnv, err)
	}
	return nil
}

// tracingState is the program's tracing; all nil without --otel-trace-exporter and
// --otel-trace-listen, and then nothing is traced at all.
type tracingState struct {
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
	// stream, ln and srv serve --otel-trace-listen.
	stream *tracing.Stream
	ln     net.Listener
	srv    *http.Server
}

// setUpTracing starts the tracer provider the trace flags ask for and has the runtime's
// sessions traced. Export failures are logged.
func (p *Program) setUpTracing() {
	var sink tracing.Sink
	switch {
	case p.cfg.OTelTraceExporter != "":
		sink = tracing.NewHTTPSink(p.cfg.OTelTraceExporter)
	case p.cfg.OTelTraceListen.IsValid():
		p.tracing.stream = tracing.NewStream(p.log)
		sink = p.tracing.stream
	default:
		return
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		p.log.Warn("OTEL trace export failed", "err", err)
	}))
	p.tracing.provider = tracing.NewTracerProvider(tracing.NewExporter(sink), tracing.Service{Name: ServiceName, Version: buildinfo.Read().VersionOrUnknown()})
	p.tracing.tracer = tracing.Tracer(p.tracing.provider)
	p.provider.tracer = p.tracing.tracer
}

// grpcInterceptors are the gRPC host's tracing interceptors (none without tracing).
func (p *Program) grpcInterceptors() []connect.ServerInterceptor {
	if p.tracing.tracer == nil {
		return nil
	}
	return []connect.ServerInterceptor{grpchost.TraceRPCs(p.tracing.tracer)}
}

// v1Options are the V1 host's tracing options (none without tracing).
func (p *Program) v1Options() []v1host.Option {
	if p.tracing.tracer == nil {
		return nil
	}
	return []v1host.Option{v1host.WithTracer(p.tracing.tracer)}
}

// bindTraceStream opens --otel-trace-listen and serves it until shutDownTracing; its URL is
// logged, because with port 0 only the log tells a consumer where to connect (the line is Codex's
// host's, so one consumer reads both).
func (p *Program) bindTraceStream(ctx context.Context) error {
	if p.tracing.stream == nil {
		return nil
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", p.cfg.OTelTraceListen.String())
	if err != nil {
		return fmt.Errorf("--otel-trace-listen %s%s: %w", traceListenScheme, p.cfg.OTelTraceListen, err)
	}
	p.tracing.ln = p.limit(ln)
	p.tracing.srv = &http.Server{Handler: p.guardWS(p.requireTokenWS(p.tracing.stream)), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.tracing.srv.Serve(p.tracing.ln) }()
	p.log.Info("OTEL trace websocket listening", "url", traceListenScheme+ln.Addr().String())
	return nil
}

// shutDownTracing exports the spans still waiting (the drain's last ones among them), then
// closes the trace stream after its clients got them.
func (p *Program) shutDownTracing() {
	if p.tracing.provider == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), tracingShutdownTimeout)
	defer cancel()
	if err := p.tracing.provider.Shutdown(ctx); err != nil {
		p.log.Warn("OTEL trace export at exit failed", "err", err)
	}
	if p.tracing.stream != nil {
		p.tracing.stream.Close(ctx)
	}
	if p.tracing.srv != nil {
		_ = p.tracing.srv.Close()
	}
}
