package execserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
	"github.com/codemodehq/codemode/pkg/execserver/execrpc"
	"github.com/codemodehq/codemode/pkg/internal/httpguard"
)

// Options configure a Server.
type Options struct {
	// Root, when set, confines the fs/* methods and process working directories to this
	// directory tree; everything outside is refused.
	Root string
	// Logf receives diagnostics (malformed messages); nil discards them.
	Logf func(format string, args ...any)
	// Token, when set, is the bearer token every WebSocket connection must carry
	// ("Authorization: Bearer TOKEN"); others get 401. GET /readyz stays open.
	Token string
}

// Server serves the exec-server protocol; each connection is a session of its own, whose
// processes are killed when it ends.
type Server struct {
	root  string
	logf  func(format string, args ...any)
	token string
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
	if opts.Token != "" {
		if err := httpguard.CheckToken(opts.Token, false); err != nil {
			return nil, err
		}
	}
	return &Server{root: root, logf: logf, token: opts.Token}, nil
}

// Root is the resolved root directory ("" without one).
func (s *Server) Root() string { return s.root }

// ServeConn serves one connection until it ends or ctx is done, then kills the session's
// processes and waits for them.
// A message that fails to parse is answered (id -1) with a text naming the connection
// ("failed to parse JSON-RPC message from exec-server connection: …").
func (s *Server) ServeConn(ctx context.Context, conn execrpc.Conn) error {
	return s.serveConn(ctx, conn, "failed to parse JSON-RPC message from exec-server connection")
}

func (s *Server) serveConn(ctx context.Context, conn execrpc.Conn, malformedPrefix string) error {
	sess := &session{srv: s, procs: map[string]*process{}, handles: map[string]*os.File{}}
	sess.peer = execrpc.NewPeer(conn, sess, s.logf)
	sess.peer.AnswerMalformed(malformedPrefix)
	err := sess.peer.Run(ctx)
	sess.killAll()
	sess.wg.Wait()
	sess.closeFiles()
	return err
}

// ServeStdio serves newline-delimited JSON on in and out (`--listen stdio`); a malformed line
// is answered with Codex's text ("failed to parse JSON-RPC message from exec-server stdio: …").
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.Writer) error {
	return s.serveConn(ctx, execrpc.NewStreamConn(in, out, in), "failed to parse JSON-RPC message from exec-server stdio")
}

// WebSocketHandler serves a connection per WebSocket on "/" and answers "GET /readyz". A request
// with an Origin header is refused with 403 (no browser page may drive it), and so is one whose
// Host does not name loopback (a page served under another name that resolves to 127.0.0.1: DNS
// rebinding), the probe excepted: the server runs commands and asks for no token.
func (s *Server) WebSocketHandler(ctx context.Context) http.Handler {
	return httpguard.ProgramsOnly(programsOnLoopback, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.token != "" && !httpguard.Authorized(r, s.token) {
			s.logf("refused a connection from %s without the token", r.RemoteAddr)
			w.Header().Set("WWW-Authenticate", `Bearer realm="codemode"`)
			http.Error(w, "a bearer token is required", http.StatusUnauthorized)
			return
		}
		switch {
		case r.URL.Path == "/":
			ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
			if err != nil {
				return
			}
			prefix := "failed to parse websocket JSON-RPC message from exec-server websocket " + r.RemoteAddr
			if err := s.serveConn(ctx, execrpc.NewWebSocketConn(ws), prefix); err != nil {
				s.logf("exec-server connection: %v", err)
			}
		default:
			http.NotFound(w, r)
		}
	}))
}

// programsOnLoopback is the guard of the WebSocket listener: loopback Host names (no browser,
// which ProgramsOnly adds); the readiness probe answers under any Host and Origin, and without
// the token.
var programsOnLoopback = httpguard.Policy{LoopbackHosts: true, Exempt: httpguard.IsReadyProbe}

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
	initialized bool // initialize was answered
	ready       bool // and the client sent initialized
	procs       map[string]*process
	handles     map[string]*os.File
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

