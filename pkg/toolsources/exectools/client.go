// Package exectools gives cells a small typed surface on an exec-server (Codex's protocol;
// `codemode exec-server` is one), spawned over stdio or reached by WebSocket URL:
// tools.exec__run({argv, cwd?, stdin?}), tools.fs__read({path}) and tools.fs__list({path}), as a
// toolprovider.ToolSet. A tool manifest names the exec-server under "exec_server"
// (FromManifest). Cancelling a call (the cell ended, or was terminated) terminates its process.
package exectools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
	"github.com/codemodehq/codemode/pkg/execserver/execrpc"
	"github.com/codemodehq/codemode/pkg/internal/procgroup"
)

// Client is a connection to an exec-server, initialized. It answers the server's
// network/policyRequest with a denial (the default for a client that cannot ask anyone).
type Client struct {
	peer   *execrpc.Peer
	cancel context.CancelFunc
	runErr chan error
	cmd    *exec.Cmd // the spawned server, or nil

	info *wire.EnvironmentInfo // from initialize

	mu    sync.Mutex
	procs map[string]*run
	next  atomic.Int64
}

// Spawn starts argv (an exec-server speaking stdio) in dir and connects to it.
func Spawn(ctx context.Context, argv []string, dir string) (*Client, error) {
	if len(argv) == 0 {
		return nil, errors.New("exec-server command is empty")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	// A group of its own: a terminal's Ctrl-C reaches the host, which ends the exec-server's
	// processes through the protocol, not the exec-server directly.
	if err := procgroup.New(cmd).Start(); err != nil {
		return nil, fmt.Errorf("start exec-server %s: %w", argv[0], err)
	}
	c, err := connect(ctx, execrpc.NewStreamConn(out, in, in), cmd)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, err
	}
	return c, nil
}

// DialURL connects to an exec-server's WebSocket (ws://IP:PORT), sending token as a bearer
// token when it is not empty.
func DialURL(ctx context.Context, url, token string) (*Client, error) {
	var opts *websocket.DialOptions
	if token != "" {
		opts = &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}}
	}
	ws, _, err := websocket.Dial(ctx, url, opts)
	if err != nil {
		return nil, fmt.Errorf("connect to exec-server %s: %w", url, err)
	}
	return connect(ctx, execrpc.NewWebSocketConn(ws), nil)
}

