package grpchost

import (
	"context"
	"errors"
	"math"
	"strconv"
	"sync"

	"connectrpc.com/connect/v2"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
	"github.com/codemodehq/codemode/pkg/modeltool"
)

// What Codex 0.169 added to the gRPC host (docs/protocol/grpc.md#additions-of-codex-0169): host-side truncation and a
// per-session bound on pending callbacks (OpenSession), early yields (YieldObservation), the
// buffered time of a Wait's Result (a response header), and GetProcessMetrics.

// sessionOptions are what an OpenSession of Codex 0.169 asks of its session.
type sessionOptions struct {
	serverTruncation bool
	// maxDelegates bounds the session's pending tool calls and notifications; 0: only the
	// host's bound applies.
	maxDelegates int
}

// openOptions reads and checks OpenSessionRequest's fields 2 and 3 with Codex's texts.
func openOptions(req *pb.OpenSessionRequest) (sessionOptions, error) {
	var o sessionOptions
	switch req.GetOutputTruncation() {
	case pb.OutputTruncation_OUTPUT_TRUNCATION_UNSPECIFIED, pb.OutputTruncation_OUTPUT_TRUNCATION_CLIENT:
	case pb.OutputTruncation_OUTPUT_TRUNCATION_SERVER:
		o.serverTruncation = true
	default:
		return o, connect.NewError(connect.CodeInvalidArgument, "unknown code-mode output truncation mode")
	}
	if req.MaxPendingDelegateCalls != nil {
		n := req.GetMaxPendingDelegateCalls()
		if n == 0 {
			return o, connect.NewError(connect.CodeInvalidArgument, "callback capacity must be positive")
		}
		o.maxDelegates = int(min(n, math.MaxInt32))
	}
	return o, nil
}

// errTooManySessionDelegates fails a callback past the session's max_pending_delegate_calls.
var errTooManySessionDelegates = errors.New("code-mode session has too many pending delegate calls")

// acquireDelegate takes a pending-callback permit of the host and, when the session has its own
// bound, of the session. The host's bound is checked first, so a call over both bounds is refused
// with the host's text, the one every client knows (docs/protocol/v1.md#limits), not the newer
// per-session one.
func (s *session) acquireDelegate() (func(), error) {
	release := s.host.permits.delegates.acquire()
	if release == nil {
		return nil, errTooManyDelegateCalls
	}
	if s.delegates.sem == nil { // the session has no bound of its own
		return release, nil
	}
	own := s.delegates.acquire()
	if own == nil {
		release()
		return nil, errTooManySessionDelegates
	}
	return func() { own(); release() }, nil
}

// truncated is r cut to the request's budget in the form the model reads
// (modeltool.HostTruncatedOutput) when the session truncates on the host, since the client passes
// it on as it is (docs/protocol/grpc.md#additions-of-codex-0169); otherwise r whole.
func (s *session) truncated(r codemode.RuntimeResponse, budget *uint64) codemode.RuntimeResponse {
	if !s.options.serverTruncation {
		return r
	}
	var tokens *int
	if budget != nil {
		n := int(min(*budget, math.MaxInt))
		tokens = &n
	}
	r.ContentItems = modeltool.HostTruncatedOutput(r, tokens)
	return r
}

// yieldSwitch is the early-yield signal of one observation: closed at most once.
type yieldSwitch struct {
	ch   chan struct{}
	once sync.Once
}

func newYieldSwitch() *yieldSwitch { return &yieldSwitch{ch: make(chan struct{})} }

func (y *yieldSwitch) fire() { y.once.Do(func() { close(y.ch) }) }

// watchExecute registers the early-yield signal of an Execute until its outcome is taken.
func (s *session) watchExecute(executionID string) (*yieldSwitch, func()) {
	y := newYieldSwitch()
	s.mu.Lock()
	s.state.executeYields[executionID] = y
	s.mu.Unlock()
	return y, func() {
		s.mu.Lock()
		if s.state.executeYields[executionID] == y {
			delete(s.state.executeYields, executionID)
		}
		s.mu.Unlock()
	}
}

// yieldObservation ends the observation the request names, if it is in flight.
func (s *session) yieldObservation(req *pb.YieldObservationRequest) {
	s.mu.Lock()
	var y *yieldSwitch
	switch o := req.GetObservation().(type) {
	case *pb.YieldObservationRequest_ExecutionId:
		y = s.state.executeYields[o.ExecutionId]
	case *pb.YieldObservationRequest_WaitId:
		if w := s.state.waits[o.WaitId]; w != nil {
			y = w.yield
		} else if !s.state.seenWaits.Contains(o.WaitId) {
			// The Wait may still be on its way; a finished one's ID is never reused.
			s.state.yieldedWaits.Remember(o.WaitId)
		}
	}
	s.mu.Unlock()
	if y != nil {
		y.fire()
	}
}

// YieldObservation ends an in-flight Execute's wait for its outcome, or an in-flight Wait, as
// if its yield time had passed. Unknown and finished observations are not an error
// (docs/protocol/grpc.md#additions-of-codex-0169): a yield may lose the race with the end of its
// observation, and the client did nothing wrong.
func (svc service) YieldObservation(ctx context.Context, req *pb.YieldObservationRequest) (*pb.YieldObservationResponse, error) {
	s, release, err := svc.controlSession(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	defer release()
	if req.GetObservation() == nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, "missing code-mode observation ID")
	}
	s.yieldObservation(req)
	return &pb.YieldObservationResponse{}, nil
}

// GetProcessMetrics is not supported: it answers UNIMPLEMENTED with the text of Codex's host
// (docs/protocol/grpc.md#service), so a client that probes for it falls back the same way.
func (svc service) GetProcessMetrics(context.Context, *pb.GetProcessMetricsRequest) (*pb.GetProcessMetricsResponse, error) {
	return nil, connect.NewError(connect.CodeUnimplemented, "process metrics are unsupported")
}

// reportBuffered sets grpcconv.BufferedForHeader on a Wait whose outcome is a live cell's Result.
func reportBuffered(ctx context.Context, o codemode.WaitOutcome) {
	if o.Missing || o.Response.Kind != codemode.Result {
		return
	}
	info, ok := connect.CallInfoForServerContext(ctx)
	if !ok {
		return
	}
	var ns int64
	if o.Response.BufferedFor != nil {
		ns = max(int64(*o.Response.BufferedFor), 0)
	}
	info.ResponseHeader().Set(grpcconv.BufferedForHeader, strconv.FormatInt(ns, 10))
}
