package execserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
	"github.com/codemodehq/codemode/pkg/execrpc"
)

// ExecutorVersion is what environment/info reports: Codex's "unknown" version, since codemode's
// exec-server is not a Codex release.
const ExecutorVersion = "0.0.0"

// Options configure a Server.
type Options struct {
	// Root, when set, confines the fs/* methods and process working directories to this
	// directory tree; everything outside is refused.
	Root string
	// Logf receives diagnostics (malformed messages); nil discards them.
	Logf func(format string, args ...any)
}

// Server serves the exec-server protocol; each connection is a session of its own, whose
// processes are killed when it ends.
type Server struct {
	root string
	logf func(format string, args ...any)
}

// New checks opts (the root must be an existing directory) and makes a Server.
func New(opts Options) (*Server, error) {
	root, err := rootOf(opts.Root)
	if err != nil {
		return nil, err
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Server{root: root, logf: logf}, nil
}

// Root is the resolved root directory ("" without one).
func (s *Server) Root() string { return s.root }

// ServeConn serves one connection until it ends or ctx is done, then kills the session's
// processes and waits for them.
func (s *Server) ServeConn(ctx context.Context, conn execrpc.Conn) error {
	sess := &session{srv: s, procs: map[string]*process{}}
	sess.peer = execrpc.NewPeer(conn, sess, s.logf)
	err := sess.peer.Run(ctx)
	sess.killAll()
	sess.wg.Wait()
	return err
}

// ServeStdio serves newline-delimited JSON on in and out (`--listen stdio`).
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.Writer) error {
	return s.ServeConn(ctx, execrpc.NewStreamConn(in, out, in))
}

// WebSocketHandler serves a connection per WebSocket on "/" and answers "GET /readyz"; any
// request with an Origin header is refused with 403 (no browser page may drive it).
func (s *Server) WebSocketHandler(ctx context.Context) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") != "" {
			http.Error(w, "browser origins are not allowed", http.StatusForbidden)
			return
		}
		switch {
		case r.URL.Path == "/readyz" && r.Method == http.MethodGet:
			w.WriteHeader(http.StatusOK)
		case r.URL.Path == "/":
			ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
			if err != nil {
				return
			}
			if err := s.ServeConn(ctx, execrpc.NewWebSocketConn(ws)); err != nil {
				s.logf("exec-server connection: %v", err)
			}
		default:
			http.NotFound(w, r)
		}
	})
}

// ServeWebSocket serves WebSocket connections on ln until ctx is done.
func (s *Server) ServeWebSocket(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.WebSocketHandler(ctx), BaseContext: func(net.Listener) context.Context { return ctx }}
	stop := context.AfterFunc(ctx, func() { _ = srv.Close() })
	defer stop()
	err := srv.Serve(ln)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// session is one connection's state.
type session struct {
	srv  *Server
	peer *execrpc.Peer

	mu          sync.Mutex
	initialized bool
	procs       map[string]*process
	wg          sync.WaitGroup
}

func (s *session) notify(method string, m wire.Message) {
	if err := s.peer.Notify(context.Background(), method, execrpc.Raw(m)); err != nil {
		s.srv.logf("send %s: %v", method, err)
	}
}

// Concurrent names the methods that may wait (for output, or for a process to read its stdin):
// they run beside the connection's other requests instead of in order.
func (s *session) Concurrent(method string) bool {
	return method == "process/read" || method == "process/write"
}

// HandleNotification accepts `initialized`; other notifications are ignored.
func (s *session) HandleNotification(context.Context, string, json.RawMessage) {}

// decodeParams decodes params (absent = {}) with a generated decoder; errors are -32602.
func decodeParams[T any](params json.RawMessage, decode func([]byte) (T, error)) (T, error) {
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	v, err := decode(params)
	if err != nil {
		return v, execrpc.InvalidParams(err)
	}
	return v, nil
}

// handle decodes params with decode and runs do.
func handle[T any](params json.RawMessage, decode func([]byte) (T, error), do func(T) (wire.Message, error)) (json.RawMessage, error) {
	p, err := decodeParams(params, decode)
	if err != nil {
		return nil, err
	}
	m, err := do(p)
	if err != nil {
		return nil, err
	}
	return execrpc.Raw(m), nil
}

