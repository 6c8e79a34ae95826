package jsruntime_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// funcStarter is a Delegate whose StartToolCall is its own, the way a remote transport has it:
// start decides how the call is answered.
type funcStarter struct {
	*jsruntime.RecordingDelegate
	start func(ctx context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error))

	mu       sync.Mutex
	failures []string
}

func (d *funcStarter) StartToolCall(ctx context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	d.RecordCall(call)
	d.start(ctx, call, done)
}

func (d *funcStarter) ReportFailure(reason string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.failures = append(d.failures, reason)
}

func newStartingDelegate(start func(ctx context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error))) *funcStarter {
	return &funcStarter{RecordingDelegate: jsruntime.NewRecorder(func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) {
		panic("InvokeTool must not be called on a delegate with its own StartToolCall")
	}), start: start}
}

// TestStartToolCallAnsweredBeforeItReturns: done may run on the loop itself, inside
// StartToolCall, even for more calls at once than the results buffer holds; the second done of a
// call is ignored.
func TestStartToolCallAnsweredBeforeItReturns(t *testing.T) {
	d := newStartingDelegate(func(_ context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
		done(call.Input, nil)
		done(nil, errors.New("a second answer must be ignored"))
	})
	s := jsruntime.NewTestSession(t, d, codemode.SessionCellExecutionLimits{})
	r := jsruntime.ExecuteCell(t, s, `
text(JSON.stringify(await tools.echo({a: 1})));
const all = await Promise.all(Array.from({length: 100}, (_, i) => tools.echo(i)));
text(String(all.reduce((a, b) => a + b, 0)));`, jsruntime.TestTool("echo"))
	want := []string{`{"a":1}`, "4950"}
	if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s %q", jsruntime.ErrorTextOf(r), got)
	}
	if calls, _, _ := d.Snapshot(); len(calls) != 101 {
		t.Fatalf("%d calls started, want 101", len(calls))
	}
}

// TestStartToolCallAnsweredFromAnotherGoroutine: one goroutine (a transport's reader) answers
// every call of a Promise.all, more than the results buffer holds, without blocking; results that
// are errors or too large for the inline check settle their promises like InvokeTool's.
func TestStartToolCallAnsweredFromAnotherGoroutine(t *testing.T) {
	type pending struct {
		call codemode.NestedToolCall
		done func(json.RawMessage, error)
	}
	calls := make(chan pending, 200)
	d := newStartingDelegate(func(_ context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
		calls <- pending{call, done}
	})
	reader := make(chan struct{})
	go func() {
		defer close(reader)
		big := json.RawMessage(`"` + strings.Repeat("x", 100<<10) + `"`)
		for i := 0; i < 102; i++ {
			p := <-calls
			switch string(p.call.Input) {
			case `"fail"`:
				p.done(nil, errors.New("remote tool failed"))
			case `"big"`:
				p.done(big, nil)
			default:
				p.done(p.call.Input, nil)
			}
		}
	}()
	s := jsruntime.NewTestSession(t, d, codemode.SessionCellExecutionLimits{})
	r := jsruntime.ExecuteCell(t, s, `
const all = await Promise.all(Array.from({length: 100}, (_, i) => tools.echo(i)));
text(String(all.reduce((a, b) => a + b, 0)));
try { await tools.echo("fail") } catch (e) { text(typeof e + ":" + e) }
text(String((await tools.echo("big")).length));`, jsruntime.TestTool("echo"))
	<-reader
	want := []string{"4950", "string:remote tool failed", "102400"}
	if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s %q", jsruntime.ErrorTextOf(r), got)
	}
}

// TestStartToolCallThatPanics rejects the call's promise with Codex's text and reports it, as a
// panicking blocking InvokeTool does (codemode.FromBlocking); a done after the panic is ignored.
func TestStartToolCallThatPanics(t *testing.T) {
	var late func(json.RawMessage, error)
	d := newStartingDelegate(func(_ context.Context, _ codemode.NestedToolCall, done func(json.RawMessage, error)) {
		late = done
		panic("start probe")
	})
	s := jsruntime.NewTestSession(t, d, codemode.SessionCellExecutionLimits{})
	r := jsruntime.ExecuteCell(t, s, `try { await tools.echo({}); text("resolved") } catch (e) { text(typeof e + ":" + e) }`, jsruntime.TestTool("echo"))
	want := []string{"string:" + codemode.FailureToolTaskPanicked}
	if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s %q", jsruntime.ErrorTextOf(r), got)
	}
	late(json.RawMessage(`1`), nil) // after the cell ended: ignored, no panic, no block
	d.mu.Lock()
	defer d.mu.Unlock()
	if !reflect.DeepEqual(d.failures, []string{codemode.FailureToolTaskPanicked}) {
		t.Fatalf("failures reported: %q", d.failures)
	}
}

// TestStartToolCallIsCancelledWithItsCell: a call nobody awaits any more has its context ended at
// the cell's end, and the cell closes once the delegate answers it.
func TestStartToolCallIsCancelledWithItsCell(t *testing.T) {
	d := newStartingDelegate(func(ctx context.Context, _ codemode.NestedToolCall, done func(json.RawMessage, error)) {
		context.AfterFunc(ctx, func() { done(nil, errors.New("cancelled by the test")) })
	})
	s := jsruntime.NewTestSession(t, d, codemode.SessionCellExecutionLimits{})
	r := jsruntime.ExecuteCell(t, s, `tools.echo({}); text("left it running")`, jsruntime.TestTool("echo"))
	if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, []string{"left it running"}) {
		t.Fatalf("%s %q", jsruntime.ErrorTextOf(r), got)
	}
	jsruntime.AwaitCellGoroutines(t, s)
}
