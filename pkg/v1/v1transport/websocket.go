package v1transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// PrepareWebSocket applies V1's message limit to a WebSocket: messages up to one frame of 64 MiB
// with its 4-byte prefix. Call it on every socket of a connection before reading.
func PrepareWebSocket(ws *websocket.Conn) {
	ws.SetReadLimit(v1frame.MaxMessageBytes)
}

// wsConn is a Conn over one WebSocket (single) or two (dual: control and bulk).
type wsConn struct {
	ctx    context.Context
	cancel context.CancelFunc
	lanes  [3]*websocket.Conn // indexed by wirev1.Lane; [LaneBulk] is nil on a single connection
	once   sync.Once
}

// NewWebSocketConn returns a single-lane Conn over ws.
func NewWebSocketConn(ws *websocket.Conn) Conn {
	return newWSConn(ws, nil)
}

// NewDualWebSocketConn returns a dual Conn over a paired control and bulk socket.
func NewDualWebSocketConn(control, bulk *websocket.Conn) Conn {
	return newWSConn(control, bulk)
}

func newWSConn(control, bulk *websocket.Conn) *wsConn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &wsConn{ctx: ctx, cancel: cancel}
	c.lanes[wirev1.LaneControl] = control
	c.lanes[wirev1.LaneBulk] = bulk
	for _, ws := range c.lanes {
		if ws != nil {
			PrepareWebSocket(ws)
		}
	}
	return c
}

func (c *wsConn) Dual() bool { return c.lanes[wirev1.LaneBulk] != nil }

func (c *wsConn) socket(lane wirev1.Lane) (*websocket.Conn, error) {
	if int(lane) >= len(c.lanes) || c.lanes[lane] == nil {
		return nil, fmt.Errorf("the connection has no %s lane", lane)
	}
	return c.lanes[lane], nil
}

// ReadFrame reads one WebSocket message as one frame. Ping and pong are answered by the
// library and never surface; a close is the end of the connection.
func (c *wsConn) ReadFrame(lane wirev1.Lane) ([]byte, error) {
	ws, err := c.socket(lane)
	if err != nil {
		return nil, err
	}
	return ReadWebSocketFrame(c.ctx, ws)
}

// ReadWebSocketFrame reads one message from ws and decodes it as one complete frame with the
// message decoder. A text message is refused with v1frame.ErrTextMessage; a close by the peer
// (or a connection that ended between messages) is io.EOF.
func ReadWebSocketFrame(ctx context.Context, ws *websocket.Conn) ([]byte, error) {
	typ, msg, err := ws.Read(ctx)
	if err != nil {
		return nil, webSocketReadError(err)
	}
	if typ != websocket.MessageBinary {
		return nil, v1frame.ErrTextMessage
	}
	return v1frame.Decode(msg)
}

func webSocketReadError(err error) error {
	switch websocket.CloseStatus(err) {
	case websocket.StatusNormalClosure, websocket.StatusGoingAway, websocket.StatusNoStatusRcvd:
		return io.EOF
	}
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		return io.EOF
	}
	return err
}

func (c *wsConn) WriteFrame(lane wirev1.Lane, f []byte) error {
	ws, err := c.socket(lane)
	if err != nil {
		return err
	}
	return ws.Write(c.ctx, websocket.MessageBinary, f)
}

// CloseWithReason ends both sockets with a close frame that says why (a protocol error, a text
// message, a frame that does not decode: the peer's own fault, which it should be told rather than
// see the connection drop). It does not wait: the close handshakes finish on their own goroutine,
// bounded by the library's close timeout, and the sockets' context ends after them.
func (c *wsConn) CloseWithReason(err error) error {
	c.once.Do(func() {
		status, reason := closeStatus(err)
		var handshakes sync.WaitGroup
		for _, ws := range c.lanes {
			if ws != nil {
				handshakes.Go(func() { _ = ws.Close(status, reason) })
			}
		}
		go func() {
			handshakes.Wait()
			c.cancel()
		}()
	})
	return nil
}

// closeStatus is the WebSocket close status and reason for a connection that failed with err.
func closeStatus(err error) (websocket.StatusCode, string) {
	status := websocket.StatusProtocolError
	switch {
	case errors.Is(err, v1frame.ErrTextMessage):
		status = websocket.StatusUnsupportedData
	case errors.Is(err, v1frame.ErrInvalidData):
		status = websocket.StatusInvalidFramePayloadData
	}
	return status, closeReason(err.Error())
}

// closeReason cuts text to what a close frame carries (123 bytes), at a character boundary.
func closeReason(text string) string {
	const max = 123
	if len(text) <= max {
		return text
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut]
}

// Close ends both sockets at once. It does not wait for the peer's close handshake: a driver
// closes a connection when it is done with it or when the peer failed it.
func (c *wsConn) Close() error {
	c.once.Do(func() {
		c.cancel()
		for _, ws := range c.lanes {
			if ws != nil {
				_ = ws.CloseNow()
			}
		}
	})
	return nil
}
