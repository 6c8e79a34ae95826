package jsruntime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// The sustained benchmarks answer what users of a long-running host ask: how many tool calls per
// second one machine serves across many sessions, how long a round trip takes at the median and
// the tail, and what memory the host needs. They report process RSS, so run them in a process of
// their own (tools/bench.sh does): `go test -run '^$' -bench 'Sustained|IdleAndLive' ./pkg/jsruntime`.

// latencyDelegate answers every tool call at once and records, per cell, the time from one
// call's answer to the cell's next call: the host's round trip (Go → JavaScript → Go).
type latencyDelegate struct {
	codemode.DiscardReports
	calls atomic.Int64

	mu       sync.Mutex
	returned map[codemode.CellID]time.Time
	samples  []time.Duration
}

func newLatencyDelegate() *latencyDelegate {
	return &latencyDelegate{returned: map[codemode.CellID]time.Time{}}
}

func (d *latencyDelegate) InvokeTool(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	now := time.Now()
	d.mu.Lock()
	if last, ok := d.returned[call.CellID]; ok {
		d.samples = append(d.samples, now.Sub(last))
	}
	d.mu.Unlock()
	d.calls.Add(1)
	out := call.Input
	d.mu.Lock()
	d.returned[call.CellID] = time.Now()
	d.mu.Unlock()
	return out, nil
}

func (d *latencyDelegate) Notify(context.Context, string, codemode.CellID, string) error { return nil }

func (d *latencyDelegate) CellClosed(id codemode.CellID) {
	d.mu.Lock()
	delete(d.returned, id)
	d.mu.Unlock()
}

// percentile returns the p-th percentile (0–100) of sorted samples.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p / 100)
	return sorted[i]
}

// residentAndPeak reads the process's resident set size and its peak (Linux; zero elsewhere).
func residentAndPeak() (rss, peak uint64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		kb, _ := strconv.ParseUint(fields[1], 10, 64)
		switch fields[0] {
		case "VmRSS:":
			rss = kb << 10
		case "VmHWM:":
			peak = kb << 10
		}
	}
	return rss, peak
}

// BenchmarkSustained100Sessions runs 100 sessions at once, each executing cells of 100 awaited
// tool calls back to back. One op is one tool call; calls/s, the round trip's p50 and p99, and
// the process's peak RSS are reported.
func BenchmarkSustained100Sessions(b *testing.B) {
	const sessions, callsPerCell = 100, 100
	p, err := jsruntime.NewProvider(jsruntime.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	d := newLatencyDelegate()
	ss := make([]codemode.Session, sessions)
	for i := range ss {
		if ss[i], err = p.CreateSession(context.Background(), codemode.FromBlocking(d), codemode.SessionCellExecutionLimits{}); err != nil {
			b.Fatal(err)
		}
	}
	src := fmt.Sprintf(`for (let i = 0; i < %d; i++) await tools.echo({i}); text("done")`, callsPerCell)
	tool := codemode.ToolDefinition{Name: "echo", ToolName: codemode.ToolName{Name: "echo"}, Kind: codemode.ToolKindFunction}
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Go(func() {
			for d.calls.Load() < int64(b.N) {
				if r := runCellTo(b, s, src, tool); r.ErrorText != nil {
					b.Error(*r.ErrorText)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	calls := d.calls.Load()
	d.mu.Lock()
	slices.Sort(d.samples)
	p50, p99 := percentile(d.samples, 50), percentile(d.samples, 99)
	d.mu.Unlock()
	_, peak := residentAndPeak()
	b.ReportMetric(float64(calls)/elapsed.Seconds(), "calls/s")
	b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
	b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
}

// runCellTo executes src in s and waits for its result, however many yields that takes.
func runCellTo(b *testing.B, s codemode.Session, src string, tools ...codemode.ToolDefinition) codemode.RuntimeResponse {
	started, err := s.Execute(context.Background(), codemode.ExecuteRequest{Source: src, EnabledTools: tools})
	if err != nil {
		b.Fatal(err)
	}
	r, err := started.InitialResponse(context.Background())
	for err == nil && r.Kind == codemode.Yielded {
		var out codemode.WaitOutcome
		out, err = s.Wait(context.Background(), codemode.WaitRequest{CellID: started.CellID, YieldTimeMs: 10_000})
		r = out.Response
	}
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// blockingDelegate holds every tool call until release is closed.
type blockingDelegate struct {
	codemode.DiscardReports
	release chan struct{}
	entered chan struct{}
}

func (d *blockingDelegate) InvokeTool(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
	d.entered <- struct{}{}
	select {
	case <-d.release:
	case <-ctx.Done():
	}
	return json.RawMessage("1"), nil
}

func (d *blockingDelegate) Notify(context.Context, string, codemode.CellID, string) error { return nil }
func (d *blockingDelegate) CellClosed(codemode.CellID)                                    {}

// BenchmarkIdleAndLiveSessions opens 1,000 idle sessions and 100 more whose cells are live,
// blocked on a tool call, and reports the process's RSS and the Go heap at that point.
func BenchmarkIdleAndLiveSessions(b *testing.B) {
	const idle, live = 1000, 100
	for b.Loop() {
		p, err := jsruntime.NewProvider(jsruntime.Options{})
		if err != nil {
			b.Fatal(err)
		}
		d := &blockingDelegate{release: make(chan struct{}), entered: make(chan struct{}, live)}
		for range idle {
			if _, err := p.CreateSession(context.Background(), codemode.FromBlocking(d), codemode.SessionCellExecutionLimits{}); err != nil {
				b.Fatal(err)
			}
		}
		tool := codemode.ToolDefinition{Name: "wait", ToolName: codemode.ToolName{Name: "wait"}, Kind: codemode.ToolKindFunction}
		started := make([]*codemode.StartedCell, live)
		for i := range live {
			s, err := p.CreateSession(context.Background(), codemode.FromBlocking(d), codemode.SessionCellExecutionLimits{})
			if err != nil {
				b.Fatal(err)
			}
			if started[i], err = s.Execute(context.Background(), codemode.ExecuteRequest{
				Source: `const big = []; for (let i = 0; i < 1000; i++) big.push({i, s: "x" + i}); text(await tools.wait())`, EnabledTools: []codemode.ToolDefinition{tool},
			}); err != nil {
				b.Fatal(err)
			}
		}
		for range live {
			<-d.entered
		}
		runtime.GC()
		rss, _ := residentAndPeak()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(rss)/(1<<20), "RSS-MiB")
		b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MiB")
		close(d.release)
		for _, c := range started {
			if _, err := c.InitialResponse(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
		p.Close()
	}
}
