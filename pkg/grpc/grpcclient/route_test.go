package grpcclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"sync"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// Per-session routing and admission retries (docs/protocol/grpc.md#routing), against hosts behind an in-process
// front: a small sticky router that sends a request to the host its x-code-mode-route names
// (unless that host was taken out) and everything else to the current default host, and that
// can refuse OpenSession attempts with a chosen gRPC status first.

// frontHost is one grpchost behind the front.
type frontHost struct {
	host    *grpchost.Host
	handler http.Handler
}

// front is the sticky router.
type front struct {
	t     *testing.T
	url   string
	hosts []*frontHost

	mu sync.Mutex
	// current receives requests without a usable route.
	current int
	// out are the hosts taken out of the rotation (as a proxy does with a host that failed).
	out map[int]bool
	// refusals are OpenSession attempts still to refuse, with the gRPC status code to send.
	refusals []int
	// log records, per host index, "Method route" for every request it received.
	log map[int][]string
	// opens counts OpenSession attempts, refused ones included.
	opens int
	// outAfterOpen, when set, takes the host of the next OpenSession out of the rotation as soon as
	// that OpenSession reached it, making outAfterOpen[0] the default: the session's next request
	// finds its route lost.
	outAfterOpen []int
}

// startFront serves n hosts behind a front until the test ends.
func startFront(t *testing.T, n int) *front {
	t.Helper()
	f := &front{t: t, out: map[int]bool{}, log: map[int][]string{}}
	for i := range n {
		runtime, err := jsruntime.NewProvider(jsruntime.Options{})
		if err != nil {
			t.Fatal(err)
		}
		h := grpchost.New(runtime, grpchost.Options{Route: "host-" + strconv.Itoa(i)})
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			_ = h.Close(ctx)
			_ = runtime.Close()
		})
		f.hosts = append(f.hosts, &frontHost{host: h, handler: h.Handler()})
	}
	ln, err := grpchost.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpchost.NewHTTPServer(f)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	f.url = "http://" + ln.Addr().String()
	return f
}

// ServeHTTP routes one request.
func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	method := path.Base(r.URL.Path)
	route := r.Header.Get(grpcconv.RouteHeader)
	f.mu.Lock()
	if method == "OpenSession" {
		f.opens++
		if len(f.refusals) > 0 {
			code := f.refusals[0]
			f.refusals = f.refusals[1:]
			f.mu.Unlock()
			w.Header().Set("Content-Type", "application/grpc")
			w.Header().Set("Grpc-Status", strconv.Itoa(code))
			w.Header().Set("Grpc-Message", "refused by the front")
			w.WriteHeader(http.StatusOK)
			return
		}
	}
	target := f.current
	for i, h := range f.hosts {
		if route != "" && route == h.host.Route() && !f.out[i] {
			target = i
		}
	}
	f.log[target] = append(f.log[target], method+" "+route)
	if method == "OpenSession" && f.outAfterOpen != nil {
		f.out[target], f.current, f.outAfterOpen = true, f.outAfterOpen[0], nil
	}
	f.mu.Unlock()
	f.hosts[target].handler.ServeHTTP(w, r)
}

// takeOut removes host i from the rotation and makes next the default, as a proxy does when a
// host stops answering its health checks. Nothing reaches i any more; its open streams stay.
func (f *front) takeOut(i, next int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.out[i] = true
	f.current = next
}

// refuse makes the front refuse the next OpenSession attempts with these gRPC codes.
func (f *front) refuse(codes ...int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refusals = append(f.refusals, codes...)
}

func (f *front) requests(i int) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.log[i]...)
}

func (f *front) openAttempts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.opens
}

