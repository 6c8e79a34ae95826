package codemode_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// scripted is a BlockingDelegate whose calls do what their input or text says.
type scripted struct {
	mu       sync.Mutex
	failures []string
	notes    []string
	release  chan struct{} // the "wait" notification blocks until it is closed
}

func (d *scripted) InvokeTool(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	switch string(call.Input) {
	case `"panic"`:
		panic("probe")
	case `"goexit"`:
		runtime.Goexit()
	case `"fail"`:
		return nil, errors.New("tool failed")
	}
	return call.Input, nil
}

func (d *scripted) Notify(_ context.Context, _ string, _ codemode.CellID, text string) error {
	switch text {
	case "panic":
		panic("probe")
	case "goexit":
		runtime.Goexit()
	case "wait":
		<-d.release
	}
	d.mu.Lock()
	d.notes = append(d.notes, text)
	d.mu.Unlock()
	return nil
}

func (d *scripted) CellClosed(codemode.CellID) {}

func (d *scripted) ReportFailure(reason string) {
	d.mu.Lock()
	d.failures = append(d.failures, reason)
	d.mu.Unlock()
}

func (d *scripted) CellUsage(codemode.CellID, codemode.CellUsage) {}

// callTool starts a tool call through the adapter and waits for its outcome.
func callTool(d codemode.Delegate, input string) (string, error) {
	type outcome struct {
		out json.RawMessage
		err error
	}
	ch := make(chan outcome, 2)
	codemode.StartToolCall(context.Background(), d, codemode.NestedToolCall{CellID: "1", Input: json.RawMessage(input)},
		func(out json.RawMessage, err error) { ch <- outcome{out, err} })
	o := <-ch
	return string(o.out), o.err
}

func TestFromBlockingSettlesEveryToolCallWithCodexTexts(t *testing.T) {
	b := &scripted{}
	d := codemode.FromBlocking(b)
	for _, c := range []struct{ input, out, err string }{
		{`{"a":1}`, `{"a":1}`, ""},
		{`"fail"`, "", "tool failed"},
		{`"panic"`, "", "code mode tool task panicked"},
		{`"goexit"`, "", "code mode tool task failed: its goroutine ended without returning"},
	} {
		out, err := callTool(d, c.input)
		if got := fmt.Sprint(err); out != c.out || (c.err == "" && err != nil) || (c.err != "" && got != c.err) {
			t.Errorf("%s: %q, %v; want %q, %q", c.input, out, err, c.out, c.err)
		}
	}
	want := []string{"code mode tool task panicked", "code mode tool task failed: its goroutine ended without returning"}
	if fmt.Sprint(b.failures) != fmt.Sprint(want) {
		t.Fatalf("reported %q, want %q", b.failures, want)
	}
}

// A cell's notifications arrive in the order they were started, past a slow one, a panicking one
// and one that ended its goroutine; each settles, and the failures are reported.
func TestFromBlockingDeliversACellsNotificationsInOrder(t *testing.T) {
	b := &scripted{release: make(chan struct{})}
	d := codemode.FromBlocking(b)
	texts := []string{"wait", "a", "panic", "b", "goexit", "c"}
	errs := make(chan string, len(texts))
	var all sync.WaitGroup
	for _, text := range texts {
		all.Add(1)
		codemode.StartNotify(context.Background(), d, "call", "1", text, func(err error) {
			if err != nil {
				errs <- err.Error()
			}
			all.Done()
		})
	}
	close(b.release)
	all.Wait()
	close(errs)
	if got := fmt.Sprint(b.notes); got != "[wait a b c]" {
		t.Fatalf("delivered %s", got)
	}
	var got []string
	for e := range errs {
		got = append(got, e)
	}
	want := []string{"code mode notification task panicked", "code mode notification task failed: its goroutine ended without returning"}
	if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(b.failures) != fmt.Sprint(want) {
		t.Fatalf("settled with %q, reported %q; want %q", got, b.failures, want)
	}
}

// panicky is a Delegate whose Start methods panic, after settling or before.
type panicky struct {
	codemode.NoopDelegate
	failures []string
}

func (p *panicky) StartToolCall(_ context.Context, _ codemode.NestedToolCall, done func(json.RawMessage, error)) {
	done(json.RawMessage("1"), nil)
	panic("after done")
}

func (p *panicky) StartNotify(context.Context, string, codemode.CellID, string, func(error)) {
	panic("before done")
}

func (p *panicky) ReportFailure(reason string) { p.failures = append(p.failures, reason) }

func TestStartContainsAPanickingStartMethod(t *testing.T) {
	d := &panicky{}
	calls := 0
	codemode.StartToolCall(context.Background(), d, codemode.NestedToolCall{}, func(out json.RawMessage, err error) {
		calls++
		if string(out) != "1" || err != nil {
			t.Errorf("settled with %s, %v", out, err)
		}
	})
	var notified error
	codemode.StartNotify(context.Background(), d, "call", "1", "x", func(err error) { notified = err })
	if calls != 1 || fmt.Sprint(notified) != "code mode notification task panicked" {
		t.Fatalf("tool settled %d times, notification with %v", calls, notified)
	}
	want := []string{"code mode tool task panicked", "code mode notification task panicked"}
	if fmt.Sprint(d.failures) != fmt.Sprint(want) {
		t.Fatalf("reported %q, want %q", d.failures, want)
	}
}

func TestNoopDelegateFailsToolCallsOnceCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	codemode.NoopDelegate{}.StartToolCall(ctx, codemode.NestedToolCall{}, func(_ json.RawMessage, err error) { got <- err })
	cancel()
	if err := <-got; !errors.Is(err, codemode.ErrNestedToolsUnavailable) {
		t.Fatalf("%v", err)
	}
}

// A notification whose context ended while it waited behind a slow one is settled, not delivered.
func TestFromBlockingDropsANotificationCancelledWhileQueued(t *testing.T) {
	b := &scripted{release: make(chan struct{})}
	d := codemode.FromBlocking(b)
	ctx, cancel := context.WithCancel(context.Background())
	settled := make(chan error, 2)
	codemode.StartNotify(context.Background(), d, "call", "1", "wait", func(err error) { settled <- err })
	codemode.StartNotify(ctx, d, "call", "1", "late", func(err error) { settled <- err })
	cancel()
	close(b.release)
	if err := <-settled; err != nil {
		t.Fatalf("the slow notification settled with %v", err)
	}
	if err := <-settled; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled notification settled with %v", err)
	}
	if got := fmt.Sprint(b.notes); got != "[wait]" {
		t.Fatalf("delivered %s", got)
	}
}
