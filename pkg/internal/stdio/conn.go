package stdio

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// Conn is a net.Conn over a process's standard streams: reads come from stdin, writes go to
// stdout. Closing it closes both, once.
type Conn struct {
	in      io.ReadCloser
	out     io.WriteCloser
	restore func()
	once    sync.Once
	// pipeCapacity is stdout's capacity as a pipe, read once by WriteRoom, which only the
	// connection's writer calls, under its lock (0: not read yet, -1: not a pipe).
	pipeCapacity int
	err          error
}

// NewConn returns the connection over stdin and stdout. A blocking stdin pipe is read through
// Pollable, and its blocking mode is restored when the connection closes.
func NewConn(stdin io.ReadCloser, stdout io.WriteCloser) *Conn {
	in, restore := Pollable(stdin)
	return &Conn{in: in, out: stdout, restore: func() {
		restore()
		_ = stdin.Close()
	}}
}

// Read reads from stdin.
func (c *Conn) Read(p []byte) (int, error) { return c.in.Read(p) }

// Write writes to stdout.
func (c *Conn) Write(p []byte) (int, error) { return c.out.Write(p) }

// WriteRoom reports how many bytes a write to stdout can take now without blocking, when stdout
// is a pipe (Linux); ok is false when that cannot be told. Only the connection's writer writes to
// stdout and the peer only drains it, so the room can only grow until the next write.
func (c *Conn) WriteRoom() (room int, ok bool) { return pipeRoom(c.out, &c.pipeCapacity) }

// Close closes stdin and stdout; later calls return the first call's result.
func (c *Conn) Close() error {
	c.once.Do(func() {
		c.restore()
		c.err = c.out.Close()
	})
	return c.err
}

// Addr is the address of either end: the standard streams.
type Addr struct{}

// Network names the transport.
func (Addr) Network() string { return "stdio" }

// String names the address.
func (Addr) String() string { return "stdio" }

// LocalAddr returns Addr.
func (c *Conn) LocalAddr() net.Addr { return Addr{} }

// RemoteAddr returns Addr.
func (c *Conn) RemoteAddr() net.Addr { return Addr{} }

// deadliner is a stream with deadlines (an *os.File on the poller has them).
type deadliner interface {
	SetReadDeadline(time.Time) error
	SetWriteDeadline(time.Time) error
}

// SetDeadline sets both deadlines where the streams support them.
func (c *Conn) SetDeadline(t time.Time) error {
	return errors.Join(c.SetReadDeadline(t), c.SetWriteDeadline(t))
}

// SetReadDeadline sets stdin's read deadline if it supports one, and does nothing otherwise
// (a stream without deadlines only ends at EOF or when closed).
func (c *Conn) SetReadDeadline(t time.Time) error {
	if d, ok := c.in.(deadliner); ok {
		_ = d.SetReadDeadline(t)
	}
	return nil
}

// SetWriteDeadline sets stdout's write deadline if it supports one, and does nothing otherwise.
func (c *Conn) SetWriteDeadline(t time.Time) error {
	if d, ok := c.out.(deadliner); ok {
		_ = d.SetWriteDeadline(t)
	}
	return nil
}
