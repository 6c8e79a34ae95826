package codemodetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Timeouts of the suite. They bound waits for things that must happen eventually; they are never
// used to assert that something was fast.
const (
	// opTimeout bounds one session operation (an initial response, a wait, a terminate).
	opTimeout = 30 * time.Second
	// cleanupTimeout bounds the shutdown at the end of every subtest.
	cleanupTimeout = 60 * time.Second
	// foreverMs is a yield time that never elapses during a test, so the cell's own behaviour
	// (completion, yield_control) decides when the observer is answered.
	foreverMs uint64 = 3_600_000
)

// Run runs the conformance suite. newProvider is called once per subtest, inside it, and should
// register the provider's cleanup with t.
func Run(t *testing.T, newProvider func(t *testing.T) codemode.SessionProvider, opts ...Option) {
	t.Helper()
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	for _, c := range allCases() {
		t.Run(c.name, func(t *testing.T) {
			if !cfg.fakeTime {
				c.run(t, &harness{t: t, newProvider: newProvider})
				return
			}
			synctest.Test(t, func(t *testing.T) {
				c.run(t, &harness{t: t, newProvider: newProvider, fakeTime: true})
			})
		})
	}
}

// Option adjusts Run.
type Option func(*config)

type config struct {
	fakeTime bool
}

// FakeTime runs every subtest inside a testing/synctest bubble. Time there is the bubble's fake
// clock, which moves only when every goroutine of the bubble is blocked: yield deadlines, graces
// and timers then fire exactly when a case lets them, never early because the machine is slow,
// and the cases that need to steer time (Codex's yield-grace and delayed-timer tests) run.
// Without FakeTime those cases are skipped.
//
// The provider must suit a bubble: newProvider creates it inside the subtest (so its goroutines
// belong to the bubble), it must not wait on real I/O such as sockets or other processes (use
// in-memory pipes), and its cleanup must leave no goroutine behind.
func FakeTime() Option { return func(c *config) { c.fakeTime = true } }

// testCase is one subtest of the suite.
type testCase struct {
	name string
	run  func(t *testing.T, h *harness)
}

// allCases lists every subtest in the order they run.
func allCases() []testCase {
	var cases []testCase
	cases = append(cases, lifecycleCases()...)
	cases = append(cases, observerCases()...)
	cases = append(cases, yieldCases()...)
	cases = append(cases, terminationCases()...)
	cases = append(cases, limitCases()...)
	cases = append(cases, timeCases()...)
	cases = append(cases, shutdownCases()...)
	cases = append(cases, toolCases()...)
	cases = append(cases, notificationCases()...)
	cases = append(cases, failureCases()...)
	cases = append(cases, storeCases()...)
	cases = append(cases, pendingCases()...)
	cases = append(cases, globalsCases()...)
	return cases
}

// harness gives a subtest its provider (created on first use) and sessions.
type harness struct {
	t           *testing.T
	newProvider func(t *testing.T) codemode.SessionProvider
	provider    codemode.SessionProvider
	// fakeTime is set when the subtest runs in a synctest bubble (FakeTime).
	fakeTime bool
}

// providerOnce returns the subtest's provider, creating it on first use.
func (h *harness) providerOnce() codemode.SessionProvider {
	if h.provider == nil {
		h.provider = h.newProvider(h.t)
	}
	return h.provider
}

// requireFakeTime skips a case that must steer time when the suite runs on the real clock.
func (h *harness) requireFakeTime() {
	h.t.Helper()
	if !h.fakeTime {
		h.t.Skip("needs a clock the test controls: run the suite with codemodetest.FakeTime")
	}
}

// advance moves the bubble's clock on by d: it returns once d has passed and every goroutine the
// case started is blocked again. Only with FakeTime.
func (h *harness) advance(d time.Duration) {
	h.t.Helper()
	h.requireFakeTime()
	time.Sleep(d)
	synctest.Wait()
}

// settle returns once every other goroutine of the bubble is blocked, that is, once the session
// has done everything it can do without a new event. It does nothing on the real clock.
func (h *harness) settle() {
	if h.fakeTime {
		synctest.Wait()
	}
}

