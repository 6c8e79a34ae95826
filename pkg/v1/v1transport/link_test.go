package v1transport_test

import (
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
	"github.com/codemodehq/codemode/pkg/v1/v1transport"
)

// The malformed inputs of Codex's codec test, as a peer would send them.
var malformedFrames = []struct {
	name  string
	frame []byte
	want  string
}{
	// The header alone: the length is refused before any payload byte is read.
	{"length_above_64_mib", binary.LittleEndian.AppendUint32(nil, v1frame.MaxFrameBytes+1), "code-mode IPC frame length 67108865 exceeds 67108864 bytes"},
	{"payload_that_is_not_json", []byte{1, 0, 0, 0, '{'}, "failed to decode code-mode IPC frame: EOF while parsing an object at line 1 column 1"},
}

// TestOversizedAndMalformedFramesAreRejected is Codex's oversized_and_malformed_frames_are_rejected:
// a declared length of 64 MiB + 1 and a payload `{` are both invalid data, on a byte stream (a
// real pipe) and on a WebSocket (a real socket on 127.0.0.1). Framing and JSON decoding are
// separate layers here (package v1frame, then the Link), so the test reads through a Link, where
// both errors surface.
func TestOversizedAndMalformedFramesAreRejected(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, c := range malformedFrames {
		t.Run("stream_"+c.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			conn := v1transport.NewStreamConn(r, w, r.Close)
			link := v1transport.NewLink(conn, v1transport.SideClient, wirev1.DecodeClientToHost)
			if _, err := w.Write(c.frame); err != nil {
				t.Fatal(err)
			}
			_, err = link.Next(context.Background())
			checkInvalidData(t, err, c.want)
			link.Close(err)
			link.Wait()
		})
		t.Run("websocket_"+c.name, func(t *testing.T) {
			received := make(chan error, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
				ws, err := websocket.Accept(rw, req, nil)
				if err != nil {
					received <- err
					return
				}
				link := v1transport.NewLink(v1transport.NewWebSocketConn(ws), v1transport.SideClient, wirev1.DecodeClientToHost)
				_, err = link.Next(req.Context())
				link.Close(err)
				link.Wait()
				received <- err
			}))
			defer srv.Close()
			ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.CloseNow()
			if err := ws.Write(context.Background(), websocket.MessageBinary, c.frame); err != nil {
				t.Fatal(err)
			}
			checkInvalidData(t, <-received, c.want)
		})
	}
}

func checkInvalidData(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || err.Error() != want || !errors.Is(err, v1frame.ErrInvalidData) {
		t.Fatalf("err = %v (invalid data: %v), want invalid data %q", err, errors.Is(err, v1frame.ErrInvalidData), want)
	}
}
