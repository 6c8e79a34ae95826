package jsruntime_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// The scaling benchmarks run one cell per iteration with n timers or n concurrent tool calls and
// report the cost per timer or call: linear scaling shows as a per-item cost that stays about the
// same from size to size. Before the rewrite 1e5 timers took 5.5 s and 3e5 took 49 s; 1e5
// concurrent tool calls took 10.3 s.

// benchPerItem runs src (a cell handling n items) b.N times and reports the time per item.
func benchPerItem(b *testing.B, s codemode.Session, n int, unit, src string, tools ...codemode.ToolDefinition) {
	b.Helper()
	var elapsed time.Duration
	for b.Loop() {
		start := time.Now()
		r := executeSlowCell(b, s, src, tools...)
		elapsed += time.Since(start)
		if r.ErrorText != nil || len(r.ContentItems) != 1 || jsruntime.TextsOf(r.ContentItems)[0] != strconv.Itoa(n) {
			b.Fatalf("%s %q", jsruntime.ErrorTextOf(r), jsruntime.TextsOf(r.ContentItems))
		}
	}
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(b.N)/float64(n), "ns/"+unit)
}

// executeSlowCell is executeCell for cells that may run for minutes (a million timers on a busy
// machine): it waits up to half an hour for the result.
func executeSlowCell(b *testing.B, s codemode.Session, src string, tools ...codemode.ToolDefinition) codemode.RuntimeResponse {
	b.Helper()
	ms := uint64(30 * time.Minute / time.Millisecond)
	started, err := s.Execute(context.Background(), codemode.ExecuteRequest{ToolCallID: "call-1", Source: src, EnabledTools: tools, YieldTimeMs: &ms})
	if err != nil {
		b.Fatal(err)
	}
	r, err := started.InitialResponse(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkTimers sets n timers in one cell and waits for all of them to fire. Due times spread
// over 16 ms in an order unlike their creation, so the queue reorders them.
func BenchmarkTimers(b *testing.B) {
	for _, n := range []int{1e4, 1e5, 1e6} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			s := jsruntime.NewTestSession(b, nil, codemode.SessionCellExecutionLimits{})
			benchPerItem(b, s, n, "timer", `const n = `+strconv.Itoa(n)+`; let fired = 0;
await new Promise(done => { for (let i = 0; i < n; i++) setTimeout(() => { if (++fired === n) done() }, (n - i) % 16) });
text(fired)`)
		})
	}
}

// BenchmarkConcurrentToolCalls starts n tool calls at once in one cell and awaits them all.
func BenchmarkConcurrentToolCalls(b *testing.B) {
	for _, n := range []int{1e4, 1e5} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			s := jsruntime.NewTestSession(b, jsruntime.EchoDelegate, codemode.SessionCellExecutionLimits{})
			benchPerItem(b, s, n, "call", `const n = `+strconv.Itoa(n)+`;
const xs = await Promise.all(Array.from({length: n}, (_, i) => tools.echo(i)));
text(xs.length)`, jsruntime.TestTool("echo"))
		})
	}
}
