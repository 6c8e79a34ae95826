package jsruntime

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// guardTimeout bounds waits that end in milliseconds on any machine, so that a hang fails the test
// with a message rather than at go test's own timeout. It is minutes, not seconds: under -race on
// two saturated cores an interrupt and a reset still take far less, but not always less than 10 s.
const guardTimeout = 5 * time.Minute

// sharedProvider is the provider of the package's tests: creating runtimes is the expensive part.
var sharedProvider = sync.OnceValue(func() *Provider {
	p, err := NewProvider(Options{PoolSize: 2})
	if err != nil {
		panic(err)
	}
	return p
})

// recordingDelegate answers tool calls with a function and records what the session reports. It
// is a codemode.BlockingDelegate whose Delegate methods run it through codemode.FromBlocking.
type recordingDelegate struct {
	invoke func(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error)
	// onFailure, if set, hears ReportFailure: the adapter reports to this delegate, not to a type
	// that embeds it.
	onFailure func(reason string)

	startOnce sync.Once
	started   codemode.Delegate

	relays  atomic.Int64 // long turns run on a call's goroutine (RunTurnHere)
	onRelay func()       // if set, called at each of them

	mu      sync.Mutex
	calls   []codemode.NestedToolCall
	notes   []string
	closed  []codemode.CellID
	closedC chan codemode.CellID
}

func newRecorder(invoke func(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error)) *recordingDelegate {
	return &recordingDelegate{invoke: invoke, closedC: make(chan codemode.CellID, 1024)}
}

// blocking is codemode.FromBlocking(d), made once.
func (d *recordingDelegate) blocking() codemode.Delegate {
	d.startOnce.Do(func() { d.started = codemode.FromBlocking(d) })
	return d.started
}

// RunTurnHere lets the runtime run an answer's turn on the call's goroutine (cellRun.runInline), as
// it does on a transport's reader, so that this package's tests go through both paths; relays
// counts the long turns it was told of.
func (d *recordingDelegate) RunTurnHere(codemode.NestedToolCall) (relay func(), ok bool) {
	return func() {
		d.relays.Add(1)
		if d.onRelay != nil {
			d.onRelay()
		}
	}, true
}

func (d *recordingDelegate) ReportFailure(reason string) {
	if d.onFailure != nil {
		d.onFailure(reason)
	}
}

func (d *recordingDelegate) CellUsage(codemode.CellID, codemode.CellUsage) {}

func (d *recordingDelegate) StartToolCall(ctx context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	d.blocking().StartToolCall(ctx, call, done)
}

func (d *recordingDelegate) StartNotify(ctx context.Context, callID string, cellID codemode.CellID, text string, done func(error)) {
	d.blocking().StartNotify(ctx, callID, cellID, text, done)
}

func (d *recordingDelegate) InvokeTool(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	d.mu.Lock()
	d.calls = append(d.calls, call)
	d.mu.Unlock()
	if d.invoke == nil {
		<-ctx.Done()
		return nil, errors.New("cancelled")
	}
	return d.invoke(ctx, call)
}

func (d *recordingDelegate) Notify(_ context.Context, callID string, cellID codemode.CellID, text string) error {
	d.mu.Lock()
	d.notes = append(d.notes, callID+"/"+string(cellID)+":"+text)
	d.mu.Unlock()
	return nil
}

func (d *recordingDelegate) CellClosed(id codemode.CellID) {
	d.mu.Lock()
	d.closed = append(d.closed, id)
	d.mu.Unlock()
	d.closedC <- id
}

func (d *recordingDelegate) snapshot() (calls []codemode.NestedToolCall, notes []string, closed []codemode.CellID) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]codemode.NestedToolCall(nil), d.calls...), append([]string(nil), d.notes...), append([]codemode.CellID(nil), d.closed...)
}

func newTestSession(t testing.TB, d codemode.Delegate, limits codemode.SessionCellExecutionLimits) codemode.Session {
	t.Helper()
	if d == nil {
		d = codemode.NoopDelegate{}
	}
	s, err := sharedProvider().CreateSession(context.Background(), d, limits)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		awaitCellGoroutines(t, s)
	})
	return s
}

// awaitCellGoroutines waits until the goroutines of s's cells have ended, so none of them runs
// into the next test (whose package-level test hooks it could otherwise touch).
func awaitCellGoroutines(t testing.TB, s codemode.Session) {
	t.Helper()
	ended := make(chan struct{})
	go func() {
		s.(*session).running.Wait()
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(guardTimeout):
		t.Errorf("cell goroutines still running %v after Shutdown", guardTimeout)
	}
}

// inBubble runs f inside a testing/synctest bubble with a provider of its own, created and closed
// inside it. The bubble's clock moves only when every goroutine of the bubble is blocked, so
// yield deadlines, graces and timers fire exactly when the test lets them, however loaded the
// machine is, and synctest.Wait tells when the cells have nothing left to do.
func inBubble(t *testing.T, f func(t *testing.T, p *Provider)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		p, err := NewProvider(Options{PoolSize: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		f(t, p)
	})
}

