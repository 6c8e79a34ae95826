package broadcast_test

import (
	"sync"
	"testing"

	"github.com/codemodehq/codemode/pkg/internal/broadcast"
)

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// A channel from Changed stays open until the next Broadcast, which closes it; the channel
// Changed returns afterwards is a new, open one.
func TestBroadcastClosesTheCurrentChannelOnly(t *testing.T) {
	var s broadcast.Signal
	first := s.Changed()
	if s.Changed() != first {
		t.Fatal("two Changed calls without a Broadcast returned different channels")
	}
	if closed(first) {
		t.Fatal("Changed returned a closed channel before any Broadcast")
	}
	s.Broadcast()
	if !closed(first) {
		t.Fatal("Broadcast left the waiters' channel open")
	}
	second := s.Changed()
	if second == first || closed(second) {
		t.Fatal("Changed after a Broadcast did not return a new open channel")
	}
}

// A Broadcast with no waiter is a no-op: it neither panics on a second call nor closes the
// channel of a waiter that comes later.
func TestBroadcastWithoutWaiters(t *testing.T) {
	var s broadcast.Signal
	s.Broadcast()
	s.Broadcast()
	if closed(s.Changed()) {
		t.Fatal("a Broadcast before Changed closed the later channel")
	}
}

// Every goroutine waiting on the same channel wakes on one Broadcast.
func TestBroadcastWakesEveryWaiter(t *testing.T) {
	var s broadcast.Signal
	const waiters = 8
	ready, woke := make(chan struct{}, waiters), make(chan struct{}, waiters)
	for range waiters {
		go func() {
			ch := s.Changed()
			ready <- struct{}{}
			<-ch
			woke <- struct{}{}
		}()
	}
	for range waiters {
		<-ready
	}
	s.Broadcast()
	for range waiters {
		<-woke
	}
}

// The waiter's protocol loses no wake-up: a waiter that takes Changed before it checks the
// state sees every change made after its check.
func TestNoLostWakeup(t *testing.T) {
	var (
		mu    sync.Mutex
		value int
		s     broadcast.Signal
	)
	const target = 1000
	go func() {
		for range target {
			mu.Lock()
			value++
			mu.Unlock()
			s.Broadcast()
		}
	}()
	for {
		mu.Lock()
		changed := s.Changed()
		v := value
		mu.Unlock()
		if v == target {
			return
		}
		<-changed
	}
}
