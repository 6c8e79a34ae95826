package main_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Every test here runs the real codemode-host binary, built once by TestMain, as a separate
// process on real pipes and 127.0.0.1 sockets.

// bin is the built codemode-host.
var bin string

// waitLimit bounds waits for events that must happen; it never asserts speed (a hang fails with
// a message instead of the test binary's timeout).
const waitLimit = 5 * time.Minute

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "codemode-host-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "codemode-host")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// hostProcess is a running codemode-host.
type hostProcess struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	// rawStdout is the read end of the process's stdout, under stdout.
	rawStdout io.ReadCloser
	// stderrLines receives the process's stderr, line by line, until it closes.
	stderrLines chan string
	stderrMu    sync.Mutex
	stderr      strings.Builder
	exited      chan struct{}
	waitErr     error
}

// startHost starts codemode-host with args (and env added to the test's environment). The
// process is killed at cleanup if it is still running.
func startHost(t *testing.T, env []string, args ...string) *hostProcess {
	t.Helper()
	return startProcess(t, bin, env, args...)
}

// startProcess starts the host at path (codemode-host or Codex's) as startHost does.
func startProcess(t testing.TB, path string, env []string, args ...string) *hostProcess {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	return startCmd(t, cmd)
}

// startCmd starts cmd (not started yet) with its standard streams as pipes, as startHost does.
func startCmd(t testing.TB, cmd *exec.Cmd) *hostProcess {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &hostProcess{t: t, cmd: cmd, stdin: stdin, stdout: bufio.NewReader(stdout), rawStdout: stdout, stderrLines: make(chan string, 1024), exited: make(chan struct{})}
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		defer close(h.stderrLines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			h.stderrMu.Lock()
			h.stderr.WriteString(sc.Text() + "\n")
			h.stderrMu.Unlock()
			select {
			case h.stderrLines <- sc.Text():
			default:
			}
		}
	}()
	go func() {
		<-stderrDone
		h.waitErr = cmd.Wait()
		close(h.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-h.exited:
		default:
			_ = cmd.Process.Kill()
			<-h.exited
		}
		if t.Failed() {
			t.Logf("codemode-host stderr:\n%s", h.stderrText())
		}
	})
	return h
}

func (h *hostProcess) stderrText() string {
	h.stderrMu.Lock()
	defer h.stderrMu.Unlock()
	return h.stderr.String()
}

// addresses reads n address lines from stdout.
func (h *hostProcess) addresses(n int) []string {
	h.t.Helper()
	var out []string
	for range n {
		line, err := h.stdout.ReadString('\n')
		if err != nil {
			h.t.Fatalf("codemode-host printed %q, then: %v\nstderr:\n%s", out, err, h.stderrText())
		}
		out = append(out, strings.TrimSuffix(line, "\n"))
	}
	return out
}

// signal sends sig to the process.
func (h *hostProcess) signal(sig syscall.Signal) {
	h.t.Helper()
	if err := h.cmd.Process.Signal(sig); err != nil {
		h.t.Fatalf("signal %v: %v", sig, err)
	}
}

// awaitStderr waits for a stderr line containing s.
func (h *hostProcess) awaitStderr(s string) {
	h.t.Helper()
	h.awaitStderrLine(fmt.Sprintf("containing %q", s), func(line string) bool { return strings.Contains(line, s) })
}

// awaitStderrLine waits for a stderr line that match accepts (what describes it) and returns it.
func (h *hostProcess) awaitStderrLine(what string, match func(string) bool) string {
	h.t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case line, ok := <-h.stderrLines:
			if !ok {
				h.t.Fatalf("codemode-host's stderr ended without a line %s", what)
			}
			if match(line) {
				return line
			}
		case <-deadline:
			h.t.Fatalf("codemode-host did not print a line %s", what)
		}
	}
}

// exitCode waits for the process to exit and returns its status (-1 when a signal killed it).
func (h *hostProcess) exitCode() int {
	h.t.Helper()
	select {
	case <-h.exited:
	case <-time.After(waitLimit):
		h.t.Fatal("codemode-host did not exit")
	}
	if h.waitErr == nil {
		return 0
	}
	if ee, ok := h.waitErr.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	h.t.Fatalf("waiting for codemode-host: %v", h.waitErr)
	return -1
}

// stderrLineWithPrefix waits for a stderr line that starts with prefix and returns it (the
// addresses go to stderr when stdout carries a connection).
func (h *hostProcess) stderrLineWithPrefix(prefix string) string {
	h.t.Helper()
	return h.awaitStderrLine(fmt.Sprintf("starting %q", prefix), func(line string) bool { return strings.HasPrefix(line, prefix) })
}

// pipeConn is a net.Conn over a process's stdout (read) and stdin (write); Close closes both,
// as a client that goes away does.
type pipeConn struct {
	io.ReadCloser
	io.WriteCloser
}

// Close closes both pipes.
func (c *pipeConn) Close() error {
	err := c.WriteCloser.Close()
	_ = c.ReadCloser.Close()
	return err
}

func (c *pipeConn) LocalAddr() net.Addr              { return pipeAddr{} }
func (c *pipeConn) RemoteAddr() net.Addr             { return pipeAddr{} }
func (c *pipeConn) SetDeadline(time.Time) error      { return nil }
func (c *pipeConn) SetReadDeadline(time.Time) error  { return nil }
func (c *pipeConn) SetWriteDeadline(time.Time) error { return nil }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