// HandleNotification accepts `initialized` after initialize; other notifications are ignored
// (Codex's exec-server drops the connection instead: a recorded difference).
func (s *session) HandleNotification(_ context.Context, method string, _ json.RawMessage) {
	if method != "initialized" {
		return
	}
	s.mu.Lock()
	s.ready = s.initialized
	s.mu.Unlock()
}

// route is one method: the family Codex names in its "before using … methods" refusals, and
// what serves it.
type route struct {
	family string
	serve  func(ctx context.Context, s *session, params json.RawMessage) (json.RawMessage, error)
}

// handle makes a route's serve: decode params (absent is null, as serde sees it), refuse the
// call before the handshake ends, then do it. Codex decodes before it checks the handshake.
func handle[T any](family string, decode func([]byte) (T, error), do func(*session, context.Context, T) (wire.Message, error)) route {
	return route{family: family, serve: func(ctx context.Context, s *session, params json.RawMessage) (json.RawMessage, error) {
		if len(params) == 0 {
			params = json.RawMessage("null")
		}
		p, err := decode(params)
		if err != nil {
			return nil, paramsError(err)
		}
		if err := checkPathURIs(params); err != nil {
			return nil, err
		}
		if err := s.gate(family); err != nil {
			return nil, err
		}
		m, err := do(s, ctx, p)
		if err != nil {
			return nil, err
		}
		return execrpc.Raw(m), nil
	}}
}

// handshakeFamily is initialize's own family, which the gate lets through.
const handshakeFamily = "handshake"

// gate refuses a method before initialize, and after it until the client sent initialized.
func (s *session) gate(family string) error {
	if family == handshakeFamily {
		return nil
	}
	s.mu.Lock()
	initialized, ready := s.initialized, s.ready
	s.mu.Unlock()
	switch {
	case !initialized:
		return invalidRequest("client must call initialize before using %s methods", family)
	case !ready:
		return invalidRequest("client must send initialized before using %s methods", family)
	}
	return nil
}

// onServer and onSession adapt the two receivers of the methods to a route's do.
func onServer[T any](f func(*Server, T) (wire.Message, error)) func(*session, context.Context, T) (wire.Message, error) {
	return func(s *session, _ context.Context, p T) (wire.Message, error) { return f(s.srv, p) }
}

func onSession[T any](f func(*session, T) (wire.Message, error)) func(*session, context.Context, T) (wire.Message, error) {
	return func(s *session, _ context.Context, p T) (wire.Message, error) { return f(s, p) }
}

// routes are the methods this exec-server implements; any other is answered with Codex's
// method-not-found text.
var routes = map[string]route{
	"initialize":         handle(handshakeFamily, wire.DecodeInitializeParams, (*session).initialize),
	"environment/info":   handle("environment info", decodeUnit, onSession(environmentInfo)),
	"environment/status": handle("environment status", decodeUnit, onSession(environmentStatus)),
	"process/start":      handle("exec", wire.DecodeExecParams, onSession((*session).startProcess)),
	"process/read":       handle("exec", wire.DecodeReadParams, (*session).readProcess),
	"process/write":      handle("exec", wire.DecodeWriteParams, onSession((*session).writeProcess)),
	"process/signal":     handle("exec", wire.DecodeSignalParams, onSession((*session).signalProcess)),
	"process/terminate":  handle("exec", wire.DecodeTerminateParams, onSession((*session).terminateProcess)),
	"fs/readFile":        handle("filesystem", wire.DecodeFsReadFileParams, onServer((*Server).readFile)),
	"fs/open":            handle("filesystem", wire.DecodeFsOpenParams, onSession((*session).openFile)),
	"fs/readBlock":       handle("filesystem", wire.DecodeFsReadBlockParams, onSession((*session).readBlock)),
	"fs/close":           handle("filesystem", wire.DecodeFsCloseParams, onSession((*session).closeFile)),
	"fs/writeFile":       handle("filesystem", wire.DecodeFsWriteFileParams, onServer((*Server).writeFile)),
	"fs/createDirectory": handle("filesystem", wire.DecodeFsCreateDirectoryParams, onServer((*Server).createDirectory)),
	"fs/getMetadata":     handle("filesystem", wire.DecodeFsGetMetadataParams, onServer((*Server).getMetadata)),
	"fs/canonicalize":    handle("filesystem", wire.DecodeFsCanonicalizeParams, onServer((*Server).canonicalize)),
	"fs/readDirectory":   handle("filesystem", wire.DecodeFsReadDirectoryParams, onServer((*Server).readDirectory)),
	"fs/remove":          handle("filesystem", wire.DecodeFsRemoveParams, onServer((*Server).remove)),
	"fs/copy":            handle("filesystem", wire.DecodeFsCopyParams, onServer((*Server).copy)),
}