// HandleRequest dispatches a request; before `initialize` every other method is refused.
func (s *session) HandleRequest(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method == "initialize" {
		return handle(params, wire.DecodeInitializeParams, func(wire.InitializeParams) (wire.Message, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.initialized {
				return nil, execrpc.Errorf(execrpc.CodeInvalidRequest, "Already initialized")
			}
			s.initialized = true
			return wire.InitializeResponse{SessionId: uuid.NewString()}, nil
		})
	}
	s.mu.Lock()
	ok := s.initialized
	s.mu.Unlock()
	if !ok {
		return nil, execrpc.Errorf(execrpc.CodeInvalidRequest, "Not initialized")
	}
	srv := s.srv
	switch method {
	case "environment/info":
		return execrpc.Raw(LocalEnvironmentInfo()), nil
	case "environment/status":
		return execrpc.Raw(wire.EnvironmentStatusResponse{Status: "ready"}), nil
	case "process/start":
		return handle(params, wire.DecodeExecParams, s.startProcess)
	case "process/read":
		return handle(params, wire.DecodeReadParams, func(p wire.ReadParams) (wire.Message, error) { return s.readProcess(ctx, p) })
	case "process/write":
		return handle(params, wire.DecodeWriteParams, s.writeProcess)
	case "process/signal":
		return handle(params, wire.DecodeSignalParams, s.signalProcess)
	case "process/terminate":
		return handle(params, wire.DecodeTerminateParams, s.terminateProcess)
	case "fs/readFile":
		return handle(params, wire.DecodeFsReadFileParams, srv.readFile)
	case "fs/writeFile":
		return handle(params, wire.DecodeFsWriteFileParams, srv.writeFile)
	case "fs/createDirectory":
		return handle(params, wire.DecodeFsCreateDirectoryParams, srv.createDirectory)
	case "fs/getMetadata":
		return handle(params, wire.DecodeFsGetMetadataParams, srv.getMetadata)
	case "fs/canonicalize":
		return handle(params, wire.DecodeFsCanonicalizeParams, srv.canonicalize)
	case "fs/readDirectory":
		return handle(params, wire.DecodeFsReadDirectoryParams, srv.readDirectory)
	case "fs/remove":
		return handle(params, wire.DecodeFsRemoveParams, srv.remove)
	case "fs/copy":
		return handle(params, wire.DecodeFsCopyParams, srv.copy)
	}
	return nil, execrpc.Errorf(execrpc.CodeMethodNotFound, "unknown method: %s", method)
}

// LocalEnvironmentInfo describes this process's environment: $SHELL (or /bin/sh), the working
// directory, home and temporary directories as file:// URIs (a relative TMPDIR resolved against
// the working directory), and every capability false: this exec-server implements none of the
// optional features, so Codex sends none of their fields.
func LocalEnvironmentInfo() wire.EnvironmentInfo {
	shell := os.Getenv("SHELL")
	if shell == "" {
		shell = "/bin/sh"
	}
	info := wire.EnvironmentInfo{
		Shell:           wire.ShellInfo{Name: filepath.Base(shell), Path: shell},
		ExecutorVersion: ExecutorVersion,
		PlatformOs:      ptr(runtime.GOOS),
		Capabilities:    &wire.EnvironmentCapabilities{},
	}
	cwd, err := os.Getwd()
	if err == nil {
		info.Cwd = ptr(PathToURI(cwd))
	}
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		info.UserHomeDir = ptr(PathToURI(home))
	}
	tmp := os.TempDir()
	if !filepath.IsAbs(tmp) && cwd != "" {
		tmp = filepath.Join(cwd, tmp)
	}
	if filepath.IsAbs(tmp) {
		info.TempDir = ptr(PathToURI(tmp))
		info.TemporaryDirectories = []wire.PathUri{PathToURI(tmp)}
	}
	return info
}

// String describes the server for logs.
func (s *Server) String() string {
	if s.root == "" {
		return "exec-server (no root)"
	}
	return fmt.Sprintf("exec-server (root %s)", s.root)
}
