package v1host

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
	"github.com/codemodehq/codemode/pkg/v1/v1transport"
)

// TestStartCellReportsWhenInitialResponseIsEnqueued is Codex's peer_tests
// start_cell_reports_when_initial_response_is_enqueued, on the connection's cell routes (Go's
// counterpart of Codex's HostPeer), over a real pipe: startCell's channel stays open until the
// cell's initial response, queued by forwardInitial, was written, and the cell's slot (Codex's
// active-cell permit) is held past it, until the cell closes and cell/closed is sent.
func TestStartCellReportsWhenInitialResponseIsEnqueued(t *testing.T) {
	checkLeaks(t)
	fromHostR, fromHostW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	toHostR, toHostW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cn := baselineHost(t).newConn(context.Background(), v1transport.NewStreamConn(toHostR, fromHostW, func() error {
		_ = toHostR.Close()
		return fromHostW.Close()
	}), handshake{}, false)
	frames := make(chan string, 4)
	go func() {
		defer close(frames)
		r := v1frame.NewReader(fromHostR)
		for {
			p, err := r.Read()
			if err != nil {
				return
			}
			frames <- string(p)
		}
	}()
	t.Cleanup(func() {
		cn.cancel()
		cn.cellTasks.Wait()
		cn.link.Close(io.EOF)
		cn.link.Wait()
		_ = toHostW.Close()
		for range frames {
		}
		_ = fromHostR.Close()
	})
	next := func() string {
		t.Helper()
		select {
		case f := <-frames:
			return f
		case <-time.After(testTimeout):
			t.Fatal("no frame from the host")
		}
		return ""
	}

	initial := make(chan codemode.InitialResult, 1)
	released := make(chan struct{})
	key := cellKey{"session-1", "cell-1"}
	sent := cn.startCell(key, execution{id: 1, receivedAt: time.Now()}, func() { close(released) })
	go cn.forwardInitial(key, codemode.NewStartedCell("cell-1", initial, nil))
	select {
	case <-sent:
		t.Fatal("reported before the initial response existed")
	default:
	}

	initial <- codemode.InitialResult{Response: codemode.RuntimeResponse{Kind: codemode.Result, CellID: "cell-1"}}
	<-sent
	if got, want := next(), `{"type":"execute/initialResponse","id":1,"result":{"status":"ok","value":{"Result":{"cell_id":"cell-1","content_items":[],"error_text":null}}}}`; got != want {
		t.Fatalf("frame:\n got %s\nwant %s", got, want)
	}
	select {
	case <-released:
		t.Fatal("the cell's slot was released before the cell closed")
	default:
	}

	cn.closeCell("session-1", "cell-1")
	if got, want := next(), `{"type":"cell/closed","sessionId":"session-1","cellId":"cell-1"}`; got != want {
		t.Fatalf("frame:\n got %s\nwant %s", got, want)
	}
	<-released
}
