package jsruntime

import (
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// DefaultUnobservedCellTimeout is how long a live cell may go without an observer before it is
// reclaimed, unless Options.UnobservedCellTimeout says otherwise (docs/adr/0059-*.md): as long
// as an MCP client session's idle timeout, far longer than a model's turn spends between an
// exec that yielded and the wait that collects it, and short enough that cells a client forgot
// do not hold their slot and their memory for ever.
const DefaultUnobservedCellTimeout = 30 * time.Minute

// idleTable is a session's bookkeeping of its unobserved cells: each live cell that has no
// observer (it yielded, or its observer went away, or it completed with nobody to take its
// Result) and when it is to be reclaimed. It is plain data, guarded by session.mu like the cells
// it names; the session arms one timer and reclaims what expired(now) returns.
type idleTable struct {
	// after is the unobserved time after which a cell is reclaimed; zero or less: never.
	after     time.Duration
	deadlines map[codemode.CellID]time.Time
}

func newIdleTable(after time.Duration) idleTable {
	return idleTable{after: after, deadlines: map[codemode.CellID]time.Time{}}
}

// unobserved records that cell id has no observer since now, unless it is recorded already
// (its clock runs from when its last observation ended). It returns the deadline it recorded,
// false when it recorded none.
func (t *idleTable) unobserved(id codemode.CellID, now time.Time) (time.Time, bool) {
	if t.after <= 0 {
		return time.Time{}, false
	}
	if _, ok := t.deadlines[id]; ok {
		return time.Time{}, false
	}
	d := now.Add(t.after)
	t.deadlines[id] = d
	return d, true
}

// observed forgets cell id: an observer attached, or the cell is ending anyway.
func (t *idleTable) observed(id codemode.CellID) { delete(t.deadlines, id) }

// expired removes and returns the cells whose deadline is at or before now.
func (t *idleTable) expired(now time.Time) []codemode.CellID {
	var ids []codemode.CellID
	for id, d := range t.deadlines {
		if !d.After(now) {
			ids = append(ids, id)
			delete(t.deadlines, id)
		}
	}
	return ids
}

// next is the earliest deadline, false when no cell waits.
func (t *idleTable) next() (time.Time, bool) {
	var first time.Time
	for _, d := range t.deadlines {
		if first.IsZero() || d.Before(first) {
			first = d
		}
	}
	return first, !first.IsZero()
}

// idleLocked carries out what an event did to c's entry in the idle table (cellLifecycle.apply
// says; a cell is in the table while it is unobserved) and arms the session's reclaim timer.
func (s *session) idleLocked(c *cell, change idleChange) {
	switch change {
	case idleForget:
		s.idle.observed(c.id)
		return
	case idleRestart:
		s.idle.observed(c.id)
		if !c.life.unobserved() {
			return
		}
	case idleRecord:
	default:
		return
	}
	// One timer serves every cell. While the table holds a cell a timer is armed at or before
	// its earliest deadline, and a deadline added later is never earlier than those before it
	// (they all run for the same time): only a table that was empty needs arming, in O(1).
	if d, ok := s.idle.unobserved(c.id, time.Now()); ok && s.idleTimer == nil && !s.closing.Load() {
		s.idleTimer = time.AfterFunc(time.Until(d), s.reclaimIdle)
	}
}

// reclaimIdle ends the cells whose unobserved time ran out (evReclaim): a running (yielded,
// blocked or paused) cell is terminated as an abandoned one is, and a completed cell whose Result
// nobody took is closed with it. Each cell closes exactly once (closeCell); a wait that comes
// later finds no cell (codemode.MissingCellOutcome), as one for any closed cell does.
func (s *session) reclaimIdle() {
	s.mu.Lock()
	s.idleTimer = nil
	var after actions
	for _, id := range s.idle.expired(time.Now()) {
		if c := s.cells[id]; c != nil {
			var a applied
			s.applyLocked(c, &event{kind: evReclaim}, &a)
			after = append(after, a.after...)
		}
	}
	if next, ok := s.idle.next(); ok && !s.closing.Load() {
		s.idleTimer = time.AfterFunc(time.Until(next), s.reclaimIdle) // a timer that found nothing expired arms itself again
	}
	s.mu.Unlock()
	after.run()
}

// stopIdleTimer stops the reclaim timer of a session that is shutting down.
func (s *session) stopIdleTimer() {
	s.mu.Lock()
	if s.idleTimer != nil {
		s.idleTimer.Stop()
		s.idleTimer = nil
	}
	s.mu.Unlock()
}
