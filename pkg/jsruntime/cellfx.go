package jsruntime

import (
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// applied is what the session made of an event: the lifecycle's effects, the actions to run once
// s.mu is released, the completion a Terminate claimed (doClaim) and a finishing cell's error
// (doCommit may set it).
type applied struct {
	effects
	after   actions
	claimed *codemode.RuntimeResponse
	errText *string
}

// apply feeds ev to c's lifecycle under s.mu, runs the actions after releasing it and returns the
// event's answers.
func (s *session) apply(c *cell, ev event) answers {
	var a applied
	s.mu.Lock()
	s.applyLocked(c, &ev, &a)
	s.mu.Unlock()
	a.after.run()
	return a.answers
}

// applyLocked feeds ev to c's lifecycle and carries out its effects into a, which must be zero,
// in order: the cell's bookkeeping (its output, its Result, the observer's timer, the idle table)
// at once, and what must not run under s.mu as a.after, for the caller to run after releasing it.
// It writes into a rather than returning it: a waiting loop applies an event on every turn.
func (s *session) applyLocked(c *cell, ev *event, a *applied) {
	ev.setApart = c.out.hasYield()
	c.life.step(ev, &a.effects)
	if a.n > 0 {
		a.errText = ev.errText
		for _, e := range a.steps() {
			a.carryOut(s, c, ev, e)
		}
	}
	if a.idle != 0 {
		s.idleLocked(c, a.idle)
	}
}

// carryOut carries out one effect of ev on c, under s.mu.
func (a *applied) carryOut(s *session, c *cell, ev *event, e effect) {
	switch e.kind {
	case doServe:
		obs, o := e.obs, c.observation(e.what, a.errText)
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
	case doWakeLoop:
		a.after.add(c.wakeLoop)
	case doStop:
		a.after.add(func() { s.stop(c) })
	case doClose:
		a.after.add(func() { s.closeCell(c) })
	case doMarkYield:
		c.out.markYield()
	case doCommit:
		if msg := s.p.storeLimits.commit(s.stored, ev.writes); msg != "" && a.errText == nil {
			a.errText = &msg
		}
	case doKeepResult:
		c.keepResult(a.errText)
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
