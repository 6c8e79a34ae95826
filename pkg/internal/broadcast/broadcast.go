// Package broadcast is the module's one way to wake every goroutine waiting for a change of
// state guarded elsewhere: a channel that is closed, and replaced, on every change. It is the
// sync.Cond of code that must also select on a context or another channel, which sync.Cond
// cannot (docs/adr/0069-one-of-each-mechanism.md).
package broadcast

import "sync"

// Signal wakes its waiters. The zero value is ready to use; a Signal must not be copied after
// first use.
//
// A writer changes the state, then calls Broadcast (with the state's lock held or not). A waiter
// takes Changed in the same critical section as its check of the state (or, for state read
// without a lock, before the check) and waits on the channel only if the check failed: a change
// the check missed is broadcast after Changed, so it closes the channel the waiter holds and no
// wake-up is lost.
type Signal struct {
	mu sync.Mutex
	// ch is the channel of the current waiters, made by the first Changed after a Broadcast, so
	// that a Broadcast nobody waits for allocates nothing.
	ch chan struct{}
}

// Changed returns a channel that is closed by the next Broadcast.
func (s *Signal) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// Broadcast wakes every waiter holding a channel from Changed; later calls of Changed return a
// new channel.
func (s *Signal) Broadcast() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}
