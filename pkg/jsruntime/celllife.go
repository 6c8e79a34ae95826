package jsruntime

import "github.com/codemodehq/codemode/pkg/codemode"

// cellLifecycle is the state machine of one cell's life (docs/adr/0065-the-cell-lifecycle-is-a-state-machine.md):
// its phase, the flags that decide how observers and the event loop are answered, its observer
// and the Terminate waiting for it. It is plain data guarded by session.mu: apply takes an event
// and returns the effects, as data, for the session to carry out; it does no I/O, reads no clock
// and starts no goroutine, so every transition is unit-tested on its own (celllife_test.go).
type cellLifecycle struct {
	phase cellState
	// started is set once the runtime has an engine: yield deadlines count from then.
	started bool
	// observed is set once any observer was attached.
	observed bool
	// pendingMode is set while the cell is driven by frontiers (PauseAtPendingFrontier): from
	// ExecuteToPending or WaitToPending until a yielding observer attaches. In pending mode the
	// loop pauses whenever it is quiescent, whether or not an observer waits.
	pendingMode bool
	// paused is set while the event loop is held at a frontier.
	paused bool
	// frontierReady is set while the loop is paused at a frontier no observer was handed yet (its
	// pending observer was dropped, or there was none): the next pending observer gets it at once.
	frontierReady bool
	// observer is the registered observer, nil if none; armed is set once its yield deadline runs.
	observer *observer
	armed    bool
	// terminator is the channel of an explicit Terminate waiting for the Terminated response. The
	// lifecycle never sends on it: it only names it in an effect.
	terminator chan codemode.RuntimeResponse
}

// newCellLifecycle is a just admitted cell's lifecycle: running, observed by obs if it is not
// nil (the runtime has not started, so nothing is served yet), and in pending mode from the start
// if it was started for pending observation, observed or not.
func newCellLifecycle(obs *observer, pendingMode bool) cellLifecycle {
	return cellLifecycle{phase: cellRunning, observer: obs, observed: obs != nil, pendingMode: pendingMode}
}

// eventKind names what happened to a cell.
type eventKind uint8

const (
	// evAttach: an observer asks for the cell (Wait, WaitToPending): event.obs.
	evAttach eventKind = iota + 1
	// evStarted: the runtime has an engine.
	evStarted
	// evDeadline: the yield deadline of event.obs passed, or its YieldNow channel closed.
	evDeadline
	// evYield: the script called yield_control().
	evYield
	// evQuiescent: the event loop has nothing to do and may pause at a frontier.
	evQuiescent
	// evFinish: the cell's goroutine ended; event.errText and event.writes are its outcome.
	evFinish
	// evGraceExpired: a terminated cell did not wind down within terminateGrace.
	evGraceExpired
	// evTerminate: an explicit Terminate, answered on event.terminator.
	evTerminate
	// evInterrupt: a terminate on behalf of nobody (abandon, shutdown).
	evInterrupt
	// evReclaim: the cell's unobserved time ran out (idle.go).
	evReclaim
	// evDetach: the caller of event.obs gave up.
	evDetach
	// evDetachTerminator: the Terminate waiting on event.terminator gave up.
	evDetachTerminator
	// evClose: the cell's terminal response was delivered; it leaves the session.
	evClose
)

// event is one input of the lifecycle.
type event struct {
	kind       eventKind
	obs        *observer
	terminator chan codemode.RuntimeResponse
	// setApart reports whether the output holds a yield set apart (output.hasYield): a fact of
	// the cell's output that the session reads for the lifecycle.
	setApart bool
	// errText and writes are a finished cell's outcome, for the session to commit (evFinish); the
	// lifecycle does not read them.
	errText *string
	writes  storedValues
}

// effectKind names a step the session carries out for the lifecycle.
type effectKind uint8

