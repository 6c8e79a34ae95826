package codemodetest_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
)

func call(cell codemode.CellID, id, tool string, input string) codemode.NestedToolCall {
	c := codemode.NestedToolCall{CellID: cell, RuntimeToolCallID: id, ToolName: codemode.ToolName{Name: tool}, ToolKind: codemode.ToolKindFunction}
	if input != "" {
		c.Input = json.RawMessage(input)
	}
	return c
}

func within(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestRecorderRecordsEveryCallbackInOrder(t *testing.T) {
	rec := codemodetest.NewRecorder()
	rec.Handle("echo", codemodetest.Echo())
	ctx := within(t)

	out, err := rec.InvokeTool(ctx, call("1", "tool-1", "echo", `{"a":1}`))
	if err != nil || string(out) != `{"a":1}` {
		t.Fatalf("echo = %s, %v", out, err)
	}
	if out, err := rec.InvokeTool(ctx, call("1", "tool-2", "echo", "")); err != nil || string(out) != "null" {
		t.Fatalf("echo without input = %s, %v", out, err)
	}
	if err := rec.Notify(ctx, "call-1", "1", "hello"); err != nil {
		t.Fatalf("Notify: %v", err)
	}
	rec.CellClosed("1")
	mark := rec.Mark("after close")

	var kinds []codemodetest.EventKind
	var last uint64
	for _, e := range rec.Events() {
		if e.Seq <= last {
			t.Fatalf("sequence not increasing at %v", e)
		}
		last = e.Seq
		kinds = append(kinds, e.Kind)
	}
	wantKinds := []codemodetest.EventKind{
		codemodetest.EventToolCalled, codemodetest.EventToolReturned,
		codemodetest.EventToolCalled, codemodetest.EventToolReturned,
		codemodetest.EventNotified, codemodetest.EventNotifyReturned,
		codemodetest.EventCellClosed, codemodetest.EventMark,
	}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Fatalf("event kinds %v, want %v", kinds, wantKinds)
	}
	if mark != last {
		t.Fatalf("Mark returned %d, last event is %d", mark, last)
	}
	calls := rec.ToolCalls()
	if len(calls) != 2 || calls[0].Call.RuntimeToolCallID != "tool-1" || calls[1].ReturnSeq() <= calls[1].Seq {
		t.Fatalf("calls %+v", calls)
	}
	notes := rec.Notifications()
	if len(notes) != 1 || notes[0].CallID != "call-1" || notes[0].CellID != "1" || notes[0].Text != "hello" || notes[0].ReturnSeq() == 0 {
		t.Fatalf("notifications %+v", notes)
	}
	if got := rec.ClosedCells(); !reflect.DeepEqual(got, []codemode.CellID{"1"}) || rec.CellClosedCount("1") != 1 || rec.CellClosedCount("2") != 0 {
		t.Fatalf("closed cells %v", got)
	}
}

func TestRecorderLooksToolsUpByDisplayName(t *testing.T) {
	rec := codemodetest.NewRecorder()
	rec.Handle("mcp__srv__dyn", codemodetest.Returns(`"namespaced"`))
	rec.Handle("plain", codemodetest.Returns(`"plain"`))
	ns, fn := "mcp__srv__", "functions"
	ctx := within(t)
	if out, err := rec.InvokeTool(ctx, codemode.NestedToolCall{ToolName: codemode.ToolName{Name: "dyn", Namespace: &ns}}); err != nil || string(out) != `"namespaced"` {
		t.Fatalf("namespaced tool = %s, %v", out, err)
	}
	if out, err := rec.InvokeTool(ctx, codemode.NestedToolCall{ToolName: codemode.ToolName{Name: "plain", Namespace: &fn}}); err != nil || string(out) != `"plain"` {
		t.Fatalf("default-namespace alias = %s, %v", out, err)
	}
	_, err := rec.InvokeTool(ctx, call("1", "tool-3", "unknown", ""))
	if err == nil || err.Error() != `codemodetest: no behaviour scripted for tool "unknown"` {
		t.Fatalf("unscripted tool error = %v", err)
	}
	if _, recorded := rec.ToolCalls()[2].Result(); recorded == nil {
		t.Fatal("the unscripted call's error was not recorded")
	}
}

func TestFailsRejectsWithTheMessage(t *testing.T) {
	rec := codemodetest.NewRecorder()
	rec.Handle("deny", codemodetest.Fails("no way"))
	if _, err := rec.InvokeTool(within(t), call("1", "tool-1", "deny", "")); err == nil || err.Error() != "no way" {
		t.Fatalf("err = %v", err)
	}
}

// invokeAsync runs InvokeTool in the background and reports its result on the returned channel.
func invokeAsync(ctx context.Context, rec *codemodetest.Recorder, c codemode.NestedToolCall) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := rec.InvokeTool(ctx, c)
		done <- err
	}()
	return done
}

func TestGateHoldsCallsUntilReleasedOrCancelled(t *testing.T) {
	rec := codemodetest.NewRecorder()
	gate := codemodetest.NewGate()
	rec.Handle("gate", gate.Tool(`"open"`))
	ctx := within(t)

	cancelled, cancel := context.WithCancel(ctx)
	first := invokeAsync(cancelled, rec, call("1", "tool-1", "gate", ""))
	held, err := rec.AwaitToolCall(ctx, "gate", 1)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled gate call returned %v", err)
	}
	select {
	case <-held.Cancelled():
	default:
		t.Fatal("Cancelled() is not closed after the call's ctx was cancelled")
	}

	second := invokeAsync(ctx, rec, call("1", "tool-2", "gate", ""))
	waiting, err := rec.AwaitToolCall(ctx, "gate", 2)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-waiting.Returned():
		t.Fatal("a gate call returned before the gate was released")
	default:
	}
	gate.Release()
	gate.Release()
	if err := <-second; err != nil {
		t.Fatalf("released gate call returned %v", err)
	}
	if out, err := waiting.Result(); err != nil || string(out) != `"open"` {
		t.Fatalf("released gate call = %s, %v", out, err)
	}
}

