package grpcclient

import (
	"errors"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// The lifecycles' rules, without a host, a stream or a goroutine: the end-to-end behaviour is in
// the conformance suite and grpc_test.go; these pin the tables that decide it.

// Every event in every phase of a lease: where it moves, whether it stopped the lease now, and
// what a new operation fails with afterwards.
func TestLeaseLifecycleMovesAsItsTableSays(t *testing.T) {
	failure := errors.New("host broke the protocol")
	for _, c := range []struct {
		name      string
		from      leasePhase
		event     leaseEvent
		to        leasePhase
		stopped   bool
		err       error
		routeLost bool
	}{
		{"open, shutdown", leaseOpen, leaseShutdown, leaseShuttingDown, false, codemode.ErrShuttingDown, false},
		{"open, failed", leaseOpen, leaseFailed, leaseStopped, true, failure, false},
		{"open, route lost", leaseOpen, leaseRouteLost, leaseStopped, true, ErrSessionReset, true},
		{"open, closed", leaseOpen, leaseClosed, leaseStopped, true, errSessionStateClosed, false},
		{"shutting down, shutdown", leaseShuttingDown, leaseShutdown, leaseShuttingDown, false, codemode.ErrShuttingDown, false},
		{"shutting down, failed", leaseShuttingDown, leaseFailed, leaseStopped, true, failure, false},
		{"shutting down, route lost", leaseShuttingDown, leaseRouteLost, leaseStopped, true, ErrSessionReset, true},
		{"shutting down, closed", leaseShuttingDown, leaseClosed, leaseStopped, true, errSessionStateClosed, false},
		{"stopped, shutdown", leaseStopped, leaseShutdown, leaseStopped, false, errSessionStateClosed, false},
		{"stopped, failed", leaseStopped, leaseFailed, leaseStopped, false, errSessionStateClosed, false},
		// A route lost after the stop is still recorded: a request failing after it is a reset.
		{"stopped, route lost", leaseStopped, leaseRouteLost, leaseStopped, false, errSessionStateClosed, true},
		{"stopped, closed", leaseStopped, leaseClosed, leaseStopped, false, errSessionStateClosed, false},
	} {
		l := lifecycle{phase: c.from}
		var reason error
		if c.event == leaseFailed {
			reason = failure
		}
		if stopped := l.apply(c.event, reason); stopped != c.stopped {
			t.Errorf("%s: stopped %v, want %v", c.name, stopped, c.stopped)
		}
		if l.phase != c.to || !errors.Is(l.err(), c.err) || l.routeLost != c.routeLost {
			t.Errorf("%s: phase %d, err %v, route lost %v; want %d, %v, %v", c.name, l.phase, l.err(), l.routeLost, c.to, c.err, c.routeLost)
		}
	}
}

// The first stop's reason stays: a later failure or a clean close does not replace it, and a
// shutdown being asked is not a stop (the host's events are still admitted).
func TestLeaseKeepsTheFirstStopsReason(t *testing.T) {
	first := errors.New("first")
	var l lifecycle
	l.apply(leaseShutdown, nil)
	if l.stoppedErr() != nil {
		t.Fatalf("a shutdown being asked stopped the lease: %v", l.stoppedErr())
	}
	l.apply(leaseFailed, first)
	l.apply(leaseFailed, errors.New("second"))
	l.apply(leaseClosed, nil)
	if !errors.Is(l.err(), first) || !errors.Is(l.stoppedErr(), first) {
		t.Fatalf("err %v, stoppedErr %v; want %v", l.err(), l.stoppedErr(), first)
	}
}

// Every event in every phase of an execution: the started event and the closure arrive on
// different streams, in either order; the claim needs the start; anything else out of turn is
// the host's (or the client's) error, with the text that names it.
func TestExecutionLifecycleMovesAsItsTableSays(t *testing.T) {
	const (
		twice    = "code-mode execution e started twice"
		notReady = "code-mode execution e was not ready to be claimed"
		closure  = "code-mode host returned an invalid closure for cell c"
	)
	for _, c := range []struct {
		from  execPhase
		event execEvent
		to    execPhase
		err   string
	}{
		{execSent, execStart, execStarted, ""},
		{execSent, execClaim, execSent, notReady},
		{execSent, execClose, execClosedEarly, ""},
		{execStarted, execStart, execStarted, twice},
		{execStarted, execClaim, execClaimed, ""},
		{execStarted, execClose, execStartedClosed, ""},
		{execClaimed, execStart, execClaimed, twice},
		{execClaimed, execClaim, execClaimed, notReady},
		{execClaimed, execClose, execDone, ""},
		{execClosedEarly, execStart, execStartedClosed, ""},
		{execClosedEarly, execClaim, execClosedEarly, notReady},
		{execClosedEarly, execClose, execClosedEarly, closure},
		{execStartedClosed, execStart, execStartedClosed, twice},
		{execStartedClosed, execClaim, execDone, ""},
		{execStartedClosed, execClose, execStartedClosed, closure},
		{execDone, execStart, execDone, twice},
		{execDone, execClaim, execDone, notReady},
		{execDone, execClose, execDone, closure},
	} {
		to, err := c.from.next(c.event, "e", "c")
		got := ""
		if err != nil {
			got = err.Error()
		}
		if to != c.to || got != c.err {
			t.Errorf("phase %d, event %d: %d, %q; want %d, %q", c.from, c.event, to, got, c.to, c.err)
		}
	}
}

// Only the phases after a CellClosed count as closed: callbacks of such a cell are answered
// with the closed-cell failure.
func TestExecutionPhasesClosedAfterTheHostsClosure(t *testing.T) {
	for p, want := range map[execPhase]bool{
		execSent: false, execStarted: false, execClaimed: false,
		execClosedEarly: true, execStartedClosed: true, execDone: true,
	} {
		if p.closed() != want {
			t.Errorf("phase %d closed %v, want %v", p, p.closed(), want)
		}
	}
}

// Every phase has a row in each table: a phase added without its moves fails here.
func TestEveryPhaseHasItsMoves(t *testing.T) {
	for p := leaseOpen; p <= leaseStopped; p++ {
		if _, ok := leaseMoves[p]; !ok {
			t.Errorf("lease phase %d has no row", p)
		}
	}
	for p := execSent; p <= execDone; p++ {
		if _, ok := execMoves[p]; !ok {
			t.Errorf("execution phase %d has no row", p)
		}
	}
}

// An operation the stop interrupted fails with the stop's reason, the shutdown's, or
// errBindingStopped when the lease ended without one.
func TestInterruptedOperationsFailWithTheStopsReason(t *testing.T) {
	failure := errors.New("failure")
	for _, c := range []struct {
		l    lifecycle
		want error
	}{
		{lifecycle{}, errBindingStopped},
		{lifecycle{phase: leaseShuttingDown}, codemode.ErrShuttingDown},
		{lifecycle{phase: leaseStopped, failure: failure}, failure},
		{lifecycle{phase: leaseStopped}, errSessionStateClosed},
	} {
		if got := c.l.interrupted(); !errors.Is(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.l, got, c.want)
		}
	}
}