// isDone reports whether ch is closed, after letting the session settle.
func (h *harness) isDone(ch <-chan struct{}) bool {
	h.settle()
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// session opens a session with default limits and a fresh Recorder.
func (h *harness) session() *fixture {
	h.t.Helper()
	return h.sessionWithLimits(codemode.SessionCellExecutionLimits{})
}

// sessionWithLimits opens a session with limits; the subtest is skipped when the provider does
// not support non-default limits, which the contract allows.
func (h *harness) sessionWithLimits(limits codemode.SessionCellExecutionLimits) *fixture {
	h.t.Helper()
	rec := NewRecorder()
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	sess, err := h.providerOnce().CreateSession(ctx, rec, limits)
	if err != nil {
		if !limits.IsDefault() && err.Error() == codemode.ErrResourceLimitsUnsupported.Error() {
			h.t.Skipf("provider does not support session limits: %v", err)
		}
		h.t.Fatalf("CreateSession: %v", err)
	}
	f := &fixture{t: h.t, h: h, rec: rec, sess: sess}
	h.t.Cleanup(f.shutdownAndVerifyClosures)
	return f
}

// fixture is one session under test with its Recorder. It remembers every admitted cell so the
// subtest's cleanup can check that each was closed exactly once.
type fixture struct {
	t    *testing.T
	h    *harness
	rec  *Recorder
	sess codemode.Session

	mu       sync.Mutex
	admitted []codemode.CellID
	calls    int
}

// execOption adjusts the ExecuteRequest built by fixture.execute.
type execOption func(*codemode.ExecuteRequest)

// yieldAfter sets the request's yield time.
func yieldAfter(ms uint64) execOption {
	return func(r *codemode.ExecuteRequest) { r.YieldTimeMs = &ms }
}

// withTools enables tools for the cell.
func withTools(defs ...codemode.ToolDefinition) execOption {
	return func(r *codemode.ExecuteRequest) { r.EnabledTools = append(r.EnabledTools, defs...) }
}

// defaultYield leaves the request's yield time unset, so the session's default applies.
func defaultYield() execOption {
	return func(r *codemode.ExecuteRequest) { r.YieldTimeMs = nil }
}

// withCallID sets the exec tool call id.
func withCallID(id string) execOption {
	return func(r *codemode.ExecuteRequest) { r.ToolCallID = id }
}

// execute admits a cell. Unless an option says otherwise the yield time is foreverMs, so the
// cell's own behaviour decides its initial response.
func (f *fixture) execute(source string, opts ...execOption) *codemode.StartedCell {
	f.t.Helper()
	c, err := f.tryExecute(source, opts...)
	if err != nil {
		f.t.Fatalf("Execute: %v", err)
	}
	return c
}

// tryExecute is execute that returns the error instead of failing the test.
func (f *fixture) tryExecute(source string, opts ...execOption) (*codemode.StartedCell, error) {
	req := f.request(source, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	c, err := f.sess.Execute(ctx, req)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, errors.New("execute returned a nil StartedCell without an error")
	}
	f.admit(c.CellID)
	return c, nil
}

// admit remembers a cell the session admitted, for the closure check at cleanup.
func (f *fixture) admit(id codemode.CellID) {
	f.mu.Lock()
	f.admitted = append(f.admitted, id)
	f.mu.Unlock()
}

// request builds an ExecuteRequest the way execute does.
func (f *fixture) request(source string, opts ...execOption) codemode.ExecuteRequest {
	f.mu.Lock()
	f.calls++
	req := codemode.ExecuteRequest{ToolCallID: fmt.Sprintf("exec-call-%d", f.calls), Source: source}
	f.mu.Unlock()
	yield := foreverMs
	req.YieldTimeMs = &yield
	for _, o := range opts {
		o(&req)
	}
	return req
}

// initial waits for a cell's initial response.
func (f *fixture) initial(c *codemode.StartedCell) codemode.RuntimeResponse {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	r, err := c.InitialResponse(ctx)
	if err != nil {
		f.t.Fatalf("InitialResponse of cell %q: %v", c.CellID, err)
	}
	return r
}

// run executes source and returns its initial response.
func (f *fixture) run(source string, opts ...execOption) codemode.RuntimeResponse {
	f.t.Helper()
	return f.initial(f.execute(source, opts...))
}

// wait observes a cell and fails the test on error.
func (f *fixture) wait(id codemode.CellID, yieldMs uint64) codemode.WaitOutcome {
	f.t.Helper()
	o, err := f.tryWait(context.Background(), id, yieldMs)
	if err != nil {
		f.t.Fatalf("Wait(%q, %d ms): %v", id, yieldMs, err)
	}
	return o
}

// tryWait observes a cell with a ctx derived from parent and bounded by opTimeout.
func (f *fixture) tryWait(parent context.Context, id codemode.CellID, yieldMs uint64) (codemode.WaitOutcome, error) {
	ctx, cancel := context.WithTimeout(parent, opTimeout)
	defer cancel()
	return f.sess.Wait(ctx, codemode.WaitRequest{CellID: id, YieldTimeMs: yieldMs})
}

// waitLive observes a live cell and returns its response.
func (f *fixture) waitLive(id codemode.CellID, yieldMs uint64) codemode.RuntimeResponse {
	f.t.Helper()
	o := f.wait(id, yieldMs)
	if o.Missing {
		f.t.Fatalf("Wait(%q) reported a missing cell: %s", id, describe(o.Response))
	}
	return o.Response
}

// terminate stops a cell and fails the test on error.
func (f *fixture) terminate(id codemode.CellID) codemode.WaitOutcome {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	o, err := f.sess.Terminate(ctx, id)
	if err != nil {
		f.t.Fatalf("Terminate(%q): %v", id, err)
	}
	return o
}

// shutdown shuts the session down and fails the test on error.
func (f *fixture) shutdown() {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	if err := f.sess.Shutdown(ctx); err != nil {
		f.t.Fatalf("Shutdown: %v", err)
	}
}

// awaitToolCall waits for the nth call to tool.
func (f *fixture) awaitToolCall(tool string, nth int) *ToolCall {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	c, err := f.rec.AwaitToolCall(ctx, tool, nth)
	if err != nil {
		f.t.Fatalf("%v; events: %v", err, f.rec.Events())
	}
	return c
}

// awaitCellClosed waits until the delegate was told that id closed.
func (f *fixture) awaitCellClosed(id codemode.CellID) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if err := f.rec.AwaitCellClosed(ctx, id); err != nil {
		f.t.Fatalf("%v; events: %v", err, f.rec.Events())
	}
}

