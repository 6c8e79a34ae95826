package v1transport_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
	"github.com/codemodehq/codemode/pkg/v1/v1transport"
)

// pipeLink is a host's link over a pipe, whose write end (closed at cleanup) plays the client.
func pipeLink(t *testing.T) (*v1transport.Link[wirev1.ClientToHost], *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return v1transport.NewLink(v1transport.NewStreamConn(r, w, r.Close), v1transport.SideClient, wirev1.DecodeClientToHost), w
}

// cancelFrame is an operation/cancel for id, as one complete frame.
func cancelFrame(t *testing.T, id int64) []byte {
	t.Helper()
	f, err := v1transport.Encode(wirev1.OperationCancel{Id: wirev1.RequestId(id)})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func cancelID(t *testing.T, m wirev1.ClientToHost) int64 {
	t.Helper()
	c, ok := m.(wirev1.OperationCancel)
	if !ok {
		t.Fatalf("got %T, want operation/cancel", m)
	}
	return int64(c.Id)
}

// TestServeHandlesStreamMessagesInOrder: on a single connection Serve's handler runs on the
// reader goroutine; messages that arrive together (one write holding many frames) are handled
// one at a time in their order, and a handler's error ends Serve with that error, after which
// the handler is never called again.
func TestServeHandlesStreamMessagesInOrder(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	link, w := pipeLink(t)
	const n = 200
	var batch []byte
	for i := 1; i <= n+5; i++ {
		batch = append(batch, cancelFrame(t, int64(i))...)
	}
	if _, err := w.Write(batch); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	var got []int64
	var running, after atomic.Int32
	var returned atomic.Bool
	err := link.Serve(context.Background(), func(m wirev1.ClientToHost) error {
		if returned.Load() {
			after.Add(1)
		}
		if running.Add(1) != 1 {
			t.Error("two handlers ran at once")
		}
		defer running.Add(-1)
		got = append(got, cancelID(t, m))
		if len(got) == n {
			return stop
		}
		return nil
	})
	returned.Store(true)
	if err != stop {
		t.Fatalf("Serve returned %v, want the handler's error", err)
	}
	for i, id := range got {
		if id != int64(i+1) {
			t.Fatalf("message %d has id %d: out of order (%v)", i, id, got)
		}
	}
	link.Close(io.EOF)
	link.Wait()
	if after.Load() != 0 {
		t.Fatal("the handler was called after Serve returned")
	}
}

// TestServeReturnsAfterTheRunningHandlerWhenContextEnds: a ctx that ends while the handler runs
// makes Serve return only once that handler returned, and later messages are not handled.
func TestServeReturnsAfterTheRunningHandlerWhenContextEnds(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	link, w := pipeLink(t)
	if _, err := w.Write(cancelFrame(t, 1)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	entered, release := make(chan struct{}), make(chan struct{})
	var handled atomic.Int32
	var handlerDone atomic.Bool
	served := make(chan error, 1)
	go func() {
		served <- link.Serve(ctx, func(m wirev1.ClientToHost) error {
			if handled.Add(1) == 1 {
				close(entered)
				<-release
				handlerDone.Store(true)
			}
			return nil
		})
	}()
	<-entered
	cancel()
	if _, err := w.Write(cancelFrame(t, 2)); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-served; !errors.Is(err, context.Canceled) {
		t.Fatalf("Serve returned %v, want context.Canceled", err)
	}
	if !handlerDone.Load() {
		t.Fatal("Serve returned while the handler was running")
	}
	link.Close(io.EOF)
	link.Wait()
	if n := handled.Load(); n != 1 {
		t.Fatalf("%d messages handled, want 1 (none after Serve returned)", n)
	}
}

// TestServeEndsWithTheStreamsEnd: a clean end of the stream ends Serve with io.EOF.
func TestServeEndsWithTheStreamsEnd(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	link := v1transport.NewLink(v1transport.NewStreamConn(r, w, r.Close), v1transport.SideClient, wirev1.DecodeClientToHost)
	if _, err := w.Write(cancelFrame(t, 7)); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	var got []int64
	err = link.Serve(context.Background(), func(m wirev1.ClientToHost) error {
		got = append(got, cancelID(t, m))
		return nil
	})
	if !errors.Is(err, io.EOF) || len(got) != 1 || got[0] != 7 {
		t.Fatalf("Serve = %v after %v, want io.EOF after [7]", err, got)
	}
	link.Close(err)
	link.Wait()
}

// laneConn is a dual Conn whose lanes deliver the frames a test feeds them; reads records, per
// lane, how many ReadFrame calls started.
type laneConn struct {
	in     [3]chan []byte
	reads  [3]atomic.Int32
	closed chan struct{}
	once   sync.Once
}

func newLaneConn() *laneConn {
	c := &laneConn{closed: make(chan struct{})}
	c.in[wirev1.LaneControl] = make(chan []byte, 16)
	c.in[wirev1.LaneBulk] = make(chan []byte, 16)
	return c
}

func (c *laneConn) Dual() bool { return true }

func (c *laneConn) ReadFrame(lane wirev1.Lane) ([]byte, error) {
	c.reads[lane].Add(1)
	select {
	case f := <-c.in[lane]:
		return v1frame.Decode(f)
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *laneConn) WriteFrame(wirev1.Lane, []byte) error { return nil }

func (c *laneConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// TestServeHandlesControlBeforeBulk: on a dual connection, a control message that is waiting is
// handled before a bulk message that is waiting too (docs/protocol/v1.md#websocket-and-lanes), through Serve as through Next.
func TestServeHandlesControlBeforeBulk(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for round := range 20 {
		conn := newLaneConn()
		link := v1transport.NewLink(conn, v1transport.SideClient, wirev1.DecodeClientToHost)
		bulk, err := v1transport.Encode(wirev1.DelegateResponseMessage{Id: 1, Result: wirev1.DelegateResponseOk{Value: wirev1.ToolResult{Result: []byte("1")}}})
		if err != nil {
			t.Fatal(err)
		}
		conn.in[wirev1.LaneBulk] <- bulk
		conn.in[wirev1.LaneControl] <- cancelFrame(t, 2)
		// Both readers decoded their message and wait to hand over the next one's read.
		for conn.reads[wirev1.LaneControl].Load() < 2 || conn.reads[wirev1.LaneBulk].Load() < 2 {
			runtimeGosched()
		}
		var order []string
		err = link.Serve(context.Background(), func(m wirev1.ClientToHost) error {
			order = append(order, fmt.Sprintf("%T", m))
			if len(order) == 2 {
				return io.EOF
			}
			return nil
		})
		if err != io.EOF {
			t.Fatalf("Serve = %v", err)
		}
		if order[0] != "wirev1.OperationCancel" {
			t.Fatalf("round %d: handled %v, want control first", round, order)
		}
		link.Close(io.EOF)
		link.Wait()
	}
}

func runtimeGosched() { runtime.Gosched() }

// TestARelayingHandlerLetsTheNextMessagesBeHandled: a handler that relays (Link.Relay) keeps
// running while a new reader handles the next messages in order; a relayed handler still running
// when Serve ends is waited for by Wait.
func TestARelayingHandlerLetsTheNextMessagesBeHandled(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	link, w := pipeLink(t)
	for i := 1; i <= 3; i++ {
		if _, err := w.Write(cancelFrame(t, int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	handled := make(chan int64, 3)
	release := make(chan struct{})
	stop := errors.New("stop")
	done := make(chan error, 1)
	go func() {
		done <- link.Serve(context.Background(), func(m wirev1.ClientToHost) error {
			id := cancelID(t, m)
			handled <- id
			switch id {
			case 1:
				link.Relay()
				<-release // held until the next messages were handled by the successor
			case 3:
				return stop
			}
			return nil
		})
	}()
	for _, want := range []int64{1, 2, 3} {
		if got := <-handled; got != want {
			t.Fatalf("handled %d, want %d", got, want)
		}
	}
	if err := <-done; err != stop {
		t.Fatalf("Serve = %v, want the third handler's error", err)
	}
	close(release)
	link.Close(nil)
	link.Wait()
}

// roomWriter is a stream that can take room bytes without blocking.
type roomWriter struct {
	room    int
	written []byte
}

func (w *roomWriter) Write(p []byte) (int, error) {
	w.written = append(w.written, p...)
	return len(p), nil
}
func (w *roomWriter) WriteRoom() (int, bool) { return w.room, true }

// TrySendNow writes a frame only when the stream can take all of it now, and never on a stream
// that cannot tell.
func TestTrySendNowWritesOnlyWhatCannotWait(t *testing.T) {
	frame := cancelFrame(t, 7)
	for _, c := range []struct {
		name  string
		w     io.Writer
		wrote bool
	}{
		{"room for the frame", &roomWriter{room: len(frame)}, true},
		{"one byte short", &roomWriter{room: len(frame) - 1}, false},
		{"a stream that cannot tell", io.Discard, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, _ := io.Pipe()
			link := v1transport.NewLink(v1transport.NewStreamConn(r, c.w, r.Close), v1transport.SideClient, wirev1.DecodeClientToHost)
			defer func() { link.Close(nil); link.Wait() }()
			sent, err := link.TrySendNow(wirev1.OperationCancel{Id: 7}, nil)
			if err != nil || sent != c.wrote {
				t.Fatalf("TrySendNow = %v, %v; want %v", sent, err, c.wrote)
			}
			if rw, ok := c.w.(*roomWriter); ok && sent != (string(rw.written) == string(frame)) {
				t.Fatalf("wrote %q", rw.written)
			}
		})
	}
}
