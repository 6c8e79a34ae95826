//go:build unix

package nodelay_test

import (
	"errors"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/codemodehq/codemode/pkg/internal/nodelay"
)

// A connection accepted with Nagle's algorithm on (as a plain socket has it) comes out of
// Listener with TCP_NODELAY set, as the kernel reports it.
func TestListenerSetsTCPNoDelay(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err == nil {
			defer c.Close()
			_, _ = io.Copy(io.Discard, c)
		}
	}()
	c, err := nodelay.Listener(nagleListener{ln.(*net.TCPListener)}).Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var nodelay int
	var sockErr error
	if err := raw.Control(func(fd uintptr) {
		nodelay, sockErr = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_NODELAY)
	}); err != nil {
		t.Fatal(err)
	}
	if sockErr != nil || nodelay == 0 {
		t.Fatalf("TCP_NODELAY = %d, %v", nodelay, sockErr)
	}
}

// nagleListener accepts with Nagle's algorithm left on, so the test sees Listener set it.
type nagleListener struct{ *net.TCPListener }

func (l nagleListener) Accept() (net.Conn, error) {
	c, err := l.AcceptTCP()
	if err != nil {
		return nil, err
	}
	if err := c.SetNoDelay(false); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// A listener's own failure passes through unchanged.
func TestListenerPassesAcceptErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	wrapped := nodelay.Listener(ln)
	_ = ln.Close()
	if _, err := wrapped.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept on a closed listener: %v", err)
	}
}