const (
	// doServe: hand obs the observation named by what, and end it. The lifecycle has already
	// unregistered it (doDrop came first) or never registered it.
	doServe effectKind = iota + 1
	// doDrop: obs is no longer the cell's observer: stop its yield timer and end it.
	doDrop
	// doArm: start obs's yield timer.
	doArm
	// doAttached: an observer was registered (the test hook).
	doAttached
	// doWakeLoop: wake the cell's event loop.
	doWakeLoop
	// doStop: cancel the cell's runtime and arm the grace backstop.
	doStop
	// doClose: close the cell once the deliveries before it ran.
	doClose
	// doMarkYield: set the output so far apart for the first observation.
	doMarkYield
	// doCommit: commit the finished cell's stored values (before its Result is made).
	doCommit
	// doKeepResult: keep the Result of a cell nobody observes for the next observation.
	doKeepResult
	// doClaim: hand the completed cell's Result to the Terminate that claimed it.
	doClaim
	// doAnswerTerminator: send the Terminated response, with the output, to terminator.
	doAnswerTerminator
	// doDiscard: drop the output of a terminated cell nobody waits for.
	doDiscard
)

// serving names what a doServe hands over.
type serving uint8

const (
	// serveSetApart: a Yielded response with the oldest yield set apart (output.takeYield).
	serveSetApart serving = iota + 1
	// serveSoFar: a Yielded response with the output so far.
	serveSoFar
	// serveFrontier: the frontier the cell is at.
	serveFrontier
	// serveClaimed: the kept Result of a completed cell, which the observer claims.
	serveClaimed
	// serveResult: the Result of the cell that just finished, with the output so far.
	serveResult
	// serveTerminated: the Terminated response with the output so far.
	serveTerminated
	// serveTerminatedEmpty: the Terminated response without output (a Terminate takes it).
	serveTerminatedEmpty
)

// effect is one step of an event's outcome.
type effect struct {
	kind       effectKind
	what       serving
	obs        *observer
	terminator chan codemode.RuntimeResponse
}

// maxEffects is the most effects one event has: a finishing observed cell commits, drops and
// serves its observer and closes.
const maxEffects = 4

// refusal is why an event that asks for the cell was turned down.
type refusal uint8

const (
	// refusedMissing: the cell is delivering its terminal response or closed, as good as gone.
	refusedMissing refusal = iota + 1
	// refusedObserved: the cell already has an observer.
	refusedObserved
	// refusedTerminating: a terminate already claimed the cell.
	refusedTerminating
)

// idleChange is what an event does to the cell's entry in the session's idle table.
type idleChange uint8

const (
	// idleRecord: the cell became unobserved; its unobserved time starts.
	idleRecord idleChange = iota + 1
	// idleForget: the cell is observed, or ending.
	idleForget
	// idleRestart: an observation restarts the unobserved time, whether it was served at once or
	// waits: forget the cell, then record it if it is still unobserved.
	idleRestart
)

// answers are what an event tells its caller.
type answers struct {
	// refused is why the event was turned down (evAttach, evTerminate), zero if it was not.
	refused refusal
	// pause reports whether the loop pauses at the frontier (evQuiescent).
	pause bool
	// dropped reports whether the observer or terminator that gave up was still registered
	// (evDetach, evDetachTerminator).
	dropped bool
}

// effects is an event's outcome: the steps to carry out, in order, the answers to the caller and
// the change to the idle table.
type effects struct {
	answers
	list [maxEffects]effect
	n    uint8
	idle idleChange
}

func (fx *effects) add(e effect) {
	fx.list[fx.n] = e
	fx.n++
}

// steps returns the effects to carry out, in order.
func (fx *effects) steps() []effect { return fx.list[:fx.n] }

// unobserved reports whether the cell is live with nobody observing it: no observer, no
// terminate waiting. Such a cell is in the session's idle table.
func (l *cellLifecycle) unobserved() bool {
	live := l.phase == cellRunning || l.phase == cellCompleted
	return live && l.observer == nil && l.terminator == nil
}

// apply makes the transition of ev and returns its effects.
func (l *cellLifecycle) apply(ev event) effects {
	var fx effects
	l.step(&ev, &fx)
	return fx
}

