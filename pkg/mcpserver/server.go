package mcpserver

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// ServerName is the name the server reports to MCP clients in its initialize result.
const ServerName = "codemode"

// instructions tell the client's model how the two tools fit together.
const instructions = "Code Mode: write JavaScript for the `exec` tool; the cell calls the tools " +
	"declared in exec's description as `await tools.name(input)` (several at once with " +
	"Promise.all) and shows results with text(). A cell still running after its yield time " +
	"answers \"Script running with cell ID N\": call `wait` with that cell_id for more output, " +
	"or with terminate: true to stop it. Cells and stored values belong to this MCP session."

// Options configure a Server.
type Options struct {
	// Provider creates one code-mode session per MCP client session. Required.
	Provider codemode.SessionProvider
	// ToolSets are the tools every cell can call, in the order the model is shown them.
	ToolSets []toolprovider.ToolSet
	// Limits are the limits of every code-mode session (yield time cap, heap cap).
	Limits codemode.SessionCellExecutionLimits
	// Version is the server version reported to clients; "" reports "dev".
	Version string
}

// Server is an MCP server offering exec and wait. It is safe for concurrent use; one Server
// serves any number of MCP client sessions, over any transports.
type Server struct {
	opts Options
	// defs are the tools of opts.ToolSets (checked once by New).
	defs []codemode.ToolDefinition
	mcp  *mcp.Server
	// execCalls numbers exec calls: each cell's ExecuteRequest.ToolCallID is "mcp-exec-N".
	execCalls atomic.Uint64

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*session
	closed   bool
	// watchers are the goroutines that wait for a client session to end (one per session).
	watchers sync.WaitGroup
}

// New returns a server for opts. Two tools with the same name (or JavaScript name) in
// opts.ToolSets are an error.
func New(opts Options) (*Server, error) {
	if opts.Provider == nil {
		return nil, errors.New("mcpserver: Options.Provider is nil")
	}
	d, err := toolprovider.NewDelegate(nil, opts.ToolSets...)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, defs: d.Definitions(), sessions: map[*mcp.ServerSession]*session{}}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "Code Mode", Version: version}, &mcp.ServerOptions{
		Instructions: instructions,
		// Tools without list changes: the two tools never change. No logging (deprecated by
		// SEP-2577): notify() texts go out as progress.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	s.mcp.AddTool(execTool(s.defs), s.handleExec)
	s.mcp.AddTool(waitTool(), s.handleWait)
	return s, nil
}

// Definitions returns the tools cells can call (those of Options.ToolSets).
func (s *Server) Definitions() []codemode.ToolDefinition {
	return append([]codemode.ToolDefinition(nil), s.defs...)
}

// MCPServer returns the SDK server, to connect it to other transports (for instance the SDK's
// in-memory transports). Sessions connected any way are served and cleaned up alike.
func (s *Server) MCPServer() *mcp.Server { return s.mcp }

// ServeTransport serves one client session on t until the client ends it (for stdio: closes
// stdin) or ctx ends; then the session's cells are terminated and ServeTransport returns. A
// client that goes away is a normal end, not an error.
func (s *Server) ServeTransport(ctx context.Context, t mcp.Transport) error {
	ss, err := s.mcp.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	ended := make(chan struct{})
	go func() {
		_ = ss.Wait() // EOF or a closed pipe: the client has gone, which ends the session
		close(ended)
	}()
	select {
	case <-ended:
	case <-ctx.Done():
		// Terminate the cells first: a handler waiting for a cell returns at once, and Close
		// waits for the handlers in flight.
		s.endSession(ss)
		_ = ss.Close()
		<-ended
	}
	s.endSession(ss)
	return nil
}

// HTTPOptions configure HTTPHandler.
type HTTPOptions struct {
	// Token, when set, is the bearer token every request must carry (Authorization: Bearer
	// TOKEN); others get 401.
	Token string
	// SessionTimeout closes a client session that sent no request for this long (its cells are
	// terminated). Zero keeps idle sessions until they are deleted or the server closes.
	SessionTimeout time.Duration
}

