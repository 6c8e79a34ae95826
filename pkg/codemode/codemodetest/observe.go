package codemodetest

import (
	"context"
	"runtime"
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

// startWait starts a Wait on id in the background. It returns at once; with FakeTime the Wait has
// reached the session (and its yield deadline is set) before the clock can move.
func (f *fixture) startWait(id codemode.CellID, yieldMs uint64) *pendingWait {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	p := &pendingWait{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(p.done)
		p.outcome, p.err = f.sess.Wait(ctx, codemode.WaitRequest{CellID: id, YieldTimeMs: yieldMs})
	}()
	return p
}

// startObservedWait starts a Wait on id with a yield time that never elapses and returns once the
// session has made it the cell's observer.
//
// With FakeTime that is when the bubble settles. On the real clock the session's state is not
// visible through the contract, so registration is detected the only way a client can: a probing
// Wait with yield time 0 fails with "already has an active observer". While a probe holds the
// observer slot the background Wait is rejected the same way and retries. Precondition: the cell
// has no unobserved output, since a probe that wins the slot consumes it.
func (f *fixture) startObservedWait(id codemode.CellID) *pendingWait {
	f.t.Helper()
	if f.h.fakeTime {
		p := f.startWait(id, foreverMs)
		if f.h.isDone(p.done) {
			f.t.Fatalf("background Wait(%q) ended before the cell did anything: %s, %v", id, describe(p.outcome.Response), p.err)
		}
		return p
	}
	return f.probeObservedWait(id)
}

// probeObservedWait is startObservedWait on the real clock. Both loops yield the processor
// between attempts; they wait for the other party, not for time to pass.
func (f *fixture) probeObservedWait(id codemode.CellID) *pendingWait {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	p := &pendingWait{done: make(chan struct{}), cancel: cancel}
	observerErr := codemode.NewCellError(codemode.CellHasObserver, id).Error()
	go func() {
		defer close(p.done)
		for {
			o, err := f.sess.Wait(ctx, codemode.WaitRequest{CellID: id, YieldTimeMs: foreverMs})
			if err != nil && err.Error() == observerErr && ctx.Err() == nil {
				runtime.Gosched()
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
		runtime.Gosched()
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

// awaitCommitted waits until the stored value key of a cell is visible to new cells as true. A
// cell that stores it as its last act has then completed: stored values are committed at
// completion, together with the cell's Result. This is Codex's own probe (its
// observed_natural_completion_wins_over_termination); with FakeTime one probe after the bubble
// settled must see it.
func (f *fixture) awaitCommitted(key string) {
	f.t.Helper()
	f.h.settle()
	deadline := time.Now().Add(opTimeout)
	for {
		r := f.run(`text(String(load(` + jsString(key) + `)));`)
		got := textsOf(f.t, r)
		if len(got) == 1 && got[0] == "true" {
			return
		}
		if f.h.fakeTime || time.Now().After(deadline) {
			f.t.Fatalf("stored value %q was not committed: the probe cell saw %s", key, describe(r))
		}
		runtime.Gosched()
	}
}
