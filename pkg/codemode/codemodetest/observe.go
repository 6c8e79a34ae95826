package codemodetest

import (
	"context"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// pendingWait is a Wait running in the background.
type pendingWait struct {
	done    chan struct{}
	cancel  context.CancelFunc
	outcome codemode.WaitOutcome
	err     error
}

// startObservedWait starts a Wait on id with a yield time that never elapses and returns once the
// session has made it the cell's observer.
//
// The session's state is not visible through the contract, so registration is detected the only
// way a client can: a probing Wait with yield time 0 fails with "already has an active observer".
// While a probe holds the observer slot the background Wait is rejected the same way and retries.
// Precondition: the cell has no unobserved output, since a probe that wins the slot consumes it.
func (f *fixture) startObservedWait(id codemode.CellID) *pendingWait {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	p := &pendingWait{done: make(chan struct{}), cancel: cancel}
	observerErr := codemode.NewCellError(codemode.CellHasObserver, id).Error()
	go func() {
		defer close(p.done)
		for {
			o, err := f.sess.Wait(ctx, codemode.WaitRequest{CellID: id, YieldTimeMs: foreverMs})
			if err != nil && err.Error() == observerErr && ctx.Err() == nil {
				time.Sleep(2 * time.Millisecond)
				continue
			}
			p.outcome, p.err = o, err
			return
		}
	}()
	deadline := time.Now().Add(opTimeout)
	for {
		o, err := f.tryWait(context.Background(), id, 0)
		if err != nil && err.Error() == observerErr {
			return p
		}
		if err != nil {
			f.t.Fatalf("probing Wait(%q, 0): %v", id, err)
		}
		if o.Missing || o.Response.Kind != codemode.Yielded || len(o.Response.ContentItems) != 0 {
			f.t.Fatalf("probing Wait(%q, 0) of a blocked cell without new output: got %v %s, want an empty Yielded",
				id, o.Missing, describe(o.Response))
		}
		select {
		case <-p.done:
			f.t.Fatalf("background Wait(%q) ended before the cell did anything: %s, %v", id, describe(p.outcome.Response), p.err)
		default:
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("Wait(%q) never became the cell's observer", id)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// result waits for the background Wait to end and returns its outcome.
func (p *pendingWait) result(f *fixture) (codemode.WaitOutcome, error) {
	f.t.Helper()
	f.awaitClosed(p.done, "the background Wait's return")
	p.cancel()
	return p.outcome, p.err
}

// live waits for the background Wait and fails the test unless it returned a LiveCell outcome.
func (p *pendingWait) live(f *fixture) codemode.RuntimeResponse {
	f.t.Helper()
	o, err := p.result(f)
	if err != nil {
		f.t.Fatalf("background Wait: %v", err)
	}
	return checkLive(f.t, "background Wait", o)
}
