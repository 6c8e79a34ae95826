package grpcclient

import (
	"fmt"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// The lifecycles of a lease and of each of its executions, as data: a phase, the events that
// move it, and a table of the moves allowed. An event the table does not list for a phase is
// refused (a broken protocol for an execution, nothing to do for a lease). The types do no I/O
// and start no goroutine, so their rules are unit-tested on their own (lifecycle_test.go); the
// binding, which holds the lock they live under, does the I/O. docs/adr/0068-grpcclient-lifecycle.md
// says why they are split out of the binding.

// leasePhase is where a binding's lease stands.
type leasePhase uint8

const (
	// leaseOpen serves requests and callbacks.
	leaseOpen leasePhase = iota
	// leaseShuttingDown: Shutdown was asked. New operations fail with codemode.ErrShuttingDown;
	// callbacks still run and a stream's end is expected, until the close.
	leaseShuttingDown
	// leaseStopped: failed, reset or closed. Everything fails with the stop's error.
	leaseStopped
)

// leaseEvent is what happens to a lease.
type leaseEvent uint8

const (
	// leaseShutdown: the session or the binding asked for a shutdown.
	leaseShutdown leaseEvent = iota
	// leaseFailed: the host broke the protocol, a request timed out or a stream ended.
	leaseFailed
	// leaseRouteLost: a response said the route was lost (grpcconv.RouteLostHeader).
	leaseRouteLost
	// leaseClosed: the shutdown closed the lease.
	leaseClosed
)

// leaseMoves is the lease's transition table.
var leaseMoves = map[leasePhase]map[leaseEvent]leasePhase{
	leaseOpen:         {leaseShutdown: leaseShuttingDown, leaseFailed: leaseStopped, leaseRouteLost: leaseStopped, leaseClosed: leaseStopped},
	leaseShuttingDown: {leaseFailed: leaseStopped, leaseRouteLost: leaseStopped, leaseClosed: leaseStopped},
	leaseStopped:      {},
}

// lifecycle is a lease's phase, why it stopped, and whether its route was lost.
type lifecycle struct {
	phase leasePhase
	// failure is why the lease stopped: nil after a clean close.
	failure error
	// routeLost is set by a leaseRouteLost in any phase: a request that fails after it fails with
	// ErrSessionReset, even when the lease had stopped for another reason first.
	routeLost bool
}

// apply moves the lifecycle by ev; failure is a leaseFailed's reason. It reports whether ev
// stopped the lease, for the caller to close its cells: only the first stop does.
func (l *lifecycle) apply(ev leaseEvent, failure error) (stopped bool) {
	if ev == leaseRouteLost {
		l.routeLost, failure = true, ErrSessionReset
	}
	next, ok := leaseMoves[l.phase][ev]
	if !ok {
		return false
	}
	l.phase = next
	if next != leaseStopped {
		return false
	}
	l.failure = failure
	return true
}

// stoppedErr is nil until the lease stops, then the failure that stopped it, or
// errSessionStateClosed after a clean close.
func (l lifecycle) stoppedErr() error {
	switch {
	case l.phase != leaseStopped:
		return nil
	case l.failure != nil:
		return l.failure
	default:
		return errSessionStateClosed
	}
}

// err is what a new operation fails with: stoppedErr, or codemode.ErrShuttingDown once a
// shutdown was asked.
func (l lifecycle) err() error {
	if l.phase == leaseShuttingDown {
		return codemode.ErrShuttingDown
	}
	return l.stoppedErr()
}

// interrupted is what an operation the lease's stop interrupted fails with: err, or
// errBindingStopped when the lease ended without a recorded reason.
func (l lifecycle) interrupted() error {
	if err := l.err(); err != nil {
		return err
	}
	return errBindingStopped
}

// execPhase is where an execution stands. The host's started event (on the Execute stream) and
// its CellClosed (on the lease) travel on different streams, so either may be read first.
type execPhase uint8

const (
	// execSent: the Execute is registered; the host has not admitted the cell.
	execSent execPhase = iota
	// execStarted: the host admitted the cell; the caller does not hold it yet.
	execStarted
	// execClaimed: the caller holds the StartedCell.
	execClaimed
	// execClosedEarly: the host closed the cell before its started event was read.
	execClosedEarly
	// execStartedClosed: started and closed; the caller does not hold it yet.
	execStartedClosed
	// execDone: claimed and closed. It is retired once its notifications were delivered.
	execDone
)

// execEvent is what happens to an execution.
type execEvent uint8

const (
	// execStart: the host's started event.
	execStart execEvent = iota
	// execClaim: the caller was handed the StartedCell.
	execClaim
	// execClose: the host's CellClosed.
	execClose
)

// execMoves is an execution's transition table.
var execMoves = map[execPhase]map[execEvent]execPhase{
	execSent:          {execStart: execStarted, execClose: execClosedEarly},
	execClosedEarly:   {execStart: execStartedClosed},
	execStarted:       {execClaim: execClaimed, execClose: execStartedClosed},
	execStartedClosed: {execClaim: execDone},
	execClaimed:       {execClose: execDone},
	execDone:          {},
}

// next returns the phase ev moves p to, or an error naming what the host (or the client) did
// out of turn; the error is fatal to the lease.
func (p execPhase) next(ev execEvent, execution string, cell codemode.CellID) (execPhase, error) {
	if to, ok := execMoves[p][ev]; ok {
		return to, nil
	}
	switch ev {
	case execStart:
		return p, fmt.Errorf("code-mode execution %s started twice", execution)
	case execClaim:
		return p, fmt.Errorf("code-mode execution %s was not ready to be claimed", execution)
	default:
		return p, fmt.Errorf("code-mode host returned an invalid closure for cell %s", cell)
	}
}

// closed reports whether the host closed the cell.
func (p execPhase) closed() bool {
	return p == execClosedEarly || p == execStartedClosed || p == execDone
}
