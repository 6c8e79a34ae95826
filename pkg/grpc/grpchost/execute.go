package grpchost

import (
	"context"
	"time"

	"connectrpc.com/connect/v2"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1/code_modev1connect"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// Execute admits a cell, sends started at once and then exactly one outcome. Tool calls and
// notifications of the cell may reach the client before started: they carry the execution ID.
// If the client drops the stream before the outcome, the cell is terminated.
func (svc service) Execute(ctx context.Context, req *pb.ExecuteRequest, stream code_modev1connect.CodeModeHostExecuteServerStream) error {
	received := time.Now()
	s, err := svc.h.lookup(ctx, req.GetSessionId())
	if err != nil {
		return err
	}
	endObservation, err := s.beginObservation()
	if err != nil {
		return err
	}
	defer endObservation()
	if err := grpcconv.CheckIdentifier(req.GetExecutionId(), "execution ID"); err != nil {
		return invalidArgument(err)
	}
	releaseRequest, err := svc.h.permits.request()
	if err != nil {
		return err
	}
	defer releaseRequest()
	domain, err := grpcconv.ExecuteRequestFromProto(req)
	if err != nil {
		return invalidArgument(err)
	}
	yield, unwatch := s.watchExecute(req.GetExecutionId())
	defer unwatch()
	domain.YieldNow = yield.ch
	started, err := svc.start(ctx, s, req.GetExecutionId(), domain)
	if err != nil {
		return err
	}
	if err := stream.Send(&pb.ExecuteEvent{Event: &pb.ExecuteEvent_Started{Started: &pb.ExecutionStarted{
		ExecutionId: req.GetExecutionId(), CellId: string(started.CellID),
	}}}); err != nil {
		started.Abandon()
		return err
	}
	outcome, err := initialOutcome(ctx, s, started, received, req.MaxOutputTokens)
	if err != nil {
		return err
	}
	release := svc.h.holdWhileSending(outcome)
	err = stream.Send(&pb.ExecuteEvent{Event: &pb.ExecuteEvent_Outcome{Outcome: outcome}})
	release()
	if err != nil {
		// The response was taken from the cell but never reached the client: a live cell
		// would run on with no one to observe it.
		if _, live := outcome.GetOutcome().(*pb.ExecutionOutcome_Yielded); live {
			s.terminateInBackground(started.CellID)
		}
		return err
	}
	return nil
}

// start reserves the execution, takes an active-cell permit (of the session's share and of the
// host's), admits the cell on the runtime and records it. On failure nothing is left behind: the
// permit is returned, the reservation dropped and an admitted cell abandoned (the runtime
// terminates it).
func (svc service) start(ctx context.Context, s *session, executionID string, req codemode.ExecuteRequest) (*codemode.StartedCell, error) {
	releaseCell, err := svc.h.permits.sessionCell(s.cells)
	if err != nil {
		return nil, err
	}
	if err := s.reserveExecution(executionID); err != nil {
		releaseCell()
		return nil, err
	}
	bound, cancel := s.bind(ctx)
	defer cancel()
	started, err := s.runtime.Execute(bound, req)
	if err != nil {
		s.releaseReservation(executionID)
		releaseCell()
		if s.closed() {
			return nil, errSessionClosed()
		}
		return nil, connect.NewError(connect.CodeFailedPrecondition, err.Error())
	}
	if err := s.admitExecution(executionID, started.CellID, traceparent(ctx), releaseCell); err != nil {
		s.abandonAdmission(executionID, started.CellID)
		releaseCell()
		started.Abandon()
		return nil, err
	}
	return started, nil
}

// initialOutcome waits for the cell's first response and converts it. If the client goes away or
// the session closes first, the started cell is abandoned, which terminates it. An execution ends
// with its session: a response that comes from the session's own closing (a cell its shutdown
// stopped, a tool call it failed) is not sent.
func initialOutcome(ctx context.Context, s *session, started *codemode.StartedCell, received time.Time, budget *uint64) (*pb.ExecutionOutcome, error) {
	bound, cancel := s.bind(ctx)
	defer cancel()
	resp, err := started.InitialResponse(bound)
	if err == nil && s.closed() {
		return nil, errSessionClosed()
	}
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, context.Cause(ctx)
		case s.closed():
			return nil, errSessionClosed()
		}
		return nil, connect.NewError(connect.CodeInternal, err.Error())
	}
	outcome, err := grpcconv.RuntimeResponseToProto(s.truncated(resp, budget), time.Since(received))
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, err.Error())
	}
	return outcome, nil
}