// step is apply writing into fx, which must be zero: the session's executor, which runs on every
// turn of a waiting loop, has it make no copies.
func (l *cellLifecycle) step(ev *event, fx *effects) {
	before := l.unobserved()
	switch ev.kind {
	case evAttach:
		l.attach(ev, fx)
	case evStarted:
		l.started = true
		if l.phase == cellRunning {
			l.arm(fx)
		}
	case evDeadline:
		if l.observer == ev.obs && l.phase == cellRunning {
			l.serveObserver(fx, serveSoFar)
		}
	case evYield:
		l.yield(ev, fx)
	case evQuiescent:
		l.quiescent(fx)
	case evFinish:
		l.finish(fx)
	case evGraceExpired:
		if l.phase == cellTerminating {
			l.endTermination(fx)
		}
	case evTerminate:
		l.terminate(ev, fx)
	case evInterrupt:
		l.interrupt(fx)
	case evReclaim:
		if before {
			l.interrupt(fx)
		}
	case evDetach:
		if fx.dropped = ev.obs != nil && l.observer == ev.obs; fx.dropped {
			l.observer, l.armed = nil, false
			fx.add(effect{kind: doDrop, obs: ev.obs})
		}
	case evDetachTerminator:
		if fx.dropped = ev.terminator != nil && l.terminator == ev.terminator; fx.dropped {
			l.terminator = nil
		}
	case evClose:
		l.phase = cellClosed
	}
	after := l.unobserved()
	switch {
	case fx.idle == idleRestart:
	case !before && after:
		fx.idle = idleRecord
	case before && !after:
		fx.idle = idleForget
	}
}

// attach registers ev.obs as the observer, or serves it at once.
func (l *cellLifecycle) attach(ev *event, fx *effects) {
	obs := ev.obs
	switch {
	case l.phase != cellRunning && l.phase != cellCompleted && l.phase != cellTerminating:
		fx.refused = refusedMissing
		return
	case l.phase != cellCompleted && l.observer != nil:
		fx.refused = refusedObserved
		return
	}
	fx.idle = idleRestart
	switch {
	case l.phase == cellCompleted:
		// A yielding observer first gets the initial yield, if one was set apart; otherwise the
		// observer claims the Result.
		if obs.yields() && ev.setApart {
			fx.add(effect{kind: doServe, obs: obs, what: serveSetApart})
			return
		}
		l.phase = cellDelivering
		fx.add(effect{kind: doServe, obs: obs, what: serveClaimed})
	case l.phase == cellTerminating:
		l.observed = true
		l.register(obs, fx) // the end of the termination answers it
	case !obs.yields():
		l.attachPending(obs, fx)
	default:
		l.attachYielding(ev, fx)
	}
}

// attachPending attaches a pending observer to a running cell: it gets a frontier the cell is
// paused at and nobody was handed yet at once, without resuming the cell; otherwise it resumes a
// paused cell until its next frontier, and a cell that is idle right now answers it as soon as
// its loop wakes.
func (l *cellLifecycle) attachPending(obs *observer, fx *effects) {
	l.observed, l.pendingMode = true, true
	if l.frontierReady {
		l.frontierReady = false
		fx.add(effect{kind: doServe, obs: obs, what: serveFrontier})
		return
	}
	l.paused = false
	l.register(obs, fx)
	fx.add(effect{kind: doWakeLoop})
}

// attachYielding attaches a Wait to a running cell. It takes the cell out of pending mode and
// resumes it for good; an initial yield set apart earlier, or a zero yield time, answers it at
// once.
func (l *cellLifecycle) attachYielding(ev *event, fx *effects) {
	obs := ev.obs
	l.observed = true
	if l.paused {
		fx.add(effect{kind: doWakeLoop})
	}
	l.pendingMode, l.paused, l.frontierReady = false, false, false
	switch {
	case ev.setApart:
		fx.add(effect{kind: doServe, obs: obs, what: serveSetApart})
	case obs.hasDeadline && obs.deadline == 0:
		fx.add(effect{kind: doServe, obs: obs, what: serveSoFar})
	default:
		l.register(obs, fx)
		l.arm(fx)
	}
}

// register makes obs the cell's observer.
func (l *cellLifecycle) register(obs *observer, fx *effects) {
	l.observer, l.armed = obs, false
	fx.add(effect{kind: doAttached})
}

// arm starts the yield deadline of the observer once the runtime has started. A zero deadline
// answers at once, before anything the script does next.
func (l *cellLifecycle) arm(fx *effects) {
	obs := l.observer
	if !l.started || obs == nil || !obs.hasDeadline || l.armed {
		return
	}
	if obs.deadline == 0 {
		l.serveObserver(fx, serveSoFar)
		return
	}
	l.armed = true
	fx.add(effect{kind: doArm, obs: obs})
}