func connect(ctx context.Context, conn execrpc.Conn, cmd *exec.Cmd) (*Client, error) {
	c := &Client{cmd: cmd, procs: map[string]*run{}, runErr: make(chan error, 1)}
	c.peer = execrpc.NewPeer(conn, c, nil)
	runCtx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	go func() { c.runErr <- c.peer.Run(runCtx) }()
	init, err := call(ctx, c, "initialize", execrpc.Raw(wire.InitializeParams{ClientName: "codemode"}), wire.DecodeInitializeResponse)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize exec-server: %w", err)
	}
	c.info = init.EnvironmentInfo
	if err := c.peer.Notify(ctx, "initialized", nil); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close ends the connection (the server kills the session's processes) and reaps a spawned
// server.
func (c *Client) Close() error {
	c.cancel()
	err := <-c.runErr
	c.runErr <- err // Close is idempotent
	if c.cmd != nil {
		if werr := c.cmd.Wait(); werr != nil && err == nil && !errors.Is(werr, os.ErrProcessDone) {
			var ee *exec.ExitError
			if !errors.As(werr, &ee) {
				err = werr
			}
		}
		c.cmd = nil
	}
	return err
}

// Concurrent: the server's requests are answered in order.
func (c *Client) Concurrent(string) bool { return false }

// HandleRequest answers network/policyRequest with a denial; other methods are unknown.
func (c *Client) HandleRequest(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method == "network/policyRequest" {
		if _, err := wire.DecodeNetworkPolicyRequestParams(params); err != nil {
			return nil, execrpc.InvalidParams(err)
		}
		return execrpc.Raw(wire.NetworkPolicyResponse{Decision: wire.NetworkPolicyDeny{Reason: "network access is not allowed by this exec-server client"}}), nil
	}
	return nil, execrpc.Errorf(execrpc.CodeMethodNotFound, "unknown method: %s", method)
}

// run collects one process's notifications.
type run struct {
	stdout, stderr []byte
	exitCode       int32
	closed         chan struct{}
}

// HandleNotification routes process notifications to the run they belong to.
func (c *Client) HandleNotification(_ context.Context, method string, params json.RawMessage) {
	switch method {
	case "process/output":
		n, err := wire.DecodeExecOutputDeltaNotification(params)
		if err != nil {
			return
		}
		data, _ := base64.StdEncoding.DecodeString(n.Chunk)
		c.mu.Lock()
		if r := c.procs[n.ProcessId]; r != nil {
			if n.Stream == "stderr" {
				r.stderr = append(r.stderr, data...)
			} else {
				r.stdout = append(r.stdout, data...)
			}
		}
		c.mu.Unlock()
	case "process/exited":
		if n, err := wire.DecodeExecExitedNotification(params); err == nil {
			c.mu.Lock()
			if r := c.procs[n.ProcessId]; r != nil {
				r.exitCode = n.ExitCode
			}
			c.mu.Unlock()
		}
	case "process/closed":
		if n, err := wire.DecodeExecClosedNotification(params); err == nil {
			c.mu.Lock()
			if r := c.procs[n.ProcessId]; r != nil {
				close(r.closed)
			}
			c.mu.Unlock()
		}
	}
}

// Result is a finished process.
type Result struct {
	Stdout, Stderr string
	ExitCode       int32
}

// Run starts argv in cwd (a native absolute path; "" = the server's working directory) with the
// server's environment and no stdin, and waits for the process to close. If ctx ends first, the
// process is terminated (its whole group, SIGKILL) and ctx's error returned.
func (c *Client) Run(ctx context.Context, argv []string, cwd string) (Result, error) {
	p, err := c.Start(ctx, StartOptions{Argv: argv, Cwd: cwd})
	if err != nil {
		return Result{}, err
	}
	return p.Wait(ctx)
}

// terminateBound bounds the process/terminate request sent after a call's context ended: a
// server that stopped answering must not hold the call forever (ending the connection stops
// its processes anyway).
const terminateBound = 30 * time.Second

// terminate asks the server to kill the process id (its whole group), on a context of its own:
// the caller's has ended. An unknown id (the start never arrived) is refused, which is fine.
func (c *Client) terminate(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), terminateBound)
	defer cancel()
	_, _ = call(ctx, c, "process/terminate", execrpc.Raw(wire.TerminateParams{ProcessId: id}), wire.DecodeTerminateResponse)
}

// call makes a request and decodes its result with a generated decoder.
func call[T any](ctx context.Context, c *Client, method string, params json.RawMessage, decode func([]byte) (T, error)) (T, error) {
	var zero T
	raw, err := c.peer.Call(ctx, method, params)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", method, err)
	}
	v, err := decode(raw)
	if err != nil {
		return zero, fmt.Errorf("%s: result: %w", method, err)
	}
	return v, nil
}

// ReadFile reads a file (a native absolute path).
func (c *Client) ReadFile(ctx context.Context, path string) ([]byte, error) {
	r, err := call(ctx, c, "fs/readFile", execrpc.Raw(wire.FsReadFileParams{Path: pathURI(path)}), wire.DecodeFsReadFileResponse)
	if err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.DataBase64)
}

// WriteFile writes data to a file (a native absolute path), creating or truncating it.
func (c *Client) WriteFile(ctx context.Context, path string, data []byte) error {
	_, err := call(ctx, c, "fs/writeFile", execrpc.Raw(wire.FsWriteFileParams{Path: pathURI(path), DataBase64: base64.StdEncoding.EncodeToString(data)}), wire.DecodeEmptyResponse)
	return err
}

// Info is the environment the server described in its initialize answer (nil from a server
// older than Codex 0.169, which sends none).
func (c *Client) Info() *wire.EnvironmentInfo { return c.info }

// ReadDirectory lists a directory (a native absolute path).
func (c *Client) ReadDirectory(ctx context.Context, path string) ([]wire.FsReadDirectoryEntry, error) {
	r, err := call(ctx, c, "fs/readDirectory", execrpc.Raw(wire.FsReadDirectoryParams{Path: pathURI(path)}), wire.DecodeFsReadDirectoryResponse)
	return r.Entries, err
}

// pathURI renders a native absolute path as a file:// URI.
func pathURI(p string) wire.PathUri {
	return wire.PathUri((&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String())
}

// uriPath parses a file:// URI into a native path.
func uriPath(u wire.PathUri) (string, error) {
	parsed, err := url.Parse(string(u))
	if err != nil || parsed.Scheme != "file" {
		return "", fmt.Errorf("not a file URI: %s", u)
	}
	return filepath.FromSlash(parsed.Path), nil
}