// HandleRequest dispatches a request by method (Codex's order: the method, then its params, then
// the handshake state).
func (s *session) HandleRequest(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	r, ok := routes[method]
	if !ok {
		return nil, execrpc.Errorf(execrpc.CodeMethodNotFound, "exec-server stub does not implement `%s` yet", method)
	}
	return r.serve(ctx, s, params)
}

func environmentInfo(*session, unit) (wire.Message, error) { return LocalEnvironmentInfo(), nil }

func environmentStatus(*session, unit) (wire.Message, error) {
	return wire.EnvironmentStatusResponse{Status: "ready"}, nil
}

// initialize answers the handshake once per connection, with the environment's description.
func (s *session) initialize(_ context.Context, _ wire.InitializeParams) (wire.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initialized {
		return nil, invalidRequest("initialize may only be sent once per connection")
	}
	s.initialized = true
	info := LocalEnvironmentInfo()
	return wire.InitializeResponse{SessionId: uuid.NewString(), EnvironmentInfo: &info}, nil
}

// LocalEnvironmentInfo describes this process's environment in the members a client reads to know
// where its commands run (docs/protocol/exec-server.md#methods): the user's login shell, the
// executor's version and provider id, the working directory, home and temporary directory as
// file:// URIs (a relative TMPDIR resolved against the working directory), no PATH prefixes (it
// installs no helper binaries), and every capability false: this exec-server implements none of
// the optional features, so a client uses none of them.
func LocalEnvironmentInfo() wire.EnvironmentInfo {
	shell := userShell()
	info := wire.EnvironmentInfo{
		Shell:           wire.ShellInfo{Name: filepath.Base(shell), Path: shell},
		ExecutorVersion: ExecutorVersion(),
		ProviderId:      ptr(ProviderID()),
		PlatformOs:      ptr(runtime.GOOS),
		PrependPathDirs: []wire.PathUri{},
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
	info.TemporaryDirectories = []wire.PathUri{}
	if filepath.IsAbs(tmp) {
		info.TempDir = ptr(PathToURI(tmp))
	}
	return info
}

// userShell is the user's login shell: the passwd entry of this uid, which holds even where a
// service starts without $SHELL or with a stale one, else $SHELL, else /bin/sh. Codex's
// exec-server looks in that order, so a client sees the same shell from either server.
func userShell() string {
	if data, err := os.ReadFile("/etc/passwd"); err == nil {
		uid := strconv.Itoa(os.Getuid())
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Split(line, ":")
			if len(f) == 7 && f[2] == uid && filepath.IsAbs(f[6]) {
				return f[6]
			}
		}
	}
	if shell := os.Getenv("SHELL"); shell != "" {
		return shell
	}
	return "/bin/sh"
}

// ExecutorVersion is what environment/info reports: the codemode module's release version, or
// Codex's "unknown" 0.0.0 for a development build.
func ExecutorVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v, ok := strings.CutPrefix(bi.Main.Version, "v"); ok && v != "" && v[0] >= '0' && v[0] <= '9' {
			return v
		}
	}
	return "0.0.0"
}

// ProviderID identifies the machine and user behind this executor (a sha256 that stays the same
// across working directories and restarts, the scope of Codex's exec-server's id, so a client
// reads it the same from either): the digest of the host name and the user id, so two
// exec-servers of one user on one machine share it.
func ProviderID() string {
	host, _ := os.Hostname()
	sum := sha256.Sum256([]byte("codemode exec-server\x00" + host + "\x00" + strconv.Itoa(os.Getuid())))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// String describes the server for logs.
func (s *Server) String() string {
	if s.root == "" {
		return "exec-server (no root)"
	}
	return fmt.Sprintf("exec-server (root %s)", s.root)
}
