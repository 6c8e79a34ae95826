package jsruntime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// BenchmarkCellStartWarm measures execute → Result of text("hi") with a full pool.
func BenchmarkCellStartWarm(b *testing.B) {
	s := jsruntime.NewTestSession(b, nil, codemode.SessionCellExecutionLimits{})
	for b.Loop() {
		b.StopTimer()
		jsruntime.WaitWarm()
		b.StartTimer()
		if r := jsruntime.ExecuteCell(b, s, `text("hi")`); r.Kind != codemode.Result {
			b.Fatal(r)
		}
	}
}

// BenchmarkCellStartSustained measures back-to-back cells, where the pool cannot keep up.
func BenchmarkCellStartSustained(b *testing.B) {
	s := jsruntime.NewTestSession(b, nil, codemode.SessionCellExecutionLimits{})
	for b.Loop() {
		if r := jsruntime.ExecuteCell(b, s, `text("hi")`); r.Kind != codemode.Result {
			b.Fatal(r)
		}
	}
}

// BenchmarkCellStartWithTools measures back-to-back cells of a session with 30 enabled tools, as
// an agent's: each cell starts by making a function for each tool (prelude.js, makeTool).
func BenchmarkCellStartWithTools(b *testing.B) {
	s := jsruntime.NewTestSession(b, nil, codemode.SessionCellExecutionLimits{})
	tools := make([]codemode.ToolDefinition, 30)
	for i := range tools {
		tools[i] = jsruntime.TestTool(fmt.Sprintf("tool_%d", i))
	}
	for b.Loop() {
		if r := jsruntime.ExecuteCell(b, s, `text("hi")`, tools...); r.Kind != codemode.Result {
			b.Fatal(r)
		}
	}
}

// runLoopCell runs one cell whose body repeats stmt b.N times and reports ns per repetition.
func runLoopCell(b *testing.B, d codemode.Delegate, stmt string, tools ...codemode.ToolDefinition) {
	s := jsruntime.NewTestSession(b, d, codemode.SessionCellExecutionLimits{})
	src := fmt.Sprintf("for (let i = 0; i < %d; i++) { %s }", b.N, stmt)
	b.ResetTimer()
	r := jsruntime.ExecuteCell(b, s, src, tools...)
	b.StopTimer()
	if r.Kind != codemode.Result || r.ErrorText != nil {
		b.Fatalf("%s %+v", jsruntime.ErrorTextOf(r), r)
	}
}

// BenchmarkToolRoundTrip is one awaited tool call, JS → delegate → JS.
func BenchmarkToolRoundTrip(b *testing.B) {
	runLoopCell(b, newRecorderNoLog(jsruntime.EchoTool), `await tools.echo(i);`, jsruntime.TestTool("echo"))
}

// BenchmarkToolRoundTripFromBlocking is BenchmarkToolRoundTrip with an owner's usual delegate,
// codemode.FromBlocking, whose fresh goroutine per call is why it does not run the answer's turn
// itself (ADR 75: measured, its stack growth cost more than the wake-up it saved).
func BenchmarkToolRoundTripFromBlocking(b *testing.B) {
	runLoopCell(b, codemode.FromBlocking(blockingEcho{}), `await tools.echo(i);`, jsruntime.TestTool("echo"))
}

// blockingEcho is a BlockingDelegate whose tools echo their input.
type blockingEcho struct{ codemode.DiscardReports }

func (blockingEcho) InvokeTool(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	return call.Input, nil
}
func (blockingEcho) Notify(context.Context, string, codemode.CellID, string) error { return nil }
func (blockingEcho) CellClosed(codemode.CellID)                                    {}

// BenchmarkCaughtTypeError is one engine TypeError made and caught: what the stack hook costs an
// error (ADR 60: V8's message and frames, worked out in Go).
func BenchmarkCaughtTypeError(b *testing.B) {
	runLoopCell(b, nil, `try { null.x } catch (e) {}`)
}

