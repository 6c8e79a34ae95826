package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// TokenEnv is the environment variable `codemode mcp` reads the bearer token from when --token
// is not given.
const TokenEnv = "CODEMODE_MCP_TOKEN"

// Path is where the streamable HTTP transport is served: Serve prints http://ADDR/mcp.
const Path = "/mcp"

// DefaultSessionTimeout is how long an HTTP client session may stay idle (no request) before it
// is closed and its cells terminated.
const DefaultSessionTimeout = 30 * time.Minute

// shutdownBound bounds how long Serve waits for HTTP connections to finish once its sessions
// are closed.
const shutdownBound = 5 * time.Second

// Config is the program's configuration.
type Config struct {
	// ToolSets are the tools every cell can call.
	ToolSets []toolprovider.ToolSet
	// Listen is the address of the streamable HTTP transport; the zero value serves stdio.
	Listen netip.AddrPort
	// Token, when set, is the bearer token every HTTP request must carry.
	Token string
	// Limits are the limits of every code-mode session.
	Limits codemode.SessionCellExecutionLimits
	// SessionTimeout is the idle timeout of HTTP client sessions; zero keeps them until deleted.
	SessionTimeout time.Duration
	// Version is the version reported to clients.
	Version string
	// MemoryBudget, when set, is the budget cells' heaps and unobserved output take from
	// (jsruntime.Options.MemoryBudget; codemode mcp's --memory-budget). nil: per-cell caps only.
	MemoryBudget jsruntime.MemoryBudget
}

// UsageError is a configuration Serve refuses before starting (exit status 2 in the CLI).
type UsageError struct{ Err error }

// Error returns the problem.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the problem.
func (e *UsageError) Unwrap() error { return e.Err }

// ParseListen parses a --listen value: IP:PORT, with an IP address (not a host name: the
// listener binds exactly the address given) and a port (0 picks a free one).
func ParseListen(s string) (netip.AddrPort, error) {
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("--listen %q must be IP:PORT, such as 127.0.0.1:0 or [::1]:8765", s)
	}
	return ap, nil
}

// Check refuses what Serve must not start with: a network address that is not loopback without
// a token (as codemode-host refuses one), or a token without a network address.
func (c Config) Check() error {
	switch {
	case !c.Listen.IsValid() && c.Token != "":
		return &UsageError{Err: errors.New("a token needs --listen: on stdio the client that starts codemode is the only one")}
	case c.Listen.IsValid() && !c.Listen.Addr().Unmap().IsLoopback() && c.Token == "":
		return &UsageError{Err: fmt.Errorf("--listen %s is not a loopback address: a server reachable from the network needs a bearer token (--token or $%s)", c.Listen, TokenEnv)}
	}
	return nil
}

// Serve runs the MCP server until ctx ends or, on stdio, until the client closes stdin: on
// stdio (no Listen) the MCP messages go over stdin and stdout; otherwise the streamable HTTP
// transport listens on Listen and its URL (http://ADDR/mcp) is printed on stdout. Every client
// session's cells are terminated before Serve returns.
func Serve(ctx context.Context, c Config, stdin io.ReadCloser, stdout io.WriteCloser) error {
	if err := c.Check(); err != nil {
		return err
	}
	provider, err := jsruntime.NewProvider(jsruntime.Options{MemoryBudget: c.MemoryBudget})
	if err != nil {
		return fmt.Errorf("starting the runtime: %w", err)
	}
	defer provider.Close()
	srv, err := New(Options{Provider: provider, ToolSets: c.ToolSets, Limits: c.Limits, Version: c.Version})
	if err != nil {
		return &UsageError{Err: err}
	}
	defer srv.Close()
	if !c.Listen.IsValid() {
		return srv.ServeTransport(ctx, &mcp.IOTransport{Reader: stdin, Writer: stdout})
	}
	ln, err := net.Listen("tcp", c.Listen.String())
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle(Path, srv.HTTPHandler(HTTPOptions{Token: c.Token, SessionTimeout: c.SessionTimeout}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	if _, err := fmt.Fprintf(stdout, "http://%s%s\n", ln.Addr(), Path); err != nil {
		_ = hs.Close()
		<-served
		return err
	}
	select {
	case err = <-served:
	case <-ctx.Done():
	}
	// Sessions first: their cells end, their pending requests answer, their streams close.
	_ = srv.Close()
	shutdown, cancel := context.WithTimeout(context.Background(), shutdownBound)
	defer cancel()
	if hs.Shutdown(shutdown) != nil {
		_ = hs.Close()
	}
	if err == nil {
		err = <-served
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// authorized reports whether r carries "Authorization: Bearer TOKEN", compared in constant
// time.
func authorized(r *http.Request, token string) bool {
	got := []byte(r.Header.Get("Authorization"))
	want := []byte("Bearer " + token)
	return subtle.ConstantTimeCompare(got, want) == 1
}
