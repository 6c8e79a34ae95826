package grpcclient_test

import (
	"context"
	"fmt"
	"net"

	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// testTimeout bounds every wait for something that must happen; it never asserts speed.
// It is minutes because under -race on 2 saturated cores a 72 MiB response alone took over
// 60 s: a guard that fires on a slow machine would be a timing assertion.
const testTimeout = 5 * time.Minute

// host is a grpchost serving a jsruntime provider on a listener, which a test can stop (as a
// crash would, from the client's point of view) and start again on the same address.
type host struct {
	t       testing.TB
	addr    string
	runtime *jsruntime.Provider
	stop    func()
}

// startHost serves a fresh host on addr ("127.0.0.1:0" for any port) until the test ends or
// stop is called.
func startHost(t testing.TB, addr string) *host {
	t.Helper()
	return startHostWith(t, addr, grpchost.Options{})
}

// startHostWith is startHost with options.
func startHostWith(t testing.TB, addr string, opts grpchost.Options) *host {
	t.Helper()
	ln, err := grpchost.Listen(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	return startHostOn(t, ln, opts)
}

// startHostOn serves a fresh host on ln until the test ends or stop is called.
func startHostOn(t testing.TB, ln net.Listener, opts grpchost.Options) *host {
	t.Helper()
	return startHostServing(t, ln, opts, nil)
}

// startHostServing is startHostOn with the host serving wrap(runtime) instead of the runtime
// itself (nil: the runtime), so a test can watch what the host's sessions see.
func startHostServing(t testing.TB, ln net.Listener, opts grpchost.Options, wrap func(codemode.SessionProvider) codemode.SessionProvider) *host {
	t.Helper()
	runtime, err := jsruntime.NewProvider(jsruntime.Options{})
	if err != nil {
		t.Fatalf("jsruntime.NewProvider: %v", err)
	}
	h := &host{t: t, addr: ln.Addr().String(), runtime: runtime}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	var provider codemode.SessionProvider = runtime
	if wrap != nil {
		provider = wrap(runtime)
	}
	go func() { served <- grpchost.New(provider, opts).Serve(ctx, ln) }()
	stopped := false
	h.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		if err := runtime.Close(); err != nil {
			t.Errorf("jsruntime Provider.Close: %v", err)
		}
	}
	t.Cleanup(h.stop)
	return h
}

func (h *host) url() string { return "http://" + h.addr }

// session opens a session on url with a fresh Recorder as its delegate, shut down at cleanup.
func session(t *testing.T, p codemode.SessionProvider, limits codemode.SessionCellExecutionLimits) (codemode.Session, *codemodetest.Recorder) {
	t.Helper()
	rec := codemodetest.NewRecorder()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s, err := p.CreateSession(ctx, rec, limits)
	if err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return s, rec
}

// toEnd is a yield time that never elapses during a test: a cell the test expects to end is
// answered by its end (or its yield_control), never by a deadline a loaded machine can reach
// first (docs/adr/0070-the-gate-under-load.md).
const toEnd uint64 = 3_600_000

// execReq is a request for source with tools enabled.
func execReq(source string, yieldMs uint64, tools ...codemode.ToolDefinition) codemode.ExecuteRequest {
	return codemode.ExecuteRequest{ToolCallID: "call-1", Source: source, YieldTimeMs: &yieldMs, EnabledTools: tools}
}

func fnTool(name string) codemode.ToolDefinition {
	return codemode.ToolDefinition{Name: name, ToolName: codemode.ToolName{Name: name}, Kind: codemode.ToolKindFunction}
}

// run executes a cell and returns its initial response.
func run(t *testing.T, s codemode.Session, req codemode.ExecuteRequest) codemode.RuntimeResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, err := s.Execute(ctx, req)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	r, err := c.InitialResponse(ctx)
	if err != nil {
		t.Fatalf("InitialResponse: %v", err)
	}
	return r
}

// texts renders a response's items for comparison.
func texts(r codemode.RuntimeResponse) string {
	out := ""
	for _, item := range r.ContentItems {
		out += fmt.Sprintf("%v;", item)
	}
	return out
}

// waitEnd is how a Wait ended.
type waitEnd struct {
	outcome codemode.WaitOutcome
	err     error
}

// startActiveWait starts a Wait on cell and returns once the host has made it the cell's observer:
// a probing Wait then fails with the host's "already has an active observer". The cell must have
// no unobserved output.
func startActiveWait(t *testing.T, s codemode.Session, cell codemode.CellID, yieldMs uint64) <-chan waitEnd {
	t.Helper()
	busy := codemode.NewCellError(codemode.CellHasObserver, cell).Error()
	done := make(chan waitEnd, 1)
	go func() {
		for {
			o, err := s.Wait(context.Background(), codemode.WaitRequest{CellID: cell, YieldTimeMs: yieldMs})
			if err != nil && err.Error() == busy {
				continue // a probe holds the observer slot for a moment
			}
			done <- waitEnd{o, err}
			return
		}
	}()
	deadline := time.Now().Add(testTimeout)
	for time.Now().Before(deadline) {
		_, err := s.Wait(context.Background(), codemode.WaitRequest{CellID: cell, YieldTimeMs: 0})
		if err != nil && err.Error() == busy {
			return done
		}
		if err != nil {
			t.Fatalf("probing Wait: %v", err)
		}
	}
	t.Fatal("the background Wait never became the cell's observer")
	return nil
}
