package grpcclient

import (
	"context"
	"errors"
	"io"
	"time"

	"connectrpc.com/connect/v2"
	"github.com/google/uuid"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1/code_modev1connect"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// execution is one Execute stream after its started event.
type execution struct {
	b      *binding
	id     string
	cell   codemode.CellID // wire ID
	stream code_modev1connect.CodeModeHostExecuteClientStream
	// cancel ends the stream; the host terminates a cell whose outcome it could not send.
	cancel context.CancelFunc
	yield  uint64
	// yieldNow is the caller's ExecuteRequest.YieldNow, watched until the outcome arrives.
	yieldNow <-chan struct{}
}

// execute starts a cell: it registers the execution, opens the Execute stream and waits for the
// started event, then hands the caller a StartedCell whose initial response a goroutine reads.
// If ctx ends before the cell is admitted, the cell, once admitted, is terminated and reported
// closed, and ctx's error is returned.
func (b *binding) execute(ctx context.Context, req codemode.ExecuteRequest) (*codemode.StartedCell, error) {
	if err := b.life().err(); err != nil {
		return nil, err
	}
	id := uuid.NewString()
	msg, err := grpcconv.ExecuteRequestToProto(b.id, id, req)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	err = b.st.beginExecution(msg)
	b.mu.Unlock()
	if err != nil {
		return nil, err
	}
	result := make(chan openedExecution, 1)
	traceparent := outgoingTraceparent(ctx)
	if !b.streams.spawn(func() {
		e, err := b.openExecution(traceparent, msg)
		if e != nil {
			e.yieldNow = req.YieldNow
		}
		result <- openedExecution{e, err}
	}) {
		b.retire(id, "")
		return nil, b.life().interrupted()
	}
	select {
	case r := <-result:
		if r.err != nil {
			return nil, r.err
		}
		return r.e.hand(), nil
	case <-ctx.Done():
		go abandonWhenStarted(result)
		return nil, context.Cause(ctx)
	}
}

// openExecution sends the Execute and reads its started event, which must name this execution
// and a cell no other execution owns (else the binding fails).
func (b *binding) openExecution(traceparent string, msg *pb.ExecuteRequest) (*execution, error) {
	ctx, cancel := context.WithCancel(b.ctx)
	if traceparent != "" {
		var info *connect.CallInfo
		ctx, info = connect.NewClientContext(ctx)
		info.RequestHeader().Set("traceparent", traceparent)
	}
	e := &execution{b: b, id: msg.GetExecutionId(), cancel: cancel, yield: codemode.DefaultExecYieldTimeMs}
	if msg.YieldTimeMs != nil {
		e.yield = *msg.YieldTimeMs
	}
	fail := func(err error) (*execution, error) {
		cancel()
		b.retire(e.id, "")
		return nil, err
	}
	err := b.request(ctx, "execution", 0, func(context.Context) error {
		var err error
		e.stream, err = b.client.Execute(ctx, msg)
		return err
	})
	if err != nil {
		return fail(err)
	}
	var first *pb.ExecuteEvent
	timed, err := enforceStream(cancel, "execution starting event", 0, func() error {
		var err error
		first, err = e.stream.Receive()
		return err
	})
	switch {
	case timed:
		b.stop(leaseFailed, err)
		return fail(err)
	case err != nil && b.life().routeLost:
		return fail(ErrSessionReset)
	case errors.Is(err, io.EOF):
		return fail(errors.New("gRPC code-mode execution ended before its starting event"))
	case err != nil:
		return fail(err)
	}
	started := first.GetStarted()
	if started == nil {
		return fail(errors.New("gRPC code-mode execution omitted its starting event"))
	}
	b.mu.Lock()
	err = b.st.admitStarted(e.id, started)
	b.mu.Unlock()
	if err != nil {
		b.stop(leaseFailed, err)
		return fail(err)
	}
	e.cell = codemode.CellID(started.GetCellId())
	return e, nil
}

// hand gives the caller the StartedCell: the execution is claimed (its closure may now be
// reported) and a goroutine reads the outcome.
func (e *execution) hand() *codemode.StartedCell {
	b := e.b
	b.mu.Lock()
	closed, err := b.st.markReady(e.id)
	b.mu.Unlock()
	results := make(chan codemode.InitialResult, 1)
	if err != nil {
		e.cancel()
		results <- codemode.InitialResult{Err: err}
	} else {
		reportClosed(b.delegate, closed)
		b.observing.begin()
		if !b.streams.spawn(func() { defer b.observing.end(); e.readOutcome(results) }) {
			b.observing.end()
			e.cancel()
			results <- codemode.InitialResult{Err: b.life().interrupted()}
		}
	}
	return codemode.NewStartedCell(PublicCellID(b.epoch, e.cell), results, e.abandon)
}

// readOutcome reads the one outcome, checks it names the cell and settles the cell's
// notifications before handing it over: a Result waits until every notification the cell sent was
// delivered, a Terminated cancels them.
func (e *execution) readOutcome(results chan<- codemode.InitialResult) {
	defer e.cancel()
	read := make(chan struct{})
	e.b.watchYield(e.yieldNow, read, &pb.YieldObservationRequest{Observation: &pb.YieldObservationRequest_ExecutionId{ExecutionId: e.id}})
	resp, err := e.outcome()
	close(read)
	if err == nil {
		if err = checkCell(e.cell, resp); err != nil {
			e.b.stop(leaseFailed, err)
		}
	}
	if err != nil {
		results <- codemode.InitialResult{Err: err}
		return
	}
	if !e.b.settle(e.b.ctx, resp) {
		results <- codemode.InitialResult{Err: errBindingStopped}
		return
	}
	results <- codemode.InitialResult{Response: publicResponse(e.b.epoch, resp)}
}

// outcome receives the outcome event within the yield time, the grace and the transport's
// allowance.
func (e *execution) outcome() (codemode.RuntimeResponse, error) {
	var ev *pb.ExecuteEvent
	timed, err := enforceStream(e.cancel, "execution outcome", runtimeAllowance(e.yield), func() error {
		var err error
		ev, err = e.stream.Receive()
		return err
	})
	switch {
	case timed:
		e.b.stop(leaseFailed, err)
		return codemode.RuntimeResponse{}, err
	case errors.Is(err, io.EOF):
		return codemode.RuntimeResponse{}, errors.New("gRPC code-mode execution omitted its initial outcome")
	case err != nil:
		if e.b.stopped() {
			return codemode.RuntimeResponse{}, e.b.life().interrupted()
		}
		return codemode.RuntimeResponse{}, err
	}
	outcome := ev.GetOutcome()
	if outcome == nil {
		return codemode.RuntimeResponse{}, errors.New("gRPC code-mode execution returned an unexpected event")
	}
	r, err := grpcconv.RuntimeResponseFromProto(outcome)
	if err == nil && r.Kind == codemode.Result {
		// The Execute watched its cell to the end: the Result waited for nobody.
		var live time.Duration
		r.BufferedFor = &live
	}
	return r, err
}

// abandon is the StartedCell's abandon hook: the caller gave up on the initial response. The
// cell is terminated (before this returns, so the caller's next Wait finds it gone), the stream
// dropped, and the closure reported.
func (e *execution) abandon() {
	e.b.retire(e.id, e.cell)
	e.cancel()
}

// openedExecution is the result of openExecution.
type openedExecution struct {
	e   *execution
	err error
}

// abandonWhenStarted finishes an Execute whose caller gave up before the started event: a cell
// the host admitted all the same is abandoned.
func abandonWhenStarted(result <-chan openedExecution) {
	if r := <-result; r.err == nil {
		r.e.abandon()
	}
}

// retire forgets an execution and reports its closure. The cell of an abandoned execution
// (cell "" for one that never started) is terminated on the host first.
func (b *binding) retire(id string, cell codemode.CellID) {
	if !b.stopped() && cell != "" {
		// An error means the cell closed on its own meanwhile, or the binding stopped; either
		// way there is nothing left to stop.
		_, _ = b.terminate(context.Background(), cell)
	}
	b.mu.Lock()
	closed := b.st.removeExecution(id)
	b.mu.Unlock()
	reportClosed(b.delegate, closed)
}
