package jsruntime

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Tests that involve time run in a synctest bubble (inBubble): their deadlines fire exactly when
// everything else is blocked, never early because the machine is slow.

// toolGate is a tool delegate whose calls wait until released.
type toolGate struct {
	release chan struct{}
	started chan string
}

func newToolGate() *toolGate {
	return &toolGate{release: make(chan struct{}), started: make(chan string, 16)}
}

func (g *toolGate) invoke(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	g.started <- call.RuntimeToolCallID
	select {
	case <-g.release:
		return json.RawMessage(`"released"`), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func waitCell(t *testing.T, s codemode.Session, id codemode.CellID, ms uint64) codemode.WaitOutcome {
	t.Helper()
	out, err := s.Wait(context.Background(), codemode.WaitRequest{CellID: id, YieldTimeMs: ms})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func startCell(t *testing.T, s codemode.Session, src string, yieldMs uint64, tools ...codemode.ToolDefinition) *codemode.StartedCell {
	t.Helper()
	c, err := s.Execute(context.Background(), codemode.ExecuteRequest{ToolCallID: "call", Source: src, YieldTimeMs: &yieldMs, EnabledTools: tools})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func initialResponse(t *testing.T, c *codemode.StartedCell) codemode.RuntimeResponse {
	t.Helper()
	r, err := c.InitialResponse(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestYieldsAndResumesWithOnlyNewOutput(t *testing.T) {
	inBubble(t, func(t *testing.T, p *Provider) {
		g := newToolGate()
		d := newRecorder(g.invoke)
		s := newSessionOn(t, p, d, codemode.SessionCellExecutionLimits{})
		c := startCell(t, s, `text("one"); yield_control(); await tools.block(); text("two");`, 30_000, testTool("block"))
		r := initialResponse(t, c)
		if r.Kind != codemode.Yielded || !reflect.DeepEqual(textsOf(r.ContentItems), []string{"one"}) {
			t.Fatalf("initial %+v", r)
		}
		<-g.started
		// A short wait yields with nothing new: the cell keeps running.
		out := waitCell(t, s, c.CellID, 10)
		if out.Missing || out.Response.Kind != codemode.Yielded || len(out.Response.ContentItems) != 0 {
			t.Fatalf("short wait %+v", out)
		}
		close(g.release)
		out = waitCell(t, s, c.CellID, 30_000)
		if out.Response.Kind != codemode.Result || !reflect.DeepEqual(textsOf(out.Response.ContentItems), []string{"two"}) {
			t.Fatalf("final %+v", out)
		}
		if _, _, closed := d.snapshot(); !reflect.DeepEqual(closed, []codemode.CellID{"1"}) {
			t.Fatalf("closed %v", closed)
		}
		if out := waitCell(t, s, c.CellID, 10); !out.Missing || *out.Response.ErrorText != "exec cell 1 not found" {
			t.Fatalf("wait after close %+v", out)
		}
	})
}

// The deadline counts from the runtime's start and fires only once the cell is blocked (the
// bubble's clock stands still while it runs), so the Yielded holds exactly the text before the call.
func TestYieldDeadlineDeliversOutputOfARunningCell(t *testing.T) {
	inBubble(t, func(t *testing.T, p *Provider) {
		s := newSessionOn(t, p, newRecorder(newToolGate().invoke), codemode.SessionCellExecutionLimits{})
		c := startCell(t, s, `text("early"); await tools.block();`, 20, testTool("block"))
		start := time.Now()
		r := initialResponse(t, c)
		if r.Kind != codemode.Yielded || !reflect.DeepEqual(textsOf(r.ContentItems), []string{"early"}) {
			t.Fatalf("%+v", r)
		}
		if waited := time.Since(start); waited != 20*time.Millisecond {
			t.Fatalf("yielded after %v, want exactly the 20ms deadline", waited)
		}
	})
}

func TestZeroYieldLimitIsImmediateAndScopedToItsSession(t *testing.T) {
	limited := newTestSession(t, newRecorder(newToolGate().invoke), codemode.SessionCellExecutionLimits{MaxYieldTimeMs: ptrU64(0)})
	r := initialResponse(t, startCell(t, limited, `await tools.block()`, 30_000, testTool("block")))
	if r.Kind != codemode.Yielded {
		t.Fatalf("%+v", r)
	}
	free := newTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	if r := followCell(t, free, initialResponse(t, startCell(t, free, `text("x")`, 30_000))); r.Kind != codemode.Result {
		t.Fatalf("%+v", r)
	}
}

func TestSecondObserverIsRejectedWithoutDisplacingTheFirst(t *testing.T) {
	g := newToolGate()
	s := newTestSession(t, newRecorder(g.invoke), codemode.SessionCellExecutionLimits{})
	c := startCell(t, s, `await tools.block(); text("done");`, 0, testTool("block"))
	initialResponse(t, c)
	<-g.started
	first := waitInBackground(t, s, c.CellID)
	_, err := s.Wait(context.Background(), codemode.WaitRequest{CellID: c.CellID, YieldTimeMs: 30_000})
	if err == nil || err.Error() != "exec cell 1 already has an active observer" || !errors.Is(err, &codemode.CellError{Kind: codemode.CellHasObserver}) {
		t.Fatalf("second observer: %v", err)
	}
	close(g.release)
	if out := <-first; out.Response.Kind != codemode.Result || textsOf(out.Response.ContentItems)[0] != "done" {
		t.Fatalf("first observer %+v", out)
	}
}

func TestDroppedObserverDoesNotConsumeOutput(t *testing.T) {
	g := newToolGate()
	s := newTestSession(t, newRecorder(g.invoke), codemode.SessionCellExecutionLimits{})
	c := startCell(t, s, `await tools.block(); text("kept"); await tools.block();`, 0, testTool("block"))
	initialResponse(t, c)
	<-g.started
	g.release <- struct{}{}
	<-g.started // "kept" was produced
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Wait(ctx, codemode.WaitRequest{CellID: c.CellID, YieldTimeMs: 0}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
	out := waitCell(t, s, c.CellID, 0)
	if !reflect.DeepEqual(textsOf(out.Response.ContentItems), []string{"kept"}) {
		t.Fatalf("%+v", out)
	}
	close(g.release)
}

func TestTerminateStopsACellAndKeepsItsOutput(t *testing.T) {
	g := newToolGate()
	d := newRecorder(g.invoke)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	c := startCell(t, s, `text("partial"); store("k", 1); await tools.block();`, 30_000, testTool("block"))
	<-g.started
	out, err := s.Terminate(context.Background(), c.CellID)
	if err != nil || out.Missing || out.Response.Kind != codemode.Terminated || !reflect.DeepEqual(textsOf(out.Response.ContentItems), []string{"partial"}) {
		t.Fatalf("%+v %v", out, err)
	}
	// The pending initial response learns that the cell ended.
	if r := initialResponse(t, c); r.Kind != codemode.Terminated || len(r.ContentItems) != 0 {
		t.Fatalf("initial response %+v", r)
	}
	if _, _, closed := d.snapshot(); !reflect.DeepEqual(closed, []codemode.CellID{"1"}) {
		t.Fatalf("closed %v", closed)
	}
	if out, _ := s.Terminate(context.Background(), c.CellID); !out.Missing {
		t.Fatalf("second terminate %+v", out)
	}
	// Termination never commits stored values.
	r := executeCell(t, s, `text(String(load("k")))`)
	if textsOf(r.ContentItems)[0] != "undefined" {
		t.Fatalf("terminated cell committed its store: %v", textsOf(r.ContentItems))
	}
}

func TestObservedNaturalCompletionWinsOverTermination(t *testing.T) {
	inBubble(t, func(t *testing.T, p *Provider) {
		s := newSessionOn(t, p, nil, codemode.SessionCellExecutionLimits{})
		c := startCell(t, s, `await new Promise(r => setTimeout(r, 30)); text("finished");`, 0)
		if r := initialResponse(t, c); r.Kind != codemode.Yielded {
			t.Fatalf("%+v", r)
		}
		time.Sleep(30 * time.Millisecond) // the bubble's clock: the timer fires, nothing else waits
		synctest.Wait()                   // the cell completed, unobserved
		out, err := s.Terminate(context.Background(), c.CellID)
		if err != nil || out.Response.Kind != codemode.Result || textsOf(out.Response.ContentItems)[0] != "finished" {
			t.Fatalf("%+v %v", out, err)
		}
	})
}

func TestRepeatedTerminationIsRejectedWhileCleanupIsPending(t *testing.T) {
	inBubble(t, func(t *testing.T, p *Provider) {
		unblock := make(chan struct{})
		started := make(chan struct{}, 1)
		d := newRecorder(func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
			started <- struct{}{}
			<-unblock // ignores cancellation until released
			return nil, ctx.Err()
		})
		s := newSessionOn(t, p, d, codemode.SessionCellExecutionLimits{})
		c := startCell(t, s, `await tools.stubborn()`, 0, testTool("stubborn"))
		initialResponse(t, c)
		<-started
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if _, err := s.Terminate(ctx, c.CellID); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("first terminate returned before the callback cleanup: %v", err)
		}
		if _, err := s.Terminate(context.Background(), c.CellID); err == nil || err.Error() != "exec cell 1 is already terminating" {
			t.Fatalf("second terminate: %v", err)
		}
		close(unblock)
		if id := <-d.closedC; id != c.CellID {
			t.Fatal(id)
		}
	})
}

func TestMissingCells(t *testing.T) {
	s := newTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	out := waitCell(t, s, "missing", 10)
	if !out.Missing || out.Response.Kind != codemode.Result || *out.Response.ErrorText != "exec cell missing not found" {
		t.Fatalf("%+v", out)
	}
	out, err := s.Terminate(context.Background(), "7")
	if err != nil || !out.Missing {
		t.Fatalf("%+v %v", out, err)
	}
}

func TestCellIDsCountPerSessionAndCellClosedOncePerCell(t *testing.T) {
	d := newRecorder(nil)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	for i, want := range []codemode.CellID{"1", "2", "3"} {
		c := startCell(t, s, `text(1)`, 30_000)
		if c.CellID != want {
			t.Fatalf("cell %d id %s", i, c.CellID)
		}
		initialResponse(t, c)
	}
	for range 3 {
		<-d.closedC
	}
	if _, _, closed := d.snapshot(); len(closed) != 3 {
		t.Fatalf("closed %v", closed)
	}
	other := newTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	if c := startCell(t, other, `1`, 30_000); c.CellID != "1" {
		t.Fatalf("other session id %s", c.CellID)
	}
}

func TestShutdownInterruptsCPUBoundCellsAndRejectsNewOnes(t *testing.T) {
	d := newRecorder(nil)
	s, err := sharedProvider().CreateSession(context.Background(), d, codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	c := startCell(t, s, `yield_control(); while (true) {}`, 30_000)
	if r := initialResponse(t, c); r.Kind != codemode.Yielded {
		t.Fatalf("%+v", r)
	}
	waited := waitInBackground(t, s, c.CellID)
	ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	awaitCellGoroutines(t, s)
	if out := <-waited; out.Response.Kind != codemode.Terminated {
		t.Fatalf("%+v", out)
	}
	if _, _, closed := d.snapshot(); len(closed) != 1 {
		t.Fatalf("closed %v", closed)
	}
	if _, err := s.Execute(context.Background(), codemode.ExecuteRequest{Source: "1"}); !errors.Is(err, codemode.ErrShuttingDown) {
		t.Fatalf("execute after shutdown: %v", err)
	}
}

func TestAbandonedInitialResponseTerminatesTheCell(t *testing.T) {
	d := newRecorder(nil)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	c := startCell(t, s, `while (true) {}`, 30_000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.InitialResponse(ctx); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if id := <-d.closedC; id != c.CellID {
		t.Fatal(id)
	}
}

func TestCompletionDrainsNotificationsBeforeTheResult(t *testing.T) {
	inBubble(t, func(t *testing.T, p *Provider) {
		delivered := make(chan string, 4)
		d := &slowNotifier{recordingDelegate: newRecorder(nil), delivered: delivered}
		s := newSessionOn(t, p, codemode.FromBlocking(d), codemode.SessionCellExecutionLimits{})
		r := executeCell(t, s, `notify("a"); notify("b");`)
		if r.Kind != codemode.Result || len(delivered) != 2 {
			t.Fatalf("%+v, %d notifications delivered before the result", r, len(delivered))
		}
	})
}

// slowNotifier takes a second of the bubble's clock per notification. Its Notify is its own, so a
// session gets codemode.FromBlocking of it, not the embedded recorder's adapter.
type slowNotifier struct {
	*recordingDelegate
	delivered chan string
}

func (d *slowNotifier) Notify(_ context.Context, _ string, _ codemode.CellID, text string) error {
	time.Sleep(time.Second)
	d.delivered <- text
	return nil
}

// A callback that ignores cancellation holds a terminate for terminateGrace at most.
func TestTerminateGivesUpOnCallbacksThatIgnoreCancellation(t *testing.T) {
	inBubble(t, func(t *testing.T, p *Provider) {
		release := make(chan struct{})
		defer close(release)
		started := make(chan struct{}, 1)
		d := newRecorder(func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) {
			started <- struct{}{}
			<-release // never honours cancellation
			return nil, nil
		})
		s := newSessionOn(t, p, d, codemode.SessionCellExecutionLimits{})
		c := startCell(t, s, `text("x"); await tools.stuck()`, 0, testTool("stuck"))
		initialResponse(t, c)
		<-started
		begin := time.Now()
		out, err := s.Terminate(context.Background(), c.CellID)
		if err != nil || out.Response.Kind != codemode.Terminated || !reflect.DeepEqual(textsOf(out.Response.ContentItems), []string{"x"}) {
			t.Fatalf("%+v %v", out, err)
		}
		if waited := time.Since(begin); waited != terminateGrace {
			t.Fatalf("terminate returned after %v, want the %v grace", waited, terminateGrace)
		}
		if id := <-d.closedC; id != c.CellID {
			t.Fatal(id)
		}
	})
}

// waitInBackground starts a Wait that never yields by deadline and returns once the session has
// made it the cell's observer; the channel receives its outcome.
func waitInBackground(t *testing.T, s codemode.Session, id codemode.CellID) <-chan codemode.WaitOutcome {
	t.Helper()
	attached := make(chan struct{})
	setAttachedHook(s, func(codemode.CellID) { close(attached) })
	out := make(chan codemode.WaitOutcome, 1)
	go func() {
		o, err := s.Wait(context.Background(), codemode.WaitRequest{CellID: id, YieldTimeMs: 3_600_000})
		if err != nil {
			t.Error(err)
		}
		out <- o
	}()
	<-attached
	setAttachedHook(s, nil)
	return out
}

// setAttachedHook sets the hook called when an observer is registered (under the lock that
// guards its use).
func setAttachedHook(s codemode.Session, hook func(codemode.CellID)) {
	sess := s.(*session)
	sess.mu.Lock()
	sess.hooks.attached = hook
	sess.mu.Unlock()
}

// The initial yield deadline counts from the runtime's start, not from the request: the deadline
// bounds how long the script runs before the model hears from it, and the time a runtime takes to
// start is not the script's (docs/protocol/javascript.md#yield-deadlines). A cell whose start
// takes five seconds still gets its full second once it runs.
func TestYieldDeadlineCountsFromTheRuntimeStart(t *testing.T) {
	inBubble(t, func(t *testing.T, p *Provider) {
		g := newToolGate()
		s := newSessionOn(t, p, newRecorder(g.invoke), codemode.SessionCellExecutionLimits{})
		breakRuntime(s, stageStarting, func() { time.Sleep(5 * time.Second) })
		begin := time.Now()
		c := startCell(t, s, `text("early"); await tools.block();`, 1_000, testTool("block"))
		r := initialResponse(t, c)
		if r.Kind != codemode.Yielded || !reflect.DeepEqual(textsOf(r.ContentItems), []string{"early"}) {
			t.Fatalf("%+v", r)
		}
		if waited := time.Since(begin); waited != 6*time.Second {
			t.Fatalf("yielded %v after Execute, want the 5s start plus the 1s yield", waited)
		}
	})
}

func TestSequentialCellsLeaveNothingBehind(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	d := newRecorder(echoTool)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	run1 := func() {
		r := executeCell(t, s, `text(await tools.echo(1)); setTimeout(() => {}, 100000); tools.echo(2);`, testTool("echo"))
		if r.Kind != codemode.Result || r.ErrorText != nil {
			t.Fatalf("%+v", r)
		}
		<-d.closedC
	}
	run1()
	time.Sleep(50 * time.Millisecond)
	before := runtime.NumGoroutine()
	for range n {
		run1()
	}
	sess := s.(*session)
	var left int
	// Polled state, no event says "a goroutine ended": the deadline only bounds a failure, so it is
	// long enough for two loaded cores (it asserts no speed).
	for deadline := time.Now().Add(guardTimeout); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		sess.mu.Lock()
		left = len(sess.cells)
		sess.mu.Unlock()
		if left == 0 && runtime.NumGoroutine() <= before {
			break
		}
	}
	if left != 0 || runtime.NumGoroutine() > before {
		t.Fatalf("after %d cells: %d cells kept, goroutines %d -> %d", n, left, before, runtime.NumGoroutine())
	}
}
