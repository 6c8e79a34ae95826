package mcptools

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemodehq/codemode/pkg/internal/procgroup"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

const (
	// stopGrace is how long a stdio server may take to exit after its stdin was closed before
	// its process group is killed.
	stopGrace = 2 * time.Second
	// waitDelay bounds how long an exited server's stderr may stay open: a process that left
	// the group and kept it open must not hold a stop forever.
	waitDelay = 2 * time.Second
	// stderrTailBytes is how much of a server's stderr is kept for error texts: the last lines
	// say why it exited.
	stderrTailBytes = 2048
)

// errMessageTooLarge ends a stdio connection whose server sent a line longer than its
// max_result_bytes.
var errMessageTooLarge = errors.New("message larger than max_result_bytes")

// process is a stdio server's process: its pipes, its exit and the end of its stderr.
type process struct {
	cmd    *exec.Cmd
	group  *procgroup.Group // kills the server with what it started
	stdin  *os.File         // the write end; the server reads the other
	stdout *lineLimiter     // over the read end
	stderr *tailBuffer
	// exited is closed once the process has exited and waitErr is set.
	exited  chan struct{}
	waitErr error
	once    sync.Once
}

// startProcess starts a stdio server in a process group of its own, with exactly the
// environment the manifest gives it.
func startProcess(spec toolprovider.MCPServer, stderrCopy io.Writer) (*process, error) {
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		stdinR.Close()
		stdinW.Close()
		return nil, err
	}
	p := &process{
		stdin:  stdinW,
		stdout: &lineLimiter{r: stdoutR, limit: spec.MaxResultBytes},
		stderr: &tailBuffer{limit: stderrTailBytes},
		exited: make(chan struct{}),
	}
	cmd := exec.Command(spec.Program, spec.Args...)
	cmd.Dir, cmd.Env = spec.Dir, spec.Env
	cmd.Stdin, cmd.Stdout = stdinR, stdoutW
	cmd.Stderr = p.stderr
	if stderrCopy != nil {
		cmd.Stderr = io.MultiWriter(p.stderr, stderrCopy)
	}
	cmd.WaitDelay = waitDelay
	p.cmd, p.group = cmd, procgroup.New(cmd)
	err = p.group.Start()
	// The child has its own copies of these ends; ours would keep the pipes open after it
	// exited.
	stdinR.Close()
	stdoutW.Close()
	if err != nil {
		stdinW.Close()
		stdoutR.Close()
		return nil, fmt.Errorf("could not run %s: %w", spec.Program, err)
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// stop closes the server's stdin, which tells an MCP server to exit, and kills its process
// group if it has not exited after stopGrace. It returns once the process has exited.
func (p *process) stop() {
	p.once.Do(func() {
		_ = p.stdin.Close()
		timer := time.NewTimer(stopGrace)
		defer timer.Stop()
		select {
		case <-p.exited:
		case <-timer.C:
			_ = p.group.Kill()
			<-p.exited
		}
		_ = p.stdout.Close()
	})
	<-p.exited
}

// exitText says how the process ended ("exit status 3", "signal: killed"); only once exited.
func (p *process) exitText() string {
	<-p.exited
	if p.waitErr == nil {
		return "exit status 0"
	}
	var exit *exec.ExitError
	if errors.As(p.waitErr, &exit) {
		return exit.String()
	}
	return p.waitErr.Error()
}

// lineLimiter reads a stdio server's stdout, where every message is one line, and fails the
// read that would make a line longer than limit, so one message never takes more than limit
// bytes of memory.
type lineLimiter struct {
	r        io.ReadCloser
	limit    int
	line     int // bytes of the current line so far
	exceeded atomic.Bool
}

// Read implements io.Reader.
func (l *lineLimiter) Read(p []byte) (int, error) {
	if l.exceeded.Load() {
		return 0, errMessageTooLarge
	}
	n, err := l.r.Read(p)
	rest := p[:n]
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			l.line += len(rest)
			break
		}
		if l.line+i > l.limit {
			l.line += i
			break
		}
		l.line, rest = 0, rest[i+1:]
	}
	if l.line > l.limit {
		l.exceeded.Store(true)
		return 0, errMessageTooLarge
	}
	return n, err
}

// Close closes the pipe.
func (l *lineLimiter) Close() error { return l.r.Close() }

// tailBuffer keeps the last limit bytes written to it. It is safe for concurrent use.
type tailBuffer struct {
	mu    sync.Mutex
	limit int
	buf   []byte
}

// Write implements io.Writer; it never fails.
func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.limit {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.limit:]...)
	}
	return len(p), nil
}

// String returns the kept text, trimmed, as valid UTF-8 (it ends up in a JSON string).
func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(string(b.buf), ""))
}
