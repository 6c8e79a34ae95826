package v1host

import (
	"context"
	"testing"

	"github.com/codemodehq/codemode/gen/go/wirev1"
)

// TestOperationsWithoutATracerCostNothing: a host without WithTracer starts no span and
// allocates nothing per operation.
func TestOperationsWithoutATracerCostNothing(t *testing.T) {
	h := New(nil)
	ctx := context.Background()
	var req wirev1.HostRequest = wirev1.Execute{SessionId: "s", Request: wirev1.WireExecuteRequest{ToolCallId: "call-1"}}
	if got, end := h.traceOperation(ctx, req); got != ctx {
		t.Error("the operation's context changed without a tracer")
	} else {
		end()
	}
	if n := testing.AllocsPerRun(100, func() {
		_, end := h.traceOperation(ctx, req)
		end()
	}); n != 0 {
		t.Errorf("an operation without a tracer costs %v allocations, want 0", n)
	}
}
