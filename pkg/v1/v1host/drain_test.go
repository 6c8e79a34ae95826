package v1host

import (
	"context"
	"io"
	"strings"
	"testing"
)

// TestDrainTerminatesCellsAndSendsTheirClosureBeforeEndingTheConnection: a cell waits for a
// tool call when the host drains. The client must see the cell's initial response (Terminated),
// its cell/closed exactly once, and then the end of the connection; ServeConn ends cleanly, and
// a connection that arrives during or after the drain is ended at once.
func TestDrainTerminatesCellsAndSendsTheirClosureBeforeEndingTheConnection(t *testing.T) {
	checkLeaks(t)
	h := baselineHost(t)
	c := serveRaw(t, h).ready()
	c.send(open(1, "s"))
	c.expect(ready(1, "s"))
	c.send(execute(2, "s", `text("before"); await tools.tool({});`))
	c.expect(started(2, "1"))
	if got := c.recv(); typeOf(got) != "delegate/request" {
		t.Fatalf("want the tool call, got %s", got)
	}
	drained := make(chan error, 1)
	go func() { drained <- h.Drain(context.Background()) }()
	var frames []string
	for {
		f := <-c.frames
		if f.err == io.EOF {
			break
		}
		if f.err != nil {
			t.Fatalf("reading the host's output: %v", f.err)
		}
		frames = append(frames, f.payload)
	}
	closed, terminated := 0, 0
	for _, f := range frames {
		if f == cellClosed("s", "1") {
			closed++
		}
		if typeOf(f) == "execute/initialResponse" && strings.Contains(f, `"Terminated"`) && strings.Contains(f, `"before"`) {
			terminated++
		}
	}
	if closed != 1 || terminated != 1 || frames[len(frames)-1] != cellClosed("s", "1") {
		t.Fatalf("frames after the drain began, want one Terminated initial response and one cell/closed last:\n%s", strings.Join(frames, "\n"))
	}
	if err := <-drained; err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if err := c.serveResult(); err != nil {
		t.Fatalf("ServeConn after a drain: %v", err)
	}
	late := serveRaw(t, h)
	late.send(helloLimits)
	late.drain()
	if err := late.serveResult(); err != nil {
		t.Fatalf("ServeConn of a connection after the drain: %v", err)
	}
}
