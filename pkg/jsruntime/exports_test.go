package jsruntime

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// hotExportCount is the most resolved instances an engine keeps between calls.
func hotExportCount() int {
	n := 0
	for _, hot := range hotExports {
		if hot {
			n++
		}
	}
	return n
}

// TestEngineKeepsOneInstancePerHotExport checks what an engine holds between calls: a cold export
// is resolved for its call and dropped, and a re-entrant call of a hot export leaves one instance
// kept, not two.
func TestEngineKeepsOneInstancePerHotExport(t *testing.T) {
	e := benchEngine(t)
	e.w.shed()
	if _, err := e.w.call(exThrowTypeError, e.jsctx, uint64(e.scratch)); err != nil {
		t.Fatal(err)
	}
	exc, err := e.w.call(exGetException, e.jsctx)
	if err != nil {
		t.Fatal(err)
	}
	e.free(exc)
	if e.w.fns[exThrowTypeError] != nil || e.w.fns[exGetException] != nil {
		t.Fatal("a cold export's instance was kept")
	}
	if got := e.w.kept(); got != 1 { // QJS_FreeValue's
		t.Fatalf("%d instances kept, want 1", got)
	}
	// An outer call holds free's kept instance while a re-entrant one runs; each puts its own back.
	outer := e.w.take(exFree)
	if _, err := e.w.call(exFree, 0); err != nil {
		t.Fatal(err)
	}
	inner := e.w.fns[exFree]
	if inner == nil || inner == outer {
		t.Fatal("the re-entrant call did not resolve and keep an instance of its own")
	}
	e.w.put(exFree, outer)
	if e.w.fns[exFree] != inner || e.w.kept() != 2 {
		t.Fatalf("after the outer call: %d instances kept, want free's and QJS_FreeValue's", e.w.kept())
	}
}

// TestReusedEngineKeepsOnlyHotExports runs cells that take every road into wasm (module loading,
// eval, syntax errors, exceptions, large JSON results) on one engine, and checks after each reset
// that it keeps at most one instance per hot export and none of the others.
func TestReusedEngineKeepsOnlyHotExports(t *testing.T) {
	p, err := NewProvider(Options{PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	type seen struct{ kept, cold int }
	resets := make(chan seen, 16)
	setObserveReset(t, func(e *engine, ok bool) {
		if e.img != p.pool.img || !ok {
			return
		}
		s := seen{kept: e.w.kept()}
		for id, fn := range e.w.fns {
			if fn != nil && !hotExports[id] {
				s.cold++
			}
		}
		resets <- s
	})
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
		if got.cold != 0 || got.kept > hotExportCount() {
			t.Fatalf("after %s: %d instances kept, %d of cold exports (at most %d hot ones allowed)", src, got.kept, got.cold, hotExportCount())
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
		case <-time.After(time.Minute):
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
