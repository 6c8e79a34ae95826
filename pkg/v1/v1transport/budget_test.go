package v1transport_test

import (
	"io"
	"testing"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/internal/membudget"
	"github.com/codemodehq/codemode/pkg/v1/v1transport"
)

// TestQueuedFramesAreChargedUntilWritten (ADR 59): frames a peer has not read yet cost the
// budget FrameCharge times their size, each given back once written; frames still queued when
// the link ends are given back by Wait. Before, a client that stopped reading made the host hold
// its frames with no budget seeing them.
func TestQueuedFramesAreChargedUntilWritten(t *testing.T) {
	b := membudget.New(1 << 30)
	w := &failingWriter{gate: make(chan struct{}), closed: make(chan struct{})}
	link := v1transport.NewLink(v1transport.NewStreamConn(eofReader{}, w, func() error { close(w.closed); return nil }), v1transport.SideClient, wirev1.DecodeClientToHost, v1transport.WithBudget(b))
	msg := wirev1.CellClosed{SessionId: "s", CellId: "1"}
	f, err := v1transport.Encode(msg)
	if err != nil {
		t.Fatal(err)
	}
	const frames = 10
	for range frames {
		if err := link.TrySend(msg); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := b.Used(), int64(frames*v1transport.FrameCharge*len(f)); got != want {
		t.Fatalf("%d frames queued: the budget holds %d, want %d", frames, got, want)
	}
	w.gate <- struct{}{} // the first frame is written
	w.gate <- struct{}{} // the writer is writing the second: the first was given back
	per := int64(v1transport.FrameCharge * len(f))
	if got := b.Used(); got > (frames-1)*per || got < (frames-2)*per {
		t.Fatalf("after two writes: the budget holds %d, want %d or %d", got, (frames-1)*per, (frames-2)*per)
	}
	link.Close(io.EOF) // the writer fails: the frames left are never written
	link.Wait()
	if got := b.Used(); got != 0 {
		t.Fatalf("after the link ended: the budget holds %d, want 0", got)
	}
}

// failingWriter writes a frame each time gate is sent to, and fails once closed is closed.
type failingWriter struct {
	gate, closed chan struct{}
}

func (w *failingWriter) Write(p []byte) (int, error) {
	select {
	case <-w.gate:
		return len(p), nil
	case <-w.closed:
		return 0, io.ErrClosedPipe
	}
}
