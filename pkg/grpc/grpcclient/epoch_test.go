package grpcclient

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Codex's code-mode/src/grpc_session/generation_tests.rs.

func TestFirstEpochPreservesExistingCellIds(t *testing.T) {
	if got := PublicCellID(1, "42"); got != "42" {
		t.Fatalf("PublicCellID(1, 42) = %q", got)
	}
	if got, err := RemoteCellID(1, "42"); err != nil || got != "42" {
		t.Fatalf("RemoteCellID(1, 42) = %q, %v", got, err)
	}
}

func TestFirstEpochPreservesOpaqueCellIdsThatResembleEpochPrefixes(t *testing.T) {
	for _, id := range []codemode.CellID{"graphics:1", "g2:42"} {
		if got := PublicCellID(1, id); got != id {
			t.Fatalf("PublicCellID(1, %q) = %q", id, got)
		}
		if got, err := RemoteCellID(1, id); err != nil || got != id {
			t.Fatalf("RemoteCellID(1, %q) = %q, %v", id, got, err)
		}
	}
}

func TestLaterEpochsPrefixPublicIdsAndStripWireIds(t *testing.T) {
	if got := PublicCellID(2, "42"); got != "g2:42" {
		t.Fatalf("PublicCellID(2, 42) = %q", got)
	}
	if got, err := RemoteCellID(2, "g2:42"); err != nil || got != "42" {
		t.Fatalf("RemoteCellID(2, g2:42) = %q, %v", got, err)
	}
}

func TestStaleEpochIdsAreRejectedAfterReconnection(t *testing.T) {
	for _, id := range []string{"42", "g1:42", "g3:42", strings.Repeat("x", 10_000)} {
		_, err := RemoteCellID(2, codemode.CellID(id))
		wantErr(t, "stale "+id[:min(len(id), 8)], err, "cell belongs to a stale code-mode host generation")
	}
}

// recordingDelegate records what an epochDelegate forwards.
type recordingDelegate struct {
	calls   []codemode.NestedToolCall
	notes   []string
	closed  []codemode.CellID
	reasons []string
	usage   []codemode.CellID
}

func (r *recordingDelegate) StartToolCall(_ context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	r.calls = append(r.calls, call)
	done(json.RawMessage(`{"ok":true}`), nil)
}

func (r *recordingDelegate) StartNotify(_ context.Context, callID string, cell codemode.CellID, text string, done func(error)) {
	r.notes = append(r.notes, callID+"|"+string(cell)+"|"+text)
	done(nil)
}

func (r *recordingDelegate) CellUsage(cell codemode.CellID, _ codemode.CellUsage) {
	r.usage = append(r.usage, cell)
}

func (r *recordingDelegate) CellClosed(cell codemode.CellID) { r.closed = append(r.closed, cell) }

func (r *recordingDelegate) ReportFailure(reason string) { r.reasons = append(r.reasons, reason) }

func TestReconnectMapsEveryDelegateCallbackToItsEpoch(t *testing.T) {
	rec := &recordingDelegate{}
	d := epochDelegate{delegate: rec, epoch: 2}
	call := codemode.NestedToolCall{CellID: "42", RuntimeToolCallID: "runtime-call", ToolName: codemode.ToolName{Name: "echo"},
		ToolKind: codemode.ToolKindFunction, Input: json.RawMessage(`{"value":true}`)}
	d.StartToolCall(context.Background(), call, func(out json.RawMessage, err error) {
		if err != nil || string(out) != `{"ok":true}` {
			t.Fatalf("StartToolCall settled with %s, %v", out, err)
		}
	})
	d.StartNotify(context.Background(), "outer-call", "42", "notice", func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	})
	d.CellUsage("42", codemode.CellUsage{})
	d.CellClosed("42")
	d.ReportFailure("probe")
	call.CellID = "g2:42"
	if !reflect.DeepEqual(rec.calls, []codemode.NestedToolCall{call}) {
		t.Fatalf("calls %+v", rec.calls)
	}
	if !reflect.DeepEqual(rec.notes, []string{"outer-call|g2:42|notice"}) || !reflect.DeepEqual(rec.closed, []codemode.CellID{"g2:42"}) ||
		!reflect.DeepEqual(rec.usage, []codemode.CellID{"g2:42"}) {
		t.Fatalf("notifications %v, closures %v, usage %v", rec.notes, rec.closed, rec.usage)
	}
	if !reflect.DeepEqual(rec.reasons, []string{"probe"}) {
		t.Fatalf("failures %v", rec.reasons)
	}
}

// The mapping of a started cell is lazy: the StartedCell's ID is public at once, its response is
// mapped when it arrives, and nothing is claimed before the caller asks.
func TestReconnectedExecutionMapsStartedAndInitialResponseIds(t *testing.T) {
	results := make(chan codemode.InitialResult, 1)
	b := &binding{epoch: 2}
	started := codemode.NewStartedCell(PublicCellID(b.epoch, "42"), results, nil)
	if started.CellID != "g2:42" {
		t.Fatalf("started cell %q", started.CellID)
	}
	results <- codemode.InitialResult{Response: publicResponse(2, codemode.RuntimeResponse{Kind: codemode.Result, CellID: "42",
		ContentItems: []codemode.ContentItem{codemode.InputText{Text: "result"}}})}
	r, err := started.InitialResponse(context.Background())
	if err != nil || r.CellID != "g2:42" || r.Kind != codemode.Result || !reflect.DeepEqual(r.ContentItems, []codemode.ContentItem{codemode.InputText{Text: "result"}}) {
		t.Fatalf("initial response %+v, %v", r, err)
	}
}

func TestReconnectedWaitMapsLiveAndMissingOutcomes(t *testing.T) {
	live := publicWaitOutcome(2, codemode.WaitOutcome{Response: codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: "42"}})
	if live.Missing || live.Response.CellID != "g2:42" || live.Response.Kind != codemode.Yielded {
		t.Fatalf("live %+v", live)
	}
	missing := publicWaitOutcome(2, codemode.WaitOutcome{Missing: true, Response: codemode.RuntimeResponse{Kind: codemode.Terminated, CellID: "42"}})
	if !missing.Missing || missing.Response.CellID != "g2:42" || missing.Response.Kind != codemode.Terminated {
		t.Fatalf("missing %+v", missing)
	}
}