// Every request of a session after OpenSession carries the route the host returned.
func TestEveryRequestOfASessionCarriesItsRoute(t *testing.T) {
	for _, protocol := range []grpcclient.Protocol{grpcclient.ProtocolGRPC, grpcclient.ProtocolGRPCWeb, grpcclient.ProtocolConnect} {
		t.Run(protocol.String(), func(t *testing.T) {
			f := startFront(t, 1)
			s, rec := session(t, newProvider(t, f.url, protocol), codemode.SessionCellExecutionLimits{})
			rec.Handle("echo", codemodetest.Returns(`"echoed"`))
			rec.HandleNotify(func(context.Context, string, codemode.CellID, string) error { return nil })
			if r := run(t, s, execReq(`notify("n"); text(await tools.echo({}));`, toEnd, fnTool("echo"))); r.Kind != codemode.Result || texts(r) != "{echoed};" {
				t.Fatalf("cell %+v", r)
			}
			if r := run(t, s, execReq(`yield_control(); await new Promise(() => {});`, toEnd)); r.Kind != codemode.Yielded {
				t.Fatalf("yielding cell %+v", r)
			}
			if _, err := s.Wait(ctxT(t), codemode.WaitRequest{CellID: "2", YieldTimeMs: 1}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Terminate(ctxT(t), "2"); err != nil {
				t.Fatal(err)
			}
			if err := s.Shutdown(ctxT(t)); err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, req := range f.requests(0) {
				seen[req] = true
			}
			for _, want := range []string{"OpenSession ", "SubscribeToToolCalls host-0", "Execute host-0", "CompleteToolCall host-0",
				"AcknowledgeNotification host-0", "Wait host-0", "Terminate host-0", "CloseSession host-0"} {
				if !seen[want] {
					t.Errorf("no request %q among %v", want, f.requests(0))
				}
			}
			for req := range seen {
				if req != "OpenSession " && req[len(req)-len(" host-0"):] != " host-0" {
					t.Errorf("request %q without the route", req)
				}
			}
		})
	}
}

// A request that reaches a host without the session, carrying a lost host's route, resets the
// session: the request fails with Codex's text and is not replayed, the lost epoch's
// cells are reported closed, its IDs are stale, and the next cell runs on a new lease as "g2:1"
// without the lost stored values. The loss is found by a streaming request (Execute) and by a
// unary one (Wait), on every protocol.
func TestLostRouteResetsTheSessionToTheNextEpoch(t *testing.T) {
	for _, protocol := range []grpcclient.Protocol{grpcclient.ProtocolGRPC, grpcclient.ProtocolGRPCWeb, grpcclient.ProtocolConnect} {
		for _, finder := range []string{"Execute", "Wait"} {
			t.Run(protocol.String()+" "+finder, func(t *testing.T) { testLostRouteResets(t, protocol, finder) })
		}
	}
}

func testLostRouteResets(t *testing.T, protocol grpcclient.Protocol, finder string) {
	f := startFront(t, 2)
	s, rec := session(t, newProvider(t, f.url, protocol), codemode.SessionCellExecutionLimits{})
	rec.Handle("echo", codemodetest.Returns(`"echoed"`))
	if r := run(t, s, execReq(`store("k", "v"); text(await tools.echo({}));`, toEnd, fnTool("echo"))); r.Kind != codemode.Result || r.CellID != "1" {
		t.Fatalf("first cell %+v", r)
	}
	if r := run(t, s, execReq(`yield_control(); await new Promise(() => {});`, toEnd)); r.Kind != codemode.Yielded || r.CellID != "2" {
		t.Fatalf("yielding cell %+v", r)
	}
	f.takeOut(0, 1)

	var err error
	if finder == "Execute" {
		_, err = s.Execute(ctxT(t), execReq(`text("never runs")`, toEnd))
	} else {
		_, err = s.Wait(ctxT(t), codemode.WaitRequest{CellID: "2", YieldTimeMs: 1})
	}
	if !errors.Is(err, grpcclient.ErrSessionReset) || err.Error() != "Stored values and running cells were lost" {
		t.Fatalf("%s after the route was lost: %v, want %q", finder, err, grpcclient.ErrSessionReset)
	}
	if err := rec.AwaitCellClosed(ctxT(t), "2"); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(f.requests(1)), "["+finder+" host-0]"; got != want {
		t.Fatalf("the second host received %s, want exactly the one %s that found the route lost (no replay)", got, finder)
	}

	_, err = s.Wait(ctxT(t), codemode.WaitRequest{CellID: "2", YieldTimeMs: 1})
	if !errors.Is(err, grpcclient.ErrStaleEpoch) {
		t.Fatalf("Wait on the lost epoch's cell: %v, want %v", err, grpcclient.ErrStaleEpoch)
	}
	r := run(t, s, execReq(`text(String(load("k"))); text(await tools.echo({}));`, toEnd, fnTool("echo")))
	if r.Kind != codemode.Result || r.CellID != "g2:2" && r.CellID != "g2:1" || texts(r) != "{undefined};{echoed};" {
		t.Fatalf("cell after the reset %+v, want a g2: result without the lost value", r)
	}
	calls := rec.ToolCalls()
	if last := calls[len(calls)-1].Call.CellID; last != r.CellID {
		t.Fatalf("the tool call after the reset came from cell %q, want %q", last, r.CellID)
	}
	for _, req := range f.requests(1)[1:] {
		if req != "OpenSession " && req[len(req)-len(" host-1"):] != " host-1" {
			t.Errorf("request %q after the reset, want the new host's route", req)
		}
	}
}

// A subscription that finds the route lost (the host went away between OpenSession and the
// subscription) fails the opening with ErrSessionReset; the next session opens on another host.
func TestLostRouteAtTheSubscriptionFailsTheOpening(t *testing.T) {
	for _, protocol := range []grpcclient.Protocol{grpcclient.ProtocolGRPC, grpcclient.ProtocolGRPCWeb, grpcclient.ProtocolConnect} {
		t.Run(protocol.String(), func(t *testing.T) {
			f := startFront(t, 2)
			f.mu.Lock()
			f.outAfterOpen = []int{1}
			f.mu.Unlock()
			p := newProvider(t, f.url, protocol)
			_, err := p.CreateSession(ctxT(t), codemodetest.NewRecorder(), codemode.SessionCellExecutionLimits{})
			if !errors.Is(err, grpcclient.ErrSessionReset) {
				t.Fatalf("CreateSession whose subscription found the route lost: %v, want %v", err, grpcclient.ErrSessionReset)
			}
			if got := fmt.Sprint(f.requests(1)); got != "[SubscribeToToolCalls host-0]" {
				t.Fatalf("the second host received %s, want the one subscription that found the route lost", got)
			}
			s, _ := session(t, p, codemode.SessionCellExecutionLimits{})
			if r := run(t, s, execReq(`text("here")`, toEnd)); r.Kind != codemode.Result || texts(r) != "{here};" {
				t.Fatalf("cell of the next session %+v", r)
			}
			if route, _ := grpcclient.Route(s); route != "host-1" {
				t.Fatalf("the next session is on %q, want host-1", route)
			}
		})
	}
}

// OpenSession is retried on UNAVAILABLE and RESOURCE_EXHAUSTED, at most 5 attempts in all; other
// codes fail at once.
func TestOpenSessionAdmissionRetries(t *testing.T) {
	const (
		notFound          = 5
		resourceExhausted = 8
		internal          = 13
		unavailable       = 14
	)
	cases := []struct {
		name     string
		refusals []int
		attempts int
		ok       bool
	}{
		{"unavailable then admitted", []int{unavailable, unavailable}, 3, true},
		{"four refusals, the fifth attempt admitted", []int{resourceExhausted, unavailable, resourceExhausted, unavailable}, 5, true},
		{"five refusals fail", []int{unavailable, unavailable, unavailable, unavailable, resourceExhausted, unavailable}, 5, false},
		{"internal is not retried", []int{internal}, 1, false},
		{"not found is not retried", []int{notFound}, 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := startFront(t, 1)
			f.refuse(c.refusals...)
			p := newProvider(t, f.url, grpcclient.ProtocolGRPC)
			s, err := p.CreateSession(ctxT(t), codemodetest.NewRecorder(), codemode.SessionCellExecutionLimits{})
			if got := f.openAttempts(); got != c.attempts {
				t.Errorf("%d OpenSession attempts, want %d", got, c.attempts)
			}
			if !c.ok {
				if err == nil {
					t.Fatal("CreateSession succeeded, want the last refusal")
				}
				return
			}
			if err != nil {
				t.Fatalf("CreateSession: %v", err)
			}
			defer func() { _ = s.Shutdown(ctxT(t)) }()
			if r := run(t, s, execReq(`text("admitted")`, toEnd)); r.Kind != codemode.Result {
				t.Fatalf("cell %+v", r)
			}
		})
	}
}

// A full host's RESOURCE_EXHAUSTED is an admission refusal: retried, and once the host has room
// again the retry is admitted.
func TestAFullHostIsRetriedUntilItHasRoom(t *testing.T) {
	ln, err := grpchost.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := startHostOn(t, ln, grpchost.Options{Limits: grpchost.Limits{MaxSessions: 1}})
	p := newProvider(t, h.url(), grpcclient.ProtocolGRPC)
	first, err := p.CreateSession(ctxT(t), codemodetest.NewRecorder(), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.CreateSession(ctxT(t), codemodetest.NewRecorder(), codemode.SessionCellExecutionLimits{})
	if err == nil || err.Error() != "gRPC code-mode session lease opening failed: resource_exhausted: code-mode host has too many open sessions" {
		t.Fatalf("second session on a full host: %v", err)
	}
	if err := first.Shutdown(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	second, err := p.CreateSession(ctxT(t), codemodetest.NewRecorder(), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatalf("session after the first closed: %v", err)
	}
	_ = second.Shutdown(ctxT(t))
}
