package v1host

import (
	"context"
	"encoding/json"
	"io"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
	"github.com/codemodehq/codemode/pkg/v1/v1transport"
)

// testTimeout bounds waits for things that must happen; it never asserts speed.
// It is minutes because under -race on 2 saturated cores a 72 MiB response alone took over
// 60 s: a guard that fires on a slow machine would be a timing assertion.
const testTimeout = 5 * time.Minute

// rawClient speaks V1 to a Host by hand over in-memory pipes, so tests can send exact bytes and
// assert exact responses.
type rawClient struct {
	t       *testing.T
	w       *io.PipeWriter
	r       *v1frame.Reader
	rc      *io.PipeReader
	served  chan error
	frames  chan rawFrame
	stopped atomic.Bool
	gate    chan struct{}
}

type rawFrame struct {
	payload string
	err     error
}

// checkLeaks fails t if goroutines started during it are still running once all of its
// cleanups (registered after this call) have run.
func checkLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// newProvider returns an in-process provider closed at cleanup.
func newProvider(t *testing.T) codemode.SessionProvider {
	t.Helper()
	p, err := jsruntime.NewProvider(jsruntime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// serveRaw starts h.ServeConn on a pipe pair and returns the client end.
func serveRaw(t *testing.T, h *Host) *rawClient {
	t.Helper()
	toHostR, toHostW := io.Pipe()
	fromHostR, fromHostW := io.Pipe()
	conn := v1transport.NewStreamConn(toHostR, fromHostW, func() error {
		_ = toHostR.Close()
		return fromHostW.Close()
	})
	c := &rawClient{t: t, w: toHostW, r: v1frame.NewReader(fromHostR), rc: fromHostR, served: make(chan error, 1), frames: make(chan rawFrame, 16), gate: make(chan struct{})}
	go func() { c.served <- h.ServeConn(context.Background(), conn) }()
	go func() {
		for {
			for c.stopped.Load() {
				<-c.gate
			}
			p, err := c.r.Read()
			c.frames <- rawFrame{string(p), err}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		c.stopped.Store(false)
		close(c.gate)
		_ = toHostW.Close()
		select {
		case <-c.served:
		case <-time.After(testTimeout):
			t.Error("the host did not end the connection")
		}
		_ = fromHostR.Close()
	})
	return c
}

// stopReading makes the client stop reading the host's output (a backpressured writer).
func (c *rawClient) stopReading() {
	c.stopped.Store(true)
}

// send writes one frame holding payload.
func (c *rawClient) send(payload string) {
	c.t.Helper()
	f, err := v1frame.Append(nil, []byte(payload))
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.w.Write(f); err != nil {
		c.t.Fatalf("send %s: %v", payload, err)
	}
}

// recv reads the next frame's payload.
func (c *rawClient) recv() string {
	c.t.Helper()
	select {
	case f := <-c.frames:
		if f.err != nil {
			c.t.Fatalf("recv: %v", f.err)
		}
		return f.payload
	case <-time.After(testTimeout):
		c.t.Fatal("no frame from the host")
	}
	return ""
}

// expect reads the next frame and compares it with want exactly.
func (c *rawClient) expect(want string) {
	c.t.Helper()
	if got := c.recv(); got != want {
		c.t.Fatalf("frame:\n got %s\nwant %s", got, want)
	}
}

// expectEOF waits for the host to end its output.
func (c *rawClient) expectEOF() {
	c.t.Helper()
	select {
	case f := <-c.frames:
		if f.err != io.EOF {
			c.t.Fatalf("want EOF, got %q, %v", f.payload, f.err)
		}
	case <-time.After(testTimeout):
		c.t.Fatal("the host did not close its output")
	}
}

// drain reads until the host's output ends, however it ends.
func (c *rawClient) drain() {
	c.t.Helper()
	for {
		select {
		case f := <-c.frames:
			if f.err != nil {
				return
			}
		case <-time.After(testTimeout):
			c.t.Fatal("the host did not close its output")
		}
	}
}

// served waits for ServeConn to return and returns its error.
func (c *rawClient) serveResult() error {
	c.t.Helper()
	_ = c.w.Close()
	select {
	case err := <-c.served:
		c.served <- err
		return err
	case <-time.After(testTimeout):
		c.t.Fatal("ServeConn did not return")
	}
	return nil
}

const helloLimits = `{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":["session-cell-execution-resource-limits"]}`

// ready performs Codex's handshake.
func (c *rawClient) ready() *rawClient {
	c.t.Helper()
	c.send(helloLimits)
	c.expect(`{"type":"connection/ready","selectedVersion":1,"capabilities":["session-cell-execution-resource-limits"]}`)
	return c
}

func typeOf(payload string) string {
	var v struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal([]byte(payload), &v)
	return v.Type
}

// runtimeGosched yields the processor to the goroutines a test waits for.
func runtimeGosched() { runtime.Gosched() }
