package hostprogram

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"strings"
	"time"

	"github.com/oklog/run"

	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
	"github.com/codemodehq/codemode/pkg/internal/httpguard"
)

// The admin listener's paths besides the probes (docs/operations.md).
const (
	metricsPath  = "/metrics"
	sessionsPath = "/debug/sessions"
	pprofPath    = "/debug/pprof/"
)

// adminScheme is the scheme --admin-listen takes: the admin listener speaks plain HTTP.
const adminScheme = "http://"

// ParseAdminListen parses an --admin-listen value: http://IP:PORT, an IP address (the listener
// binds exactly it) and a port (0 picks a free one).
func ParseAdminListen(s string) (netip.AddrPort, error) {
	ap, err := netip.ParseAddrPort(strings.TrimPrefix(s, adminScheme))
	if !strings.HasPrefix(s, adminScheme) || err != nil {
		return netip.AddrPort{}, fmt.Errorf("invalid --admin-listen URL `%s`; expected `http://IP:PORT`, such as http://127.0.0.1:9464", s)
	}
	return ap, nil
}

// adminFlag parses --admin-listen.
type adminFlag struct{ addr *netip.AddrPort }

// String implements flag.Value.
func (f adminFlag) String() string {
	if f.addr == nil || !f.addr.IsValid() {
		return ""
	}
	return adminScheme + f.addr.String()
}

// Set implements flag.Value.
func (f adminFlag) Set(s string) error {
	ap, err := ParseAdminListen(s)
	if err != nil {
		return err
	}
	*f.addr = ap
	return nil
}

// bindAdmin opens the admin listener, if --admin-listen asked for one.
func (p *Program) bindAdmin(ctx context.Context) error {
	if !p.cfg.AdminListen.IsValid() {
		return nil
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", p.cfg.AdminListen.String())
	if err != nil {
		return fmt.Errorf("--admin-listen %s%s: %w", adminScheme, p.cfg.AdminListen, err)
	}
	p.adminLn = p.limit(ln)
	p.log.Info("code-mode admin listening", "url", p.AdminURL())
	return nil
}

// AdminURL is the bound admin listener's URL (http://ADDR), "" without one or before Bind.
func (p *Program) AdminURL() string {
	if p.adminLn == nil {
		return ""
	}
	return adminScheme + p.adminLn.Addr().String()
}

// addAdmin adds the admin listener's actor to g. It keeps serving through the drain, so that a
// probe sees the host draining and metrics see the last cells end, and stops once every
// listener has returned.
func (p *Program) addAdmin(g *run.Group) {
	if p.adminLn == nil {
		return
	}
	srv := &http.Server{Handler: p.adminHandler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: p.cfg.IdleTimeout}
	stopped := make(chan struct{})
	g.Add(serveUntilStopped(srv, p.adminLn, stopped), func(error) {
		go func() {
			defer close(stopped)
			<-p.listenersDone
			ctx, cancel := context.WithTimeout(context.Background(), cutGrace)
			defer cancel()
			_ = srv.Shutdown(ctx)
			_ = srv.Close()
		}()
	})
}

// adminHandler serves the admin paths behind the guard and the token of the other listeners:
// without a token only loopback Host names, never a browser, and with a token the token on
// everything but the probes. Unknown paths are 404.
func (p *Program) adminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET "+metricsPath, p.metrics.Handler())
	mux.HandleFunc("GET "+sessionsPath, p.serveSessions)
	mux.HandleFunc(pprofPath, pprof.Index)
	mux.HandleFunc(pprofPath+"cmdline", pprof.Cmdline)
	mux.HandleFunc(pprofPath+"profile", pprof.Profile)
	mux.HandleFunc(pprofPath+"symbol", pprof.Symbol)
	mux.HandleFunc(pprofPath+"trace", pprof.Trace)
	g := httpguard.New(httpguard.Policy{LoopbackHosts: p.cfg.Token == "", NoBrowsers: true, Exempt: probe})
	guarded := g.Handler(p.requireTokenWS(mux), func(w http.ResponseWriter, r *http.Request, refusal *httpguard.Refusal) {
		p.logRefusal(r, refusal)
		httpguard.WritePlain(w, r, refusal)
	})
	return p.withHealth(guarded)
}

// serveSessions answers /debug/sessions: the open sessions and their live cells as JSON (IDs,
// states, ages and counts; nothing a cell computes).
func (p *Program) serveSessions(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(map[string]any{"sessions": p.metrics.Sessions()})
}

// withHealth answers the probes before next sees the request: GET or HEAD /healthz, 200 while
// the process serves (liveness), and /readyz, 200 while the host takes new sessions and 503
// saying why not (draining, full, busy, no runtime), for a proxy's or Kubernetes' readiness check.
func (p *Program) withHealth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.URL.Path != grpchost.HealthPath && r.URL.Path != readyPath) || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if r.URL.Path == readyPath {
			if err := p.readiness(); err != nil {
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = fmt.Fprintf(w, "not ready: %v\n", err)
				return
			}
		}
		_, _ = w.Write([]byte("ok\n"))
	})
}

// readiness says why the host should get no new sessions now, or nil: it is draining, its
// runtime failed, or it is at one of its caps (--max-sessions, --max-active-cells).
func (p *Program) readiness() error {
	if p.drain.started() {
		return fmt.Errorf("draining")
	}
	if err := p.provider.Availability(); err != nil {
		return fmt.Errorf("the JavaScript runtime is not available: %w", err)
	}
	load := p.metrics.Load()
	if limit := p.cfg.MaxSessions; limit > 0 && load.Sessions >= limit {
		return fmt.Errorf("full: %d sessions open, --max-sessions is %d", load.Sessions, limit)
	}
	if limit := p.maxActiveCells(); load.Cells >= limit {
		return fmt.Errorf("busy: %d cells live, --max-active-cells is %d", load.Cells, limit)
	}
	return nil
}

// maxActiveCells is the gRPC host's cap on live cells, which readiness applies to the whole host.
func (p *Program) maxActiveCells() int {
	if p.cfg.MaxActiveCells > 0 {
		return p.cfg.MaxActiveCells
	}
	return grpchost.DefaultMaxActiveCells
}