// newSessionOn opens a session of p that is shut down when the test ends.
func newSessionOn(t testing.TB, p *Provider, d codemode.Delegate, limits codemode.SessionCellExecutionLimits) codemode.Session {
	t.Helper()
	if d == nil {
		d = codemode.NoopDelegate{}
	}
	s, err := p.CreateSession(context.Background(), d, limits)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Shutdown(context.Background()); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		awaitCellGoroutines(t, s)
	})
	return s
}

func ptrU64(v uint64) *uint64 { return &v }

// executeCell runs src in s, with tools, to its end and returns its terminal response. A cell
// may yield at its 30 s deadline before it ends (on a loaded machine even a short one may), so
// the cell is followed to its result rather than the yield read as one: the output of every
// observation is in the response (docs/adr/0070-the-gate-under-load.md).
func executeCell(t testing.TB, s codemode.Session, src string, tools ...codemode.ToolDefinition) codemode.RuntimeResponse {
	t.Helper()
	return followCell(t, s, firstResponse(t, s, src, tools...))
}

// firstResponse starts src in s as tool call "call-1" and returns its initial response, for the
// tests about the yield itself: a Yielded when the cell called yield_control (or its deadline
// passed) before it ended.
func firstResponse(t testing.TB, s codemode.Session, src string, tools ...codemode.ToolDefinition) codemode.RuntimeResponse {
	t.Helper()
	started, err := s.Execute(context.Background(), codemode.ExecuteRequest{ToolCallID: "call-1", Source: src, EnabledTools: tools, YieldTimeMs: ptrU64(30_000)})
	if err != nil {
		t.Fatal(err)
	}
	// Start-up does not count against the yield time, so this bound is the guard's, not 30 s.
	ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
	defer cancel()
	r, err := started.InitialResponse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// followCell observes the cell of r with Waits while it yields and returns its terminal
// response, whose content is the output of r and of every observation after it: the one way the
// tests of this package wait for a cell's result, an event, instead of a yield deadline.
func followCell(t testing.TB, s codemode.Session, r codemode.RuntimeResponse) codemode.RuntimeResponse {
	t.Helper()
	if r.Kind != codemode.Yielded {
		return r
	}
	items := append([]codemode.ContentItem(nil), r.ContentItems...)
	for r.Kind == codemode.Yielded {
		out, err := s.Wait(context.Background(), codemode.WaitRequest{CellID: r.CellID, YieldTimeMs: 30_000})
		if err != nil {
			t.Fatal(err)
		}
		r = out.Response
		items = append(items, r.ContentItems...)
	}
	r.ContentItems = items
	return r
}

// runCellToEnd executes src in a fresh session and returns its terminal Result, with the output
// of every observation.
func runCellToEnd(t testing.TB, src string, tools ...codemode.ToolDefinition) codemode.RuntimeResponse {
	t.Helper()
	s := newTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	r := executeCell(t, s, src, tools...)
	if r.Kind != codemode.Result {
		t.Fatalf("response kind %v, want Result: %+v", r.Kind, r)
	}
	return r
}

// texts returns the texts of the input_text items.
func textsOf(items []codemode.ContentItem) []string {
	out := []string{}
	for _, it := range items {
		if tx, ok := it.(codemode.InputText); ok {
			out = append(out, tx.Text)
		}
	}
	return out
}

func errorTextOf(r codemode.RuntimeResponse) string {
	if r.ErrorText == nil {
		return "<nil>"
	}
	return *r.ErrorText
}

func testTool(name string) codemode.ToolDefinition {
	return codemode.ToolDefinition{Name: name, ToolName: codemode.ToolName{Name: name}, Description: "the " + name + " tool", Kind: codemode.ToolKindFunction}
}

// echoDelegate answers every tool call with its input and records nothing.
var echoDelegate = funcDelegate(func(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	return call.Input, nil
})

// funcDelegate is a Delegate whose tool calls run a function on a goroutine; it records nothing.
type funcDelegate func(context.Context, codemode.NestedToolCall) (json.RawMessage, error)

func (f funcDelegate) StartToolCall(ctx context.Context, c codemode.NestedToolCall, done func(json.RawMessage, error)) {
	go func() { done(f(ctx, c)) }()
}
func (funcDelegate) StartNotify(_ context.Context, _ string, _ codemode.CellID, _ string, done func(error)) {
	done(nil)
}
func (funcDelegate) CellClosed(codemode.CellID)                    {}
func (funcDelegate) ReportFailure(string)                          {}
func (funcDelegate) CellUsage(codemode.CellID, codemode.CellUsage) {}

// waitWarm waits until the shared provider's pool has its warm engines idle again.
// It polls a condition, with no deadline (the pool announces no refills), and only benchmarks
// use it, between timed runs.
func waitWarm() {
	p := sharedProvider().pool
	for p.Idle() < 2 { // sharedProvider's PoolSize
		time.Sleep(time.Millisecond)
	}
}

// recurse is a cell that recurses depth frames deep and outputs the depth.
func recurse(depth int) string {
	return `function f(n) { return n === 0 ? 0 : 1 + f(n - 1) } text(f(` + strconv.Itoa(depth) + `))`
}