// BenchmarkPromiseAll100 is Promise.all over 100 tool calls.
func BenchmarkPromiseAll100(b *testing.B) {
	runLoopCell(b, newRecorderNoLog(jsruntime.EchoTool), `await Promise.all(Array.from({length: 100}, (_, j) => tools.echo(j)));`, jsruntime.TestTool("echo"))
}

// BenchmarkLoop1e6 is a cell running a 1e6-iteration loop.
func BenchmarkLoop1e6(b *testing.B) {
	s := jsruntime.NewTestSession(b, nil, codemode.SessionCellExecutionLimits{})
	for b.Loop() {
		r := jsruntime.ExecuteCell(b, s, `let s = 0; for (let i = 0; i < 1e6; i++) s += i; text(s)`)
		if jsruntime.TextsOf(r.ContentItems)[0] != "499999500000" {
			b.Fatal(r)
		}
	}
}

// BenchmarkJSON20kObjects is JSON.parse(JSON.stringify(…)) of 20,000 small objects: the C side of
// QuickJS (JSON, allocation) rather than its interpreter.
func BenchmarkJSON20kObjects(b *testing.B) {
	s := jsruntime.NewTestSession(b, nil, codemode.SessionCellExecutionLimits{})
	for b.Loop() {
		r := jsruntime.ExecuteCell(b, s, `const a = Array.from({length: 20000}, (_, i) => ({id: i, name: "item" + i, tags: ["a", "b"], nested: {ok: true}}));
text(JSON.parse(JSON.stringify(a)).length)`)
		if jsruntime.TextsOf(r.ContentItems)[0] != "20000" {
			b.Fatal(r)
		}
	}
}

// BenchmarkTextOutput1MiB is one text() of 1 MiB: the string out of wasm and into a content item.
func BenchmarkTextOutput1MiB(b *testing.B) {
	s := jsruntime.NewTestSession(b, nil, codemode.SessionCellExecutionLimits{})
	b.SetBytes(1 << 20)
	for b.Loop() {
		r := jsruntime.ExecuteCell(b, s, `text("x".repeat(1 << 20))`)
		if len(jsruntime.TextsOf(r.ContentItems)[0]) != 1<<20 {
			b.Fatal(jsruntime.ErrorTextOf(r))
		}
	}
}

// BenchmarkToolResult1MiB delivers a 1 MiB JSON result into JavaScript.
func BenchmarkToolResult1MiB(b *testing.B) {
	big, _ := json.Marshal(map[string]string{"data": strings.Repeat("x", 1<<20)})
	d := newRecorderNoLog(func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) { return big, nil })
	b.SetBytes(int64(len(big)))
	runLoopCell(b, d, `if ((await tools.big()).data.length !== 1048576) throw "short";`, jsruntime.TestTool("big"))
}

// BenchmarkToolInput1MiB sends a 1 MiB tool input out of JavaScript to a delegate that answers
// null: the input's way alone (ADR 62).
func BenchmarkToolInput1MiB(b *testing.B) {
	d := newRecorderNoLog(func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) { return nil, nil })
	b.SetBytes(1 << 20)
	runLoopCell(b, d, `await tools.sink({s: "x".repeat(1 << 20)});`, jsruntime.TestTool("sink"))
}

// BenchmarkToolInputEcho1MiB sends a 1 MiB tool input that the delegate answers as the result.
func BenchmarkToolInputEcho1MiB(b *testing.B) {
	b.SetBytes(1 << 20)
	runLoopCell(b, newRecorderNoLog(jsruntime.EchoTool), `if ((await tools.echo({s: "x".repeat(1 << 20)})).s.length !== 1048576) throw "short";`, jsruntime.TestTool("echo"))
}

