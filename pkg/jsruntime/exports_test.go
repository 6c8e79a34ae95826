package jsruntime

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime/internal/engine"
)

// TestReusedEngineKeepsOnlyHotExports runs cells that take every road into wasm (module loading,
// eval, syntax errors, exceptions, large JSON results) on one engine, and checks after each reset
// that it keeps at most one instance per hot export and none of the others.
func TestReusedEngineKeepsOnlyHotExports(t *testing.T) {
	p, err := NewProvider(Options{PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	resets := make(chan engine.ResetReport, 16)
	t.Cleanup(p.pool.ObserveResets(func(r engine.ResetReport) {
		if r.Reusable {
			resets <- r
		}
	}))
	big, _ := json.Marshal(map[string]string{"data": string(make([]byte, 8<<10))})
	d := newRecorder(func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) { return big, nil })
	s := newSessionOn(t, p, d, codemode.SessionCellExecutionLimits{})
	for _, src := range []string{
		`text(1)`,
		`text((await tools.big()).data.length)`,
		`text(eval("1 + 1")); try { eval("(") } catch (e) { text(e.name) }`,
		`try { new Function("{") } catch (e) { text(String(e)) } throw new Error("boom")`,
		`export const x = 1; text(x)`,
	} {
		executeCell(t, s, src, testTool("big"))
		got := <-resets
		if got.ColdExportsKept != 0 || got.ExportsKept > engine.HotExportCount() {
			t.Fatalf("after %s: %d instances kept, %d of cold exports (at most %d hot ones allowed)", src, got.ExportsKept, got.ColdExportsKept, engine.HotExportCount())
		}
	}
}

// TestWaitingCellShedsItsExports checks that a cell waiting on a tool call drops its engine's
// resolved exports, and resolves them again when the result arrives. The tool answers only once
// the loop has shed, so the test waits for the event, not for a duration.
func TestWaitingCellShedsItsExports(t *testing.T) {
	shed := make(chan struct{}, 1)
	d := newRecorder(func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
		select {
		case <-shed:
		case <-time.After(guardTimeout):
			return nil, context.DeadlineExceeded
		}
		return json.RawMessage(`41`), nil
	})
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	s.(*session).hooks.runtime = func(_ codemode.CellID, st runtimeStage) {
		if st == stageShed {
			select {
			case shed <- struct{}{}:
			default:
			}
		}
	}
	stats := make(chan loopStats, 1)
	observeLoopStats = func(s loopStats) { stats <- s }
	defer func() { observeLoopStats = nil }()
	r := executeCell(t, s, `text((await tools.slow()) + 1)`, testTool("slow"))
	if got := textsOf(r.ContentItems); r.ErrorText != nil || len(got) != 1 || got[0] != "42" {
		t.Fatalf("%s %q", errorTextOf(r), got)
	}
	if got := <-stats; got.sheds == 0 {
		t.Fatalf("the waiting cell never shed: %+v", got)
	}
}
