package grpcclient

import (
	"context"
	"sync"
)

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

// closer runs a close at most once, on a goroutine of its own, so that a caller whose context
// ends first can leave while the close goes on; every caller gets the first run's result. The
// session and each binding close with it.
type closer struct {
	once sync.Once
	// done is closed when the close finished. An owner that selects on it before the close
	// makes it when it makes the closer; otherwise the first close makes it.
	done chan struct{}
	err  error
}

// close starts f unless a close already started, and waits for its result within ctx.
func (c *closer) close(ctx context.Context, f func() error) error {
	c.once.Do(func() {
		if c.done == nil {
			c.done = make(chan struct{})
		}
		go func() {
			defer close(c.done)
			c.err = f()
		}()
	})
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