// BenchmarkMemory reports what an idle session and a live cell (blocked on a tool call) cost: the
// Go heap of an idle session (ours holds no runtime until a cell runs) and the process's resident
// memory per live cell, which includes the runtime's mapped linear memory (outside the Go heap) and
// its Go side.
func BenchmarkMemory(b *testing.B) {
	const n = 50
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	rss := func() uint64 {
		runtime.GC()
		r, _ := residentAndPeak()
		return r
	}
	for b.Loop() {
		p, err := jsruntime.NewProvider(jsruntime.Options{PoolSize: -1})
		if err != nil {
			b.Fatal(err)
		}
		d := &blockingDelegate{release: make(chan struct{}), entered: make(chan struct{}, n)}
		base := heap()
		sessions := make([]codemode.Session, n)
		for i := range sessions {
			sessions[i], _ = p.CreateSession(context.Background(), codemode.FromBlocking(d), codemode.SessionCellExecutionLimits{})
		}
		perSession := float64(heap()-base) / n
		baseRSS := rss()
		baseHeap := heap()
		for _, s := range sessions {
			if _, err := s.Execute(context.Background(), codemode.ExecuteRequest{Source: `text("x"); await tools.wait()`, EnabledTools: []codemode.ToolDefinition{jsruntime.TestTool("wait")}}); err != nil {
				b.Fatal(err)
			}
		}
		for range n {
			<-d.entered
		}
		perCell := float64(rss()-baseRSS) / n
		perCellHeap := float64(heap()-baseHeap) / n
		close(d.release)
		p.Close()
		b.ReportMetric(perSession, "B/idle-session")
		b.ReportMetric(perCell, "B/live-cell")
		b.ReportMetric(perCellHeap, "heap-B/live-cell")
	}
}

// newRecorderNoLog is a delegate that only answers.
func newRecorderNoLog(f func(context.Context, codemode.NestedToolCall) (json.RawMessage, error)) codemode.Delegate {
	return jsruntime.FuncDelegate(f)
}

// BenchmarkTerminateWhileTrue measures Terminate of a cell spinning in while(true){} until its
// Terminated response (the runtime is interrupted and discarded).
func BenchmarkTerminateWhileTrue(b *testing.B) {
	s := jsruntime.NewTestSession(b, nil, codemode.SessionCellExecutionLimits{})
	for b.Loop() {
		b.StopTimer()
		c, err := s.Execute(context.Background(), codemode.ExecuteRequest{Source: `yield_control(); while (true) {}`, YieldTimeMs: jsruntime.PtrU64(30_000)})
		if err != nil {
			b.Fatal(err)
		}
		if r, err := c.InitialResponse(context.Background()); err != nil || r.Kind != codemode.Yielded {
			b.Fatal(r, err)
		}
		time.Sleep(5 * time.Millisecond) // let it spin
		b.StartTimer()
		out, err := s.Terminate(context.Background(), c.CellID)
		if err != nil || out.Response.Kind != codemode.Terminated {
			b.Fatal(out, err)
		}
	}
}

// BenchmarkRecursionDepth measures what the 8 MiB stack costs a cell that uses it: a cell that
// recurses `depth` frames, back to back in one session, so each op includes the reset of the
// engine the previous cell used (a deep cell's stack pages are discarded there, not zeroed).
// Depth 10 is the baseline every cell pays; the deeper rows are the price of going deep.
func BenchmarkRecursionDepth(b *testing.B) {
	for _, depth := range []int{10, 1000, 5000, 10000} {
		b.Run(fmt.Sprintf("frames=%d", depth), func(b *testing.B) {
			s := jsruntime.NewTestSession(b, nil, codemode.SessionCellExecutionLimits{})
			src := fmt.Sprintf(`function f(n) { return n === 0 ? 0 : 1 + f(n - 1) } text(f(%d))`, depth)
			want := fmt.Sprint(depth)
			for b.Loop() {
				if r := jsruntime.ExecuteCell(b, s, src); r.Kind != codemode.Result || jsruntime.TextsOf(r.ContentItems)[0] != want {
					b.Fatal(jsruntime.ErrorTextOf(r), r)
				}
			}
		})
	}
}

