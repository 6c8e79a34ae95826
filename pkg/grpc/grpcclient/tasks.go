package grpcclient

import "sync"

// tasks tracks goroutines that a shutdown waits for. Once closed it starts no more, so a late
// start cannot race the wait.
type tasks struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// spawn runs f on a goroutine unless the tasks are closed, and reports whether it did.
func (t *tasks) spawn(f func()) bool {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return false
	}
	t.wg.Add(1)
	t.mu.Unlock()
	go func() {
		defer t.wg.Done()
		f()
	}()
	return true
}

// closeAndWait refuses new goroutines and waits for the running ones.
func (t *tasks) closeAndWait() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.wg.Wait()
}
