package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// implementation is how codemode introduces itself to MCP servers.
var implementation = &mcp.Implementation{Name: "codemode", Version: "v1"}

var (
	// errTimedOut is the cause of a call's context when its server's timeout expired.
	errTimedOut = errors.New("timed out")
	// errStartTimedOut is the cause of a start's context when the startup timeout expired.
	errStartTimedOut = errors.New("startup timed out")
	// errClosed fails the calls made after the ToolSet was closed.
	errClosed = errors.New("the MCP tool set is closed")
)

// server is one MCP server: its settings and its current connection, replaced by the next call
// after it failed.
type server struct {
	spec   toolprovider.MCPServer
	opts   Options
	client *mcp.Client

	// lock is held while the connection is looked at or replaced; a channel, so that a call
	// waiting for a restart can give up when its context ends.
	lock   chan struct{}
	conn   *connection // nil: none yet, or dropped
	closed bool
}

func newServer(spec toolprovider.MCPServer, opts Options) *server {
	return &server{
		spec:   spec,
		opts:   opts,
		client: mcp.NewClient(implementation, nil),
		lock:   make(chan struct{}, 1),
	}
}

// connection is one session with the server: over a stdio server's process, or over HTTP.
type connection struct {
	session *mcp.ClientSession
	proc    *process        // nil over HTTP
	http    *http.Transport // nil over stdio
	// endLife ends the context the session was connected with.
	endLife context.CancelFunc
	// broken is set when a call found the connection failed (over HTTP, the only sign of it).
	broken    atomic.Bool
	closeOnce sync.Once
}

// dead reports whether the connection can no longer carry calls: its process exited, or a call
// found it broken.
func (c *connection) dead() bool {
	if c.broken.Load() {
		return true
	}
	if c.proc == nil {
		return false
	}
	select {
	case <-c.proc.exited:
		return true
	default:
		return false
	}
}

// close ends the session and stops the process; it returns once the process has exited.
func (c *connection) close() {
	c.closeOnce.Do(func() {
		if c.proc != nil {
			// Stop the process first: its exit ends the session's reads, so closing the
			// session does not wait for calls the server would never answer.
			c.proc.stop()
		}
		if c.session != nil {
			_ = c.session.Close()
		}
		c.endLife()
		if c.http != nil {
			c.http.CloseIdleConnections()
		}
	})
}

// start connects and lists the server's tools, within the startup timeout.
func (s *server) start(ctx context.Context) ([]codemode.ToolDefinition, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, s.spec.StartupTimeout, errStartTimedOut)
	defer cancel()
	c, err := s.connect(ctx)
	if err != nil {
		return nil, err
	}
	s.conn = c
	var defs []codemode.ToolDefinition
	for tool, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, s.startFailure(ctx, c, fmt.Errorf("listing its tools: %w", err))
		}
		def, err := definition(s.spec.Name, tool)
		if err != nil {
			return nil, err
		}
		defs = append(defs, def)
	}
	return defs, nil
}

// connect starts a stdio server's process, or opens an HTTP connection, and initializes a
// session, within ctx. The session itself lives until the connection is closed.
func (s *server) connect(ctx context.Context) (*connection, error) {
	c := &connection{}
	var transport mcp.Transport
	if s.spec.URL != "" {
		c.http = http.DefaultTransport.(*http.Transport).Clone()
		transport = &mcp.StreamableClientTransport{
			Endpoint:             s.spec.URL,
			HTTPClient:           &http.Client{Transport: headerTransport{base: c.http, headers: s.spec.Headers}},
			DisableStandaloneSSE: true, // codemode follows no server-initiated messages
			MaxEventSize:         s.spec.MaxResultBytes,
		}
	} else {
		proc, err := startProcess(s.spec, s.opts.Stderr)
		if err != nil {
			return nil, err
		}
		c.proc = proc
		transport = &mcp.IOTransport{Reader: proc.stdout, Writer: proc.stdin, MaxLineLength: -1}
	}
	// The SDK binds the session's reads to the context Connect gets, so it must outlive the
	// start: the start's own bound ends the connection instead, if it expires first.
	lifeCtx, endLife := context.WithCancel(context.WithoutCancel(ctx))
	c.endLife = endLife
	stop := context.AfterFunc(ctx, func() {
		endLife()
		if c.proc != nil {
			c.proc.stop()
		}
	})
	session, err := s.client.Connect(lifeCtx, transport, nil)
	if !stop() || err != nil {
		if session != nil {
			_ = session.Close()
		}
		if err == nil {
			err = context.Cause(ctx)
		}
		return nil, s.startFailure(ctx, c, err)
	}
	c.session = session
	return c, nil
}

