package metrics_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/telemetry/metrics"
)

// blocking holds every tool call until the cell no longer needs it, and records closures.
type blocking struct {
	codemode.BlockingNoop
	mu     sync.Mutex
	closed []codemode.CellID
	called chan struct{}
}

// InvokeTool reports the call and waits for its cancellation.
func (d *blocking) InvokeTool(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
	d.called <- struct{}{}
	<-ctx.Done()
	return nil, ctx.Err()
}

// CellClosed records the cell.
func (d *blocking) CellClosed(id codemode.CellID) {
	d.mu.Lock()
	d.closed = append(d.closed, id)
	d.mu.Unlock()
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) lines(t *testing.T, msg string) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		if line["msg"] == msg {
			out = append(out, line)
		}
	}
	return out
}

// TestOutcomesOfStoppedCells covers the cells whose end is not their initial response: a cell
// collected by a later Wait (ok), a cell that the session closes before Terminate returns
// (terminated, reason terminate), and a cell stopped by its session's shutdown while its tool
// call waits (terminated, reason session_closed; the call cancelled). Every cell is counted once,
// the live gauges return to zero and /debug/sessions forgets the session.
func TestOutcomesOfStoppedCells(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var logs syncBuffer
	r := metrics.New(metrics.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), PoolSize: -1})
	d := &blocking{called: make(chan struct{}, 1)}
	s, err := r.Provider(newRuntime(t)).CreateSession(ctx, codemode.FromBlocking(d), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	zero, forever := uint64(0), uint64(3_600_000)
	wait := []codemode.ToolDefinition{{Name: "wait", ToolName: codemode.ToolName{Name: "wait"}, Kind: codemode.ToolKindFunction}}

	// A cell that yields at once, collected by Wait.
	done, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "a", Source: `text(1)`, YieldTimeMs: &zero})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := done.InitialResponse(ctx); err != nil {
		t.Fatal(err)
	}
	// A running cell, terminated.
	loop, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "b", Source: `while (true) {}`, YieldTimeMs: &zero})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loop.InitialResponse(ctx); err != nil {
		t.Fatal(err)
	}
	// A cell waiting in a tool call, left running.
	held, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "c", Source: `await tools.wait({})`, YieldTimeMs: &forever, EnabledTools: wait})
	if err != nil {
		t.Fatal(err)
	}
	<-d.called
	if l := r.Load(); l.Sessions != 1 || l.Cells != 3 {
		t.Fatalf("load %+v, want 1 session and 3 cells", l)
	}
	for {
		out, err := s.Wait(ctx, codemode.WaitRequest{CellID: done.CellID, YieldTimeMs: forever})
		if err != nil {
			t.Fatal(err)
		}
		if out.Response.IsTerminal() {
			break
		}
	}
	if out, err := s.Terminate(ctx, loop.CellID); err != nil || out.Response.Kind != codemode.Terminated {
		t.Fatalf("terminate: %+v, %v", out, err)
	}
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := held.InitialResponse(ctx); err != nil {
		t.Fatal(err)
	}

	want := map[string]float64{
		`codemode_cells_started_total`:                          3,
		`codemode_cells_live`:                                   0,
		`codemode_sessions_open`:                                0,
		`codemode_sessions_opened_total`:                        1,
		`codemode_cells_finished_total{outcome="ok"}`:           1,
		`codemode_cells_finished_total{outcome="terminated"}`:   2,
		`codemode_cells_finished_total{outcome="script_error"}`: 0,
		`codemode_tool_calls_total{result="cancelled"}`:         1,
		`codemode_tool_calls_total{result="ok"}`:                0,
	}
	got := gather(t, r)
	for series, v := range want {
		if got[series] != v {
			t.Errorf("%s = %v, want %v", series, got[series], v)
		}
	}
	reasons := map[string]string{}
	for _, line := range logs.lines(t, "code-mode cell finished") {
		reasons[line["cell"].(string)] = line["outcome"].(string) + " " + stringOr(line["reason"])
	}
	wantReasons := map[string]string{string(done.CellID): "ok ", string(loop.CellID): "terminated terminate", string(held.CellID): "terminated session_closed"}
	for cell, want := range wantReasons {
		if reasons[cell] != want {
			t.Errorf("cell %s logged %q, want %q", cell, reasons[cell], want)
		}
	}
	if n := len(logs.lines(t, "code-mode session closed")); n != 1 {
		t.Errorf("%d session closed lines, want 1", n)
	}
	if sessions := r.Sessions(); len(sessions) != 0 {
		t.Errorf("/debug/sessions after the shutdown: %+v", sessions)
	}
}

func stringOr(v any) string {
	s, _ := v.(string)
	return s
}

// gather reads the recorder's registry as "name{label="value"}" → value (a histogram's count).
func gather(t *testing.T, r *metrics.Recorder) map[string]float64 {
	t.Helper()
	families, err := r.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += "{" + l.GetName() + `="` + l.GetValue() + `"}`
			}
			switch {
			case m.GetCounter() != nil:
				out[key] = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				out[key] = m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				out[key] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}

// TestPeakHeapAndPool checks what the recorder exports of the runtime's memory and pool: a live
// cell's peak heap in /debug/sessions, each closed cell's peak in codemode_cell_peak_heap_bytes
// and in its log line, and the pool's counters as the pool reports them.
func TestPeakHeapAndPool(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var logs syncBuffer
	pool := metrics.PoolStats{Hits: 3, Misses: 1, Idle: 2}
	r := metrics.New(metrics.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), PoolSize: -1,
		PoolStats: func() metrics.PoolStats { return pool }})
	d := &blocking{called: make(chan struct{}, 1)}
	s, err := r.Provider(newRuntime(t)).CreateSession(ctx, codemode.FromBlocking(d), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	forever := uint64(3_600_000)
	wait := []codemode.ToolDefinition{{Name: "wait", ToolName: codemode.ToolName{Name: "wait"}, Kind: codemode.ToolKindFunction}}
	held, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "a", YieldTimeMs: &forever, EnabledTools: wait,
		Source: `const a = new Uint8Array(20 * 1024 * 1024); a.fill(1); await tools.wait({})`})
	if err != nil {
		t.Fatal(err)
	}
	<-d.called
	if cells := r.Sessions()[0].Cells; len(cells) != 1 || cells[0].PeakHeapBytes == nil || *cells[0].PeakHeapBytes < 20<<20 {
		t.Errorf("/debug/sessions of a cell holding 20 MiB: %+v, want a peak_heap_bytes of at least 20 MiB", cells)
	}
	small, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "b", YieldTimeMs: &forever, Source: `text(1)`})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := small.InitialResponse(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	got := gather(t, r)
	for series, want := range map[string]float64{
		"codemode_cell_peak_heap_bytes":      2,
		"codemode_runtime_pool_hits_total":   3,
		"codemode_runtime_pool_misses_total": 1,
		"codemode_runtime_pool_idle":         2,
	} {
		if got[series] != want {
			t.Errorf("%s = %v, want %v", series, got[series], want)
		}
	}
	peaks := map[string]float64{}
	for _, line := range logs.lines(t, "code-mode cell finished") {
		peak, _ := line["peak_heap_bytes"].(float64)
		peaks[line["cell"].(string)] = peak
	}
	if peaks[string(held.CellID)] < 20<<20 || peaks[string(small.CellID)] <= 0 || peaks[string(small.CellID)] >= peaks[string(held.CellID)] {
		t.Errorf("peak_heap_bytes in the log lines: %v, want at least 20 MiB for cell %s and less, but some, for cell %s", peaks, held.CellID, small.CellID)
	}
}
