package v1client

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/codemodehq/codemode/pkg/internal/stdio"
	"github.com/codemodehq/codemode/pkg/v1/v1transport"
)

// DefaultProcessStartTimeout bounds spawning a process host and its handshake (Codex's 30 s,
// docs/protocol/v1.md#handshake), longer than over a WebSocket because it includes starting the
// host's process.
const DefaultProcessStartTimeout = 30 * time.Second

// Command is how to start a process host, which serves V1 on its stdin and stdout (Codex's
// `codex-code-mode-host --listen stdio`, or `codemode host`).
type Command struct {
	Path string
	Args []string
	// Env is the host's environment; nil inherits the client's.
	Env []string
}

// NewProcessProvider returns a Provider whose sessions run on a host process it spawns on
// first use and shares; a host that died is spawned again for the next session.
func NewProcessProvider(cmd Command, opts Options) *Provider {
	return newProvider(func(ctx context.Context, epoch uint64, o *Options) (*connection, error) {
		return spawn(ctx, cmd, epoch, o)
	}, opts)
}

// spawn starts the host in a process group of its own (so a kill reaches nothing else),
// forwards its stderr to the logger and negotiates on its stdio.
func spawn(ctx context.Context, cmd Command, epoch uint64, opts *Options) (*connection, error) {
	c := exec.Command(cmd.Path, cmd.Args...)
	c.Env = cmd.Env
	pipes, err := stdio.Spawn(c)
	if err != nil {
		return nil, spawnError(cmd.Path, err)
	}
	stdin, stdout, stderr := pipes.Stdin, pipes.Stdout, pipes.Stderr
	log := opts.logger()
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			log.Debug("code-mode host stderr", "line", lines.Text())
		}
	}()
	exited := make(chan error, 1)
	kill := func() {
		_ = pipes.Group.Kill()
	}
	out := &endSignallingReader{r: stdout, ended: make(chan struct{})}
	closing := make(chan struct{})
	var closeOnce sync.Once
	conn := v1transport.NewStreamConn(out, stdin, func() error {
		closeOnce.Do(func() { close(closing) })
		kill()
		_ = stdin.Close()
		return nil
	})
	go func() {
		// Wait closes the pipes, so it must not run before they were read to their end: a read
		// of stdout that met the closed pipe first would end the connection with "file already
		// closed" instead of the host's exit. When we close the connection ourselves, nobody
		// may be reading stdout any more, and the reason does not matter.
		<-logged
		select {
		case <-out.ended:
		case <-closing:
		}
		exited <- c.Wait()
	}()
	timeout := opts.HandshakeTimeout
	if timeout <= 0 {
		timeout = DefaultProcessStartTimeout
	}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	n, err := handshake(hctx, conn, false)
	if err != nil {
		_ = conn.Close()
		<-exited
		return nil, err
	}
	link := v1transport.NewLink(conn, v1transport.SideHost, newTolerantDecoder().decode)
	cn := newConnection(link, epoch, n, opts, nil)
	cn.pid = c.Process.Pid
	go func() {
		err := <-exited
		cn.fail(fmt.Errorf("code-mode host exited with status %v", exitStatus(err)))
	}()
	return cn, nil
}

// endSignallingReader closes ended when a read of r first returns an error (EOF included).
type endSignallingReader struct {
	r     io.Reader
	ended chan struct{}
	once  sync.Once
}

func (e *endSignallingReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(func() { close(e.ended) })
	}
	return n, err
}

func exitStatus(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// maxDisplayedPath bounds the host path in a spawn error; longer paths keep their tail.
const maxDisplayedPath = 512

// spawnError is Codex's text for a host that cannot be started, with the path cut to its last
// 509 bytes (on a UTF-8 boundary) after "..." when it is longer than 512 bytes.
func spawnError(path string, err error) error {
	return fmt.Errorf("failed to spawn code-mode host %s: %w", displayPath(path), err)
}

func displayPath(path string) string {
	if len(path) <= maxDisplayedPath {
		return path
	}
	start := len(path) - (maxDisplayedPath - len("..."))
	for start < len(path) && !utf8.RuneStart(path[start]) {
		start++
	}
	return "..." + path[start:]
}
