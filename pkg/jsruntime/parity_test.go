package jsruntime

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Codex runtime tests (docs/protocol/README.md#codex-test-suites) about the runtime's internals, under Codex's names. Go has no
// threads to panic and no task join errors; their counterparts are a cell goroutine that panics or
// ends through runtime.Goexit, played by the session's test hook, and a delegate goroutine that
// ends through runtime.Goexit (as t.FailNow in a test delegate does).

// reportingDelegate is a recordingDelegate whose failure reports arrive on failures.
type reportingDelegate struct {
	*recordingDelegate
	failures chan string
}

func newReportingDelegate(invoke func(context.Context, codemode.NestedToolCall) (json.RawMessage, error)) *reportingDelegate {
	d := &reportingDelegate{recordingDelegate: newRecorder(invoke), failures: make(chan string, 16)}
	d.onFailure = func(reason string) { d.failures <- reason }
	return d
}

// breakRuntime makes the goroutine of every cell of s call fail at stage.
func breakRuntime(s codemode.Session, stage runtimeStage, fail func()) {
	s.(*session).hooks.runtime = func(_ codemode.CellID, st runtimeStage) {
		if st == stage {
			fail()
		}
	}
}

// checkRuntimeEnded fails the test unless r is the Result of a cell whose runtime died.
func checkRuntimeEnded(t *testing.T, r codemode.RuntimeResponse, items ...string) {
	t.Helper()
	if items == nil {
		items = []string{}
	}
	if r.Kind != codemode.Result || errorTextOf(r) != "exec runtime ended unexpectedly" || !reflect.DeepEqual(textsOf(r.ContentItems), items) {
		t.Fatalf("response %+v (error %q), want a Result with %q failing with \"exec runtime ended unexpectedly\"", r, errorTextOf(r), items)
	}
}

func TestUnexpectedRuntimeThreadExitIsReportedToTheSessionOwner(t *testing.T) {
	d := newReportingDelegate(nil)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	breakRuntime(s, stageIdle, runtime.Goexit)
	checkRuntimeEnded(t, executeCell(t, s, `text("before"); await new Promise(() => {});`), "before")
	if got := <-d.failures; got != "code-mode V8 runtime thread ended unexpectedly" {
		t.Fatalf("reported %q", got)
	}
}

func TestRuntimeThreadPanicRemainsACellErrorWithoutOwnerSupervision(t *testing.T) {
	d := newRecorder(nil)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	breakRuntime(s, stageIdle, func() { panic("runtime thread panic probe") })
	checkRuntimeEnded(t, executeCell(t, s, `await new Promise(() => {});`))
	if id := <-d.closedC; id != "1" {
		t.Fatalf("closed %q", id)
	}
	// The session lives on; only its broken cells fail.
	breakRuntime(s, stageIdle, func() {})
	if r := executeCell(t, s, `text("alive")`); r.ErrorText != nil || textsOf(r.ContentItems)[0] != "alive" {
		t.Fatalf("%+v", r)
	}
}

func TestRuntimeThreadPanicBeforeInitializationIsReportedDirectly(t *testing.T) {
	d := newReportingDelegate(nil)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	breakRuntime(s, stageStarting, func() { panic("runtime thread panic probe") })
	checkRuntimeEnded(t, executeCell(t, s, `text("never")`))
	if got := <-d.failures; got != "code-mode V8 runtime thread panicked" {
		t.Fatalf("reported %q", got)
	}
}

// With ReportFailure a no-op the panic still reaches the cell's observer, as its error.
func TestRuntimeThreadPanicIsForwardedWithoutOwnerSupervision(t *testing.T) {
	s := newTestSession(t, newRecorder(nil), codemode.SessionCellExecutionLimits{})
	breakRuntime(s, stageStarting, func() { panic("runtime thread panic probe") })
	checkRuntimeEnded(t, executeCell(t, s, `text("never")`))
}

// A delegate goroutine that ends without returning (Go's counterpart of a callback wrapper that
// failed to join) rejects the call with Codex's text and is reported; the cell goes on.
func TestCallbackWrapperJoinErrorReportsFailure(t *testing.T) {
	d := newReportingDelegate(func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) {
		runtime.Goexit()
		return nil, nil
	})
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	r := executeCell(t, s, `try { await tools.gone({}); } catch (e) { text(e); } text("after");`, testTool("gone"))
	want := []string{"code mode tool task failed: its goroutine ended without returning", "after"}
	if got := textsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s %q", errorTextOf(r), got)
	}
	if got := <-d.failures; !strings.Contains(got, "code mode tool task failed") {
		t.Fatalf("reported %q", got)
	}
}

// goexitNotifier ends its goroutine on the first notification and records the others. Its Notify
// is its own, so a session gets codemode.FromBlocking of it.
type goexitNotifier struct {
	*reportingDelegate
	delivered chan string
}

func (d *goexitNotifier) Notify(_ context.Context, _ string, _ codemode.CellID, text string) error {
	if text == "first" {
		runtime.Goexit()
	}
	d.delivered <- text
	return nil
}

// A Notify that ends its goroutine is reported, and the notifications after it are still
// delivered before the Result.
func TestNotificationCallbackGoexitReportsFailureAndDeliveryGoesOn(t *testing.T) {
	d := &goexitNotifier{reportingDelegate: newReportingDelegate(nil), delivered: make(chan string, 4)}
	s := newTestSession(t, codemode.FromBlocking(d), codemode.SessionCellExecutionLimits{})
	r := executeCell(t, s, `notify("first"); notify("second"); text("done");`)
	if r.Kind != codemode.Result || r.ErrorText != nil || len(d.delivered) != 1 || <-d.delivered != "second" {
		t.Fatalf("%+v; the notification after the one that ended its goroutine was not delivered first", r)
	}
	if got := <-d.failures; got != "code mode notification task failed: its goroutine ended without returning" {
		t.Fatalf("reported %q", got)
	}
}

