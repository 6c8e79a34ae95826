package grpchost

import (
	"context"
	"time"

	"connectrpc.com/connect/v2"
	"github.com/google/uuid"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1/code_modev1connect"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// service implements the generated handler interface on a Host. Each method is the RPC's
// protocol: permits first, so an overloaded host refuses before it does any work, then validation
// in Codex's order, so a request with several faults gets the same status from either host, then
// the session's own operation.
type service struct{ h *Host }

var _ code_modev1connect.CodeModeHostHandler = service{}

// OpenSession opens a session and streams its lease events, the first being opened. The session
// closes when the client drops the stream; the stream ends when the session has shut down.
func (svc service) OpenSession(ctx context.Context, req *pb.OpenSessionRequest, stream code_modev1connect.CodeModeHostOpenSessionServerStream) error {
	s, err := svc.open(ctx, req)
	if err != nil {
		return err
	}
	// The lease is the session's life: its end closes the session, and the session's close
	// (by anyone) retires it and shuts it down.
	stopLease := context.AfterFunc(ctx, s.cancel)
	defer stopLease()
	context.AfterFunc(s.ctx, func() {
		svc.h.retire(s)
		s.shutdownOnce.Do(func() { go s.runShutdown() })
	})
	for {
		e, ok := s.events.next(ctx)
		if !ok {
			return context.Cause(ctx)
		}
		if err := stream.Send(e); err != nil {
			s.cancel()
			return err
		}
	}
}

// open creates the session of an OpenSession and queues its opening event.
func (svc service) open(ctx context.Context, req *pb.OpenSessionRequest) (*session, error) {
	release, err := svc.h.permits.request()
	if err != nil {
		return nil, err
	}
	defer release()
	if err := svc.h.full(); err != nil {
		return nil, err
	}
	if info, ok := connect.CallInfoForServerContext(ctx); ok {
		info.ResponseHeader().Set(grpcconv.RouteHeader, svc.h.route)
	}
	options, err := openOptions(req)
	if err != nil {
		return nil, err
	}
	s := newSession(svc.h, uuid.New())
	s.acks = !svc.h.baseline && acceptAcknowledgements(ctx)
	s.options = options
	if options.maxDelegates > 0 {
		s.delegates = newPermits(options.maxDelegates)
	}
	runtime, err := svc.h.provider.CreateSession(ctx, newDelegate(s), grpcconv.SessionLimitsFromProto(req.GetCellExecutionLimits()))
	if err != nil {
		return nil, connect.NewError(connect.CodeFailedPrecondition, err.Error())
	}
	s.runtime = runtime
	opened := &pb.SessionOpened{SessionId: s.idText}
	if options.serverTruncation {
		opened.OutputTruncation = pb.OutputTruncation_OUTPUT_TRUNCATION_SERVER
	}
	s.sendEvent(&pb.SessionEvent{Event: &pb.SessionEvent_Opened{Opened: opened}})
	if err := svc.h.add(s); err != nil {
		s.cancel()
		s.shutdownOnce.Do(func() { go s.runShutdown() })
		return nil, err
	}
	return s, nil
}

// CloseSession shuts a session down and returns when its runtime has.
func (svc service) CloseSession(ctx context.Context, req *pb.CloseSessionRequest) (*pb.CloseSessionResponse, error) {
	release, err := svc.h.permits.controlRequest()
	if err != nil {
		return nil, err
	}
	defer release()
	s, err := svc.h.take(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	if err := s.shutdown(ctx); err != nil {
		return nil, err
	}
	return &pb.CloseSessionResponse{}, nil
}

// SubscribeToToolCalls streams the session's tool calls that match the filters. Response headers
// are sent as soon as the subscription is registered, so a client that waits for them knows its
// cells' calls will find it.
func (svc service) SubscribeToToolCalls(ctx context.Context, req *pb.SubscribeToToolCallsRequest, stream code_modev1connect.CodeModeHostSubscribeToToolCallsServerStream) error {
	s, sub, err := svc.subscribe(ctx, req)
	if err != nil {
		return err
	}
	defer s.unsubscribe(sub)
	if err := stream.SendHeaders(); err != nil {
		return err
	}
	for {
		select {
		case call := <-sub.queue:
			s.took()
			if err := stream.Send(call); err != nil {
				return err
			}
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-s.ctx.Done():
			return nil
		}
	}
}

// subscribe sets a subscription up under an in-flight request permit.
func (svc service) subscribe(ctx context.Context, req *pb.SubscribeToToolCallsRequest) (*session, *subscription, error) {
	release, err := svc.h.permits.request()
	if err != nil {
		return nil, nil, err
	}
	defer release()
	s, err := svc.h.lookup(ctx, req.GetSessionId())
	if err != nil {
		return nil, nil, err
	}
	if err := grpcconv.CheckToolFilters(req.GetToolNames()); err != nil {
		return nil, nil, invalidArgument(err)
	}
	sub, err := s.subscribe(req.GetToolNames())
	return s, sub, err
}

// CompleteToolCall delivers one tool result.
func (svc service) CompleteToolCall(ctx context.Context, req *pb.CompleteToolCallRequest) (*pb.CompleteToolCallResponse, error) {
	s, release, err := svc.controlSession(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	defer release()
	id, err := grpcconv.CheckUUID(req.GetInvocationId(), "tool invocation ID")
	if err != nil {
		return nil, invalidArgument(err)
	}
	result, err := grpcconv.ToolResultFromProto(req)
	if err != nil {
		return nil, invalidArgument(err)
	}
	if err := s.completeInvocation(id, result); err != nil {
		return nil, err
	}
	return &pb.CompleteToolCallResponse{}, nil
}

// AcknowledgeNotification releases a notification the session waits for (grpcconv.AcknowledgementsHeader);
// otherwise it is accepted: an acknowledgement may come after its notification was cancelled, or
// on a session that does not wait for them, and a client must not fail for that race.
func (svc service) AcknowledgeNotification(ctx context.Context, req *pb.AcknowledgeNotificationRequest) (*pb.AcknowledgeNotificationResponse, error) {
	s, release, err := svc.controlSession(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	defer release()
	id, err := grpcconv.CheckUUID(req.GetNotificationId(), "notification ID")
	if err != nil {
		return nil, invalidArgument(err)
	}
	s.acknowledge(id)
	return &pb.AcknowledgeNotificationResponse{}, nil
}

// Wait observes a cell under a client-chosen wait ID that CancelWait can name.
func (svc service) Wait(ctx context.Context, req *pb.WaitRequest) (*pb.WaitResponse, error) {
	received := time.Now()
	s, err := svc.h.lookup(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	endObservation, err := s.beginObservation()
	if err != nil {
		return nil, err
	}
	defer endObservation()
	if err := firstInvalid(grpcconv.CheckIdentifier(req.GetCellId(), "cell ID"), grpcconv.CheckIdentifier(req.GetWaitId(), "wait ID")); err != nil {
		return nil, err
	}
	release, err := svc.h.permits.request()
	if err != nil {
		return nil, err
	}
	defer release()
	w, err := s.registerWait(ctx, req.GetWaitId())
	if err != nil {
		return nil, err
	}
	defer s.retireWait(req.GetWaitId(), w)
	outcome, err := s.runtime.Wait(w.ctx, codemode.WaitRequest{CellID: codemode.CellID(req.GetCellId()), YieldTimeMs: req.GetYieldTimeMs(), YieldNow: w.yield.ch})
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, context.Cause(ctx)
		case s.closed():
			return nil, errSessionClosed()
		case w.ctx.Err() != nil:
			return nil, errWaitCancelled()
		}
		return nil, connect.NewError(connect.CodeFailedPrecondition, err.Error())
	}
	outcome.Response = s.truncated(outcome.Response, req.MaxOutputTokens)
	reportBuffered(ctx, outcome)
	resp, err := waitResponse(outcome, received)
	return svc.h.holdUnaryResponse(ctx, resp), err
}

// CancelWait cancels the Wait registered under the ID, or pre-cancels one not yet arrived, and
// returns once that Wait has retired.
func (svc service) CancelWait(ctx context.Context, req *pb.CancelWaitRequest) (*pb.CancelWaitResponse, error) {
	s, release, err := svc.controlSession(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	defer release()
	if err := grpcconv.CheckIdentifier(req.GetWaitId(), "wait ID"); err != nil {
		return nil, invalidArgument(err)
	}
	if err := s.cancelWait(ctx, req.GetWaitId()); err != nil {
		return nil, err
	}
	return &pb.CancelWaitResponse{}, nil
}

// Terminate stops a cell; a missing cell is a successful missing_cell response.
func (svc service) Terminate(ctx context.Context, req *pb.TerminateRequest) (*pb.WaitResponse, error) {
	received := time.Now()
	s, err := svc.h.lookup(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	endObservation, err := s.beginObservation()
	if err != nil {
		return nil, err
	}
	defer endObservation()
	if err := grpcconv.CheckIdentifier(req.GetCellId(), "cell ID"); err != nil {
		return nil, invalidArgument(err)
	}
	release, err := svc.h.permits.request()
	if err != nil {
		return nil, err
	}
	defer release()
	bound, cancel := s.bind(ctx)
	defer cancel()
	outcome, err := s.runtime.Terminate(bound, codemode.CellID(req.GetCellId()))
	if err != nil {
		if ctx.Err() == nil && s.closed() {
			return nil, errSessionClosed()
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, connect.NewError(connect.CodeFailedPrecondition, err.Error())
	}
	outcome.Response = s.truncated(outcome.Response, req.MaxOutputTokens)
	resp, err := waitResponse(outcome, received)
	return svc.h.holdUnaryResponse(ctx, resp), err
}

// waitResponse converts a Wait or Terminate outcome; the runtime never produces what cannot be
// converted, so a failure is INTERNAL.
func waitResponse(o codemode.WaitOutcome, received time.Time) (*pb.WaitResponse, error) {
	resp, err := grpcconv.WaitOutcomeToProto(o, time.Since(received))
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, err.Error())
	}
	return resp, nil
}

// controlSession admits a control request on a session (CompleteToolCall, AcknowledgeNotification,
// CancelWait): a control permit first, then the session, so an overloaded host refuses before it
// looks anything up, and a request that is both over the limit and for an unknown session gets
// RESOURCE_EXHAUSTED from either host. The caller releases the permit.
func (svc service) controlSession(ctx context.Context, id string) (*session, func(), error) {
	release, err := svc.h.permits.controlRequest()
	if err != nil {
		return nil, nil, err
	}
	s, err := svc.h.lookup(ctx, id)
	if err != nil {
		release()
		return nil, nil, err
	}
	return s, release, nil
}

// firstInvalid returns the first failed validation as INVALID_ARGUMENT.
func firstInvalid(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return invalidArgument(err)
		}
	}
	return nil
}
