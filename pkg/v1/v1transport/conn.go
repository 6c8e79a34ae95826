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
	w      io.Writer
	closer func() error
	once   sync.Once
	err    error
}

// NewStreamConn returns a single-lane Conn that reads frames from r and writes them to w. Close
// calls closer (which should close both directions, so that a blocked read returns); closer may
// be nil.
func NewStreamConn(r io.Reader, w io.Writer, closer func() error) Conn {
	return &streamConn{r: v1frame.NewReader(bufio.NewReaderSize(r, 64<<10)), w: w, closer: closer}
}

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