func TestBarrierReleasesOnlyWhenAllCallsAreInFlight(t *testing.T) {
	rec := codemodetest.NewRecorder()
	rec.Handle("barrier", codemodetest.NewBarrier(2).Tool())
	ctx := within(t)
	first := invokeAsync(ctx, rec, call("1", "tool-1", "barrier", `{"n":1}`))
	c, err := rec.AwaitToolCall(ctx, "barrier", 1)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Returned():
		t.Fatal("the barrier let one call through alone")
	default:
	}
	if out, err := rec.InvokeTool(ctx, call("1", "tool-2", "barrier", `{"n":2}`)); err != nil || string(out) != `{"n":2}` {
		t.Fatalf("second barrier call = %s, %v", out, err)
	}
	if err := <-first; err != nil {
		t.Fatalf("first barrier call: %v", err)
	}
}

func TestBlocksUntilCancelledReturnsTheContextError(t *testing.T) {
	rec := codemodetest.NewRecorder()
	rec.Handle("block", codemodetest.BlocksUntilCancelled())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := rec.InvokeTool(ctx, call("1", "tool-1", "block", "")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

func TestNotifyGateAcknowledgesOnRelease(t *testing.T) {
	rec := codemodetest.NewRecorder()
	gate := codemodetest.NewGate()
	rec.HandleNotify(gate.Notify())
	ctx := within(t)
	done := make(chan error, 1)
	go func() { done <- rec.Notify(ctx, "call-1", "1", "held") }()
	notes, err := rec.AwaitNotifications(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if notes[0].ReturnSeq() != 0 {
		t.Fatal("a held notification reports a return")
	}
	gate.Release()
	if err := <-done; err != nil {
		t.Fatalf("Notify: %v", err)
	}
	<-notes[0].Returned()
	if notes[0].ReturnSeq() <= notes[0].Seq {
		t.Fatalf("return seq %d not after call seq %d", notes[0].ReturnSeq(), notes[0].Seq)
	}
}

func TestAwaitHelpersWakeOnEventsAndHonourContext(t *testing.T) {
	rec := codemodetest.NewRecorder()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := rec.AwaitCellClosed(cancelled, "1"); !errors.Is(err, context.Canceled) {
		t.Fatalf("AwaitCellClosed with a cancelled ctx = %v", err)
	}
	if _, err := rec.AwaitToolCall(cancelled, "x", 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("AwaitToolCall with a cancelled ctx = %v", err)
	}
	if _, err := rec.AwaitNotifications(cancelled, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("AwaitNotifications with a cancelled ctx = %v", err)
	}
	ctx := within(t)
	woke := make(chan error, 1)
	go func() { woke <- rec.AwaitCellClosed(ctx, "2") }()
	rec.CellClosed("1")
	rec.CellClosed("2")
	if err := <-woke; err != nil {
		t.Fatalf("AwaitCellClosed: %v", err)
	}
}

var _ codemode.Delegate = codemodetest.NewRecorder()

func TestRecorderRecordsReportedFailures(t *testing.T) {
	rec := codemodetest.NewRecorder()
	var _ codemode.BlockingDelegate = rec
	ctx := within(t)
	done := make(chan []string, 1)
	go func() {
		reasons, err := rec.AwaitFailures(ctx, 2)
		if err != nil {
			t.Error(err)
		}
		done <- reasons
	}()
	rec.ReportFailure("first")
	rec.ReportFailure("second")
	if got := <-done; !reflect.DeepEqual(got, []string{"first", "second"}) {
		t.Fatalf("AwaitFailures = %q", got)
	}
	if got := rec.Failures(); !reflect.DeepEqual(got, []string{"first", "second"}) {
		t.Fatalf("Failures = %q", got)
	}
	if k := rec.Events()[0].Kind; k != codemodetest.EventFailure || k.String() != "failure" {
		t.Fatalf("event kind %v", k)
	}
}

// A behaviour that panics still leaves its return, and the closure, in the log.
func TestRecorderRecordsReturnsOfPanickingBehaviours(t *testing.T) {
	rec := codemodetest.NewRecorder()
	rec.Handle("boom", func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) { panic("boom") })
	rec.HandleCellClosed(func(codemode.CellID) { panic("closed") })
	mustPanic(t, func() { _, _ = rec.InvokeTool(within(t), call("1", "tool-1", "boom", "")) })
	mustPanic(t, func() { rec.CellClosed("1") })
	calls := rec.ToolCalls()
	if len(calls) != 1 || calls[0].ReturnSeq() == 0 {
		t.Fatalf("the panicking call's return was not recorded: %v", rec.Events())
	}
	select {
	case <-calls[0].Returned():
	default:
		t.Fatal("Returned is not closed after the behaviour panicked")
	}
	if n := rec.CellClosedCount("1"); n != 1 {
		t.Fatalf("CellClosed recorded %d times", n)
	}
}

func mustPanic(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	f()
}