// serveObserver unregisters the observer and serves it what.
func (l *cellLifecycle) serveObserver(fx *effects, what serving) {
	obs := l.observer
	l.observer, l.armed = nil, false
	fx.add(effect{kind: doDrop, obs: obs})
	fx.add(effect{kind: doServe, obs: obs, what: what})
}

// yield answers a yielding observer with the output so far. Without an observer it does nothing,
// except that the first one before the cell was ever observed sets the output so far apart for
// the first observation (Codex's pending initial yield). (Codex's host sometimes also keeps later
// unobserved yields apart, when its cell actor lags behind V8; that is a race of its threads, not
// a rule, and codemode follows the rule.)
func (l *cellLifecycle) yield(ev *event, fx *effects) {
	switch {
	case l.phase != cellRunning:
	case l.observer == nil:
		if !l.observed && !ev.setApart {
			fx.add(effect{kind: doMarkYield})
		}
	case l.observer.yields():
		l.serveObserver(fx, serveSoFar)
	}
}

// quiescent decides whether the quiescent loop pauses: it must in pending mode. A waiting pending
// observer is handed the frontier, and without one the frontier is kept for the next (a dropped
// pending observer preserves it).
func (l *cellLifecycle) quiescent(fx *effects) {
	fx.pause = l.phase == cellRunning && l.pendingMode
	if !fx.pause {
		return
	}
	l.paused = true
	if l.observer != nil && !l.observer.yields() {
		l.serveObserver(fx, serveFrontier)
		return
	}
	l.frontierReady = true
}

// finish publishes the end of the cell's goroutine: a Result (committing stored values) unless a
// terminate claimed the cell first, in which case the Terminated response.
func (l *cellLifecycle) finish(fx *effects) {
	switch l.phase {
	case cellRunning:
		l.complete(fx)
	case cellTerminating:
		l.endTermination(fx)
	}
}

// complete commits the finished cell's stored values and hands its Result to the observer, or
// keeps it for the next observation. Execute's initial observer has nobody to close the cell
// after it, so the session does.
func (l *cellLifecycle) complete(fx *effects) {
	fx.add(effect{kind: doCommit})
	obs := l.observer
	if obs == nil {
		l.phase = cellCompleted
		fx.add(effect{kind: doKeepResult})
		return
	}
	l.phase = cellDelivering
	l.serveObserver(fx, serveResult)
	if obs.kind == initialObserver {
		fx.add(effect{kind: doClose})
	}
}

// endTermination delivers the Terminated response of a terminating cell: the output goes to the
// terminate caller if there is one, else to the observer. Wait and Terminate callers close the
// cell once they hold the response; otherwise (initial response, or nobody listening) the
// session closes it after delivery.
func (l *cellLifecycle) endTermination(fx *effects) {
	terminator, obs := l.terminator, l.observer
	l.terminator, l.phase = nil, cellDelivering
	switch {
	case obs != nil && terminator != nil:
		l.serveObserver(fx, serveTerminatedEmpty)
	case obs != nil:
		l.serveObserver(fx, serveTerminated)
	}
	switch {
	case terminator != nil:
		fx.add(effect{kind: doAnswerTerminator, terminator: terminator})
	case obs == nil:
		fx.add(effect{kind: doDiscard})
		fx.add(effect{kind: doClose})
	case obs.kind == initialObserver:
		fx.add(effect{kind: doClose})
	}
}

// terminate claims the cell for an explicit Terminate: a running cell is stopped, and a completed
// but unobserved cell hands over its completion instead.
func (l *cellLifecycle) terminate(ev *event, fx *effects) {
	switch l.phase {
	case cellCompleted:
		l.phase = cellDelivering
		fx.add(effect{kind: doClaim})
	case cellTerminating:
		fx.refused = refusedTerminating
	case cellRunning:
		l.terminator, l.phase = ev.terminator, cellTerminating
		fx.add(effect{kind: doStop})
	default:
		fx.refused = refusedMissing
	}
}

// interrupt terminates the cell on behalf of nobody: a running cell is stopped and its observer,
// if any, gets the Terminated response; a completed, unobserved cell is closed.
func (l *cellLifecycle) interrupt(fx *effects) {
	switch l.phase {
	case cellRunning:
		l.phase = cellTerminating
		fx.add(effect{kind: doStop})
	case cellCompleted:
		l.phase = cellDelivering
		fx.add(effect{kind: doClose})
	}
}
