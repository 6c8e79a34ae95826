package grpcclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"connectrpc.com/connect/v2"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1/code_modev1connect"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// binding is one lease on the host: a session of the host, the streams that carry its callbacks,
// and the I/O that serves them. Its bookkeeping lives in small types: the lease's and each
// execution's lifecycle and the callback rules (state, under mu), the route (routing), the
// dropped waits (droppedWaits), the outcomes being read (observing), its goroutines (tasks). When
// the lease is lost the binding stops for good; the reconnecting session opens the next epoch.
type binding struct {
	// client is the binding's own, its requests passing routing's interceptor.
	client code_modev1connect.CodeModeHostClient
	id     string
	epoch  uint64
	// delegate shows public cell IDs (epochDelegate).
	delegate codemode.Delegate

	// ctx is the lease's: cancelled when the binding stops (failed or closed), which ends its
	// streams and cancels every callback.
	ctx    context.Context
	cancel context.CancelFunc

	// truncation is who truncates outcomes (observation.go).
	truncation truncation

	// acked is set when the host waits for notification acknowledgements
	// (grpcconv.AcknowledgementsHeader): its Results come after their notifications were handled.
	acked bool

	// routing is the host's route identity from the OpenSession response, which every later
	// request carries, and the observer of its loss (route.go).
	routing *routing

	// closing runs the shutdown once.
	closing closer

	// streams are the goroutines that read the lease, the subscription and executions' outcomes,
	// and that retire dropped waits; shutdown waits for them.
	streams tasks
	// observing counts the outcomes being read and the Waits in progress: a lease the host ended
	// waits for them (observing.go).
	observing observing
	// dropped holds back a cell's next wait until its dropped ones retired (droppedwaits.go).
	dropped droppedWaits

	mu sync.Mutex
	st *state
}

// openBinding opens the lease of epoch: OpenSession, its opening event, and the one catch-all
// subscription, whose response headers say the host has registered it. Each step has the startup
// deadline.
func openBinding(ctx context.Context, serverTruncation bool, t *transport, d codemode.Delegate, limits codemode.SessionCellExecutionLimits, epoch uint64) (*binding, error) {
	b := &binding{epoch: epoch, delegate: d, truncation: truncation{asked: serverTruncation}}
	b.routing = newRouting(func() { b.stop(leaseRouteLost, nil) })
	b.client = t.client(b.routing.interceptor)
	leaseCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	b.ctx, b.cancel, b.st = leaseCtx, cancel, newState(leaseCtx)
	lease, err := b.openLease(ctx, limits)
	if err != nil {
		cancel()
		return nil, err
	}
	b.streams.spawn(func() { b.readLease(lease) })
	if err := b.subscribe(ctx); err != nil {
		_ = b.shutdown(ctx)
		return nil, err
	}
	if err := b.life().err(); err != nil {
		_ = b.shutdown(ctx)
		return nil, err
	}
	return b, nil
}

// openLease opens the session and reads its opening event. An attempt the host (or a proxy)
// refuses with UNAVAILABLE or RESOURCE_EXHAUSTED before the opening event is tried again, up to
// grpcconv.MaxOpenAttempts in all; nothing else is retried (docs/protocol/grpc.md#routing).
func (b *binding) openLease(ctx context.Context, limits codemode.SessionCellExecutionLimits) (code_modev1connect.CodeModeHostOpenSessionClientStream, error) {
	stop := context.AfterFunc(ctx, b.cancel)
	defer stop()
	for attempt := 1; ; attempt++ {
		lease, err := b.openLeaseOnce(limits)
		if err == nil || attempt >= grpcconv.MaxOpenAttempts || !retryableAdmission(err) {
			return lease, err
		}
		backoff := time.NewTimer(openBackoff(attempt))
		select {
		case <-backoff.C:
		case <-b.ctx.Done():
			backoff.Stop()
			if ctx.Err() != nil {
				return lease, context.Cause(ctx)
			}
			return lease, err
		}
	}
}

// openBackoff is the pause before the attempt after attempt: 10 ms, doubling.
func openBackoff(attempt int) time.Duration {
	return 10 * time.Millisecond << (attempt - 1)
}

// retryableAdmission reports whether an OpenSession failure is an admission refusal another
// attempt may overcome: the host is full or shutting down (RESOURCE_EXHAUSTED, UNAVAILABLE), or
// a proxy found no host (UNAVAILABLE).
func retryableAdmission(err error) bool {
	var re *RequestError
	if !errors.As(err, &re) {
		return false
	}
	switch connect.CodeOf(err) {
	case connect.CodeUnavailable, connect.CodeResourceExhausted:
		return true
	}
	return false
}

