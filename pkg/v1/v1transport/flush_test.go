package v1transport_test

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"testing"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/v1/v1transport"
)

// TestFlushReturnsOnceEveryFrameSentBeforeItWasWritten queues frames behind a writer that is
// held back, then flushes: Flush must return only after the writer has written every one.
func TestFlushReturnsOnceEveryFrameSentBeforeItWasWritten(t *testing.T) {
	w := &gatedWriter{gate: make(chan struct{})}
	link := v1transport.NewLink(v1transport.NewStreamConn(eofReader{}, w, func() error { return nil }), v1transport.SideClient, wirev1.DecodeClientToHost)
	defer link.Close(io.EOF)
	const frames = 20
	for range frames {
		// TrySend always queues (Send could write on the caller's goroutine and block).
		if err := link.TrySend(wirev1.CellClosed{SessionId: "s", CellId: "1"}); err != nil {
			t.Fatal(err)
		}
	}
	flushed := make(chan error, 1)
	go func() { flushed <- link.Flush(context.Background()) }()
	select {
	case err := <-flushed:
		t.Fatalf("Flush returned (%v) while no frame was written", err)
	default:
	}
	close(w.gate)
	if err := <-flushed; err != nil {
		t.Fatalf("Flush: %v", err)
	}
	if n := w.writes.Load(); n != frames {
		t.Fatalf("Flush returned after %d writes, want %d", n, frames)
	}
}

// gatedWriter writes nothing until gate is closed, and counts its writes.
type gatedWriter struct {
	gate   chan struct{}
	writes atomic.Int64
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	<-g.gate
	g.writes.Add(1)
	return len(p), nil
}

// TestFlushGivesUpWithItsContextAndLeavesTheLinkUsable: a Flush whose writer is held back
// returns ctx's error; once the writer goes on, a later Flush succeeds (the abandoned barrier
// is passed on the way).
func TestFlushGivesUpWithItsContextAndLeavesTheLinkUsable(t *testing.T) {
	w := &gatedWriter{gate: make(chan struct{})}
	link := v1transport.NewLink(v1transport.NewStreamConn(eofReader{}, w, func() error { return nil }), v1transport.SideClient, wirev1.DecodeClientToHost)
	defer link.Close(io.EOF)
	if err := link.TrySend(wirev1.CellClosed{SessionId: "s", CellId: "1"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := link.Flush(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Flush with an ended context: %v, want context.Canceled", err)
	}
	close(w.gate)
	if err := link.Flush(context.Background()); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	if n := w.writes.Load(); n != 1 {
		t.Fatalf("%d writes, want 1", n)
	}
}

// eofReader is an input that ends at once.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
