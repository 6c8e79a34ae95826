package tracing

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"

	"github.com/coder/websocket"
)

// Stream limits: each client has room for StreamClientBacklog batches not yet written (Codex's
// host's 1,024, docs/protocol/grpc.md#tracing, so a reader that keeps up with one keeps up with the
// other), and a batch larger than MaxStreamFrameBytes is not streamed.
const (
	// StreamClientBacklog is how many batches a client may fall behind before it is dropped.
	StreamClientBacklog = 1024
	// MaxStreamFrameBytes is the largest batch written as one WebSocket message.
	MaxStreamFrameBytes = 4 << 20
)

// Stream is a Sink that streams each batch, as one binary WebSocket message holding the OTLP JSON
// export request, to every WebSocket client connected to its handler (Codex's
// --otel-trace-listen). Batches are not kept: a client sees those sent while it is connected. A
// client that falls StreamClientBacklog batches behind is dropped (its connection closed with
// 1008 policy violation), so a slow reader never holds the host back.
type Stream struct {
	log *slog.Logger

	mu      sync.Mutex
	clients map[*streamClient]struct{}
	closed  bool
	// writers counts the clients whose connections are still being written.
	writers sync.WaitGroup
}

// streamClient is one connected WebSocket client and the batches waiting for it.
type streamClient struct {
	batches chan []byte
	// dropped is closed when the client fell behind.
	dropped chan struct{}
}

var _ Sink = (*Stream)(nil)

// errStreamClosed is returned for batches sent after the stream was closed.
var errStreamClosed = errors.New("the trace stream is closed")

// NewStream returns a stream with no clients; log (nil: discarded) hears of clients connecting,
// being dropped and batches too large to stream.
func NewStream(log *slog.Logger) *Stream {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Stream{log: log, clients: map[*streamClient]struct{}{}}
}

// Send queues batch for every connected client; it never waits for one.
func (s *Stream) Send(_ context.Context, batch []byte) error {
	if len(batch) > MaxStreamFrameBytes {
		s.log.Warn("OTEL trace batch too large to stream; dropped", "bytes", len(batch), "limit", MaxStreamFrameBytes)
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errStreamClosed
	}
	for c := range s.clients {
		select {
		case c.batches <- batch:
		default:
			delete(s.clients, c)
			close(c.dropped)
			s.log.Warn("OTEL trace websocket client fell behind; dropped", "backlog", StreamClientBacklog)
		}
	}
	return nil
}

// Close refuses new clients and ends every client's connection after the batches already queued
// for it; it returns when they are written and the connections closed, or when ctx ends.
func (s *Stream) Close(ctx context.Context) {
	s.mu.Lock()
	s.closed = true
	for c := range s.clients {
		delete(s.clients, c)
		close(c.batches)
	}
	s.mu.Unlock()
	written := make(chan struct{})
	go func() {
		s.writers.Wait()
		close(written)
	}()
	select {
	case <-written:
	case <-ctx.Done():
	}
}

// ServeHTTP accepts WebSocket clients on "/" (any other path is 404) and writes them the batches
// sent while they are connected. Whatever a client sends is read and ignored.
func (s *Stream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	// The client is registered before the handshake completes, so that every batch sent after
	// its connection opened reaches it.
	c := &streamClient{batches: make(chan []byte, StreamClientBacklog), dropped: make(chan struct{})}
	if !s.add(c) {
		http.Error(w, "the host is shutting down", http.StatusServiceUnavailable)
		return
	}
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		s.remove(c)
		s.writers.Done()
		return // Accept answered the request
	}
	s.log.Info("OTEL trace websocket client connected", "remote", r.RemoteAddr)
	ctx := conn.CloseRead(r.Context())
	s.write(ctx, conn, c)
}

func (s *Stream) add(c *streamClient) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.clients[c] = struct{}{}
	s.writers.Add(1)
	return true
}

func (s *Stream) remove(c *streamClient) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.clients[c]; ok {
		delete(s.clients, c)
		close(c.batches)
	}
}

// write sends c's batches until the stream closes, the client goes away or falls behind.
func (s *Stream) write(ctx context.Context, conn *websocket.Conn, c *streamClient) {
	defer s.writers.Done()
	defer s.remove(c)
	for {
		select {
		case batch, ok := <-c.batches:
			if !ok {
				conn.Close(websocket.StatusGoingAway, "the host is shutting down")
				return
			}
			if err := conn.Write(ctx, websocket.MessageBinary, batch); err != nil {
				conn.CloseNow()
				return
			}
		case <-c.dropped:
			conn.Close(websocket.StatusPolicyViolation, "the client fell behind the trace stream")
			return
		case <-ctx.Done():
			conn.CloseNow()
			return
		}
	}
}
