package execrpc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/coder/websocket"
)

// MaxMessageBytes bounds one message on either transport (64 MiB); the value budget bounds what
// a message may make the decoder build.
const MaxMessageBytes = 64 << 20

// Conn carries whole messages. ReadMessage returns io.EOF when the peer ended the connection
// cleanly; WriteMessage is called by one goroutine at a time.
type Conn interface {
	ReadMessage(ctx context.Context) ([]byte, error)
	WriteMessage(ctx context.Context, msg []byte) error
	Close() error
}

// streamConn is newline-delimited JSON over a byte stream (the stdio transport).
type streamConn struct {
	r      *bufio.Reader
	w      io.Writer
	closer io.Closer
	once   sync.Once
}

// NewStreamConn makes a Conn of newline-delimited JSON: one message per line, blank lines
// skipped. closer (may be nil) is closed by Close, which should unblock a pending read.
func NewStreamConn(r io.Reader, w io.Writer, closer io.Closer) Conn {
	return &streamConn{r: bufio.NewReaderSize(r, 64<<10), w: w, closer: closer}
}

func (c *streamConn) ReadMessage(context.Context) ([]byte, error) {
	for {
		var line []byte
		for {
			chunk, err := c.r.ReadSlice('\n')
			if len(line)+len(chunk) > MaxMessageBytes {
				return nil, fmt.Errorf("JSON-RPC message longer than %d bytes", MaxMessageBytes)
			}
			line = append(line, chunk...)
			if err == nil {
				break
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if errors.Is(err, io.EOF) && len(bytes.TrimSpace(line)) > 0 {
				return line, nil
			}
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return trimLineEnd(line), nil
		}
	}
}

// trimLineEnd drops the line's "\n" or "\r\n", which frame the message and are not part of it
// (docs/protocol/exec-server.md#transport), so a parse error's position counts within the line
// ("EOF while parsing an object at line 1 column 1"): the text a client gets from Codex's
// exec-server for the same line (docs/exec-server.md).
func trimLineEnd(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

func (c *streamConn) WriteMessage(_ context.Context, msg []byte) error {
	buf := make([]byte, 0, len(msg)+1)
	buf = append(append(buf, msg...), '\n')
	_, err := c.w.Write(buf)
	return err
}

func (c *streamConn) Close() error {
	var err error
	c.once.Do(func() {
		if c.closer != nil {
			err = c.closer.Close()
		}
	})
	return err
}

// wsConn is one message per WebSocket text frame (binary frames are read too).
type wsConn struct{ ws *websocket.Conn }

// NewWebSocketConn makes a Conn of a WebSocket connection.
func NewWebSocketConn(ws *websocket.Conn) Conn {
	ws.SetReadLimit(MaxMessageBytes)
	return &wsConn{ws: ws}
}

func (c *wsConn) ReadMessage(ctx context.Context) ([]byte, error) {
	_, data, err := c.ws.Read(ctx)
	if err != nil {
		if s := websocket.CloseStatus(err); s == websocket.StatusNormalClosure || s == websocket.StatusGoingAway {
			return nil, io.EOF
		}
		return nil, err
	}
	return data, nil
}

func (c *wsConn) WriteMessage(ctx context.Context, msg []byte) error {
	return c.ws.Write(ctx, websocket.MessageText, msg)
}

func (c *wsConn) Close() error { return c.ws.Close(websocket.StatusNormalClosure, "") }