// BenchmarkStackOverflowCaught is a cell whose unbounded recursion meets the module's stack guard
// (generators/qjswasm: 12,000 frames, every 1,024 of them on a native stack of their own) and
// catches the RangeError: the price of a stack overflow.
func BenchmarkStackOverflowCaught(b *testing.B) {
	s := jsruntime.NewTestSession(b, nil, codemode.SessionCellExecutionLimits{})
	src := `function g() { return g() } try { g() } catch (e) { text(e.message) }`
	for b.Loop() {
		if r := jsruntime.ExecuteCell(b, s, src); r.Kind != codemode.Result || jsruntime.TextsOf(r.ContentItems)[0] != "Maximum call stack size exceeded" {
			b.Fatal(jsruntime.ErrorTextOf(r), r)
		}
	}
}

// readerDelegate answers tool calls as a transport does: a reader goroutine of its own, not the
// cell's loop, hands each answer back.
type readerDelegate struct {
	jsruntime.FuncDelegate
	calls chan readerCall
}

type readerCall struct {
	input json.RawMessage
	done  func(json.RawMessage, error)
}

func newReaderDelegate(b *testing.B) readerDelegate {
	d := readerDelegate{calls: make(chan readerCall, 64)}
	answerCalls(b, d.calls, func(c readerCall) { c.done(c.input, nil) })
	return d
}

// answerCalls runs a reader goroutine that answers each call on calls, until the benchmark ends.
func answerCalls(b *testing.B, calls <-chan readerCall, answer func(readerCall)) {
	stop := make(chan struct{})
	b.Cleanup(func() { close(stop) })
	go func() {
		for {
			select {
			case c := <-calls:
				answer(c)
			case <-stop:
				return
			}
		}
	}()
}

func (d readerDelegate) StartToolCall(_ context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	d.calls <- readerCall{call.Input, done}
}

// BenchmarkToolRoundTripFromReader is one awaited tool call whose answer another goroutine hands
// to the cell's loop, as a V1 connection's reader does: the hand-off that ADR 62 measures.
func BenchmarkToolRoundTripFromReader(b *testing.B) {
	runLoopCell(b, newReaderDelegate(b), `await tools.echo({i});`, jsruntime.TestTool("echo"))
}

// BenchmarkToolTurnAfterWait is the runtime's share of a round trip over a transport: the time
// from an answer handed to done (by another goroutine, as a reader does) to the cell's next tool
// call reaching the delegate, when the answer comes at once and when it comes after a pause in
// which the process has nothing to do, as it has between processes while the client works. The
// pause's time is not counted; what it changes is how cold the engine and the threads are.
func BenchmarkToolTurnAfterWait(b *testing.B) {
	for _, pause := range []time.Duration{0, 100 * time.Microsecond, time.Millisecond} {
		b.Run(fmt.Sprintf("pause=%v", pause), func(b *testing.B) {
			d := newTimedDelegate(b, pause)
			runLoopCell(b, d, `await tools.echo(i);`, jsruntime.TestTool("echo"))
			if d.turns.Load() > 0 {
				b.ReportMetric(float64(d.turnTime.Load())/float64(d.turns.Load())/1e3, "µs/turn")
			}
		})
	}
}

// timedDelegate answers each call from a goroutine of its own after a pause, and adds up the
// time from each answer to the call that follows it.
type timedDelegate struct {
	jsruntime.FuncDelegate
	calls    chan readerCall
	answered *atomic.Int64 // when the last answer was handed over (UnixNano); 0 before the first
	turnTime *atomic.Int64
	turns    *atomic.Int64
}

func newTimedDelegate(b *testing.B, pause time.Duration) timedDelegate {
	d := timedDelegate{calls: make(chan readerCall, 64), answered: new(atomic.Int64), turnTime: new(atomic.Int64), turns: new(atomic.Int64)}
	answerCalls(b, d.calls, func(c readerCall) {
		if pause > 0 {
			// The pause is the workload, not a wait for an event: the process idles as it does
			// while a client works on a call, and the benchmark asserts nothing about time.
			time.Sleep(pause)
		}
		d.answered.Store(time.Now().UnixNano())
		c.done(c.input, nil)
	})
	return d
}

func (d timedDelegate) StartToolCall(_ context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	if at := d.answered.Load(); at != 0 {
		d.turnTime.Add(time.Now().UnixNano() - at)
		d.turns.Add(1)
	}
	d.calls <- readerCall{call.Input, done}
}
