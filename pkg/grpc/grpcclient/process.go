package grpcclient

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"sync"

	"github.com/codemodehq/codemode/pkg/internal/stdio"
)

// GRPCStdioListen is the --listen value that makes a host serve gRPC on its standard streams;
// NewProcess appends it to the command's arguments, because a host spawned without it serves
// Protocol V1 on its standard streams (docs/protocol/grpc.md#spawned-hosts).
const GRPCStdioListen = "grpc+stdio://"

// processAuthority is the :authority of requests to a process host, the one Codex's client sends
// (docs/protocol/grpc.md#spawned-hosts): a pipe has no host name to put there.
const processAuthority = "code-mode-host"

// Command is how to start a process host that serves gRPC on its stdin and stdout:
// `codex-code-mode-host --listen grpc+stdio://` (Codex's own) or `codemode-host --listen
// grpc+stdio://`.
type Command struct {
	// Path is the host executable.
	Path string
	// Args come before "--listen grpc+stdio://".
	Args []string
	// Dir is the host's working directory ("" is the client's).
	Dir string
	// Env is the host's environment; nil inherits the client's.
	Env []string
	// Stderr receives the host's standard error, line by line; nil discards it.
	Stderr io.Writer
}

// NewProcess returns a Provider whose sessions run on a host process it spawns on first use
// and shares, speaking gRPC over the process's standard streams (HTTP/2 with prior knowledge).
// A host that exited is spawned again by the next request: sessions of the lost host reconnect
// as they do to a restarted remote host (their next lease is the next epoch). Close closes
// the host's stdin, which makes it close its sessions and exit.
func NewProcess(cmd Command, opts Options) *Provider {
	return NewOverConn(func() (net.Conn, error) { return startHostProcess(cmd) }, opts)
}

// NewOverConn returns a Provider whose requests all travel over one HTTP/2 connection with prior
// knowledge on a connection that dial opens: a pipe, a spawned host's standard streams, a tunnel.
// dial is called for the first request, and again for the next request after the connection
// ended (nothing is replayed: sessions reconnect as to a restarted host). Close closes the
// connection.
func NewOverConn(dial func() (net.Conn, error), opts Options) *Provider {
	e := endpoint{baseURL: "http://" + processAuthority}
	ct := newConnTripper(dial)
	return &Provider{endpoint: e, transport: newTransportOver(e, ct, ct.close, opts), opts: opts}
}

// connTripper sends every request over the one HTTP/2 connection it holds, and dials a new one
// when there is none or it went away.
type connTripper struct {
	h2 *http.Transport

	mu   sync.Mutex
	cc   *http.ClientConn
	shut bool
}

// newConnTripper returns a connTripper whose connections dial opens. Requests beyond the
// peer's stream limit wait on the one connection: a second connection would be a second host.
func newConnTripper(dial func() (net.Conn, error)) *connTripper {
	protocols := new(http.Protocols)
	protocols.SetUnencryptedHTTP2(true)
	return &connTripper{h2: &http.Transport{
		Protocols:   protocols,
		HTTP2:       &http.HTTP2Config{StrictMaxConcurrentRequests: true},
		DialContext: func(context.Context, string, string) (net.Conn, error) { return dial() },
	}}
}

// errConnClosed fails requests after Close.
var errConnClosed = errors.New("gRPC code-mode connection is closed")

// RoundTrip sends r over the current connection, dialling it first if needed.
func (t *connTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	cc, err := t.current(r.Context())
	if err != nil {
		return nil, err
	}
	return cc.RoundTrip(r)
}

// current returns the live connection, or dials one.
func (t *connTripper) current(ctx context.Context) (*http.ClientConn, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.shut {
		return nil, errConnClosed
	}
	if t.cc != nil && t.cc.Err() == nil {
		return t.cc, nil
	}
	if t.cc != nil {
		_ = t.cc.Close()
	}
	cc, err := t.h2.NewClientConn(context.WithoutCancel(ctx), "http", processAuthority+":80")
	if err != nil {
		return nil, fmt.Errorf("gRPC code-mode connection: %w", err)
	}
	t.cc = cc
	return cc, nil
}

// close closes the connection and refuses new requests.
func (t *connTripper) close() {
	t.mu.Lock()
	cc := t.cc
	t.shut, t.cc = true, nil
	t.mu.Unlock()
	if cc != nil {
		_ = cc.Close()
	}
}

// hostProcess is one spawned host: a net.Conn over its standard streams. Closing it closes
// the host's stdin (the host then closes its sessions and exits 0); the process is reaped in the
// background.
type hostProcess struct {
	*stdio.Conn
	cmd *exec.Cmd
}

// startHostProcess spawns cmd with --listen grpc+stdio:// in a process group of its own (so a
// kill reaches nothing else) and returns the connection over its stdio.
func startHostProcess(cmd Command) (*hostProcess, error) {
	c := exec.Command(cmd.Path, append(append([]string(nil), cmd.Args...), "--listen", GRPCStdioListen)...)
	c.Dir, c.Env = cmd.Dir, cmd.Env
	pipes, err := stdio.Spawn(c)
	if err != nil {
		return nil, spawnError(cmd.Path, err)
	}
	logged := make(chan struct{})
	go copyLines(cmd.Stderr, pipes.Stderr, logged)
	go func() {
		// Wait closes the pipes: only once stderr has been read to its end.
		<-logged
		_ = c.Wait()
	}()
	return &hostProcess{Conn: stdio.NewConn(pipes.Stdout, pipes.Stdin), cmd: c}, nil
}

// copyLines copies r to w line by line (w nil: discards), then closes done.
func copyLines(w io.Writer, r io.Reader, done chan<- struct{}) {
	defer close(done)
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 0, 4096), 1<<20)
	for lines.Scan() {
		if w != nil {
			fmt.Fprintln(w, lines.Text())
		}
	}
	_, _ = io.Copy(io.Discard, r)
}

// spawnError is Codex's text for a host that cannot be started.
func spawnError(path string, err error) error {
	return fmt.Errorf("failed to spawn code-mode host %s: %w", path, err)
}