// awaitClosed waits for ch (a Cancelled or Returned channel) and fails with what when it does not
// close in time.
func (f *fixture) awaitClosed(ch <-chan struct{}, what string) {
	f.t.Helper()
	select {
	case <-ch:
	case <-time.After(opTimeout):
		f.t.Fatalf("%s did not happen within %s; events: %v", what, opTimeout, f.rec.Events())
	}
}

// shutdownAndVerifyClosures ends every subtest: the session shuts down (again, if the test did
// already: Shutdown must be idempotent), and every admitted cell must have been reported closed
// exactly once, and no other cell at all.
func (f *fixture) shutdownAndVerifyClosures() {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	if err := f.sess.Shutdown(ctx); err != nil {
		f.t.Errorf("Shutdown at cleanup: %v", err)
		return
	}
	f.mu.Lock()
	admitted := append([]codemode.CellID(nil), f.admitted...)
	f.mu.Unlock()
	for _, id := range admitted {
		if err := f.rec.AwaitCellClosed(ctx, id); err != nil {
			f.t.Errorf("after Shutdown: %v", err)
		}
	}
	counts := map[codemode.CellID]int{}
	for _, id := range f.rec.ClosedCells() {
		counts[id]++
	}
	for _, id := range admitted {
		if counts[id] != 1 {
			f.t.Errorf("CellClosed(%q) was called %d times, want exactly once", id, counts[id])
		}
		delete(counts, id)
	}
	for id, n := range counts {
		f.t.Errorf("CellClosed(%q) was called %d times for a cell that was never admitted", id, n)
	}
}
