package jsruntime

import (
	"context"
	"encoding/json"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// An answer to a cell's one pending call runs its turn on the goroutine that calls done, when the
// delegate is a codemode.TurnRunner (cellRun.runInline,
// docs/adr/0075-a-round-trip-on-one-thread.md). The tests make every call wait until the loop can
// be borrowed (the borrowable hook), so that each answer finds the loop parked: which goroutine
// gets there first is then not a race.

// borrowGate answers echo calls once the cell's loop may be borrowed.
type borrowGate struct{ free chan struct{} }

// newGatedRecorder is a recording delegate whose echo calls wait for its gate; watch the gate on
// the session.
func newGatedRecorder() (*recordingDelegate, *borrowGate) {
	g := &borrowGate{free: make(chan struct{}, 1)}
	return newRecorder(g.invoke), g
}

// watch opens the gate whenever s's loop becomes borrowable.
func (g *borrowGate) watch(s codemode.Session) {
	s.(*session).hooks.borrowable = func(codemode.CellID) {
		select {
		case g.free <- struct{}{}:
		default:
		}
	}
}

func (g *borrowGate) invoke(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	select {
	case <-g.free:
		return call.Input, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// observeStats collects each cell's loop stats for the test's duration.
func observeStats(t *testing.T) <-chan loopStats {
	stats := make(chan loopStats, 16)
	observeLoopStats = func(s loopStats) { stats <- s }
	t.Cleanup(func() { observeLoopStats = nil })
	return stats
}

func TestAnAwaitedAnswerRunsItsTurnOnTheCallsGoroutine(t *testing.T) {
	stats := observeStats(t)
	d, gate := newGatedRecorder()
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	gate.watch(s)
	r := executeCell(t, s, `let sum = 0; for (let i = 0; i < 20; i++) sum += await tools.echo(i); text(sum)`, testTool("echo"))
	if got := textsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, []string{"190"}) {
		t.Fatalf("%s %q", errorTextOf(r), got)
	}
	// Every answer found the loop parked, so every turn after the first ran on a call's goroutine.
	if got := <-stats; got.inline != 20 {
		t.Fatalf("%d of 20 answers ran their turn inline: %+v", got.inline, got)
	}
}

func TestAnswersOfABatchAreLeftToTheLoop(t *testing.T) {
	stats := observeStats(t)
	d := newRecorder(echoTool)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	r := executeCell(t, s, `const a = await Promise.all(Array.from({length: 50}, (_, i) => tools.echo(i))); text(a.length)`, testTool("echo"))
	if got := textsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, []string{"50"}) {
		t.Fatalf("%s %q", errorTextOf(r), got)
	}
	// Only the answer that settles the last pending call may run inline; the others batch.
	if got := <-stats; got.inline > 1 {
		t.Fatalf("%d answers of a batch ran inline: %+v", got.inline, got)
	}
}

func TestATimerSetByABorrowedTurnFires(t *testing.T) {
	stats := observeStats(t)
	d, gate := newGatedRecorder()
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	gate.watch(s)
	// The turn after the answer sets a timer: the parked loop must wake to keep its clock.
	r := executeCell(t, s, `await tools.echo(1); await new Promise((resolve) => setTimeout(resolve, 1)); text("fired")`, testTool("echo"))
	if got := textsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, []string{"fired"}) {
		t.Fatalf("%s %q", errorTextOf(r), got)
	}
	if got := <-stats; got.inline != 1 {
		t.Fatalf("the answer's turn did not run inline: %+v", got)
	}
}

func TestALongBorrowedTurnHandsTheCallersDutiesOn(t *testing.T) {
	d, gate := newGatedRecorder()
	relayed := make(chan struct{}, 1)
	d.onRelay = func() { relayed <- struct{}{} }
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	gate.watch(s)
	// The answer's turn computes until it is stopped: the caller's goroutine is told once that the
	// turn runs long (a reader would read on elsewhere), and the cell is then stopped there.
	c := startCell(t, s, `await tools.echo(1); for (;;) {}`, 30_000, testTool("echo"))
	<-relayed
	out, err := s.Terminate(context.Background(), c.CellID)
	if err != nil || out.Missing || out.Response.Kind != codemode.Terminated {
		t.Fatalf("%+v %v", out, err)
	}
	if n := d.relays.Load(); n != 1 {
		t.Fatalf("relayed %d times", n)
	}
}

// inlineReader plays a transport's reader: one goroutine settles every tool call and notification
// in the order they were started and may run an answer's turn there; its relay starts a successor
// that takes the settling over. A tool answer waits until the cell's loop can be borrowed.
type inlineReader struct {
	codemode.DiscardReports
	borrowGate
	work    chan func()
	stop    chan struct{}
	relayed atomic.Int64
}

func newInlineReader() *inlineReader {
	return &inlineReader{borrowGate: borrowGate{free: make(chan struct{}, 1)}, work: make(chan func(), 1024), stop: make(chan struct{})}
}

// read settles work until this goroutine was relayed or the reader stops.
func (d *inlineReader) read() {
	for {
		select {
		case f := <-d.work:
			before := d.relayed.Load()
			f()
			if d.relayed.Load() != before {
				return // a successor reads now
			}
		case <-d.stop:
			return
		}
	}
}

func (d *inlineReader) StartToolCall(_ context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	d.work <- func() {
		<-d.free
		done(call.Input, nil)
	}
}

func (d *inlineReader) StartNotify(_ context.Context, _ string, _ codemode.CellID, _ string, done func(error)) {
	d.work <- func() { done(nil) }
}

func (d *inlineReader) CellClosed(codemode.CellID) {}

func (d *inlineReader) RunTurnHere(codemode.NestedToolCall) (relay func(), ok bool) {
	return func() {
		d.relayed.Add(1)
		go d.read()
	}, true
}

// TestABorrowedTurnThatWaitsForItsReaderHandsTheReadingOn: a turn run on the reader that must wait
// for notifications to be delivered (undelivered text past the output limit) hands the reading on
// first, since the deliveries are settled there; otherwise the cell and its reader would wait on
// each other for ever.
func TestABorrowedTurnThatWaitsForItsReaderHandsTheReadingOn(t *testing.T) {
	p := newCappedProvider(t, Options{MaxOutputBytes: 1000})
	d := newInlineReader()
	defer close(d.stop)
	s := newSessionOn(t, p, d, codemode.SessionCellExecutionLimits{})
	d.watch(s)
	go d.read()
	r := executeCell(t, s, `await tools.echo(1); for (let i = 0; i < 20; i++) notify("x".repeat(200)); text("done")`, testTool("echo"))
	if got := textsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, []string{"done"}) {
		t.Fatalf("%s %q", errorTextOf(r), got)
	}
	if n := d.relayed.Load(); n != 1 {
		t.Fatalf("relayed %d times, want once", n)
	}
}

// A panic in a turn run on a done caller's goroutine fails the cell as a panic of its loop does,
// and takes neither the caller's goroutine nor the session down.
func TestAPanicInABorrowedTurnFailsTheCellAsTheLoops(t *testing.T) {
	d, gate := newGatedRecorder()
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	gate.watch(s)
	breakRuntime(s, stageBorrowed, func() { panic("borrowed turn panic probe") })
	checkRuntimeEnded(t, executeCell(t, s, `text("before"); await tools.echo(1); text("after")`, testTool("echo")), "before")
	breakRuntime(s, stageBorrowed, func() {})
	if r := executeCell(t, s, `text(await tools.echo("alive"))`, testTool("echo")); r.ErrorText != nil || textsOf(r.ContentItems)[0] != "alive" {
		t.Fatalf("%+v", r)
	}
}