func TestCellIDAllocationFailsBeforeWrapping(t *testing.T) {
	s := newTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	sess := s.(*session)
	sess.mu.Lock()
	sess.ids.SetLastForTest(math.MaxUint64)
	sess.mu.Unlock()
	_, err := s.Execute(context.Background(), codemode.ExecuteRequest{Source: `text("unreachable")`})
	if !errors.Is(err, codemode.ErrCellIDSpaceExhausted) || err.Error() != "code mode session exhausted its cell ID space" {
		t.Fatalf("Execute at the end of the ID space: %v", err)
	}
}

// An Execute that is waiting for the registry lock when Shutdown begins is refused, even if it
// gets the lock first: Shutdown marks the session before it waits for the lock.
func TestShutdownRejectsCellAdmissionQueuedBeforeTheRegistryLock(t *testing.T) {
	d := newRecorder(nil)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	sess := s.(*session)
	sess.mu.Lock()
	executed := make(chan error, 1)
	go func() {
		_, err := s.Execute(context.Background(), codemode.ExecuteRequest{Source: `while (true) {}`, YieldTimeMs: ptrU64(1)})
		executed <- err
	}()
	awaitBlockedOnLock(t, "(*session).start")
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	awaitBlockedOnLock(t, "(*session).registered")
	sess.mu.Unlock()
	if err := <-executed; !errors.Is(err, codemode.ErrShuttingDown) {
		t.Fatalf("queued Execute: %v, want %v", err, codemode.ErrShuttingDown)
	}
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
	if _, _, closed := d.snapshot(); len(closed) != 0 {
		t.Fatalf("a refused cell was admitted and closed: %v", closed)
	}
}

// awaitBlockedOnLock returns once some goroutine is blocked locking a mutex inside fn. It reads
// the goroutines' stacks: a mutex wait cannot be observed otherwise, and it is an event, not a
// duration, that the test needs.
func awaitBlockedOnLock(t *testing.T, fn string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			if strings.Contains(g, "sync.(*Mutex).Lock") && strings.Contains(g, fn) {
				return
			}
		}
		runtime.Gosched()
	}
}

// Go has no destructors, so no session ends because it was dropped while its registry was locked.
// The counterpart: Provider.Close stops the cells of sessions nobody shut down.
func TestDropTerminatesCellsWhenTheRegistryIsLocked(t *testing.T) {
	p, err := NewProvider(Options{PoolSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	d := newRecorder(nil)
	s, err := p.CreateSession(context.Background(), d, codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	c := startCell(t, s, `yield_control(); while (true) {}`, 30_000)
	if r := initialResponse(t, c); r.Kind != codemode.Yielded {
		t.Fatalf("%+v", r)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	awaitCellGoroutines(t, s)
	if id := <-d.closedC; id != c.CellID {
		t.Fatalf("closed %q", id)
	}
	if _, err := s.Execute(context.Background(), codemode.ExecuteRequest{Source: "1"}); !errors.Is(err, codemode.ErrShuttingDown) {
		t.Fatalf("execute after Close: %v", err)
	}
}

// Codex's CellState test, on the session's state: of two terminates of a completed, unobserved
// cell the first claims the completion and the second finds the cell gone. (The suite races real
// terminates; this pins the claim itself.)
func TestOnlyTheFirstTerminationClaimsABufferedCompletion(t *testing.T) {
	inBubble(t, func(t *testing.T, p *Provider) {
		s := newSessionOn(t, p, nil, codemode.SessionCellExecutionLimits{})
		c := startCell(t, s, `yield_control(); text("done");`, 30_000)
		initialResponse(t, c)
		synctest.Wait() // completed, unobserved
		sess := s.(*session)
		sess.mu.Lock()
		cl := sess.cells[c.CellID]
		terminate := event{kind: evTerminate, terminator: make(chan codemode.RuntimeResponse, 1)}
		var first, second applied
		sess.applyLocked(cl, &terminate, &first)
		sess.applyLocked(cl, &terminate, &second)
		sess.mu.Unlock()
		if first.claimed == nil || !reflect.DeepEqual(textsOf(first.claimed.ContentItems), []string{"done"}) {
			t.Fatalf("first terminate claimed %+v, want the completion", first)
		}
		if second.refused != refusedMissing || second.claimed != nil {
			t.Fatalf("second terminate claimed %+v, want a missing cell", second)
		}
		sess.closeCell(cl)
	})
}

// A frontier lists the calls still awaiting their result: a call whose result was delivered
// before the cell became quiescent (here one rejected at once: exec cannot invoke itself) is not
// in it.
func TestFrontierListsOnlyCallsStillInFlight(t *testing.T) {
	s := newTestSession(t, newRecorder(nil), codemode.SessionCellExecutionLimits{}).(*session)
	o, err := s.ExecuteToPending(context.Background(), codemode.ExecuteRequest{
		Source:       `try { await tools.exec({}); } catch (e) { text(e); } tools.block({}); await new Promise(() => {});`,
		EnabledTools: []codemode.ToolDefinition{testTool("exec"), testTool("block")},
	})
	if err != nil {
		t.Fatal(err)
	}
	f := o.Frontier
	if o.Completed || !reflect.DeepEqual(textsOf(f.ContentItems), []string{"exec cannot invoke itself"}) || !reflect.DeepEqual(f.PendingToolCallIDs, []string{"tool-2"}) {
		t.Fatalf("frontier %+v, want the rejection text and only tool-2 in flight", o)
	}
}
