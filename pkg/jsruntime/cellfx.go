package jsruntime

import (
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// applied is what the session made of an event: the lifecycle's effects, the actions to run once
// s.mu is released, and the completion a Terminate claimed (doClaim).
type applied struct {
	effects
	after   actions
	claimed *codemode.RuntimeResponse
}

// apply feeds ev to c's lifecycle under s.mu, runs the actions after releasing it and returns the
// effects, whose answers (pause, dropped) the caller reads.
func (s *session) apply(c *cell, ev event) effects {
	s.mu.Lock()
	a := s.applyLocked(c, ev)
	s.mu.Unlock()
	a.after.run()
	return a.effects
}

// applyLocked feeds ev to c's lifecycle and carries out its effects in order: the cell's
// bookkeeping (its output, its Result, the observer's timer, the idle table) at once, and what
// must not run under s.mu as actions, for the caller to run after releasing it.
func (s *session) applyLocked(c *cell, ev event) applied {
	ev.setApart = c.out.hasYield()
	a := applied{effects: c.life.apply(ev)}
	errText := ev.errText
	for _, e := range a.steps() {
		switch e.kind {
		case doServe:
			obs, o := e.obs, c.observation(e.what, errText)
			a.after.add(func() {
				obs.deliver(o)
				obs.end()
			})
		case doDrop:
			e.obs.drop()
		case doArm:
			obs := e.obs
			obs.timer = time.AfterFunc(obs.deadline, func() { s.apply(c, event{kind: evDeadline, obs: obs}) })
		case doAttached:
			if hook := s.hooks.attached; hook != nil {
				a.after.add(func() { hook(c.id) })
			}
		case doPoke:
			a.after.add(c.poke)
		case doStop:
			a.after.add(func() { s.stop(c) })
		case doClose:
			a.after.add(func() { s.closeCell(c) })
		case doMarkYield:
			c.out.markYield()
		case doCommit:
			if msg := s.p.storeLimits.commit(s.stored, ev.writes); msg != "" && errText == nil {
				errText = &msg
			}
		case doKeepResult:
			c.keepResult(errText)
		case doClaim:
			resp := c.claimCompletion()
			a.claimed = &resp
		case doAnswerTerminator:
			terminator, resp := e.terminator, c.terminated(c.out.take())
			a.after.add(func() { terminator <- resp })
		case doDiscard:
			c.out.take()
		}
	}
	s.idleLocked(c, a.idle)
	return a
}

// terminateGrace bounds how long a terminated cell may take to wind down (its runtime to stop,
// its callbacks to return). A script stops within milliseconds, but a delegate that ignores
// cancellation, or a wasm host call that sleeps, must not hold the terminate or shutdown forever:
// after the grace the cell is reported terminated and closed, and its goroutine ends on its own.
const terminateGrace = 2 * time.Second

// stop cancels a cell whose terminate was just claimed and arms the grace backstop.
func (s *session) stop(c *cell) {
	c.cancel()
	time.AfterFunc(terminateGrace, func() { s.apply(c, event{kind: evGraceExpired}) })
}