// startFailure explains why a start failed: its timeout, the process's exit, or err.
func (s *server) startFailure(ctx context.Context, c *connection, err error) error {
	c.close()
	switch {
	case errors.Is(context.Cause(ctx), errStartTimedOut):
		return fmt.Errorf("it did not start within its startup_timeout (%v)%s", s.spec.StartupTimeout, c.stderrSuffix())
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case c.proc != nil:
		return fmt.Errorf("%v; it exited (%v)%s", err, c.proc.exitText(), c.stderrSuffix())
	default:
		return err
	}
}

// stderrSuffix is ": stderr: …" with what the process printed last, or "".
func (c *connection) stderrSuffix() string {
	if c.proc == nil {
		return ""
	}
	if text := c.proc.stderr.String(); text != "" {
		return "; its stderr: " + text
	}
	return ""
}

// connection returns a live connection, starting the server again if its last one died.
func (s *server) connection(ctx context.Context) (*connection, error) {
	select {
	case s.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	defer func() { <-s.lock }()
	if s.closed {
		return nil, errClosed
	}
	if s.conn != nil && !s.conn.dead() {
		return s.conn, nil
	}
	if s.conn != nil {
		s.conn.close()
		s.conn = nil
	}
	startCtx, cancel := context.WithTimeoutCause(ctx, s.spec.StartupTimeout, errStartTimedOut)
	defer cancel()
	c, err := s.connect(startCtx)
	if err != nil {
		return nil, fmt.Errorf("MCP server `%s` could not be started again: %w", s.spec.Name, err)
	}
	s.conn = c
	return c, nil
}

// drop forgets c, if it is still the server's connection, and closes it.
func (s *server) drop(c *connection) {
	c.broken.Store(true)
	s.lock <- struct{}{}
	if s.conn == c {
		s.conn = nil
	}
	<-s.lock
	c.close()
}

// close stops the server for good.
func (s *server) close() {
	s.lock <- struct{}{}
	s.closed = true
	c := s.conn
	s.conn = nil
	<-s.lock
	if c != nil {
		c.close()
	}
}

// call makes one tools/call of tool (named global in cells) within the server's timeout.
func (s *server) call(ctx context.Context, global, tool string, args json.RawMessage) (json.RawMessage, error) {
	c, err := s.connection(ctx)
	if err != nil {
		return nil, err
	}
	callCtx, cancel := context.WithTimeoutCause(ctx, s.spec.Timeout, errTimedOut)
	defer cancel()
	res, err := c.session.CallTool(callCtx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, s.callFailure(ctx, callCtx, c, global, err)
	}
	return s.result(global, res)
}

// callFailure explains why a call failed, and drops a connection that failed with it.
func (s *server) callFailure(ctx, callCtx context.Context, c *connection, global string, err error) error {
	var rpcErr *jsonrpc.Error
	switch {
	case ctx.Err() != nil:
		// The cell no longer needs the result (the SDK has told the server so).
		return context.Cause(ctx)
	case errors.Is(context.Cause(callCtx), errTimedOut):
		return fmt.Errorf("MCP tool `%s` timed out after %v (its server's timeout) and was cancelled", global, s.spec.Timeout)
	case errors.As(err, &rpcErr):
		return fmt.Errorf("MCP tool `%s` failed: %s", global, rpcErr.Message)
	}
	// The connection failed: the process exited, sent what we refuse, or HTTP failed.
	s.drop(c)
	switch {
	case c.proc != nil && c.proc.stdout.exceeded.Load():
		return fmt.Errorf("MCP server `%s` sent a message larger than its max_result_bytes (%d bytes) during the call of `%s`, and was stopped; the next call starts it again",
			s.spec.Name, s.spec.MaxResultBytes, global)
	case c.proc != nil:
		return fmt.Errorf("MCP server `%s` exited during the call of `%s` (%v)%s; the next call starts it again",
			s.spec.Name, global, c.proc.exitText(), c.stderrSuffix())
	default:
		return fmt.Errorf("MCP server `%s` failed during the call of `%s`: %v; the next call connects again", s.spec.Name, global, err)
	}
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

// RoundTrip implements http.RoundTripper.
func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for name, value := range t.headers {
			r.Header.Set(name, value)
		}
	}
	return t.base.RoundTrip(r)
}
