package grpcclient

import (
	"context"

	"connectrpc.com/connect/v2"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// What the client sends and reads of Codex 0.169's additions (docs/protocol/grpc.md#additions-of-codex-0169).

// openRequest is a binding's OpenSession: its limits, who truncates, and the bound on pending
// callbacks the client itself admits (so the host refuses what the client would).
func openRequest(limits codemode.SessionCellExecutionLimits, t truncation) *pb.OpenSessionRequest {
	maxPending := uint64(maxPendingCallbacks)
	req := &pb.OpenSessionRequest{CellExecutionLimits: grpcconv.SessionLimitsToProto(limits), MaxPendingDelegateCalls: &maxPending}
	if t.asked {
		req.OutputTruncation = pb.OutputTruncation_OUTPUT_TRUNCATION_SERVER
	}
	return req
}

// truncation is who truncates a lease's outcomes. asked: the session is opened with
// OUTPUT_TRUNCATION_SERVER (Options.ServerTruncation); granted: the host said it truncates, so
// waits send their budget.
type truncation struct{ asked, granted bool }

// answered records the host's answer in its opening event (Codex 0.169); an older host never
// truncates.
func (t *truncation) answered(opened *pb.SessionOpened) {
	t.granted = t.asked && opened.GetOutputTruncation() == pb.OutputTruncation_OUTPUT_TRUNCATION_SERVER
}

// budget is a wait's or terminate's max_output_tokens: the caller's budget when the host
// truncates, else none.
func (t truncation) budget(tokens *int) *uint64 {
	if !t.granted || tokens == nil {
		return nil
	}
	v := uint64(max(*tokens, 0))
	return &v
}

// watchYield asks the host to end observation obs when now is closed, until stop is closed. A
// host that does not know YieldObservation (before Codex 0.169) answers UNIMPLEMENTED, which is
// ignored: the observation then ends at its yield time.
func (b *binding) watchYield(now <-chan struct{}, stop <-chan struct{}, obs *pb.YieldObservationRequest) {
	if now == nil {
		return
	}
	obs.SessionId = b.id
	b.streams.spawn(func() {
		select {
		case <-now:
		case <-stop:
			return
		case <-b.ctx.Done():
			return
		}
		_ = b.request(context.Background(), "yield observation", 0, func(ctx context.Context) error {
			_, err := b.client.YieldObservation(ctx, obs)
			return err
		})
	})
}

// closed reports whether ch (nil: never) is closed.
func closed(ch <-chan struct{}) bool {
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// withBufferedFor returns a context whose Wait call reports its response headers, and the
// function that reads the buffered time from them into a Result.
func withBufferedFor(ctx context.Context) (context.Context, func(*codemode.WaitOutcome)) {
	ctx, info := connect.NewClientContext(ctx)
	return ctx, func(o *codemode.WaitOutcome) {
		if o.Missing || o.Response.Kind != codemode.Result {
			return
		}
		if d, ok := grpcconv.ParseBufferedFor(info.ResponseHeader().Get(grpcconv.BufferedForHeader)); ok {
			o.Response.BufferedFor = &d
		}
	}
}