// sessionIDHeader is the streamable HTTP transport's session header.
const sessionIDHeader = "Mcp-Session-Id"

// HTTPHandler returns the MCP streamable HTTP transport for this server: POST, GET and DELETE
// on whatever path it is mounted at. The SDK's protection against DNS rebinding stays on
// (a request to a loopback address must name a loopback host).
func (s *Server) HTTPHandler(opts HTTPOptions) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: opts.SessionTimeout})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if opts.Token != "" && !authorized(r, opts.Token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="codemode"`)
			http.Error(w, "a bearer token is required", http.StatusUnauthorized)
			return
		}
		if id := r.Header.Get(sessionIDHeader); r.Method == http.MethodDelete && id != "" {
			// The SDK closes a deleted session only once its requests in flight have returned:
			// terminating its cells first makes a pending exec or wait return now.
			s.endSessionByID(id)
		}
		h.ServeHTTP(w, r)
	})
}

// Close ends every client session: their cells are terminated, their tool commands killed, and
// their connections closed. It returns once all of that is done. New sessions get an error
// from exec and wait afterwards.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	open := make([]*session, 0, len(s.sessions))
	for _, e := range s.sessions {
		open = append(open, e)
	}
	s.mu.Unlock()
	for _, e := range open {
		e.close()
	}
	for ss := range s.mcp.Sessions() {
		_ = ss.Close()
	}
	s.watchers.Wait()
	return nil
}

// errClosed answers exec and wait once the server is closing.
var errClosed = errors.New("the codemode MCP server is shutting down")

// sessionOf returns the code-mode session of the client session ss, creating it on first use.
// A goroutine waits for ss to end and then shuts the code-mode session down.
func (s *Server) sessionOf(ctx context.Context, ss *mcp.ServerSession) (*session, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errClosed
	}
	e := s.sessions[ss]
	if e == nil {
		e = &session{srv: s, ss: ss}
		s.sessions[ss] = e
		s.watchers.Add(1)
		go func() {
			defer s.watchers.Done()
			_ = ss.Wait()
			s.endSession(ss)
		}()
	}
	s.mu.Unlock()
	if err := e.open(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// endSession forgets the client session ss and shuts its code-mode session down.
func (s *Server) endSession(ss *mcp.ServerSession) {
	s.mu.Lock()
	e := s.sessions[ss]
	delete(s.sessions, ss)
	s.mu.Unlock()
	if e != nil {
		e.close()
	}
}

// endSessionByID ends the client session whose streamable HTTP session ID is id, if any.
func (s *Server) endSessionByID(id string) {
	s.mu.Lock()
	var found *mcp.ServerSession
	for ss := range s.sessions {
		if ss.ID() == id {
			found = ss
		}
	}
	s.mu.Unlock()
	if found != nil {
		s.endSession(found)
	}
}

// session is the code-mode side of one MCP client session.
type session struct {
	srv *Server
	ss  *mcp.ServerSession

	mu       sync.Mutex
	cs       codemode.Session // nil until open
	delegate *sessionDelegate
	closed   bool
}

// open creates the code-mode session unless it exists; it fails once the session was closed.
func (e *session) open(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.closed:
		return errClosed
	case e.cs != nil:
		return nil
	}
	d, err := newSessionDelegate(e.srv.opts.ToolSets)
	if err != nil {
		return err
	}
	cs, err := e.srv.opts.Provider.CreateSession(ctx, codemode.FromBlocking(d), e.srv.opts.Limits)
	if err != nil {
		return err
	}
	e.cs, e.delegate = cs, d
	return nil
}

// close shuts the code-mode session down (running cells terminated, tool commands killed) and
// returns when it is closed. It is idempotent.
func (e *session) close() {
	e.mu.Lock()
	cs := e.cs
	e.closed, e.cs = true, nil
	e.mu.Unlock()
	if cs != nil {
		_ = cs.Shutdown(context.Background())
	}
}

// current returns the code-mode session and its delegate, or errClosed.
func (e *session) current() (codemode.Session, *sessionDelegate, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cs == nil {
		return nil, nil, errClosed
	}
	return e.cs, e.delegate, nil
}
