package grpcclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
	"github.com/codemodehq/codemode/pkg/serdejson"
)

// handleSessionEvent applies one lease event; an error is fatal to the binding.
func (b *binding) handleSessionEvent(e *pb.SessionEvent) error {
	switch v := e.GetEvent().(type) {
	case *pb.SessionEvent_Opened:
		return errors.New("gRPC code-mode host repeated the session opening event")
	case *pb.SessionEvent_ToolCallCancelled:
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.st.cancelInvocation(v.ToolCallCancelled.GetInvocationId())
	case *pb.SessionEvent_Notification:
		return b.handleNotification(v.Notification)
	case *pb.SessionEvent_NotificationCancelled:
		return nil
	case *pb.SessionEvent_CellClosed:
		b.mu.Lock()
		cell, err := b.st.closeCell(v.CellClosed)
		b.mu.Unlock()
		if err != nil {
			return err
		}
		reportClosed(b.delegate, cell)
		return nil
	default:
		return errors.New("gRPC code-mode host sent an empty session event")
	}
}

// handleToolCall admits a ToolCall and starts the delegate's call for it; an error is fatal to the
// binding.
func (b *binding) handleToolCall(call *pb.ToolCall) error {
	if call.GetSessionId() != b.id {
		return fmt.Errorf("gRPC code-mode tool invocation belongs to session %s instead of %s", call.GetSessionId(), b.id)
	}
	b.mu.Lock()
	verdict, err := b.st.admitInvocation(call)
	b.mu.Unlock()
	if err != nil {
		return err
	}
	switch verdict.admission {
	case preCancelled:
		return nil
	case closedCell:
		go b.complete(context.Background(), call.GetInvocationId(), failed(fmt.Sprintf("code-mode cell %s is closed", call.GetCellId())))
		return nil
	case rejected:
		go b.complete(context.Background(), call.GetInvocationId(), failed(verdict.reason))
		return nil
	}
	b.invoke(verdict.ctx, call)
	return nil
}

// invoke starts the delegate's call for an admitted tool call. Its outcome completes the call on
// a goroutine of its own, since done may run on a transport's reader (a delegate that forwards
// the call elsewhere), unless the call was cancelled meanwhile (the host no longer waits for it).
func (b *binding) invoke(ctx context.Context, call *pb.ToolCall) {
	id := call.GetInvocationId()
	finish := func(result grpcconv.ToolResult) {
		go func() {
			if ctx.Err() == nil {
				b.complete(ctx, id, result)
			}
			b.mu.Lock()
			b.st.finishInvocation(id)
			b.mu.Unlock()
		}()
	}
	domain, err := grpcconv.NestedToolCallFromProto(call)
	if err != nil {
		finish(failed(err.Error()))
		return
	}
	codemode.StartToolCall(withTraceparent(ctx, call.GetTraceparent()), b.delegate, domain, func(out json.RawMessage, err error) {
		finish(toolResult(out, err))
	})
}

// toolResult turns the delegate's answer into the completion: an error's text, or the output,
// which must be JSON the host accepts (an empty one is null).
func toolResult(out json.RawMessage, err error) grpcconv.ToolResult {
	switch {
	case err != nil:
		return failed(err.Error())
	case len(out) == 0:
		return grpcconv.ToolResult{Output: json.RawMessage("null")}
	}
	if _, perr := serdejson.Parse(out); perr != nil {
		return failed("tool result is not valid JSON")
	}
	return grpcconv.ToolResult{Output: out}
}

func failed(message string) grpcconv.ToolResult {
	return grpcconv.ToolResult{Failed: true, Failure: message}
}

// complete sends a CompleteToolCall. A failure other than the invocation's or the binding's end
// fails the binding: the host would wait for this result forever.
func (b *binding) complete(ctx context.Context, invocation string, result grpcconv.ToolResult) {
	req := grpcconv.ToolResultToProto(b.id, invocation, result, grpcconv.MaxMessageBytes)
	err := b.request(ctx, "tool invocation completion", 0, func(ctx context.Context) error {
		_, err := b.client.CompleteToolCall(ctx, req)
		return err
	})
	if err != nil && ctx.Err() == nil && !b.stopped() {
		b.stop(leaseFailed, err)
	}
}

// handleNotification admits a Notification and starts its delivery, then acknowledges it, on a
// goroutine of its own once delivered (the session asked the host to wait for that,
// grpcconv.AcknowledgementsHeader).
// Past the pending limit, or for a closed cell, it is dropped and acknowledged at once.
func (b *binding) handleNotification(n *pb.Notification) error {
	b.mu.Lock()
	verdict, err := b.st.admitNotification(n)
	b.mu.Unlock()
	if err != nil {
		return err
	}
	if verdict.admission != admitted {
		go b.acknowledge(n.GetNotificationId())
		return nil
	}
	codemode.StartNotify(verdict.ctx, b.delegate, n.GetCallId(), codemode.CellID(n.GetCellId()), n.GetText(), func(error) {
		go func() {
			b.acknowledge(n.GetNotificationId())
			b.mu.Lock()
			cell := b.st.finishNotification(n.GetExecutionId())
			b.mu.Unlock()
			reportClosed(b.delegate, cell)
		}()
	})
	return nil
}

// acknowledge tells the host a notification was handled. A failure fails the binding: the host
// would hold the cell's completion for it.
func (b *binding) acknowledge(notification string) {
	err := b.request(context.Background(), "notification acknowledgement", 0, func(ctx context.Context) error {
		_, err := b.client.AcknowledgeNotification(ctx, &pb.AcknowledgeNotificationRequest{SessionId: b.id, NotificationId: notification})
		return err
	})
	if err != nil && !b.stopped() {
		b.stop(leaseFailed, err)
	}
}

// reportClosed tells the delegate that cells (wire IDs; "" is skipped) closed. A CellClosed that
// panics or ends its goroutine is the owner's bug: it is contained and reported, as in-process
// sessions do (codemode.CallCellClosed).
func reportClosed(d codemode.Delegate, cells ...codemode.CellID) {
	for _, cell := range cells {
		if cell != "" {
			codemode.CallCellClosed(d, cell)
		}
	}
}