// openLeaseOnce is one OpenSession attempt: the request and its opening event. It records the
// host's route (grpcconv.RouteHeader), which every later request of the binding carries.
func (b *binding) openLeaseOnce(limits codemode.SessionCellExecutionLimits) (code_modev1connect.CodeModeHostOpenSessionClientStream, error) {
	var lease code_modev1connect.CodeModeHostOpenSessionClientStream
	leaseCtx, info := connect.NewClientContext(b.ctx)
	info.RequestHeader().Set(grpcconv.AcknowledgementsHeader, "true")
	_, err := enforce(b.ctx, "session opening", 0, func(context.Context) error {
		var err error
		lease, err = b.client.OpenSession(leaseCtx, openRequest(limits, b.truncation))
		return err
	})
	if err != nil {
		return lease, err
	}
	var first *pb.SessionEvent
	opened := false
	defer func() {
		if !opened {
			lease.Close()
		}
	}()
	_, err = enforceStream(b.cancel, "session lease opening", 0, func() error {
		var err error
		first, err = lease.Receive()
		return err
	})
	switch {
	case errors.Is(err, io.EOF):
		return lease, errors.New("gRPC code-mode session lease ended before opening")
	case err != nil:
		return lease, err
	}
	event := first.GetOpened()
	if event == nil {
		return lease, errors.New("gRPC code-mode session lease omitted its opening event")
	}
	if err := grpcconv.CheckHostIdentifier(event.GetSessionId(), "session ID"); err != nil {
		return lease, err
	}
	opened = true
	b.id = event.GetSessionId()
	b.acked = info.ResponseHeader().Get(grpcconv.AcknowledgementsHeader) == "true"
	b.truncation.answered(event)
	b.routing.set(info.ResponseHeader().Get(grpcconv.RouteHeader))
	return lease, nil
}

// subscribe opens the catch-all tool subscription and waits until the host has registered it.
// Its response headers are checked for a lost route as they arrive, before any message: the
// subscription's first Receive comes later, on its own goroutine.
func (b *binding) subscribe(ctx context.Context) error {
	streamCtx, headers := withHeaderSignal(b.ctx)
	sub, err := b.client.SubscribeToToolCalls(streamCtx, &pb.SubscribeToToolCallsRequest{SessionId: b.id})
	if err != nil {
		return failure("tool subscription", err)
	}
	select {
	case <-headers.done:
		b.routing.observe(headers.header)
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-b.ctx.Done():
		return b.life().err()
	}
	if !b.streams.spawn(func() { b.readSubscription(sub) }) {
		sub.Close()
		return b.life().interrupted()
	}
	return nil
}

// life is the lease's lifecycle as it stands (lifecycle.go); its err is what a new operation
// fails with.
func (b *binding) life() lifecycle {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.st.life
}

// stopped reports whether the binding can serve no more requests.
func (b *binding) stopped() bool { return b.ctx.Err() != nil }

// stop moves the lease by ev, which stops it: leaseFailed (with its reason), leaseRouteLost or
// leaseClosed. From the first one on, the session's requests fail with its error, every live cell
// is reported closed, and the lease is dropped (so the host closes its session too).
func (b *binding) stop(ev leaseEvent, failure error) {
	b.mu.Lock()
	cells := b.st.apply(ev, failure)
	b.mu.Unlock()
	b.cancel()
	reportClosed(b.delegate, cells...)
}

// shutdown closes the session on the host (if the lease still stands), closes the binding and
// waits for its streams. New operations fail from its start; concurrent and later calls wait for
// the first; ctx bounds the wait.
func (b *binding) shutdown(ctx context.Context) error {
	b.mu.Lock()
	b.st.apply(leaseShutdown, nil)
	b.mu.Unlock()
	return b.closing.close(ctx, func() (err error) {
		if b.life().stoppedErr() == nil {
			_, err = enforce(b.ctx, "session shutdown", 0, func(ctx context.Context) error {
				_, err := b.client.CloseSession(ctx, &pb.CloseSessionRequest{SessionId: b.id})
				return err
			})
		}
		b.stop(leaseClosed, nil)
		b.streams.closeAndWait()
		return err
	})
}

// readLease handles the lease's events until it ends.
func (b *binding) readLease(lease code_modev1connect.CodeModeHostOpenSessionClientStream) {
	defer lease.Close()
	for {
		e, err := lease.Receive()
		if err != nil {
			b.streamEnded("session lease", err)
			return
		}
		if err := b.handleSessionEvent(e); err != nil {
			b.stop(leaseFailed, err)
			return
		}
	}
}

// readSubscription handles the subscription's tool calls until it ends.
func (b *binding) readSubscription(sub code_modev1connect.CodeModeHostSubscribeToToolCallsClientStream) {
	defer sub.Close()
	for {
		call, err := sub.Receive()
		if err != nil {
			b.streamEnded("tool subscription", err)
			return
		}
		if err := b.handleToolCall(call); err != nil {
			b.stop(leaseFailed, err)
			return
		}
	}
}

// streamEnded fails the binding when one of its streams ends while nobody asked it to.
func (b *binding) streamEnded(name string, err error) {
	if b.life().phase != leaseOpen || b.stopped() {
		return
	}
	if errors.Is(err, io.EOF) {
		// The host ended the stream on purpose (a drain, a close): it answered the Executes and
		// Waits in progress first, and those answers are taken before they are failed.
		b.observing.await(leaseEndGrace)
		b.stop(leaseFailed, fmt.Errorf("gRPC code-mode %s closed unexpectedly", name))
		return
	}
	b.stop(leaseFailed, failure(name, err))
}
