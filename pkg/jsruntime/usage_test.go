package jsruntime

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// usageDelegate records each cell's codemode.CellUsage and whether it came before the cell's
// CellClosed, as the contract requires.
type usageDelegate struct {
	*recordingDelegate
	mu          sync.Mutex
	usage       map[codemode.CellID]codemode.CellUsage
	lateOrTwice []codemode.CellID
}

func newUsageDelegate(invoke func(context.Context, codemode.NestedToolCall) (json.RawMessage, error)) *usageDelegate {
	return &usageDelegate{recordingDelegate: newRecorder(invoke), usage: map[codemode.CellID]codemode.CellUsage{}}
}

func (d *usageDelegate) CellUsage(id codemode.CellID, u codemode.CellUsage) {
	_, _, closed := d.snapshot()
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, seen := d.usage[id]; seen || contains(closed, id) {
		d.lateOrTwice = append(d.lateOrTwice, id)
	}
	d.usage[id] = u
}

func contains(ids []codemode.CellID, id codemode.CellID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// peakOf waits for cell id's CellClosed and returns the usage reported before it.
func (d *usageDelegate) peakOf(t *testing.T, id codemode.CellID) uint64 {
	t.Helper()
	select {
	case got := <-d.closedC:
		if got != id {
			t.Fatalf("cell %s closed, want %s", got, id)
		}
	case <-time.After(guardTimeout):
		t.Fatalf("cell %s never closed", id)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	u, ok := d.usage[id]
	if !ok || len(d.lateOrTwice) > 0 {
		t.Fatalf("cell %s: usage reported %v, reported late or twice for %v", id, ok, d.lateOrTwice)
	}
	return u.PeakHeapBytes
}

// TestCellUsageReportsPeakHeap checks the peak heap a session reports with each cell's closure: a
// cell that allocates 20 MiB reports at least that much, and nearly 20 MiB more than a trivial
// cell on the same, reset, runtime, which holds little more than the memory image every cell
// starts from (about 9 MiB, 8 MiB of it the wasm stack region). Nearly: QuickJS's allocator serves
// part of a large allocation from free space the image already holds.
func TestCellUsageReportsPeakHeap(t *testing.T) {
	d := newUsageDelegate(nil)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	big := executeCell(t, s, `const a = new Uint8Array(20 * 1024 * 1024); a.fill(7); text(String(a.length))`)
	checkResult(t, "20 MiB cell", big, "", "20971520")
	bigPeak := d.peakOf(t, big.CellID)
	small := executeCell(t, s, `text("hi")`)
	checkResult(t, "trivial cell", small, "", "hi")
	smallPeak := d.peakOf(t, small.CellID)
	t.Logf("peak heap: %d bytes for the 20 MiB cell, %d for a trivial one", bigPeak, smallPeak)
	if smallPeak == 0 || smallPeak > 16<<20 {
		t.Errorf("a trivial cell's peak heap: %d bytes, want more than 0 and at most 16 MiB", smallPeak)
	}
	if bigPeak < 20<<20 || bigPeak-smallPeak < 19<<20 {
		t.Errorf("the 20 MiB cell's peak heap: %d bytes, want at least 20 MiB, and 19 MiB more than a trivial cell's %d", bigPeak, smallPeak)
	}
}

// TestLiveCellUsage checks that a session tells a live cell's peak heap so far: a cell that has
// allocated 20 MiB and waits for a tool reports at least that much, and a closed cell nothing.
func TestLiveCellUsage(t *testing.T) {
	calls := make(chan struct{}, 1)
	d := newUsageDelegate(func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
		calls <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	started, err := s.Execute(context.Background(), codemode.ExecuteRequest{ToolCallID: "call-1",
		Source: `const a = new Uint8Array(20 * 1024 * 1024); a.fill(7); await tools.block({})`, EnabledTools: []codemode.ToolDefinition{testTool("block")}})
	if err != nil {
		t.Fatal(err)
	}
	<-calls // the turn that allocated has ended: its memory was recorded before the call started
	probe := s.(codemode.CellUsageProbe)
	if u, ok := probe.LiveCellUsage(started.CellID); !ok || u.PeakHeapBytes < 20<<20 {
		t.Errorf("a live cell holding 20 MiB: %+v (%v), want at least %d bytes", u, ok, 20<<20)
	}
	if _, err := s.Terminate(context.Background(), started.CellID); err != nil {
		t.Fatal(err)
	}
	d.peakOf(t, started.CellID)
	if u, ok := probe.LiveCellUsage(started.CellID); ok {
		t.Errorf("a closed cell's usage: %+v, want none", u)
	}
}

// TestProviderPoolStats checks the hits and misses a provider reports, on a provider that keeps
// no runtime warm so that only cells take runtimes: cells one after another reuse the one
// runtime (hits), and a cell that starts while another holds it must create one (a miss).
func TestProviderPoolStats(t *testing.T) {
	p := newCappedProvider(t, Options{PoolSize: -1})
	calls := make(chan struct{}, 1)
	d := newRecorder(func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
		calls <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s := newCappedSession(t, p, d)
	for range 2 {
		checkResult(t, "sequential cell", executeCell(t, s, `text("x")`), "", "x")
		<-d.closedC
	}
	if got := p.PoolStats(); got.Hits != 2 || got.Misses != 0 {
		t.Fatalf("after two cells in turn: %+v, want 2 hits and no miss", got)
	}
	holder, err := s.Execute(context.Background(), codemode.ExecuteRequest{ToolCallID: "call-1",
		Source: `await tools.block({})`, EnabledTools: []codemode.ToolDefinition{testTool("block")}})
	if err != nil {
		t.Fatal(err)
	}
	<-calls // the holder has the only runtime
	checkResult(t, "cell beside the holder", executeCell(t, s, `text("y")`), "", "y")
	if got := p.PoolStats(); got.Hits != 3 || got.Misses != 1 {
		t.Errorf("after a cell beside another: %+v, want 3 hits and 1 miss", got)
	}
	if _, err := s.Terminate(context.Background(), holder.CellID); err != nil {
		t.Fatal(err)
	}
}
