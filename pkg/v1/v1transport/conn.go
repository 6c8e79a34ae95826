package v1transport

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// Conn is one V1 connection's frame transport. ReadFrame may run concurrently with WriteFrame and
// with ReadFrame of the other lane; calls for one lane must not overlap.
type Conn interface {
	// Dual reports whether the connection has a bulk lane besides its control lane.
	Dual() bool
	// ReadFrame returns the payload of the next frame received on lane. A clean end of the
	// connection is io.EOF; a malformed frame is an error wrapping v1frame.ErrInvalidData.
	ReadFrame(lane wirev1.Lane) ([]byte, error)
	// WriteFrame writes one complete frame (v1frame.Append or v1frame.Seal) on lane.
	WriteFrame(lane wirev1.Lane, frame []byte) error
	// Close closes the connection and unblocks pending reads and writes.
	Close() error
}

// ReasonCloser is a Conn that can tell its peer why it closes (a WebSocket's close frame);
// Link.Close uses it for a failure other than io.EOF.
type ReasonCloser interface {
	CloseWithReason(err error) error
}

// ErrClosed is returned by a Conn used after Close.
var ErrClosed = errors.New("code-mode connection closed")

// streamConn is a Conn over a byte stream: stdio of a host process, or a pipe.
type streamConn struct {
	r      *v1frame.Reader
	br     *bufio.Reader
	w      io.Writer
	closer func() error
	once   sync.Once
	err    error
}

// NewStreamConn returns a single-lane Conn that reads frames from r and writes them to w. Close
// calls closer (which should close both directions, so that a blocked read returns); closer may
// be nil.
func NewStreamConn(r io.Reader, w io.Writer, closer func() error) Conn {
	br := bufio.NewReaderSize(r, 64<<10)
	return &streamConn{r: v1frame.NewReader(br), br: br, w: w, closer: closer}
}

// roomTeller is a writer that can tell how many bytes it takes now without blocking (a host's
// stdout pipe: stdio.Conn).
type roomTeller interface{ WriteRoom() (int, bool) }

// tellsRoom reports whether the stream's writer can tell its room (Link.RunsTurns).
func (c *streamConn) tellsRoom() bool {
	_, ok := c.w.(roomTeller)
	return ok
}

// canWriteNow reports whether the stream can take n bytes now without blocking (Link.TrySendNow):
// only a writer that can tell says so.
func (c *streamConn) canWriteNow(n int) bool {
	rt, ok := c.w.(roomTeller)
	if !ok {
		return false
	}
	room, ok := rt.WriteRoom()
	return ok && room >= n
}

// buffered is how many received bytes wait in the read buffer (Link.ReadAhead).
func (c *streamConn) buffered() int { return c.br.Buffered() }

func (c *streamConn) Dual() bool { return false }

func (c *streamConn) ReadFrame(lane wirev1.Lane) ([]byte, error) {
	if lane != wirev1.LaneControl {
		return nil, fmt.Errorf("a stream connection has no %s lane", lane)
	}
	return c.r.Read()
}

func (c *streamConn) WriteFrame(_ wirev1.Lane, f []byte) error {
	_, err := c.w.Write(f)
	return err
}

func (c *streamConn) Close() error {
	c.once.Do(func() {
		if c.closer != nil {
			c.err = c.closer()
		}
	})
	return c.err
}
