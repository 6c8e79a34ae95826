package jsruntime

import "sync"

// notifier bounds a cell's undelivered notifications: each notify() is started through the
// delegate at once (loop.go), so a slow delegate never blocks the script, up to a point: once
// limit bytes of text wait for delivery, the next notify() waits for the delegate to catch up.
// Without that bound a cell notifying in a loop to a slow delegate grew the Go heap without limit,
// and its completion then waited for the whole backlog.
type notifier struct {
	limit int             // bytes of undelivered text past which reserve waits; 0: no limit
	done  <-chan struct{} // the cell's end: a waiting reserve gives up
	// beforeWait, if set, runs before reserve waits: a turn run on a connection's reader hands
	// the reading on first, since the deliveries it waits for are read there (cellRun.handOn).
	beforeWait func()
	mu         sync.Mutex
	bytes      int // text started and not yet delivered
	// delivered receives a token (without blocking) after each delivery, for a waiting reserve.
	delivered chan struct{}
	wg        sync.WaitGroup
}

// admit waits, with n.mu held, while size more bytes would take the undelivered text past the
// limit (a text alone may exceed it). It reports false, with n.mu released, when the cell ended
// meanwhile.
func (n *notifier) admit(size int) bool {
	for n.limit > 0 && n.bytes > 0 && n.bytes+size > n.limit {
		if n.delivered == nil {
			n.delivered = make(chan struct{}, 1)
		}
		n.mu.Unlock()
		if n.beforeWait != nil {
			n.beforeWait()
		}
		select {
		case <-n.delivered:
		case <-n.done:
			return false
		}
		n.mu.Lock()
	}
	return true
}

// reserve accounts for a text about to be started, waiting while the undelivered text would
// exceed the limit; it reports false when the cell ended meanwhile: notifications of an ended cell
// are not delivered anyway. Its delivery must be reported with delivered1.
func (n *notifier) reserve(size int) bool {
	n.mu.Lock()
	if !n.admit(size) {
		return false
	}
	n.wg.Add(1)
	n.bytes += size
	n.mu.Unlock()
	return true
}

// delivered1 accounts for one delivered (or abandoned) text of size bytes and wakes a waiting
// reserve.
func (n *notifier) delivered1(size int) {
	n.mu.Lock()
	n.bytes -= size
	if n.delivered != nil {
		select {
		case n.delivered <- struct{}{}:
		default:
		}
	}
	n.mu.Unlock()
	n.wg.Done()
}

// wait waits until every started notification was delivered.
func (n *notifier) wait() { n.wg.Wait() }
