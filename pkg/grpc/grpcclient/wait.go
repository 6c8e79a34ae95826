package grpcclient

import (
	"context"
	"errors"
	"fmt"

	"connectrpc.com/connect/v2"
	"github.com/google/uuid"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// wait observes a cell (wire ID) under a fresh wait ID. If ctx ends first, the host is told with
// CancelWait, and until that returns the cell's next wait is held back, so it cannot meet the old
// observer on the host. The one-observer rule itself is the host's: its text reaches the caller.
func (b *binding) wait(ctx context.Context, req codemode.WaitRequest) (codemode.WaitOutcome, error) {
	if err := b.life().err(); err != nil {
		return codemode.WaitOutcome{}, err
	}
	if err := b.dropped.await(ctx, b.ctx.Done(), req.CellID); err != nil {
		return codemode.WaitOutcome{}, err
	}
	if err := b.life().err(); err != nil {
		return codemode.WaitOutcome{}, err
	}
	// A caller already gone takes nothing: the cell's output stays for the next observation.
	if err := context.Cause(ctx); err != nil {
		return codemode.WaitOutcome{}, err
	}
	waitID := uuid.NewString()
	if closed(req.YieldNow) {
		// Already told to yield: a zero yield time answers at once, with no race between the
		// Wait and a YieldObservation.
		req.YieldTimeMs, req.YieldNow = 0, nil
	}
	msg := &pb.WaitRequest{SessionId: b.id, CellId: string(req.CellID), WaitId: waitID, YieldTimeMs: req.YieldTimeMs, MaxOutputTokens: b.truncation.budget(req.MaxOutputTokens)}
	answers := make(chan waitAnswer, 1)
	rpcCtx, cancelRPC := context.WithCancel(b.ctx)
	b.observing.begin()
	defer b.observing.end()
	go func() {
		var resp *pb.WaitResponse
		var buffered func(*codemode.WaitOutcome)
		err := b.request(rpcCtx, "wait", runtimeAllowance(req.YieldTimeMs), func(ctx context.Context) error {
			var err error
			ctx, buffered = withBufferedFor(ctx)
			resp, err = b.client.Wait(ctx, msg)
			return err
		})
		answers <- waitAnswer{resp, buffered, err}
	}()
	answered := make(chan struct{})
	defer close(answered)
	b.watchYield(req.YieldNow, answered, &pb.YieldObservationRequest{Observation: &pb.YieldObservationRequest_WaitId{WaitId: waitID}})
	select {
	case a := <-answers:
		cancelRPC()
		if a.err != nil {
			return codemode.WaitOutcome{}, runtimeError(a.err)
		}
		return b.waitOutcome(ctx, req.CellID, a.resp, a.buffered)
	case <-ctx.Done():
		select {
		case a := <-answers:
			// The answer came with the caller's end: what it took is returned, not lost.
			cancelRPC()
			if a.err == nil {
				return b.waitOutcome(b.ctx, req.CellID, a.resp, a.buffered)
			}
		default:
			b.retireWait(req.CellID, waitID, cancelRPC, answers)
		}
		return codemode.WaitOutcome{}, context.Cause(ctx)
	}
}

// retireWait cancels a dropped wait on the host in the background; the cell's next wait waits for
// it. A CancelWait that fails fails the binding: the old observer might still hold the cell.
func (b *binding) retireWait(cell codemode.CellID, waitID string, cancelRPC context.CancelFunc, answers <-chan waitAnswer) {
	release := b.dropped.drop(cell)
	retire := func() {
		defer release()
		err := b.request(context.Background(), "wait cancellation", 0, func(ctx context.Context) error {
			_, err := b.client.CancelWait(ctx, &pb.CancelWaitRequest{SessionId: b.id, WaitId: waitID})
			return err
		})
		cancelRPC()
		<-answers
		if err != nil && !b.stopped() {
			b.stop(leaseFailed, fmt.Errorf("failed to retire canceled gRPC code-mode wait: %w", err))
		}
	}
	if !b.streams.spawn(retire) {
		cancelRPC()
		release()
	}
}

// waitAnswer is the result of a Wait request; buffered reads the Result's buffered time from
// its response headers.
type waitAnswer struct {
	resp     *pb.WaitResponse
	buffered func(*codemode.WaitOutcome)
	err      error
}

// terminate stops a cell (wire ID).
func (b *binding) terminate(ctx context.Context, cell codemode.CellID) (codemode.WaitOutcome, error) {
	if err := b.life().err(); err != nil {
		return codemode.WaitOutcome{}, err
	}
	var resp *pb.WaitResponse
	err := b.request(ctx, "termination", 0, func(ctx context.Context) error {
		var err error
		resp, err = b.client.Terminate(ctx, &pb.TerminateRequest{SessionId: b.id, CellId: string(cell)})
		return err
	})
	if err != nil {
		return codemode.WaitOutcome{}, runtimeError(err)
	}
	return b.waitOutcome(ctx, cell, resp, nil)
}

// waitOutcome converts a WaitResponse for cell, checks it names the cell (a mismatch fails the
// binding) and settles the cell's notifications.
func (b *binding) waitOutcome(ctx context.Context, cell codemode.CellID, resp *pb.WaitResponse, buffered func(*codemode.WaitOutcome)) (codemode.WaitOutcome, error) {
	o, err := grpcconv.WaitOutcomeFromProto(resp)
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	if buffered != nil {
		buffered(&o)
	}
	if err := checkCell(cell, o.Response); err != nil {
		b.stop(leaseFailed, err)
		return codemode.WaitOutcome{}, err
	}
	if !b.settle(ctx, o.Response) {
		if err := context.Cause(ctx); err != nil && b.ctx.Err() == nil {
			return codemode.WaitOutcome{}, err
		}
		return codemode.WaitOutcome{}, b.life().interrupted()
	}
	return o, nil
}

// checkCell fails if a response names another cell than the one asked for; the error is fatal
// to the binding.
func checkCell(cell codemode.CellID, r codemode.RuntimeResponse) error {
	if r.CellID == cell {
		return nil
	}
	return fmt.Errorf("gRPC code-mode host returned cell %s instead of %s", r.CellID, cell)
}

// settle applies a response to the cell's notifications: a Result returns once all of them were
// delivered (the host sends CellClosed after them, and the closure settles them), a Terminated
// cancels them. A host that waits for acknowledgements sent the Result only after they were
// handled, so there is nothing to wait for. It reports false if ctx (the caller's) or the
// binding ended first.
func (b *binding) settle(ctx context.Context, r codemode.RuntimeResponse) bool {
	b.mu.Lock()
	settled := b.st.settle(r, b.acked)
	b.mu.Unlock()
	if settled == nil {
		return true
	}
	select {
	case <-settled:
		return true
	case <-ctx.Done():
		return false
	case <-b.ctx.Done():
		return false
	}
}

// runtimeError passes the runtime's own errors through: a host answers FAILED_PRECONDITION with
// the runtime's text ("exec cell 1 already has an active observer", "code mode session is shutting
// down"), which the caller sees as an in-process session would show it. Anything else keeps the
// request's bounded failure text.
func runtimeError(err error) error {
	var ce *connect.Error
	if errors.As(err, &ce) && ce.Code() == connect.CodeFailedPrecondition {
		return errors.New(ce.Message())
	}
	return err
}
