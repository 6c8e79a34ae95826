package tracing_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/codemodehq/codemode/pkg/telemetry/tracing"
)

// TestStreamDropsAClientThatFallsBehind serves a Stream on 127.0.0.1 to two real WebSocket
// clients: one reads every batch, the other reads nothing. Batches of 64 KiB are sent one at a
// time, each after the reading client got the one before, until the idle client is far more than
// StreamClientBacklog batches (and the sockets' buffers) behind: it is then dropped with 1008
// policy violation, while the reading client got every batch, as binary messages. On Close the
// reading client's connection ends with 1001 going away.
func TestStreamDropsAClientThatFallsBehind(t *testing.T) {
	stream := tracing.NewStream(nil)
	srv := httptest.NewServer(stream)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/"
	reader, idle := dial(ctx, t, url), dial(ctx, t, url)

	batch := bytes.Repeat([]byte("x"), 64<<10)
	const batches = tracing.StreamClientBacklog + 512 // 96 MiB: more than any socket buffers
	for i := range batches {
		if err := stream.Send(ctx, batch); err != nil {
			t.Fatal(err)
		}
		typ, got, err := reader.Read(ctx)
		if err != nil || typ != websocket.MessageBinary || !bytes.Equal(got, batch) {
			t.Fatalf("batch %d: a %v message of %d bytes, %v; want the binary batch", i, typ, len(got), err)
		}
	}
	var err error
	for err == nil {
		_, _, err = idle.Read(ctx)
	}
	if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Errorf("the idle client's stream ended with %v, want 1008 policy violation", err)
	}
	go stream.Close(ctx)
	if _, _, err := reader.Read(ctx); websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("at Close the reading client's stream ended with %v, want 1001 going away", err)
	}
}

// TestStreamServesOnlyTheRoot: the stream is at "/", other paths are 404.
func TestStreamServesOnlyTheRoot(t *testing.T) {
	srv := httptest.NewServer(tracing.NewStream(nil))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/v1/traces")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /v1/traces: %s, want 404", resp.Status)
	}
}

func dial(ctx context.Context, t *testing.T, url string) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(1 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return c
}
